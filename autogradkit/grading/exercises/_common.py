"""Helpers shared by the checker modules."""

from __future__ import annotations

from ..checks import check_true


def require(task: str, condition: bool, hint: str) -> None:
    """A precondition: silent when it holds, one ``✗ task: hint`` line (and a raise) when not."""
    if not condition:
        check_true(task, False, hint=hint)
