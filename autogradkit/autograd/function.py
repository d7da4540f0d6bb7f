"""``Function``: one differentiable operation, its forward and backward side by side.

``Function.apply`` runs ``forward`` and, when grad mode is on and an input requires a
gradient, records a node in the graph. The node is also the ``ctx`` that forward and
backward share, as in PyTorch: ``y.grad_fn`` is the very object ``forward`` saved into.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

import autogradkit.tensor as _tensor

from .. import _dtype, _shape
from ..utils.hooks import next_id
from . import anomaly_mode, grad_mode, saved
from .graph import (
    Node,
    _as_tensors,
    run_node_post_hooks,
    run_node_pre_hooks,
    run_tensor_hooks,
)

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


class BackwardNode(Node):
    """The node of a ``Function`` and the ``ctx`` its forward and backward share."""

    # slots, not the node's __dict__: what forward saves costs no dict (ops' own notes such
    # as ``ctx.dim`` go to the __dict__); edges are set by Function.apply after forward ran
    __slots__ = ("needs_input_grad", "_to_save", "_saved", "_saved_meta")
    _function: type  # the Function subclass this node runs backward for
    _outputs_meta = None  # set only for ops with several outputs
    _edge_inputs = None  # positions that got an edge, when a number operand got none

    def __init__(self):
        self._priority = -next_id()  # later nodes run first among ready ones
        self._to_save = self._saved = None

    def save_for_backward(self, *values) -> None:
        """Keep arrays (or Tensors, in a custom Function) for backward."""
        self._to_save = values

    def mark_non_differentiable(self, *outputs) -> None:
        self.__dict__["_non_differentiable"] = {id(o) for o in outputs}

    def mark_dirty(self, *tensors) -> None:
        self.__dict__["_dirty"] = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        self.__dict__["_materialize_grads"] = value

    @property
    def saved_tensors(self) -> tuple:
        """What forward saved, checked against in-place changes since then."""
        return saved.for_backward(self)

    def _release_saved(self) -> None:
        """Free what forward saved (the engine calls this only on a node that saved some)."""
        saved.release(self)

    def _backward(self, grad_outputs: list) -> tuple:
        fn = self._function
        grads = grad_outputs
        if self._tensor_hooks or self._retained:
            grads = _run_output_hooks(self, grads)
        if (
            self._outputs_meta
            and any(g is None for g in grads)
            and self.__dict__.get("_materialize_grads", True)
        ):
            grads = [_zeros_like_output(self, i) if g is None else g for i, g in enumerate(grads)]
        if self._pre_hooks:
            grads = run_node_pre_hooks(self._pre_hooks, grads)
        if fn.quiet_floating_errors:
            with np.errstate(all="ignore"):
                result = fn.backward(self, *grads)
        elif fn._builtin:
            result = fn.backward(self, *grads)
        else:
            result = _call_custom_backward(self, grads)
        if not isinstance(result, tuple):
            result = (result,)
        if self._edge_inputs is not None:  # drop the gradients of Scalar arguments
            result = tuple(result[i] for i in self._edge_inputs)
        if len(result) != len(self.next_functions):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {len(self.next_functions)}, got {len(result)})"
            )
        if self._post_hooks:
            from .engine import _fit  # PyTorch reduces to input shapes before post hooks run

            result = tuple(
                g if g is None or m is None else _fit(g, m, self, i)
                for i, (g, m) in enumerate(zip(result, self._input_meta))
            )
            result = run_node_post_hooks(self._post_hooks, result, grads)
        return result


class Function(BackwardNode):
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
    quiet_floating_errors = False  # log(0), 1/0...: inf or nan without NumPy's warning, as torch
    node_name: str | None = None  # only for nodes PyTorch names without the class's name
    # PyTorch's names for what forward saves (grad_fn._saved_self...), in save_for_backward's
    # order, and for the numbers and sizes it keeps on ctx under the same names (_saved_dim)
    saved_names: tuple = ()
    saved_values: tuple = ()
    pack_order: tuple | None = None  # PyTorch's order for pack hooks, if not the saved order
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
        own = saved.node_properties(cls.saved_names, cls.saved_values)
        for name in dir(cls):  # what a parent op saved under other names is not this node's
            inherited = isinstance(getattr(cls, name), property)
            if inherited and name.startswith(("_saved_", "_raw_saved_")) and name not in own:
                own[name] = _NOT_SAVED
        for name, value in own.items():
            setattr(cls, name, value)
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
    def node_class(cls) -> type:
        """The ``grad_fn`` class: the op itself, or ``<YourClass>Backward`` for your own."""
        if cls._builtin:
            return cls
        if cls._node_class is None:
            attrs = {"_function": cls, "__slots__": (), "__module__": __name__, "_custom": True}
            cls._node_class = type(f"{cls.__name__}Backward", (BackwardNode,), attrs)
        return cls._node_class

    @classmethod
    def call(cls, *args, **static):
        """``forward`` on arrays, ``apply`` when any argument is a Tensor.

        Lets one op's backward use another op, so it also works under ``create_graph``.
        """
        if any(isinstance(a, _tensor.Tensor) for a in args):
            return cls.apply(*args, **static)
        return cls.forward(_Scratch(), *args, **static)

    @classmethod
    def apply(cls, *inputs, **static):
        """Run forward; record a node when grad mode is on and an input requires grad.

        The steps, as PyTorch takes them: take the arrays out of the inputs (cast to one
        dtype), run ``forward``, and only when recording link the node to the nodes that
        made the inputs, wrap the output with it and keep what forward saved.
        """
        if not cls._builtin:
            return _apply_custom(cls, inputs, static)
        tensor_cls = _tensor.Tensor
        arrays, needs, dtype = [], [], False  # dtype: the one dtype of all inputs, else None
        for x in inputs:  # a plain loop: the cheapest way through two or three inputs
            if isinstance(x, tensor_cls):
                a = x._data
                arrays.append(a)
                needs.append(x._requires_grad)
                if dtype is not a.dtype:
                    dtype = a.dtype if dtype is False else None
            else:
                arrays.append(x)
                needs.append(False)
                dtype = None
        if dtype is None and cls.promotes and len(arrays) > 1:
            arrays = _promote(inputs, arrays, tensor_cls)
        needs = tuple(needs)
        # the node is the output's grad_fn and forward's ctx; unrecorded ops get a scratch ctx
        node = cls._new_node() if grad_mode._enabled and True in needs else None
        ctx = _Scratch() if node is None else node
        ctx.needs_input_grad = needs
        out = _forward(cls, ctx, arrays, static)
        if node is not None:
            _link(node, inputs, needs)
        if type(out) is np.ndarray and not cls.is_view:  # the common case: one plain output
            result = tensor_cls._wrap(out, node)
        else:
            result = _wrap_outputs(cls, out, inputs, node)
        if node is not None and node._to_save is not None:
            outputs, results = (out, result) if isinstance(out, tuple) else ((out,), (result,))
            saved.keep(node, inputs, arrays, outputs, results)
        return result

    @classmethod
    def _new_node(cls) -> BackwardNode:
        node = cls()
        if anomaly_mode._mode["enabled"]:
            anomaly_mode.record_forward(node)
        return node


# the ctx helpers and the op's own names (forward, apply...) are not the node's (see __dir__)
BackwardNode._op_api = frozenset(n for n in dir(BackwardNode) if n[0] != "_") - set(dir(Node))
Function._op_api = frozenset(n for n in dir(Function) if n[0] != "_") - set(dir(Node))
_NO_EDGE = (None, 0)


def _not_saved(node):
    raise AttributeError("this node saves no such value")


_NOT_SAVED = property(_not_saved)


def _qualified_name(node) -> str:
    return f"autogradkit::autograd::{type(node).__name__}"


def _forward(cls, ctx, arrays, static):
    """``cls.forward`` on arrays, quiet on floating errors where PyTorch is, and with
    PyTorch's words when two shapes do not broadcast."""
    try:
        if cls.quiet_floating_errors:
            with np.errstate(all="ignore"):
                return cls.forward(ctx, *arrays, **static)
        return cls.forward(ctx, *arrays, **static)
    except ValueError:
        if cls.broadcasts:
            _shape.broadcast_shape(np.shape(arrays[0]), np.shape(arrays[1]))
        raise


