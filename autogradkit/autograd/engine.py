"""The engine: one op recorded, and ``backward()`` run, in one file.

micrograd's ``engine.py`` is the model: what ``c = a * b`` and ``c.sum().backward()`` run
reads top to bottom here, with no other file between their steps but the op's own
``forward`` and ``backward`` (``ops/``).

- ``TensorBase``: what autograd keeps on every tensor (``requires_grad``, ``grad``,
  ``grad_fn``, hooks), ``_wrap`` (an array as a Tensor) and ``backward``;
- ``Node`` (what ``grad_fn`` is), ``gradient_edge`` (where a tensor's gradient goes) and
  ``AccumulateGrad``, the node at a leaf that adds the gradient into ``.grad``;
- ``Function.apply``, which runs an op's ``forward`` and records its node, and
  ``FunctionCtx``, the ``ctx`` forward saves into and backward reads from
  (``saved_tensors``, checked against in-place changes);
- ``backward()``: 1. seed each output with its gradient (ones for a scalar);
  2. count, for every reachable node, how many consumers will send it a gradient; 3. run
  each node whose count reached zero (latest-created first, as PyTorch does), reduce each
  gradient to its input's shape and pass it on; free what the node saved unless
  ``retain_graph``. No recursion: a 100,000-op chain is fine.

What the lesson's two lines never run sits below, in files this one imports, each named
where it is called: the hook runners (``hooks.py``), several outputs and views
(``outputs.py``), and a tensor's other autograd methods, the version counters and PyTorch's
version error (``variable.py``).

``tensor.py`` builds ``Tensor`` on ``TensorBase``; ``ops/`` defines each op as a subclass of
``Function``. Beside the lesson, importing this file and never imported by it: your own
Functions (``custom_function.py``), saved values beyond arrays (``saved.py``), PyTorch's
names for them and pack hooks (``saved_fields.py``), PyTorch's graph names (``graph.py``),
backward toward chosen tensors (``targets.py``: ``autograd.grad``, ``backward(inputs=...)``).
Where this file runs their code: the ``Function`` you subclass (``custom_function.py``)
overrides ``_run_custom``; ``saved.py`` hands over ``FunctionCtx._unpack_all`` when it
loads; a ``saved_tensors_hooks`` block pushes onto ``pack_hooks``; ``targets.py`` hands
over ``Targets`` when it loads. And ``observer.py``'s ``observe`` block puts its watcher on
``watchers``.
"""

from __future__ import annotations

import heapq
import numbers
import warnings
import weakref
from typing import NamedTuple

import numpy as np

from .. import _dtype, _shape
from ..utils.hooks import HookDict, add_hook, next_id
from . import grad_mode
from .hooks import as_tensors, run_node_hooks, run_output_hooks, run_tensor_hooks
from .outputs import _wrap_outputs, zeros_where_missing
from .variable import (
    INFERENCE,
    INFERENCE_SAVED,
    AutogradMethods,
    InferenceVersion,
    VersionCounter,
    check_no_grad_view,
    increment_version,
    version_counter,
    version_message,
)

__all__ = [
    "AccumulateGrad",
    "Function",
    "FunctionCtx",
    "Node",
    "REGISTRY",
    "SavedOrigin",
    "TensorBase",
    "backward",
    "gradient_edge",
    "run_backward",
]


_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


