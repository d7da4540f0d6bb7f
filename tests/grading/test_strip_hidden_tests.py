"""StripHiddenTests: hidden tests never reach students."""

from __future__ import annotations

import pytest

from autogradkit_instructor.steps import StripHiddenTests

from .helpers import code, notebook

SOURCE = "check(f(1))\n### BEGIN HIDDEN TESTS\ncheck(f(2))\n### END HIDDEN TESTS\ndone()"


def test_hidden_region_and_markers_are_removed():
    nb = notebook(code(SOURCE, grade_id="t", grade=True, locked=True, points=1))
    assert StripHiddenTests()(nb, None).cells[0].source == "check(f(1))\ndone()"


def test_hidden_tests_outside_a_grade_cell_are_an_error():
    nb = notebook(code(SOURCE, grade_id="x", locked=True))
    with pytest.raises(ValueError, match="cell x has hidden tests but is not a grade cell"):
        StripHiddenTests()(nb, None)
