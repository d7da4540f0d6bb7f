"""The engine: a tensor's autograd state, the graph's nodes, and ``backward()``, in one file.

micrograd's ``engine.py`` is the model: what ``c.sum().backward()`` runs reads top to bottom
here, with no other file between its steps but the op's own ``backward`` (``ops/``) and
``ctx.saved_tensors`` (``function.py``).

- ``TensorBase``: what autograd keeps on every tensor (``requires_grad``, ``grad``,
  ``grad_fn``, hooks), ``_wrap`` (an array as a Tensor) and ``backward``;
- ``backward()`` and ``grad()``: 1. seed each output with its gradient (ones for a scalar);
  2. count, for every reachable node, how many consumers will send it a gradient; 3. run
  each node whose count reached zero (latest-created first, as PyTorch does), reduce each
  gradient to its input's shape and pass it on; free what the node saved unless
  ``retain_graph``. No recursion: a 100,000-op chain is fine;
- ``Node`` (what ``grad_fn`` is), ``gradient_edge`` (where a tensor's gradient goes) and
  ``AccumulateGrad``, the node at a leaf that adds the gradient into ``.grad``;
- the runners of the hooks these call (a node's or a tensor's).

``tensor.py`` builds ``Tensor`` on ``TensorBase``; ``function.py`` records the nodes.
"""

from __future__ import annotations

import heapq
import warnings
import weakref

import numpy as np

from .. import _dtype, _shape
from .._dtype import tensor_type
from ..utils.hooks import HookDict, add_hook, next_id
from . import anomaly_mode, grad_mode, observer
from .observer import observe
from .variable import INFERENCE, AutogradMethods, VersionCounter, increment_version

__all__ = [
    "AccumulateGrad",
    "Node",
    "TensorBase",
    "backward",
    "grad",
    "gradient_edge",
    "observe",
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

    # slots, not a __dict__ entry: vars(t) stays {} as in PyTorch (the articles look at it)
    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad_fn",
        "_version_counter",
        "_output_nr",
        "_grad",
        "_base",
        "_hooks",
        "_post_accumulate_hooks",
        "_accumulator_ref",
        "__dict__",
        "__weakref__",
    )

    def __init_subclass__(cls, wraps_outputs: bool = False, **kwargs):
        """``class Tensor(TensorBase, wraps_outputs=True)``: the higher layer registers the
        class of every tensor autograd makes (op outputs, gradients, what hooks see)."""
        super().__init_subclass__(**kwargs)
        if wraps_outputs:
            TensorBase._output_class = cls

    @staticmethod
    def _wrap(data, grad_fn=None, output_nr=0) -> TensorBase:
        """Wrap an array without copying (internal; ``grad_fn`` set means requires grad)."""
        t = object.__new__(TensorBase._output_class)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t._grad_fn, t._output_nr, t._requires_grad = grad_fn, output_nr, grad_fn is not None
        if grad_mode._inference:
            t._version_counter = INFERENCE
        else:  # a leaf's counter now, an op's output's when it needs one (VersionCounter)
            t._version_counter = VersionCounter() if grad_fn is None else None
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
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors you created, and for any tensor that does not require grad."""
        return self._grad_fn is None

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


TensorBase._output_class = TensorBase  # until Tensor registers itself


# ----- backward(): the pass, step by step --------------------------------------------------

_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)

FREED = "freed by backward"  # stands in a node's store once backward released it


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
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    roots, grads = _seeds(outputs, grad_outputs or (None,) * len(outputs), create_graph)
    if inputs is None:
        run_backward(roots, grads, retain_graph, create_graph)
        return
    targets = {gradient_edge(t): True for t in inputs}
    captured = run_backward(roots, grads, retain_graph, create_graph, targets)
    for t in inputs:  # leaves accumulated through AccumulateGrad; non-leaves get theirs here
        g = captured.get(gradient_edge(t)) if t._grad_fn is not None else None
        if g is not None:
            t._grad = _wrap_grad(g) if t._grad is None else t._grad + _wrap_grad(g)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """Return the gradients of ``outputs`` with respect to ``inputs`` (``.grad`` untouched).

    Example:
        >>> import autogradkit as agk
        >>> x = agk.tensor(2., requires_grad=True)
        >>> agk.autograd.grad(x ** 3, x)
        (tensor(12.),)
    """
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots, grads = _seeds(outputs, grad_outputs, create_graph)
    targets = {gradient_edge(t): False for t in inputs}
    captured = run_backward(roots, grads, retain_graph, create_graph, targets)
    results = []
    for i, t in enumerate(inputs):
        g = captured.get(gradient_edge(t))
        if g is None:
            if materialize_grads:
                g = np.zeros(t._data.shape, t._data.dtype)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
        results.append(None if g is None else _wrap_grad(g))
    return tuple(results)


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, TensorBase) else tuple(x)


def _wrap_grad(g):
    return g if isinstance(g, TensorBase) else TensorBase._wrap(np.array(g))


def _seeds(outputs: tuple, grad_outputs: tuple, create_graph: bool) -> tuple[list, list]:
    """Step 1: each output's place in the graph, and the gradient it starts with (given ones
    are checked; a missing one is ones, for a scalar output only)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones(out._data.shape, out._data.dtype)
        else:
            if not isinstance(g, TensorBase):
                g = TensorBase._wrap(np.asarray(g, dtype=out._data.dtype))
            if g.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and "
                    f"output[{i}] has a shape of {out.shape!r}."
                )
            g = g if create_graph else g._data
        grads.append(TensorBase._wrap(g) if create_graph and not isinstance(g, TensorBase) else g)
    roots = []
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append(gradient_edge(out))
    return roots, grads


