"""Round 5 of issue 29's principle: routes around the mechanism that rounds 1-4 left open.

Each attack below is a whole answer (or a cell before it) that a student who wants the marks
without the lesson could hand in. Each was seen passing first, judged as ``grade`` judges, then
closed by a principle, never by a list of its names:

* **NumPy differentiates a polynomial**: ``np.polyder`` and ``Polynomial.deriv`` give 00's
  slope by hand in one line. By hand, NumPy is arithmetic on arrays: its polynomial modules
  are not in the by-hand interpreter.
* **The machinery changed in place**: ``Observer.by_hand.__code__ = ...`` keeps the function
  object, so the guard's identity comparison saw nothing; so did a check's ``fn`` replaced on
  its object. The guard keeps each function's code, defaults and closure, and the notebook's
  checks modules and their checks, as it keeps names.
* **A name that runs code**: a ``str`` subclass as the answer's ``__qualname__`` ran the
  student's ``__format__`` in the kernel while the answer was bundled (after the guard), which
  put the answer back in the kernel. The bundle reads only exact ``str``. A ``str`` subclass
  as a *key* among the notebook's names (or the answer's globals) runs its ``__eq__`` at any
  lookup of a name with its hash: the guard takes such keys out of every namespace it
  watches, the bundle ignores globals that hold one.
* **Recursion the call graph does not see, under a limit kept from an earlier cell**: a
  method that calls itself through ``self`` and ``from sys import setrecursionlimit`` at the
  top of the notebook. The limit now holds while the answer runs, by any route.
* **The library's Jacobian, with the names the check refused put back** (03 ex4) and
  **``nn.init.constant_``** for 04 ex1, which asks for what it does: what ran is observed.
"""

from __future__ import annotations

import contextlib
import sys
from sys import setrecursionlimit  # kept before the check, as a notebook's first cell may

import numpy as np
import pytest

import autogradkit as agk
import autogradkit.autograd.functional as functional
from autogradkit.grading import by_hand, checks, guard

from .exercises import BY_HAND, RECORDS, assert_passes, assert_refused, checks_of, solution
from .test_exercises_07 import NOTEBOOK
from .test_exercises_07 import value_class as capstone_value_class
from .test_shortcuts_round4 import _shell, slope_by_autograd


def _reference(notebook: str, *grade_ids: str, **namespace) -> dict:
    found = {}
    for grade_id in grade_ids:
        found.update(solution(notebook, grade_id, **namespace))
    return found


def _slope_check():
    notebook, grade_ids, name = BY_HAND["00 ex2"]
    return getattr(checks_of(notebook), name), _reference(notebook, *grade_ids)


# ----- NumPy's polynomial calculus, by hand ---------------------------------------------------
def slope_by_polyder(x):  # 00 ex2: y = x³ - 2x, differentiated by NumPy
    return float(np.polyval(np.polyder([1.0, 0.0, -2.0, 0.0]), x))


def slope_by_a_polynomial(x):
    return float(np.polynomial.Polynomial([0.0, -2.0, 0.0, 1.0]).deriv()(x))


def slope_by_an_imported_polynomial(x):
    from numpy.polynomial import polynomial

    return float(polynomial.polyval(x, polynomial.polyder([0.0, -2.0, 0.0, 1.0])))


@pytest.mark.parametrize(
    "shortcut", [slope_by_polyder, slope_by_a_polynomial, slope_by_an_imported_polynomial]
)
def test_00_numpys_polynomial_calculus_is_refused_by_hand(shortcut):
    check, reference = _slope_check()
    assert_refused(check, reference, "do it yourself", slope=shortcut)


# ----- the machinery, changed in place ----------------------------------------------------------
def answer_in_the_kernel(self, answer, *, recursion_limit=None):
    return answer  # obs.call then runs it where autograd is


@pytest.fixture
def restored():
    """Put back by hand what a test changes as a submission would, whatever happens."""
    by_hand_fn = checks.Observer.by_hand
    kept = (by_hand_fn.__code__, by_hand_fn.__defaults__, by_hand_fn.__kwdefaults__)
    call = by_hand.ByHand.__call__
    yield
    by_hand_fn.__code__, by_hand_fn.__defaults__, by_hand_fn.__kwdefaults__ = kept
    by_hand.ByHand.__call__ = call


def test_a_machinery_function_changed_in_place_is_put_back(restored):
    check, reference = _slope_check()
    guard.install(_shell())
    checks.Observer.by_hand.__code__ = answer_in_the_kernel.__code__
    report = guard.reset()  # the grader, before the test cell
    assert ["member", "autogradkit.grading.checks.Observer.by_hand.__code__"] in report
    assert_refused(check, reference, "do it yourself", slope=slope_by_autograd)


