"""ClearOutputs: stored outputs never count."""

from __future__ import annotations

from nbformat.v4 import new_output

from autogradkit_instructor.steps import ClearOutputs

from .helpers import code, notebook


def test_outputs_and_counts_are_removed():
    cell = code("print(1)")
    cell.outputs = [new_output("stream", name="stdout", text="✓ faked\n")]
    cell.execution_count = 7
    cell.metadata["execution"] = {"iopub.status.busy": "2026-01-01"}
    out = ClearOutputs()(notebook(cell), None).cells[0]
    assert (out.outputs, out.execution_count, "execution" in out.metadata) == ([], None, False)
