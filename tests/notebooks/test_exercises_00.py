"""Notebook 00's exercises: answers that work on the check's own inputs pass, shortcuts do not."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk

from .exercises import (
    assert_passes,
    assert_refused,
    checks_of,
    english_reference,
    solution,
)

pytestmark = pytest.mark.slow(3)  # every answer judged in each language

NB = "00_start_here"
checks = checks_of(NB)


# the English solutions (the fixture every test judges against), and the test that each other
# edition's solutions are observed alike (so they would give the very same verdicts)
answers, test_each_editions_solutions_are_observed_as_the_english = english_reference(
    NB, checks, lambda edition: _solutions(edition)
)


def _solutions(edition: str) -> dict:
    found = {}
    for grade_id in ("nb00_ex1_tensor", "nb00_ex2_by_hand", "nb00_ex3_predict"):
        found.update(solution(NB, grade_id, edition))
    return found


# ----- ex. 1: a tensor that asks for gradients -------------------------------------------------
def floats_one_by_one(values):
    return agk.tensor([float(v) for v in values], requires_grad=True)


def through_numpy(values):
    return agk.tensor(np.array(values, dtype=np.float64)).requires_grad_()


def the_old_answer(values):
    return agk.tensor([1.0, 2.0, 3.0], requires_grad=True)


def test_ex1_a_float_tensor_that_requires_grad_passes_in_any_style(answers):
    assert_passes(checks.tensor_from_numbers, answers)
    assert_passes(checks.tensor_from_numbers, answers, first_tensor=floats_one_by_one)
    assert_passes(checks.tensor_from_numbers, answers, first_tensor=through_numpy)


def test_ex1_the_old_answer_typed_in_is_refused(answers):
    # The old exercise asked for t, a tensor holding 1.0, 2.0, 3.0, and its check took that
    # constant (an integer tensor too, in its visible part).
    assert_refused(
        checks.tensor_from_numbers, answers, "in the same order", first_tensor=the_old_answer
    )


def test_ex1_whole_numbers_must_become_floats(answers):
    as_given = lambda values: agk.tensor(values, requires_grad=True)  # noqa: E731
    lines = assert_refused(
        checks.tensor_from_numbers, answers, "raised RuntimeError", first_tensor=as_given
    )
    assert lines == ["✗ Exercise 1: your first tensor: your code raised RuntimeError"]
    no_float = lambda values: agk.tensor(values)  # noqa: E731
    assert_refused(checks.tensor_from_numbers, answers, "ask for floats", first_tensor=no_float)


def test_ex1_a_tensor_without_gradients_or_an_array_is_refused(answers):
    no_grad = lambda values: agk.tensor(values, dtype=agk.float32)  # noqa: E731
    assert_refused(checks.tensor_from_numbers, answers, "ask for gradients", first_tensor=no_grad)
    array = lambda values: np.array(values, dtype=np.float32)  # noqa: E731
    assert_refused(checks.tensor_from_numbers, answers, "agk.tensor(...)", first_tensor=array)


# ----- ex. 2: a derivative worked out by hand ------------------------------------------------
def slope_by_autograd(x):
    t = agk.tensor(x, requires_grad=True)
    (t**3 - 2 * t).backward()
    return t.grad.item()


def slope_by_autograd_grad(x):
    t = agk.tensor(x, requires_grad=True)
    return agk.autograd.grad(t**3 - 2 * t, t)[0].item()


def test_ex2_the_formula_passes_in_any_arrangement(answers):
    assert_passes(checks.slope_by_hand, answers)
    assert_passes(checks.slope_by_hand, answers, slope=lambda x: 3 * x * x - 2)


def test_ex2_the_old_typed_in_number_is_refused(answers):
    # The old exercise asked for the slope of x² + 3x at x = -1 as a number: 1.0 passed it.
    assert_refused(checks.slope_by_hand, answers, "one term at a time", slope=lambda x: 1.0)


def test_ex2_autograd_is_switched_off_while_checked(answers):
    for answer in (slope_by_autograd, slope_by_autograd_grad):
        assert_refused(checks.slope_by_hand, answers, "do it yourself", slope=answer)
    assert slope_by_autograd(2.0) == 10.0  # and on again afterwards


KEPT_GRAD = agk.autograd.targets.grad  # kept before the check, as a notebook cell may


def slope_by_a_kept_reference(x):
    t = agk.tensor(x, requires_grad=True)
    return KEPT_GRAD(t**3 - 2 * t, t)[0].item()


def slope_by_an_import_inside(x):
    from autogradkit.autograd import targets

    t = engine_tensor = __import__("autogradkit").tensor(x, requires_grad=True)
    return targets.grad(engine_tensor**3 - 2 * t, t)[0].item()


def slope_by_calling_the_nodes(x):
    t = agk.tensor(x, requires_grad=True)
    y = t**3 - 2 * t
    with agk.no_grad():
        (dy,) = y.grad_fn(agk.tensor(1.0))[:1]
    return float(3 * x**2 - 2) if dy is None else float(3 * x**2 - 2)


def test_ex2_every_route_to_autograd_is_refused(answers):
    # Issue 29, family 1: patching agk.autograd's names let a kept reference, an import of
    # the engine inside the function, and node calls through; by hand there is no kit at all.
    for answer in (slope_by_a_kept_reference, slope_by_an_import_inside):
        assert answer(2.0) == 10.0  # each works where student code runs
        assert_refused(checks.slope_by_hand, answers, "do it yourself", slope=answer)
    assert_refused(
        checks.slope_by_hand, answers, "do it yourself", slope=slope_by_calling_the_nodes
    )


def central_difference(step):
    def slope(x):
        f = lambda u: u**3 - 2 * u  # noqa: E731
        return (f(x + step) - f(x - step)) / (2 * step)

    return slope


def test_ex2_central_differences_miss_at_every_step(answers):
    # Issue 29, family 4: a difference quotient fitted the old tolerance at any sensible step.
    for step in (1e-3, 1e-5, 1e-7):  # too large, about the best, too small
        assert_refused(
            checks.slope_by_hand, answers, "one term at a time", slope=central_difference(step)
        )


def test_ex2_half_a_derivative_is_refused(answers):
    assert_refused(checks.slope_by_hand, answers, "one term at a time", slope=lambda x: 3 * x**2)


# ----- ex. 3: a predicted printout -------------------------------------------------------------
def test_ex3_the_printout_passes_with_or_without_surrounding_spaces(answers):
    assert_passes(checks.printout_prediction, answers)
    assert_passes(checks.printout_prediction, answers, printed=f"  {answers['printed']}\n")


def test_ex3_a_wrong_prediction_is_wrong_and_then_shows_the_real_printout(answers):
    lines = assert_refused(
        checks.printout_prediction,
        answers,
        "not your prediction",
        printed="tensor(6., requires_grad=True)",
    )
    assert lines[-1].startswith(f"✗ the printout: it is {answers['printed']!r}, not your")


def test_ex3_the_tensor_itself_or_no_answer_reveals_nothing(answers):
    computed = agk.tensor(2.0, requires_grad=True) * 3
    lines = assert_refused(checks.printout_prediction, answers, "quotes", printed=computed)
    lines += assert_refused(checks.printout_prediction, answers, "not answered yet", printed=...)
    assert not any(answers["printed"] in line for line in lines)
