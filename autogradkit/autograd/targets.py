"""Backward toward chosen tensors: ``autograd.grad`` (their gradients returned, ``.grad``
untouched) and ``backward(inputs=...)`` (accumulated into theirs only): which nodes lead to
a target, which of them run, and the gradients that reach a target.

Beside the core: the lesson's ``backward()`` has no targets, and no core module imports this
file. ``autograd/__init__.py`` exports ``grad`` (PyTorch keeps it in
``torch/autograd/__init__.py``). The engine reaches the rest through the hook it leaves for
it: this file puts ``Targets`` in ``engine.Targets`` when it loads (``backward`` makes one
of its ``inputs``), and ``run_backward`` calls only the methods of the ``targets`` it is
given (``nodes_leading_to_them``, ``capture``, ``should_run``).
"""

from __future__ import annotations

import numpy as np

from . import engine
from .engine import TensorBase, _as_tuple, _seeds, gradient_edge
from .hooks import run_tensor_hooks

__all__ = ["Targets", "grad", "nodes_leading_to"]


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
    retain_graph = create_graph if retain_graph is None else retain_graph
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots, grads = _seeds(outputs, grad_outputs, create_graph)
    targets = Targets(inputs, run_accumulators=False)
    # engine.run_backward, looked up at each call: a check may count or refuse the passes
    engine.run_backward(roots, grads, retain_graph, create_graph, targets)
    results = []
    for i, t in enumerate(inputs):
        g = targets.gradient(t)
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


def _wrap_grad(g):
    return g if isinstance(g, TensorBase) else TensorBase._wrap(np.array(g))


class Targets:
    """The tensors a backward pass runs toward, and the gradients that reached them.

    ``run_accumulators``: whether a leaf target's ``AccumulateGrad`` runs (``backward``'s
    ``inputs``: yes, its ``.grad`` accumulates) or not (``autograd.grad``: ``.grad`` stays).
    """

    def __init__(self, tensors: tuple, run_accumulators: bool):
        self.tensors, self.run_accumulators = tensors, run_accumulators
        self.edges: dict = {}  # (node, output_nr) of each target: run_accumulators
        self.captured: dict = {}  # (node, output_nr): the gradient that reached it
        self.needed: set = set()  # the nodes that lead to a target

    @classmethod
    def of_backward(cls, inputs) -> Targets:
        """``backward(inputs=...)``'s targets (PyTorch refuses an empty ``inputs``)."""
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        return cls(inputs, run_accumulators=True)

    def nodes_leading_to_them(self, roots) -> set:
        """The nodes from ``roots`` that lead to a target: only these run (each target's
        edge is found now, once the pass has its seeds)."""
        self.edges = {gradient_edge(t): self.run_accumulators for t in self.tensors}
        self.needed = nodes_leading_to(roots, {node for node, _ in self.edges})
        return self.needed

    def should_run(self, node) -> bool:
        """A node runs if it leads to a target (an AccumulateGrad if its target says so)."""
        if not node.next_functions:
            return self.edges.get((node, 0), False)
        return any(child is not None and child in self.needed for child, _ in node.next_functions)

    def capture(self, node, grad_outputs) -> None:
        """Keep the gradients that reach a target (a leaf's own hooks run first, as in PyTorch)."""
        for nr, g in enumerate(grad_outputs):
            if (node, nr) not in self.edges or g is None:
                continue
            variable = getattr(node, "variable", None)
            if variable is not None and variable._hooks and not self.edges[(node, nr)]:
                g = run_tensor_hooks(variable._hooks, g)
            self.captured[(node, nr)] = g

    def gradient(self, tensor):
        """The gradient that reached ``tensor`` (None if none did)."""
        return self.captured.get(gradient_edge(tensor))

    def accumulate_into_non_leaves(self) -> None:
        """``backward(inputs=...)``: a leaf's AccumulateGrad filled its ``.grad``; a non-leaf
        input gets its gradient here."""
        for t in self.tensors:
            g = self.gradient(t) if t._grad_fn is not None else None
            if g is not None:
                t._grad = _wrap_grad(g) if t._grad is None else t._grad + _wrap_grad(g)


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


engine.Targets = Targets  # what backward(inputs=...) makes (engine.py leaves the hook for it)
