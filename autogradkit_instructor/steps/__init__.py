"""Grading steps: each is a small class with ``name``, ``requires`` and ``__call__(nb, ctx)``.

``pipeline.py`` puts them in order; a step may rely on exactly the steps named in ``requires``
having run before it, and ``Pipeline(...)`` checks that when it is built.
"""

from __future__ import annotations

from .check_locked_cells import CheckLockedCells
from .clear_outputs import ClearOutputs
from .clear_solutions import ClearSolutions
from .collect_results import CollectResults
from .execute import Execute
from .inject_hidden_tests import InjectHiddenTests
from .lock_cells import LockCells
from .normalise_outputs import NormaliseOutputs
from .recompute_outputs import RecomputeOutputs
from .restore_locked_cells import RestoreLockedCells
from .score import Score
from .strip_hidden_tests import StripHiddenTests
from .tag_raising_cells import TagRaisingCells

__all__ = [
    "CheckLockedCells",
    "ClearOutputs",
    "ClearSolutions",
    "CollectResults",
    "Execute",
    "InjectHiddenTests",
    "LockCells",
    "NormaliseOutputs",
    "RecomputeOutputs",
    "RestoreLockedCells",
    "Score",
    "StripHiddenTests",
    "TagRaisingCells",
]
