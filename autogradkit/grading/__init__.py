"""Grading, the side that runs in a student's kernel: the check API a course's ``checks.py``
is written with (``checks``, judged by ``observations``; ``by_hand`` runs a by-hand answer in
``by_hand_child``), and the import guard a grading kernel installs (``guard``).

The instructor's build/release/validate/grade toolchain is the package
``autogradkit_instructor``, which imports this one; nothing here imports it.
"""

from __future__ import annotations

from .checks import CheckFailed, Checks, Observer

__all__ = ["Checks", "CheckFailed", "Observer"]
