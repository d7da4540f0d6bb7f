"""Grading: the check API a course's ``checks.py`` is written with, and the instructor's
build/release/validate/grade pipeline.

``checks`` is what a course's checks import. The pipeline (``pipeline``, ``steps``, ``cli``)
loads nbformat/nbclient lazily, so ``import autogradkit.grading`` stays cheap inside a kernel.
"""

from __future__ import annotations

from .checks import CheckFailed, Checks, Observer

__all__ = ["Checks", "CheckFailed", "Observer"]
