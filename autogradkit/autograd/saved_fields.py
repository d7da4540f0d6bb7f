"""What forward saved, seen from outside: PyTorch's names for it, and pack hooks.

``grad_fn._saved_self`` (``_saved_other``, ``_saved_result``, ``_saved_dim``...) shows a
saved value under PyTorch's names, and ``grad_fn._raw_saved_self`` (a ``SavedTensor``) can
pack it away with hooks; a ``saved_tensors_hooks`` block (``graph.py``) packs every value
saved inside it; viz asks what a node saved (``describe``, ``saved_inputs``). The engine
never imports this file: the package root gives each op its fields once all are made
(``install``), and an open ``saved_tensors_hooks`` block hands the engine its packer.
"""

from __future__ import annotations

import functools

import numpy as np

from . import grad_mode
from .engine import FREED, NOTHING, FunctionCtx, Node, Packed, TensorBase, grad_accumulator
from .saved import check_version, output_node, unpack_one
from .variable import FREED_MESSAGE, version_counter

__all__ = [
    "PackedByHook",
    "SavedTensor",
    "add_fields",
    "describe",
    "install",
    "node_dir",
    "pack_all",
    "saved_inputs",
]

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
            saved[i] = PackedByHook(unpack_hook, _call_pack_hook(pack_hook, t))
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


class PackedByHook(Packed):
    """A saved value a pack hook holds: ``unpack_hook(packed)`` gives the tensor back."""

    __slots__ = ("unpack_hook", "packed")

    def __init__(self, unpack_hook, packed):
        self.unpack_hook, self.packed = unpack_hook, packed

    def __repr__(self) -> str:
        return "packed by a saved-tensor hook"

    def unpack(self):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, TensorBase):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(t).__name__}"
            )
        return t

    def restore(self, meta, node):
        """What the hook unpacked, put back in the saved tensor's place in the graph: always
        a new Tensor, as PyTorch makes one (and, as PyTorch, with no version check)."""
        t = self.unpack()
        if meta is None or meta.counter is None:
            return TensorBase._wrap(t._data)
        if meta.is_output:
            return TensorBase._wrap(t._data, output_node(node, t._data), meta.output_nr)
        source = meta.tensor
        out = TensorBase._wrap(t._data, source._grad_fn, source._output_nr)
        out._requires_grad = source._requires_grad
        if source._requires_grad and source._grad_fn is None:  # a leaf: its AccumulateGrad
            grad_accumulator(source)
            out._accumulator_ref = source._accumulator_ref
        return out


def _call_pack_hook(pack_hook, t):
    before = version_counter(t).value
    with grad_mode.no_grad():
        packed = pack_hook(t)
    if version_counter(t).value != before:
        raise RuntimeError(_PACK_IN_PLACE)
    return packed


# ----- what a node saved, for viz and under PyTorch's names -------------------------------------
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
        return value.restore(meta, node)
    if value is None:
        return None
    check_version(value, meta, node)
    if meta is not None and meta.counter is None:  # PyTorch wraps a number in a 0-dim tensor
        return TensorBase._wrap(np.asarray(meta.tensor))
    return unpack_one(value, meta, node)


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


def install(ops) -> None:
    """Give every built-in op PyTorch's ``_saved_<name>`` fields, and every node PyTorch's
    ``dir()`` (the package root calls this once ``ops/`` has made them all)."""
    Node.__dir__ = node_dir
    for op in ops:
        add_fields(op)


STORE = frozenset({"_saved", "_saved_meta"})  # what _saved_<name> reads: not in dir(node)
_NODE_NAMES = frozenset(dir(Node))


def node_dir(node) -> list:
    """What PyTorch's nodes show in ``dir()``: a node's own names, not an op's (forward,
    backward, alpha, is_view...) or the ctx helpers (save_for_backward...); the
    ``_saved_<name>`` fields the node has; not the store they read."""
    names = set(dir(type(node))) - STORE - {"backward"}
    if isinstance(node, FunctionCtx):  # an op's node, or CopySlices
        names = {n for n in names if n[0] == "_" or n in _NODE_NAMES}
    return sorted(names)


def add_fields(op: type) -> None:
    """Give a built-in op's nodes PyTorch's ``_saved_<name>`` fields (no op inherits another
    op's: two ops that share code share a private base)."""
    for name, value in node_properties(op.saved_names, op.saved_values).items():
        setattr(op, name, value)


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
        packed = PackedByHook(unpack_hook, _call_pack_hook(pack_hook, TensorBase._wrap(data)))
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
