"""A text progress bar for the terminal; silent when output goes to a file or a pipe."""

from __future__ import annotations

import sys
import time
from collections import Counter


class Progress:
    """``update(status)`` once per finished item; draws ``[#####.....] 12/40 ok 11 timeout 1``.

    Example:
        >>> bar = Progress(2, enabled=False)
        >>> bar.update("ok"); bar.update("timeout"); bar.close()
        >>> bar.counts
        Counter({'ok': 1, 'timeout': 1})
    """

    def __init__(self, total: int, enabled: bool | None = None, stream=None, width: int = 30):
        self.total, self.width = total, width
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.counts: Counter[str] = Counter()
        self.started = time.monotonic()

    def update(self, status: str) -> None:
        self.counts[status] += 1
        if self.enabled:
            self.stream.write("\r" + self.line())
            self.stream.flush()

    def line(self) -> str:
        done = sum(self.counts.values())
        filled = self.width * done // max(self.total, 1)
        parts = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        elapsed = time.monotonic() - self.started
        bar = "#" * filled + "." * (self.width - filled)
        return f"[{bar}] {done}/{self.total} {parts} {elapsed:.0f} s"

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
