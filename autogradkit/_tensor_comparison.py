"""Comparisons and tests of a tensor: ``a == b``, ``a < 0``, ``~mask``, ``t.all()``,
``t.allclose(u)``. No gradient: the results are bool tensors (or Python bools).

``Tensor`` (``tensor.py``) builds on ``ComparisonMethods``.
"""

from __future__ import annotations

import builtins

import numpy as np

from ._tensor_math import as_array
from .autograd.engine import TensorBase

__all__ = ["ComparisonMethods"]


def _elementwise(np_function):
    """``eq = _elementwise(np.equal)``: the method that runs ``np_function`` on the tensor's
    array and ``other``'s, elementwise (no graph)."""

    def method(self, other) -> TensorBase:
        return self._wrap(np_function(self._data, as_array(other)))

    return method


class ComparisonMethods:
    """Elementwise comparisons and logic, and whole-tensor tests (``Tensor``'s)."""

    __slots__ = ()  # the slots are TensorBase's

    def all(self) -> TensorBase:
        return self._wrap(np.all(self._data))

    def any(self) -> TensorBase:
        return self._wrap(np.any(self._data))

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        return builtins.bool(np.allclose(self._data, as_array(other), rtol, atol, equal_nan))

    def equal(self, other) -> bool:
        return self.shape == other.shape and builtins.bool(np.all(self._data == other._data))

    eq = _elementwise(np.equal)
    ne = _elementwise(np.not_equal)
    lt = _elementwise(np.less)
    le = _elementwise(np.less_equal)
    gt = _elementwise(np.greater)
    ge = _elementwise(np.greater_equal)
    __eq__, __ne__, __lt__, __le__, __gt__, __ge__ = eq, ne, lt, le, gt, ge

    __hash__ = object.__hash__

    def __invert__(self) -> TensorBase:
        return self._wrap(~self._data)

    __and__ = _elementwise(np.bitwise_and)
    __or__ = _elementwise(np.bitwise_or)

    def isnan(self) -> TensorBase:
        return self._wrap(np.isnan(self._data))
