"""Checkers for notebook 01, backpropagation by hand (one weight, NumPy only)."""

from __future__ import annotations

import numpy as np

from ..checks import check_close, check_true

X, Y = 2.0, 4.0  # the single training example of the notebook


def _chain_at(w: float, x: float = X, y: float = Y) -> tuple[float, float, float, float]:
    """Local gradients of loss = (w*x - y)**2 at w, and their product."""
    s = w * x - y
    dloss_ds, ds_dyhat, dyhat_dw = 2 * s, 1.0, x
    return dloss_ds, ds_dyhat, dyhat_dw, dloss_ds * ds_dyhat * dyhat_dw


def check_chain_rule_by_hand(dloss_ds, ds_dyhat, dyhat_dw, dloss_dw, w: float = 1.0) -> None:
    """Exercise 1: the three local gradients and dloss/dw at w = 1."""
    want = _chain_at(w)
    check_close("dloss/ds at w = 1", dloss_ds, want[0], hint="compute s = y_hat - y first")
    check_close("ds/dy_hat", ds_dyhat, want[1], hint="how does s change when y_hat grows by 1?")
    check_close("dy_hat/dw", dyhat_dw, want[2], hint="y_hat = w * x")
    check_close("dloss/dw at w = 1", dloss_dw, want[3], hint="multiply the three local gradients")


def check_chain_rule_product(dloss_ds, ds_dyhat, dyhat_dw, dloss_dw) -> None:
    """Exercise 1, hidden: the answer is the product of the student's own local gradients."""
    values = (dloss_ds, ds_dyhat, dyhat_dw, dloss_dw)
    check_true("four numbers", all(np.ndim(v) == 0 for v in values), hint="type plain numbers")
    check_close(
        "chain rule product",
        dloss_dw,
        dloss_ds * ds_dyhat * dyhat_dw,
        hint="dloss/dw is the product of the three local gradients",
    )


def _fit_line_reference(x, y, lr: float, epochs: int) -> tuple[float, float]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = b = 0.0
    for _ in range(epochs):
        error = w * x + b - y
        w, b = w - lr * np.mean(2 * error * x), b - lr * np.mean(2 * error)
    return float(w), float(b)


def _check_line(task: str, fit_line, x, y, lr: float, epochs: int) -> None:
    result = fit_line(x, y, lr=lr, epochs=epochs)
    if not (isinstance(result, tuple) and len(result) == 2):
        check_true(task, False, hint="fit_line should return the tuple (w, b)")
    check_close(
        task,
        [float(result[0]), float(result[1])],
        _fit_line_reference(x, y, lr, epochs),
        atol=1e-4,
        rtol=1e-3,
        hint="dloss/db is the mean of 2 * (y_hat - y) * dy_hat/db; update w and b "
        "from the same y_hat",
    )


def check_fit_line(fit_line) -> None:
    """Exercise 2: the notebook's line y = 2x + 1 on x = 1..4."""
    x = np.array([1, 2, 3, 4], dtype=np.float32)
    _check_line("fit_line, 3 epochs", fit_line, x, 2 * x + 1, lr=0.05, epochs=3)
    _check_line("fit_line, 500 epochs", fit_line, x, 2 * x + 1, lr=0.05, epochs=500)


def check_fit_line_other_data(fit_line) -> None:
    """Exercise 2, hidden: another line, another learning rate, a different data size."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, size=7).astype(np.float32)
    y = (-1.5 * x + 0.5 + rng.normal(0, 0.1, size=7)).astype(np.float32)
    _check_line("fit_line on other data", fit_line, x, y, lr=0.1, epochs=40)


def _true_gradient(x, y, w: float) -> float:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return float(np.mean(2 * x * (w * x - y)))


def check_gradient_fixed(gradient_fixed) -> None:
    """Exercise 3: the classmate's four examples, at w = 0 and w = 1.5."""
    x = np.array([1, 2, 3, 4], dtype=np.float32)
    y = 2 * x
    for w in (0.0, 1.5):
        check_close(
            f"gradient at w = {w}",
            gradient_fixed(x, y, w * x),
            _true_gradient(x, y, w),
            hint="the gradient of a mean is a mean",
        )


def check_gradient_fixed_any_size(gradient_fixed) -> None:
    """Exercise 3, hidden: the fix must hold for one example and for many."""
    rng = np.random.default_rng(3)
    for n in (1, 1000):
        x = rng.normal(size=n).astype(np.float32)
        y = (3 * x).astype(np.float32)
        check_close(
            f"gradient with {n} examples",
            gradient_fixed(x, y, 0.5 * x),
            _true_gradient(x, y, 0.5),
            rtol=1e-3,
            hint="the result must not grow with the number of examples",
        )


def _one_step(lr: float, w: float = 0.0) -> float:
    return w - lr * 2 * (w * X - Y) * X


def check_prediction_large_lr(w_after_one_step, converges, lr: float = 0.3) -> None:
    """Exercise 4: one update with lr = 0.3, and whether training converges."""
    check_close(
        "w after one step",
        w_after_one_step,
        _one_step(lr),
        hint="w - lr * dloss/dw, with dloss/dw = -16 at w = 0",
    )
    w = 0.0
    for _ in range(50):
        w = _one_step(lr, w)
    check_true(
        "converges?",
        bool(converges) == bool(abs(w - 2.0) < 1e-3),
        hint="compare the new distance |w - 2| with the old one",
    )


def check_prediction_types(w_after_one_step, converges) -> None:
    """Exercise 4, hidden: a number and a bool, as asked."""
    check_true("w_after_one_step is a number", np.ndim(w_after_one_step) == 0)
    check_true("converges is True or False", isinstance(converges, (bool, np.bool_)))
