"""Record what the real engine does during ``backward()``, node by node, to replay it.

``trace_backward(root)`` puts a pre-hook and a hook on every node of the graph (found with
``autograd.graph.walk``), runs ``root.backward(retain_graph=True)`` and removes the hooks
again. Nothing here computes a gradient: every number comes from the engine. With
``engine_state=True`` an engine observer (``autograd.observer``) also follows the engine's own
bookkeeping, and each pre-hook copies it as it is at that moment: the ready queue and how
many gradients each node still waits for.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from .._i18n import here
from .._shape import unbroadcast
from ..autograd.graph import walk
from ..autograd.observer import BackwardObserver, observe
from .graph import ACCUMULATE, FUNCTION, GRAD_FN, NEXT, Graph, Highlight, format_value, node_label

__all__ = ["Step", "Trace", "engine_text", "trace_backward"]


@dataclass(eq=False)
class Step:
    """One node as the engine ran it.

    ``grad_outputs``: the gradients it received (one per output of its forward).
    ``grad_inputs``: what it sent on, one per ``next_functions`` slot (``None`` where no
    gradient goes), already in the shape of that input.
    ``leaf_grad``: for ``AccumulateGrad``, the leaf's ``.grad`` right after it was written.
    """

    node: object
    grad_outputs: tuple
    grad_inputs: tuple = ()
    leaf_grad: np.ndarray | None = None
    had_grad: bool = False  # the leaf already had a .grad, so this one was added into it
    ready: tuple = ()  # the engine's ready queue as it took this node: the node, then the rest
    pending: dict | None = None  # node -> gradients it still waited for, at that moment

    @property
    def name(self) -> str:
        return node_label(self.node)


@dataclass(eq=False)
class Trace:
    """The steps of one ``backward()`` in the engine's order."""

    root: object
    steps: list[Step] = field(default_factory=list)

    def order(self) -> list[str]:
        """Node names in the order they ran, e.g. ``['MulBackward0', 'AccumulateGrad', ...]``."""
        return [s.name for s in self.steps]

    def ready(self, position: int) -> list:
        """The nodes in the engine's ready queue once ``position`` steps have run, in the order
        it will run them (needs ``engine_state=True``)."""
        return list(self.steps[position].ready) if position < len(self.steps) else []

    def pending(self, position: int) -> dict:
        """For each node not run yet once ``position`` steps have run: how many gradients it
        still waits for (0: it is in the ready queue). Needs ``engine_state=True``."""
        if position >= len(self.steps):
            return {}
        step = self.steps[position]
        waiting = {n: count for n, count in (step.pending or {}).items() if count > 0}
        return {**dict.fromkeys(step.ready, 0), **waiting}

    def highlight(self, graph: Graph, position: int, fade: bool = True):
        """What a drawing of ``graph`` shows once ``position`` steps have run (0: none yet).

        The step that ran last is the "running" one; with ``fade`` the ones before it are
        drawn faded. Arrows that carried a gradient are labelled with it.
        """
        ran = self.steps[:position]
        h = Highlight()
        if fade and ran:
            h.running = graph.id_of(ran[-1].node)
            h.done = frozenset(graph.id_of(s.node) for s in ran[:-1])
        outgoing = {(e.src, e.index): e for e in graph.edges if e.kind == NEXT}
        if self.steps:  # the seed is there before anything runs
            _label_seed(h, graph, self.root, self.steps[0])
        for step in ran:
            _label_step(h, graph, outgoing, step, show_leaf_grads=fade)
        if fade and self.steps and self.steps[0].pending is not None:
            _label_engine_state(h, graph, self, position)
            h.stepping = True
        return h

    def describe(self, position: int, graph: Graph | None = None) -> str:
        """One sentence on what happened at ``position``, for the stepper's status line (in
        the notebook's language)."""
        tr, n = here(), len(self.steps)
        if n == 0:
            return tr("Nothing to run: this tensor has no backward graph.")
        if position <= 0:
            seed = format_value(self.steps[0].grad_outputs[self.root.output_nr])
            return tr(
                "Before backward: the engine seeds the output's gradient with {seed}", seed=seed
            )
        step = self.steps[min(position, n) - 1]
        said = dict(k=min(position, n), n=n, node=step.name)
        said["got"] = ", ".join(format_value(g) for g in step.grad_outputs)
        if hasattr(step.node, "variable"):
            said["leaf"] = _box_title(graph, step.node.variable, tr("the leaf"))
            said["value"] = format_value(step.leaf_grad)
            if step.had_grad:
                return tr(
                    "Step {k} of {n}: {node} received {got} and added it into {leaf}.grad, "
                    "which is now {value}",
                    **said,
                )
            return tr(
                "Step {k} of {n}: {node} received {got} and wrote {leaf}.grad, "
                "which is now {value}",
                **said,
            )
        sent = [
            tr(
                "{value} to {node}",
                value=format_value(g),
                node=_box_title(graph, child, node_label(child)),
            )
            for (child, _), g in zip(step.node.next_functions, step.grad_inputs, strict=True)
            if child is not None and g is not None
        ]
        if not sent:
            return tr("Step {k} of {n}: {node} received {got}; it sent nothing on", **said)
        sent = tr(", ").join(sent)
        return tr("Step {k} of {n}: {node} received {got}; it sent {sent}", sent=sent, **said)


