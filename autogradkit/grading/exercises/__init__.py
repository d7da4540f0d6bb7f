"""Checkers for the graded cells of the course notebooks, one module per notebook.

A test cell calls, for example, ``ex.check_chain_rule_by_hand(...)`` after
``from autogradkit.grading.exercises import nb01_backprop as ex``. Every expected value is
computed here, in code, from the exercise's inputs, so no answer is stored in the notebook.
The checks themselves (``✓``/``✗`` lines, AssertionError on failure) live in
``autogradkit.grading.checks``.
"""
