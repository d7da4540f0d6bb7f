"""What ``ctx.saved_tensors`` hands backward beyond a built-in op's arrays.

``ctx.save_for_backward`` keeps each value with its origin (a ``SavedOrigin``: the input
Tensor it is, or the output, or the Python number it was made from, and that tensor's
version then), and ``ctx.saved_tensors`` hands a built-in op's backward its arrays, checked
against in-place changes: both in ``engine.py``, on the lesson's path. Here, beside it,
the rest (``unpack_all``): Tensors for ``create_graph`` and your own Functions, values a
pack hook holds (each a ``Packed`` that unpacks itself: ``saved_fields.PackedByHook``, beside
the core), and PyTorch's error once backward freed them. This file imports the engine,
which cannot import it back: it hands ``unpack_all`` to ``FunctionCtx`` when it loads (at
the end). PyTorch's names for saved values (``grad_fn._saved_self``) and pack hooks are in
``saved_fields.py``.
"""

from __future__ import annotations

import numpy as np

from . import grad_mode
from .engine import FREED, FunctionCtx, Packed, TensorBase
from .variable import FREED_MESSAGE, version_message

__all__ = ["check_version", "output_node", "unpack_all", "unpack_one"]


def unpack_all(node) -> tuple:
    """What backward reads when it is not plain arrays (``ctx.saved_tensors`` has that fast
    path, and answers () itself for a node that saved nothing): Tensors for create_graph or
    your own Function, and what hooks unpack; each checked against in-place changes since it
    was saved, in PyTorch's order (a printing hook tells)."""
    saved = node._saved
    if saved is FREED:
        raise RuntimeError(FREED_MESSAGE)
    plain = not node._custom and not grad_mode._enabled
    values = list(saved)
    for i in node.pack_order or range(len(saved)):
        value, meta = saved[i], node._saved_meta[i]
        if isinstance(value, Packed):  # (saved_fields.py's, beside the core)
            values[i] = value.unpack()._data if plain else value.restore(meta, node)
            continue
        check_version(value, meta, node)
        if not plain:
            values[i] = unpack_one(value, meta, node)
    return tuple(values)


def check_version(value, meta, node) -> None:
    """PyTorch's error when a saved tensor was changed in place after it was saved."""
    if meta is not None and meta.counter is not None and meta.counter.value != meta.version:
        raise RuntimeError(version_message(value, meta, node))


def unpack_one(value, meta, node):
    """A saved value as a Tensor that is part of the graph (for create_graph=True)."""
    if value is None or meta is None or meta.counter is None:
        return value if value is None or isinstance(value, TensorBase) else TensorBase._wrap(value)
    if meta.is_output:  # an output: a new Tensor made by this node (indices get no grad_fn)
        data = value._data if isinstance(value, TensorBase) else value
        fn = value._grad_fn if isinstance(value, TensorBase) else output_node(node, data)
        t = TensorBase._wrap(data, fn, meta.output_nr)
        t._version_counter = meta.counter
        return t
    return meta.tensor


def output_node(node, data):
    """The ``grad_fn`` of an output ``node`` saved: None for integer data (indices)."""
    return node if np.asarray(data).dtype.kind == "f" else None


FunctionCtx._unpack_all = unpack_all  # what ctx.saved_tensors (engine.py) runs beyond arrays
