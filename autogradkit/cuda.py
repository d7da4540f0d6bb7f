"""``agk.cuda``: autogradkit runs on the CPU, so tutorial code that asks for a GPU hears no.

``device = "cuda" if agk.cuda.is_available() else "cpu"`` then picks the CPU, and the rest of
the tutorial runs unchanged.
"""

from __future__ import annotations

__all__ = ["is_available", "device_count"]


def is_available() -> bool:
    """False: there is no GPU for autogradkit."""
    return False


def device_count() -> int:
    """0: no GPU."""
    return 0