KEPT_SGD = agk.optim.SGD  # kept before the check, as a notebook cell may


def step_with_a_kept_optimizer(w, lr):  # 04 ex4
    KEPT_SGD([w], lr=lr).step()
    w.grad = None


@contextlib.contextmanager
def nothing_seen(*allowed, package="autogradkit"):
    yield []


KEPT_ENTER = contextlib._GeneratorContextManager.__enter__


def _enter_without_kit_calls(self):
    if self.gen.gi_code.co_name != "kit_calls":
        return KEPT_ENTER(self)
    self.gen.close()  # kit_calls' generator never runs: no profiler, an empty list
    return []


@pytest.mark.parametrize("where", ["closure", "contextlib"])
def test_a_watcher_emptied_in_place_is_put_back(where, monkeypatch):
    notebook = "04_inplace_data_detach"
    check = checks_of(notebook).step_in_place
    reference = _reference(notebook, "nb04_ex4_sgd_step")
    if where == "closure":  # the generator kit_calls' wrapper holds, in its closure cell
        cell, kept = checks.kit_calls.__closure__[0], checks.kit_calls.__closure__[0].cell_contents
        guard.install(_shell())
        cell.cell_contents = nothing_seen.__wrapped__
        expected = "autogradkit.grading.checks.kit_calls.__closure__"
    else:  # the class every @contextmanager's block runs through
        kept = KEPT_ENTER
        guard.install(_shell())
        contextlib._GeneratorContextManager.__enter__ = _enter_without_kit_calls
        expected = "contextlib._GeneratorContextManager.__enter__"
    try:
        report = guard.reset()  # the grader, before the test cell
        assert ["member", expected] in report
        shortcut = step_with_a_kept_optimizer
        assert_refused(check, reference, "without the library function", sgd_step=shortcut)
    finally:
        if where == "closure":
            cell.cell_contents = kept
        else:
            contextlib._GeneratorContextManager.__enter__ = kept


def test_a_check_changed_on_its_object_is_put_back(restored, monkeypatch):
    check, reference = _slope_check()
    module = check.owner and sys.modules.get(check.fn.__module__)
    monkeypatch.setitem(sys.modules, "checks", module or checks_of(BY_HAND["00 ex2"][0]))
    guard.install(_shell(), {"checks": "checks"})  # the notebook's `import checks`
    fn = check.fn

    def by_hand_in_the_kernel(obs, slope):
        obs.by_hand = lambda answer, **how: answer  # on this check's own observer
        return fn(obs, slope)

    check.fn = by_hand_in_the_kernel
    try:
        report = guard.reset()  # the grader, before the test cell
        assert any(kind == "member" and name.endswith(".fn") for kind, name in report), report
        assert_refused(check, reference, "do it yourself", slope=slope_by_autograd)
    finally:
        check.fn = fn


# ----- a name that runs code while the answer is bundled ------------------------------------
class Name(str):
    """A function's name that, when formatted, puts the answer back in the kernel."""

    def __format__(self, spec):
        by_hand.ByHand.__call__ = lambda self, *args, **kwargs: self.answer(*args, **kwargs)
        return str.__format__(str(self), spec)

    def __eq__(self, other):
        self.__format__("")
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def slope_with_a_name_that_runs(x):
    return slope_by_autograd(x)


slope_with_a_name_that_runs.__qualname__ = Name("slope_with_a_name_that_runs")


class Helper:
    @staticmethod
    def slope(x):
        return slope_by_autograd(x)


Helper.__qualname__ = Name("Helper")


def slope_with_a_helper_class(x):
    return Helper.slope(x)


@pytest.mark.parametrize("shortcut", [slope_with_a_name_that_runs, slope_with_a_helper_class])
def test_the_by_hand_bundle_runs_no_name_of_the_students(shortcut, restored):
    check, reference = _slope_check()
    call = by_hand.ByHand.__call__
    assert_refused(check, reference, "", slope=shortcut)
    assert by_hand.ByHand.__call__ is call


class Key(str):
    """A key among a namespace's names with the hash of ``name``: a lookup of ``name`` that meets
    it runs ``__eq__``, which puts the answer back in the kernel."""

    def __eq__(self, other):
        by_hand.ByHand.__call__ = lambda self, *args, **kwargs: self.answer(*args, **kwargs)
        return False

    __hash__ = str.__hash__


