"""Arithmetic between tensors (and numbers), elementwise with broadcasting.

Each backward returns the gradient in the output's shape; the engine un-broadcasts it.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function


def _floating(x: np.ndarray) -> np.ndarray:
    """Integer inputs to transcendental ops compute in the default float dtype, as in PyTorch."""
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def _is_scalar(value) -> bool:
    return isinstance(value, (int, float, bool, np.number))


def _plus_scaled(x, y, alpha):
    """x + alpha * y, rounded once as PyTorch's fused multiply-add rounds it (float32 in
    float64, float64 in long double: NumPy has no fused multiply-add)."""
    if alpha == 1:
        return x + y
    if x.dtype.kind in "iub" and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    wide = {np.float32: np.float64, np.float64: np.longdouble}.get(x.dtype.type)
    if wide is None:
        return x + alpha * y
    scale = wide(x.dtype.type(alpha))
    return (x.astype(wide) + scale * np.asarray(y).astype(wide)).astype(x.dtype)


class Add(Function):
    """out = x + alpha y;  dx = g,  dy = alpha g"""

    broadcasts = True
    saved_values = ("alpha",)

    @staticmethod
    def forward(ctx, x, y, *, alpha=1):
        ctx.alpha = alpha
        return _plus_scaled(x, y, alpha)

    @staticmethod
    def backward(ctx, g):
        return g, g if ctx.alpha == 1 else g * ctx.alpha


class Sub(Function):
    """out = x - alpha y;  dx = g,  dy = -alpha g"""

    broadcasts = True
    saved_values = ("alpha",)

    @staticmethod
    def forward(ctx, x, y, *, alpha=1):
        ctx.alpha = alpha
        return x - y if alpha == 1 else _plus_scaled(x, y, -alpha)

    @staticmethod
    def backward(ctx, g):
        return g, -g if ctx.alpha == 1 else g * -ctx.alpha


class Rsub(Function):
    """out = y - alpha x (``1 - x``);  dx = -alpha g,  dy = g"""

    numbers_are_scalars = True
    broadcasts = True
    saved_values = ("alpha",)

    @classmethod
    def overload_for(cls, inputs, static):
        return 1 if _is_scalar(inputs[1]) else 0  # rsub.Scalar is RsubBackward1

    @staticmethod
    def forward(ctx, x, y, *, alpha=1):
        ctx.alpha = alpha
        return y - x if alpha == 1 else _plus_scaled(np.asarray(y), x, -alpha)

    @staticmethod
    def backward(ctx, g):
        return -g if ctx.alpha == 1 else g * -ctx.alpha, g


class Mul(Function):
    """out = x * y;  dx = g * y,  dy = g * x"""

    broadcasts = True
    saved_names, pack_order = ("self", "other"), (1, 0)

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
    saved_names, pack_order = ("self", "other"), (1, 0)

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
    saved_names = ("result",)

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
    argument_names = ("self", "exponent")
    # tensor ** number (0), tensor ** tensor (1), number ** tensor (2): a number is no tensor
    saved_names = {0: ("self",), 1: ("exponent", "self", "result"), 2: ("exponent", "result")}
    saved_values = {0: ("exponent",), 2: ("self",)}

    @classmethod
    def overload_for(cls, inputs, static):
        if _is_scalar(inputs[1]):
            return 0
        return 2 if _is_scalar(inputs[0]) else 1

    @staticmethod
    def forward(ctx, x, y):
        if x.dtype.kind in "iub" and np.ndim(y) == 0 and y.dtype.kind in "iu" and y < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        out = _power(x, y) if ctx._overload == 0 else x**y
        if ctx._overload == 0:
            ctx.save_for_backward(x)
        elif ctx._overload == 1:
            ctx.save_for_backward(y, x, out if ctx.needs_input_grad[1] else None)
        else:
            ctx.save_for_backward(y, out)
        return out

    @staticmethod
    def backward(ctx, g):
        if ctx._overload == 0:
            (x,), y = ctx.saved_tensors, ctx.exponent
        elif ctx._overload == 1:
            y, x, out = ctx.saved_tensors
        else:
            (y, out), x = ctx.saved_tensors, ctx.self
        gx = gy = None
        if ctx.needs_input_grad[0]:
            if np.ndim(y) == 0 and not ctx.needs_input_grad[1]:  # a number exponent
                gx = np.zeros_like(g) if y == 0 else g * (y * x ** (y - 1))
            else:  # d/dx x**0 is 0, even at x = 0
                gx = np.where(y == 0, np.zeros_like(g), g * (y * x ** (y - 1)))
        if ctx.needs_input_grad[1]:  # 0 at x = 0 (for y >= 0); nan for x < 0, as in PyTorch
            zero = (y >= 0) & (x == 0)
            gy = np.where(zero, np.zeros_like(g), g * out * np.log(np.where(zero, 1, x)))
        return gx, gy


def _power(x, y):
    """x ** number, with PyTorch's exact forms for the exponents it special-cases (x*x*x for 3,
    1/(x*x) for -2, 1/sqrt(x) for -0.5): the last bits of float32 results match."""
    if x.dtype.kind == "f":
        e = float(y)
        if e == 3:
            return x * x * x
        if e == -2:
            return 1 / (x * x)
        if e == -0.5:
            return 1 / np.sqrt(x)
    return x**y


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
