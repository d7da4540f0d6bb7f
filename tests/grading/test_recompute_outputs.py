"""RecomputeOutputs: the release stores what the student version prints, from its folder."""

from __future__ import annotations

from autogradkit_instructor.config import GradingConfig
from autogradkit_instructor.context import Context
from autogradkit_instructor.steps import RecomputeOutputs

from .helpers import code, notebook


def test_outputs_come_from_running_in_the_notebook_folder(tmp_path):
    (tmp_path / "kit_helper.py").write_text("VALUE = 7\n")
    nb = notebook(
        code("from kit_helper import VALUE\nprint(VALUE * 6)"),
        code("raise NotImplementedError()"),
        code("print('still runs')"),
    )
    ctx = Context(GradingConfig(command="release", timeout=60), tmp_path / "n.ipynb", tmp_path)
    nb = RecomputeOutputs()(nb, ctx)
    first, second, third = nb.cells
    assert first.outputs[0].text == "42\n" and first.execution_count == 1
    assert second.outputs[0].ename == "NotImplementedError"
    assert third.outputs[0].text == "still runs\n"
    assert "execution" not in first.metadata  # no timing: releases are reproducible
