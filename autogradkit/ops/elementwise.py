"""Arithmetic between tensors (and numbers), elementwise with broadcasting.

Each backward returns the gradient in the output's shape; the engine un-broadcasts it.
"""

from __future__ import annotations

import numpy as np

from .._shape import broadcast_shape
from ..autograd.function import Function


def _floating(x: np.ndarray) -> np.ndarray:
    """Integer inputs to transcendental ops compute in the default float dtype, as in PyTorch."""
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def _is_scalar(value) -> bool:
    return isinstance(value, (int, float, bool, np.number))


class Add(Function):
    """out = x + y;  dx = g,  dy = g"""

    broadcasts = True

    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, g):
        return g, g


class Sub(Function):
    """out = x - y;  dx = g,  dy = -g"""

    broadcasts = True

    @staticmethod
    def forward(ctx, x, y):
        return x - y

    @staticmethod
    def backward(ctx, g):
        return g, -g


class Rsub(Function):
    """out = y - x (``1 - x``);  dx = -g,  dy = g"""

    numbers_are_scalars = True
    broadcasts = True

    @classmethod
    def overload_for(cls, inputs, static):
        return 1 if _is_scalar(inputs[1]) else 0  # rsub.Scalar is RsubBackward1

    @staticmethod
    def forward(ctx, x, y):
        return y - x

    @staticmethod
    def backward(ctx, g):
        return -g, g


class Mul(Function):
    """out = x * y;  dx = g * y,  dy = g * x"""

    broadcasts = True

    @staticmethod
    def forward(ctx, x, y):
        # save only what the needed gradients read, as PyTorch does
        ctx.save_for_backward(
            x if ctx.needs_input_grad[1] else None, y if ctx.needs_input_grad[0] else None
        )
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return (
            g * y if ctx.needs_input_grad[0] else None,
            g * x if ctx.needs_input_grad[1] else None,
        )


class Div(Function):
    """out = x / y;  dx = g / y,  dy = -g * x / y**2"""

    quiet_floating_errors = True
    broadcasts = True

    @staticmethod
    def forward(ctx, x, y):
        x, y = _floating(x), _floating(y)
        ctx.save_for_backward(x if ctx.needs_input_grad[1] else None, y)
        return x / y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return (
            g / y if ctx.needs_input_grad[0] else None,
            -g * x / (y * y) if ctx.needs_input_grad[1] else None,
        )


class Neg(Function):
    """out = -x;  dx = -g"""

    @staticmethod
    def forward(ctx, x):
        if x.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return -x

    @staticmethod
    def backward(ctx, g):
        return -g


class Reciprocal(Function):
    """out = 1 / x;  dx = -g * out**2"""

    quiet_floating_errors = True

    @staticmethod
    def forward(ctx, x):
        out = 1 / _floating(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return -g * out * out


class Pow(Function):
    """out = x ** y;  dx = g * y * x**(y-1),  dy = g * out * log(x)"""

    numbers_are_scalars = True
    quiet_floating_errors = True
    broadcasts = True

    @classmethod
    def overload_for(cls, inputs, static):
        if _is_scalar(inputs[1]):
            return 0  # tensor ** number
        return 2 if _is_scalar(inputs[0]) else 1  # number ** tensor, tensor ** tensor

    @staticmethod
    def forward(ctx, x, y):
        if x.dtype.kind in "iub" and np.ndim(y) == 0 and y.dtype.kind in "iu" and y < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        out = x**y
        ctx.save_for_backward(x, y, out if ctx.needs_input_grad[1] else None)
        return out

    @staticmethod
    def backward(ctx, g):
        x, y, out = ctx.saved_tensors
        gx = gy = None
        if ctx.needs_input_grad[0]:
            if np.ndim(y) == 0 and not ctx.needs_input_grad[1]:  # a number exponent
                gx = np.zeros_like(g) if y == 0 else g * (y * x ** (y - 1))
            else:  # d/dx x**0 is 0, even at x = 0
                gx = np.where(y == 0, np.zeros_like(g), g * (y * x ** (y - 1)))
        if ctx.needs_input_grad[1]:
            gy = g * out * np.log(np.where(x > 0, x, 1))  # 0 where log is undefined
        return gx, gy


def _split_by_winner(g, x_wins, tie):
    """Gradients of max/min of two: all to the winner, half each on a tie, exact zeros to
    the loser (as PyTorch's masked_fill; ``g * 0`` would give -0. for a negative g)."""
    zero, half = np.zeros_like(g), g / 2
    return (
        np.where(x_wins, g, np.where(tie, half, zero)),
        np.where(x_wins, zero, np.where(tie, half, g)),
    )


class Maximum(Function):
    """out = max(x, y);  ties split the gradient equally, as in PyTorch"""

    broadcasts = True

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return np.maximum(x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return _split_by_winner(g, x > y, x == y)


class Minimum(Function):
    """out = min(x, y);  ties split the gradient equally, as in PyTorch"""

    broadcasts = True

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return np.minimum(x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return _split_by_winner(g, x < y, x == y)


class Where(Function):
    """out = x where condition else y;  dx = g where condition,  dy = g elsewhere"""

    broadcasts = True

    @staticmethod
    def forward(ctx, x, y, *, condition):
        ctx.condition = condition
        try:
            return np.where(condition, x, y)
        except ValueError:  # the shapes do not fit: say so in PyTorch's words
            broadcast_shape(condition.shape, np.shape(x), np.shape(y))
            raise

    @staticmethod
    def backward(ctx, g):
        zero = np.zeros_like(g)  # exact zeros (0 * g would give -0. for a negative g)
        return np.where(ctx.condition, g, zero), np.where(ctx.condition, zero, g)


class MaskedFill(Function):
    """out = value where mask else x (in x's dtype);  dx = g where not mask,
    dvalue = sum of g where mask"""

    numbers_are_scalars = True
    promotes = False

    @classmethod
    def overload_for(cls, inputs, static):
        return 0 if _is_scalar(inputs[1]) else 1  # masked_fill.Scalar vs masked_fill.Tensor

    @staticmethod
    def forward(ctx, x, value, *, mask):
        ctx.mask = mask
        return np.where(mask, np.asarray(value, x.dtype), x)

    @staticmethod
    def backward(ctx, g):
        zero = np.zeros_like(g)  # exact zeros, as PyTorch's masked_fill(mask, 0)
        gvalue = np.sum(np.where(ctx.mask, g, zero)) if ctx.needs_input_grad[1] else None
        return np.where(ctx.mask, zero, g), gvalue


class Zero(Function):
    """out = zeros like x (``zero_``);  dx = 0"""

    @staticmethod
    def forward(ctx, x):
        return np.zeros_like(x)

    @staticmethod
    def backward(ctx, g):
        return np.zeros_like(g)


class Fill(Function):
    """out = x filled with value (``fill_``);  dx = 0,  dvalue = sum(g) (a 0-d tensor value)"""

    promotes = False  # the value takes x's dtype

    @classmethod
    def overload_for(cls, inputs, static):
        return 2 if _is_scalar(inputs[1]) else 3  # fill_.Scalar vs fill_.Tensor

    @staticmethod
    def forward(ctx, x, value):
        if np.ndim(value) != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor "
                f"with {np.ndim(value)} dimensions."
            )
        return np.full_like(x, value)

    @staticmethod
    def backward(ctx, g):
        return np.zeros_like(g), np.sum(g) if ctx.needs_input_grad[1] else None
