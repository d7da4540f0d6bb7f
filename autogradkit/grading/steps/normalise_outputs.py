"""NormaliseOutputs: releasing twice gives byte-identical notebooks, on any machine."""

from __future__ import annotations

import json
import sysconfig
import uuid
from pathlib import Path

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


class NormaliseOutputs:
    """Make run-dependent parts of the outputs the same on every run.

    * widget model ids (random UUIDs) become ids derived from the notebook name and their
      order of creation, everywhere they appear (outputs, state, ``IPY_MODEL_`` references);
    * absolute paths of this checkout, of the notebook's folder and of site-packages in error
      tracebacks become relative (tracebacks are shown, never compared by nbval);
    * per-cell ``execution`` timing metadata is dropped.
    """

    name = "normalise_outputs"
    requires: tuple[str, ...] = ("recompute_outputs",)

    def __call__(self, nb, ctx):
        for cell in nb["cells"]:
            cell.get("metadata", {}).pop("execution", None)
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [strip_paths(line, ctx) for line in out["traceback"]]
        state = nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
        if not state:
            return nb
        body = json.dumps(nb)
        for index, model_id in enumerate(list(state)):
            stable = uuid.uuid5(uuid.NAMESPACE_URL, f"{ctx.path.name}/{index}").hex
            body = body.replace(model_id, stable)
        return _rebuild(json.loads(body), type(nb))


def strip_paths(line: str, ctx) -> str:
    """Remove machine-specific folder prefixes from one traceback line."""
    checkout = Path(__file__).resolve().parents[3]
    for prefix in (sysconfig.get_paths()["purelib"], str(ctx.workdir.resolve()), str(checkout)):
        line = line.replace(prefix + "/", "")
    return line


def _rebuild(value, node_type):
    """Turn plain dicts back into the notebook's node type (nbformat's NotebookNode)."""
    if isinstance(value, dict):
        return node_type({k: _rebuild(v, node_type) for k, v in value.items()})
    if isinstance(value, list):
        return [_rebuild(v, node_type) for v in value]
    return value
