"""Notebook 07's exercises: the lesson's mechanism passes, its shortcuts do not."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import nn

from .exercises import assert_passes, assert_refused, checks_of, solution

NB = "07_capstone"
checks = checks_of(NB)
loss_fn = nn.CrossEntropyLoss()
THE_NOTEBOOKS_MODEL = [2, 16, 16, 2]


def make_model():
    return nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 2))


NOTEBOOK = {  # stand-ins for the notebook globals the answer cells print with
    "loss_fn": loss_fn,
    "make_model": make_model,
    "model": make_model(),
    "X": agk.tensor(np.random.default_rng(7).normal(size=(50, 2)), dtype=agk.float32),
    "y": agk.tensor(np.random.default_rng(8).integers(0, 2, size=50)),
}


@pytest.fixture(scope="module")
def answers() -> dict:
    found = {}
    for grade_id in ("nb07_ex1_count", "nb07_ex2_predict", "nb07_ex3_accuracy"):
        found.update(solution(NB, grade_id, **NOTEBOOK))
    found.update(solution(NB, "nb07_ex4_find_the_bug", **NOTEBOOK))
    return found


# ----- ex. 1: the number of parameters, from the rule --------------------------------------------
def count_with_a_loop(sizes):
    total = 0
    for i in range(len(sizes) - 1):
        total += sizes[i] * sizes[i + 1] + sizes[i + 1]
    return total


def count_with_numpy(sizes):
    n_in, n_out = np.array(sizes[:-1]), np.array(sizes[1:])
    return np.sum(n_out * n_in + n_out)  # a NumPy integer is a whole number too


def count_by_building_the_layers(sizes):
    layers = [nn.Linear(n_in, n_out) for n_in, n_out in zip(sizes, sizes[1:])]
    return sum(p.numel() for p in nn.Sequential(*layers).parameters())


def count_the_weights_only(sizes):
    return sum(n_in * n_out for n_in, n_out in zip(sizes, sizes[1:]))


def test_ex1_the_rule_passes_in_any_style(answers):
    assert answers["count_parameters"](THE_NOTEBOOKS_MODEL) == 354
    for answer in (count_with_a_loop, count_with_numpy):
        assert_passes(checks.parameter_count, answers, count_parameters=answer)
        assert_passes(checks.parameter_count_one_layer, answers, count_parameters=answer)


def test_ex1_a_typed_in_total_or_the_library_count_is_refused(answers):
    typed_in = lambda sizes: 354  # noqa: E731  (the old exercise's n_params = 354)
    assert_refused(checks.parameter_count, answers, "count its weights", count_parameters=typed_in)
    assert_refused(
        checks.parameter_count,
        answers,
        "do it yourself",
        count_parameters=count_by_building_the_layers,
    )
    assert_refused(
        checks.parameter_count_one_layer,
        answers,
        "do it yourself",
        count_parameters=count_by_building_the_layers,
    )


def test_ex1_forgetting_the_biases_or_a_float_is_refused(answers):
    assert_refused(
        checks.parameter_count, answers, "and its biases", count_parameters=count_the_weights_only
    )
    as_float = lambda sizes: float(count_with_a_loop(sizes))  # noqa: E731
    assert_refused(checks.parameter_count, answers, "return an int", count_parameters=as_float)


def test_ex1_the_released_stub_is_not_answered_yet(answers):
    def stub(sizes):
        raise NotImplementedError()

    lines = assert_refused(
        checks.parameter_count, answers, "not answered yet", count_parameters=stub
    )
    assert len(lines) == 1


def test_ex1_the_library_works_again_after_the_check(answers):
    assert_refused(
        checks.parameter_count, answers, "", count_parameters=count_by_building_the_layers
    )
    assert count_by_building_the_layers(THE_NOTEBOOKS_MODEL) == 354


# ----- ex. 2: what backward fills in ----------------------------------------------------------
def test_ex2_the_right_prediction_passes_in_any_sequence(answers):
    assert_passes(checks.backward_prediction, answers)
    assert_passes(checks.backward_prediction, answers, weight_grad_shape=[16, 2])
    assert_passes(checks.backward_prediction, answers, weight_grad_shape=agk.Size([16, 2]))


def test_ex2_a_wrong_prediction_is_refused_and_then_revealed(answers):
    lines = assert_refused(
        checks.backward_prediction, answers, "it is '(16, 2)'", weight_grad_shape=(2, 16)
    )
    assert lines == [
        "✗ model[0].weight.grad.shape: it is '(16, 2)', not your prediction "
        "(a gradient belongs to one tensor: what shape is that tensor?)"
    ]
    batch_shaped = (200, 16)  # one gradient per example?
    assert_refused(
        checks.backward_prediction, answers, "it is '(16, 2)'", weight_grad_shape=batch_shaped
    )
    lines = assert_refused(checks.backward_prediction, answers, "it is True", x_grad_is_none=False)
    assert lines[0] == "✓ model[0].weight.grad.shape"


def test_ex2_an_unanswered_prediction_says_so(answers):
    lines = assert_refused(
        checks.backward_prediction, answers, "not answered yet", x_grad_is_none=...
    )
    assert len(lines) == 1


# ----- ex. 3: accuracy under no_grad() ---------------------------------------------------------
def accuracy_in_numpy(model, X, y):
    with agk.no_grad():
        scores = model(X).numpy()
    return float(np.mean(scores.argmax(axis=1) == y.numpy()))


@agk.no_grad()
def accuracy_decorated(model, X, y):
    return (model(X).argmax(dim=1) == y).float().mean().item()


def accuracy_with_recording_on(model, X, y):
    predicted = model(X).detach().argmax(dim=1)  # right number, but a graph was recorded
    return (predicted == y).float().mean().item()


def accuracy_of_two_columns(model, X, y):
    with agk.no_grad():
        scores = model(X)
    predicted = (scores[:, 1] > scores[:, 0]).long()  # only right for two classes
    return (predicted == y).float().mean().item()


def accuracy_switched_off_for_good(model, X, y):
    agk.set_grad_enabled(False)  # never switched back on
    return (model(X).argmax(dim=1) == y).float().mean().item()


def test_ex3_counting_matches_under_no_grad_passes_in_any_style(answers):
    assert_passes(checks.accuracy_no_grad, answers)
    for answer in (accuracy_in_numpy, accuracy_decorated):
        assert_passes(checks.accuracy_no_grad, answers, accuracy=answer)
        assert_passes(checks.accuracy_restores_recording, answers, accuracy=answer)


def test_ex3_a_typed_in_accuracy_is_refused(answers):
    for number in (0.625, 0.5):
        typed_in = lambda model, X, y, number=number: number  # noqa: E731
        assert_refused(checks.accuracy_no_grad, answers, "highest score", accuracy=typed_in)


def test_ex3_recording_a_graph_is_refused_even_with_the_right_number(answers):
    lines = assert_refused(
        checks.accuracy_no_grad, answers, "recording off", accuracy=accuracy_with_recording_on
    )
    assert lines[-2] == "✓ accuracy of a 2-class network on new points"


def test_ex3_other_shortcuts_are_refused(answers):
    assert_refused(
        checks.accuracy_no_grad, answers, "highest score", accuracy=accuracy_of_two_columns
    )
    as_tensor = lambda model, X, y: accuracy_decorated(model, X, y) * agk.ones(())  # noqa: E731
    assert_refused(checks.accuracy_no_grad, answers, "Python number", accuracy=as_tensor)


def test_ex3_hidden_recording_must_be_switched_back_on(answers):
    assert_passes(checks.accuracy_restores_recording, answers)
    assert_refused(
        checks.accuracy_restores_recording, answers, "", accuracy=accuracy_switched_off_for_good
    )
    assert agk.is_grad_enabled()  # the check restored it


# ----- ex. 4: the loop that zeroed too late ---------------------------------------------------
def train_zeroing_last(model, optimizer, X, y, epochs):
    losses = []
    for _ in range(epochs):
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        model.zero_grad()  # after the step, through the model: also right
        losses.append(loss.item())
    return losses


def train_buggy_renamed(model, optimizer, X, y, epochs):
    history = []
    for _ in range(epochs):
        batch_loss = loss_fn(model(X), y)
        batch_loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        history.append(batch_loss.item())
    return history


def train_never_zeroing(model, optimizer, X, y, epochs):
    losses = []
    for _ in range(epochs):
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def train_with_an_optimizer_of_its_own(model, optimizer, X, y, epochs):
    return train_zeroing_last(model, agk.optim.SGD(model.parameters(), lr=0.1), X, y, epochs)


def train_on_the_notebooks_data(model, optimizer, X, y, epochs):
    return train_zeroing_last(model, optimizer, NOTEBOOK["X"], NOTEBOOK["y"], epochs)


def test_ex4_zeroing_before_backward_or_after_step_passes(answers):
    assert_passes(checks.fixed_training_loop, answers, train_fixed=train_zeroing_last)
    assert_passes(checks.fixed_training_loop_momentum, answers, train_fixed=train_zeroing_last)


def test_ex4_the_bug_with_new_names_or_no_zeroing_is_refused_after_a_right_first_loss(answers):
    for buggy in (train_buggy_renamed, train_never_zeroing):
        lines = assert_refused(
            checks.fixed_training_loop, answers, "only this epoch's", train_fixed=buggy
        )
        assert lines[1] == "✓ the loss of the first epoch"


def test_ex4_training_something_else_than_what_is_given_is_refused(answers):
    assert_refused(
        checks.fixed_training_loop,
        answers,
        "the optimizer you are given",
        train_fixed=train_with_an_optimizer_of_its_own,
    )
    assert_refused(
        checks.fixed_training_loop,
        answers,
        "X and y you are given",
        train_fixed=train_on_the_notebooks_data,
    )
    typed_in = lambda model, optimizer, X, y, epochs: [0.7] * epochs  # noqa: E731
    assert_refused(checks.fixed_training_loop, answers, "X and y", train_fixed=typed_in)
    tensors = lambda *args: [agk.tensor(v) for v in train_zeroing_last(*args)]  # noqa: E731
    assert_refused(checks.fixed_training_loop, answers, "each a Python number", train_fixed=tensors)


def test_ex4_hidden_the_optimizer_given_keeps_its_momentum(answers):
    def fresh_optimizer_same_lr(model, optimizer, X, y, epochs):
        own = agk.optim.SGD(model.parameters(), lr=optimizer.param_groups[0]["lr"])
        return train_zeroing_last(model, own, X, y, epochs)

    assert_passes(checks.fixed_training_loop, answers, train_fixed=fresh_optimizer_same_lr)
    assert_refused(
        checks.fixed_training_loop_momentum, answers, "", train_fixed=fresh_optimizer_same_lr
    )