def _promote(inputs, arrays, tensor_cls):
    """Cast inputs to their common dtype; Python scalars become arrays of that dtype."""
    is_tensor = [isinstance(x, tensor_cls) for x in inputs]
    dt = _dtype.result_type(
        [(a if t else a, t) for a, t in zip(arrays, is_tensor) if a is not None]
    )
    return [
        None if a is None else a.astype(dt, copy=False) if t else np.asarray(a, dtype=dt)
        for a, t in zip(arrays, is_tensor)
    ]


def _link(node: BackwardNode, inputs, needs) -> None:
    """Point the node at the nodes that made its inputs, and note each input's shape."""
    edges, metas = [], []  # plain loops: the cheapest way through two or three inputs
    numbers_get_no_edge = node._function.numbers_are_scalars
    for i, x in enumerate(inputs):
        if numbers_get_no_edge and isinstance(x, numbers.Number):
            node._edge_inputs = tuple(
                j for j, y in enumerate(inputs) if not isinstance(y, numbers.Number)
            )
            node.__dict__[node._function.argument_names[i]] = x  # a Scalar: ctx.exponent
        elif needs[i]:
            made_by = x._grad_fn  # None for a leaf: its AccumulateGrad node
            edges.append((x._accumulator(), 0) if made_by is None else (made_by, x._output_nr))
            metas.append((x._data.shape, x._data.dtype))
        else:
            edges.append(_NO_EDGE)
            metas.append(None)
    node.next_functions, node._input_meta = tuple(edges), tuple(metas)


