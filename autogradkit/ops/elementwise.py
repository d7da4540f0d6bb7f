"""Arithmetic between tensors (and numbers), elementwise with broadcasting.

Each backward returns the gradient in the output's shape; the engine un-broadcasts it.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function


def _floating(x: np.ndarray) -> np.ndarray:
    """Integer inputs to transcendental ops compute in the default float dtype, as in PyTorch."""
    return x if x.dtype.kind == "f" else x.astype(np.float32)


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


class AddBackward0(Function):
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


class SubBackward0(Function):
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


class RsubBackward0(Function):
    """out = y - alpha x (``rsub(x, y)``, two tensors);  dx = -alpha g,  dy = g"""

    broadcasts = True
    saved_values = ("alpha",)

    @staticmethod
    def forward(ctx, x, y, *, alpha=1):
        ctx.alpha = alpha
        return y - x if alpha == 1 else _plus_scaled(np.asarray(y), x, -alpha)

    @staticmethod
    def backward(ctx, g):
        return -g if ctx.alpha == 1 else g * -ctx.alpha, g


class RsubBackward1(RsubBackward0):
    """out = number - alpha x (``1 - x``, rsub.Scalar): the number gets no edge"""

    numbers_are_scalars = True


class MulBackward0(Function):
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


class DivBackward0(Function):
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


class NegBackward0(Function):
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


class ReciprocalBackward0(Function):
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


class PowBackward0(Function):
    """out = x ** y (y a number);  dx = g * y * x**(y-1)  (0 for y = 0, even at x = 0)"""

    numbers_are_scalars = True
    quiet_floating_errors = True
    argument_names = ("self", "exponent")
    saved_names, saved_values = ("self",), ("exponent",)

    @staticmethod
    def forward(ctx, x, y):
        _check_integer_power(x, y)
        ctx.save_for_backward(x)
        return _power(x, y)

    @staticmethod
    def backward(ctx, g):
        (x,), y = ctx.saved_tensors, ctx.exponent
        return np.zeros_like(g) if y == 0 else g * (y * x ** (y - 1)), None


class PowBackward1(Function):
    """out = x ** y (two tensors);  dx = g * y * x**(y-1),  dy = g * out * log(x)"""

    quiet_floating_errors = True
    broadcasts = True
    saved_names = ("exponent", "self", "result")

    @staticmethod
    def forward(ctx, x, y):
        _check_integer_power(x, y)
        out = x**y
        ctx.save_for_backward(y, x, out if ctx.needs_input_grad[1] else None)
        return out

    @staticmethod
    def backward(ctx, g):
        y, x, out = ctx.saved_tensors
        gx = gy = None
        if ctx.needs_input_grad[0]:  # d/dx x**0 is 0, even at x = 0
            gx = np.where(y == 0, np.zeros_like(g), g * (y * x ** (y - 1)))
        if ctx.needs_input_grad[1]:
            gy = _exponent_grad(g, x, y, out)
        return gx, gy


class PowBackward2(Function):
    """out = x ** y (x a number);  dy = g * out * log(x)"""

    numbers_are_scalars = True
    quiet_floating_errors = True
    argument_names = ("self", "exponent")
    saved_names, saved_values = ("exponent", "result"), ("self",)

    @staticmethod
    def forward(ctx, x, y):
        _check_integer_power(x, y)
        out = x**y
        ctx.save_for_backward(y, out)
        return out

    @staticmethod
    def backward(ctx, g):
        (y, out), x = ctx.saved_tensors, ctx.self
        return None, _exponent_grad(g, x, y, out)


def _check_integer_power(x, y) -> None:
    if x.dtype.kind in "iub" and np.ndim(y) == 0 and y.dtype.kind in "iu" and y < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _exponent_grad(g, x, y, out):
    """g * out * log(x): 0 at x = 0 (for y >= 0); nan for x < 0, as in PyTorch"""
    zero = (y >= 0) & (x == 0)
    return np.where(zero, np.zeros_like(g), g * out * np.log(np.where(zero, 1, x)))


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


class ZeroBackward0(Function):
    """out = zeros like x (``zero_``);  dx = 0"""

    @staticmethod
    def forward(ctx, x):
        return np.zeros_like(x)

    @staticmethod
    def backward(ctx, g):
        return np.zeros_like(g)


class FillBackward2(Function):
    """out = x filled with a number (``fill_``, fill_.Scalar);  dx = 0"""

    promotes = False  # the value takes x's dtype

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


class FillBackward3(FillBackward2):
    """out = x filled with a 0-dim tensor's value (fill_.Tensor);  dx = 0,  dvalue = sum(g)"""
