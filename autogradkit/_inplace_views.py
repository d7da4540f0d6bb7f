"""In-place ops through a view, as PyTorch records them: ``y[0].mul_(3)`` gives the base
``y`` a ``CopySlices`` node, and every view of ``y`` is made again from ``y`` as it is now.

Beside the core: no core module imports this file (the package root does). ``_inplace.py``'s
``inplace`` runs it through the two hooks it leaves for it, which this file fills when it
loads: for an op on a view (``inplace_on_view``), and for an op on a tensor that has views
(``remake_views``).
"""

from __future__ import annotations

import numpy as np

from . import _inplace
from ._inplace import check_inplace
from .autograd.engine import FREED, Function, FunctionCtx, TensorBase, link
from .autograd.variable import FREED_MESSAGE, increment_version
from .ops.indexing import IndexPutBackward0

__all__ = ["AsStridedBackward0", "CopySlices", "inplace_on_view", "remake_views"]


def inplace_on_view(view, compute, args, kwargs):
    """``y[0].mul_(3)``, as PyTorch records it: the op runs on a stand-in for the view's
    old value, one CopySlices node on the base holds the op's node, and the view is made
    again from the new base (AsStridedBackward0). Any view works (``y[0][1:]``, ``y.T``):
    its place in the base is found from the memory both share."""
    base = view._base
    check_inplace(base, "a view of a leaf Variable")
    index, geometry = _place_in_base(view._data, base._data)
    stand_in = TensorBase._wrap(view._data.copy())
    stand_in._requires_grad = True  # the op's first input: CopySlices routes its gradient
    result = compute(stand_in, *args, **kwargs)
    node = CopySlices(base, index, result._grad_fn)
    view._data[...] = result._data  # through the view, into the base's memory
    increment_version(base)  # the counter is shared with the view: it moves once for both
    base._grad_fn, base._output_nr, base._requires_grad = node, 0, True
    _view_again(view, base, index, geometry)
    remake_views(base, done=view)
    return view


def remake_views(base, done=None) -> None:
    """Each other live view of ``base`` made again from the base as it is now (its
    grad_fn an AsStridedBackward0 on the base's new node): a gradient through a view made
    before the in-place op then sees the op, as in PyTorch."""
    for ref in getattr(base._version_counter, "views", ()):
        view = ref()
        if view is not None and view is not done:
            _view_again(view, base, *_place_in_base(view._data, base._data))


class AsStridedBackward0(Function):
    """out = the base's elements at ``index``: a view made again after an in-place op (size,
    strides and offset noted, as PyTorch keeps them);  dx = zeros with g added there"""

    is_view = True
    saved_values = ("size", "storage_offset", "stride")

    @staticmethod
    def forward(ctx, x, *, index, size, stride, storage_offset):
        ctx.self_sym_sizes, ctx.dtype, ctx.region = x.shape, x.dtype, index
        ctx.size, ctx.stride, ctx.storage_offset = size, stride, storage_offset
        return x[index]

    @staticmethod
    def backward(ctx, g):
        zeros = np.zeros(ctx.self_sym_sizes, ctx.dtype)
        return IndexPutBackward0.call(zeros, g, index=ctx.region, accumulate=True)


def _view_again(view, base, index, geometry) -> None:
    remade = AsStridedBackward0.apply(base, index=index, **geometry)
    view._grad_fn, view._output_nr, view._requires_grad = remade._grad_fn, 0, True


class CopySlices(FunctionCtx):
    """The node of an in-place op on a view (``y[0].mul_(3)``, ``y[0] = v``), set on the base.

    It holds the op's own node and, as in PyTorch, stands in for it: its first edge
    leads to the base's old value, the others to the op's other inputs. Hooks on it, and on
    the base, run as on any node.
    """

    __module__ = "builtins"

    def __init__(self, base, index, fn):
        super().__init__()
        self._fn, self._index = fn, index
        self._saved = fn._saved  # what backward needs is what the op saved
        link(self, (base,))  # the first edge: the base's old value
        self.next_functions += fn.next_functions[1:]
        self._input_meta += fn._input_meta[1:]

    def name(self) -> str:
        return "autogradkit::autograd::CopySlices"

    @staticmethod
    def backward(node, g):
        """The op's gradients for the view's region; the rest of the base passes through."""
        if node._saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        grads = node._fn._backward([g[node._index]])
        into_view = 0 if grads[0] is None else grads[0]
        return (IndexPutBackward0.call(g, into_view, index=node._index),) + tuple(grads[1:])


def _addresses(a: np.ndarray) -> np.ndarray:
    """The memory address of every element of ``a``, in ``a``'s shape."""
    grids = np.indices(a.shape, sparse=True)  # each dim's index, shaped to broadcast
    offsets = sum(index * stride for index, stride in zip(grids, a.strides))
    return np.full(a.shape, a.__array_interface__["data"][0], dtype=np.intp) + offsets


def _place_in_base(view: np.ndarray, base: np.ndarray):
    """Where a view's elements sit in its base: an index into the base (one array per dim),
    and the view's size, strides and offset as PyTorch's AsStridedBackward0 keeps them."""
    cells = _addresses(base).reshape(-1)
    order = np.argsort(cells, kind="stable")
    found = order[np.searchsorted(cells[order], _addresses(view))]
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    geometry = {
        "size": view.shape,
        "stride": tuple(st // view.itemsize for st in view.strides),
        "storage_offset": start // view.itemsize,
    }
    return np.unravel_index(found, base.shape), geometry


_inplace.inplace_on_view = inplace_on_view  # the hooks _inplace.inplace calls
_inplace.remake_views = remake_views
