"""Round 6 of issue 29's principle: routes around the mechanism that rounds 1-5 left open.

Each attack below is a whole answer a student who wants the marks without the lesson could
hand in. Each was seen passing first, judged as ``grade`` judges, then closed by a principle,
never by a list of its names:

* **The record of what ran, emptied by the answer that ran it**: an answer that runs in the
  kernel runs beside the check's own record of it. 04 ex4's step made with a kept ``SGD``,
  then ``builtins.sorted`` swapped for a function that puts itself back on its first call (the
  one ``kit_calls`` makes to write its list), or the profiler's set of seen functions cleared,
  passed on every seed. Whatever the kernel computes after the answer ran can be changed by
  it. So the step does not run there: it runs, with the check's trial around it, in an
  interpreter that has the kit but never imported its optimizers (``obs.without``), and what
  comes back is data. 04 ex1 (``nn.init.constant_``, which it rebuilds) the same way, without
  ``nn``.
* **Complex numbers made at run time**: ``(-1) ** 0.5``, ``np.emath.sqrt(-1.0)``, the roots of
  ``x² + 1``, ``builtins.complex`` after ``import builtins``, a complex dtype by its letter:
  each gives the imaginary unit for a complex step, exact to rounding, which no tolerance
  tells from the formula. Round 3 refused complex constants, ``complex`` and ``cmath``, names
  of a list that has no end. By hand, every value the answer's code computes is now judged
  by its type as it is made: it is rebuilt from its source with each expression checked, and
  a number that is not real refuses, whatever made it. Code made at run time (``exec``,
  ``eval``, a code object built from a compiled one) is compiled the same way, or refused.
"""

from __future__ import annotations

import builtins
import sys

import numpy as np
import pytest

import autogradkit as agk

from .exercises import BY_HAND, assert_passes, assert_refused, checks_of, solution

KEPT_SGD = agk.optim.SGD  # kept before the check, as a notebook cell may


def _reference(notebook: str, *grade_ids: str, **namespace) -> dict:
    found = {}
    for grade_id in grade_ids:
        found.update(solution(notebook, grade_id, **namespace))
    return found


# ----- the record of what ran, emptied by the answer ------------------------------------------
def step_then_sorted_once_empty(w, lr):  # 04 ex4
    KEPT_SGD([w], lr=lr).step()
    w.grad = None
    real = builtins.sorted

    def sorted_once(*args, **kwargs):  # kit_calls' first sorted() after the answer
        builtins.sorted = real
        return []

    builtins.sorted = sorted_once


def step_then_profile_cleared(w, lr):
    KEPT_SGD([w], lr=lr).step()
    w.grad = None
    for cell in sys.getprofile().__closure__ or ():
        if isinstance(cell.cell_contents, set):
            cell.cell_contents.clear()  # what kit_calls saw so far


@pytest.mark.parametrize("shortcut", [step_then_sorted_once_empty, step_then_profile_cleared])
@pytest.mark.parametrize("check_name", ["step_in_place", "steps_train"])
def test_04_a_kept_optimizer_that_empties_the_record_is_refused(shortcut, check_name):
    notebook = "04_inplace_data_detach"
    check = getattr(checks_of(notebook), check_name)
    reference = _reference(notebook, "nb04_ex4_sgd_step")
    kept = builtins.sorted
    try:
        assert_refused(check, reference, "", sgd_step=shortcut)
    finally:
        builtins.sorted = kept
    assert_passes(check, reference)


KEPT_CONSTANT = agk.nn.init.constant_  # 04 ex1 rebuilds it


def init_then_sorted_once_empty(w, value):  # 04 ex1
    KEPT_CONSTANT(w, value)
    real = builtins.sorted

    def sorted_once(*args, **kwargs):
        builtins.sorted = real
        return []

    builtins.sorted = sorted_once
    return w


def init_then_profile_cleared(w, value):
    KEPT_CONSTANT(w, value)
    for cell in sys.getprofile().__closure__ or ():
        if isinstance(cell.cell_contents, set):
            cell.cell_contents.clear()
    return w


@pytest.mark.parametrize("shortcut", [init_then_sorted_once_empty, init_then_profile_cleared])
def test_04_a_kept_nn_init_that_empties_the_record_is_refused(shortcut):
    notebook = "04_inplace_data_detach"
    check = checks_of(notebook).init_in_place
    reference = _reference(notebook, "nb04_ex1_init_weights")
    kept = builtins.sorted
    try:
        assert_refused(check, reference, "", init_weights=shortcut)
    finally:
        builtins.sorted = kept
    assert_passes(check, reference)


