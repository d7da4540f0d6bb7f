"""What every course notebook must contain: topics, figures, widgets, graded exercises."""

from __future__ import annotations

import re

from autogradkit.grading.checks import Check

from .conftest import ASSIGNMENTS, read, release_path, source_path
from .exercises import checks_of

EXPECTED_ASSIGNMENTS = [
    "00_start_here",
    "01_backprop_by_hand",
    "02_autograd_does_it",
    "03_nonscalar_leaves_jacobians",
    "04_inplace_data_detach",
    "05_inside_grad_fn",
    "06_hooks",
    "07_capstone",
]
WIDGET = "application/vnd.jupyter.widget-view+json"


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _graded(nb, kind: str):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get(kind)]


def test_the_course_has_every_assignment_in_order():
    assert ASSIGNMENTS == EXPECTED_ASSIGNMENTS


def test_every_topic_is_taught_in_a_tagged_cell():
    tagged = set()
    for name in ASSIGNMENTS:
        for cell in read(source_path(name)).cells:
            tagged |= {
                t.split(":", 1)[1] for t in cell.metadata.get("tags", []) if t.startswith("topic:")
            }
    missing = [f"T{n:02d}" for n in range(1, 52) if f"T{n:02d}" not in tagged]
    assert not missing, f"topics without a tagged cell: {missing}"
    assert tagged <= {f"T{n:02d}" for n in range(1, 52)}, "unknown topic tags"


def test_notebook_has_a_matplotlib_figure(assignment):
    figures = [
        o
        for o in _outputs(read(source_path(assignment)))
        if "image/png" in o.get("data", {})
        and o["data"].get("text/plain", "").startswith("<Figure size")
    ]
    assert figures, "no matplotlib figure (end figure cells with plt.show())"


def test_notebook_shows_a_widget(assignment):
    assert any(WIDGET in o.get("data", {}) for o in _outputs(read(source_path(assignment))))


def test_notebook_has_three_or_more_graded_exercises(assignment):
    nb = read(source_path(assignment))
    assert len(_graded(nb, "solution")) >= 3
    assert len(_graded(nb, "grade")) >= 3


def test_nbgrader_metadata_is_consistent(assignment):
    nb = read(source_path(assignment))
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
    for cell in _graded(nb, "solution"):
        meta = cell.metadata["nbgrader"]
        assert (meta["grade"], meta["locked"], meta["schema_version"]) == (False, False, 3)
        assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
    for cell in _graded(nb, "grade"):
        meta = cell.metadata["nbgrader"]
        assert (meta["solution"], meta["locked"], meta["schema_version"]) == (False, True, 3)
        assert meta["points"] >= 0  # a prediction counts for none (issue 29)
        assert re.search(r"^checks\.\w+\(\)$", cell.source, re.M), "a test cell calls checks"


def test_test_cells_call_each_check_of_the_notebook_once_hidden_ones_hidden(assignment):
    """Every check in checks.py is called by one test cell; a hidden check only from a hidden
    region (release strips both), a public one never from there."""
    checks = checks_of(assignment)
    found = {name: v for name, v in vars(checks).items() if isinstance(v, Check)}
    called = []
    for cell in _graded(read(source_path(assignment)), "grade"):
        public, hidden = _split_hidden(cell.source)
        for name in re.findall(r"^checks\.(\w+)\(\)$", public, re.M):
            assert name in found and not found[name].hidden, name
            called.append(name)
        for name in re.findall(r"^checks\.(\w+)\(\)$", hidden, re.M):
            assert name in found and found[name].hidden, name
            called.append(name)
    assert sorted(called) == sorted(found), "each check is called once"


def _split_hidden(source: str) -> tuple[str, str]:
    if "### BEGIN HIDDEN TESTS" not in source:
        return source, ""
    before, rest = source.split("### BEGIN HIDDEN TESTS", 1)
    hidden, after = rest.split("### END HIDDEN TESTS", 1)
    return before + after, hidden


def test_the_release_copy_stores_no_error_output(assignment):
    for cell in read(release_path(assignment)).cells:
        assert not [o for o in cell.get("outputs", []) if o.output_type == "error"], cell.source


def test_an_unanswered_release_raises_only_in_its_checks(assignment):
    """Running a student's untouched copy, an answer cell raises nothing (its stub is
    ``name = ...`` or a function that is only called by the check); the check says "not
    answered yet"."""
    for cell in _graded(read(release_path(assignment)), "solution"):
        assert "raises-exception" not in cell.metadata.get("tags", []), cell.source[:80]


def test_each_solution_cell_is_followed_by_its_test_cell(assignment):
    cells = read(source_path(assignment)).cells
    for index, cell in enumerate(cells):
        if cell.metadata.get("nbgrader", {}).get("solution"):
            assert cells[index + 1].metadata.get("nbgrader", {}).get("grade"), cell.source[:60]


def test_points_total_is_announced_in_the_first_cell(assignment):
    nb = read(source_path(assignment))
    total = sum(c.metadata["nbgrader"]["points"] for c in _graded(nb, "grade"))
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    assert f"**{total} points**" in first.source


def test_learning_goals_first_recap_last_then_the_progress_cell(assignment):
    """The recap is the last markdown cell, and the cell after it (the last cell, the last code
    cell) shows the student's progress through the notebook's checks."""
    cells = read(source_path(assignment)).cells
    markdown = [c.source for c in cells if c.cell_type == "markdown"]
    code = [c.source for c in cells if c.cell_type == "code"]
    assert "**Learning goals.**" in markdown[0]
    assert markdown[-1].lstrip().startswith("## Recap")
    assert cells[-2].source == markdown[-1], "nothing between the recap and the progress cell"
    assert cells[-1].cell_type == "code" and code[-1].strip() == "checks.check.progress()"


def test_no_torch_and_seeded(assignment):
    code = [c.source for c in read(source_path(assignment)).cells if c.cell_type == "code"]
    assert not any(re.search(r"^\s*(import|from)\s+torch\b", src, re.M) for src in code)
    assert "agk.manual_seed(0)" in code[0] + code[1] and "np.random.seed(0)" in code[0] + code[1]


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
