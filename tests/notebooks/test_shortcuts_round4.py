"""Round 4 of issue 29's principle: routes around the mechanism that rounds 1-3 left open.

Each attack below is a whole answer a student who wants the marks without the lesson could
hand in. Each was seen passing the check first (on the practice seed and on grading seeds,
judged as ``grade`` judges), then closed by a principle, never by a list of its names:

* **Exact arithmetic makes a difference quotient exact.** With ``fractions.Fraction`` (or
  ``decimal`` at 60 digits) a central difference at ``h = 1e-40`` is off by about ``h**2``:
  no tolerance tells it from the formula, and no overflow stops it. By hand, numbers are
  machine floats (``by_hand_child.py``), as they are real: no complex, no exact or decimal
  numbers.
* **Richardson extrapolation makes a polynomial's difference quotient exact in float64**:
  ``(4 D(h/2) - D(h)) / 3`` removes the ``h**2`` term, the only one a cubic has. 00's check
  draws an ``x`` where ``x**3`` overflows and ``3x**2 - 2`` does not, as 01 does.
* **A wrapper of the kit launders a call**: ``kit_calls`` counted a call into a package only
  when it came from outside the whole kit, so ``agk.no_grad()(optimizer.step)()`` (the
  wrapper, in ``grad_mode``, calls the step) hid the library's optimizer. It now counts
  every call into the watched package from outside that package.
"""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd import engine
from autogradkit.autograd.engine import Function
from autogradkit.grading import by_hand, guard

from .exercises import BY_HAND, RECORDS, assert_passes, assert_refused, checks_of, solution
from .test_exercises_07 import NOTEBOOK, AutogradkitValue


# ----- exact arithmetic: a central difference off by h**2 = 1e-80 ----------------------------
def exact(f, *args, at: int):
    """d f / d args[at] by a central difference in exact rational arithmetic."""
    from fractions import Fraction

    h = Fraction(1, 10**40)
    up = [Fraction(float(a)) for a in args]
    down = list(up)
    up[at], down[at] = up[at] + h, down[at] - h
    return float((f(*up) - f(*down)) / (2 * h))


def slope(x):  # 00 ex2: y = x³ - 2x
    return exact(lambda u: u**3 - 2 * u, x, at=0)


def slope_in_decimal(x):
    from decimal import Decimal, localcontext

    with localcontext() as context:
        context.prec = 60
        f, h = (lambda u: u**3 - 2 * u), Decimal("1e-25")
        return float((f(Decimal(x) + h) - f(Decimal(x) - h)) / (2 * h))


def slope_by_richardson(x):  # float64 only: the h² term of a cubic's quotient, removed
    f = lambda u: u**3 - 2 * u  # noqa: E731
    quotient = lambda h: (f(x + h) - f(x - h)) / (2 * h)  # noqa: E731
    return (4 * quotient(0.5) - quotient(1.0)) / 3


def backward_by_hand(w, x, y):  # 01 ex1: loss = (w·x - y)², its local gradients
    from fractions import Fraction

    w, x, y = (Fraction(float(v)) for v in (w, x, y))
    return (
        exact(lambda s: s * s, w * x - y, at=0),
        exact(lambda y_hat: y_hat - y, w * x, at=0),
        exact(lambda w: w * x, w, at=0),
        exact(lambda w: (w * x - y) ** 2, w, at=0),
    )


def fit_line(x, y, lr, epochs):  # 01 ex2: both gradients of the mean squared error
    from fractions import Fraction

    xs, ys = [Fraction(float(v)) for v in x], [Fraction(float(v)) for v in y]
    loss = lambda w, b: sum((w * a + b - t) ** 2 for a, t in zip(xs, ys)) / len(xs)  # noqa: E731
    w = b = 0.0
    for _ in range(epochs):
        dw, db = exact(loss, w, b, at=0), exact(loss, w, b, at=1)
        w, b = w - lr * dw, b - lr * db
    return w, b