def run_backward(
    roots, grads, retain_graph: bool, create_graph: bool, targets=None
) -> dict:  # long: step 3, the loop a student follows, in one piece
    """Run the graph from ``roots`` (``(node, output_nr)`` pairs) seeded with ``grads``: count
    who waits for how many gradients (step 2), then run the ready nodes (step 3).

    Without ``targets`` every node runs and every reached leaf accumulates into ``.grad``.
    With ``targets`` (``{(node, output_nr): run_accumulator}``) only nodes leading to a
    target run, and the gradients arriving at the targets are returned.
    """
    nodes = [node for node, _ in roots]
    needed = None if targets is None else nodes_leading_to(nodes, {n for n, _ in targets})
    dependencies = count_dependencies(nodes, needed)  # 2.
    pending, captured = {}, {}  # gradients on their way; gradients that reached a target
    for (node, nr), g in zip(roots, grads):
        slots = pending.setdefault(node, [None] * node._num_outputs)
        slots[nr] = g if slots[nr] is None else slots[nr] + g
    ready = [(n._priority, n) for n in dict.fromkeys(nodes) if not dependencies.get(n)]
    heapq.heapify(ready)
    watched = bool(observer._watchers)  # someone watches (viz's stepper): tell them each step
    if watched:
        observer.report_ready(ready)
    # grad mode during backward is create_graph: set here directly, restored after
    previous, grad_mode._enabled = grad_mode._enabled, create_graph
    try:
        while ready:  # 3. run the ready node made last (a heap on creation order, as PyTorch)
            node = heapq.heappop(ready)[1]
            if watched:
                observer.report("node_running", node, observer.in_order(ready))
            grad_outputs = pending.pop(node, None)  # pop: the gradients are freed after use
            if targets is not None and grad_outputs is not None:
                _capture(node, grad_outputs, targets, captured)
            if grad_outputs is None or (needed and not _should_run(node, needed, targets)):
                grad_inputs = (None,) * len(node.next_functions)
            elif node._plain and not anomaly_mode._mode["enabled"]:
                grad_inputs = node.backward(node, *grad_outputs)  # the op's, as in ops/
                if not retain_graph and node._saved is not None:
                    node._saved = FREED
            else:  # hooks, custom Functions, anomaly mode, several outputs
                grad_inputs = run_node(node, grad_outputs, retain_graph)
            if type(grad_inputs) is not tuple:
                grad_inputs = (grad_inputs,)
            if len(grad_inputs) != len(node.next_functions):
                _wrong_number_of_gradients(node, grad_inputs)
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
                        observer.report("node_ready", child)
            if watched:
                observer.report("node_ran", node, grad_inputs)
    finally:
        grad_mode._enabled = previous
    return captured


def count_dependencies(roots, needed=None) -> dict:
    """Step 2: for every node reachable from ``roots`` (and leading to a target, when
    ``needed`` says which do), how many gradients will arrive before it can run."""
    dependencies, stack, seen = {}, list(roots), set(roots)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None or (needed is not None and child not in needed):
                continue
            dependencies[child] = dependencies.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    if observer._watchers:
        observer.report("dependencies_counted", dict(dependencies))
    return dependencies


def run_node(node, grad_outputs: list, retain_graph: bool) -> tuple:
    """A node that is not plain: its hooks and the rest run in ``node._backward`` (anomaly
    mode also says where it was made). Frees what it saved unless ``retain_graph``."""
    if anomaly_mode._mode["enabled"]:
        grad_inputs = anomaly_mode.run_node_checked(node, grad_outputs)
    else:
        grad_inputs = node._backward(grad_outputs)
    if not retain_graph and node._saved is not None:
        node._saved = FREED
    return grad_inputs