class _WriteThroughView:
    """What a CopySlices node runs backward (it is no op of its own, so no ``Function``)."""

    _builtin, quiet_floating_errors, numbers_are_scalars = True, False, False

    @staticmethod
    def backward(node, g):
        from ..ops.indexing import IndexPutBackward0

        grads = node._fn._backward([g[node._index]])  # the op's gradients for the view's region
        into_view = 0 if grads[0] is None else grads[0]
        return (IndexPutBackward0.call(g, into_view, index=node._index),) + tuple(grads[1:])


class CopySlices(BackwardNode):
    """The node of an in-place op on a view (``y[0].mul_(3)``, ``y[0] = v``), set on the base.

    It holds the op's own node and, as in PyTorch, stands in for it: its first edge
    leads to the base's old value, the others to the op's other inputs. Hooks on it, and on
    the base, run as on any node.
    """

    __slots__ = ("_fn", "_index")
    __module__ = "builtins"
    _function = _WriteThroughView

    def __init__(self, base, index, fn):
        super().__init__()
        self._fn, self._index = fn, index
        self._saved = fn._saved  # what backward needs is what the op saved
        _link(self, (base,), (base._requires_grad,))  # the first edge: the base's old value
        self.next_functions += fn.next_functions[1:]
        self._input_meta += fn._input_meta[1:]

    def name(self) -> str:
        return "autogradkit::autograd::CopySlices"

    def _release_saved(self) -> None:
        self._fn._release_saved()
        self._saved = saved.FREED


def _wrap_outputs(cls, out, inputs, ctx):
    """Several outputs, or a view: Tensors that know their node (``apply`` wraps the rest)."""
    tensor_cls = _tensor.Tensor
    if isinstance(out, tuple):
        non_diff = ctx.__dict__.get("_non_differentiable", ()) if ctx is not None else ()
        if ctx is not None:
            ctx._outputs_meta = tuple((np.shape(o), np.asarray(o).dtype) for o in out)
            ctx._num_outputs = len(out)
        return tuple(
            tensor_cls._wrap(o, None if ctx is None or id(o) in non_diff else ctx, i)
            for i, o in enumerate(out)
        )
    result = tensor_cls._wrap(out, ctx)
    if (
        cls.is_view
        and isinstance(inputs[0], tensor_cls)
        and np.may_share_memory(out, inputs[0]._data)
    ):
        base = inputs[0]
        result._version_counter = base._version_counter
        result._base = base if base._base is None else base._base
        # made under no_grad, a view still requires grad (PyTorch forbids changing it in place)
        if ctx is None and base._requires_grad:
            result._requires_grad = True
    return result


def _zeros_like_output(node, index):
    meta = node._outputs_meta[index]
    return None if meta is None else np.zeros(meta[0], meta[1])  # None for a number output


def _run_output_hooks(node, grads):
    """Hooks registered on the node's output tensors, then retain_grad, as in PyTorch."""
    tensor_cls = _tensor.Tensor
    grads = list(grads)
    for nr, hooks in (node._tensor_hooks or {}).items():
        if grads[nr] is not None and hooks:
            grads[nr] = run_tensor_hooks(hooks, grads[nr])
    for nr, ref in (node._retained or {}).items():
        t = ref()
        if t is None or grads[nr] is None:
            continue
        g = grads[nr]
        g = g.detach().clone() if isinstance(g, tensor_cls) else tensor_cls._wrap(np.array(g))
        t._grad = g if t._grad is None else t._grad + g
    return grads


