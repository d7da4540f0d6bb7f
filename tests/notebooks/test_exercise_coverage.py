"""Every check of every notebook has a test with a shortcut it refuses and an answer it takes.

The rule (``shortcut-tests`` of ``autogradkit check-course``) reads the test files' code
(``assert_refused(checks.NAME, ...)`` and ``assert_passes(checks.NAME, ...)``), so a new
exercise of the shipped course without its shortcut test fails here. A new assignment follows
it once its author lists it in ``notebooks/house_style.txt``.
"""

from __future__ import annotations

from pathlib import Path

from autogradkit_instructor.house_style import checks_called

from .conftest import assert_follows

HERE = Path(__file__).parent


def test_each_check_has_a_refused_shortcut_and_a_passing_answer(house_assignment):
    assert_follows(house_assignment, "shortcut-tests")


def test_a_wrapper_around_the_helper_counts_as_the_helper():
    """05's tests call ``refused(checks.NAME, ...)``, their own wrapper around assert_refused
    that also reads the lines in Chinese."""
    tests = HERE / "test_exercises_05.py"
    assert "assert_refused(checks.predicted_graph" not in tests.read_text(encoding="utf-8")
    assert "predicted_graph" in checks_called(tests, "assert_refused")
