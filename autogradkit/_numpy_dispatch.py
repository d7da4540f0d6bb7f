"""NumPy functions on Tensors: ``np.exp(t)`` runs ``t.exp()``.

Op backward code is written with NumPy functions. With plain arrays it runs as NumPy; when
``create_graph=True`` hands it Tensors, these tables send each call to the Tensor op, so the
backward pass itself is recorded and can be differentiated again.
"""

from __future__ import annotations

import operator

import numpy as np

from ._tensor_comparison import ComparisonMethods
from ._tensor_math import MathMethods, where
from .autograd import grad_mode
from .autograd.engine import TensorBase
from .ops.joining import CatBackward0, StackBackward0

__all__ = ["NumpyMethods"]


def _t(value):
    """Tensors stay, Python and NumPy numbers become Python numbers, arrays become Tensors.

    (A NumPy scalar must not stay one: ``np.float64(2) * t`` would come straight back here.)
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (TensorBase, int, float, bool)):
        return value
    return TensorBase._wrap(np.asarray(value))


def _expand_dims(a, axis):
    out = _t(a)
    for ax in sorted(axis if isinstance(axis, tuple) else (axis,)):
        out = out.unsqueeze(ax)
    return out


def _transpose(a, axes=None):
    a = _t(a)
    return a.permute(*(reversed(range(a.ndim)) if axes is None else axes))


def _reduction(name: str):
    """``np.sum(t, axis, keepdims=k)`` runs ``t.sum(axis, k)`` (the same for mean and prod)."""

    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return getattr(_t(a), name)(axis, keepdims)

    return reduce


def _like(value):
    def make(a, dtype=None, **kwargs):
        shape_and_fill = (a.shape, value, a._data.dtype if dtype is None else dtype)
        return TensorBase._wrap(np.full(*shape_and_fill))

    return make


_UFUNCS = {  # each called with its inputs through _t
    np.add: operator.add,
    np.subtract: operator.sub,
    np.multiply: operator.mul,
    np.true_divide: operator.truediv,
    np.power: operator.pow,
    np.floor_divide: operator.floordiv,
    np.matmul: operator.matmul,
    np.greater: operator.gt,
    np.greater_equal: operator.ge,
    np.less: operator.lt,
    np.less_equal: operator.le,
    np.equal: operator.eq,
    np.not_equal: operator.ne,
    np.bitwise_and: operator.and_,
    np.bitwise_or: operator.or_,
    np.negative: operator.neg,
    np.positive: operator.pos,
    np.absolute: MathMethods.abs,
    np.isnan: ComparisonMethods.isnan,
}
_SAME_NAME = ("exp", "log", "sin", "cos", "tanh", "sqrt", "sign", "maximum", "minimum")
_UFUNCS.update({getattr(np, name): getattr(MathMethods, name) for name in _SAME_NAME})

_FUNCTIONS = {
    np.sum: _reduction("sum"),
    np.mean: _reduction("mean"),
    np.prod: _reduction("prod"),
    np.any: lambda a: _t(a).any(),  # over everything only: an axis is a TypeError, not ignored
    np.reshape: lambda a, shape, *args, **kwargs: _t(a).reshape(shape),
    np.broadcast_to: lambda a, shape, **kw: _t(a).expand(shape),
    np.transpose: _transpose,
    np.swapaxes: lambda a, i, j: _t(a).transpose(i, j),
    np.flip: lambda a, axis: _t(a).flip(axis),
    np.expand_dims: _expand_dims,
    np.squeeze: lambda a, axis=None: _t(a).squeeze(axis),  # an int, a sequence or None
    np.where: where,
    np.concatenate: lambda arrays, axis=0, **kw: CatBackward0.apply(*map(_t, arrays), dim=axis),
    np.stack: lambda arrays, axis=0, **kw: StackBackward0.apply(*map(_t, arrays), dim=axis),
    np.ndim: lambda a: a.ndim,
    np.shape: lambda a: tuple(a.shape),
    np.zeros_like: _like(0),
    np.ones_like: _like(1),
}


class NumpyMethods:
    """A tensor as NumPy sees it (``Tensor``'s): ``t.numpy()``, ``np.asarray(t)``, and NumPy's
    functions called on it (``np.exp(t)`` runs ``t.exp()``, through the tables above)."""

    __slots__ = ()  # the slots are TensorBase's

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array behind this tensor (shared memory, as in PyTorch)."""
        if self._requires_grad and grad_mode._enabled and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``np.exp(t)`` runs ``t.exp()``: how an op's backward, written with NumPy, records a
        graph when ``create_graph=True`` hands it Tensors."""
        handler = _UFUNCS.get(ufunc)
        if method != "__call__" or handler is None or kwargs.get("out") is not None:
            return NotImplemented
        return handler(*map(_t, inputs))

    def __array_function__(self, func, types, args, kwargs):
        """``np.sum(t)``, ``np.where(c, t, 0)``...: the same, for NumPy's functions."""
        handler = _FUNCTIONS.get(func)
        if handler is None:
            return NotImplemented
        return handler(*args, **kwargs)
