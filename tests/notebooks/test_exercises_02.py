"""Notebook 02's exercises: the lesson's mechanism passes, its shortcuts do not, in both
editions (each edition's solutions observed alike, every verdict also in Chinese)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autogradkit as agk

from . import exercises
from .exercises import (
    checks_of,
    editions,
    english_reference,
    shown,
    solution,
    translations,
    verdicts,
)

NB = "02_autograd_does_it"
checks = checks_of(NB)
loss_fn = agk.nn.MSELoss()
DATA = {
    "loss_fn": loss_fn,
    "x": agk.tensor([2.0, 4.0, 6.0, 8.0]),
    "y": agk.tensor([4.0, 8.0, 12.0, 16.0]),
}


# In a translation, a line may keep code (a.grad, train_fixed(x, y, 3), True) but no English
# prose: two English words in a row are a name, hint or reason the catalogs left untranslated.
CJK = re.compile("[\u4e00-\u9fff]")
ENGLISH_PROSE = re.compile(r"\b[A-Za-z]{2,}(?:[ ,]+\d+)*[ ,]+[A-Za-z]{2,}\b")


# the English solutions (the fixture every test judges against), and the test that each other
# edition's solutions are observed alike (so they would give the very same verdicts)
answers, test_each_editions_solutions_are_observed_as_the_english = english_reference(
    NB, checks, lambda edition: _solutions(edition)
)


def _solutions(edition: str) -> dict:
    found = {}
    for grade_id in ("nb02_ex1_predict", "nb02_ex2_find_the_bug", "nb02_ex3_accumulate"):
        found.update(solution(NB, grade_id, edition, **DATA))
    for grade_id in ("nb02_ex4_tracked", "nb02_ex5_switches", "nb02_ex6_evaluate"):
        found.update(solution(NB, grade_id, edition))
    return found


def _translated_through(check, reference: dict, answers: dict) -> None:
    """Every line of each translation's verdicts has no English prose; each ✗ line is in
    the translation's script."""
    for tr in translations(check):
        for verdict in verdicts(check, reference, {**reference, **answers}, tr=tr):
            for line in verdict.lines:
                assert not ENGLISH_PROSE.search(line), f"not in {tr.language}: {line!r}"
                assert not line.startswith("✗") or CJK.search(line), line


def assert_passes(check, reference: dict, **answers) -> None:
    """``exercises.assert_passes``, and every ✓ line translated through."""
    exercises.assert_passes(check, reference, **answers)
    _translated_through(check, reference, answers)


def assert_refused(check, reference: dict, words: str = "", **answers) -> list[str]:
    """``exercises.assert_refused`` (the English lines returned), and the Chinese ✗ line
    translated through: name, reason and hint."""
    lines = exercises.assert_refused(check, reference, words, **answers)
    _translated_through(check, reference, answers)
    return lines


def test_every_edition_is_judged_and_chinese_lines_are_checked():
    assert editions(NB) == ["en", "zh-CN", "zh-TW"]
    assert [tr.language for tr in translations(checks.fixed_loop)] == ["zh-CN", "zh-TW"]
    assert ENGLISH_PROSE.search("✗ w after 5 epochs: it is 1.5, not 2 (a hint)")
    assert ENGLISH_PROSE.search("✓ w after 1 epoch")
    assert not ENGLISH_PROSE.search("✗ train_fixed(x, y, 3) 返回叶子节点 w：实际是 None")


# ----- ex. 1: a tensor used twice ------------------------------------------------------------
def test_ex1_the_gradient_along_one_use_only_is_refused_and_then_revealed(answers):
    assert_passes(checks.reuse_prediction, answers)
    lines = assert_refused(checks.reuse_prediction, answers, "it is 7", predicted_a_grad=5.0)
    assert lines == [
        "✗ a.grad: it is 7, not your prediction (a is used twice: what happens at a fork?)"
    ]
    assert_refused(checks.reuse_prediction, answers, "it is None", predicted_b_grad=0.0)


# ----- ex. 2: the loop that clears w's gradient and not b's -----------------------------------
def train_zeroing_first(x, y, epochs):
    w = agk.tensor(0.0, requires_grad=True)
    b = agk.tensor(0.0, requires_grad=True)
    optimizer = agk.optim.SGD([w, b], lr=0.01)
    for _ in range(epochs):
        optimizer.zero_grad()
        loss_fn(w * x + b, y).backward()
        optimizer.step()
    return w, b


def train_clearing_both_by_hand(x, y, epochs):
    w = agk.tensor(0.0, requires_grad=True)
    b = agk.tensor(0.0, requires_grad=True)
    optimizer = agk.optim.SGD([w, b], lr=0.01)
    for _ in range(epochs):
        loss_fn(w * x + b, y).backward()
        optimizer.step()
        w.grad.zero_()
        b.grad = None
    return w, b