def step_with_an_import_inside(w, lr):
    from autogradkit.optim import SGD

    SGD([w], lr=lr).step()
    w.grad = None


def step_with_the_optimizers_source(w, lr):
    import importlib.util
    import os

    folder = os.path.join(os.path.dirname(agk.__file__), "optim")
    spec = importlib.util.spec_from_file_location("copied", os.path.join(folder, "sgd.py"))
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def step_with_a_found_subclass(w, lr):
    found = [c for c in object.__subclasses__() if c.__name__ == "Optimizer"]
    sgd = next(c for c in found[0].__subclasses__() if c.__name__ == "SGD")
    sgd([w], lr=lr).step()
    w.grad = None


@pytest.mark.parametrize(
    "shortcut",
    [step_with_an_import_inside, step_with_the_optimizers_source, step_with_a_found_subclass],
)
def test_04_the_optimizers_are_not_there_by_any_route(shortcut):
    notebook = "04_inplace_data_detach"
    check = checks_of(notebook).step_in_place
    reference = _reference(notebook, "nb04_ex4_sgd_step")
    assert_refused(check, reference, "", sgd_step=shortcut)


# ----- complex numbers made at run time ----------------------------------------------------
def unit_by_power():
    one = len("i")  # (-1) ** 0.5 written out is folded into a complex constant, refused
    return (-one) ** 0.5


def unit_by_emath():
    return np.emath.sqrt(-1.0)


def unit_by_eigenvalues():  # of a rotation by a quarter turn: ±i
    unit = np.linalg.eigvals(np.array([[0.0, -1.0], [1.0, 0.0]]))[0]
    return unit * np.sign(unit.imag)


def unit_by_builtins():
    import builtins

    return builtins.complex(0.0, 1.0)


def unit_by_dtype_letter():
    return np.sqrt(np.array(-1.0).astype("D"))[()]


UNITS = [unit_by_power, unit_by_emath, unit_by_eigenvalues, unit_by_builtins, unit_by_dtype_letter]


def stepping(unit):
    """Complex-step differentiation with the imaginary unit ``unit()`` makes at run time."""

    def step(f, *args, at: int):
        h, moved = 1e-20, list(args)
        moved[at] = moved[at] + h * unit()
        return np.imag(f(*moved)) / h

    return step


def attacks(step) -> dict:
    """Each by-hand exercise's answer by complex steps (BY_HAND: where each exercise is)."""

    def slope(x):  # 00 ex2: y = x³ - 2x
        return step(lambda u: u * u * u - 2 * u, x, at=0)  # complex ** 3 overflows near 1e120

    def backward_by_hand(w, x, y):  # 01 ex1
        s = w * x - y
        return (
            step(lambda s: s**2, s, at=0),
            1.0,
            step(lambda w: w * x, w, at=0),
            0.0 + step(lambda w: (w * x - y) ** 2, w, at=0),
        )

    def fit_line(x, y, lr, epochs):  # 01 ex2
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        w = b = 0.0
        for _ in range(epochs):
            loss = lambda w, b: np.mean((w * x + b - y) ** 2)  # noqa: E731
            w, b = w - lr * step(loss, w, b, at=0), b - lr * step(loss, w, b, at=1)
        return float(w), float(b)

    def gradient_fixed(x, y, y_hat):  # 01 ex3
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        w = float(np.asarray(y_hat, dtype=np.float64)[0] / x[0] ** 2)
        return step(lambda w: np.mean((w * x**2 - y) ** 2), w, at=0)

    def jacobian_by_hand(x0, x1):  # 03 ex3
        y = lambda x0, x1: np.array([x0 * x1**3, x0 + 3 * x1])  # noqa: E731
        return np.stack([step(y, x0, x1, at=0), step(y, x0, x1, at=1)], axis=1).tolist()

    def vjp_by_hand(x0, x1, v0, v1):
        return (np.array([v0, v1]) @ np.array(jacobian_by_hand(x0, x1))).tolist()

    def add_mul_grads(a, b, d):  # 05 ex4
        return tuple(float(step(lambda a, b, d: (a + b) * d, a, b, d, at=i)) for i in range(3))

    def linear_by_hand(x, w, b):  # 06 ex4
        grads = [step(lambda wi, xi: wi * xi / 4, wi, xi, at=0) for wi, xi in zip(w, x)]
        bias = float(step(lambda b: (np.dot(w, x) + b) / 4, b, at=0))
        return (np.dot(w, x) + b) / 4, np.array(grads), bias

    return {
        "00 ex2": {"slope": slope},
        "01 ex1": {"backward_by_hand": backward_by_hand},
        "01 ex2": {"fit_line": fit_line},
        "01 ex3": {"gradient_fixed": gradient_fixed},
        "03 ex3": {"jacobian_by_hand": jacobian_by_hand, "vjp_by_hand": vjp_by_hand},
        "05 ex4": {"add_mul_grads": add_mul_grads},
        "06 ex4": {"linear_by_hand": linear_by_hand},
    }


