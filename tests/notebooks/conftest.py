"""Shared helpers for the notebook tests: where the course lives and how to read it."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "notebooks"
ASSIGNMENTS = sorted(p.name for p in (COURSE / "source").iterdir() if p.is_dir())


def source_path(assignment: str) -> Path:
    return COURSE / "source" / assignment / f"{assignment}.ipynb"


def release_path(assignment: str) -> Path:
    return COURSE / "release" / assignment / f"{assignment}.ipynb"


def read(path: Path):
    return nbformat.read(path, as_version=4)


@pytest.fixture(params=ASSIGNMENTS)
def assignment(request) -> str:
    return request.param