def train_classmate(x, y, epochs):
    w = agk.tensor(0.0, requires_grad=True)
    b = agk.tensor(0.0, requires_grad=True)
    optimizer = agk.optim.SGD([w, b], lr=0.01)
    for _ in range(epochs):
        loss_fn(w * x + b, y).backward()
        optimizer.step()
        w.grad = None
    return w, b


def least_squares(x, y, epochs):
    slope, intercept = np.polyfit(x.numpy(), y.numpy(), 1)  # where training heads, untrained
    return agk.tensor(slope, requires_grad=True), agk.tensor(intercept, requires_grad=True)


def test_ex2_zeroing_every_leaf_passes_and_the_bug_or_the_end_point_do_not(answers):
    assert_passes(checks.fixed_loop, answers, train_fixed=train_zeroing_first)
    assert_passes(checks.fixed_loop, answers, train_fixed=train_clearing_both_by_hand)
    assert_refused(checks.fixed_loop, answers, "which of them", train_fixed=train_classmate)
    assert_refused(checks.fixed_loop, answers, "which of them", train_fixed=least_squares)
    typed_in = lambda x, y, epochs: (agk.tensor(2.0, requires_grad=True),) * 2  # noqa: E731
    assert_refused(checks.fixed_loop, answers, "", train_fixed=typed_in)
    detached = lambda x, y, epochs: [t.detach() for t in train_zeroing_first(x, y, epochs)]  # noqa: E731
    assert_refused(checks.fixed_loop, answers, "w, b themselves", train_fixed=detached)


