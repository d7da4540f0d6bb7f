"""NormaliseOutputs: widget ids and machine paths do not change between runs."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from nbformat.v4 import new_output

from autogradkit_instructor.steps import NormaliseOutputs

from .helpers import code, notebook

STATE = "application/vnd.jupyter.widget-state+json"
VIEW = "application/vnd.jupyter.widget-view+json"


def _with_widget(model_id: str, layout_id: str):
    cell = code("slider")
    cell.id = "slider"
    cell.outputs = [new_output("display_data", data={VIEW: {"model_id": model_id}})]
    nb = notebook(cell)
    nb.metadata["widgets"] = {
        STATE: {
            "state": {
                model_id: {"state": {"layout": f"IPY_MODEL_{layout_id}"}},
                layout_id: {"state": {}},
            }
        }
    }
    return nb


def test_widget_ids_become_stable_everywhere(tmp_path):
    ctx = SimpleNamespace(path=Path("lesson.ipynb"), workdir=tmp_path)
    first = NormaliseOutputs()(_with_widget("a" * 32, "b" * 32), ctx)
    second = NormaliseOutputs()(_with_widget("c" * 32, "d" * 32), ctx)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    model = first.cells[0].outputs[0].data[VIEW]["model_id"]
    assert model in first.metadata.widgets[STATE]["state"] and "a" * 32 not in json.dumps(first)


def test_checkout_paths_leave_tracebacks(tmp_path):
    here = str(Path(__file__).resolve().parents[2])
    cell = code("1/0")
    cell.outputs = [new_output("error", ename="E", evalue="", traceback=[f"File {here}/x.py:3"])]
    ctx = SimpleNamespace(path=Path("n.ipynb"), workdir=tmp_path)
    nb = NormaliseOutputs()(notebook(cell), ctx)
    assert nb.cells[0].outputs[0].traceback == ["File x.py:3"]


def test_addresses_and_kernel_pids_are_stable_but_keep_identity(tmp_path):
    cell = code("print(node)")
    cell.outputs = [
        new_output(
            "stream",
            name="stdout",
            text=(
                "<AddBackward0 object at 0x7f1f1d541670> <AddBackward0 object at 0x7f1f1d541670>\n"
                "/tmp/ipykernel_1811/1862252472.py:3: UserWarning: careful\n"
            ),
        )
    ]
    ctx = SimpleNamespace(path=Path("n.ipynb"), workdir=tmp_path)
    text = NormaliseOutputs()(notebook(cell), ctx).cells[0].outputs[0].text
    assert text == (
        "<AddBackward0 object at 0x7f0000000010> <AddBackward0 object at "
        "0x7f0000000010>\n/tmp/ipykernel_0/1862252472.py:3: UserWarning: careful\n"
    )
