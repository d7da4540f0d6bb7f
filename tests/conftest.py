"""Shared test set-up: a fixed seed for every test, the hypothesis CI profile, markers."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import settings

import autogradkit as agk

settings.register_profile("ci", deadline=None, max_examples=40, derandomize=True)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _seed():
    """Every test starts from the same random state, in autogradkit and in NumPy."""
    agk.manual_seed(0)
    np.random.seed(0)
    yield