def sections_own_train():
    """Section 9's train(zero_grad, epochs), run by the notebook's own cell, as train_fixed:
    the old exercise's answer was that cell, copied."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    notebook = shown(NB, "02-def-train-zero-grad-epochs", plt=plt, **DATA)
    plt.close("all")

    def train_fixed(x, y, epochs):
        notebook.update(x=x, y=y)  # the data its loop reads
        return notebook["train"](zero_grad=True, epochs=epochs)[0]

    return train_fixed


def test_ex2_the_notebooks_own_loop_is_refused(answers):
    # Issue 29, item 5: section 9's train() with zero_grad=True was exercise 2's answer; the
    # exercise's model now has a bias, and its bug is a leaf the loop does not clear.
    assert_refused(checks.fixed_loop, answers, "w, b themselves", train_fixed=sections_own_train())


# ----- ex. 3: accumulation on purpose ----------------------------------------------------------
def whole_batch_at_once(x, y, w_value, batch_size):
    w = agk.tensor(w_value, requires_grad=True)
    loss_fn(w * x, y).backward()  # the same number, without accumulating anything
    return w.grad


def pieces_not_scaled(x, y, w_value, batch_size):
    w = agk.tensor(w_value, requires_grad=True)
    for start in range(0, len(x), batch_size):
        loss_fn(w * x[start : start + batch_size], y[start : start + batch_size]).backward()
    return w.grad


def summed_by_hand(x, y, w_value, batch_size):
    w, total, pieces = agk.tensor(w_value, requires_grad=True), 0.0, len(x) // batch_size
    for start in range(0, len(x), batch_size):
        loss = loss_fn(w * x[start : start + batch_size], y[start : start + batch_size])
        total = total + agk.autograd.grad(loss, w)[0] / pieces  # no accumulation in w.grad
    return total


def through_autograd_backward(x, y, w_value, batch_size):
    w, pieces = agk.tensor(w_value, requires_grad=True), len(x) // batch_size
    for start in range(0, len(x), batch_size):
        loss = loss_fn(w * x[start : start + batch_size], y[start : start + batch_size])
        agk.autograd.backward(loss / pieces)
    return w.grad


def test_ex3_accumulating_passes_and_one_backward_or_no_scaling_does_not(answers):
    assert_passes(checks.accumulation, answers, accumulated_grad=through_autograd_backward)
    assert_refused(
        checks.accumulation, answers, "once per piece", accumulated_grad=whole_batch_at_once
    )
    assert_refused(
        checks.accumulation, answers, "times the right", accumulated_grad=pieces_not_scaled
    )
    assert_refused(checks.accumulation, answers, "once per piece", accumulated_grad=summed_by_hand)


def whole_batch_and_empty_backwards(x, y, w_value, batch_size):
    w = agk.tensor(w_value, requires_grad=True)
    loss_fn(w * x, y).backward()
    for _ in range(len(x) // batch_size - 1):  # the count the old check wanted, on nothing
        agk.tensor(0.0, requires_grad=True).backward()
    return w.grad


def whole_batch_and_zero_backwards(x, y, w_value, batch_size):
    w = agk.tensor(w_value, requires_grad=True)
    for _ in range(len(x) // batch_size - 1):
        (w * 0).backward()  # on the exercise's own w, adding nothing
    loss_fn(w * x, y).backward()
    return w.grad


def test_ex3_backward_passes_that_add_nothing_are_refused(answers):
    # Issue 29, family 3: both made the old count of backward() calls, without accumulating.
    for shortcut in (whole_batch_and_empty_backwards, whole_batch_and_zero_backwards):
        assert_refused(checks.accumulation, answers, "once per piece", accumulated_grad=shortcut)


def test_ex3_hidden_each_call_starts_from_a_fresh_leaf(answers):
    shared = agk.tensor(0.0, requires_grad=True)

    def one_leaf_for_all_calls(x, y, w_value, batch_size):
        shared.data.fill_(w_value)
        pieces = len(x) // batch_size
        for start in range(0, len(x), batch_size):
            part = slice(start, start + batch_size)
            (loss_fn(shared * x[part], y[part]) / pieces).backward()
        return shared.grad

    assert_passes(checks.accumulation_called_twice, answers)
    assert_refused(
        checks.accumulation_called_twice, answers, "", accumulated_grad=one_leaf_for_all_calls
    )


# ----- ex. 4: tracked or not -------------------------------------------------------------------
def test_ex4_each_prediction_is_judged_and_revealed_one_at_a_time(answers):
    assert_passes(checks.tracked_or_not, answers)
    wrong = {**answers["tracked"], "a": True}
    lines = assert_refused(checks.tracked_or_not, answers, "it is False", tracked=wrong)
    assert lines[-1].startswith('✗ tracked["a"]') and len(lines) == 2  # then it stops
    assert_refused(checks.tracked_or_not, answers, "is a dict", tracked=[False] * 4)
    assert np.all([not v for k, v in answers["tracked"].items() if k != "c"])  # the lesson's data


# ----- ex. 5: three switches -------------------------------------------------------------------
def test_ex5_each_switch_is_judged_and_a_wrong_one_is_revealed(answers):
    assert_passes(checks.three_switches, answers)
    all_stop_recording = {"a": False, "b": False, "c": False, "d": False}
    lines = assert_refused(
        checks.three_switches, answers, "it is True", switches=all_stop_recording
    )
    assert lines[-1].startswith('✗ switches["a"]')
    no_difference = {**answers["switches"], "d": False}  # inference_mode taken for no_grad
    assert_refused(
        checks.three_switches, answers, "can an inference tensor", switches=no_difference
    )
    assert_refused(checks.three_switches, answers, "is a dict", switches=[True, False, False, True])


# ----- ex. 6: an evaluation helper -------------------------------------------------------------
def evaluate_in_inference_mode(model, x):
    was_training = model.training
    model.eval()
    with agk.inference_mode():
        predictions = model(x)
    model.train(was_training)
    return predictions


def evaluate_without_eval(model, x):
    with agk.no_grad():
        return model(x)  # the dropout layer still drops


def evaluate_recording(model, x):
    was_training = model.training
    model.eval()
    predictions = model(x)  # a graph nobody backpropagates through
    model.train(was_training)
    return predictions


def evaluate_detached_afterwards(model, x):
    was_training = model.training
    model.eval()
    predictions = model(x).detach()  # no graph in the result, but one was built
    model.train(was_training)
    return predictions


def evaluate_and_stay_in_eval(model, x):
    model.eval()
    with agk.no_grad():
        return model(x)


def evaluate_and_train_again(model, x):
    model.eval()
    with agk.no_grad():
        predictions = model(x)
    model.train()  # right after training, wrong when the model was in eval mode before
    return predictions


def test_ex6_eval_plus_a_block_that_stops_recording_passes(answers):
    assert_passes(checks.evaluation, answers)
    assert_passes(checks.evaluation, answers, evaluate=evaluate_in_inference_mode)


@pytest.mark.parametrize(
    ("shortcut", "words"),
    [
        (evaluate_without_eval, "which mode does that?"),
        (evaluate_recording, "a block that stops recording"),
        (evaluate_detached_afterwards, "comes too late"),
        (evaluate_and_stay_in_eval, "give it back"),
        (evaluate_and_train_again, "give it back"),
    ],
)
def test_ex6_a_switch_missing_or_the_mode_not_restored_is_refused(answers, shortcut, words):
    assert_refused(checks.evaluation, answers, words, evaluate=shortcut)


def test_ex6_hidden_training_goes_on_unchanged_after_each_evaluation(answers):
    def evaluate_by_averaging_dropout(model, x):  # many noisy runs in training mode
        with agk.no_grad():
            return sum(model(x) for _ in range(200)) / 200

    assert_passes(checks.evaluation_in_a_loop, answers)
    assert_passes(checks.evaluation_in_a_loop, answers, evaluate=evaluate_in_inference_mode)
    assert_refused(checks.evaluation_in_a_loop, answers, evaluate=evaluate_and_stay_in_eval)
    assert_refused(checks.evaluation_in_a_loop, answers, evaluate=evaluate_by_averaging_dropout)
