"""Generated metadata satisfies nbgrader's schema v3 (ours, and nbgrader's own validator).

The rules, from nbgrader 0.9.6 (``nbgraderformat/v3.json`` and ``v3.py``, ``utils.py``):

1. ``schema_version``, ``grade``, ``locked``, ``solution`` are required; ``schema_version`` is 3.
2. No keys besides those, ``task``, ``grade_id``, ``points``, ``checksum``, ``cell_type``.
3. ``grade``/``locked``/``solution``/``task`` are booleans.
4. A grade, solution or locked cell has a non-empty ``grade_id`` matching ``^[a-zA-Z0-9_\\-]*$``.
5. A grade cell has ``points``, a number >= 0.
6. A markdown cell is both grade and solution, or neither; task cells are markdown.
7. ``checksum`` is 32 characters; ``cell_type`` is raw, code or markdown.
8. ``grade_id`` is unique among grade, solution and locked cells.
9. The checksum is nbgrader's ``compute_checksum`` (md5 of source, type, flags, id, points).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from autogradkit_instructor import cells

from ..optional import nbgrader_python
from . import builders
from .helpers import code, markdown, notebook

NBGRADER_CHECK = """
import json, sys
import nbformat
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3
from nbgrader.utils import compute_checksum
nb = nbformat.reads(sys.stdin.read(), as_version=4)
MetadataValidatorV3().validate_nb(nb)
graded = [c for c in nb.cells if "checksum" in c.metadata.get("nbgrader", {})]
bad = [c.metadata.nbgrader["grade_id"] for c in graded
       if compute_checksum(c) != c.metadata.nbgrader["checksum"]]
print(json.dumps(bad))
"""


def test_released_metadata_follows_every_rule():
    assert cells.metadata_problems(builders.student_version()) == []


@pytest.mark.parametrize(
    ("meta_cell", "problem"),
    [
        (code("x", grade_id="a b", solution=True), "grade_id must be a non-empty string"),
        (code("x", grade_id="t", grade=True, locked=True), "a grade cell needs points >= 0"),
        (code("x", grade_id="t", grade=True, locked=True, points=-1), "points >= 0"),
        (markdown("x", grade_id="m", solution=True), "both grade and solution, or neither"),
        (code("x", grade_id="k", task=True), "task cells must be markdown"),
        (code("x", grade_id="c", locked=True, checksum="abc"), "checksum must be 32"),
        (code("x", grade_id="c", locked=True, colour="red"), "unknown key 'colour'"),
        (code("x", grade_id="c", locked="yes"), "'locked' must be true or false"),
    ],
)
def test_each_broken_rule_is_named(meta_cell, problem):
    assert any(problem in p for p in cells.metadata_problems(notebook(meta_cell)))


def test_duplicate_grade_ids_are_refused():
    nb = notebook(code("a", grade_id="same", locked=True), code("b", grade_id="same", locked=True))
    assert cells.metadata_problems(nb) == ["cell same: duplicate grade_id"]


@pytest.mark.needs("nbgrader")
def test_nbgraders_own_validator_accepts_our_release():
    python = nbgrader_python()
    released = json.dumps(builders.student_version())
    done = subprocess.run(
        [python, "-c", NBGRADER_CHECK], input=released, text=True, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []  # every checksum equals nbgrader's
