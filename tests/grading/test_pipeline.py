"""pipeline.py: ordering rules are checked when a pipeline is built."""

from __future__ import annotations

import pytest

from autogradkit_instructor import pipeline
from autogradkit_instructor.steps import ClearOutputs, Execute, InjectHiddenTests


def test_every_command_pipeline_is_valid_and_ordered():
    assert pipeline.grade().names == (
        "restore_locked_cells",
        "inject_hidden_tests",
        "clear_outputs",
        "execute",
        "collect_results",
        "score",
    )
    assert pipeline.release().names[-3:] == (
        "recompute_outputs",
        "tag_raising_cells",
        "normalise_outputs",
    )
    assert pipeline.validate().names[0] == "check_locked_cells"


def test_a_step_before_its_requirement_is_refused():
    with pytest.raises(ValueError, match="'inject_hidden_tests' requires 'restore_locked_cells'"):
        pipeline.Pipeline([InjectHiddenTests()])
    with pytest.raises(ValueError, match="'execute' requires 'inject_hidden_tests'"):
        pipeline.Pipeline([ClearOutputs(), Execute(requires=("inject_hidden_tests",))])