def test_a_key_that_runs_code_at_a_lookup_is_taken_out_by_the_guard(restored):
    check, reference = _slope_check()
    shell, call = _shell(), by_hand.ByHand.__call__
    shell.user_ns.update(__builtins__=__builtins__)
    shell.user_ns[Key("slope_by_hand")] = None  # first where a lookup of the name probes
    shell.user_ns["slope_by_hand"] = check  # (this insertion met the key too)
    by_hand.ByHand.__call__ = call
    guard.install(shell)
    report = guard.reset()  # the grader, before the test cell
    assert ["key", "__main__"] in report
    exec("slope_by_hand", shell.user_ns)  # the test cell's lookup of the check
    assert_refused(check, reference, "", slope=slope_by_autograd)


def test_a_key_among_the_answers_globals_runs_nothing_while_bundling(restored):
    check, reference = _slope_check()
    call = by_hand.ByHand.__call__
    scope = {"__builtins__": __builtins__, Key("agk"): None, "agk": agk}
    by_hand.ByHand.__call__ = call  # making the dict met the key already
    shortcut = type(slope_by_autograd)(slope_by_autograd.__code__, scope, "slope")
    assert_refused(check, reference, "", slope=shortcut)
    assert by_hand.ByHand.__call__ is call


# ----- recursion the call graph does not see, under a limit kept from an earlier cell -------
class Walker:
    """A recursive walk as a method: no function of the answer's calls itself by name."""

    def __init__(self, children):
        self.children, self.seen, self.order = children, set(), []

    def visit(self, node):
        if node is None or id(node) in self.seen:
            return
        self.seen.add(id(node))
        for child in self.children(node):
            self.visit(child)
        self.order.append(node)


def find_leaves_by_a_method(t):  # 05 ex2
    setrecursionlimit(100_000)
    walker = Walker(lambda node: [child for child, _ in node.next_functions])
    walker.visit(t.grad_fn)
    return [node.variable for node in walker.order if hasattr(node, "variable")]


def order_by_a_method(root):  # 07 ex6
    setrecursionlimit(100_000)
    walker = Walker(lambda value: value.children)
    walker.visit(root)
    return walker.order


def backward_by_a_method(self):  # 07 ex7
    self.grad = 1.0
    for value in reversed(order_by_a_method(self)):
        for child, local_grad in zip(value.children, value.local_grads):
            child.grad += local_grad * value.grad


def test_05_a_method_that_recurses_under_a_kept_limit_is_refused():
    notebook = "05_inside_grad_fn"
    check = checks_of(notebook).leaves_found
    reference = _reference(notebook, "nb05_ex2_find_leaves")
    assert_refused(check, reference, "", find_leaves=find_leaves_by_a_method)
    assert sys.getrecursionlimit() < 100_000


def test_07_a_method_that_recurses_under_a_kept_limit_is_refused():
    notebook = "07_capstone"
    capstone = checks_of(notebook)
    reference = _reference(notebook, "nb07_ex6_topological_order", **NOTEBOOK)
    assert_refused(capstone.order_of_the_graph, reference, "", topological_order=order_by_a_method)
    order = reference["topological_order"]
    answers = {**reference, "edition": "en"}
    answers.update(solution(notebook, "nb07_ex7_value", **NOTEBOOK, topological_order=order))
    value = capstone_value_class(answers, backward=backward_by_a_method)
    assert_refused(capstone.engine_against_autogradkit, answers, "", Value=value)


# ----- the library's Jacobian, the refused names put back; nn.init for 04 ex1 ---------------
KEPT_JACOBIAN = {name: getattr(functional, name) for name in ("_grad", "jacobian", "_jacobian_of")}


def jacobian_put_back(f, x):  # 03 ex4: checks.py is released, what it refuses can be read
    for name, kept in KEPT_JACOBIAN.items():
        setattr(functional, name, kept)
    return functional.jacobian(f, x.detach().clone())


def test_03_the_librarys_jacobian_put_back_is_refused():
    notebook = "03_nonscalar_leaves_jacobians"
    jacobians = checks_of(notebook)
    reference = _reference(notebook, "nb03_ex4_jacobian")
    for check in (jacobians.jacobian_rows, jacobians.jacobian_of_a_parameter):
        assert_refused(check, reference, "", jacobian=jacobian_put_back)
        RECORDS.clear()
        assert_passes(check, reference)


def init_by_the_library(w, value):  # 04 ex1 asks for what nn.init.constant_ does
    return agk.nn.init.constant_(w, value)


def test_04_the_library_init_is_refused():
    notebook = "04_inplace_data_detach"
    check = checks_of(notebook).init_in_place
    reference = _reference(notebook, "nb04_ex1_init_weights")
    assert_refused(check, reference, "", init_weights=init_by_the_library)
    assert_passes(check, reference)