def gradient_fixed(x, y, y_hat):  # 01 ex3: the gradient of the mean, from the model's w
    from fractions import Fraction

    xs, ys = [Fraction(float(v)) for v in x], [Fraction(float(v)) for v in y]
    w = float(y_hat[0]) / float(x[0]) ** 2
    return exact(lambda w: sum((w * a * a - t) ** 2 for a, t in zip(xs, ys)) / len(xs), w, at=0)


def jacobian_by_hand(x0, x1):  # 03 ex3: y = (x0·x1³, x0 + 3·x1)
    rows = (lambda x0, x1: x0 * x1**3, lambda x0, x1: x0 + 3 * x1)
    return [[exact(y, x0, x1, at=0), exact(y, x0, x1, at=1)] for y in rows]


def vjp_by_hand(x0, x1, v0, v1):
    jacobian = jacobian_by_hand(x0, x1)
    return [v0 * jacobian[0][j] + v1 * jacobian[1][j] for j in range(2)]


def add_mul_grads(a, b, d):  # 05 ex4: e = (a + b) * d, even where e overflows
    return tuple(exact(lambda a, b, d: (a + b) * d, a, b, d, at=i) for i in range(3))


def linear_by_hand(x, w, b):  # 06 ex4: (w · x + b) / 4
    from fractions import Fraction

    xs = [Fraction(float(v)) for v in x]
    out = lambda *wb: (sum(wi * xi for wi, xi in zip(wb, xs)) + wb[-1]) / 4  # noqa: E731
    args = [*map(float, w), float(b)]
    grads = [exact(out, *args, at=i) for i in range(len(args))]
    return (np.dot(w, x) + b) / 4, np.array(grads[:-1]), grads[-1]


EXACT = {  # the attack's answers (BY_HAND: where each exercise is)
    "00 ex2": {"slope": slope},
    "01 ex1": {"backward_by_hand": backward_by_hand},
    "01 ex2": {"fit_line": fit_line},
    "01 ex3": {"gradient_fixed": gradient_fixed},
    "03 ex3": {"jacobian_by_hand": jacobian_by_hand, "vjp_by_hand": vjp_by_hand},
    "05 ex4": {"add_mul_grads": add_mul_grads},
    "06 ex4": {"linear_by_hand": linear_by_hand},
}


def _reference(notebook: str, grade_ids: list[str]) -> dict:
    found = {}
    for grade_id in grade_ids:
        found.update(solution(notebook, grade_id, np=np))
    return found


def test_each_exact_attack_is_the_derivative_where_it_may_run():
    assert slope(2.0) == slope_in_decimal(2.0) == slope_by_richardson(2.0) == 10.0
    assert backward_by_hand(1.5, 2.0, 4.0) == (-2.0, 1.0, 2.0, -4.0)
    assert add_mul_grads(1e160, 2e160, 3.0) == (3.0, 3.0, 3e160)  # (a + b) * d overflows
    assert jacobian_by_hand(2.0, -1.5) == [[-3.375, 13.5], [1.0, 3.0]]


@pytest.mark.parametrize("exercise", list(EXACT))
def test_an_exact_difference_quotient_is_refused_by_hand(exercise):
    (notebook, grade_ids, check_name), attack = BY_HAND[exercise], EXACT[exercise]
    check = getattr(checks_of(notebook), check_name)
    assert_refused(check, _reference(notebook, grade_ids), "do it yourself", **attack)


def test_00_decimal_and_richardson_are_refused():
    check, reference = checks_of("00_start_here").slope_by_hand, _reference(*BY_HAND["00 ex2"][:2])
    assert_refused(check, reference, "do it yourself", slope=slope_in_decimal)
    assert_refused(check, reference, "", slope=slope_by_richardson)


def slope_in_numpy(x):  # another honest style: NumPy's power, on an array or a number
    return 3.0 * np.power(x, 2) - 2.0


def test_00_honest_styles_pass_near_the_overflow():
    check, reference = checks_of("00_start_here").slope_by_hand, _reference(*BY_HAND["00 ex2"][:2])
    assert_passes(check, reference, slope=slope_in_numpy)
    assert_passes(check, reference, slope=lambda x: 3 * x * x - 2)


