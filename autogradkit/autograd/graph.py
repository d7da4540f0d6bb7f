"""The backward graph: ``Node`` (what ``grad_fn`` is), hooks around nodes, and graph walks.

Each operation that records creates one node. ``next_functions`` points from a node back to
the nodes that made its inputs, so the graph runs from the output back to the leaves, where
an ``AccumulateGrad`` node (``engine.py``) writes into ``.grad``. Also here: the version
counter every tensor carries, and ``increment_version``, the one function that moves it.
"""

from __future__ import annotations

import functools

import numpy as np

from ..utils.hooks import HookDict, add_hook, next_id

__all__ = [
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


@functools.cache
def tensor_class() -> type:
    """The ``Tensor`` class of ``tensor.py``, for autograd code that makes tensors.

    tensor.py is a layer above autograd (its methods record nodes), so autograd cannot
    import it when it loads; it is imported here at the first call, once the package has
    loaded. This is the one reference from autograd up to the Tensor facade.
    """
    from ..tensor import Tensor  # a layer up: imported at first use (see above)

    return Tensor


class VersionCounter:
    """How many times a tensor's memory was changed in place (shared by views and detach).

    A new tensor has none (``_version_counter`` is None: version 0) until something needs
    one: it is saved for backward, viewed, detached, or changed in place.
    """

    value = 0  # read from the class until the first in-place change (cheap to create)


class InferenceVersion(VersionCounter):
    """The mark of an inference tensor (made in ``inference_mode``): PyTorch tracks no
    version for these, so reading ``_version`` or saving one for backward is an error."""


INFERENCE = InferenceVersion()  # one for all inference tensors: it never moves


def version_counter(tensor) -> VersionCounter:
    """``tensor``'s version counter, made now if it had none (to be shared or saved)."""
    counter = tensor._version_counter
    if counter is None:
        counter = tensor._version_counter = VersionCounter()
    return counter


def increment_version(tensor) -> None:
    """Note that ``tensor``'s memory was changed in place (a tensor or several).

    Every in-place op, optimizer step and ``nn.init`` function calls this: it is the one
    place versions move. Backward compares the version of each saved tensor with the one
    it had when saved, and refuses to use a changed one.
    """
    for t in tensor if isinstance(tensor, (tuple, list)) else (tensor,):
        counter = version_counter(t)
        if counter is not INFERENCE:
            counter.value += 1


def get_gradient_edge(tensor) -> tuple:
    """``(node, output_nr)``: where a gradient for ``tensor`` goes in the graph (its grad_fn,
    or for a leaf its AccumulateGrad node)."""
    if tensor._grad_fn is None:
        return (tensor._accumulator(), 0)
    return (tensor._grad_fn, tensor._output_nr)


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
        Tensor = tensor_class()
        grads = [g._data if isinstance(g, Tensor) else g for g in grad_outputs]
        return tuple(
            None if g is None else Tensor._wrap(np.asarray(g)) for g in self._backward(grads)
        )

    def _backward(self, grad_outputs: list) -> tuple:
        """The gradients for ``next_functions``, hooks and all (the engine's general case)."""
        raise NotImplementedError


def _is_field(cls, name: str) -> bool:
    """False for a ``_saved_*`` name the node's op does not have (a parent op's field)."""
    value = getattr(cls, name, None)
    return not (isinstance(value, property) and getattr(value.fget, "__name__", "") == "_not_saved")


def run_tensor_hooks(hooks: dict, g):
    """Call a tensor's hooks in order; each may return a replacement gradient."""
    Tensor = tensor_class()
    as_tensor = g if isinstance(g, Tensor) else Tensor._wrap(g)
    for hook in tuple(hooks.values()):
        result = hook(as_tensor)
        if result is None:
            continue
        name = getattr(hook, "__name__", type(hook).__name__)
        if result.shape != as_tensor.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if result.dtype is not as_tensor.dtype:
            raise RuntimeError(
                f"hook '{name}' has changed the type of value (was autogradkit."
                f"{as_tensor.dtype._tensor_type} got autogradkit.{result.dtype._tensor_type})"
            )
        as_tensor = result
    return as_tensor if isinstance(g, Tensor) else as_tensor._data


def as_tensors(values) -> tuple:
    """Arrays as Tensors (None and Tensors as they are): what hooks and custom backwards see."""
    Tensor = tensor_class()
    return tuple(
        v if v is None or isinstance(v, Tensor) else Tensor._wrap(np.asarray(v)) for v in values
    )


def _as_arrays(values, like):
    Tensor = tensor_class()
    if any(isinstance(v, Tensor) and v._requires_grad for v in like if v is not None):
        return list(values)  # create_graph: keep Tensors
    return [v._data if isinstance(v, Tensor) else v for v in values]


def run_node_pre_hooks(hooks, grads):
    """``hook(grad_outputs)`` before a node runs; a returned tuple replaces them."""
    for hook in tuple(hooks.values()):
        result = hook(as_tensors(grads))
        if result is not None:
            grads = _as_arrays(result, grads)
    return grads


def run_node_post_hooks(hooks, grad_inputs, grad_outputs):
    """``hook(grad_inputs, grad_outputs)`` after a node ran; a returned tuple replaces them."""
    for hook in tuple(hooks.values()):
        result = hook(as_tensors(grad_inputs), as_tensors(grad_outputs))
        if result is not None:
            grad_inputs = tuple(_as_arrays(result, grad_inputs))
    return grad_inputs


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
