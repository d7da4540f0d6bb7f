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


class ComparisonMethods:
    """Elementwise comparisons and logic, and whole-tensor tests (``Tensor``'s)."""

    __slots__ = ()  # the slots are TensorBase's

    def all(self) -> TensorBase:
        return self._wrap(np.asarray(np.all(self._data)))

    def any(self) -> TensorBase:
        return self._wrap(np.asarray(np.any(self._data)))

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        return builtins.bool(np.allclose(self._data, as_array(other), rtol, atol, equal_nan))

    def equal(self, other) -> bool:
        return self.shape == other.shape and builtins.bool(np.all(self._data == other._data))

    def _compare(self, other, op) -> TensorBase:
        return self._wrap(np.asarray(op(self._data, as_array(other))))

    def eq(self, other):
        return self._compare(other, np.equal)

    def ne(self, other):
        return self._compare(other, np.not_equal)

    def lt(self, other):
        return self._compare(other, np.less)

    def le(self, other):
        return self._compare(other, np.less_equal)

    def gt(self, other):
        return self._compare(other, np.greater)

    def ge(self, other):
        return self._compare(other, np.greater_equal)

    __eq__, __ne__, __lt__, __le__, __gt__, __ge__ = eq, ne, lt, le, gt, ge

    __hash__ = object.__hash__

    def __invert__(self) -> TensorBase:
        return self._wrap(~self._data)

    def __and__(self, other) -> TensorBase:
        return self._wrap(self._data & as_array(other))

    def __or__(self, other) -> TensorBase:
        return self._wrap(self._data | as_array(other))

    def isnan(self) -> TensorBase:
        return self._wrap(np.isnan(self._data))
