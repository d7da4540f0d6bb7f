"""A tensor multiplied or divided by a number, as PyTorch's own formulas record it
(mul.Scalar, div.Scalar): the backward of ``x ** 2`` under ``create_graph``, of ``mean``,
``cross_entropy``'s averages. What you type, ``x * 2`` or ``x / 2``, records MulBackward0 and
DivBackward0 (``arithmetic.py``): Python numbers become tensors there."""

from __future__ import annotations

import numpy as np

from ..autograd.engine import Function

__all__ = ["MulBackward1", "DivBackward1"]


class _ByNumber(Function):
    """out = op(x, number);  dx = op(g, number) (the number gets no edge)"""

    numbers_are_scalars = True
    saved_values = ("other",)

    @classmethod
    def forward(cls, ctx, x, number):
        return cls.op(x, number)

    @classmethod
    def backward(cls, ctx, g):
        return cls.call(g, ctx.other), None  # (on Tensors, this op again, as in PyTorch)


class MulBackward1(_ByNumber):
    """out = x * number"""

    op = staticmethod(np.multiply)


class DivBackward1(_ByNumber):
    """out = x / number"""

    quiet_floating_errors = True
    op = staticmethod(np.true_divide)
