"""Shapes: ``Size``, broadcasting, and the one place gradients are summed back to a shape."""

from __future__ import annotations

import numpy as np

from . import _dtype


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``autogradkit.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"autogradkit.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n


def broadcast_shape(*shapes: tuple) -> tuple:
    """The broadcast of several shapes, with PyTorch's error when they do not fit.

    As PyTorch's ``infer_size``: the shapes are joined pairwise, each pair from the last dim
    back, so the error names the last dim that does not fit (a: the shape so far, b: the next).
    """
    out = tuple(shapes[0])
    for shape in shapes[1:]:
        ndim = max(len(out), len(shape))
        joined = []
        for dim in range(ndim - 1, -1, -1):
            a = out[dim - ndim + len(out)] if dim >= ndim - len(out) else 1
            b = shape[dim - ndim + len(shape)] if dim >= ndim - len(shape) else 1
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                    f"at non-singleton dimension {dim}"
                )
            joined.append(b if a == 1 else a)
        out = tuple(reversed(joined))
    return out


def is_expandable_to(shape: tuple, target: tuple) -> bool:
    """True when ``shape`` broadcasts to ``target``."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(target)))


def check_expandable(shape: tuple, target: tuple, dtype) -> None:
    """PyTorch's error when an array of ``shape`` cannot be expanded to ``target``."""
    lead = len(target) - len(shape)
    if lead < 0:
        raise RuntimeError(
            f"expand(autogradkit.{_dtype.from_numpy(dtype)._tensor_type}{{{list(shape)}}}, "
            f"size={list(target)}): the number of sizes provided ({len(target)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    for dim, size in enumerate(shape, start=lead):
        if size != target[dim] and size != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[dim]}) must match the existing size "
                f"({size}) at non-singleton dimension {dim}.  Target sizes: {list(target)}.  "
                f"Tensor sizes: {list(shape)}"
            )


def unbroadcast(g, shape: tuple):
    """Sum ``g`` down to ``shape``: the gradient of broadcasting ``shape`` up to ``g.shape``.

    Works on arrays and on Tensors alike (NumPy dispatches ``np.sum`` to Tensors), so the
    engine can use it when ``create_graph=True`` builds a graph of the backward pass. (An
    array sums with its own method: NumPy's ``np.sum`` wrapper costs more than a small sum.)
    """
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1
    )
    if axes:
        if type(g) is np.ndarray:
            g = g.sum(axis=axes, keepdims=True)
        else:
            g = np.sum(g, axis=axes, keepdims=True)
    if lead:
        g = np.reshape(g, shape)
    return g


def normalize_dim(dim: int, ndim: int) -> int:
    """A dim in ``[-ndim, ndim)`` as a non-negative axis, with PyTorch's IndexError."""
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})"
        )
    return dim % rank


def normalize_dims(dim, ndim: int) -> tuple | None:
    """``None`` (all dims), an int, or a sequence of ints, as a tuple of axes (none for a
    0-dim tensor, whose dim 0 or -1 PyTorch accepts and reduces over nothing)."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    axes = [normalize_dim(int(d), ndim) for d in dim]
    for i, axis in enumerate(axes):
        if axis in axes[:i]:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
    return tuple(sorted(axes)) if ndim else ()
