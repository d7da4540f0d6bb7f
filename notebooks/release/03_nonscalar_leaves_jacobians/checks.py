"""The checks of notebook 03: backward() on non-scalars, leaves and Jacobians.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import importlib
from contextlib import contextmanager

import numpy as np

import autogradkit as agk
import autogradkit.autograd.engine
import autogradkit.autograd.functional
from autogradkit.grading.checks import Checks, backward_passes, kit_calls, refuse_library

check = Checks(__file__)
engine = autogradkit.autograd.engine  # every backward pass, backward() or grad(), runs here
functional = autogradkit.autograd.functional
gradcheck = importlib.import_module("autogradkit.autograd.gradcheck")  # the module
# the library's Jacobians, whatever route reaches them (its names put back, a kept reference):
# what ran of these modules is observed
JACOBIANS = ("autogradkit.autograd.functional", "autogradkit.autograd.gradcheck")


@check.exercise("predicted_x_grad", "predicted_y_grad")
def weighted_prediction(obs, predicted_x_grad, predicted_y_grad):
    """Exercise 1: x.grad and y.grad for the weights [[0., 1.]]"""
    obs.predicted("x.grad", predicted_x_grad, hint="only z[0, 1] counts: what multiplies x in it?")
    obs.predicted("y.grad", predicted_y_grad, hint="which column of y feeds z[0, 1]?")


def _recording(fn, made: list):
    """``fn``, keeping each result in ``made``: the tensors whose graph the answer must run."""

    def recorded(*args):
        made.append(fn(*args))
        return made[-1]

    return recorded


# ----- exercise 2: integer quantities ------------------------------------------------------
def _basket(obs, shape):
    """Prices in euros (float32) and whole quantities (int64), as a shop stores them."""
    prices = agk.tensor(obs.rng.uniform(0.5, 9.5, size=shape).round(2).astype(np.float32))
    return prices, agk.tensor(obs.rng.integers(0, 10, size=shape))


def _observe_gradient(obs, quantity_grad, name, total_fn, quantities):
    """The gradient the answer returns for one total, how many backward passes it ran, and
    whether the caller's quantities are still the same whole numbers."""
    amounts, totals = quantities.numpy().copy(), []
    with backward_passes(total=totals) as passes:  # which passes reach the total's graph
        grad = obs.call(quantity_grad, _recording(total_fn, totals), quantities)
    obs.close(
        f"the gradient of {name}",
        grad,
        atol=1e-4,
        hint="d total / d quantity_i: one number per item, from autograd",
    )
    obs.equal(
        f"backward passes for {name}",
        passes,
        hint="let autograd find the gradient: one backward() on the total",
    )
    obs.require(
        f"quantities still the same integers after {name}",
        quantities.dtype == agk.int64
        and not quantities.requires_grad
        and np.array_equal(quantities.numpy(), amounts),
        hint="make a floating-point copy that requires grad; leave the caller's tensor alone",
    )


@check.exercise("quantity_grad")
def integer_quantities(obs, quantity_grad):
    """Exercise 2: the gradient with respect to integer quantities"""
    size = int(obs.rng.integers(3, 7))
    prices, quantities = _basket(obs, size)
    rate = round(float(obs.rng.uniform(0.01, 0.05)), 3)
    totals = {
        "sum(prices * q)": lambda q: (prices * q).sum(),
        f"sum(prices * q * (1 - {rate:g} * q)), a bulk discount": lambda q: (
            prices * q * (1 - rate * q)
        ).sum(),
    }
    for name, total_fn in totals.items():
        _observe_gradient(obs, quantity_grad, name, total_fn, quantities)