# ----- a call laundered through a wrapper of the kit -------------------------------------------
KEPT_SGD = agk.optim.SGD  # kept before the check, as a notebook cell may


def step_through_a_kit_wrapper(w, lr):  # 04 ex4: the library's SGD, called by grad_mode
    optimizer = agk.no_grad()(KEPT_SGD)([w], lr=lr)
    agk.no_grad()(optimizer.step)()
    w.grad = None


def test_04_an_optimizer_called_through_a_kit_wrapper_is_refused():
    notebook = "04_inplace_data_detach"
    checks, reference = checks_of(notebook), _reference(notebook, ["nb04_ex4_sgd_step"])
    shortcut = step_through_a_kit_wrapper
    assert_refused(
        checks.step_in_place, reference, "without the library function", sgd_step=shortcut
    )
    assert_refused(checks.steps_train, reference, "", sgd_step=shortcut)


# ----- the check machinery, changed by student code before or while a check runs -------------
# In a grading kernel the grader runs guard.reset() before each test cell; a submission's cells
# run before it. What the kernel sends is judged outside, but a by-hand value computed by
# autograd in the kernel, or a kit_calls list that saw nothing, is data that looks right.
def slope_by_autograd(x):
    t = agk.tensor(x, dtype=agk.float64, requires_grad=True)
    (t**3 - 2 * t).backward()
    return t.grad.item()


def _shell() -> SimpleNamespace:
    """What guard.install reads of IPython's shell, without a kernel."""
    return SimpleNamespace(
        events=SimpleNamespace(callbacks={}),
        input_transformers_cleanup=[],
        input_transformers_post=[],
        ast_transformers=[],
        custom_exceptions=(),
        CustomTB=None,
        user_ns={},
    )


@pytest.fixture
def restored():
    """Put back by hand what each test changes as a submission would, whatever happens."""
    kept = (by_hand.ByHand.__call__, sys.setprofile, list(by_hand._spare))
    yield
    by_hand.ByHand.__call__, sys.setprofile = kept[:2]
    by_hand._spare[:] = kept[2]


def test_a_by_hand_interpreter_skipped_in_an_earlier_cell_is_put_back(restored):
    check, reference = checks_of("00_start_here").slope_by_hand, _reference(*BY_HAND["00 ex2"][:2])
    guard.install(_shell())
    by_hand.ByHand.__call__ = lambda self, *args, **kwargs: self.answer(*args, **kwargs)
    report = guard.reset()  # the grader, before the test cell
    assert ["member", "autogradkit.grading.by_hand.ByHand.__call__"] in report
    assert_refused(check, reference, "do it yourself", slope=slope_by_autograd)


# a "by-hand interpreter" of the student's own: it runs the answer where the kit is
SERVER = """
import base64, json, marshal, sys, types
import autogradkit as agk
bundle = json.loads(sys.stdin.readline())
key = bundle["answer"]["function"]
code = marshal.loads(base64.b64decode(bundle["functions"][key]["code"]))
answer = types.FunctionType(code, {"agk": agk})
for line in sys.stdin:
    call = json.loads(line)
    print(json.dumps({"value": answer(*call["args"])}), flush=True)
"""


