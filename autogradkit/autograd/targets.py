"""Backward toward chosen tensors (``autograd.grad``, ``backward(inputs=...)``): which nodes
lead to a target, which of them run, and the gradients that reach a target.

``run_backward`` (``engine.py``) calls these only when it is given targets; the lesson's
``backward()`` has none.
"""

from __future__ import annotations

from .hooks import run_tensor_hooks

__all__ = ["nodes_leading_to"]


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