def _call_custom_backward(node, grads):
    """A custom Function's backward gets and returns Tensors, as in PyTorch."""
    tensor_cls = _tensor.Tensor
    result = node._function.backward(node, *_as_tensors(grads))
    result = _one_gradient_per_tensor_input(node, result)
    if grad_mode._enabled:
        return result
    return tuple(r._data if isinstance(r, tensor_cls) else r for r in result)


def once_differentiable(backward):
    """Decorate a custom Function's ``backward`` to run with grad mode off: its gradients
    record no graph, so they cannot be differentiated again (``create_graph`` gets plain
    gradients)."""

    @functools.wraps(backward)
    def backward_without_graph(ctx, *grad_outputs):
        with grad_mode.no_grad():
            return backward(ctx, *grad_outputs)

    return backward_without_graph


def _one_gradient_per_tensor_input(node, result) -> tuple:
    """Check backward gave one gradient per forward argument (extra trailing Nones are
    dropped, as PyTorch does), None for each non-Tensor one; keep the Tensor inputs' ones."""
    result = result if isinstance(result, tuple) else (result,)
    is_tensor = node._input_is_tensor
    expected = len(is_tensor)
    if len(result) > expected and all(g is None for g in result[expected:]):
        result = result[:expected]
    if len(result) != expected:
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {expected}, got {len(result)})"
        )
    for position, (g, tensor_input) in enumerate(zip(result, is_tensor), 1):
        if g is not None and not tensor_input:
            raise RuntimeError(
                f"function {node.name()} returned a gradient different than None at position "
                f"{position}, but the corresponding forward input was not a Variable"
            )
    return tuple(g for g, tensor_input in zip(result, is_tensor) if tensor_input)


def _run_custom_forward(cls, ctx, inputs, static):
    """``forward(ctx, *inputs)``, or ``forward(*inputs)`` then ``setup_context``, grad off."""
    with grad_mode.no_grad():
        if cls.setup_context is Function.setup_context:
            return cls.forward(ctx, *inputs, **static)
        out = cls.forward(*inputs, **static)
        cls.setup_context(ctx, inputs, out)
        return out


def _apply_custom(cls, inputs, static):
    """A user's Function: forward runs on Tensors with grad mode off, then one node links it."""
    tensor_cls = _tensor.Tensor
    needs = tuple(isinstance(x, tensor_cls) and x._requires_grad for x in inputs)
    record = grad_mode._enabled and True in needs
    ctx = cls.node_class()()
    ctx.needs_input_grad = needs
    if record and anomaly_mode._mode["enabled"]:
        anomaly_mode.record_forward(ctx)
    out = _run_custom_forward(cls, ctx, inputs, static)
    outputs = out if isinstance(out, tuple) else (out,)
    if not record:
        return out
    # only Tensor arguments are inputs of the node: numbers, strings... get no edge
    ctx._input_is_tensor = tuple(isinstance(x, tensor_cls) for x in inputs)
    tensor_inputs = [x for x in inputs if isinstance(x, tensor_cls)]
    _link(ctx, tensor_inputs, [x._requires_grad for x in tensor_inputs])
    ctx._outputs_meta = tuple(
        (o.shape, o._data.dtype) if isinstance(o, tensor_cls) else None for o in outputs
    )
    ctx._num_outputs = len(outputs)
    results = tuple(
        _attach_output(ctx, i, o, inputs) if isinstance(o, tensor_cls) else o  # numbers pass
        for i, o in enumerate(outputs)
    )
    if ctx._to_save is not None:
        saved.keep(ctx, inputs, inputs, results, results)
    return results if isinstance(out, tuple) else results[0]


def _attach_output(ctx, index: int, out, inputs):
    """Make ``out`` the node's output ``index``, honouring mark_dirty/mark_non_differentiable."""
    dirty = id(out) in ctx.__dict__.get("_dirty", ())
    differentiable = id(out) not in ctx.__dict__.get("_non_differentiable", ())
    if dirty and out._requires_grad and out._grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad has been used in an in-place operation."
        )
    if dirty:
        out._version_counter.value += 1
    elif any(out is x for x in inputs):
        with grad_mode.no_grad():
            out = out.view_as(out)  # returning an input unchanged still gets a new node
    if differentiable:
        out._grad_fn, out._output_nr, out._requires_grad = ctx, index, True
    return out
