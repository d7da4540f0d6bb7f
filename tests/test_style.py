"""STYLE.md's hard budgets: engine.py, each ops/ file, and every function's length."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import line_count  # noqa: E402


def test_code_stays_within_the_style_budgets(capsys):
    problems = line_count.report()
    assert problems == []


def test_the_package_never_imports_torch():
    root = Path(__file__).resolve().parent.parent / "autogradkit"
    offenders = [
        str(p)
        for p in root.rglob("*.py")
        if any(
            line.strip().startswith(("import torch", "from torch"))
            for line in p.read_text().splitlines()
        )
    ]
    assert offenders == []
