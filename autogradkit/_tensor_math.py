"""A tensor's math beyond the lesson's arithmetic: ``exp``, ``relu``, ``clamp``, ``max``,
``var``, ``softmax``, ``mm``... one line each over the op that records PyTorch's node.

``Tensor`` (``tensor.py``, where the arithmetic, ``sum`` and ``@`` are) builds on
``MathMethods``. Also here: ``where``, a function as in PyTorch.
"""

from __future__ import annotations

import builtins

import numpy as np

from ._dtype import is_number
from .autograd.engine import TensorBase
from .ops import linalg, power, reduce, selection, softmax, statistics, unary

__all__ = ["MathMethods", "as_array", "where"]


def _records(op, *, binary: bool = False):
    """``exp = _records(unary.ExpBackward0)``: the method ``t.exp()``, which records ``op`` on
    ``t`` (with ``binary``, ``t.mm(other)`` on both). It is named after the op, as PyTorch names
    a node after its function (``MmBackward0``: ``mm``), so that ``help(Tensor.mm)``, the
    TypeError of a wrong argument and a traceback through it say ``mm``."""

    def one_tensor(self) -> TensorBase:
        return op.apply(self)

    def two_tensors(self, other: TensorBase) -> TensorBase:
        return op.apply(self, other)

    method = two_tensors if binary else one_tensor
    name = op.__name__.removesuffix("Backward0").lower()
    method.__name__, method.__qualname__ = name, f"MathMethods.{name}"
    method.__code__ = method.__code__.replace(co_name=name)  # a traceback's "in mm"
    return method


class MathMethods:
    """Elementwise functions, reductions and matrix products (``Tensor``'s)."""

    __slots__ = ()  # the slots are TensorBase's

    # one op each, named after its node as PyTorch names a node after its function
    reciprocal = _records(power.ReciprocalBackward0)
    exp = _records(unary.ExpBackward0)
    log = _records(unary.LogBackward0)
    sin = _records(unary.SinBackward0)
    cos = _records(unary.CosBackward0)
    tan = _records(unary.TanBackward0)
    tanh = _records(unary.TanhBackward0)
    sigmoid = _records(unary.SigmoidBackward0)
    relu = _records(unary.ReluBackward0)
    sqrt = _records(unary.SqrtBackward0)
    abs = _records(unary.AbsBackward0)
    __abs__ = abs
    sign = _records(unary.SignBackward0)
    sgn = _records(unary.SgnBackward0)

    def square(self) -> TensorBase:
        return power.PowBackward0.apply(self, 2)

    def clamp(self, min=None, max=None) -> TensorBase:  # noqa: A002
        if min is None and max is None:
            raise RuntimeError("autogradkit.clamp: At least one of 'min' or 'max' must not be None")
        return unary.ClampBackward1.apply(self, min=min, max=max)

    clip = clamp

    def clamp_min(self, min) -> TensorBase:  # noqa: A002
        if isinstance(min, TensorBase):
            return self.clamp(min=min)
        return unary.ClampMinBackward0.apply(self, min=min)

    def clamp_max(self, max) -> TensorBase:  # noqa: A002
        if isinstance(max, TensorBase):
            return self.clamp(max=max)
        return unary.ClampMaxBackward0.apply(self, max=max)

    maximum = _records(selection.MaximumBackward0, binary=True)
    minimum = _records(selection.MinimumBackward0, binary=True)

    def where(self, condition, other) -> TensorBase:
        return where(condition, self, other)

    def masked_fill(self, mask, value) -> TensorBase:
        mask = np.asarray(as_array(mask), dtype=bool)
        fill = selection.MaskedFillBackward0 if is_number(value) else selection.MaskedFillBackward1
        return fill.apply(self, value, mask=mask)

    def var(self, *args, **kwargs) -> TensorBase:
        """The variance over ``dim`` (all elements by default), with ``n - correction``
        degrees of freedom: ``var(dim=None, unbiased=True, keepdim=False, *, correction)``."""
        return statistics.VarBackward0.apply(self, **_spread_arguments(*args, **kwargs))

    def std(self, *args, **kwargs) -> TensorBase:
        """The standard deviation: the square root of ``var`` (same arguments)."""
        return statistics.StdBackward0.apply(self, **_spread_arguments(*args, **kwargs))

    def max(self, dim=None, keepdim=False):
        """``max()``: a tensor; ``max(dim)``: ``(values, indices)``; ``max(other)``: elementwise."""
        if isinstance(dim, TensorBase):
            return self.maximum(dim)
        if dim is None:
            return reduce.MaxBackward1.apply(self)
        return _MinMax(*reduce.MaxBackward0.apply(self, dim=dim, keepdim=keepdim), name="max")

    def min(self, dim=None, keepdim=False):
        if isinstance(dim, TensorBase):
            return self.minimum(dim)
        if dim is None:
            return reduce.MinBackward1.apply(self)
        return _MinMax(*reduce.MinBackward0.apply(self, dim=dim, keepdim=keepdim), name="min")

    def argmax(self, dim=None, keepdim=False) -> TensorBase:
        return self._wrap(np.argmax(self._data, axis=dim, keepdims=keepdim))

    def argmin(self, dim=None, keepdim=False) -> TensorBase:
        return self._wrap(np.argmin(self._data, axis=dim, keepdims=keepdim))

    def norm(self, p="fro", dim=None, keepdim=False) -> TensorBase:
        """The vector p-norm over ``dim`` (all elements by default); "fro" is p = 2."""
        p = 2 if p == "fro" else p
        return statistics.LinalgVectorNormBackward0.apply(self, p=p, dim=dim, keepdim=keepdim)

    def logsumexp(self, dim, keepdim=False) -> TensorBase:
        return reduce.LogsumexpBackward0.apply(self, dim=dim, keepdim=keepdim)

    def prod(self, dim=None, keepdim=False) -> TensorBase:
        if dim is None:
            return reduce.ProdBackward0.apply(self)
        return reduce.ProdBackward1.apply(self, dim=dim, keepdim=keepdim)

    def softmax(self, dim) -> TensorBase:
        return softmax.SoftmaxBackward0.apply(self, dim=dim)

    def log_softmax(self, dim) -> TensorBase:
        return softmax.LogSoftmaxBackward0.apply(self, dim=dim)

    mm = _records(linalg.MmBackward0, binary=True)
    mv = _records(linalg.MvBackward0, binary=True)
    dot = _records(linalg.DotBackward0, binary=True)


class _MinMax(tuple):
    """``(values, indices)`` of ``max(dim)``/``min(dim)``, printed as PyTorch prints it."""

    def __new__(cls, values, indices, name):
        obj = super().__new__(cls, (values, indices))
        obj.name = name
        return obj

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self) -> str:
        return f"autogradkit.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _spread_arguments(dim=..., unbiased=..., keepdim=False, *, correction=None) -> dict:
    """var/std's arguments; PyTorch keeps ``correction`` None only when none was given."""
    if isinstance(dim, builtins.bool):  # var(False): the (unbiased) overload
        dim, unbiased = ..., dim
    if correction is None and (dim is not ... or unbiased is not ...):
        correction = 0 if unbiased is False else 1
    return {"dim": None if dim is ... else dim, "correction": correction, "keepdim": keepdim}


def as_array(value):
    """A Tensor's array; anything else as it is (a number, a NumPy array, a list)."""
    return value._data if isinstance(value, TensorBase) else value


def where(condition, input, other) -> TensorBase:  # noqa: A002
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed for either)."""
    condition = np.asarray(as_array(condition), dtype=bool)
    return selection.WhereBackward0.apply(input, other, condition=condition)