# ----- exercise 3: a vector-Jacobian product by hand -----------------------------------------
@check.exercise("jacobian_by_hand", "vjp_by_hand")
def vjp_written_by_hand(obs, jacobian_by_hand, vjp_by_hand):
    """Exercise 3: the Jacobian and vᵀJ of y = (x0·x1³, x0 + 3·x1), by hand"""
    jacobian_hand, vjp_hand = obs.by_hand(jacobian_by_hand), obs.by_hand(vjp_by_hand)
    for _ in range(3):  # both run where autograd does not exist: by hand, by design
        sizes, signs = obs.rng.uniform(0.5, 3.0, size=2), obs.rng.choice([-1.0, 1.0], size=2)
        x0, x1 = (float(n) + 0.0 for n in (sizes * signs).round(2))  # x1³ curves: away from 0
        v0, v1 = (float(n) + 0.0 for n in obs.rng.uniform(-2.0, 2.0, size=2).round(1))
        jac = obs.call(jacobian_hand, x0, x1)
        product = obs.call(vjp_hand, x0, x1, v0, v1)
        exact = {"atol": 1e-12, "rtol": 1e-12}  # a difference quotient is off by far more
        obs.close(
            f"J at x = ({x0:g}, {x1:g})",
            jac,
            hint="row i holds the derivatives of y_i, with respect to x0 and then x1",
            **exact,
        )
        obs.close(
            f"vᵀJ at x = ({x0:g}, {x1:g}), v = ({v0:g}, {v1:g})",
            product,
            hint="entry j sums v_i · J[i][j] over the rows i (the formula of section 9)",
            **exact,
        )


# ----- exercise 4: a Jacobian from backward passes -------------------------------------------
@contextmanager
def _library_jacobians_refused():
    """The library's Jacobians, vector-Jacobian products and their helpers raise: all of
    ``autograd.functional`` goes through ``_grad``, gradcheck's Jacobians through its own.
    That is feedback (code can put the names back): ``kit_calls(package=JACOBIANS)`` observes."""
    with (
        refuse_library(
            functional,
            "_grad",
            "jacobian",
            "_jacobian_of",
            "hessian",
            "vjp",
            "jvp",
            "hvp",
            exercise="the Jacobian",
        ),
        refuse_library(gradcheck, "_grad", "_numerical", "_analytical", exercise="the Jacobian"),
    ):
        yield


def _observe_library_calls(obs, calls: list, hint: str = "") -> None:
    obs.holds("jacobian uses no Jacobian of the library", calls, "empty", hint=hint)


def _functions(obs):
    """(name, f, number of inputs): diagonal, wide, an input used twice, and mixed."""
    n = int(obs.rng.integers(3, 6))
    m = n + int(obs.rng.integers(1, 3))
    matrix = agk.tensor(obs.rng.normal(size=(m, n)).round(2))
    return [
        ("x ** 2", lambda t: t**2, n),
        (f"A @ x, A of shape ({m}, {n})", lambda t: matrix @ t, n),
        ("x * x.sum()", lambda t: t * t.sum(), n),  # x used twice
        (
            "(x0 * x1 * x2, sin(x).sum(), x1 ** 2, x0 - x2)",
            lambda t: agk.stack([t[0] * t[1] * t[2], t.sin().sum(), t[1] ** 2, t[0] - t[2]]),
            3,
        ),
    ]


@check.exercise("jacobian")
def jacobian_rows(obs, jacobian):
    """Exercise 4: a Jacobian, one backward pass per row"""
    untouched, library = [], []
    for name, f, n in _functions(obs):
        x = agk.tensor(obs.rng.normal(size=n).round(3))
        before, outputs = x.numpy().copy(), []
        with (
            _library_jacobians_refused(),
            kit_calls(package=JACOBIANS) as calls,
            backward_passes(y=outputs) as passes,
        ):
            result = obs.call(jacobian, _recording(f, outputs), x)
        library += calls
        obs.close(
            f"Jacobian of {name}",
            result,
            hint="row i comes from a backward pass with the one-hot e_i; clear .grad between rows",
        )
        obs.equal(
            f"backward passes for {name}",
            passes,
            hint="one backward pass per output element, each with a one-hot gradient",
        )
        untouched.append(
            not x.requires_grad and x.grad is None and np.array_equal(x.detach().numpy(), before)
        )
    _observe_library_calls(
        obs,
        library,
        hint="one backward pass per row, with backward() or autograd.grad: nothing of "
        "autograd.functional or gradcheck",
    )
    obs.require(
        "x is left as it was",
        all(untouched),
        hint="differentiate a fresh leaf copy of x, as step 1 says",
    )