def test_an_interpreter_planted_as_the_spare_is_never_used(restored):
    check, reference = checks_of("00_start_here").slope_by_hand, _reference(*BY_HAND["00 ex2"][:2])
    guard.install(_shell())
    for _ in range(2):  # each check takes the spare, then starts the next one
        planted = subprocess.Popen(
            [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        by_hand._spare[:] = [planted]
        guard.reset()  # the grader, before the test cell
        assert_refused(check, reference, "do it yourself", slope=slope_by_autograd)
        RECORDS.clear()


def test_a_profiler_switched_off_in_an_earlier_cell_is_put_back(restored):
    notebook = "04_inplace_data_detach"
    checks, reference = checks_of(notebook), _reference(notebook, ["nb04_ex4_sgd_step"])
    guard.install(_shell())
    sys.setprofile = lambda profile: None
    report = guard.reset()  # the grader, before the test cell
    assert ["member", "sys.setprofile"] in report
    shortcut = step_with_a_kept_optimizer
    assert_refused(
        checks.step_in_place, reference, "without the library function", sgd_step=shortcut
    )


def step_with_a_kept_optimizer(w, lr):
    KEPT_SGD([w], lr=lr).step()
    w.grad = None


class Sneaky:
    """A value in the answer's globals: the by-hand bundle asks its class, which runs this."""

    @property
    def __class__(self):
        by_hand.ByHand.__call__ = lambda self, *args, **kwargs: self.answer(*args, **kwargs)
        return int


SNEAKY = None  # a Sneaky while the test runs (pytest's collection would ask its class too)


def slope_with_a_sneaky_global(x):
    assert SNEAKY is not None  # named, so the bundle looks at it
    return slope_by_autograd(x)


def test_the_by_hand_bundle_runs_no_student_code_in_the_kernel(restored, monkeypatch):
    check, reference = checks_of("00_start_here").slope_by_hand, _reference(*BY_HAND["00 ex2"][:2])
    monkeypatch.setitem(globals(), "SNEAKY", Sneaky())
    call = by_hand.ByHand.__call__
    assert_refused(check, reference, "", slope=slope_with_a_sneaky_global)
    assert by_hand.ByHand.__call__ is call


HONEST = {  # checks that patch and restore the kit as they run: counters, hooks, profilers
    "00_start_here": (["nb00_ex2_by_hand"], ["slope_by_hand"]),
    "03_nonscalar_leaves_jacobians": (["nb03_ex4_jacobian"], ["jacobian_rows"]),
    "04_inplace_data_detach": (["nb04_ex4_sgd_step"], ["step_in_place"]),
    "06_hooks": (["nb06_ex2_capture"], ["captured_grads"]),
}


def test_honest_checks_leave_the_machinery_as_the_guard_saw_it():
    guard.install(_shell())
    for notebook, (grade_ids, names) in HONEST.items():
        for name in names:
            assert_passes(getattr(checks_of(notebook), name), _reference(notebook, grade_ids))
    assert guard.reset() == []


# ----- 07 ex7: an engine that puts back what the check refused, and lets autogradkit work -----
KEPT_APPLY, KEPT_RUN = Function.__dict__["apply"], engine.run_backward  # kept at import


def _put_back() -> None:
    """The names the check swaps for refusals (07's checks.py is released: it can be read)."""
    Function.apply, engine.run_backward = KEPT_APPLY, KEPT_RUN


class AutogradkitInside(AutogradkitValue):
    """07 ex7's Value with autogradkit's tensors inside (float64) and its engine for backward,
    putting back what the check swapped at every step."""

    def __init__(self, data):
        _put_back()
        if isinstance(data, agk.Tensor):
            self.tensor = data
            self.tensor.retain_grad()
        else:
            self.tensor = agk.tensor(float(data), dtype=agk.float64, requires_grad=True)
        self.children = ()

    def _join(self, other, op):
        _put_back()
        return super()._join(other, op)

    def tanh(self):
        return self._join(0.0, lambda a, b: a.tanh())

    def relu(self):
        return self._join(0.0, lambda a, b: a.relu())

    def backward(self):
        _put_back()
        super().backward()


def test_07_an_engine_that_puts_back_what_the_check_refused_is_refused():
    notebook = "07_capstone"
    reference = _capstone()
    checks = checks_of(notebook)
    for check in (checks.engine_against_autogradkit, checks.engine_accumulates):
        assert_refused(check, reference, "", Value=AutogradkitInside)  # by hand: no kit there
        assert_passes(check, reference)


def _capstone() -> dict:
    found = solution("07_capstone", "nb07_ex6_topological_order", **NOTEBOOK)
    order = found["topological_order"]
    return solution("07_capstone", "nb07_ex7_value", **NOTEBOOK, topological_order=order)