def slope_in_one_expression(x):  # 00 ex2: no name ever holds a complex number
    return (
        (x + np.emath.sqrt(-1.0) * 1e-20) ** 3 - 2 * (x + np.emath.sqrt(-1.0) * 1e-20)
    ).imag / 1e-20


def _by_hand_check(exercise: str):
    notebook, grade_ids, check_name = BY_HAND[exercise]
    return getattr(checks_of(notebook), check_name), _reference(notebook, *grade_ids, np=np)


def test_each_run_time_unit_is_the_derivative_where_student_code_runs():
    for unit in UNITS:
        assert abs(attacks(stepping(unit))["00 ex2"]["slope"](2.0) - 10.0) < 1e-12
    assert abs(slope_in_one_expression(2.0) - 10.0) < 1e-12


@pytest.mark.parametrize("unit", UNITS)
def test_00_a_complex_step_with_a_unit_made_at_run_time_is_refused(unit):
    check, reference = _by_hand_check("00 ex2")
    assert_refused(check, reference, "do it yourself", **attacks(stepping(unit))["00 ex2"])


def test_00_a_complex_step_in_one_expression_is_refused():
    check, reference = _by_hand_check("00 ex2")
    assert_refused(check, reference, "do it yourself", slope=slope_in_one_expression)


# 01 ex2, 01 ex3 and 06 ex4 draw inputs near 1e160 where these complex steps give nan (a
# complex product of an overflowed part): refused by their values already, and by hand now
@pytest.mark.parametrize("exercise", ["00 ex2", "01 ex1", "03 ex3", "05 ex4"])
def test_a_complex_step_made_by_numpy_is_refused_on_the_by_hand_exercises(exercise):
    check, reference = _by_hand_check(exercise)
    answers = attacks(stepping(unit_by_emath))[exercise]
    assert_refused(check, reference, "do it yourself", **answers)


STEP = "lambda x: (lambda u: u**3 - 2 * u)(x + np.emath.sqrt(-1.0) * 1e-20).imag / 1e-20"


def slope_through_code_made_at_run_time(x):  # 00 ex2: code the rebuilt answer did not hold
    scope = {"np": np}
    exec(f"slope = {STEP}", scope)  # noqa: S102
    return scope["slope"](x)


def slope_through_eval(x):
    return eval(STEP, {"np": np})(x)  # noqa: S307


def slope_through_a_code_object(x):
    import types

    made = next(c for c in compile(STEP, "<made>", "eval").co_consts if type(c) is types.CodeType)
    code = types.CodeType(*[getattr(made, name) for name in CODE_FIELDS])
    return types.FunctionType(code, {"np": np})(x)


CODE_FIELDS = (
    "co_argcount co_posonlyargcount co_kwonlyargcount co_nlocals co_stacksize co_flags co_code "
    "co_consts co_names co_varnames co_filename co_name co_qualname co_firstlineno "
    "co_linetable co_exceptiontable co_freevars co_cellvars"
).split()


@pytest.mark.parametrize(
    "shortcut",
    [slope_through_code_made_at_run_time, slope_through_eval, slope_through_a_code_object],
)
def test_00_a_complex_step_through_code_made_at_run_time_is_refused(shortcut):
    assert abs(shortcut(2.0) - 10.0) < 1e-12
    check, reference = _by_hand_check("00 ex2")
    assert_refused(check, reference, "do it yourself", slope=shortcut)


# ----- the judge of values, changed by the answer --------------------------------------------
def _judge_of_values(function):
    return next(c for c in function.__code__.co_consts if callable(c))


def helper(u):
    return u + 0  # by hand, judged: real_value is among its code's constants


def slope_with_the_judge_disarmed(x):  # 00 ex2: real_value's own defaults replaced
    _judge_of_values(helper).__kwdefaults__ = {"_kinds": (), "_number": type(None)}
    return slope_in_one_expression(x)


def power(x, n):  # a helper that calls itself by its own name
    return 1.0 if n == 0 else x * power(x, n - 1)


def slope_through_a_recursive_helper(x):
    return 3 * power(x, 2) - 2


def test_00_the_judge_of_values_disarmed_is_refused():
    check, reference = _by_hand_check("00 ex2")
    assert_refused(check, reference, "do it yourself", slope=slope_with_the_judge_disarmed)
    assert_passes(check, reference, slope=slope_through_a_recursive_helper)
