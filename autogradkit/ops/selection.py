"""Ops that pick each element from one of their inputs: max/min of two, where, masked_fill.

Each gradient goes to the input the element was taken from (split on a tie).
"""

from __future__ import annotations

import numpy as np

from .._shape import broadcast_shape
from ..autograd.engine import Function

__all__ = (
    "MaximumBackward0 MinimumBackward0 WhereBackward0 MaskedFillBackward0 MaskedFillBackward1"
).split()


class _Pick(Function):
    """out = max or min of x and y (``pick``);  ties split the gradient equally"""

    broadcasts = True
    saved_names, pack_order = ("self", "other"), (1, 0)

    @classmethod
    def forward(cls, ctx, x, y):
        ctx.save_for_backward(x, y)
        return cls.pick(x, y)

    @classmethod
    def backward(cls, ctx, g):
        x, y = ctx.saved_tensors
        x_wins, tie = cls.wins(x, y), x == y
        # all to the winner, half each on a tie, exact zeros to the loser (as PyTorch's
        # masked_fill; g * 0 would give -0. for a negative g)
        zero, half = np.zeros_like(g), g / 2
        gx = np.where(x_wins, g, np.where(tie, half, zero))
        gy = np.where(x_wins, zero, np.where(tie, half, g))
        return gx, gy


class MaximumBackward0(_Pick):
    """out = max(x, y);  ties split the gradient equally, as in PyTorch"""

    pick, wins = staticmethod(np.maximum), staticmethod(np.greater)  # x wins where x > y


class MinimumBackward0(_Pick):
    """out = min(x, y);  ties split the gradient equally, as in PyTorch"""

    pick, wins = staticmethod(np.minimum), staticmethod(np.less)  # x wins where x < y


class WhereBackward0(Function):
    """out = x where condition else y;  dx = g where condition,  dy = g elsewhere"""

    broadcasts = True
    saved_names = ("condition",)

    @staticmethod
    def forward(ctx, x, y, *, condition):
        ctx.save_for_backward(condition)
        try:
            return np.where(condition, x, y)
        except ValueError:  # the shapes do not fit: say so in PyTorch's words
            broadcast_shape(condition.shape, np.shape(x), np.shape(y))
            raise

    @staticmethod
    def backward(ctx, g):
        (condition,) = ctx.saved_tensors
        zero = np.zeros_like(g)  # exact zeros (0 * g would give -0. for a negative g)
        return np.where(condition, g, zero), np.where(condition, zero, g)


class _MaskedFill(Function):
    """out = value where mask else x (value in x's dtype);  dx = g where not mask"""

    numbers_are_scalars = True
    promotes = False
    saved_names = ("mask",)

    @staticmethod
    def forward(ctx, x, value, *, mask):
        ctx.save_for_backward(mask)
        return np.where(mask, np.asarray(value, x.dtype), x)

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        zero = np.zeros_like(g)  # exact zeros, as PyTorch's masked_fill(mask, 0)
        gvalue = np.sum(np.where(mask, g, zero)) if ctx.needs_input_grad[1] else None
        return np.where(mask, zero, g), gvalue


class MaskedFillBackward0(_MaskedFill):
    """out = value where mask else x (value a number)"""


class MaskedFillBackward1(_MaskedFill):
    """out = value where mask else x (value a 0-dim tensor);  dvalue = sum of g where mask"""
