"""RestoreLockedCells: tests and locked cells come back from the release, by grade_id."""

from __future__ import annotations

import copy

from autogradkit_instructor.steps import RestoreLockedCells

from .helpers import by_id


def _ids(nb):
    return [c["metadata"].get("nbgrader", {}).get("grade_id") for c in nb["cells"]]


def test_edited_test_cell_is_restored_and_reported(ctx):
    nb = copy.deepcopy(ctx.student)
    by_id(nb, "test_square_sum")["source"] = 'print("✓ square_sum")'
    nb = RestoreLockedCells()(nb, ctx)
    assert by_id(nb, "test_square_sum")["source"] == by_id(ctx.student, "test_square_sum")["source"]
    assert ctx.issues == ["test cell test_square_sum was changed; the original was restored"]


def test_deleted_test_cell_returns_in_its_place(ctx):
    nb = copy.deepcopy(ctx.student)
    nb["cells"] = [
        c for c in nb["cells"] if c["metadata"]["nbgrader"]["grade_id"] != "test_gradient"
    ]
    nb = RestoreLockedCells()(nb, ctx)
    assert _ids(nb) == _ids(ctx.student)
    assert ctx.issues == ["test cell test_gradient was deleted; it was restored"]


def test_missing_answer_is_reported_and_stubbed(ctx):
    nb = copy.deepcopy(ctx.student)
    nb["cells"] = [c for c in nb["cells"] if c["metadata"]["nbgrader"]["grade_id"] != "answer_mse"]
    nb = RestoreLockedCells()(nb, ctx)
    assert "raise NotImplementedError()" in by_id(nb, "answer_mse")["source"]
    assert ctx.issues == ["answer cell answer_mse is missing; it was graded as unanswered"]


def test_answers_keep_student_code_but_not_student_metadata(ctx):
    nb = copy.deepcopy(ctx.student)
    answer = by_id(nb, "answer_mse")
    answer["source"] = "def mse(p, t):\n    return 0"
    by_id(nb, "test_mse")["metadata"]["nbgrader"]["points"] = 500
    nb = RestoreLockedCells()(nb, ctx)
    assert by_id(nb, "answer_mse")["source"] == "def mse(p, t):\n    return 0"
    assert by_id(nb, "test_mse")["metadata"]["nbgrader"]["points"] == 5.0


def test_student_cells_stay_and_copies_lose_their_grade_id(ctx):
    nb = copy.deepcopy(ctx.student)
    scratch = {"cell_type": "code", "source": "helper = 1", "metadata": {}, "outputs": []}
    copied = copy.deepcopy(by_id(nb, "test_mse"))
    nb["cells"][3:3] = [scratch, copied]
    nb = RestoreLockedCells()(nb, ctx)
    assert nb["cells"][3]["source"] == "helper = 1"
    assert _ids(nb).count("test_mse") == 1 and len(nb["cells"]) == len(ctx.student["cells"]) + 2


def test_a_duplicated_test_cell_is_restored_where_it_belongs_and_ids_stay_unique(ctx):
    nb = copy.deepcopy(ctx.student)
    nb["cells"].insert(0, copy.deepcopy(by_id(nb, "test_gradient")))  # a copy at the top
    nb = RestoreLockedCells()(nb, ctx)
    graded = [i for i, gid in enumerate(_ids(nb)) if gid == "test_gradient"]
    assert len(graded) == 1 and graded[0] > _ids(nb).index("answer_gradient")
    assert "an extra cell claimed grade_id test_gradient; it was not scored" in ctx.issues
    ids = [c.get("id") for c in nb["cells"]]
    assert len(set(ids)) == len(ids)