class TensorBase(AutogradMethods):
    """An array with the state autograd needs; ``Tensor`` adds the ops."""

    # slots, not a __dict__ entry: vars(t) stays {} as in PyTorch (the articles look at it).
    # The array and the tensor's place in the graph; what backward fills and runs (hooks);
    # the base of a view, and when a tensor made in no_grad mode was (check_no_grad_view)
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_version_counter")
    __slots__ += ("_grad", "_hooks", "_post_accumulate_hooks", "_accumulator_ref")
    __slots__ += ("_base", "_made_at", "__dict__", "__weakref__")

    def __init_subclass__(cls, wraps_outputs: bool = False, **kwargs):
        """``class Tensor(TensorBase, wraps_outputs=True)``: the higher layer registers the
        class of every tensor autograd makes (op outputs, gradients, what hooks see)."""
        super().__init_subclass__(**kwargs)
        if wraps_outputs:
            AutogradMethods._output_class = cls  # (variable.py: lower files make tensors too)

    @staticmethod
    def _wrap(data, grad_fn=None, output_nr=0) -> TensorBase:
        """Wrap an array without copying (internal; ``grad_fn`` set means requires grad)."""
        t = object.__new__(TensorBase._output_class)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t._grad_fn, t._output_nr, t._requires_grad = grad_fn, output_nr, grad_fn is not None
        # a leaf's counter now, an op's output's when it needs one (VersionCounter)
        t._version_counter = VersionCounter() if grad_fn is None else None
        if grad_mode._inference:
            t._version_counter = INFERENCE
        t._grad = t._base = t._hooks = t._post_accumulate_hooks = t._accumulator_ref = None
        return t

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph's leaves (what
        ``torch.Tensor.backward`` does: call ``autograd.backward``, just below)."""
        backward(self, gradient, retain_graph, create_graph, inputs)

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        if value and self.is_inference() and not grad_mode._inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = bool(value)

    @property
    def grad_fn(self):
        """The node that made this tensor (None for leaves)."""
        if self._grad_fn is None and self._base is not None and self._requires_grad:
            check_no_grad_view(self)  # (variable.py: a view made in no_grad mode)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors you created, and for any tensor that does not require grad."""
        return self.grad_fn is None

    @property
    def grad(self):
        """Gradient accumulated by backward (leaves, and non-leaves that ``retain_grad()``)."""
        if self._grad_fn is not None and not self.retains_grad and self._grad is None:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, TensorBase):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError("assigned grad has data of a different size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value


AutogradMethods._output_class = TensorBase  # until Tensor registers itself


# ----- the graph: its nodes, its edges, and the node at a leaf ----------------------------


class Node:
    """One step of the backward graph.

    Attributes a student can explore (the same as PyTorch's):
        next_functions: ``((node, output_index), ...)`` per input, ``(None, 0)`` for an
            input that needs no gradient.
        metadata: a dict for your own notes.
    """

    __slots__ = ("next_functions", "_input_meta", "_priority", "__dict__", "__weakref__")
    # rarely set, so they live on the class until a node needs its own (fast to create)
    _metadata = _pre_hooks = _post_hooks = _tensor_hooks = _retained = None
    _saved = None  # what backward will read (a Function node keeps it in a slot)
    _num_outputs = 1
    # True while the engine may call backward(node, *grads) directly: no hooks on the node,
    # nothing special to do around it (registering a hook sets it False on that node)
    _plain = False
    _custom = False
    # (what dir(node) shows, PyTorch's listing, is saved_fields.node_dir's: beside the core)

    # (no __init__: AccumulateGrad and FunctionCtx make their own, and apply makes an op's
    # node with __new__; every node class has _backward, the engine's general case)

    def name(self) -> str:
        return type(self).__name__

    def __call__(self, *grad_outputs):
        """Run this node's backward on Tensors, as calling a PyTorch node does."""
        grads = [g._data if isinstance(g, TensorBase) else g for g in grad_outputs]
        return as_tensors(self._backward(grads))  # (in grad mode, Tensors with their graph)

    # ----- what the lesson never calls: hooks, metadata, retained gradients, printing -----
    @property
    def metadata(self) -> dict:
        return self.__dict__.setdefault("_metadata", {})

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        return add_hook(self._own_dict("_post_hooks"), fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        return add_hook(self._own_dict("_pre_hooks"), fn)

    def _tensor_hook_dict(self, output_nr: int) -> HookDict:
        """The hooks of this node's output ``output_nr`` (``tensor.register_hook``)."""
        return self._own_dict("_tensor_hooks").setdefault(output_nr, HookDict())

    def _retain(self, output_nr: int, tensor_ref) -> None:
        """Keep the gradient of output ``output_nr`` in that tensor's ``.grad``."""
        self._own_dict("_retained")[output_nr] = tensor_ref

    def _own_dict(self, name: str) -> HookDict:
        """The node's own ``name`` dict (until then the class's None), made at first use. A
        node with hooks or retained gradients is no longer plain: ``run_node`` runs it."""
        self._plain = False
        return self.__dict__.setdefault(name, HookDict())

    @property
    def requires_grad(self) -> bool:
        return True  # a node exists only where some input requires grad

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


def gradient_edge(tensor) -> tuple:
    """``(node, output_nr)``: where a gradient for ``tensor`` goes in the graph, its grad_fn,
    or for a leaf its AccumulateGrad node (made at the leaf's first use in a graph). The
    plain pair ``next_functions`` holds, as PyTorch prints it."""
    if tensor._grad_fn is None:
        return (grad_accumulator(tensor), 0)
    return (tensor._grad_fn, tensor._output_nr)


def grad_accumulator(leaf: TensorBase) -> AccumulateGrad:
    """The leaf's AccumulateGrad node: one per leaf while any graph holds it."""
    node = leaf._accumulator_ref() if leaf._accumulator_ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        if leaf._base is not None:  # a view made in no_grad mode: unless its base changed
            check_no_grad_view(leaf)
        leaf._accumulator_ref = weakref.ref(node)
    return node


def link(node, tensors) -> None:
    """Point a node at the nodes that made its tensor inputs, and note each input's shape
    (a custom Function's node, an in-place op's CopySlices: apply does it inline)."""
    edges = [gradient_edge(x) if x._requires_grad else (None, 0) for x in tensors]
    metas = [(x._data.shape, x._data.dtype) if x._requires_grad else None for x in tensors]
    node.next_functions, node._input_meta = tuple(edges), tuple(metas)


def _qualified_name(node) -> str:
    """How PyTorch names the nodes it makes itself: ``autogradkit::autograd::AccumulateGrad``."""
    return f"autogradkit::autograd::{type(node).__name__}"


_ACCUMULATE_FIRST = -(2**62)  # AccumulateGrad runs as soon as it is ready, as in PyTorch


class AccumulateGrad(Node):
    """The node at a leaf: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)
    __module__ = "builtins"  # prints as <AccumulateGrad object at ...>, as in PyTorch
    _plain = True  # the engine calls backward(node, g): it runs every hook itself

    next_functions = ()  # a leaf: nothing comes before it

    def __init__(self, variable: TensorBase):
        self.variable = variable
        self._input_meta = ((variable._data.shape, variable._data.dtype),)
        self._priority = _ACCUMULATE_FIRST - next_id()

    def name(self) -> str:
        return "autogradkit::autograd::AccumulateGrad"

    @staticmethod
    def backward(node, g) -> tuple:
        """Add ``g`` into the leaf's ``.grad``: a new tensor the first time (laid out like
        the leaf, in its ``grad_dtype``), the same tensor one version later after that."""
        leaf = node.variable
        if leaf._hooks:  # the leaf's own hooks first, then this node's pre-hooks
            g = run_tensor_hooks(leaf._hooks, g)
        if node._pre_hooks:
            (g,) = run_node_hooks(node._pre_hooks, [g])
        if isinstance(g, TensorBase):  # create_graph=True: keep the graph of the gradient
            if leaf._grad is None:  # a copy, as PyTorch makes it (CopyBackwards)
                leaf._grad = TensorBase._wrap(np.zeros_like(leaf._data)).copy_(g)
            else:
                leaf._grad = leaf._grad + g
        elif leaf._grad is None:
            dtype = leaf.__dict__.get("_grad_dtype", leaf._data.dtype)  # leaf.grad_dtype
            if dtype is None:
                dtype = np.asarray(g).dtype
            grad = np.empty_like(leaf._data, getattr(dtype, "numpy", dtype))  # numpy's dtype
            np.copyto(grad, g, casting="unsafe")
            leaf._grad = TensorBase._wrap(grad)
            if isinstance(g, np.ndarray) and (0 in g.strides or not g.flags.c_contiguous):
                increment_version(leaf._grad)  # PyTorch copy_s an expanded or strided gradient
        else:  # in place, as PyTorch does: the same .grad tensor, one version later
            leaf._grad._data += g
            increment_version(leaf._grad)
        if leaf._post_accumulate_hooks:
            for hook in tuple(leaf._post_accumulate_hooks.values()):
                hook(leaf)
        if watchers:
            report("gradient_accumulated", leaf, leaf._grad)
        if node._post_hooks:
            run_node_hooks(node._post_hooks, (), [g])
        return ()

    def _backward(self, grad_outputs: list) -> tuple:
        return self.backward(self, *grad_outputs)


# ----- recording one op: Function.apply, and the ctx it gives forward --------------------

REGISTRY: dict[str, type] = {}  # every built-in op class, filled at import by __init_subclass__


class _Scratch:
    """The ctx forward gets when nothing is recorded: it accepts saves and forgets them."""

    needs_input_grad = (True, True, True)  # Function.call on arrays: compute everything

    def save_for_backward(self, *values) -> None:
        pass

    def mark_non_differentiable(self, *values) -> None:  # (max, min...: their indices)
        pass


class FunctionCtx(Node):
    """A node that runs a ``Function``'s backward, and the ``ctx`` its forward and backward
    share: what forward saves (``save_for_backward``) is what backward reads
    (``saved_tensors``)."""

    # slots, not the node's __dict__ (which holds the op's own notes, such as ``ctx.dim``):
    # _saved is what forward saved, _saved_meta where each value came from (SavedOrigin)
    __slots__ = ("needs_input_grad", "_saved", "_saved_meta")
    # what saved_tensors does beyond arrays (Tensors, packed or freed values): saved.py's
    # unpack_all, which it puts here when it loads (it imports this file)
    _unpack_all = None
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

    @property
    def saved_tensors(self) -> tuple:
        """What forward saved, checked against in-place changes since then.

        A built-in op's backward on arrays (the usual case) gets the arrays themselves, once
        each one's version is checked here; everything else is unpacked in ``saved.py``.
        """
        values = self._saved
        if values is None:
            return ()
        if self._custom or grad_mode._enabled or values is FREED:
            return self._unpack_all()
        metas = self._saved_meta
        for i in self.pack_order or range(len(values)):
            value, meta = values[i], metas[i]
            if isinstance(value, Packed):
                return self._unpack_all()
            if meta is not None and meta.counter is not None and meta.counter.value != meta.version:
                raise RuntimeError(version_message(value, meta, self))
        return values

    def _backward(self, grad_outputs: list) -> tuple:
        """The general case of running this node: hooks, custom backward, several outputs,
        Scalar arguments (the engine calls ``backward`` directly on a plain node)."""
        grads = grad_outputs
        if self._tensor_hooks or self._retained:
            grads = run_output_hooks(self, grads)
        if self._outputs_meta:  # (a custom Function that set_materialize_grads(False): None)
            grads = zeros_where_missing(self, grads)
        if self._pre_hooks:
            grads = run_node_hooks(self._pre_hooks, grads)
        if self.quiet_floating_errors:
            with np.errstate(all="ignore"):
                result = self.backward(self, *grads)
        elif self._custom:
            result = self._custom_backward(grads)  # custom_function.py's node class
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
            result = run_node_hooks(self._post_hooks, result, grads)
        return result


class Function(FunctionCtx):
    """Base class of every differentiable operation, built-in or your own.

    A built-in op (in ``ops/`` or ``nn/ops/``) is named after the node PyTorch records for it
    (``MulBackward0``): it works on NumPy arrays, and its instances are the nodes of the
    graph. A subclass you write (of ``autograd.Function``, ``custom_function.py``'s subclass
    of this class, which runs yours) works on Tensors, exactly as ``torch.autograd.Function``
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
    # what apply reads of the class (builtin, promotes, quiet_floating_errors,
    # numbers_are_scalars, is_view, forward), read when the class is made: apply then looks up
    # one class attribute per op, not six (Python 3.11 finds each through a cache whose hits
    # vary from one run to the next)
    _flags: tuple
    # how apply runs a class you wrote: autograd.Function (custom_function.py, a subclass of
    # this one: this file never imports it) sets it to its ``run``
    _run_custom = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # a class you wrote subclasses autograd.Function, which sets _run_custom; every other
        # subclass is an op of the kit's (ops/, nn/ops/, _inplace_views.py)
        builtin = cls._run_custom is None
        if builtin and cls.__name__[0] == "_":  # a private base two ops share
            return
        cls._flags = (builtin, cls.promotes, cls.quiet_floating_errors)
        cls._flags += (cls.numbers_are_scalars, cls.is_view, cls.forward)
        if not builtin:  # your own Function (custom_function.py): apply runs it by _run_custom
            return
        assert cls.__qualname__ not in REGISTRY, f"two ops named {cls.__qualname__}"
        REGISTRY[cls.__qualname__] = cls
        cls.__module__ = "builtins"  # type(grad_fn) prints <class 'MulBackward0'>, as torch's
        cls._plain = not cls.quiet_floating_errors  # the engine may call backward directly
        # (PyTorch's _saved_<name> fields: the package root's saved_fields.install, later)
        if cls.node_name:  # PyTorch's NotImplemented nodes: two ops, one printed name
            cls.__name__ = cls.node_name
            cls.name = _qualified_name

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
        builtin, promotes, quiet, scalar_arguments, is_view, forward = cls._flags
        if not builtin:
            node, result, outputs = cls._run_custom(cls, inputs, static)
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
                a_dtype = a.dtype  # (read once: each read asks NumPy)
                if dtype is not a_dtype:
                    dtype = a_dtype if dtype is False else None
                if x._requires_grad:
                    needs.append(True)
                    if recording:  # 3. (ahead)
                        edges.append(gradient_edge(x))
                        metas.append((a.shape, a_dtype))
                    continue
            else:
                arrays.append(x)
                dtype = None
            needs.append(False)
            edges.append((None, 0))
            metas.append(None)
        if dtype is None and promotes and len(arrays) > 1:
            arrays = _promote(inputs, arrays)
        needs = tuple(needs)
        node = None
        if recording and True in needs:
            node = cls.__new__(cls)  # an instance of this op's own class: MulBackward0
            node._priority, node._saved = -next_id(), None  # later nodes run first when ready
            if grad_mode.anomaly is not None:  # anomaly mode (beside): where it was made
                grad_mode.anomaly.record_forward(node)
        ctx = _Scratch() if node is None else node
        ctx.needs_input_grad = needs
        try:  # 2. (most ops take no keyword arguments: no empty dict to copy for them)
            if quiet:
                with np.errstate(all="ignore"):
                    out = forward(ctx, *arrays, **static)
            else:
                out = forward(ctx, *arrays, **static) if static else forward(ctx, *arrays)
        except ValueError:
            if cls.broadcasts:  # two shapes that do not broadcast: PyTorch's words
                _shape.broadcast_shape(np.shape(arrays[0]), np.shape(arrays[1]))
            raise
        if node is not None:  # 3.
            if scalar_arguments:  # a number given as a Scalar argument gets no edge
                edges, metas = _scalar_arguments(node, inputs, edges, metas)
            node.next_functions, node._input_meta = tuple(edges), tuple(metas)
        if type(out) is tuple or is_view:  # 4.
            result = _wrap_outputs(cls, out, inputs, node)
        else:
            result = TensorBase._wrap(out, node)
        if node is not None and node._saved is not None:  # 5.
            _keep(node, inputs, arrays, out, result)
        return result


def _promote(inputs, arrays):
    """Cast inputs to their common dtype; Python scalars become arrays of that dtype."""
    is_tensor = [isinstance(x, TensorBase) for x in inputs]
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


# a saved_tensors_hooks block (graph.py) puts here what packs each value saved in it, the
# innermost last: ``pack(node, results)`` (saved.pack_all with the block's two hooks)
pack_hooks: list = []


def _keep(node, inputs, arrays, out, result) -> None:
    """Note where each value forward saved came from, and that tensor's version now."""
    metas = []
    for value in node._saved:
        if value is None:
            metas.append(NOTHING)
            continue
        source = meta = None  # None: an array forward made (a mask, a cast copy)
        for x, a in zip(inputs, arrays):  # an input (or the number it was made from)?
            if value is a:
                source = x
                break
        else:  # an output of the node (``out``, wrapped as ``result``)?
            outputs, results = (out, result) if type(out) is tuple else ((out,), (result,))
            for nr, (o, r) in enumerate(zip(outputs, results)):
                if value is o and isinstance(r, TensorBase):
                    counter = version_counter(r)
                    meta = SavedOrigin(None, counter, counter.value, True, nr)
                    break
            else:  # a tensor a custom Function made and saved is its own source
                source = value if isinstance(value, TensorBase) else None
        if isinstance(source, TensorBase):
            counter = source._version_counter or version_counter(source)  # made if none
            if type(counter) is InferenceVersion:
                raise RuntimeError(INFERENCE_SAVED)
            # SavedOrigin(source, counter, ...) without its Python-level __new__: the same
            # tuple, made without a call frame (one per saved input of every recorded op)
            meta = tuple.__new__(SavedOrigin, (source, counter, counter.value, False, 0))
        elif source is not None:  # a Python number: nothing can change it
            meta = SavedOrigin(source, None, None, False, 0)
        metas.append(meta)
    node._saved_meta = tuple(metas)
    if pack_hooks:  # the innermost saved_tensors_hooks block packs what was saved
        pack_hooks[-1](node, result if type(out) is tuple else (result,))


# ----- what forward saved, read back: its origin, its version, freed or packed -------------

FREED = "freed by backward"  # stands in a node's store once backward released it


class SavedOrigin(NamedTuple):
    """Where a value forward saved came from, noted when it was saved (``_saved_meta``)."""

    tensor: object  # the input Tensor the value is, the number it was made from, or None
    counter: object  # that tensor's version counter (None for a number)
    version: int | None  # the counter's value then
    is_output: bool  # the value is output ``output_nr`` of the node itself
    output_nr: int


NOTHING = SavedOrigin(None, None, None, False, 0)  # the origin of a value saved as None


class Packed:
    """A saved value a pack hook holds (``saved_fields.PackedByHook``, beside the core):
    ``unpack()`` gives the hook's tensor back, ``restore(meta, node)`` puts it in the place of
    the tensor it stands for in the graph."""

    __slots__ = ()


# ----- watching a backward pass: the hook ``observe`` blocks use (observer.py, beside) ------

watchers: list = []  # the watchers of the ``observe`` blocks entered, innermost last


def report(event: str, *args) -> None:
    """Tell every watcher about ``event`` (the engine calls this only while some watch)."""
    for watcher in tuple(watchers):
        getattr(watcher, event)(*args)


def in_order(ready: list) -> tuple:
    """The nodes of the ready heap, in the order ``run_backward`` will run them."""
    return tuple(node for _, node in sorted(ready))


# ----- backward toward chosen tensors: the hook targets.py (beside the core) fills ----------

# ``targets.Targets``, which targets.py puts here when it loads: ``backward(inputs=...)``
# makes one of its ``inputs``, and ``run_backward`` asks it which nodes lead to them
Targets = None


# ----- backward(): the pass, step by step --------------------------------------------------

_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of leaves (or of ``inputs``).

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(3., requires_grad=True)
        >>> agk.autograd.backward(a * a)
        >>> a.grad
        tensor(6.)
    """
    outputs = (tensors,) if isinstance(tensors, TensorBase) else tuple(tensors)
    grad_outputs = (None,) * len(outputs) if grad_tensors is None else _as_tuple(grad_tensors)
    # only toward ``inputs``, if given: ``targets.Targets`` (beside the core, see ``Targets``)
    targets = None if inputs is None else Targets.of_backward(inputs)
    retain_graph = create_graph if retain_graph is None else retain_graph
    if create_graph:
        warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    roots, grads = _seeds(outputs, grad_outputs or (None,) * len(outputs), create_graph)
    run_backward(roots, grads, retain_graph, create_graph, targets)
    if targets is not None:  # leaves accumulated through AccumulateGrad; non-leaves now
        targets.accumulate_into_non_leaves()


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, TensorBase) else tuple(x)


def _seeds(outputs: tuple, grad_outputs: tuple, create_graph: bool) -> tuple[list, list]:
    """Step 1: each output's place in the graph, and the gradient it starts with (given ones
    are checked; a missing one is ones, for a scalar output only)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones(out._data.shape, out._data.dtype)
        elif not isinstance(g, TensorBase):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and "
                f"output[{i}] has a shape of {out.shape!r}."
            )
        elif not create_graph:
            g = g._data
        grads.append(TensorBase._wrap(g) if create_graph and not isinstance(g, TensorBase) else g)
    roots = []
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append(gradient_edge(out))
    return roots, grads


