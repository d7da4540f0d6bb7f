"""The backward graph as plain data: which boxes to draw and which arrows join them.

``build_graph(tensor)`` walks from ``tensor.grad_fn`` breadth-first (a loop, never recursion)
and returns a ``Graph`` of ``GraphNode`` boxes and ``GraphEdge`` arrows. Nothing here draws.
"""

from __future__ import annotations

import warnings
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

from .._i18n import here
from ..autograd import saved_fields
from ..tensor import Tensor

__all__ = [
    "TENSOR_KINDS",
    "NEXT",
    "VARIABLE",
    "GRAD_FN",
    "SAVED",
    "GraphNode",
    "GraphEdge",
    "Graph",
    "node_label",
    "format_value",
    "Highlight",
    "pick_tensors",
    "caller_names",
    "grad_of",
    "as_array",
    "tensor_kind",
    "tensor_lines",
    "saved_inputs",
    "saved_line",
    "breadth_first",
    "build_graph",
]

# Kinds of boxes: backward nodes, and tensors coloured by what autograd does with them.
FUNCTION, ACCUMULATE, SUMMARY = "function", "accumulate", "summary"
LEAF, NONLEAF, NOGRAD = "leaf", "nonleaf", "nograd"
TENSOR_KINDS = (LEAF, NONLEAF, NOGRAD)

# Kinds of arrows. All point the way the gradient flows: from the output towards the leaves.
NEXT = "next"  # node -> node in its next_functions
VARIABLE = "variable"  # AccumulateGrad -> the leaf whose .grad it writes
GRAD_FN = "grad_fn"  # tensor -> the node that made it (tensor.grad_fn)
SAVED = "saved"  # tensor that needs no grad -> a node that saved it for backward


@dataclass(eq=False)
class GraphNode:
    """One box. ``ref`` is the Node or Tensor it shows; ``owner`` is set for a named
    intermediate tensor, drawn beside the node that made it."""

    id: str
    kind: str
    lines: tuple[str, ...]
    ref: object = field(default=None, repr=False)
    owner: str | None = None
    name: str | None = None  # a tensor's name from ``names``, if it has one

    @property
    def label(self) -> str:
        return self.lines[0]


@dataclass(frozen=True)
class GraphEdge:
    """One arrow from ``src`` to ``dst``; ``index`` is the input slot of ``src`` it leaves."""

    src: str
    dst: str
    kind: str
    index: int = 0


