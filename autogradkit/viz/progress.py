"""A progress bar for longer loops: tqdm's, the one the Python ecosystem uses.

``for epoch in progress(range(100), description="epochs"): ...`` is ``tqdm.auto.tqdm``: in
JupyterLab it draws an ipywidgets bar, in a terminal a text bar on standard error. While it
runs, the bar shows the time left and the rate; its last frame, which a saved notebook keeps,
shows the count alone, so that running a notebook twice stores the same bytes.
"""

from __future__ import annotations

import functools

from tqdm import std
from tqdm.auto import tqdm

__all__ = ["progress"]


class _LastFrameCounts:
    """A tqdm bar whose last frame, drawn when it closes, counts without timing (tqdm's own
    frame without "[elapsed<remaining, rate]"): "epochs: 100%|██████████| 300/300" for a known
    length, "epochs: 300it" for an unknown one."""

    def close(self):
        if self.total:
            self.bar_format = "{l_bar}{bar}| {n_fmt}/{total_fmt}{postfix}"
        else:
            self.bar_format = ("{desc}: " if self.desc else "") + "{n_fmt}{unit}{postfix}"
        super().close()


@functools.cache
def _counting(bar: type) -> type:
    """``bar``, a tqdm class, whose last frame counts without timing."""
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
    if notebook:
        from tqdm.notebook import tqdm as bar  # loads ipywidgets: only when a widget is asked
    else:
        bar = tqdm if notebook is None else std.tqdm
    return _counting(bar)(iterable, total=total, desc=description, **options)
