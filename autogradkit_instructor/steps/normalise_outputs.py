"""NormaliseOutputs: releasing twice gives byte-identical notebooks, on any machine."""

from __future__ import annotations

from .. import stable

__all__ = ["WIDGET_STATE", "NormaliseOutputs"]

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


class NormaliseOutputs:
    """Make the run-dependent parts of the outputs the same on every run.

    * memory addresses in text (``<MulBackward0 object at 0x7f...>``) are renumbered in order
      of appearance, so the same object still shows the same address;
    * kernel process ids in warning paths, and the folders of the machine and of the run
      (Python's libraries, this checkout, the scratch folder it ran in) in any text, go;
    * widget model ids (random UUIDs) become ids derived from the notebook name;
    * per-cell ``execution`` timing metadata is dropped.
    """

    name = "normalise_outputs"
    requires: tuple[str, ...] = ("recompute_outputs",)

    def __call__(self, nb, ctx):
        addresses: dict[str, str] = {}
        for cell in nb["cells"]:
            cell.get("metadata", {}).pop("execution", None)
            for out in cell.get("outputs", []):
                _normalise(out, addresses, ctx)
        state = nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
        return stable.stable_widget_ids(nb, ctx.path.name, state) if state else nb


def _normalise(out, addresses: dict[str, str], ctx) -> None:
    def fix(text: str) -> str:  # every text: a warning names its file as a traceback does
        text = stable.strip_paths(text, ctx.workdir)
        return stable.kernel_paths(stable.renumber_addresses(text, addresses))

    if out.get("output_type") == "stream":
        out["text"] = fix(out["text"])
    elif out.get("output_type") == "error":
        out["evalue"] = fix(out["evalue"])
        out["traceback"] = [fix(line) for line in out["traceback"]]
    for mime, value in out.get("data", {}).items():
        if mime.startswith("text/") and isinstance(value, str):
            out["data"][mime] = fix(value)
