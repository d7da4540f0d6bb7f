"""Complex-step differentiation against every by-hand exercise of 00-07 (issue 29, item 2).

``f(x + ih).imag / h`` is the derivative of an analytic ``f`` exact to rounding, at any small
``h``: no tolerance tells it from the formula worked out on paper. A by-hand answer runs in the
by-hand interpreter, where numbers are real (``by_hand_child.py``): each attack below works
where student code runs, and is refused there.
"""

from __future__ import annotations

import numpy as np
import pytest

from .exercises import BY_HAND, assert_refused, checks_of, solution

H = 1e-20  # the step: Im f(x + iH) / H, exact to rounding for any H this small


def step(f, *args, at: int):
    """d f / d args[at], by complex step."""
    moved = list(args)
    moved[at] = moved[at] + H * 1j
    return np.imag(f(*moved)) / H


# ----- one attack per by-hand exercise ---------------------------------------------------------
def slope(x):  # 00 ex2: y = x³ - 2x
    return step(lambda u: u**3 - 2 * u, x, at=0)


def backward_by_hand(w, x, y):  # 01 ex1: loss = (w·x - y)², its local gradients
    s = w * x - y
    return (
        step(lambda s: s**2, s, at=0),
        1.0,
        step(lambda w: w * x, w, at=0),
        0.0 + step(lambda w: (w * x - y) ** 2, w, at=0),
    )


def fit_line(x, y, lr, epochs):  # 01 ex2: both gradients of the mean squared error
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    w = b = 0.0
    for _ in range(epochs):
        loss = lambda w, b: np.mean((w * x + b - y) ** 2)  # noqa: E731
        dw, db = step(loss, w, b, at=0), step(loss, w, b, at=1)
        w, b = w - lr * dw, b - lr * db
    return float(w), float(b)


def gradient_fixed(x, y, y_hat):  # 01 ex3: the gradient of the mean, from the model's w
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    w = float(np.asarray(y_hat, dtype=np.float64)[0] / x[0] ** 2)
    return step(lambda w: np.mean((w * x**2 - y) ** 2), w, at=0)


def jacobian_by_hand(x0, x1):  # 03 ex3: y = (x0·x1³, x0 + 3·x1)
    y = lambda x0, x1: np.array([x0 * x1**3, x0 + 3 * x1])  # noqa: E731
    return np.stack([step(y, x0, x1, at=0), step(y, x0, x1, at=1)], axis=1).tolist()


def vjp_by_hand(x0, x1, v0, v1):
    return (np.array([v0, v1]) @ np.array(jacobian_by_hand(x0, x1))).tolist()


def add_mul_grads(a, b, d):  # 05 ex4: e = (a + b) * d, even where e overflows
    e = lambda a, b, d: (a + b) * d  # noqa: E731
    return tuple(float(step(e, a, b, d, at=i)) for i in range(3))


def linear_by_hand(x, w, b):  # 06 ex4: (w · x + b) / 4
    result = (np.dot(w, x) + b) / 4
    weight_grad = np.array([step(lambda wi, xi: wi * xi / 4, wi, xi, at=0) for wi, xi in zip(w, x)])
    return result, weight_grad, float(step(lambda b: (np.dot(w, x) + b) / 4, b, at=0))


ATTACKS = {  # the attack's answers (BY_HAND: where each exercise is)
    "00 ex2": {"slope": slope},
    "01 ex1": {"backward_by_hand": backward_by_hand},
    "01 ex2": {"fit_line": fit_line},
    "01 ex3": {"gradient_fixed": gradient_fixed},
    "03 ex3": {"jacobian_by_hand": jacobian_by_hand, "vjp_by_hand": vjp_by_hand},
    "05 ex4": {"add_mul_grads": add_mul_grads},
    "06 ex4": {"linear_by_hand": linear_by_hand},
}


def test_each_attack_is_the_derivative_where_student_code_runs():
    assert abs(slope(2.0) - 10.0) < 1e-12
    assert backward_by_hand(1.5, 2.0, 4.0) == (-2.0, 1.0, 2.0, -4.0)
    assert add_mul_grads(1e160, 2e160, 3.0) == (3.0, 3.0, 3e160)  # (a + b) * d overflows
    assert np.allclose(jacobian_by_hand(2.0, -1.5), [[-3.375, 13.5], [1.0, 3.0]], 1e-15, 0)


@pytest.mark.parametrize("exercise", list(ATTACKS))
def test_complex_step_is_refused_by_hand(exercise):
    # Issue 29, item 2: it passed every one of these (their tolerances of 1e-9 to 1e-12 catch
    # difference quotients, not a derivative exact to rounding); by hand, numbers are real.
    (notebook, grade_ids, check_name), attack = BY_HAND[exercise], ATTACKS[exercise]
    reference = {}
    for grade_id in grade_ids:
        reference.update(solution(notebook, grade_id, np=np))
    assert_refused(getattr(checks_of(notebook), check_name), reference, "do it yourself", **attack)
