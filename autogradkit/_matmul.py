"""``x @ y``: which of dot, mv, mm or a batched product PyTorch's matmul records, by shapes.

A student who prints ``(x @ w).grad_fn`` sees the node PyTorch would show, so the policy
(fold a batch of rows into one mm, or expand both operands into one bmm) is PyTorch's own.
"""

from __future__ import annotations

import numpy as np

from ._shape import broadcast_shape
from .ops.linalg import BmmBackward0
from .ops.movement import SqueezeBackward4, UnsafeViewBackward0

__all__ = ["matmul"]


def matmul(x, y):
    """``x @ y`` for tensors of any dims, picked as PyTorch's matmul picks."""
    a, b = x.ndim, y.ndim
    if a == 0 or b == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D"
        )
    if a == 1 and b == 1:
        return x.dot(y)
    if a == 2 and b == 1:
        return x.mv(y)
    if a == 1 and b == 2:
        rows = x.unsqueeze(0).mm(y)  # PyTorch squeezes its own result in place
        return SqueezeBackward4.apply(rows, dims=0)
    if a == 2 and b == 2:
        return x.mm(y)
    if _should_fold(x, y):
        return _folded(x, y)
    return _batched(x, y)


def _should_fold(x, y) -> bool:
    """PyTorch's rule for a product of 3+ dims with 1 or 2 dims: fold the larger operand into
    rows (one mm or mv) when the smaller one needs grad, or when folding copies nothing."""
    x_larger = x.ndim >= y.ndim
    big = x._data if x_larger else np.swapaxes(y._data, -1, -2)
    small = y if x_larger else x
    if small.ndim > 2:  # (big has 3+ dims: matmul calls this only then)
        return False
    if small.requires_grad:
        return True
    if x.ndim == 2:
        return False
    if big.size == 0:
        return True
    strides = big.strides  # bytes, not elements: the same test either way
    return all(strides[i] == strides[i + 1] * big.shape[i + 1] for i in range(big.ndim - 2))


def _folded(x, y):
    """The larger operand's leading dims folded into rows: one mm (or mv), unfolded after."""
    transpose = y.ndim > x.ndim  # then fold y.mT and transpose the result back
    big = y.mT if transpose else x
    small = (x.t() if x.ndim == 2 else x) if transpose else y
    rows = big.reshape(int(np.prod(big.shape[:-1], dtype=np.int64)), big.shape[-1])
    if small.ndim == 1:
        return UnsafeViewBackward0.apply(rows.mv(small), shape=tuple(big.shape[:-1]))
    out = UnsafeViewBackward0.apply(rows.mm(small), shape=(*big.shape[:-1], small.shape[1]))
    return out.mT.contiguous() if transpose else out


def _batched(x, y):
    """Both operands expanded to one broadcast batch of matrices, then one bmm."""
    a, b = x.ndim, y.ndim
    n, m1 = (x.shape[-2] if a > 1 else 1), x.shape[-1]
    m2, p = (y.shape[-2], y.shape[-1]) if b > 1 else (y.shape[0], 1)
    batch1, batch2 = tuple(x.shape[:-2]), tuple(y.shape[:-2])
    if a == 3 and b == 3 and batch1[0] != batch2[0]:  # a batch of one that needs grad
        if batch1[0] == 1 and x.requires_grad:
            return x.squeeze(0).matmul(y)
        if batch2[0] == 1 and y.requires_grad:
            return x.matmul(y.squeeze(0))
    batch = broadcast_shape(batch1, batch2)
    count = int(np.prod(batch, dtype=np.int64))
    xs = x.expand(*batch, n, m1).reshape(count, n, m1)
    if b == 1:
        ys = y.expand(*batch, m2).reshape(count, m2).unsqueeze(2)
    else:
        ys = y.expand(*batch, m2, p).reshape(count, m2, p)
    out = BmmBackward0.apply(xs, ys)
    shape = batch + ((n,) if a > 1 else ()) + ((p,) if b > 1 else ())
    return UnsafeViewBackward0.apply(out.squeeze(-1) if b == 1 else out, shape=shape)
