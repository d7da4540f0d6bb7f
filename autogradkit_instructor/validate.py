"""``autogradkit validate``: run a notebook as a student has it and say which tests pass."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from autogradkit import _i18n as i18n

from . import cells, course, files, pipeline, sandbox
from .config import GradingConfig
from .context import Context
from .kernels import KernelPool, sandbox_backend
from .notebooks import UnreadableNotebook, read_notebook
from .session import imported_names
from .steps import CheckLockedCells

__all__ = ["validate_notebook"]


def _working_folder(cfg: GradingConfig, path: Path, nb: dict, language: str, scratch: Path):
    """Where the notebook runs, and why it cannot ("" when it can)."""
    folder = path.parent.resolve()
    missing = _missing_modules(nb, folder)
    if not missing:
        return folder, ""
    released = _released_folder(cfg, path, language)
    if released is None:
        names = ", ".join(missing)
        return folder, (
            f"the notebook imports {names}, which is not beside it and not installed: pass "
            f"--course DIR, the course it belongs to (its release/ folder has {names}), or "
            f"run validate inside that course"
        )
    print(f"validate: with the released files of {released}")
    refused = course.working_folder(released, folder, scratch, cfg.disk_limit_mb * 2**20, True)
    for note in refused:
        print(f"warning: {note}")
    return scratch, ""


def _missing_modules(nb: dict, folder: Path) -> list[str]:
    """The modules the notebook's cells import that are neither files in ``folder`` nor
    installed (every cell: a setup cell that imports ``checks`` need not be locked)."""
    modules = {target.split(".")[0] for target in imported_names(nb, every_cell=True).values()}
    modules = sorted(modules)
    beside = {files.module_name(p.name) for p in folder.iterdir()}
    return _not_installed([m for m in modules if m not in beside])


def _not_installed(modules: list[str]) -> list[str]:
    """Which of ``modules`` a fresh Python, as the kernel will be, cannot import.

    Asked of a new interpreter in an empty folder, not of this process: what this process
    has imported or put on its path (a ``checks`` module it loaded) is not the kernel's.
    """
    if not modules:
        return []
    probe = (
        "import importlib.util as u, sys; print(*(m for m in sys.argv[1:] if not u.find_spec(m)))"
    )
    with tempfile.TemporaryDirectory(prefix="autogradkit-probe-") as empty:
        done = subprocess.run(
            [sys.executable, "-c", probe, *modules], cwd=empty, capture_output=True, text=True
        )
    return done.stdout.split() if done.returncode == 0 else modules


def _released_folder(cfg: GradingConfig, path: Path, language: str) -> Path | None:
    """The released folder of the notebook's assignment in ``cfg.course`` or in a course
    that holds the notebook (``DIR/submitted/<student>/<assignment>/NB.ipynb``), if any."""
    for root in [Path(cfg.course), *path.resolve().parents]:
        if not (root / "release").is_dir():
            continue
        names = [path.parent.name, *(p.parent.name for p in root.glob(f"release/*/{path.name}"))]
        for name in names:
            if (root / "release" / name / path.name).is_file():
                return course.release_folder(root, name, language)
    return None


def _sandbox(cfg: GradingConfig):
    """The sandbox to run the notebook in: ``auto`` (the default) is bubblewrap where it works
    here and none otherwise (a student's own laptop), saying so; see ``kernels.sandbox_backend``."""
    if cfg.sandbox != "auto":
        backend = sandbox_backend(cfg.sandbox, cfg.limits())
        if backend is not None:
            backend.check()
        return backend
    try:
        backend = sandbox_backend("bwrap", cfg.limits())
        backend.check()
        return backend
    except sandbox.SandboxUnavailable:
        print("validate: no sandbox here (bubblewrap is not usable): the notebook runs as you")
        return None


def validate_notebook(cfg: GradingConfig) -> dict:
    """Run ``cfg.notebook`` in a fresh kernel; print one line per test and any warnings.

    A notebook runs in its own folder when the modules it imports are there (a student's
    copy, ``checks.py`` beside it). Otherwise (a collected submission) it runs in a scratch
    folder made as ``grade`` makes one: its own files, and the released files of its
    assignment in the course (``--course``, or the course it sits in). A module found in
    neither place is one clear error. The exit code is 0 only when every test passed and no
    locked cell was changed.
    """
    path = Path(cfg.notebook)
    try:
        nb = read_notebook(path)
    except UnreadableNotebook as error:
        raise UnreadableNotebook(f"{path}: {error}") from None
    language = i18n.notebook_language(nb)
    with tempfile.TemporaryDirectory(prefix="autogradkit-validate-") as scratch:
        workdir, missing = _working_folder(cfg, path, nb, language, Path(scratch))
        ctx = Context(cfg, path, workdir)
        ctx.tr = i18n.catalog(language, workdir)
        ctx.issues += [f"metadata: {p}" for p in cells.metadata_problems(nb)]
        if missing:  # nothing can run; a changed locked cell is still worth saying
            ctx.fail("error", missing)
            CheckLockedCells()(nb, ctx)
        else:
            backend, limits = _sandbox(cfg), cfg.limits()
            # one kernel runs the notebook (another only if a cell stops it)
            with KernelPool(
                1, cfg.memory_limit_mb, sandbox=backend, limits=limits, expected=1
            ) as pool:
                ctx.kernels = pool
                pipeline.validate()(nb, ctx)
    _print_results(ctx)
    passed = all(r.status in ("passed", "manual") for r in ctx.results.values())
    return {
        "command": "validate",
        "notebook": str(path),
        "status": ctx.status,
        "score": ctx.score,
        "max_score": ctx.max_score,
        "issues": ctx.issues,
        "tests": {g: vars(r) for g, r in ctx.results.items()},
        "exit_code": 0 if passed and not ctx.issues and ctx.status == "ok" else 1,
    }


def _print_results(ctx: Context) -> None:
    """One line per test (✓, ✗, or · for one graded by hand), the warnings, the total."""
    for gid, result in ctx.results.items():
        mark = "✓" if result.status in ("passed", "partial") else "✗"
        detail = f": {result.error.removeprefix('✗ ')}" if result.error else ""
        if result.status == "manual":
            mark, detail = "·", ": graded by hand"
        print(f"{mark} {gid} ({result.points:g}/{result.max_points:g}){detail}")
    for issue in ctx.issues:
        print(f"warning: {issue}")
    print(f"{ctx.score:g} / {ctx.max_score:g} points; status {ctx.status}")
