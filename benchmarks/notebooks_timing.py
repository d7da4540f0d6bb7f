"""W6: how long each source notebook takes to execute (what nbval costs in CI)."""

from __future__ import annotations

import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def time_notebooks(limit=None):
    import nbformat
    from nbclient import NotebookClient

    paths = sorted((ROOT / "notebooks" / "source").glob("*/*.ipynb"))[:limit]
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(path.parent)}},
        )
        start = time.perf_counter()
        client.execute()
        yield str(path.relative_to(ROOT)), time.perf_counter() - start
