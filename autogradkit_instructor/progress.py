"""The grading progress bar: tqdm's, with the statuses seen so far; silent in a file or a pipe.

tqdm measures the rate and the time left; the bar shows ``12/40 [00:09<00:21, 1.31
submissions/s, ok 11 timeout 1]``. The rate is never inverted (tqdm shows ``s/it`` below one
item a second), so a slow run still reads in submissions per second.
"""

from __future__ import annotations

import sys
from collections import Counter

from tqdm import tqdm

__all__ = ["FORMAT", "Progress"]

FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_noinv_fmt}{postfix}]"


class Progress:
    """``update(status)`` once per finished submission; ``close()`` at the end.

    ``enabled`` None draws the bar only when ``stream`` (stderr) is a terminal.

    Example:
        >>> bar = Progress(2, enabled=False)
        >>> bar.update("ok"); bar.update("timeout"); bar.close()
        >>> bar.counts
        Counter({'ok': 1, 'timeout': 1})
    """

    def __init__(self, total: int, enabled: bool | None = None, stream=None):
        self.counts: Counter[str] = Counter()
        self.bar = tqdm(
            total=total,
            unit=" submissions",
            bar_format=FORMAT,
            file=stream if stream is not None else sys.stderr,
            disable=None if enabled is None else not enabled,
            dynamic_ncols=True,
        )

    def update(self, status: str) -> None:
        self.counts[status] += 1
        parts = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        self.bar.set_postfix_str(parts, refresh=False)
        self.bar.update()

    def close(self) -> None:
        self.bar.close()
