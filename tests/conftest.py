"""Shared test set-up: a fixed seed for every test, the hypothesis CI profile, the ``needs``
marker (a test that needs an optional package is skipped without it: optional.py), the
slowest files first, and one JupyterLab server and Chromium per process for the browser tests."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import settings

import autogradkit as agk
from autogradkit_instructor.kernels import ignore_user_settings

from .optional import skip_unless

# nbval's kernels, and every kernel a test starts, read none of the user's settings (their
# matplotlibrc, IPython profile, PYTHONSTARTUP), as build's do: test_user_settings.py
ignore_user_settings(os.environ)

settings.register_profile("ci", deadline=None, max_examples=40, derandomize=True)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _seed():
    """Every test starts from the same random state, in autogradkit and in NumPy."""
    agk.manual_seed(0)
    np.random.seed(0)
    yield


def pytest_runtest_setup(item):
    """``@pytest.mark.needs("chromium", ...)``: skipped, with the installer's name, unless
    every optional package named can be used here."""
    for marker in item.iter_markers("needs"):
        skip_unless(*marker.args)


def pytest_collection_modifyitems(items):
    """The ``slow`` files first, the longest first: on several workers (pytest-xdist, a file
    at a time each), the longest files start at once and the short ones fill in around them,
    so that no long file starts late and keeps one worker busy after the others are done."""
    items.sort(key=seconds_alone, reverse=True)  # a stable sort: else as collected


def seconds_alone(item) -> float:
    """``@pytest.mark.slow(SECONDS)``: about how long the test's file takes alone on 2 busy
    cores (a measured ordering hint, never a limit); 0 for the tests not marked slow."""
    marker = item.get_closest_marker("slow")
    return 0.0 if marker is None else float(marker.args[0] if marker.args else 1)


@pytest.fixture(scope="session")
def chromium():
    """Headless Chromium, one per desktop language, shared by this process's browser tests
    (tests/browser.py): ``chromium.run(work, ...)`` calls ``work(browser, ...)``, in which a
    test opens a browser context of its own."""
    skip_unless("chromium")
    from .browser import Browsers

    browsers = Browsers()
    yield browsers
    browsers.close()


@pytest.fixture(scope="session")
def jupyterlab(tmp_path_factory, chromium):
    """``tools/browser_check.py``'s checks on one JupyterLab server of this process, each on a
    copy of its notebook's folder, in a browser context and a kernel of its own."""
    from .browser import SharedLab, browser_check

    home = tmp_path_factory.mktemp("jupyterlab")
    (home / "root").mkdir()
    with browser_check.Lab(home / "root", home) as lab:
        yield SharedLab(lab, chromium)
