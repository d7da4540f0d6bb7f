"""Checkers for notebook 00, the tour: a tensor, a slope by hand, a predicted printout."""

from __future__ import annotations

import numpy as np

from ...creation import tensor
from ...tensor import Tensor
from ..checks import check_close, check_true
from ._common import require


def check_first_tensor(t) -> None:
    """Exercise 1: a tensor holding 1, 2, 3."""
    require("t", isinstance(t, Tensor), hint="use agk.tensor([...])")
    check_close("t holds 1, 2, 3", t, [1.0, 2.0, 3.0], hint="three numbers, in this order")


def check_first_tensor_is_float(t) -> None:
    """Exercise 1, hidden: written with decimal points, so it is a float tensor."""
    check_true("t is a floating-point tensor", t.is_floating_point(), hint="write 1.0, not 1")


def check_slope_by_hand(slope) -> None:
    """Exercise 2: dy/dx of x**2 + 3x at x = -1."""
    x = tensor(-1.0, requires_grad=True)
    (x**2 + 3 * x).backward()
    check_close("dy/dx at x = -1", slope, x.grad, hint="dy/dx = 2x + 3")


def check_slope_is_number(slope) -> None:
    """Exercise 2, hidden: a plain number."""
    check_true("slope is a number", np.ndim(slope) == 0 and not isinstance(slope, str))


def check_predicted_printout(printed) -> None:
    """Exercise 3: the printout of a tensor made by a multiplication."""
    actual = str(tensor(2.0, requires_grad=True) * 3)
    check_true(
        "the printout",
        isinstance(printed, str) and printed.strip() == actual,
        hint="a result of an operation shows its grad_fn, not requires_grad=True",
    )


def check_predicted_printout_is_str(printed) -> None:
    """Exercise 3, hidden: a string."""
    check_true("printed is a string", isinstance(printed, str))
