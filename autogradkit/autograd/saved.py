"""What forward saved, beyond the lesson: as Tensors, freed, packed, and PyTorch's names.

``ctx.save_for_backward`` keeps each value with its origin (a ``SavedOrigin``: the input
Tensor it is, or the output, or the Python number it was made from, and that tensor's
version then), and ``ctx.saved_tensors`` hands a built-in op's backward its arrays, checked
against in-place changes: both in ``engine.py``, on the lesson's path. Here, beside it:
what ``saved_tensors`` does for everything else (``unpack_all``: Tensors for ``create_graph``
and your own Functions, values a hook packed, the error once backward freed them);
``grad_fn._saved_self`` (``_saved_other``, ``_saved_result``...), a saved value under
PyTorch's names; ``saved_tensors_hooks`` blocks and ``grad_fn._raw_saved_self.register_hooks``,
which pack a value away until it is needed; and what viz asks a node about what it saved.
This file imports the engine, which cannot import it back: it hands ``unpack_all`` to
``FunctionCtx`` when it loads (at the end).
"""

from __future__ import annotations

import functools

import numpy as np

from . import grad_mode
from .engine import (
    FREED,
    NOTHING,
    FunctionCtx,
    Packed,
    SavedOrigin,
    TensorBase,
    grad_accumulator,
    version_message,
)
from .variable import version_counter

__all__ = ["SavedOrigin", "SavedTensor", "add_fields", "describe", "saved_inputs"]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
_PACK_IN_PLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)
# PyTorch keeps these as Scalars (printed as given); its other integer fields are int64,
# which its nodes print as unsigned 64-bit numbers (-1 shows as 18446744073709551615)
_SCALARS = frozenset({"alpha", "beta", "exponent", "min", "max", "negative_slope", "ord"})
_SCALARS |= {"correction", "self", "other"}
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}  # PyTorch keeps its Reduction enum's number


# ----- packing ---------------------------------------------------------------------------------
def pack_all(ctx, results, pack_hook, unpack_hook) -> None:
    """A ``saved_tensors_hooks`` block is active: hand every saved tensor to its pack hook."""
    saved = list(ctx._saved)
    for i in ctx.pack_order or range(len(saved)):
        t = _tensor_to_pack(saved[i], ctx._saved_meta[i], results)
        if t is not None:
            saved[i] = Packed(unpack_hook, _call_pack_hook(pack_hook, t))
    ctx._saved = tuple(saved)


def _tensor_to_pack(value, meta, results):
    """The Tensor a pack hook sees: the input itself, the output, or a new one (None: skip)."""
    if value is None or (meta is not None and meta.counter is None):
        return None  # nothing saved, or a Python number (PyTorch packs neither)
    if meta is None:
        return value if isinstance(value, TensorBase) else TensorBase._wrap(value)
    if meta.is_output:
        return results[meta.output_nr]
    return meta.tensor


def _call_pack_hook(pack_hook, t):
    before = version_counter(t).value
    with grad_mode.no_grad():
        packed = pack_hook(t)
    if version_counter(t).value != before:
        raise RuntimeError(_PACK_IN_PLACE)
    return packed


# ----- reading back ----------------------------------------------------------------------------
def describe(node) -> list[tuple] | None:
    """What ``node`` saved, for pictures (``viz``): one ``(value, tensor, is_output)`` per
    saved value, where ``tensor`` is the input Tensor the value is (else None) and ``value``
    the array, number or None forward saved (a ``Packed`` one while a hook holds it); ``[]``
    for a node that saved nothing, None once backward freed it. Nothing is checked or
    unpacked."""
    values, metas = getattr(node, "_saved", None), getattr(node, "_saved_meta", None)
    if values is None or not metas:
        return []
    if values is FREED:
        return None
    described = []
    for value, meta in zip(values, metas):
        is_input = (
            meta is not None and meta.counter is not None and not meta.is_output
        )  # not a number
        described.append(
            (value, meta.tensor if is_input else None, meta is not None and meta.is_output)
        )
    return described


