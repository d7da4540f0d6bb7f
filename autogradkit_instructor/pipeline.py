"""The order of the grading steps, as explicit lists, checked when a pipeline is built.

Each command is one list of steps. ``Pipeline(steps)`` refuses a list in which a step comes
before a step it ``requires``, so an ordering rule can never live only in a comment.
"""

from __future__ import annotations

from collections.abc import Sequence

from .steps import (
    CheckLockedCells,
    ClearOutputs,
    ClearSolutions,
    CollectResults,
    Execute,
    InjectHiddenTests,
    LockCells,
    NormaliseOutputs,
    RecomputeOutputs,
    RestoreLockedCells,
    Score,
    StripHiddenTests,
    TagRaisingCells,
)

__all__ = ["Pipeline", "student_version", "release", "grade", "reference", "validate"]


class Pipeline:
    """Steps run in order on one notebook; each gets the notebook and the shared context.

    Example:
        >>> Pipeline([Score(), CollectResults()])
        Traceback (most recent call last):
        ...
        ValueError: step 'score' requires 'collect_results' to run before it
        >>> Pipeline([ClearSolutions(), StripHiddenTests(), LockCells()]).names
        ('clear_solutions', 'strip_hidden_tests', 'lock_cells')
    """

    def __init__(self, steps: Sequence):
        seen: set[str] = set()
        for step in steps:
            for needed in step.requires:
                if needed not in seen:
                    raise ValueError(f"step '{step.name}' requires '{needed}' to run before it")
            if step.name in seen:
                raise ValueError(f"step '{step.name}' appears twice")
            seen.add(step.name)
        self.steps = tuple(steps)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(step.name for step in self.steps)

    def __call__(self, nb: dict, ctx) -> dict:
        for step in self.steps:
            nb = step(nb, ctx)
            if ctx is not None:
                ctx.done.append(step.name)
        return nb


def student_version() -> Pipeline:
    """Instructor notebook -> what students get, without running it."""
    return Pipeline([ClearSolutions(), StripHiddenTests(), LockCells(), ClearOutputs()])


def release() -> Pipeline:
    """Instructor notebook -> released notebook with the student version's own outputs."""
    return Pipeline(
        [
            ClearSolutions(),
            StripHiddenTests(),
            LockCells(),
            ClearOutputs(),
            RecomputeOutputs(),
            TagRaisingCells(),
            NormaliseOutputs(),
        ]
    )


def grade() -> Pipeline:
    """Submission -> graded notebook: tests restored and completed, run, scored."""
    return Pipeline(
        [
            RestoreLockedCells(),
            InjectHiddenTests(),
            ClearOutputs(),
            Execute(requires=("inject_hidden_tests", "clear_outputs")),
            CollectResults(),
            Score(),
        ]
    )


def reference() -> Pipeline:
    """The instructor's notebook, run as submissions are, for what its checks see."""
    return Pipeline([ClearOutputs(), Execute(requires=("clear_outputs",))])


def validate() -> Pipeline:
    """A student's notebook as it is: which tests pass, which locked cells changed."""
    return Pipeline(
        [
            CheckLockedCells(),
            ClearOutputs(),
            Execute(requires=("clear_outputs",)),
            CollectResults(),
            Score(),
        ]
    )
