"""Execute: run the notebook in a fresh, limited grading kernel."""

from __future__ import annotations

from ..session import Session

__all__ = ["Execute"]


class Execute:
    """Run every code cell in a fresh kernel from ``ctx.kernels``, within the limits of
    ``ctx.cfg`` (per-cell and total time, memory, output size).

    What happens on a timeout, a crash or an endless loop is described in ``session.py``;
    whatever happens, this step returns and the status lands in ``ctx.status``. ``requires``
    is a parameter because what must run first depends on the pipeline: grading restores the
    tests first, validating runs the notebook as it is.
    """

    name = "execute"

    def __init__(self, requires: tuple[str, ...] = ("clear_outputs",)):
        self.requires = tuple(requires)

    def __call__(self, nb: dict, ctx) -> dict:
        session = Session(ctx)
        try:
            session.run(nb)
        finally:
            session.close()
        return nb
