"""Matrix products: mm, mv, dot and batched matmul (``nn.Linear``'s addmm is nn's own op, in
``nn/ops/linear.py``)."""

from __future__ import annotations

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from ..autograd.engine import Function

__all__ = ["MmBackward0", "MvBackward0", "DotBackward0", "BmmBackward0"]


def _check_multipliable(x, y) -> None:
    """mm's (and nn.Linear's) error for matrices whose inner sizes differ."""
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
            f"{y.shape[0]}x{y.shape[1]})"
        )


def _is_column_major(mat2) -> bool:
    return not mat2.flags.c_contiguous and mat2.flags.f_contiguous


def _geometry(ctx, **arrays) -> None:
    """PyTorch's ``_saved_self_sym_sizes`` and ``_saved_self_sym_strides`` (in elements)."""
    for name, a in arrays.items():
        setattr(ctx, f"{name}_sym_sizes", a.shape)
        setattr(ctx, f"{name}_sym_strides", tuple(st // a.itemsize for st in a.strides))


def _mat2_grad(x, g, column_major: bool):
    """``x.T @ g``, laid out as mat2 was: for ``weight.t()`` (column-major) PyTorch computes
    ``(g.T @ x).T``, so that the weight's own gradient comes out row-major."""
    return (g.T @ x).T if column_major else x.T @ g


class MmBackward0(Function):
    """out = x @ y (matrices);  dx = g @ y.T,  dy = x.T @ g"""

    promotes = False
    saved_names, pack_order = ("self", "mat2"), (1, 0)
    saved_values = ("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides")

    @staticmethod
    def forward(ctx, x, y):
        for name, m in (("self", x), ("mat2", y)):
            if m.ndim != 2:
                raise RuntimeError(f"{name} must be a matrix")
        if x.dtype != y.dtype:
            raise RuntimeError(
                "expected m1 and m2 to have the same dtype, but got: "
                f"{c_type_name(x.dtype)} != {c_type_name(y.dtype)}"
            )
        _check_multipliable(x, y)
        # save only what the needed gradients read: dx needs y, dy needs x
        ctx.save_for_backward(
            x if ctx.needs_input_grad[1] else None, y if ctx.needs_input_grad[0] else None
        )
        ctx.column_major = _is_column_major(y)
        _geometry(ctx, self=x, mat2=y)
        return x @ y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        needs_x, needs_y = ctx.needs_input_grad
        return g @ y.T if needs_x else None, _mat2_grad(x, g, ctx.column_major) if needs_y else None


class MvBackward0(Function):
    """out = m @ v (matrix times vector);  dm = outer(g, v),  dv = m.T @ g"""

    promotes = False
    saved_names = ("self", "vec")

    @staticmethod
    def forward(ctx, m, v):
        if m.dtype != v.dtype:  # PyTorch's mv runs as addmv, and says so
            raise RuntimeError(
                "addmv input tensors must have the same dtype, but got "
                + ", ".join(scalar_type_name(d) for d in (v.dtype, m.dtype))
                + f", and {scalar_type_name(v.dtype)}"
            )
        if m.shape[1] != v.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({m.shape[0]}), mat "
                f"({m.shape[0]}x{m.shape[1]}), vec ({v.shape[0]})"
            )
        ctx.save_for_backward(
            m if ctx.needs_input_grad[1] else None, v if ctx.needs_input_grad[0] else None
        )
        return m @ v

    @staticmethod
    def backward(ctx, g):
        m, v = ctx.saved_tensors
        needs_m, needs_v = ctx.needs_input_grad
        return np.expand_dims(g, 1) * v if needs_m else None, m.T @ g if needs_v else None


class DotBackward0(Function):
    """out = sum(x * y) (two vectors);  dx = g * y,  dy = g * x"""

    promotes = False
    saved_names = ("self", "tensor")

    @staticmethod
    def forward(ctx, x, y):
        if x.ndim != 1 or y.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
        if x.dtype != y.dtype:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{scalar_type_name(x.dtype)} and {scalar_type_name(y.dtype)}"
            )
        if x.size != y.size:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{x.size}] and src [{y.size}] to "
                f"have the same number of elements, but got {x.size} and {y.size} elements "
                "respectively"
            )
        ctx.save_for_backward(x, y)
        return np.dot(x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x


class BmmBackward0(Function):
    """out = x[i] @ y[i] for each i of one batch dim;  dx = g @ y^T,  dy = x^T @ g"""

    promotes = False
    saved_names, pack_order = ("self", "mat2"), (1, 0)

    @staticmethod
    def forward(ctx, x, y):
        if x.dtype != y.dtype:
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(x.dtype)} but found "
                + scalar_type_name(y.dtype)
            )
        if y.shape[:2] != (x.shape[0], x.shape[2]):
            raise RuntimeError(
                "Expected size for first two dimensions of batch2 tensor to be: "
                f"[{x.shape[0]}, {x.shape[2]}] but got: [{y.shape[0]}, {y.shape[1]}]."
            )
        ctx.save_for_backward(x, y)
        return np.matmul(x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g @ y.mT, x.mT @ g
