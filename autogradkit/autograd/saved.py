"""What forward saves for backward, and how it comes back.

Every saved value remembers where it came from (an input Tensor, an output, a Python number)
and the version of that tensor when it was saved, so that backward refuses a value changed in
place since. ``grad_fn._saved_self`` (and ``_saved_other``, ``_saved_result``...) read the same
store, with PyTorch's names, and a ``saved_tensors_hooks`` block (``graph.py``) or
``grad_fn._raw_saved_self.register_hooks`` may pack a value away until it is needed.

An origin is ``(tensor, counter, version, is_output, output_nr)``: ``tensor`` is the input
Tensor the value is (or the Python number it was made from, or None for an output).
"""

from __future__ import annotations

import functools
import re

import numpy as np

import autogradkit.tensor as _tensor  # Tensor, at call time (tensor.py imports this package)

from .. import _dtype
from . import anomaly_mode, grad_mode, graph

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
FREED = "freed by backward"  # stands in the store once backward released it
_PACKED = "packed by a saved-tensor hook"  # stands in the store for a value a hook holds
_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `autogradkit.no_grad()` "
    "instead of `autogradkit.inference_mode()`."
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


# ----- keeping -------------------------------------------------------------------------------
def keep(ctx, inputs, arrays, outputs, results) -> None:
    """Store what forward saved (``ctx._to_save``) with each value's origin and version."""
    meta = tuple(
        None if value is None else _origin(value, inputs, arrays, outputs, results)
        for value in ctx._to_save
    )
    ctx._saved, ctx._saved_meta, ctx._to_save = ctx._to_save, meta, None
    if graph._saved_tensors_hooks:
        _pack_all(ctx, results, *graph._saved_tensors_hooks[-1])


def _origin(value, inputs, arrays, outputs, results):
    tensor_cls = _tensor.Tensor
    for x, a in zip(inputs, arrays):
        if value is a:
            if not isinstance(x, tensor_cls):
                return (x, None, None, False, 0)  # a Python number
            return _input_origin(x)
    for nr, (o, r) in enumerate(zip(outputs, results)):
        if value is o and isinstance(r, tensor_cls):
            return (None, r._version_counter, r._version_counter.value, True, nr)
    if isinstance(value, tensor_cls):  # a custom Function saved a tensor it made itself
        return _input_origin(value)
    return None  # an array forward made (a mask, a cast copy): nothing can change it


def _input_origin(t):
    counter = t._version_counter
    if isinstance(counter, _tensor._InferenceVersion):
        raise RuntimeError(_INFERENCE_SAVED)
    return (t, counter, counter.value, False, 0)


def _pack_all(ctx, results, pack_hook, unpack_hook) -> None:
    """A ``saved_tensors_hooks`` block is active: hand every saved tensor to its pack hook."""
    saved, packed = list(ctx._saved), {}
    for i in ctx._function.pack_order or range(len(saved)):
        value, meta = saved[i], ctx._saved_meta[i]
        t = _tensor_to_pack(value, meta, results)
        if t is not None:
            packed[i] = (unpack_hook, _call_pack_hook(pack_hook, t))
            saved[i] = _PACKED
    if packed:
        ctx._saved = tuple(saved)
        ctx.__dict__["_packed"] = packed


def _tensor_to_pack(value, meta, results):
    """The Tensor a pack hook sees: the input itself, the output, or a new one (None: skip)."""
    if value is None or (meta is not None and meta[1] is None):
        return None  # nothing saved, or a Python number (PyTorch packs neither)
    if meta is None:
        return value if isinstance(value, _tensor.Tensor) else _tensor.Tensor._wrap(value)
    if meta[3]:
        return results[meta[4]]
    return meta[0]


def _call_pack_hook(pack_hook, t):
    before = t._version_counter.value
    with grad_mode.no_grad():
        packed = pack_hook(t)
    if t._version_counter.value != before:
        raise RuntimeError(_PACK_IN_PLACE)
    return packed


# ----- reading back --------------------------------------------------------------------------
def for_backward(node) -> tuple:
    """What backward reads: arrays for a built-in op, Tensors for create_graph or your own
    Function; each checked against in-place changes since it was saved (in PyTorch's order,
    which a hook that prints can tell)."""
    saved = node._saved
    if saved is FREED:
        raise RuntimeError(FREED_MESSAGE)
    if saved is None:
        return ()
    packed = node.__dict__.get("_packed")
    plain = node._function._builtin and not grad_mode._enabled
    values = list(saved)
    for i in node._function.pack_order or range(len(saved)):
        value, meta = saved[i], node._saved_meta[i]
        if packed and i in packed:
            value = _unpack_hooked(packed[i])
            values[i] = value._data if plain else _as_saved(value, meta, node)
            continue
        if meta is not None and meta[1] is not None and meta[1].value != meta[2]:
            raise RuntimeError(version_message(value, meta, node))
        if not plain:
            values[i] = _unpack(value, meta, node)
    return tuple(values)


def release(node) -> None:
    """Free what forward saved (a value never saved stays None, as in PyTorch)."""
    if node._saved is None:
        return
    if node._saved is not FREED:
        node.__dict__["_never_saved"] = {i for i, v in enumerate(node._saved) if v is None}
    node._saved = FREED
    node.__dict__.pop("_packed", None)


