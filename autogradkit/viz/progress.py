"""A progress bar for longer loops: tqdm's, the one the Python ecosystem uses.

``for epoch in progress(range(100), description="epochs"): ...`` is ``tqdm.auto.tqdm``: in
JupyterLab it draws an ipywidgets bar, in a terminal a text bar on standard error. While it
runs, the bar shows the time spent and left and the speed; its last frame, which a saved
notebook keeps, shows the count alone, so that running a notebook twice stores the same bytes.
Its words are the notebook's language (``迭代周期：100%|██████████| 300/300``).
"""

from __future__ import annotations

import functools

from .._i18n import N_, here
from .extras import lab_import

__all__ = ["progress"]

# tqdm's bar_format pieces, translated whole (tqdm fills the fields); {speed} is ours
HEAD = N_("{desc}: ")
COUNTS = "{percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}"
TIMING = N_(" [{elapsed}<{remaining}, {speed}it/s{postfix}]")
COUNT = N_("{n_fmt}it{postfix}")
COUNT_TIMING = N_(" [{elapsed}, {speed}it/s{postfix}]")


def bar_formats(description: str, known_length: bool) -> tuple[str, str]:
    """tqdm's ``bar_format`` of the running frames and of the last one, in the language of
    the notebook's folder (``_i18n.here``)."""
    words = here().kit
    head = words.get(HEAD, HEAD) if description else ""
    if known_length:
        return head + COUNTS + words.get(TIMING, TIMING), head + COUNTS + "{postfix}"
    count = words.get(COUNT, COUNT)
    return head + count + words.get(COUNT_TIMING, COUNT_TIMING), head + count


class _LastFrameCounts:
    """A tqdm bar whose last frame, drawn when it closes, counts without timing
    (``last_format``: "epochs: 100%|██████████| 300/300" for a known length, "epochs: 300it"
    for an unknown one), and whose frames may show ``{speed}``, the items per second."""

    last_format = None

    @property
    def format_dict(self):
        found = super().format_dict
        rate = found.get("rate")
        return {**found, "speed": f"{rate:.2f}" if rate else "?"}

    def close(self):
        if self.last_format is not None:
            self.bar_format = self.last_format
        super().close()


@functools.cache
def _counting(bar: type) -> type:
    """``bar``, a tqdm class, in the notebook's language, whose last frame counts without
    timing."""
    return type(bar.__name__, (_LastFrameCounts, bar), {})


def progress(
    iterable, total: int | None = None, description: str = "", *, notebook=None, **options
):
    """``iterable``'s items, counted by a tqdm bar labelled ``description``.

    ``notebook`` None lets ``tqdm.auto`` choose (a widget inside a Jupyter kernel, text
    elsewhere); True or False forces one. Other keywords go to tqdm (``file=``, ``leave=``...).

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> sum(progress(range(3), description="sum", file=out, notebook=False))
        3
        >>> out.getvalue().split("\\r")[-1].rstrip()  # the last frame: no time, no rate
        'sum: 100%|##########| 3/3'
    """
    if notebook is None:
        bar = lab_import("tqdm.auto").tqdm
    else:  # tqdm.notebook loads ipywidgets: only when a widget is asked
        bar = lab_import("tqdm.notebook" if notebook else "tqdm.std").tqdm
    known_length = total is not None or hasattr(iterable, "__len__")
    running, last = bar_formats(description, known_length)
    made = _counting(bar)(iterable, total=total, desc=description, bar_format=running, **options)
    made.last_format = last
    return made
