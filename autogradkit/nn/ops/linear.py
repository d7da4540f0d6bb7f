"""What ``nn.Linear`` records: ``AddmmBackward0``, the bias added to a matrix product in one
node. It shares mm's checks and its gradient's layout (``ops/linalg.py``)."""

from __future__ import annotations

from ... import _shape
from ..._dtype import scalar_type_name
from ...autograd.engine import Function
from ...ops.linalg import _check_multipliable, _geometry, _is_column_major, _mat2_grad

__all__ = ["AddmmBackward0"]


class AddmmBackward0(Function):
    """out = b + x @ w;  db = g,  dx = g @ w.T,  dw = x.T @ g"""

    promotes = False
    saved_names = ("mat1", "mat2")
    saved_values = ("alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides")
    saved_values += ("mat2_sym_sizes", "mat2_sym_strides")

    @staticmethod
    def forward(ctx, b, x, w):
        if x.dtype != w.dtype:  # addmm words this differently from mm
            raise RuntimeError(
                "mat1 and mat2 must have the same dtype, but got "
                f"{scalar_type_name(x.dtype)} and {scalar_type_name(w.dtype)}"
            )
        _check_multipliable(x, w)
        if b.dtype != w.dtype:
            raise RuntimeError(
                "self and mat2 must have the same dtype, but got "
                f"{scalar_type_name(b.dtype)} and {scalar_type_name(w.dtype)}"
            )
        ctx.save_for_backward(
            x if ctx.needs_input_grad[2] else None, w if ctx.needs_input_grad[1] else None
        )
        ctx.column_major = _is_column_major(w)
        ctx.alpha = ctx.beta = 1
        _geometry(ctx, mat1=x, mat2=w)
        out = x @ w
        try:
            out += b  # the same sum as b + x @ w, without a second (n, p) array
        except ValueError:  # the bias does not fit: say so in PyTorch's words
            _shape.check_expandable(b.shape, out.shape, b.dtype)
            raise
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return (
            g,
            g @ w.T if ctx.needs_input_grad[1] else None,
            _mat2_grad(x, g, ctx.column_major) if ctx.needs_input_grad[2] else None,
        )
