"""CheckLockedCells: validate warns about edited locked cells."""

from __future__ import annotations

import copy
from types import SimpleNamespace

from autogradkit_instructor.steps import CheckLockedCells

from .helpers import by_id


def test_unchanged_release_has_no_warning(ctx):
    probe = SimpleNamespace(issues=[])
    CheckLockedCells()(copy.deepcopy(ctx.student), probe)
    assert probe.issues == []


def test_edited_test_and_locked_cells_are_reported(ctx):
    nb = copy.deepcopy(ctx.student)
    by_id(nb, "test_gradient")["source"] += "\nprint('extra')"
    by_id(nb, "setup")["source"] = "import numpy as np"
    by_id(nb, "answer_mse")["source"] = "answers may change"
    probe = SimpleNamespace(issues=[])
    CheckLockedCells()(nb, probe)
    assert [issue.split(" was")[0] for issue in probe.issues] == [
        "locked cell setup",
        "test cell test_gradient",
    ]
