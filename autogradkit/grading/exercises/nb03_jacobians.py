"""Checkers for notebook 03: backward on non-scalars, leaves and Jacobians."""

from __future__ import annotations

import numpy as np

from ..._functions import stack
from ...autograd import functional
from ...creation import tensor
from ...tensor import Tensor
from ..checks import BuildItYourself, check_close, check_shapes, check_true, refuse_library
from ._common import require


def _weighted_matrix_grads(weights) -> tuple[Tensor, Tensor]:
    """x.grad and y.grad for z = x.view(1, 2) @ y with the given starting gradient."""
    x = tensor([2.0, 1.0], requires_grad=True)
    y = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x.view(1, 2) @ y).backward(gradient=tensor(weights))
    return x.grad, y.grad


def check_predicted_weighted_grads(predicted_x_grad, predicted_y_grad) -> None:
    """Exercise 1: z.backward(gradient=[[0., 1.]])."""
    x_grad, y_grad = _weighted_matrix_grads([[0.0, 1.0]])
    check_close(
        "x.grad",
        predicted_x_grad,
        x_grad,
        hint="only z[0, 1] counts: which entries of y multiply x?",
    )
    check_close(
        "y.grad", predicted_y_grad, y_grad, hint="only the second column of y feeds z[0, 1]"
    )


def check_predicted_shapes(predicted_x_grad, predicted_y_grad) -> None:
    """Exercise 1, hidden: a gradient has the shape of its tensor."""
    check_shapes("x.grad has the shape of x", np.asarray(predicted_x_grad), (2,))
    check_shapes("y.grad has the shape of y", np.asarray(predicted_y_grad), (2, 2))


def check_quantity_grad(quantities, quantity_grad, prices) -> None:
    """Exercise 2: a float leaf holding 1, 4, 2 and the gradient of the total price."""
    check_true(
        "quantities is a floating-point tensor",
        isinstance(quantities, Tensor) and quantities.is_floating_point(),
        hint="integers cannot require gradients",
    )
    check_close("the amounts are unchanged", quantities.detach(), [1.0, 4.0, 2.0])
    check_true(
        "quantity_grad comes from backward()",
        quantity_grad is not None and quantity_grad is quantities.grad,
        hint="call backward() on the total, then read the gradient autograd left on quantities",
    )
    expected = prices.detach().numpy() if isinstance(prices, Tensor) else prices
    check_close(
        "quantity_grad",
        quantity_grad,
        np.asarray(expected, dtype=np.float64),
        hint="d total / d quantity_i is the price of item i",
    )


def check_quantities_leaf(quantities) -> None:
    """Exercise 2, hidden: the fix keeps quantities a leaf that requires grad."""
    check_true(
        "quantities is a leaf that requires grad",
        quantities.is_leaf and quantities.requires_grad,
        hint="create it as a float tensor with requires_grad=True",
    )


def _example_function(t: Tensor) -> Tensor:
    return stack([t[0] * t[1], t[0] + 3 * t[1]])


def _f64(values) -> Tensor:
    return tensor(np.asarray(values, dtype=np.float64))


def _jacobian_reference(f, x: Tensor) -> np.ndarray:
    """Central differences in float64: independent of the student's backward code."""
    base = x.detach().numpy().astype(np.float64)
    h = 1e-6
    columns = []
    for j in range(base.size):
        step = np.zeros_like(base)
        step[j] = h
        up = f(tensor(base + step)).detach().numpy().astype(np.float64)
        down = f(tensor(base - step)).detach().numpy().astype(np.float64)
        columns.append((up - down) / (2 * h))
    return np.stack(columns, axis=1)


def check_vjp_by_hand(jacobian_by_hand, vjp_by_hand) -> None:
    """Exercise 3: J and vᵀJ for y = (x0*x1, x0 + 3*x1) at x = (2, 1), v = (1, 2)."""
    jac = _jacobian_reference(_example_function, _f64([2.0, 1.0]))
    check_close(
        "the Jacobian",
        jacobian_by_hand,
        jac,
        atol=1e-4,
        hint="row i holds the derivatives of y_i with respect to x0 and x1",
    )
    check_close(
        "vᵀJ",
        vjp_by_hand,
        np.array([1.0, 2.0]) @ jac,
        atol=1e-4,
        hint="entry j is sum_i v_i * J[i, j]",
    )


def check_vjp_consistent(jacobian_by_hand, vjp_by_hand) -> None:
    """Exercise 3, hidden: the product matches the student's own Jacobian, and backward."""
    check_close("vᵀJ from your J", vjp_by_hand, np.array([1.0, 2.0]) @ np.asarray(jacobian_by_hand))
    x = tensor([2.0, 1.0], requires_grad=True)
    _example_function(x).backward(tensor([1.0, 2.0]))
    check_close("vᵀJ equals what backward computes", vjp_by_hand, x.grad)


def _check_one(task: str, jacobian, f, x: Tensor) -> None:
    before = x.detach().numpy().copy()
    # the library's own jacobian (and _jacobian_of, which it calls) raise while this runs
    try:
        with refuse_library(functional, "jacobian", "_jacobian_of", exercise="the Jacobian"):
            result = jacobian(f, x)
    except BuildItYourself as refused:
        check_true(task, False, hint=f"{refused}, one backward pass per row")
    require(task, isinstance(result, Tensor), hint="return a tensor: stack the rows with agk.stack")
    check_close(
        task,
        result,
        _jacobian_reference(f, x),
        atol=1e-3,
        rtol=1e-3,
        hint="row i comes from a backward pass with the one-hot vector e_i; "
        "clear .grad between rows",
    )
    require(task, np.array_equal(x.detach().numpy(), before), hint="do not change x itself")


def check_jacobian(jacobian) -> None:
    """Exercise 4: the notebook's two functions."""
    _check_one("Jacobian of x ** 2", jacobian, lambda t: t**2, _f64([1.0, 2.0, 3.0]))
    _check_one("Jacobian of (x0*x1, x0 + 3*x1)", jacobian, _example_function, _f64([2.0, 1.0]))


def check_jacobian_general(jacobian) -> None:
    """Exercise 4, hidden: more outputs than inputs, and a dense nonlinear Jacobian."""
    matrix = _f64(np.random.default_rng(7).normal(size=(4, 2)))
    _check_one("Jacobian of a 4x2 linear map", jacobian, lambda t: matrix @ t, _f64([0.5, -1.0]))

    def dense(t: Tensor) -> Tensor:
        return stack([t[0] * t[1] * t[2], t.sin().sum(), t[1] ** 2])

    _check_one("Jacobian of a nonlinear map", jacobian, dense, _f64([0.3, -0.7, 1.1]))