def _box_title(graph: Graph | None, obj, default: str) -> str:
    """A tensor's name, or a node's label, as the drawing shows it."""
    node_id = graph.id_of(obj) if graph is not None else None
    if node_id is None:
        return default
    box = graph.node(node_id)
    return box.name or (default if box.kind in ("leaf", "nonleaf", "nograd") else box.label)


def _label_engine_state(h, graph: Graph, trace: Trace, position: int) -> None:
    """Give each backward node a line saying where it stands in the engine: when it ran,
    its place in the ready queue, or how many gradients it still waits for."""
    ran = {id(s.node): k for k, s in enumerate(trace.steps[:position], start=1)}
    ready = trace.ready(position)
    place = {id(n): k for k, n in enumerate(ready, start=1)}
    pending = {id(n): count for n, count in trace.pending(position).items()}
    tr = here()
    for box in graph.nodes:
        key = id(box.ref)
        if box.kind not in (FUNCTION, ACCUMULATE):
            continue
        if key in ran:
            state = tr("ran at step {k}", k=ran[key])
        elif key in place:
            state = tr("ready #{k}", k=place[key])
        elif pending.get(key):
            state = tr("waits for {count}", count=pending[key])
        else:
            continue
        h.lines[box.id] = (*box.lines, state)
    h.ready = frozenset(i for i in (graph.id_of(n) for n in ready) if i is not None)


def engine_text(trace: Trace, position: int, graph: Graph | None = None) -> str:
    """The ready queue and the waiting nodes in words, for the stepper's second line (in the
    notebook's language)."""
    if not trace.steps or trace.steps[0].pending is None:
        return ""
    tr = here()
    if position >= len(trace.steps):
        return tr("Ready queue: empty. Every node has run, so backward is done.")
    queue = " → ".join(_node_title(graph, n) for n in trace.ready(position))
    waiting = [
        tr("{node} for 1 gradient", node=_node_title(graph, n))
        if count == 1
        else tr("{node} for {count} gradients", node=_node_title(graph, n), count=count)
        for n, count in trace.pending(position).items()
        if count > 0
    ]
    if not waiting:
        return tr("Ready queue (runs left to right): {queue}.", queue=queue)
    return tr(
        "Ready queue (runs left to right): {queue}. Still waiting: {waiting}.",
        queue=queue,
        waiting=tr(", ").join(waiting),
    )


def _node_title(graph: Graph | None, node) -> str:
    """``MulBackward0 (h)`` for the node that made a named tensor, ``AccumulateGrad (a)``
    for the node of a named leaf, else the node's label alone."""
    label = node_label(node)
    leaf = getattr(node, "variable", None)
    if leaf is not None:
        name = _box_title(graph, leaf, "")
    else:
        node_id = graph.id_of(node) if graph is not None else None
        made = [
            graph.node(e.src).name
            for e in (graph.edges if node_id is not None else ())
            if e.kind == GRAD_FN and e.dst == node_id
        ]
        name = next((n for n in made if n), "")
    return f"{label} ({name})" if name else label


def _label_seed(h, graph: Graph, root, first: Step) -> None:
    """Label the arrow from the output to its grad_fn with the seed gradient."""
    src, dst = graph.id_of(root), graph.id_of(first.node)
    for e in graph.edges:
        if e.kind == GRAD_FN and e.src == src and e.dst == dst:
            h.edge_labels[(e.src, e.dst, e.index)] = _edge_text(first.grad_outputs[e.index])


def _edge_text(g) -> str:
    return format_value(g, max_items=3, digits=3)


def _label_step(h, graph: Graph, outgoing: dict, step: Step, show_leaf_grads: bool) -> None:
    """Label the arrows a step sent gradients along; in the stepper, also its leaf's grad."""
    node_id = graph.id_of(step.node)
    if node_id is None:
        return  # summarised away in a big graph
    for index, g in enumerate(step.grad_inputs):
        e = outgoing.get((node_id, index))
        if e is not None and g is not None:
            h.edge_labels[(e.src, e.dst, e.index)] = _edge_text(g)
    leaf = getattr(step.node, "variable", None)
    leaf_id = graph.id_of(leaf) if leaf is not None else None
    if leaf_id is not None:
        h.edge_labels[(node_id, leaf_id, 0)] = _edge_text(step.grad_outputs[0])
        if not show_leaf_grads:
            return
        lines = graph.node(leaf_id).lines
        h.lines[leaf_id] = tuple(
            "grad: " + format_value(step.leaf_grad) if line.startswith("grad: ") else line
            for line in lines
        )


