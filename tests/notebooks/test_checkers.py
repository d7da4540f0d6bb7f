"""The checker modules: right answers pass quietly, wrong ones fail with a hint that does not
give the answer away."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.grading.exercises import (
    nb00_start,
    nb01_backprop,
    nb02_autograd,
    nb03_jacobians,
    nb04_inplace,
    nb05_grad_fn,
    nb06_hooks,
    nb07_capstone,
)

WRONG_ANSWERS = [
    ("nb00 tensor", lambda: nb00_start.check_first_tensor(agk.tensor([3.0, 2.0, 1.0])), "1.0, 2.0"),
    ("nb00 printout", lambda: nb00_start.check_predicted_printout("tensor(6.)"), "MulBackward0"),
    (
        "nb01 chain rule",
        lambda: nb01_backprop.check_chain_rule_by_hand(-8.0, 1.0, 2.0, -16.0),
        "-4",
    ),
    ("nb01 large lr", lambda: nb01_backprop.check_prediction_large_lr(4.8, True), "4.8"),
    ("nb02 reuse", lambda: nb02_autograd.check_predicted_reuse(5.0, None), "7"),
    (
        "nb02 tracked",
        lambda: nb02_autograd.check_tracked({"a": True, "b": False, "c": True, "d": False}),
        "True",
    ),
    (
        "nb03 weights",
        lambda: nb03_jacobians.check_predicted_weighted_grads(
            agk.tensor([1.0, 3.0]), agk.tensor([[2.0, 0.0], [1.0, 0.0]])
        ),
        "2., 4.",
    ),
    ("nb03 vjp", lambda: nb03_jacobians.check_vjp_by_hand([[1, 2], [1, 3]], [3.0, 7.0]), "8"),
    ("nb04 version", lambda: nb04_inplace.check_predicted_version([4.0, 4.0, 4.0], 4), "3"),
    (
        "nb04 raises",
        lambda: nb04_inplace.check_which_raise({"a": True, "b": True, "c": True, "d": True}),
        "False",
    ),
    (
        "nb05 levels",
        lambda: nb05_grad_fn.check_predicted_levels(
            ["MulBackward0", "AccumulateGrad"], ["MulBackward0"], ["AccumulateGrad", None]
        ),
        "Exp",
    ),
    ("nb05 by hand", lambda: nb05_grad_fn.check_add_mul_by_hand(3.0, 3.0, 1.0), "-1"),
    ("nb06 hooks", lambda: nb06_hooks.check_predicted_hooks([1, 1, 1], [3, 3, 3]), "30"),
    ("nb06 by hand", lambda: nb06_hooks.check_linear_by_hand(34.0, [2, 0, 1, 1], 1.0), "8.5"),
    ("nb07 params", lambda: nb07_capstone.check_n_params(340), "354"),
    ("nb07 backward", lambda: nb07_capstone.check_backward_prediction((2, 16), True), "(16, 2)"),
]


@pytest.mark.parametrize(
    ("name", "attempt", "secret"), WRONG_ANSWERS, ids=[w[0] for w in WRONG_ANSWERS]
)
def test_a_wrong_answer_fails_without_revealing_the_answer(capsys, name, attempt, secret):
    with pytest.raises(AssertionError):
        attempt()
    failed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("✗")]
    assert len(failed) == 1
    assert secret not in failed[0]


def test_right_answers_pass_with_one_tick_per_check(capsys):
    nb01_backprop.check_chain_rule_by_hand(-4.0, 1.0, 2.0, -8.0)
    nb05_grad_fn.check_add_mul_by_hand(3.0, 3.0, -1.0)
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("✓ ") for line in lines)


def test_write_the_code_checkers_catch_common_mistakes():
    def gradient_summed(x, y, y_hat):
        return np.dot(2 * x, y_hat - y).mean()

    with pytest.raises(AssertionError):
        nb01_backprop.check_gradient_fixed(gradient_summed)

    def leaves_with_duplicates(t):
        found, stack = [], [t.grad_fn]
        while stack:
            node = stack.pop()
            if node is not None:
                found += [node.variable] if hasattr(node, "variable") else []
                stack += [n for n, _ in node.next_functions]
        return found

    with pytest.raises(AssertionError):
        nb05_grad_fn.check_find_leaves(leaves_with_duplicates)

    def sgd_step_rebinding(w, lr):
        w = w - lr * w.grad  # builds a new tensor; the caller's leaf never changes

    with pytest.raises(AssertionError):
        nb04_inplace.check_sgd_step(sgd_step_rebinding)