@dataclass(eq=False)
class Graph:
    """Boxes in breadth-first order from the output, the arrows between them, and how many
    backward nodes were summarised into one box because the graph was too big to draw."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    hidden: int = 0
    _ids: dict = field(default_factory=dict, repr=False)
    _boxes: dict = field(default_factory=dict, repr=False)

    def id_of(self, obj) -> str | None:
        """The id of the box that shows this Node or Tensor, or None if it is not drawn."""
        return self._ids.get(id(obj))

    def node(self, node_id: str) -> GraphNode:
        """The box with this id."""
        if len(self._boxes) != len(self.nodes):
            self._boxes = {n.id: n for n in self.nodes}
        return self._boxes[node_id]

    def count(self) -> Counter:
        """How many boxes of each label: ``{'MulBackward0': 2, 'AccumulateGrad': 3, ...}``."""
        return Counter(n.label for n in self.nodes if n.kind in (FUNCTION, ACCUMULATE))


def node_label(node) -> str:
    """``MulBackward0``; ``AccumulateGrad`` without its C++-style namespace."""
    return node.name().rsplit("::", 1)[-1]


def format_value(value, max_items: int = 4, digits: int = 4) -> str:
    """A short text for a number or an array: at most ``max_items`` numbers of ``digits``
    significant digits, printed the way PyTorch prints numbers.

    Example:
        >>> format_value(np.float32(12.0)), format_value(np.array([0.16, 2.0]))
        ('12.', '[0.16, 2.]')
        >>> format_value(np.arange(10.0))
        '[0., 1., 2., …] (10,)'
    """
    if value is None:
        return "None"
    array = np.asarray(value)
    if array.ndim == 0:
        return _format_number(array.item(), digits)
    if array.size > max_items:
        head = ", ".join(_format_number(v, digits) for v in array.ravel()[: max_items - 1].tolist())
        return f"[{head}, …] {tuple(array.shape)}"
    text = np.array2string(
        array,
        separator=", ",
        formatter={"all": lambda v: _format_number(v, digits)},
        max_line_width=10_000,
    )
    return " ".join(text.split())


def _format_number(v, digits: int = 4) -> str:
    if isinstance(v, bool):
        return str(v)
    v = float(v)
    if v != 0 and not 1e-4 <= abs(v) < 1e5:
        return np.format_float_scientific(v, precision=digits - 1, trim="-")
    return np.format_float_positional(v, precision=digits, fractional=False, trim=".")


@dataclass
class Highlight:
    """What a step of the backprop stepper changes in a drawing.

    ``running``: the node running now; ``done``: nodes already run (drawn faded);
    ``edge_labels``: text per ``(src, dst, index)`` arrow, e.g. the gradient it carried;
    ``lines``: new text for some boxes (a leaf whose ``.grad`` was just written);
    ``ready``: nodes in the engine's ready queue (drawn with a green border);
    ``stepping``: a stepper's picture, whose legend lists every state at every step.
    """

    running: str | None = None
    done: frozenset = frozenset()
    ready: frozenset = frozenset()
    stepping: bool = False
    edge_labels: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)


def pick_tensors(names) -> dict[int, tuple[str, object]]:
    """``{id(tensor): (name, tensor)}`` from a dict such as ``locals()``.

    Names starting with ``_`` (IPython's ``_``, ``_1``, ...) are skipped; a tensor with
    two names keeps the first.
    """
    picked: dict[int, tuple[str, object]] = {}
    for name, value in (names or {}).items():
        if isinstance(value, Tensor) and not name.startswith("_"):
            picked.setdefault(id(value), (name, value))
    return picked


def caller_names(frame) -> dict:
    """The variables visible in ``frame`` (globals, then locals over them): what
    ``draw_graph(e)`` uses to name tensors when it is not given ``names``."""
    try:
        return {**frame.f_globals, **frame.f_locals}
    finally:
        del frame  # a frame kept alive would keep every tensor in it alive


def grad_of(tensor):
    """``tensor.grad`` without the non-leaf warning (a drawing only looks)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor.grad


def as_array(value):
    """A Tensor's NumPy array (detached); arrays and None pass through."""
    if value is None or isinstance(value, np.ndarray):
        return value
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return np.asarray(value)


def tensor_kind(tensor) -> str:
    if not tensor.requires_grad:
        return NOGRAD
    return LEAF if tensor.is_leaf else NONLEAF


def tensor_lines(tensor, name, show_data=True, show_grad=True, grad=...) -> tuple[str, ...]:
    """The text of a tensor's box: name and shape, then data and grad if asked for."""
    shape = tuple(tensor.shape)
    title = name or "tensor"
    if shape:
        title += f" {shape}"
    lines = [title]
    if show_data:
        lines.append("data: " + format_value(tensor.detach().numpy()))
    if show_grad:
        g = grad_of(tensor) if grad is ... else grad
        lines.append("grad: " + format_value(as_array(g)))
    return tuple(lines)


def saved_inputs(node) -> list:
    """The input tensors a node saved for backward (how ``MulBackward0`` knows ``b``)."""
    return saved_fields.saved_inputs(node)


def saved_line(node, names: dict) -> str | None:
    """``saved: a, 3.``: what a node keeps for its backward (names where we know them), in
    the notebook's language."""
    described = saved_fields.describe(node)
    tr = here()
    if described is None:
        return tr("saved: (freed by backward)")
    if not described:
        return None
    parts = []
    for value, tensor, is_output in described:
        if tensor is not None and id(tensor) in names:
            parts.append(names[id(tensor)][0])
        elif is_output:
            parts.append(tr("result"))
        else:
            parts.append(format_value(getattr(value, "_data", value), max_items=2))
    return tr("saved: {values}", values=", ".join(parts))


def breadth_first(root, max_nodes: int | None = None, max_depth: int | None = None):
    """Backward nodes breadth-first from ``root``: ``(kept, number not kept)``.

    A node is kept while fewer than ``max_nodes`` are, and if it is at most ``max_depth``
    arrows from ``root`` (``None``: no limit). Every node is counted, none twice.
    """
    kept, hidden = [], 0
    seen, queue = {id(root)}, deque([(root, 0)])
    while queue:
        node, depth = queue.popleft()
        fits = (max_nodes is None or len(kept) < max_nodes) and (
            max_depth is None or depth <= max_depth
        )
        if fits:
            kept.append(node)
        else:
            hidden += 1
        for child, _ in node.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                queue.append((child, depth + 1))
    return kept, hidden


class _Builder:
    """Collects boxes and arrows with ids in a fixed order, so one graph gives one picture."""

    def __init__(self, names: dict, show_data: bool, show_grad: bool, show_saved: bool):
        self.names, self.show_data, self.show_grad = names, show_data, show_grad
        self.show_saved = show_saved
        self.nodes: list[GraphNode] = []
        self.edges: list[GraphEdge] = []
        self.ids: dict[int, str] = {}

    def add(self, kind: str, lines, ref, owner=None, name=None) -> str:
        node_id = f"{'t' if kind in TENSOR_KINDS else 'n'}{len(self.nodes)}"
        self.nodes.append(GraphNode(node_id, kind, tuple(lines), ref, owner, name))
        if ref is not None:
            self.ids[id(ref)] = node_id
        return node_id

    def add_tensor(self, tensor, owner=None) -> str:
        if id(tensor) in self.ids:
            return self.ids[id(tensor)]
        name = self.names.get(id(tensor), (None,))[0]
        lines = tensor_lines(tensor, name, self.show_data, self.show_grad)
        return self.add(tensor_kind(tensor), lines, tensor, owner, name)

    def add_backward_node(self, node) -> str:
        if hasattr(node, "variable"):
            return self.add(ACCUMULATE, [node_label(node)], node)
        lines = [node_label(node)]
        kept = saved_line(node, self.names) if self.show_saved else None
        return self.add(FUNCTION, lines + ([kept] if kept else []), node)

    def edge(self, src: str, dst: str, kind: str, index: int = 0) -> None:
        self.edges.append(GraphEdge(src, dst, kind, index))


def build_graph(
    tensor,
    names=None,
    *,
    show_data: bool = True,
    show_grad: bool = True,
    show_saved: bool = False,
    max_nodes: int | None = 400,
    max_depth: int | None = 60,
) -> Graph:
    """The backward graph of ``tensor`` as boxes and arrows, the way the articles draw it.

    Args:
        tensor: the output, usually a loss.
        names: ``{"a": a, ...}`` or ``locals()``: tensors to label. Named intermediate
            tensors appear beside their ``grad_fn``; named tensors that need no grad appear
            when a node saved them (that is how ``MulBackward0`` knows ``b``).
        show_data, show_grad, show_saved: what the boxes say.
        max_nodes, max_depth: keep at most this many backward nodes, at most this many
            arrows away from the output (nearest first); the rest become one summary box
            ("… 99,940 more nodes"). ``None``: no limit.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(2., requires_grad=True); b = agk.tensor(3., requires_grad=True)
        >>> d = agk.tensor(4., requires_grad=True)
        >>> c = a + b; e = c * d
        >>> g = build_graph(e, names=locals())
        >>> sorted(g.count().items())
        [('AccumulateGrad', 3), ('AddBackward0', 1), ('MulBackward0', 1)]
        >>> [n.label for n in g.nodes if n.kind != "function" and n.kind != "accumulate"]
        ['e', 'd', 'a', 'b', 'c']
    """
    b = _Builder(pick_tensors(names), show_data, show_grad, show_saved)
    root_id = b.add_tensor(tensor)
    fn = tensor.grad_fn
    if fn is None:
        return Graph(b.nodes, b.edges, 0, b.ids)
    kept, hidden = breadth_first(fn, max_nodes, max_depth)
    for node in kept:
        b.add_backward_node(node)
    b.edge(root_id, b.ids[id(fn)], GRAD_FN, tensor.output_nr)
    tr = here()
    more = [tr("… {hidden:,} more nodes", hidden=hidden)]
    summary = b.add(SUMMARY, more, None) if hidden else None
    for node in kept:
        _link_node(b, node, summary)
    _add_named(b, tensor)
    return Graph(b.nodes, b.edges, hidden, b.ids)


def _link_node(b: _Builder, node, summary: str | None) -> None:
    """Arrows from one backward node to its next functions (and to its leaf, if any)."""
    src = b.ids[id(node)]
    for index, (child, _) in enumerate(node.next_functions):
        if child is None:
            continue
        dst = b.ids.get(id(child), summary)
        b.edge(src, dst, NEXT, index)
    if hasattr(node, "variable"):
        b.edge(src, b.add_tensor(node.variable), VARIABLE)


def _add_named(b: _Builder, root) -> None:
    """Named intermediate tensors beside their node; named no-grad tensors a node saved."""
    for _, t in b.names.values():
        fn = t.grad_fn
        if t is root or id(t) in b.ids or fn is None or id(fn) not in b.ids:
            continue
        owner = b.ids[id(fn)]
        b.edge(b.add_tensor(t, owner=owner), owner, GRAD_FN, t.output_nr)
    for node in [n.ref for n in b.nodes if n.kind == FUNCTION]:
        for t in saved_inputs(node):
            if id(t) in b.names and not t.requires_grad:
                b.edge(b.add_tensor(t), b.ids[id(node)], SAVED)
