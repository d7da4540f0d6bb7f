"""cells.py: roles by metadata, and the marker regions."""

from __future__ import annotations

import pytest

from autogradkit_instructor import cells

from .helpers import code, markdown


def test_roles_follow_nbgraders_rules():
    test = code("check()", grade_id="t", grade=True, points=1)  # locked not set: still locked
    answer = code("x", grade_id="a", solution=True, locked=True)  # answers are never locked
    essay = markdown("why", grade_id="m", grade=True, solution=True, points=2)
    assert (cells.is_test(test), cells.is_locked(test)) == (True, True)
    assert (cells.is_test(answer), cells.is_locked(answer)) == (False, False)
    assert (cells.is_manual(essay), cells.is_test(essay)) == (True, False)


def test_nested_regions_are_refused():
    with pytest.raises(ValueError, match="nested"):
        cells.replace_regions("# BEGIN X\n# BEGIN X\n# END X", "BEGIN X", "END X", "stub")


def test_regions_are_listed_in_order():
    src = "a\n# BEGIN H\nb\n# END H\nc\n# BEGIN H\nd\n# END H"
    assert cells.regions(src, "BEGIN H", "END H") == ["b", "d"]
