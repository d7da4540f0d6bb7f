"""Grading: student-facing checks, and the instructor's release/validate/grade pipeline.

``checks`` is what test cells import. The pipeline (``pipeline``, ``steps``, ``cli``) loads
nbformat/nbclient lazily, so ``import autogradkit.grading`` stays cheap inside a kernel.
"""

from __future__ import annotations

from .checks import check_close, check_gradients, check_raises, check_shapes, check_true

__all__ = ["check_close", "check_true", "check_shapes", "check_gradients", "check_raises"]
