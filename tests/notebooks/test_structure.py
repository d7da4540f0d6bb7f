"""What every course notebook must contain.

The house rules (exercises, figure, widget, nbgrader cells, checks called once, the opening
and the recap) live in ``autogradkit_instructor.house_style``, the code behind
``autogradkit check-course``; these tests run them on the shipped course
(``notebooks/house_style.txt``). The rules at the end hold for every assignment in
``notebooks/source/``: what build and release must give any notebook.
"""

from __future__ import annotations

import pytest

from .conftest import ASSIGNMENTS, HOUSE_STYLE, assert_follows, read, release_path, source_path

STRUCTURE_RULES = (
    "three-exercises",
    "figure",
    "widget",
    "nbgrader-cells",
    "checks-called-once",
    "answer-then-check",
    "points-announced",
    "recap-last",
    "seeded",
    "no-torch",
)


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _graded(nb, kind: str):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get(kind)]


def test_the_house_style_list_names_assignments_of_the_course():
    assert HOUSE_STYLE and set(HOUSE_STYLE) <= set(ASSIGNMENTS)


def test_every_topic_is_taught_in_a_tagged_cell():
    """The syllabus (T01-T51) is the shipped course's: a new assignment may tag any of them."""
    tagged = set()
    for name in HOUSE_STYLE:
        for cell in read(source_path(name)).cells:
            tagged |= {
                t.split(":", 1)[1] for t in cell.metadata.get("tags", []) if t.startswith("topic:")
            }
    missing = [f"T{n:02d}" for n in range(1, 52) if f"T{n:02d}" not in tagged]
    assert not missing, f"topics without a tagged cell: {missing}"
    assert tagged <= {f"T{n:02d}" for n in range(1, 52)}, "unknown topic tags"


@pytest.mark.parametrize("rule", STRUCTURE_RULES)
def test_the_shipped_course_follows_the_structure_rule(house_assignment, rule):
    assert_follows(house_assignment, rule)


# ----- what build and release give every assignment, house style or not ---------------------
def test_the_release_copy_stores_no_error_output(assignment):
    for cell in read(release_path(assignment)).cells:
        assert not [o for o in cell.get("outputs", []) if o.output_type == "error"], cell.source


def test_an_unanswered_release_raises_only_in_its_checks(assignment):
    """Running a student's untouched copy, an answer cell raises nothing (its stub is
    ``name = ...`` or a function that is only called by the check); the check says "not
    answered yet"."""
    for cell in _graded(read(release_path(assignment)), "solution"):
        assert "raises-exception" not in cell.metadata.get("tags", []), cell.source[:80]


def test_stored_outputs_are_complete_and_in_order(assignment):
    nb = read(source_path(assignment))
    assert nb.metadata["kernelspec"]["name"] == "python3"
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert counts == list(range(1, len(counts) + 1)), "execute the notebook from the top"
    assert not [
        o
        for o in _outputs(nb)
        if "image/svg+xml" in o.get("data", {})
        and "<Figure size" in o["data"].get("text/plain", "")
    ], "keep figures as PNG"


def test_only_tagged_cells_raise(assignment):
    for cell in read(source_path(assignment)).cells:
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        if errors:
            assert "raises-exception" in cell.metadata.get("tags", []), cell.source[:60]


def test_release_copy_exists_and_hides_the_answers(assignment):
    nb = read(release_path(assignment))
    text = "\n".join(c.source for c in nb.cells)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert len(_graded(nb, "solution")) == len(_graded(read(source_path(assignment)), "solution"))