def saved_inputs(node) -> list:
    """The input tensors ``node`` saved for backward, still known once backward freed their
    values (a picture shows ``b`` beside ``MulBackward0`` after ``backward()`` too)."""
    metas = getattr(node, "_saved_meta", None) or ()
    return [m.tensor for m in metas if m is not None and m.counter is not None and not m.is_output]


def unpack_all(node) -> tuple:
    """What backward reads when it is not plain arrays (``ctx.saved_tensors`` has that fast
    path): Tensors for create_graph or your own Function, and what hooks unpack; each checked
    against in-place changes since it was saved, in PyTorch's order (a printing hook tells)."""
    saved = node._saved
    if saved is FREED:
        raise RuntimeError(FREED_MESSAGE)
    if saved is None:
        return ()
    plain = not node._custom and not grad_mode._enabled
    values = list(saved)
    for i in node.pack_order or range(len(saved)):
        value, meta = saved[i], node._saved_meta[i]
        if isinstance(value, Packed):
            value = value.unpack()
            values[i] = value._data if plain else _as_saved(value, meta, node)
            continue
        check_version(value, meta, node)
        if not plain:
            values[i] = _unpack(value, meta, node)
    return tuple(values)


def check_version(value, meta, node) -> None:
    """PyTorch's error when a saved tensor was changed in place after it was saved."""
    if meta is not None and meta.counter is not None and meta.counter.value != meta.version:
        raise RuntimeError(version_message(value, meta, node))


def _unpack(value, meta, node):
    """A saved value as a Tensor that is part of the graph (for create_graph=True)."""
    if value is None or meta is None or meta.counter is None:
        return value if value is None or isinstance(value, TensorBase) else TensorBase._wrap(value)
    if meta.is_output:  # an output: a new Tensor made by this node (indices get no grad_fn)
        data = value._data if isinstance(value, TensorBase) else value
        fn = value._grad_fn if isinstance(value, TensorBase) else _output_node(node, data)
        t = TensorBase._wrap(data, fn, meta.output_nr)
        t._version_counter = meta.counter
        return t
    return meta.tensor


def _output_node(node, data):
    return node if np.asarray(data).dtype.kind == "f" else None


def _as_saved(t, meta, node):
    """What a hook unpacked, put back in the saved tensor's place in the graph: always a new
    Tensor, as PyTorch makes one (and, as PyTorch, with no version check)."""
    if meta is None or meta.counter is None:
        return TensorBase._wrap(t._data)
    if meta.is_output:
        return TensorBase._wrap(t._data, _output_node(node, t._data), meta.output_nr)
    source = meta.tensor
    out = TensorBase._wrap(t._data, source._grad_fn, source._output_nr)
    out._requires_grad = source._requires_grad
    if source._requires_grad and source._grad_fn is None:  # a leaf: its AccumulateGrad node
        grad_accumulator(source)
        out._accumulator_ref = source._accumulator_ref
    return out


def tensor_at(node, index: int):
    """``grad_fn._saved_<name>``: one saved tensor as PyTorch hands it out (an input is the
    very input object; an output, a number or a hook's result is a new Tensor)."""
    saved, meta = node._saved, node._saved_meta[index]
    if saved is FREED:
        if meta is NOTHING:
            return None
        raise RuntimeError(FREED_MESSAGE)
    value = saved[index]
    if isinstance(value, Packed):
        return _as_saved(value.unpack(), meta, node)
    if value is None:
        return None
    check_version(value, meta, node)
    if meta is not None and meta.counter is None:  # PyTorch wraps a number in a 0-dim tensor
        return TensorBase._wrap(np.asarray(meta.tensor))
    return _unpack(value, meta, node)


def value_at(node, name: str):
    """``grad_fn._saved_dim`` and the other numbers and sizes, printed as PyTorch prints them."""
    value = getattr(node, name)  # what forward noted on ctx (or the op's default, alpha = 1)
    if name == "reduction":
        return _REDUCTIONS[value]
    return _as_printed(value, name in _SCALARS)


def _as_printed(value, scalar: bool):
    if isinstance(value, (tuple, list)):
        return tuple(_as_printed(v, scalar) for v in value)
    if isinstance(value, np.ndarray):
        return TensorBase._wrap(value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool) and value < 0 and not scalar:
        return value + 2**64
    return value


