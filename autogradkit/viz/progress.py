"""A progress bar for longer loops: an ipywidgets ``IntProgress`` in Jupyter, text elsewhere.

``for epoch in progress(range(100), description="epochs"): ...`` - no tqdm needed.
"""

from __future__ import annotations

import sys

WIDTH = 30  # characters of the text bar


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where widgets can be shown)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


class ProgressBar:
    """Shows ``done / total``; call ``update()`` per step and ``close()`` at the end.

    In a notebook the bar is an ``IntProgress`` widget with a label; elsewhere a text bar
    on ``file`` (standard error by default). Both redraw at most once per percent.

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> bar = ProgressBar(4, "epochs", file=out, notebook=False)
        >>> for _ in range(4): bar.update()
        >>> bar.close()
        >>> out.getvalue().split("\\r")[-1]
        'epochs [##############################] 4/4\\n'
    """

    def __init__(
        self, total: int | None, description: str = "", *, file=None, notebook: bool | None = None
    ):
        self.total, self.description, self.done = total, description, 0
        self.file = sys.stderr if file is None else file
        self.notebook = in_notebook() if notebook is None else notebook
        self._shown = -1
        self.widget = self._make_widget() if self.notebook else None
        self._draw()

    def _make_widget(self):
        import ipywidgets as widgets
        from IPython.display import display

        self._bar = widgets.IntProgress(
            value=0, min=0, max=max(self.total or 1, 1), description=self.description
        )
        self._label = widgets.Label()
        box = widgets.HBox([self._bar, self._label])
        display(box)
        return box

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps done."""
        self.done += n
        self._draw()

    def _draw(self, final: bool = False) -> None:
        percent = 100 * self.done // self.total if self.total else self.done
        if percent == self._shown and not final:
            return
        self._shown = percent
        text = f"{self.done}/{self.total}" if self.total else f"{self.done}"
        if self.widget is not None:
            self._bar.value = min(self.done, self._bar.max)
            self._label.value = text
            return
        filled = WIDTH * min(self.done, self.total) // self.total if self.total else 0
        bar = f" [{'#' * filled}{'-' * (WIDTH - filled)}]" if self.total else ""
        self.file.write(f"\r{self.description}{bar} {text}" + ("\n" if final else ""))
        self.file.flush()

    def close(self) -> None:
        """Draw the final state (and end the text line)."""
        self._draw(final=True)
        if self.widget is not None:
            self._bar.bar_style = "success" if self.total and self.done >= self.total else ""


def progress(iterable, total: int | None = None, description: str = "", **kwargs):
    """Yield the items of ``iterable`` while a ``ProgressBar`` counts them.

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> sum(progress(range(3), description="sum", file=out, notebook=False))
        3
        >>> out.getvalue().split("\\r")[-1]
        'sum [##############################] 3/3\\n'
    """
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)
    bar = ProgressBar(total, description, **kwargs)
    try:
        for item in iterable:
            yield item
            bar.update()
    finally:
        bar.close()
