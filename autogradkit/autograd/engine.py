"""The engine: runs the backward graph from the outputs back to the leaves, iteratively.

1. Seed each output with its gradient.  2. Count, for every reachable node, how many consumers
will send it a gradient.  3. Run nodes whose count reached zero (latest-created first, as
PyTorch does), reduce each gradient to its input's shape, pass it on.  4. Free saved tensors
unless ``retain_graph``. No recursion: a 100,000-op chain is fine.
"""

from __future__ import annotations

import heapq

import numpy as np

from .. import _dtype, _shape
from . import anomaly_mode, grad_mode
from .graph import run_tensor_hooks


def run_backward(roots, grads, retain_graph: bool, create_graph: bool, targets=None) -> dict:
    """Run the graph from ``roots`` (``(node, output_nr)`` pairs) seeded with ``grads``.

    Without ``targets`` every node runs and every reached leaf accumulates into ``.grad``.
    With ``targets`` (``{(node, output_nr): run_accumulator}``) only nodes leading to a
    target run, and the gradients arriving at the targets are returned.
    """
    nodes = [node for node, _ in roots]
    needed = None if targets is None else _nodes_leading_to(nodes, {n for n, _ in targets})
    dependencies = _count_dependencies(nodes, needed)
    pending, captured = {}, {}  # gradients on their way; gradients that reached a target
    for (node, nr), g in zip(roots, grads):
        _add_into(pending, node, nr, g)
    ready = [(n._priority, n) for n in dict.fromkeys(nodes) if not dependencies.get(n)]
    heapq.heapify(ready)
    anomaly = anomaly_mode._mode["enabled"]
    with grad_mode.set_grad_enabled(create_graph):
        while ready:
            node = heapq.heappop(ready)[1]
            grad_outputs = pending.pop(node, None)
            if targets is not None and grad_outputs is not None:
                _capture(node, grad_outputs, targets, captured)
            skip = needed is not None and not _should_run(node, needed, targets)
            if grad_outputs is None or skip:
                grad_inputs = (None,) * len(node.next_functions)
            elif anomaly:
                grad_inputs = _run_node_with_anomaly_checks(node, grad_outputs)
            else:
                grad_inputs = node._backward(grad_outputs)
            if grad_outputs is not None and not (skip or retain_graph or node._saved is None):
                node._release_saved()
            _send(node, grad_inputs, pending, dependencies, needed, ready)
    return captured


def _run_node_with_anomaly_checks(node, grad_outputs):
    try:  # say where the failing node was made, and stop at NaN
        grad_inputs = node._backward(grad_outputs)
        if anomaly_mode._mode["check_nan"]:
            anomaly_mode.check_nan(node, grad_inputs)
    except Exception:
        anomaly_mode.forward_traceback_warning(node)
        raise
    return grad_inputs


def _send(node, grad_inputs, pending, dependencies, needed, ready) -> None:
    """Pass each input's gradient to the node that made that input."""
    metas = node._input_meta
    for i, (child, nr) in enumerate(node.next_functions):
        if child is None or (needed is not None and child not in needed):
            continue
        g = grad_inputs[i]
        if g is not None:
            meta = metas[i]
            if g.shape != meta[0] or g.dtype != meta[1]:
                g = _fit(g, meta, node, i)
            _add_into(pending, child, nr, g)
        dependencies[child] -= 1
        if dependencies[child] == 0:  # priorities are unique: the heap never compares nodes
            heapq.heappush(ready, (child._priority, child))


def _fit(g, meta, node, index):
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


def _add_into(pending: dict, node, nr: int, g) -> None:
    slots = pending.get(node) or pending.setdefault(node, [None] * node._num_outputs)
    slots[nr] = g if slots[nr] is None else slots[nr] + g


def _count_dependencies(roots, needed) -> dict:
    """For each node, how many edges from reachable (and needed) nodes point at it."""
    dependencies: dict = {}
    stack, seen = list(roots), set(roots)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None or (needed is not None and child not in needed):
                continue
            dependencies[child] = dependencies.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return dependencies


def _nodes_leading_to(roots, target_nodes) -> set:
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


def _should_run(node, needed, targets) -> bool:
    """With targets: an AccumulateGrad runs as its target says, another node if it leads to one."""
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
