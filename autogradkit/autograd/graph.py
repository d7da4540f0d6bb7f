"""The backward graph: ``Node`` (what ``grad_fn`` is), hooks around nodes, and graph walks.

Each operation that records creates one node. ``next_functions`` points from a node back to
the nodes that made its inputs, so the graph runs from the output back to the leaves, where
an ``AccumulateGrad`` node (``engine.py``) writes into ``.grad``. Also here: the version
counter every tensor carries, and ``increment_version``, the one function that moves it.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from ..utils.hooks import HookDict, add_hook, next_id
from . import observer
from .hooks import run_node_post_hooks, run_node_pre_hooks, run_tensor_hooks
from .variable import TensorBase, increment_version

__all__ = [
    "GradientEdge",
    "Node",
    "get_gradient_edge",
    "increment_version",
    "saved_tensors_hooks",
    "save_on_cpu",
    "walk",
]

# the (pack, unpack) pairs of the saved_tensors_hooks blocks entered, innermost last
_saved_tensors_hooks: list = []
_STORE = frozenset({"_saved", "_saved_meta"})  # what _saved_<name> reads: not in dir(node)


class GradientEdge(NamedTuple):
    """Where a gradient goes in the graph: output ``output_nr`` of ``node``."""

    node: Node
    output_nr: int


def gradient_edge(tensor) -> tuple:
    """``(node, output_nr)``: where a gradient for ``tensor`` goes in the graph, its grad_fn,
    or for a leaf its AccumulateGrad node (made at the leaf's first use in a graph). The
    plain pair ``next_functions`` holds, as PyTorch prints it."""
    if tensor._grad_fn is None:
        return (grad_accumulator(tensor), 0)
    return (tensor._grad_fn, tensor._output_nr)


def get_gradient_edge(tensor) -> GradientEdge:
    """PyTorch's ``torch.autograd.graph.get_gradient_edge``: the same edge, with names."""
    return GradientEdge(*gradient_edge(tensor))


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
    # an op's own names (forward, backward, apply...), not the node's: dir() leaves them out
    _op_api = frozenset({"backward"})

    def __init__(self, next_functions=(), input_meta=()):
        self.next_functions = next_functions
        self._input_meta = input_meta  # ((shape, numpy dtype), ...) per input
        self._priority = -next_id()  # later nodes run first among ready ones

    def name(self) -> str:
        return type(self).__name__

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = HookDict()
        self._plain = False
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = HookDict()
        self._plain = False
        return add_hook(self._pre_hooks, fn)

    def _tensor_hook_dict(self, output_nr: int) -> HookDict:
        """The hooks of this node's output ``output_nr`` (``tensor.register_hook``)."""
        if self._tensor_hooks is None:
            self._tensor_hooks = HookDict()
        self._plain = False
        return self._tensor_hooks.setdefault(output_nr, HookDict())

    def _retain(self, output_nr: int, tensor_ref) -> None:
        """Keep the gradient of output ``output_nr`` in that tensor's ``.grad``."""
        if self._retained is None:
            self._retained = {}
        self._plain = False
        self._retained[output_nr] = tensor_ref

    @property
    def requires_grad(self) -> bool:
        return True  # a node exists only where some input requires grad

    def __repr__(self) -> str:
        cls = type(self)
        name = f"{cls.__module__}.{cls.__name__}" if self._custom else cls.__name__
        return f"<{name} object at {hex(id(self))}>"

    def __dir__(self):
        """What PyTorch's nodes show: a node's public names only (not the op's forward,
        backward and ctx helpers), the ``_saved_<name>`` fields this node has, and no store."""
        if self._custom:
            return sorted(n for n in super().__dir__() if n not in _STORE)
        cls = type(self)
        names = set(dir(cls)) - cls._op_api
        return sorted(n for n in names if n not in _STORE and _is_field(cls, n))

    def __call__(self, *grad_outputs):
        """Run this node's backward on Tensors, as calling a PyTorch node does."""
        grads = [g._data if isinstance(g, TensorBase) else g for g in grad_outputs]
        return tuple(
            None if g is None else TensorBase._wrap(np.asarray(g)) for g in self._backward(grads)
        )

    def _backward(self, grad_outputs: list) -> tuple:
        """The gradients for ``next_functions``, hooks and all (the engine's general case)."""
        raise NotImplementedError


def _is_field(cls, name: str) -> bool:
    """False for a ``_saved_*`` name the node's op does not have (a parent op's field)."""
    value = getattr(cls, name, None)
    return not (isinstance(value, property) and getattr(value.fget, "__name__", "") == "_not_saved")


def link(node, tensors) -> None:
    """Point a node at the nodes that made its tensor inputs, and note each input's shape."""
    node.next_functions = tuple(
        gradient_edge(x) if x._requires_grad else (None, 0) for x in tensors
    )
    node._input_meta = tuple(
        (x._data.shape, x._data.dtype) if x._requires_grad else None for x in tensors
    )


def walk(root: Node):
    """Every node reachable from ``root``, each once, parents before children (iterative)."""
    seen, order, stack = {id(root)}, [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for child, _ in reversed(node.next_functions):
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return order


def nodes_leading_to(roots, target_nodes) -> set:
    """The nodes from which some target node can be reached (iterative post-order walk)."""
    needed, done, stack = set(), set(), [(n, False) for n in roots]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            done.add(node)
            if node in target_nodes or any(c in needed for c, _ in node.next_functions if c):
                needed.add(node)
        elif node not in done:
            stack.append((node, True))
            stack.extend((c, False) for c, _ in node.next_functions if c and c not in done)
    return needed


class saved_tensors_hooks:
    """Inside this block, every tensor an operation saves for backward goes through
    ``pack_hook(tensor)``; what it returns is kept instead, and ``unpack_hook(packed)`` must
    give a tensor back when backward (or ``grad_fn._saved_self``) needs it. Nested blocks:
    the innermost pair applies.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.ones(2, requires_grad=True)
        >>> with agk.autograd.graph.saved_tensors_hooks(lambda t: t.tolist(), agk.tensor):
        ...     y = a.sin()
        >>> y.grad_fn._saved_self
        tensor([1., 1.], requires_grad=True)
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> None:
        _saved_tensors_hooks.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc_info) -> None:
        _saved_tensors_hooks.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors go to the CPU and come back to their device for backward. autogradkit
    has only the CPU, so they stay where they are (``pin_memory=True`` keeps a copy)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.detach().clone())  # a copy, as PyTorch's pinned one

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


def grad_accumulator(leaf: TensorBase) -> AccumulateGrad:
    """The leaf's AccumulateGrad node: one per leaf while any graph holds it."""
    node = leaf._accumulator_ref() if leaf._accumulator_ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._accumulator_ref = weakref.ref(node)
    return node


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
            (g,) = run_node_pre_hooks(node._pre_hooks, [g])
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
        else:  # in place, as PyTorch does: the same .grad tensor, one version later
            leaf._grad._data += g
            increment_version(leaf._grad)
        if leaf._post_accumulate_hooks:
            for hook in tuple(leaf._post_accumulate_hooks.values()):
                hook(leaf)
        if observer._watchers:
            observer.report("gradient_accumulated", leaf, leaf._grad)
        if node._post_hooks:
            run_node_post_hooks(node._post_hooks, (), [g])
        return ()

    def _backward(self, grad_outputs: list) -> tuple:
        return self.backward(self, *grad_outputs)