def _tensor_list(node) -> tuple:
    return tuple(tensor_at(node, i) for i in range(len(node._saved_meta)))


def _raw_list(node) -> list:
    return [SavedTensor(node, i) for i in range(len(node._saved_meta))]


def node_properties(tensor_names: tuple, value_names: tuple) -> dict:
    """The ``_saved_<name>`` and ``_raw_saved_<name>`` attributes of one kind of node
    (``*indices``: a list of tensors, every value the node saved)."""
    attrs = {}
    if tensor_names[:1] == ("*indices",):
        attrs["_saved_indices"], attrs["_raw_saved_indices"] = map(
            property, (_tensor_list, _raw_list)
        )
        tensor_names = ()
    for index, name in enumerate(tensor_names):
        attrs[f"_saved_{name}"] = property(functools.partial(tensor_at, index=index))
        attrs[f"_raw_saved_{name}"] = property(functools.partial(SavedTensor, index=index))
    for name in value_names:
        attrs[f"_saved_{name}"] = property(functools.partial(value_at, name=name))
    return attrs


def add_fields(op: type) -> None:
    """Give a built-in op's nodes PyTorch's ``_saved_<name>`` fields (``ops/__init__.py``
    calls this for every op, parents first, once it has made them all)."""
    own = node_properties(op.saved_names, op.saved_values)
    for name in dir(op):  # what a parent op saved under other names is not this node's
        inherited = isinstance(getattr(op, name), property)
        if inherited and name.startswith(("_saved_", "_raw_saved_")) and name not in own:
            own[name] = _NOT_SAVED
    for name, value in own.items():
        setattr(op, name, value)


def _not_saved(node):
    raise AttributeError("this node saves no such value")


_NOT_SAVED = property(_not_saved)


class SavedTensor:
    """``grad_fn._raw_saved_self``: one saved tensor, before it is unpacked.

    ``register_hooks(pack_hook, unpack_hook)`` packs it at once; ``unpack_hook`` gives it back
    each time backward (or ``_saved_self``) needs it.
    """

    __module__ = "autogradkit._C._autograd"  # prints as PyTorch's torch._C._autograd one

    def __init__(self, node, index: int):
        self._node, self._index = node, index

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: autogradkit._C._autograd.SavedTensor, "
                "arg0: collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {self!r}, {pack_hook!r}, {unpack_hook!r}"
            )
        node, i = self._node, self._index
        _check_can_pack(node, i)
        value = node._saved[i]
        if isinstance(value, Packed):
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        data = value._data if isinstance(value, TensorBase) else np.asarray(value)
        packed = Packed(unpack_hook, _call_pack_hook(pack_hook, TensorBase._wrap(data)))
        node._saved = node._saved[:i] + (packed,) + node._saved[i + 1 :]

    def unpack(self):
        return tensor_at(self._node, self._index)

    @property
    def data(self):
        """The saved data without its graph (a hook's packed tensor as it was packed)."""
        value = self._packed()
        if value is not None and isinstance(value.packed, TensorBase):
            return value.packed.detach()
        t = self.unpack()
        return None if t is None else t.detach()

    @property
    def unpack_hook(self):
        value = self._packed()
        return None if value is None else value.unpack_hook

    def _packed(self):
        saved = self._node._saved
        value = saved[self._index] if isinstance(saved, tuple) else None
        return value if isinstance(value, Packed) else None


def _check_can_pack(node, index: int) -> None:
    if node._saved is FREED:
        raise RuntimeError(
            "Calling register_hooks on a saved tensor after it has been freed. Saved "
            "intermediate values of the graph are freed when you call .backward() or "
            "autograd.grad(). Specify retain_graph=True if you need to backward through the "
            "graph a second time or if you need to access saved variables after calling "
            "backward."
        )
    if node._saved is None or node._saved[index] is None:
        raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")


FunctionCtx._unpack_all = unpack_all  # what ctx.saved_tensors (engine.py) runs beyond arrays