def run_backward(roots, grads, retain_graph: bool, create_graph: bool, targets=None) -> None:
    # long: steps 2 and 3, the two phases a student follows, in one piece
    """Run the graph from ``roots`` (``(node, output_nr)`` pairs) seeded with ``grads``, in
    two phases: count who waits for how many gradients (step 2), then run the ready nodes
    (step 3).

    Without ``targets`` every node runs and every reached leaf accumulates into ``.grad``.
    With ``targets`` (a ``Targets``: ``autograd.grad``, ``backward(inputs=...)``) only the
    nodes it says lead to a target run, and it keeps the gradients arriving at the targets.
    """
    nodes = [node for node, _ in roots]
    needed = None if targets is None else targets.nodes_leading_to_them(nodes)
    # 2. for every node reachable from the roots (and leading to a target, when ``needed``
    # says which do): how many gradients will arrive before it can run
    dependencies, stack, seen = {}, list(nodes), set(nodes)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None or (needed is not None and child not in needed):
                continue
            dependencies[child] = dependencies.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    pending = {}  # the gradients on their way to each node
    for (node, nr), g in zip(roots, grads):
        slots = pending.setdefault(node, [None] * node._num_outputs)
        slots[nr] = g if slots[nr] is None else slots[nr] + g
    ready = [(n._priority, n) for n in dict.fromkeys(nodes) if not dependencies.get(n)]
    heapq.heapify(ready)
    watched = bool(watchers)  # someone watches (viz's stepper): tell them each step
    if watched:
        report("dependencies_counted", dict(dependencies))
        for root in in_order(ready):  # the outputs backward starts from
            report("node_ready", root)
    # grad mode during backward is create_graph: set here directly, restored after
    previous, grad_mode._enabled = grad_mode._enabled, create_graph
    try:
        while ready:  # 3. run the ready node made last (a heap on creation order, as PyTorch)
            node = heapq.heappop(ready)[1]
            if watched:
                report("node_running", node, in_order(ready))
            grad_outputs = pending.pop(node, None)  # pop: the gradients are freed after use
            if targets is not None and grad_outputs is not None:
                targets.capture(node, grad_outputs)
            if grad_outputs is None or (needed and not targets.should_run(node)):
                grad_inputs = (None,) * len(node.next_functions)
            else:
                if node._plain and grad_mode.anomaly is None:
                    grad_inputs = node.backward(node, *grad_outputs)  # the op's, as in ops/
                else:  # hooks, custom Functions, anomaly mode, several outputs
                    grad_inputs = run_node(node, grad_outputs)
                if not retain_graph and node._saved is not None:  # free what it saved
                    node._saved = FREED
            if type(grad_inputs) is not tuple:
                grad_inputs = (grad_inputs,)
            if len(grad_inputs) != len(node.next_functions):
                raise gradient_count_error(node, len(node.next_functions), len(grad_inputs))
            metas = node._input_meta
            for i, (child, nr) in enumerate(node.next_functions):  # pass each gradient on
                if child is None or (needed is not None and child not in needed):
                    continue
                g = grad_inputs[i]
                if g is not None:
                    if g.shape != metas[i][0] or g.dtype != metas[i][1]:
                        g = fit(g, metas[i], node, i)
                    slots = pending.get(child) or pending.setdefault(
                        child, [None] * child._num_outputs
                    )
                    slots[nr] = g if slots[nr] is None else slots[nr] + g
                dependencies[child] -= 1
                if dependencies[child] == 0:  # priorities are unique: the heap never compares
                    heapq.heappush(ready, (child._priority, child))
                    if watched:
                        report("node_ready", child)
            if watched:
                report("node_ran", node, grad_inputs)
    finally:
        grad_mode._enabled = previous


def run_node(node, grad_outputs: list) -> tuple:
    """A node that is not plain: its hooks and the rest run in ``node._backward`` (anomaly
    mode, while it is on, runs every node: ``anomaly_mode.py``, beside the core)."""
    if grad_mode.anomaly is not None:
        return grad_mode.anomaly.run_node(node, grad_outputs)
    return node._backward(grad_outputs)


def gradient_count_error(node, expected: int, got: int) -> RuntimeError:
    """PyTorch's error when a backward returned more or fewer gradients than inputs."""
    return RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients "
        f"(expected {expected}, got {got})"
    )


def fit(g, meta, node, index):
    """Reduce a broadcast gradient to its input's shape and dtype: the one place this is done."""
    shape, dtype = meta
    if isinstance(g, np.generic):  # NumPy returns scalars from 0-d arithmetic
        g = np.asarray(g)
    if g.shape != shape:
        if not _shape.is_expandable_to(shape, g.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{list(g.shape)} but expected shape compatible with {list(shape)}"
            )
        g = _shape.unbroadcast(g, shape)
    if isinstance(g, np.ndarray):
        return g if g.dtype == dtype else g.astype(dtype)
    return g if g._data.dtype == dtype else g.to(_dtype.from_numpy(dtype))