def tensor_at(node, index: int):
    """``grad_fn._saved_<name>``: one saved tensor as PyTorch hands it out (an input is the
    very input object; an output, a number or a hook's result is a new Tensor)."""
    saved = node._saved
    if saved is FREED:
        if index in node.__dict__.get("_never_saved", ()):
            return None
        raise RuntimeError(FREED_MESSAGE)
    value, meta = saved[index], node._saved_meta[index]
    packed = node.__dict__.get("_packed")
    if packed and index in packed:
        return _as_saved(_unpack_hooked(packed[index]), meta, node)
    if value is None:
        return None
    if meta is not None and meta[1] is not None and meta[1].value != meta[2]:
        raise RuntimeError(version_message(value, meta, node))
    if meta is not None and meta[1] is None:  # PyTorch wraps a number in a 0-dim tensor
        return _tensor.Tensor._wrap(np.asarray(meta[0]))
    return _unpack(value, meta, node)


def _unpack(value, meta, node):
    """A saved value as a Tensor that is part of the graph (for create_graph=True)."""
    tensor_cls = _tensor.Tensor
    if value is None or meta is None or meta[1] is None:
        return value if value is None or isinstance(value, tensor_cls) else tensor_cls._wrap(value)
    if meta[3]:  # an output: a new Tensor made by this node (indices get no grad_fn)
        data = value._data if isinstance(value, tensor_cls) else value
        fn = value._grad_fn if isinstance(value, tensor_cls) else _output_node(node, data)
        t = tensor_cls._wrap(data, fn, meta[4])
        t._version_counter = meta[1]
        return t
    return meta[0]


def _output_node(node, data):
    return node if np.asarray(data).dtype.kind == "f" else None


def _as_saved(t, meta, node):
    """What a hook unpacked, put back in the saved tensor's place in the graph: always a new
    Tensor, as PyTorch makes one (and, as PyTorch, with no version check)."""
    tensor_cls = _tensor.Tensor
    if meta is None or meta[1] is None:
        return tensor_cls._wrap(t._data)
    if meta[3]:
        return tensor_cls._wrap(t._data, _output_node(node, t._data), meta[4])
    source = meta[0]
    out = tensor_cls._wrap(t._data, source._grad_fn, source._output_nr)
    out._requires_grad = source._requires_grad
    if source._requires_grad and source._grad_fn is None:  # a leaf: its AccumulateGrad node
        source._accumulator()
        out._accumulator_ref = source._accumulator_ref
    return out


def _unpack_hooked(hooks):
    unpack_hook, packed = hooks
    t = unpack_hook(packed)
    if not isinstance(t, _tensor.Tensor):
        raise TypeError(
            "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
            f"type {type(t).__name__}"
        )
    return t


def value_at(node, name: str):
    """``grad_fn._saved_dim`` and the other numbers and sizes, printed as PyTorch prints them."""
    value = node.__dict__[name]
    if name == "reduction":
        return _REDUCTIONS[value]
    return _as_printed(value, name in _SCALARS)


def _as_printed(value, scalar: bool):
    if isinstance(value, (tuple, list)):
        return tuple(_as_printed(v, scalar) for v in value)
    if isinstance(value, np.ndarray):
        return _tensor.Tensor._wrap(value)
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
        packed = node.__dict__.setdefault("_packed", {})
        if i in packed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        _check_can_pack(node, i)
        value = node._saved[i]
        data = value._data if isinstance(value, _tensor.Tensor) else np.asarray(value)
        packed[i] = (unpack_hook, _call_pack_hook(pack_hook, _tensor.Tensor._wrap(data)))
        node._saved = node._saved[:i] + (_PACKED,) + node._saved[i + 1 :]

    def unpack(self):
        return tensor_at(self._node, self._index)

    @property
    def data(self):
        """The saved data without its graph (a hook's packed tensor as it was packed)."""
        hooks = self._node.__dict__.get("_packed", {}).get(self._index)
        if hooks is not None and isinstance(hooks[1], _tensor.Tensor):
            return hooks[1].detach()
        t = self.unpack()
        return None if t is None else t.detach()

    @property
    def unpack_hook(self):
        hooks = self._node.__dict__.get("_packed", {}).get(self._index)
        return None if hooks is None else hooks[0]


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


# ----- the version error ---------------------------------------------------------------------
def version_message(value, meta, node) -> str:
    t, counter, expected, is_output, nr = meta
    data = value._data if isinstance(value, _tensor.Tensor) else np.asarray(value)
    dt = _dtype.from_numpy(data.dtype)
    where = ""
    fn = node if is_output else (t._grad_fn if t is not None else None)
    if fn is not None:
        nr = nr if is_output else t._output_nr
        op = re.sub(r"Backward\d*$", "", fn.name())  # PyTorch names the op, not the node
        where = f", which is output {nr} of {op},"
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [autogradkit.{dt._tensor_type} [{', '.join(map(str, data.shape))}]]"
        f"{where} is at version {counter.value}; expected version {expected} instead. Hint: "
        + (_ANOMALY_HINT if anomaly_mode._mode["enabled"] else _ENABLE_ANOMALY_HINT)
    )


_ENABLE_ANOMALY_HINT = (
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "autogradkit.autograd.set_detect_anomaly(True, check_nan=False)."
)
_ANOMALY_HINT = (
    "the backtrace further above shows the operation that failed to compute its gradient. The "
    "variable in question was changed in there or anywhere later. Good luck!"
)
