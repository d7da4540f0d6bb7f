"""Round 10 of issue 29's principle: answers that give the check the numbers it observes, made
some other way than the lesson's, found by trying each exercise as a student who wants the
marks without the lesson. Each was seen passing first, judged as ``grade`` judges, then closed
by observing what only the lesson's mechanism gives, never by a list of its names:

* **By hand, dual numbers** (00 ex2, 01 ex1, 03 ex3, 05 ex4 seen): a class of the answer's
  own that does arithmetic on pairs ``a + b·ε`` with ``ε² = 0`` carries each derivative along
  (forward mode): no formula worked out, and exact where the function's value overflows (the
  primal part is ``inf``, the derivative part finite), so the huge draws that catch a
  difference quotient let it through; it passed every seed. By hand, numbers are machine
  floats: every value the answer makes is judged as it is made, and an instance of a class of
  its own that does arithmetic is now refused as complex numbers are, however the class is
  made (a class statement, ``type(...)``, a float subclass; in an object array the class's own
  methods make each one). 07's ``Value``, an exercise that is such a class, keeps it.
* **04 ex6** (the node that made the nan): no backward pass at all, the name read off the loss
  function handed over (its globals are the checks module: ``GUARDS``; its closure says which
  guard each part goes through), the bad value looked up in ``x``: passed on every seed. The
  check now observes, before the name, that a backward pass ran from ``loss_fn(x)`` back to
  ``x``: the nan is made there.

Doors tried and found closed, kept because they are cheap: 07 ex6's order by the standard
library's ``graphlib.TopologicalSorter`` (by hand, the standard library is a short list).

Left open (no test: it passes): dual numbers as 2×2 NumPy matrices ``[[x, 1], [0, x]]``, no
class at all (00 ex2: ``(m @ m @ m - 2 * m)[0, 1]``). Its derivative entry never multiplies
the overflowed value, so no huge draw tells it from the formula.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import autogradkit as agk

from .exercises import BY_HAND, assert_passes, assert_refused, checks_of, solution


def _reference(notebook: str, *grade_ids: str, **namespace) -> dict:
    found = {}
    for grade_id in grade_ids:
        found.update(solution(notebook, grade_id, **namespace))
    return found


# ----- by hand: dual numbers ------------------------------------------------------------------
class Dual:
    """``v + d·ε`` with ``ε² = 0``: arithmetic that carries the derivative ``d`` along."""

    def __init__(self, v, d=0.0):
        self.v, self.d = v, d

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.v + other.v, self.d + other.d)

    __radd__ = __add__

    def __sub__(self, other):
        return self + other * -1.0

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.v * other.v, self.d * other.v + self.v * other.d)

    __rmul__ = __mul__

    def __pow__(self, n):  # multiplied out: float ** raises OverflowError, * gives inf
        out = Dual(1.0)
        for _ in range(n):
            out = out * self
        return out


def slope_by_dual_numbers(x):  # 00 ex2: y = x³ - 2x
    return (Dual(x, 1.0) ** 3 - Dual(x, 1.0) * 2).d


def backward_by_dual_numbers(w, x, y):  # 01 ex1: loss = (w·x - y)²
    dloss_ds = (Dual(w * x - y, 1.0) ** 2).d
    ds_dyhat = (Dual(w * x, 1.0) - y).d
    dyhat_dw = (Dual(w, 1.0) * x).d
    return dloss_ds, ds_dyhat, dyhat_dw, ((Dual(w, 1.0) * x - y) ** 2).d


def _y(a, b):  # 03 ex3: y = (x0·x1³, x0 + 3·x1)
    return a * b**3, a + b * 3.0


def jacobian_by_dual_numbers(x0, x1):
    along_x0, along_x1 = _y(Dual(x0, 1.0), Dual(x1)), _y(Dual(x0), Dual(x1, 1.0))
    return [[along_x0[0].d, along_x1[0].d], [along_x0[1].d, along_x1[1].d]]


def vjp_by_dual_numbers(x0, x1, v0, v1):
    jac = jacobian_by_dual_numbers(x0, x1)
    return [v0 * jac[0][0] + v1 * jac[1][0], v0 * jac[0][1] + v1 * jac[1][1]]


def slope_by_a_float_of_its_own(x):
    """Dual numbers as a float subclass, the class made by ``type`` inside the answer."""

    def times(a, b):
        return Pair(float(a) * float(b), a.d * float(b) + float(a) * b.d)

    def plus(a, b):
        return Pair(float(a) + float(b), a.d + b.d)

    def new(cls, v, d=0.0):
        made = float.__new__(cls, v)
        made.d = d
        return made

    Pair = type("Pair", (float,), {"__new__": new, "__mul__": times, "__add__": plus})
    u = Pair(x, 1.0)
    return (u * u * u + u * Pair(-2.0)).d


def add_mul_by_dual_numbers(a, b, d):  # 05 ex4: e = (a + b) * d, even where e overflows
    seeds = [[Dual(v, float(i == at)) for i, v in enumerate((a, b, d))] for at in range(3)]
    return tuple(((u + v) * z).d for u, v, z in seeds)


def slope_by_dual_numbers_in_an_object_array(x):
    """The duals made by ``map`` and read by ``frompyfunc``, inside an object array: no
    expression of the answer's own makes or reads one (the class's methods do)."""
    u = np.array(list(map(Dual, [x], [1.0])), dtype=object)
    return float(np.frompyfunc(operator.attrgetter("d"), 1, 1)(u * u * u - u * 2.0)[0])


def slope_by_duals_dressed_as_a_library_class(x):
    """The dual class put in a standard module under its own name: it looks like a library's
    (``collections.Counter`` does arithmetic and is allowed)."""
    import math

    class Pair:
        def __init__(self, v, d=0.0):
            self.v, self.d = v, d

        def __add__(self, other):
            return Pair(self.v + other.v, self.d + other.d)

        def __mul__(self, other):
            return Pair(self.v * other.v, self.d * other.v + self.v * other.d)

    Pair.__module__, Pair.__qualname__ = "math", "Pair"
    math.Pair = Pair
    u = Pair(x, 1.0)
    return (u * u * u + u * Pair(-2.0)).d


def slope_by_arithmetic_set_on_the_class_later(x):
    """The class is judged at its first value, when it does no arithmetic yet; its arithmetic
    is set on it after that."""

    class Pair:
        def __init__(self, v, d=0.0):
            self.v, self.d = v, d

    first = Pair(x, 1.0)
    Pair.__add__ = lambda a, b: Pair(a.v + b.v, a.d + b.d)
    Pair.__mul__ = lambda a, b: Pair(a.v * b.v, a.d * b.v + a.v * b.d)
    return (first * first * first + first * Pair(-2.0)).d


def slope_by_an_array_of_duals(x):
    """Dual numbers as a NumPy array subclass whose ``__array_ufunc__`` carries the derivative:
    the class defines no ``__mul__`` of its own (ndarray's sends ``*`` to the ufunc)."""

    class Duals(np.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            pairs = [
                (a.view(np.ndarray), a.d) if isinstance(a, Duals) else (a, 0.0) for a in inputs
            ]
            (a, da), (b, db) = pairs
            if ufunc is np.multiply:
                out, d = a * b, da * b + a * db
            else:  # add or subtract
                sign = 1.0 if ufunc is np.add else -1.0
                out, d = ufunc(a, b), da + sign * db
            made = np.asarray(out).view(Duals)
            made.d = d
            return made

    u = np.array([x]).view(Duals)
    u.d = np.array([1.0])
    return float((u * u * u - u * 2.0).d[0])


ATTACKS = {
    "00 ex2": {"slope": slope_by_dual_numbers},
    "05 ex4": {"add_mul_grads": add_mul_by_dual_numbers},
    "01 ex1": {"backward_by_hand": backward_by_dual_numbers},
    "03 ex3": {"jacobian_by_hand": jacobian_by_dual_numbers, "vjp_by_hand": vjp_by_dual_numbers},
}


def test_dual_numbers_are_the_derivative_where_student_code_runs():
    assert slope_by_dual_numbers(1e120) == 3e240  # y overflows, its derivative does not
    assert slope_by_a_float_of_its_own(2.0) == 10.0
    assert slope_by_dual_numbers_in_an_object_array(2.0) == 10.0
    assert backward_by_dual_numbers(1.5, 2.0, 4.0) == (-2.0, 1.0, 2.0, -4.0)
    assert np.allclose(jacobian_by_dual_numbers(2.0, -1.5), [[-3.375, 13.5], [1.0, 3.0]])


@pytest.mark.parametrize("exercise", list(ATTACKS))
def test_dual_numbers_are_refused_by_hand(exercise):
    (notebook, grade_ids, check_name), attack = BY_HAND[exercise], ATTACKS[exercise]
    reference = _reference(notebook, *grade_ids, np=np)
    assert_refused(
        getattr(checks_of(notebook), check_name), reference, "compute with plain numbers", **attack
    )


def test_dual_numbers_dressed_as_a_library_class_or_an_array_are_refused_by_hand():
    """Where a class comes from is what the interpreter saw, not what the class says: one made
    after the answer started is the answer's, whatever its ``__module__``; and an array class
    that overrides NumPy's ufuncs does arithmetic as ``__mul__`` does."""
    assert slope_by_duals_dressed_as_a_library_class(2.0) == 10.0
    assert slope_by_an_array_of_duals(2.0) == 10.0
    assert slope_by_arithmetic_set_on_the_class_later(2.0) == 10.0
    notebook, grade_ids, check_name = BY_HAND["00 ex2"]
    reference = _reference(notebook, *grade_ids, np=np)
    check = getattr(checks_of(notebook), check_name)
    dressed, later = (
        slope_by_duals_dressed_as_a_library_class,
        slope_by_arithmetic_set_on_the_class_later,
    )
    for answer in (dressed, slope_by_an_array_of_duals, later):
        assert_refused(check, reference, "compute with plain numbers", slope=answer)


def test_a_float_subclass_or_an_object_array_of_duals_is_refused_by_hand():
    notebook, grade_ids, check_name = BY_HAND["00 ex2"]
    reference = _reference(notebook, *grade_ids, np=np)
    check = getattr(checks_of(notebook), check_name)
    assert_refused(
        check, reference, "compute with plain numbers", slope=slope_by_a_float_of_its_own
    )
    answer = slope_by_dual_numbers_in_an_object_array
    assert_refused(check, reference, "compute with plain numbers", slope=answer)


# ----- 04 ex6: the nan's node read off the loss function, no backward pass ----------------------
def nan_origin_from_the_checks_globals(loss_fn, x):
    """No anomaly detection: the guards read off the loss function's globals (the checks
    module) and its closure, the bad value looked up in x."""
    cells = dict(zip(loss_fn.__code__.co_freevars, (c.cell_contents for c in loss_fn.__closure__)))
    guards, values = loss_fn.__globals__["GUARDS"], x.detach().numpy()
    k = cells["k"]
    for part, index in ((values[:k], cells["first"]), (values[k:] * 2.0, cells["second"])):
        if any(v == guards[index][2] or (guards[index][2] < 0 and v <= 0) for v in part):
            return guards[index][1]
    return None


def nan_origin_on_for_the_backward_only(loss_fn, x):
    """Honest, spelled otherwise: the loss computed first, detection on for backward alone."""
    loss = loss_fn(x)
    agk.autograd.set_detect_anomaly(True)
    try:
        loss.backward()
    except RuntimeError as error:
        return str(error).split("'")[1]
    finally:
        agk.autograd.set_detect_anomaly(False)
    return None


def test_04_nan_origin_read_off_the_loss_function_is_refused():
    reference = _reference("04_inplace_data_detach", "nb04_ex6_nan_origin")
    check = checks_of("04_inplace_data_detach").nan_found
    assert_refused(
        check, reference, "anomaly detection on", nan_origin=nan_origin_from_the_checks_globals
    )
    assert_passes(check, reference, nan_origin=nan_origin_on_for_the_backward_only)


# ----- 07 ex6: the standard library's topological sort (found closed) --------------------------
def order_by_graphlib(root):
    import graphlib

    graph, stack, met = {}, [root], set()
    while stack:
        value = stack.pop()
        if id(value) not in met:
            met.add(id(value))
            graph[value] = list(value.children)
            stack.extend(value.children)
    return list(graphlib.TopologicalSorter(graph).static_order())


def test_07_order_by_graphlib_is_refused():
    reference = _reference("07_capstone", "nb07_ex6_topological_order")
    check = checks_of("07_capstone").order_of_the_graph
    assert_refused(check, reference, "do it yourself", topological_order=order_by_graphlib)