def _copy(g):
    if g is None:
        return None
    return np.array(g.detach().numpy() if hasattr(g, "detach") else g, copy=True)


class _EngineState(BackwardObserver):
    """The engine's ready queue and pending counts, as its observer events tell them."""

    def __init__(self):
        self.counts, self.queue = {}, ()

    def dependencies_counted(self, counts: dict) -> None:
        self.counts = dict(counts)  # its own copy: counted down as nodes run

    def node_running(self, node, queue: tuple) -> None:
        self.queue = (node, *queue)  # the node just left the queue: put back in front

    def node_ran(self, node, grad_inputs: tuple) -> None:
        for child, _ in node.next_functions:
            if child in self.counts:
                self.counts[child] -= 1


def _recorders(node, steps: list[Step], had_grad: dict, state: _EngineState | None):
    """The pre-hook and hook that write one node's step into ``steps``."""

    def before(grad_outputs):
        steps.append(Step(node, tuple(_copy(g) for g in grad_outputs)))
        if state is not None:
            steps[-1].ready, steps[-1].pending = state.queue, dict(state.counts)

    def after(grad_inputs, grad_outputs):
        step = steps[-1]
        assert step.node is node, "a node's hook ran out of order with its pre-hook"
        meta = getattr(node, "_input_meta", ())
        step.grad_inputs = tuple(
            None if g is None or child is None else _fit(_copy(g), meta, i)
            for i, ((child, _), g) in enumerate(zip(node.next_functions, grad_inputs, strict=True))
        )
        if hasattr(node, "variable"):
            step.leaf_grad = _copy(node.variable.grad)
            step.had_grad = had_grad[id(node.variable)]

    return before, after


def _fit(g: np.ndarray, meta, index: int) -> np.ndarray:
    """The gradient in its input's shape (the engine sums broadcast gradients the same way)."""
    shape = meta[index][0] if index < len(meta) and meta[index] is not None else g.shape
    return g if g.shape == tuple(shape) else unbroadcast(g, tuple(shape))


def trace_backward(
    root, gradient=None, *, restore_grads: bool = True, engine_state: bool = False
) -> Trace:
    """Run ``root.backward(gradient, retain_graph=True)`` and record every node it ran.

    Args:
        root: the output tensor (its graph must not be freed yet: trace before you call
            ``backward()`` yourself, or use ``retain_graph=True``).
        gradient: as for ``backward``; needed when ``root`` is not a scalar.
        restore_grads: put every leaf's ``.grad`` back as it was before (default), so that
            tracing changes nothing. ``False`` keeps the accumulated gradients, exactly as
            calling ``backward`` would. Either way, hooks you registered run (and print),
            and a non-leaf that called ``retain_grad()`` gets this gradient added too.
        engine_state: also copy, at each step, the engine's ready queue and the number of
            gradients each node still waits for (``Trace.ready``, ``Trace.pending``). Each
            copy costs time in the size of the graph: meant for graphs you step through.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(2., requires_grad=True); d = agk.tensor(4., requires_grad=True)
        >>> e = (a * 3) * d
        >>> t = trace_backward(e)
        >>> t.order()
        ['MulBackward0', 'AccumulateGrad', 'MulBackward0', 'AccumulateGrad']
        >>> t.steps[-1].leaf_grad, a.grad is None
        (array(12., dtype=float32), True)
        >>> y = a.exp(); z = y.sin() + y.cos()      # y is used twice: a fork
        >>> t = trace_backward(z, engine_state=True)
        >>> exp = y.grad_fn
        >>> t.pending(1)[exp], t.pending(2)[exp], t.ready(3)[0] is exp
        (2, 1, True)
    """
    nodes = walk(root.grad_fn) if root.grad_fn is not None else []
    leaves = [n.variable for n in nodes if hasattr(n, "variable")] or [root]
    before = [(leaf, leaf.grad, _copy(leaf.grad)) for leaf in leaves]
    had_grad = {id(leaf): grad is not None for leaf, grad, _ in before}
    trace, handles = Trace(root), []
    state = _EngineState() if engine_state else None
    try:
        for node in nodes:
            pre, post = _recorders(node, trace.steps, had_grad, state)
            handles += [node.register_prehook(pre), node.register_hook(post)]
        with observe(state) if state else nullcontext():
            root.backward(gradient, retain_graph=True)
    finally:
        for handle in handles:
            handle.remove()
        if restore_grads:
            _restore(before)
    return trace


def _restore(before) -> None:
    """Give each leaf back its ``.grad`` object, with the values it had (accumulation may
    have added into that very array)."""
    for leaf, grad, values in before:
        leaf.grad = grad
        if grad is not None:
            np.copyto(grad.detach().numpy(), values)
