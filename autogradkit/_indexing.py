"""``x[index]``: basic indexing becomes a chain of select/slice/unsqueeze views, as in
PyTorch (so ``m[0, 1:]`` records SliceBackward0 over SelectBackward0); anything else is one
``IndexBackward0`` op."""

from __future__ import annotations

import numpy as np

from ._tensor_math import as_array
from .ops import indexing, movement

__all__ = ["getitem", "indexed", "normalize_index", "is_advanced"]


def normalize_index(index) -> tuple:
    """The index as a tuple NumPy understands (Tensors and lists become arrays)."""
    if not isinstance(index, tuple):
        index = (index,)
    return tuple(np.asarray(i) if isinstance(i, list) else as_array(i) for i in index)


def is_advanced(item) -> bool:
    """True for an item of a normalized index that makes NumPy's advanced indexing."""
    return isinstance(item, (np.ndarray, bool, np.bool_))


def _refuse_on_0d(index: tuple) -> None:
    """PyTorch's errors for a slice or several indices into a 0-dim tensor (None, ``...`` and bool
    masks still work; a lone integer is handled in ``getitem``)."""
    used = [i for i in index if i is not None and i is not Ellipsis and np.asarray(i).dtype != bool]
    if not used:
        return
    if len(index) == 1 and isinstance(index[0], slice):  # with ... or None: "too many"
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    raise IndexError("too many indices for tensor of dimension 0")


def _check_index_tensors(x, index: tuple, specified: int) -> None:
    """PyTorch's error for an index tensor out of range. It names the index tensor's place
    among the index tensors (``x[:, t]`` speaks of dimension 0), not the dim it indexes."""
    dim = position = 0
    for item in index:
        if item is Ellipsis:
            dim += x.ndim - specified
        elif isinstance(item, np.ndarray) and item.dtype.kind in "iu" and dim < x.ndim:
            size = x.shape[dim]
            outside = item[(item < -size) | (item >= size)]
            if outside.size:
                raise IndexError(
                    f"index {outside.flat[0]} is out of bounds for dimension {position} with "
                    f"size {size}"
                )
            dim, position = dim + 1, position + 1
        elif isinstance(item, np.ndarray) and item.dtype == bool:
            dim, position = dim + item.ndim, position + item.ndim
        elif item is not None:
            dim += 1


def getitem(x, index):
    """``x[index]``: a new tensor, a view of ``x`` even when the index keeps all of it."""
    out = indexed(x, index)
    return movement.ViewBackward0.apply(x, shape=x.shape) if out is x else out


def indexed(x, index):
    """``x[index]``, or ``x`` itself for an index that keeps all of it (``x[:]``, ``x[...]``,
    ``x[0:, :]``): ``x[:] = v`` writes into x itself, as in PyTorch."""
    if x.ndim == 0 and isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        if index != 0:  # PyTorch reads a 0-dim tensor as size 0 along dimension 0 here
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    index = normalize_index(index)
    if x.ndim == 0:
        _refuse_on_0d(index)
    specified = sum(1 for i in index if i is not None and i is not Ellipsis)
    if any(is_advanced(i) for i in index):
        _check_index_tensors(x, index, specified)
        return indexing.IndexBackward0.apply(x, index=index)
    if specified > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    out, dim, named_dim = x, 0, 0  # named_dim: the dim errors name, counting each item
    every = slice(None)
    for item in index:
        named_dim += x.ndim - specified if item is Ellipsis else 1
        if item is Ellipsis:
            dim += x.ndim - specified
        elif item is None:
            out, dim = out.unsqueeze(dim), dim + 1
        elif isinstance(item, slice):
            if item != slice(None) and item.indices(out.shape[dim]) != (0, out.shape[dim], 1):
                out = indexing.SliceBackward0.apply(out, index=(every,) * dim + (item, ...))
            dim += 1
        else:
            size, position = out.shape[dim], int(item)
            if not -size <= position < size:
                raise IndexError(
                    f"index {position} is out of bounds for dimension {named_dim - 1} "
                    f"with size {size}"
                )
            out = indexing.SelectBackward0.apply(out, index=(every,) * dim + (position, ...))
    return out
