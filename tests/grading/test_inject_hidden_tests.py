"""InjectHiddenTests: the graded copy runs the hidden tests too."""

from __future__ import annotations

import copy

from autogradkit_instructor.steps import InjectHiddenTests

from .helpers import by_id


def test_test_cells_get_their_hidden_tests_back(ctx):
    nb = InjectHiddenTests()(copy.deepcopy(ctx.student), ctx)
    assert "square_sum_of_negatives" in by_id(nb, "test_square_sum")["source"]
    assert by_id(nb, "test_square_sum")["source"] == by_id(ctx.source, "test_square_sum")["source"]
    assert any("square_sum_of_negatives" in code for code in ctx.hidden) and len(ctx.hidden) == 2


def test_answer_cells_are_not_touched(ctx):
    nb = copy.deepcopy(ctx.student)
    by_id(nb, "answer_mse")["source"] = "mine"
    assert by_id(InjectHiddenTests()(nb, ctx), "answer_mse")["source"] == "mine"
