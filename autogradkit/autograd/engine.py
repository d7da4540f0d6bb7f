"""The engine: ``backward()`` and ``grad()`` run the graph from the outputs back to the leaves.

1. Seed each output with its gradient (ones for a scalar).  2. Count, for every reachable
node, how many consumers will send it a gradient.  3. Run each node whose count reached zero
(latest-created first, as PyTorch does), reduce each gradient to its input's shape and pass it
on; free what the node saved unless ``retain_graph``.  4. At a leaf, ``AccumulateGrad`` adds
the gradient into ``.grad``. No recursion: a 100,000-op chain is fine.
"""

from __future__ import annotations

import heapq
import warnings

import numpy as np

from .. import _dtype, _shape
from . import anomaly_mode, grad_mode, observer, saved
from .graph import gradient_edge, nodes_leading_to
from .hooks import run_tensor_hooks
from .observer import observe
from .variable import TensorBase

__all__ = ["backward", "grad", "run_backward", "observe"]

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
                    node._saved = saved.FREED
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
        node._saved = saved.FREED
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
