"""Every check of every notebook has a test with a shortcut it refuses and an answer it takes.

Read from the test files' code (``assert_refused(checks.NAME, ...)`` and
``assert_passes(checks.NAME, ...)``), so a new exercise without its shortcut test fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autogradkit.grading.checks import Check

from .conftest import ASSIGNMENTS
from .exercises import checks_of

HERE = Path(__file__).parent


def _calls(tree, names: set[str]):
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) in names and n.args
    ]


def _checks_called(path: Path, helper: str) -> set[str]:
    """Names ``N`` in every ``helper(checks.N, ...)`` call of the test file, or of a wrapper
    the file defines around ``helper`` (``refused(check, ...)``, which also reads the lines
    in Chinese)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    wrappers = {
        f.name
        for f in tree.body
        if isinstance(f, ast.FunctionDef) and not f.name.startswith("test_") and _calls(f, {helper})
    }
    found = set()
    for node in _calls(tree, {helper} | wrappers):
        if node.args:
            first = node.args[0]
            if isinstance(first, ast.Attribute) and getattr(first.value, "id", None) == "checks":
                found.add(first.attr)
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_check_has_a_refused_shortcut_and_a_passing_answer(assignment):
    names = {n for n, v in vars(checks_of(assignment)).items() if isinstance(v, Check)}
    tests = HERE / f"test_exercises_{assignment[:2]}.py"
    assert tests.is_file(), f"{assignment} has no {tests.name}"
    refused, passes = (
        _checks_called(tests, "assert_refused"),
        _checks_called(tests, "assert_passes"),
    )
    assert not names - refused, f"no shortcut test for {sorted(names - refused)}"
    assert not names - passes, f"no correct-answer test for {sorted(names - passes)}"
