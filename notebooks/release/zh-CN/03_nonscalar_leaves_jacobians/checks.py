"""The checks of notebook 03: backward() on non-scalars, leaves and Jacobians.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import numpy as np

import autogradkit as agk
import autogradkit.autograd.engine  # every backward pass, backward() or grad(), runs here
from autogradkit.grading.checks import Checks, backward_passes

check = Checks(__file__)


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
def _where_y0_overflows(obs, x0: float, x1: float, v0: float) -> tuple[float, float, float]:
    """x1 near 5.3e102 and 1.5 <= |x0| <= 3: there y0 = x0·x1³ overflows float64 (inf, so
    every difference of y0 is inf or nan), while x1³ (about 1.5e308), 3·x0·x1² and v0·x1³
    (|v0| <= 1) do not."""
    x1 = float(np.sign(x1)) * round(float(obs.rng.uniform(5.0, 5.6)), 2) * 1e102
    return float(np.sign(x0)) * max(abs(x0), 1.5), x1, float(np.clip(v0, -1.0, 1.0))


@check.exercise("jacobian_by_hand", "vjp_by_hand")
def vjp_written_by_hand(obs, jacobian_by_hand, vjp_by_hand):
    """Exercise 3: the Jacobian and vᵀJ of y = (x0·x1³, x0 + 3·x1), by hand"""
    jacobian_hand, vjp_hand = obs.by_hand(jacobian_by_hand), obs.by_hand(vjp_by_hand)
    for draw in range(4):  # both run where autograd does not exist: by hand, by design
        sizes, signs = obs.rng.uniform(0.5, 3.0, size=2), obs.rng.choice([-1.0, 1.0], size=2)
        x0, x1 = (float(n) + 0.0 for n in (sizes * signs).round(2))  # x1³ curves: away from 0
        v0, v1 = (float(n) + 0.0 for n in obs.rng.uniform(-2.0, 2.0, size=2).round(1))
        if draw == 3:  # a difference quotient of y is exact on a cubic when extrapolated, but
            x0, x1, v0 = _where_y0_overflows(obs, x0, x1, v0)  # not where y0 overflows
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
# jacobian runs, with the trial around it, where the library's Jacobians (autograd.functional,
# gradcheck) were never imported (obs.without): they are not there to call, by any route, and
# what comes back is data
JACOBIANS = ("autogradkit.autograd.functional", "autogradkit.autograd.gradcheck")
FUNCTIONS = ("x ** 2", "A @ x", "x * x.sum()", "(x0 * x1 * x2, sin(x).sum(), x1 ** 2, x0 - x2)")


def _function(kind: int, matrix):
    """The function ``FUNCTIONS[kind]`` (``matrix``: A's numbers)."""
    a = agk.tensor(matrix)
    return (
        lambda t: t**2,
        lambda t: a @ t,
        lambda t: t * t.sum(),  # x used twice
        lambda t: agk.stack([t[0] * t[1] * t[2], t.sin().sum(), t[1] ** 2, t[0] - t[2]]),
    )[kind]


def _reaches(roots, tensor) -> bool:
    """Whether the graph a backward pass starts from ``roots`` reaches ``tensor``'s node."""
    seen, todo = set(), [node for node, _ in roots if node is not None]
    while todo:
        node = todo.pop()
        if node is tensor.grad_fn:
            return True
        if id(node) not in seen:
            seen.add(id(node))
            todo += [child for child, _ in node.next_functions if child is not None]
    return False


def _differentiating(jacobian):
    """A trial of ``jacobian``, called ``calls`` times on ``FUNCTIONS[kind]`` at ``values``
    (with its own ``grad``, a parameter's, unless None): what a caller sees, as plain data."""

    def run(kind, matrix, values, grad, calls):
        x = agk.tensor(values, requires_grad=grad is not None)
        x.grad = None if grad is None else agk.tensor(grad)
        f, outputs, passes = _function(kind, matrix), [], []
        engine, found = agk.autograd.engine, []
        original = engine.run_backward

        def recorded(t):
            outputs.append(f(t))
            return outputs[-1]

        def counted(roots, *args, **kwargs):  # which passes reach the function's outputs
            passes.append(["y"] if any(_reaches(roots, y) for y in outputs) else [])
            return original(roots, *args, **kwargs)

        engine.run_backward = counted
        try:
            found += [jacobian(recorded, x) for _ in range(calls)]
        finally:
            engine.run_backward = original
        return {
            "jacobians": [j.detach().numpy() if isinstance(j, agk.Tensor) else j for j in found],
            "passes": passes,
            "x": x.detach().numpy(),
            "requires_grad": x.requires_grad,
            "grad": None if x.grad is None else x.grad.numpy(),
        }

    return run


def _functions(obs):
    """(name, kind, A's numbers, number of inputs): diagonal, wide, an input used twice, and
    mixed."""
    n = int(obs.rng.integers(3, 6))
    m = n + int(obs.rng.integers(1, 3))
    matrix = obs.rng.normal(size=(m, n)).round(2)
    names = list(FUNCTIONS)
    names[1] = f"A @ x, A of shape ({m}, {n})"
    return [(name, kind, matrix, 3 if kind == 3 else n) for kind, name in enumerate(names)]


@check.exercise("jacobian")
def jacobian_rows(obs, jacobian):
    """Exercise 4: a Jacobian, one backward pass per row"""
    untouched = []
    trial = obs.without(jacobian, *JACOBIANS, around=_differentiating)  # no library Jacobian
    for name, kind, matrix, n in _functions(obs):
        before = obs.rng.normal(size=n).round(3)
        seen = obs.call(trial, kind, matrix, before, None, 1)
        obs.close(
            f"Jacobian of {name}",
            seen["jacobians"][0],
            hint="row i comes from a backward pass with the one-hot e_i; clear .grad between rows",
        )
        obs.equal(
            f"backward passes for {name}",
            seen["passes"],
            hint="one backward pass per output element, each with a one-hot gradient",
        )
        untouched.append(
            not seen["requires_grad"] and seen["grad"] is None and np.array_equal(seen["x"], before)
        )
    obs.require(
        "x is left as it was",
        all(untouched),
        hint="differentiate a fresh leaf copy of x, as step 1 says",
    )


