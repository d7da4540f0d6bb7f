"""Fixtures for the grading tests: a course built in code and one shared pool of kernels."""

from __future__ import annotations

import pytest

from autogradkit_instructor.config import GradingConfig
from autogradkit_instructor.context import Context
from autogradkit_instructor.kernels import KernelPool
from autogradkit_instructor.sandbox import Bubblewrap, Limits, SandboxUnavailable

from ..optional import skip_unless
from . import builders


@pytest.fixture(scope="session")
def sandbox() -> Bubblewrap:
    """The default sandbox backend, or a skip that says bubblewrap is missing (CI installs
    it: tools/install_bubblewrap.sh; the skip is for local runs only)."""
    skip_unless("bubblewrap")
    backend = Bubblewrap(Limits(memory_mb=1024))
    try:
        backend.check()
    except SandboxUnavailable as error:
        pytest.skip(f"bubblewrap not usable here (run tools/install_bubblewrap.sh): {error}")
    return backend


@pytest.fixture(scope="session")
def podman():
    """The Podman backend, or a skip that says why (CI installs it: tools/install_podman.sh)."""
    from autogradkit_instructor.container import Container

    skip_unless("podman")
    backend = Container("podman", Limits(memory_mb=1024))
    try:
        backend.check()
    except SandboxUnavailable as error:
        pytest.skip(f"podman not usable here (run tools/install_podman.sh): {error}")
    return backend


@pytest.fixture(scope="session")
def pool(sandbox):
    """Two warm sandboxed kernels shared by every test that executes code."""
    with KernelPool(2, sandbox=sandbox, limits=sandbox.limits) as kernels:
        yield kernels


@pytest.fixture
def cfg() -> GradingConfig:
    """Short limits, so the loop and crash cases take seconds."""
    return GradingConfig(
        command="grade", timeout=3.0, interrupt_grace=1.0, jobs=2, memory_limit_mb=1024
    )


@pytest.fixture
def ctx(tmp_path, cfg, pool) -> Context:
    """A context for the squares notebook: instructor and student versions, kernels."""
    source = builders.source_notebook()
    return Context(
        cfg,
        tmp_path / "squares.ipynb",
        tmp_path,
        source=source,
        student=builders.student_version(),
        kernels=pool,
    )


@pytest.fixture
def course(tmp_path):
    """``tmp_path/source/hw1/squares.ipynb`` and its helper file; returns the course root."""
    builders.write_course(tmp_path)
    return tmp_path