def _wrong_number_of_gradients(node, grad_inputs: tuple):
    """PyTorch's error when a backward returned more or fewer gradients than inputs."""
    raise RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients "
        f"(expected {len(node.next_functions)}, got {len(grad_inputs)})"
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


def _should_run(node, needed, targets) -> bool:
    """With targets, a node runs if it leads to one (an AccumulateGrad if its target says so)."""
    if not node.next_functions:
        return targets.get((node, 0), False)
    return any(child in needed for child, _ in node.next_functions if child is not None)


def _capture(node, grad_outputs, targets, captured) -> None:
    """Keep the gradients that reach a target (a leaf's own hooks run first, as in PyTorch)."""
    for nr, g in enumerate(grad_outputs):
        if (node, nr) not in targets or g is None:
            continue
        variable = getattr(node, "variable", None)
        if variable is not None and variable._hooks and not targets[(node, nr)]:
            g = run_tensor_hooks(variable._hooks, g)
        captured[(node, nr)] = g


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
    # an op's own names (forward, backward, apply...), not the node's: dir() leaves them out
    _op_api = frozenset({"backward"})

    def __init__(self, next_functions=(), input_meta=()):
        self.next_functions = next_functions
        self._input_meta = input_meta  # ((shape, numpy dtype), ...) per input
        self._priority = -next_id()  # later nodes run first among ready ones

    def name(self) -> str:
        return type(self).__name__

    def __call__(self, *grad_outputs):
        """Run this node's backward on Tensors, as calling a PyTorch node does."""
        grads = [g._data if isinstance(g, TensorBase) else g for g in grad_outputs]
        return tuple(
            None if g is None else TensorBase._wrap(np.asarray(g)) for g in self._backward(grads)
        )

    def _backward(self, grad_outputs: list) -> tuple:
        """The gradients for ``next_functions``, hooks and all (the engine's general case)."""
        raise NotImplementedError

    # ----- what the lesson never calls: hooks, metadata, retained gradients, printing -----
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


_STORE = frozenset({"_saved", "_saved_meta"})  # what _saved_<name> reads: not in dir(node)


def _is_field(cls, name: str) -> bool:
    """False for a ``_saved_*`` name the node's op does not have (a parent op's field)."""
    value = getattr(cls, name, None)
    return not (isinstance(value, property) and getattr(value.fget, "__name__", "") == "_not_saved")


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


# ----- hooks: the user's functions run around a node, and what they see --------------------


def run_tensor_hooks(hooks: dict, g):
    """Call a tensor's hooks in order; each may return a replacement gradient."""
    as_tensor = g if isinstance(g, TensorBase) else TensorBase._wrap(g)
    for hook in tuple(hooks.values()):
        result = hook(as_tensor)
        if result is None:
            continue
        name = getattr(hook, "__name__", type(hook).__name__)
        before, after = as_tensor._data, result._data
        if after.shape != before.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if after.dtype != before.dtype:
            raise RuntimeError(
                f"hook '{name}' has changed the type of value (was "
                f"{tensor_type(before.dtype)} got {tensor_type(after.dtype)})"
            )
        as_tensor = result
    return as_tensor if isinstance(g, TensorBase) else as_tensor._data


def as_tensors(values) -> tuple:
    """Arrays as Tensors (None and Tensors as they are): what hooks and custom backwards see."""
    return tuple(
        v if v is None or isinstance(v, TensorBase) else TensorBase._wrap(np.asarray(v))
        for v in values
    )


def _as_arrays(values, like):
    if any(isinstance(v, TensorBase) and v._requires_grad for v in like if v is not None):
        return list(values)  # create_graph: keep Tensors
    return [v._data if isinstance(v, TensorBase) else v for v in values]


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


def run_output_hooks(node, grads):
    """Hooks registered on the node's output tensors, then retain_grad, as in PyTorch."""
    grads = list(grads)
    for nr, hooks in (node._tensor_hooks or {}).items():
        if grads[nr] is not None and hooks:
            grads[nr] = run_tensor_hooks(hooks, grads[nr])
    for nr, ref in (node._retained or {}).items():
        t = ref()
        if t is None or grads[nr] is None:
            continue
        g = grads[nr]
        g = g.detach().clone() if isinstance(g, TensorBase) else TensorBase._wrap(np.array(g))
        t._grad = g if t._grad is None else t._grad + g
    return grads
