"""``Function``: one differentiable operation, its forward and backward side by side.

``Function.apply`` runs ``forward`` and, when grad mode is on and an input requires a
gradient, records a node in the graph. A built-in op's node is an instance of the op's own
class (``MulBackward0``), and it is also the ``ctx`` that forward and backward share, as in
PyTorch: ``y.grad_fn`` is the very object ``forward`` saved into.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype, _shape
from ..utils.hooks import next_id
from . import anomaly_mode, custom_function, grad_mode, saved
from .custom_function import once_differentiable
from .engine import (
    Node,
    TensorBase,
    fit,
    gradient_edge,
    run_node_post_hooks,
    run_node_pre_hooks,
    run_output_hooks,
)
from .graph import _saved_tensors_hooks
from .saved import SavedOrigin
from .variable import InferenceVersion, version_counter

__all__ = ["Function", "FunctionCtx", "once_differentiable", "REGISTRY"]

REGISTRY: dict[str, type] = {}  # every built-in op class, filled at import by __init_subclass__


class _Scratch:
    """The ctx forward gets when nothing is recorded: it accepts saves and forgets them."""

    needs_input_grad = (True, True, True)  # Function.call on arrays: compute everything

    def save_for_backward(self, *values) -> None:
        pass

    def mark_non_differentiable(self, *values) -> None:
        pass

    def mark_dirty(self, *values) -> None:
        pass

    def set_materialize_grads(self, value: bool) -> None:
        pass


class FunctionCtx(Node):
    """A node that runs a ``Function``'s backward, and the ``ctx`` its forward and backward
    share: what forward saves (``save_for_backward``) is what backward reads
    (``saved_tensors``)."""

    # slots, not the node's __dict__ (which holds the op's own notes, such as ``ctx.dim``):
    # _saved is what forward saved, _saved_meta where each value came from (see saved.py)
    __slots__ = ("needs_input_grad", "_saved", "_saved_meta")
    _function: type  # the Function subclass this node runs backward for
    _outputs_meta = None  # set only for ops with several outputs
    _edge_inputs = None  # positions that got an edge, when a number operand got none
    quiet_floating_errors = False  # log(0), 1/0...: inf or nan without NumPy's warning
    pack_order: tuple | None = None  # PyTorch's order for pack hooks, if not the saved order

    def __init__(self):
        self._priority = -next_id()  # later nodes run first among ready ones
        self._saved = None

    def save_for_backward(self, *values) -> None:
        """Keep arrays (or Tensors, in a custom Function) for backward."""
        self._saved = values

    def mark_non_differentiable(self, *outputs) -> None:
        self.__dict__["_non_differentiable"] = {id(o) for o in outputs}

    def mark_dirty(self, *tensors) -> None:
        self.__dict__["_dirty"] = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        self.__dict__["_materialize_grads"] = value

    @property
    def saved_tensors(self) -> tuple:
        """What forward saved, checked against in-place changes since then.

        A built-in op's backward on arrays (the usual case) gets the arrays themselves, once
        each one's version is checked here; everything else is unpacked in ``saved.py``.
        """
        values = self._saved
        if values is None:
            return ()
        if self._custom or grad_mode._enabled or values is saved.FREED:
            return saved.unpack_all(self)
        metas = self._saved_meta
        for i in self.pack_order or range(len(values)):
            value, meta = values[i], metas[i]
            if type(value) is saved.Packed:
                return saved.unpack_all(self)
            if meta is not None and meta.counter is not None and meta.counter.value != meta.version:
                raise RuntimeError(saved.version_message(value, meta, self))
        return values

    def _backward(self, grad_outputs: list) -> tuple:
        """The general case of running this node: hooks, custom backward, several outputs,
        Scalar arguments (the engine calls ``backward`` directly on a plain node)."""
        grads = grad_outputs
        if self._tensor_hooks or self._retained:
            grads = run_output_hooks(self, grads)
        if (
            self._outputs_meta
            and any(g is None for g in grads)
            and self.__dict__.get("_materialize_grads", True)
        ):
            grads = [_zeros_like_output(self, i) if g is None else g for i, g in enumerate(grads)]
        if self._pre_hooks:
            grads = run_node_pre_hooks(self._pre_hooks, grads)
        if self.quiet_floating_errors:
            with np.errstate(all="ignore"):
                result = self.backward(self, *grads)
        elif self._custom:
            result = custom_function.call_backward(self, grads)
        else:
            result = self.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        if self._edge_inputs is not None:  # drop the gradients of Scalar arguments
            result = tuple(result[i] for i in self._edge_inputs)
        if self._post_hooks:  # PyTorch reduces to input shapes before post hooks run
            result = tuple(
                g if g is None or m is None else fit(g, m, self, i)
                for i, (g, m) in enumerate(zip(result, self._input_meta))
            )
            result = run_node_post_hooks(self._post_hooks, result, grads)
        return result


class Function(FunctionCtx):
    """Base class of every differentiable operation, built-in or your own.

    A built-in op (in ``autogradkit.ops``) is named after the node PyTorch records for it
    (``MulBackward0``): it works on NumPy arrays, and its instances are the nodes of the
    graph. A subclass you write works on Tensors, exactly as ``torch.autograd.Function``
    does, and its nodes are a ``<YourClass>Backward`` class made for it::

        class Square(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        y = Square.apply(x)   # y.grad_fn is a SquareBackward node
    """

    promotes = True  # inputs are cast to one dtype by PyTorch's promotion rules
    is_view = False  # the output shares memory and version counter with input 0
    broadcasts = False  # elementwise on two inputs: shapes must broadcast (PyTorch's error)
    # a Python number is a Scalar argument of the op (rsub.Scalar, pow.Tensor_Scalar), not an
    # input: it gets no edge in next_functions; add, mul... wrap it in a tensor: (None, 0)
    numbers_are_scalars = False
    node_name: str | None = None  # only for nodes PyTorch names without the class's name
    # PyTorch's names for what forward saves (grad_fn._saved_self...), in save_for_backward's
    # order, and for the numbers and sizes it keeps on ctx under the same names (_saved_dim)
    saved_names: tuple = ()
    saved_values: tuple = ()
    argument_names = ("self", "other")  # what ctx calls a number given as a Scalar argument
    _builtin = False
    _node_class = None  # a custom Function's node class, made at its first apply

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._builtin = cls.__module__.startswith("autogradkit.ops")
        if not cls._builtin:
            cls._node_class = None
            return
        assert cls.__qualname__ not in REGISTRY, f"two ops named {cls.__qualname__}"
        REGISTRY[cls.__qualname__] = cls
        cls._function = cls  # a built-in op's nodes are instances of the op's own class
        cls.__module__ = "builtins"  # type(grad_fn) prints <class 'MulBackward0'>, as torch's
        cls._plain = not cls.quiet_floating_errors  # the engine may call backward directly
        own = saved.node_properties(cls.saved_names, cls.saved_values)
        for name in dir(cls):  # what a parent op saved under other names is not this node's
            inherited = isinstance(getattr(cls, name), property)
            if inherited and name.startswith(("_saved_", "_raw_saved_")) and name not in own:
                own[name] = _NOT_SAVED
        for name, value in own.items():
            setattr(cls, name, value)
        # what a node shows in dir(): Node's names, not the op's (forward, alpha, is_view...)
        cls._op_api = Node._op_api | {n for n in dir(cls) if n[0] != "_"} - set(dir(Node))
        if cls.node_name:  # PyTorch's NotImplemented nodes: two ops, one printed name
            cls.__name__ = cls.node_name
            cls.name = _qualified_name

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Save for backward here, and write ``forward(*inputs)`` without ctx (optional)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @classmethod
    def has_setup_context(cls) -> bool:
        """True when ``forward`` takes no ctx and ``setup_context`` saves (PyTorch 2's way)."""
        return cls.setup_context is not Function.setup_context

    @classmethod
    def node_class(cls) -> type:
        """The ``grad_fn`` class: the op itself, or ``<YourClass>Backward`` for your own."""
        if cls._builtin:
            return cls
        if cls._node_class is None:
            attrs = {"_function": cls, "__slots__": (), "__module__": __name__, "_custom": True}
            cls._node_class = type(f"{cls.__name__}Backward", (FunctionCtx,), attrs)
        return cls._node_class

    @classmethod
    def call(cls, *args, **static):
        """``forward`` on arrays, ``apply`` when any argument is a Tensor.

        Lets one op's backward use another op, so it also works under ``create_graph``.
        """
        if any(isinstance(a, TensorBase) for a in args):
            return cls.apply(*args, **static)
        return cls.forward(_Scratch(), *args, **static)

    @classmethod
    def apply(cls, *inputs, **static):  # long: the recording of one op, read top to bottom
        """Run forward; record a node when grad mode is on and an input requires grad.

        The steps, as PyTorch takes them: 1. take the arrays out of the inputs (cast to one
        dtype); 2. run ``forward``, whose ctx is the new node; 3. point the node at the nodes
        that made the inputs; 4. wrap the output with the node as its ``grad_fn``; 5. note
        the version of what forward saved.
        """
        if not cls._builtin:
            node, result, outputs = custom_function.run(cls, inputs, static)
            if node is not None and node._saved is not None:
                _keep(node, inputs, inputs, outputs, outputs)
            return result
        recording = grad_mode._enabled
        arrays, needs, edges, metas = [], [], [], []
        dtype = False  # the one dtype of all inputs, else None (then they are promoted)
        for x in inputs:  # 1. (a plain loop: the cheapest way through two or three inputs)
            if isinstance(x, TensorBase):
                a = x._data
                arrays.append(a)
                if dtype is not a.dtype:
                    dtype = a.dtype if dtype is False else None
                if x._requires_grad:
                    needs.append(True)
                    if recording:  # 3. (ahead)
                        edges.append(gradient_edge(x))
                        metas.append((a.shape, a.dtype))
                    continue
            else:
                arrays.append(x)
                dtype = None
            needs.append(False)
            edges.append((None, 0))
            metas.append(None)
        if dtype is None and cls.promotes and len(arrays) > 1:
            arrays = _promote(inputs, arrays, TensorBase)
        needs = tuple(needs)
        node = None
        if recording and True in needs:
            node = cls.__new__(cls)  # an instance of this op's own class: MulBackward0
            node._priority = -next_id()  # later nodes run first among ready ones
            node._saved = None
            if anomaly_mode._mode["enabled"]:
                anomaly_mode.record_forward(node)
        ctx = _Scratch() if node is None else node
        ctx.needs_input_grad = needs
        try:  # 2.
            if cls.quiet_floating_errors:
                with np.errstate(all="ignore"):
                    out = cls.forward(ctx, *arrays, **static)
            else:
                out = cls.forward(ctx, *arrays, **static)
        except ValueError:
            if cls.broadcasts:  # two shapes that do not broadcast: PyTorch's words
                _shape.broadcast_shape(np.shape(arrays[0]), np.shape(arrays[1]))
            raise
        if node is None:
            if type(out) is tuple or cls.is_view:
                return _wrap_outputs(cls, out, inputs, None)
            return TensorBase._wrap(out)
        if cls.numbers_are_scalars:  # a number given as a Scalar argument gets no edge
            edges, metas = _scalar_arguments(node, inputs, edges, metas)
        node.next_functions, node._input_meta = tuple(edges), tuple(metas)
        if type(out) is tuple or cls.is_view:  # 4.
            result = _wrap_outputs(cls, out, inputs, node)
        else:
            result = TensorBase._wrap(out, node)
        if node._saved is not None:  # 5.
            outputs, results = (out, result) if type(out) is tuple else ((out,), (result,))
            _keep(node, inputs, arrays, outputs, results)
        return result


# the ctx helpers and the op's own names (forward, apply...) are not the node's (see __dir__)
FunctionCtx._op_api = Node._op_api | {n for n in dir(FunctionCtx) if n[0] != "_"} - set(dir(Node))
Function._op_api = Node._op_api | {n for n in dir(Function) if n[0] != "_"} - set(dir(Node))


def _not_saved(node):
    raise AttributeError("this node saves no such value")


_NOT_SAVED = property(_not_saved)


def _qualified_name(node) -> str:
    return f"autogradkit::autograd::{type(node).__name__}"


def _promote(inputs, arrays, tensor_cls):
    """Cast inputs to their common dtype; Python scalars become arrays of that dtype."""
    is_tensor = [isinstance(x, tensor_cls) for x in inputs]
    dt = _dtype.result_type([(a, t) for a, t in zip(arrays, is_tensor) if a is not None])
    return [
        None if a is None else a.astype(dt, copy=False) if t else np.asarray(a, dtype=dt)
        for a, t in zip(arrays, is_tensor)
    ]


def _scalar_arguments(node, inputs, edges, metas) -> tuple[list, list]:
    """Numbers given to an op whose overload takes a Scalar: no edge, a ctx attribute each
    (``ctx.exponent``...), and backward's gradient for them is dropped."""
    kept = [i for i, x in enumerate(inputs) if not isinstance(x, numbers.Number)]
    for i, x in enumerate(inputs):
        if isinstance(x, numbers.Number):
            node.__dict__[node.argument_names[i]] = x
    if len(kept) < len(inputs):
        node._edge_inputs = tuple(kept)
        node._plain = False
    return [edges[i] for i in kept], [metas[i] for i in kept]


def _keep(node, inputs, arrays, outputs, results) -> None:
    """Note where each value forward saved came from, and that tensor's version now."""
    metas = []
    for value in node._saved:
        source = meta = None  # None: an array forward made (a mask, a cast copy)
        if value is None:
            meta = saved.NOTHING
        else:
            for x, a in zip(inputs, arrays):  # an input (or the number it was made from)?
                if value is a:
                    source = x
                    break
            else:
                for nr, (o, r) in enumerate(zip(outputs, results)):  # an output?
                    if value is o and isinstance(r, TensorBase):
                        counter = version_counter(r)
                        meta = SavedOrigin(None, counter, counter.value, True, nr)
                        break
                else:
                    if isinstance(value, TensorBase):  # a custom Function saved a tensor it made
                        source = value
        if isinstance(source, TensorBase):
            counter = source._version_counter or version_counter(source)  # made if none
            if type(counter) is InferenceVersion:
                raise RuntimeError(saved.INFERENCE_SAVED)
            meta = SavedOrigin(source, counter, counter.value, False, 0)
        elif source is not None:  # a Python number: nothing can change it
            meta = SavedOrigin(source, None, None, False, 0)
        metas.append(meta)
    node._saved_meta = tuple(metas)
    if _saved_tensors_hooks:
        saved.pack_all(node, results, *_saved_tensors_hooks[-1])


def _wrap_outputs(cls, out, inputs, ctx):
    """Several outputs, or a view: Tensors that know their node (``apply`` wraps the rest)."""
    if isinstance(out, tuple):
        non_diff = ctx.__dict__.get("_non_differentiable", ()) if ctx is not None else ()
        if ctx is not None:
            ctx._outputs_meta = tuple((np.shape(o), np.asarray(o).dtype) for o in out)
            ctx._num_outputs = len(out)
            ctx._plain = False  # an unused output's gradient may have to be zeros
        return tuple(
            TensorBase._wrap(o, None if ctx is None or id(o) in non_diff else ctx, i)
            for i, o in enumerate(out)
        )
    result = TensorBase._wrap(out, ctx)
    if (
        cls.is_view
        and isinstance(inputs[0], TensorBase)
        and np.may_share_memory(out, inputs[0]._data)
    ):
        base = inputs[0]
        result._version_counter = version_counter(base)
        result._base = base if base._base is None else base._base
        # made under no_grad, a view still requires grad (PyTorch forbids changing it in place)
        if ctx is None and base._requires_grad:
            result._requires_grad = True
    return result


def _zeros_like_output(node, index):
    meta = node._outputs_meta[index]
    return None if meta is None else np.zeros(meta[0], meta[1])  # None for a number output
