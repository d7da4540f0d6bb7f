"""``autogradkit validate``: run a notebook as a student has it and say which tests pass."""

from __future__ import annotations

from pathlib import Path

from .. import _i18n as i18n
from . import cells, pipeline, sandbox
from .config import GradingConfig
from .context import Context
from .kernels import KernelPool, sandbox_backend
from .notebooks import read_notebook

__all__ = ["validate_notebook"]


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

    The exit code is 0 only when every test passed and no locked cell was changed.
    """
    path = Path(cfg.notebook)
    nb = read_notebook(path)
    ctx = Context(cfg, path, path.parent.resolve())
    ctx.tr = i18n.catalog(i18n.notebook_language(nb), path.parent.resolve())
    ctx.issues += [f"metadata: {p}" for p in cells.metadata_problems(nb)]
    backend, limits = _sandbox(cfg), cfg.limits()
    with KernelPool(1, cfg.memory_limit_mb, sandbox=backend, limits=limits) as pool:
        ctx.kernels = pool
        pipeline.validate()(nb, ctx)
    for gid, result in ctx.results.items():
        mark = "✓" if result.status in ("passed", "partial") else "✗"
        detail = f": {result.error.removeprefix('✗ ')}" if result.error else ""
        if result.status == "manual":
            mark, detail = "·", ": graded by hand"
        print(f"{mark} {gid} ({result.points:g}/{result.max_points:g}){detail}")
    for issue in ctx.issues:
        print(f"warning: {issue}")
    print(f"{ctx.score:g} / {ctx.max_score:g} points; status {ctx.status}")
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
