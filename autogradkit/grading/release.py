"""``autogradkit release``: instructor notebooks -> the student versions, outputs included."""

from __future__ import annotations

import sys
from pathlib import Path

from . import cells, course, pipeline
from .config import GradingConfig
from .context import Context


def release_assignments(cfg: GradingConfig) -> dict:
    """Release ``cfg.assignments`` (all of ``DIR/source`` when empty) into ``DIR/release``."""
    names = list(cfg.assignments) or sorted(
        p.name for p in (Path(cfg.course) / "source").iterdir() if p.is_dir()
    )
    written = []
    for name in names:
        folder = course.source_folder(cfg.course, name)
        target = Path(cfg.course) / "release" / name
        target.mkdir(parents=True, exist_ok=True)
        course.copy_files(folder, target)  # helper modules must be there when it runs
        for path in sorted(folder.glob("*.ipynb")):
            release_notebook(path, target / path.name, cfg)
            written.append(str(target / path.name))
            print(f"released {target / path.name}", file=sys.stderr)
    return {"command": "release", "notebooks": written, "exit_code": 0}


def release_notebook(source: Path, target: Path, cfg: GradingConfig) -> None:
    """Write the student version of ``source`` to ``target`` (same bytes on every run)."""
    import nbformat

    nb = nbformat.read(source, as_version=4)
    problems = cells.metadata_problems(nb)
    if problems:
        raise ValueError(f"{source}: nbgrader metadata: " + "; ".join(problems))
    ctx = Context(cfg, target, target.parent.resolve())
    nb = pipeline.release()(nb, ctx)
    nbformat.write(nb, target)
