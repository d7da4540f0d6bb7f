"""A tensor's shape and movement methods: ``view``, ``reshape``, ``permute``, ``t[0]``...

Each records PyTorch's node (``ops/movement.py``, ``ops/joining.py``); a view shares its
base's memory and version counter (``Function.apply`` makes it, for ops marked ``is_view``).
``Tensor`` (``tensor.py``) builds on ``MovementMethods``.
"""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from . import _dtype
from ._indexing import getitem
from ._shape import check_expandable, normalize_dim
from .autograd.engine import TensorBase
from .ops import joining, movement

__all__ = ["MovementMethods"]

_T_WARNING = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*autogradkit.arange(x.ndim - 1, -1, -1))` to reverse "
    "the dimensions of a tensor."
)

_IDENTITY = "Tensor.{} is deprecated on 0-D tensors. This function is the identity in these cases."


class MovementMethods:
    """Shape and movement (``Tensor``'s): views, copies in another layout, pieces."""

    __slots__ = ()  # the slots are TensorBase's

    def is_contiguous(self) -> bool:
        return self._data.flags.c_contiguous

    def stride(self, dim=None):
        """How many elements apart the neighbours along each dim sit in memory."""
        strides = tuple(st // self._data.itemsize for st in self._data.strides)
        return strides if dim is None else strides[normalize_dim(dim, self.ndim)]

    def contiguous(self) -> TensorBase:
        return (
            self if self.is_contiguous() else movement.CloneBackward0.apply(self, contiguous=True)
        )

    def clone(self) -> TensorBase:
        return movement.CloneBackward0.apply(self)

    def view(self, *shape) -> TensorBase:
        if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
            raise NotImplementedError("view(dtype) is not supported by autogradkit")
        return movement.ViewBackward0.apply(self, shape=self._infer_shape(shape))

    def view_as(self, other: TensorBase) -> TensorBase:
        return self.view(other.shape)

    def reshape(self, *shape) -> TensorBase:
        shape = self._infer_shape(shape)
        try:
            np.reshape(self._data, shape, copy=False)
        except ValueError:  # not as a view: a contiguous copy, viewed (as PyTorch records it)
            copy = movement.CloneBackward0.apply(self, contiguous=True)
            return movement.UnsafeViewBackward0.apply(copy, shape=shape)
        if self.is_contiguous():
            return movement.ViewBackward0.apply(self, shape=shape)
        return movement.ReshapeAliasBackward0.apply(self, shape=shape)  # a view of strided memory

    def reshape_as(self, other: TensorBase) -> TensorBase:
        return self.reshape(other.shape)

    def _infer_shape(self, shape) -> tuple:
        shape = tuple(builtins.int(s) for s in _one_tuple(shape))
        if shape.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = math.prod(s for s in shape if s != -1)
        if shape.count(-1) == 1 and known and self._data.size % known == 0:
            shape = tuple(self._data.size // known if s == -1 else s for s in shape)
        if np.prod(shape, dtype=np.int64) != self._data.size or shape.count(-1):
            raise RuntimeError(
                f"shape '{list(shape)}' is invalid for input of size {self._data.size}"
            )
        return shape

    def flatten(self, start_dim=0, end_dim=-1) -> TensorBase:
        if self.ndim == 0:
            return self.reshape(1)
        start, end = normalize_dim(start_dim, self.ndim), normalize_dim(end_dim, self.ndim)
        if start == end:
            return self
        return self.reshape(*self.shape[:start], -1, *self.shape[end + 1 :])

    def squeeze(self, dim=None) -> TensorBase:
        if dim is None:
            return movement.SqueezeBackward0.apply(self)
        if isinstance(dim, builtins.int):  # squeeze(dim) and squeeze(dims) are two overloads
            return movement.SqueezeBackward1.apply(self, dims=dim)
        return movement.SqueezeBackward2.apply(self, dims=tuple(dim))

    def flip(self, *dims) -> TensorBase:
        """The elements in reverse order along ``dims`` (a copy, as in PyTorch)."""
        return movement.FlipBackward0.apply(self, dims=_one_tuple(dims))

    def unsqueeze(self, dim: int) -> TensorBase:
        return movement.UnsqueezeBackward0.apply(self, dim=dim)

    def expand(self, *sizes) -> TensorBase:
        sizes = _one_tuple(sizes)
        lead = len(sizes) - self.ndim
        shape = tuple(self._data.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        check_expandable(self._data.shape, shape, self._data.dtype)  # PyTorch's words
        return movement.ExpandBackward0.apply(self, shape=shape)

    def expand_as(self, other: TensorBase) -> TensorBase:
        return self.expand(other.shape)

    def permute(self, *dims) -> TensorBase:
        if not dims:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        return movement.PermuteBackward0.apply(self, dims=_one_tuple(dims))

    def transpose(self, dim0: int, dim1: int) -> TensorBase:
        return movement.TransposeBackward0.apply(self, dim0=dim0, dim1=dim1)

    def t(self) -> TensorBase:
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
            )
        return movement.TBackward0.apply(self)

    @property
    def T(self) -> TensorBase:
        """All dims reversed (``PermuteBackward0``), as ``x.T`` is in PyTorch."""
        if self.ndim != 2:
            warnings.warn(_T_WARNING if self.ndim else _IDENTITY.format("T"), stacklevel=2)
        return movement.PermuteBackward0.apply(self, dims=tuple(reversed(range(self.ndim))))

    @property
    def mT(self) -> TensorBase:
        """The last two dims swapped: a batch of matrices, each transposed."""
        if self.ndim == 0:
            warnings.warn(_IDENTITY.format("mT"), UserWarning, stacklevel=2)
            return self
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
            )
        return self.transpose(-2, -1)

    def split(self, split_size_or_sections, dim: int = 0) -> tuple:
        """Pieces of ``split_size`` along ``dim`` (the last may be shorter), or of given sizes."""
        if isinstance(split_size_or_sections, (list, tuple)):
            sizes = tuple(split_size_or_sections)
            return joining.SplitWithSizesBackward0.apply(self, sizes=sizes, dim=dim)
        size, length = split_size_or_sections, self.size(dim)
        if size < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={size}"
            )
        if size == 0 and length:
            raise RuntimeError(
                "split_size can only be 0 if dimension size is 0, but got dimension size of "
                f"{length}"
            )
        full, rest = divmod(length, size) if size else (1, 0)  # of a size-0 dim: one empty piece
        sizes = [size] * full + ([rest] if rest else [])
        return joining.SplitBackward0.apply(self, sizes=tuple(sizes), dim=dim, split_size=size)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        """At most ``chunks`` pieces of equal size along ``dim`` (the last may be smaller)."""
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        return self.split(max(1, -(-self.size(dim) // chunks)), dim)

    def unbind(self, dim: int = 0) -> tuple:
        """Every slice along ``dim``, that dim removed."""
        return joining.UnbindBackward0.apply(self, dim=dim)

    def __getitem__(self, index) -> TensorBase:
        return getitem(self, index)


def _one_tuple(args: tuple) -> tuple:
    """``x.permute(1, 0)`` or ``x.permute((1, 0))``: the ints as one tuple."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)
