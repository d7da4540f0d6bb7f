"""``autogradkit release``: instructor notebooks -> the student versions, outputs included."""

from __future__ import annotations

import sys
from pathlib import Path

from . import cells, course, pipeline
from .checks import EXPECTED_FILE, public_expected
from .config import GradingConfig
from .context import Context
from .steps.strip_hidden_tests import BEGIN, END


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
        _hide_what_students_may_not_see(target)
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


def _hide_what_students_may_not_see(target: Path) -> None:
    """In the released helper files: no hidden-test region of any ``.py`` (the hidden checks
    of ``checks.py``), and no recorded answer of a hidden check."""
    for path in sorted(target.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        public, found = cells.replace_regions(text, BEGIN, END, None)
        if found:
            path.write_text(public, encoding="utf-8")
    expected = target / EXPECTED_FILE
    if expected.is_file():
        expected.write_text(public_expected(expected), encoding="utf-8")
