"""A progress bar for longer loops: tqdm's, the one the Python ecosystem uses.

``for epoch in progress(range(100), description="epochs"): ...`` is ``tqdm.auto.tqdm``: in
JupyterLab it draws an ipywidgets bar, in a terminal a text bar on standard error.
"""

from __future__ import annotations

from .extras import lab_import

__all__ = ["progress"]


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
        >>> out.getvalue().split("\\r")[-1].split(" [")[0]
        'sum: 100%|##########| 3/3'
    """
    if notebook is None:
        bar = lab_import("tqdm.auto").tqdm
    else:  # tqdm.notebook loads ipywidgets: only when a widget is asked
        bar = lab_import("tqdm.notebook" if notebook else "tqdm.std").tqdm
    return bar(iterable, total=total, desc=description, **options)
