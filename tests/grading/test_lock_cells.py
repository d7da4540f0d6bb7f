"""LockCells: checksums and read-only flags like nbgrader's generate_assignment."""

from __future__ import annotations

from autogradkit_instructor import cells
from autogradkit_instructor.steps import LockCells

from .helpers import code, markdown, notebook


def test_test_cells_are_read_only_and_answers_undeletable():
    nb = notebook(
        code("check()", grade_id="t", grade=True, locked=True, points=2),
        code("x = 1", grade_id="a", solution=True),
        code("free = 1"),
    )
    test, answer, free = LockCells()(nb, None).cells
    assert (test.metadata.editable, test.metadata.deletable) == (False, False)
    assert "editable" not in answer.metadata and answer.metadata.deletable is False
    assert "nbgrader" not in free.metadata and "deletable" not in free.metadata


def test_checksum_and_cell_type_are_stored():
    nb = LockCells()(notebook(markdown("Read me", grade_id="intro", locked=True)), None)
    meta = nb.cells[0].metadata.nbgrader
    assert meta.checksum == cells.compute_checksum(nb.cells[0]) and meta.cell_type == "markdown"


def test_checksum_matches_nbgrader_reference_value():
    # md5 of source + type + "True"/"False" flags + grade_id + str(float(points)), as in
    # nbgrader.utils.compute_checksum (value computed with nbgrader 0.9.6)
    cell = code("check()", grade_id="t", grade=True, locked=True, points=2)
    assert cells.compute_checksum(cell) == "0a1ce3b4a6d712f58fde4a725f56dfe3"
