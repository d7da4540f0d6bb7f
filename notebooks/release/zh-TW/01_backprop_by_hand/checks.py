"""The checks of notebook 01: backpropagation by hand, one weight, NumPy only.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import numpy as np

from autogradkit.grading.checks import Checks

check = Checks(__file__)


def _one_decimal(obs, low: float, high: float) -> float:
    """A number a student can also use on paper: one decimal, never 0."""
    value = 0.0
    while value == 0.0:
        value = round(float(obs.rng.uniform(low, high)), 1)
    return value


def _is_number(value) -> bool:
    return np.ndim(value) == 0 and np.issubdtype(np.asarray(value).dtype, np.number)


def _huge(obs) -> float:
    """A number near 1e160, of either sign: its square overflows float64 (``inf``), twice it
    times an ordinary number does not. A difference quotient of a loss there is ``nan``."""
    return float(obs.rng.choice([-1.0, 1.0])) * _one_decimal(obs, 1.0, 9.0) * 1e160


def _line(obs, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positive inputs and noisy targets on a fresh line ``y = slope * x + intercept``."""
    x = obs.rng.uniform(0.5, 2.5, size=n)
    y = obs.rng.uniform(-2, 3) * x + obs.rng.uniform(-2, 2) + obs.rng.normal(0, 0.1, size=n)
    return x.astype(np.float32), y.astype(np.float32)


@check.exercise("backward_by_hand")
def chain_rule(obs, backward_by_hand):
    """Exercise 1: the chain rule by hand"""
    names = ("dloss/ds", "ds/dy_hat", "dy_hat/dw", "dloss/dw")
    hints = (
        "work out s = y_hat - y first; how does s**2 change with s?",
        "how much does s grow when y_hat grows by 1?",
        "y_hat = w * x: which number multiplies w?",
        "chain the three local gradients as in section 6",
    )
    hand = obs.by_hand(backward_by_hand)  # runs where autograd does not exist
    for huge in (False, False, True):  # near 1e160, s**2 overflows; no local gradient does
        w, x, y = (_one_decimal(obs, -3, 3), _one_decimal(obs, -3, 3), _one_decimal(obs, -5, 5))
        y = _huge(obs) if huge else y
        found = obs.call(hand, w, x, y)
        at = f"at w = {w:g}, x = {x:g}, y = {y:g}"
        obs.require(
            f"backward_by_hand({w:g}, {x:g}, {y:g}) returns four numbers",
            isinstance(found, (tuple, list)) and len(found) == 4 and all(map(_is_number, found)),
            hint="return dloss_ds, ds_dyhat, dyhat_dw, dloss_dw",
        )
        for name, value, hint in zip(names, found, hints):  # exact: no difference quotient
            obs.close(f"{name} {at}", float(value), hint=hint, atol=1e-9, rtol=1e-9)


@check.exercise("fit_line")
def line_with_bias(obs, fit_line):
    """Exercise 2: a model with a bias"""
    x, y = _line(obs, int(obs.rng.integers(3, 9)))
    lr = round(float(obs.rng.uniform(0.02, 0.08)), 3)
    hand = obs.by_hand(fit_line)  # the gradients by hand: autograd does not exist there
    huge = float(obs.rng.choice([-1.0, 1.0])) * 1e160  # the loss overflows, no gradient does
    for targets, epochs in (
        (y, 1),
        (y, int(obs.rng.integers(2, 6))),
        (y, int(obs.rng.integers(100, 300))),
        (y.astype(np.float64) * huge, int(obs.rng.integers(2, 6))),
    ):
        data = "y" if targets is y else f"{huge:g} * y"
        call = f"fit_line(x, {data}, lr={lr:g}, epochs={epochs})"
        found = obs.call(hand, x.astype(targets.dtype), targets.copy(), lr=lr, epochs=epochs)
        obs.require(
            f"{call} returns (w, b)",
            isinstance(found, (tuple, list)) and len(found) == 2 and all(map(_is_number, found)),
            hint="return the two floats w, b",
        )
        obs.close(
            f"(w, b) from {call}",
            [float(found[0]), float(found[1])],
            atol=1e-4,
            rtol=1e-3,
            hint="what is dy_hat/db? Take both gradients from one y_hat before changing w or b, "
            "and use the x, y, lr and epochs you are given",
        )


@check.exercise("gradient_fixed")
def mean_gradient(obs, gradient_fixed):
    """Exercise 3: the gradient of the mean squared error"""
    hand = obs.by_hand(gradient_fixed)  # a gradient by hand: autograd does not exist there
    sizes = (1, int(obs.rng.integers(2, 10)), int(obs.rng.integers(500, 2000)))
    for n, huge in zip(sizes + (int(obs.rng.integers(2, 10)),), (False, False, False, True)):
        x = obs.rng.normal(0, 2, size=n)
        y = obs.rng.uniform(-3, 3) * x**2 + obs.rng.normal(0, 0.5, size=n)
        w = round(float(obs.rng.uniform(-2, 2)), 2)
        x, y = (x, y * 1e160) if huge else (x.astype(np.float32), y.astype(np.float32))
        name = f"the gradient at w = {w:g} (n = {n})"
        if huge:
            name = f"the gradient at w = {w:g} (n = {n}), targets times 1e160"
        obs.close(
            name,
            obs.call(hand, x.copy(), y.copy(), (w * x**2).astype(x.dtype)),
            rtol=1e-9 if huge else 1e-3,
            hint="dy_hat/dw is x**2 here; the gradient of a mean is the mean of the "
            "per-example gradients: does your result grow with the number of examples?",
        )


@check.exercise("w_after_one_step", "converges")
def large_learning_rate(obs, w_after_one_step, converges):
    """Exercise 4: predict before you run"""
    obs.predicted(
        "w after one step",
        w_after_one_step,
        hint="one update of section 7, from w = 0, with the gradient there",
    )
    obs.predicted(
        "converges",
        converges,
        hint="is w closer to 2 after the step than before it?",
    )
