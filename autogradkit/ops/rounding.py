"""Division with rounding: ``x % y`` (remainder, the sign of y) and ``x // y`` (floor_divide).

PyTorch has a derivative only for ``tensor % ...``; ``number % tensor`` and ``//`` record a
``NotImplemented`` node, whose backward raises PyTorch's error.
"""

from __future__ import annotations

import numpy as np

from ..autograd.engine import Function

__all__ = (
    "RemainderBackward0 RemainderBackward1 RemainderOfNumberNotImplemented "
    "FloorDivideNotImplemented"
).split()


def _check_integer_division(y) -> None:
    if np.asarray(y).dtype.kind in "iub" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")


def _remainder(x, y):
    """x - floor(x / y) * y, computed as PyTorch does: fmod, then moved into y's sign."""
    _check_integer_division(y)
    if np.result_type(x, y).kind in "iub":
        return np.remainder(x, y)
    mod = np.fmod(x, y)
    return np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


class RemainderBackward0(Function):
    """out = x - floor(x / y) * y (y a number);  dx = g"""

    numbers_are_scalars = True
    quiet_floating_errors = True

    @staticmethod
    def forward(ctx, x, y):
        return _remainder(x, y)

    @staticmethod
    def backward(ctx, g):
        return g, None


class RemainderBackward1(Function):
    """out = x - floor(x / y) * y;  dx = g,  dy = -g * floor(x / y)"""

    quiet_floating_errors = True
    broadcasts = True
    saved_names, pack_order = ("self", "other"), (1, 0)

    @staticmethod
    def forward(ctx, x, y):
        needed = ctx.needs_input_grad[1]
        ctx.save_for_backward(x if needed else None, y if needed else None)
        return _remainder(x, y)

    @staticmethod
    def backward(ctx, g):
        if not ctx.needs_input_grad[1]:
            return g, None
        x, y = ctx.saved_tensors
        # floor(x / y) is flat wherever it is defined: a constant even under create_graph
        quotient = np.floor_divide(getattr(x, "_data", x), getattr(y, "_data", y))
        return g, -g * quotient


class _NotImplemented(Function):
    """An op PyTorch gives no derivative: its node is named NotImplemented, and its backward
    raises PyTorch's error naming ``aten_name``"""

    node_name = "NotImplemented"
    numbers_are_scalars = True
    quiet_floating_errors = True
    broadcasts = True

    @classmethod
    def backward(cls, ctx, g):
        raise RuntimeError(f"derivative for aten::{cls.aten_name} is not implemented")


class RemainderOfNumberNotImplemented(_NotImplemented):
    """out = number % x (remainder.Scalar_Tensor): no derivative in PyTorch"""

    aten_name = "remainder"  # what the error names

    @staticmethod
    def forward(ctx, x, y):
        return _remainder(x, y)


class FloorDivideNotImplemented(_NotImplemented):
    """out = floor(x / y), rounded as Python rounds: a NotImplemented node too"""

    aten_name = "floor_divide"

    @staticmethod
    def forward(ctx, x, y):
        _check_integer_division(y)
        if np.result_type(x, y).kind == "b":
            raise RuntimeError("\"div_floor_cpu\" not implemented for 'Bool'")
        return np.floor_divide(x, y)
