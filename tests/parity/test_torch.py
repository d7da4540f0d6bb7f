"""Every snippet prints the same in PyTorch and in autogradkit (skipped without torch)."""

from __future__ import annotations

import pytest

from ..optional import import_or_skip
from .harness import run
from .snippets import SNIPPETS

torch = import_or_skip("torch")

import autogradkit  # noqa: E402


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_prints_what_pytorch_prints(name):
    assert run(SNIPPETS[name], autogradkit) == run(SNIPPETS[name], torch)


def test_there_are_at_least_150_snippets():
    assert len(SNIPPETS) >= 150
