"""Where each box of a ``Graph`` goes: a layered drawing, computed with loops only.

1. Layers: the output at the bottom (layer 0), each box one layer above the furthest box
   that points to it, so every arrow goes up.  2. An arrow that skips layers gets a bend
   point in each layer it crosses, so it can pass between boxes.  3. Boxes in a layer are
   ordered by the mean position of their neighbours (a few sweeps up and down), then placed
   left to right without overlap, as near those neighbours as they fit.
Both the SVG and the matplotlib figure draw from the same ``Layout`` (pixels, y down).
"""

from __future__ import annotations

import unicodedata
from collections import deque
from dataclasses import dataclass, field

from .graph import GRAD_FN, SAVED, Graph, GraphEdge

__all__ = [
    "CHAR_W",
    "LINE_H",
    "BEND_W",
    "MARGIN",
    "MAX_BENDS",
    "SWEEPS",
    "BIG",
    "Box",
    "Layout",
    "box_size",
    "layout_graph",
    "assign_layers",
    "isotonic",
]

CHAR_W = 7.3  # pixels per character of 12 px DejaVu Sans Mono (0.6 em, rounded up)
LINE_H = 16
PAD_X, PAD_Y = 9, 6
GAP_X, GAP_Y = 22, 50
BEND_W = 8  # room a bend point takes in its layer
MARGIN = 16
MAX_BENDS = 20_000  # beyond this, long arrows are drawn straight (huge, tangled graphs)
SWEEPS = 8  # ordering sweeps, and placement passes - 1
BIG = 10_000  # ids (boxes + bend points) beyond which one sweep and one pass must do


@dataclass(frozen=True)
class Box:
    """A box by its centre and size, in pixels."""

    x: float
    y: float
    w: float
    h: float

    @property
    def top(self) -> float:
        return self.y - self.h / 2

    @property
    def bottom(self) -> float:
        return self.y + self.h / 2


@dataclass
class Layout:
    """Boxes by node id, each node's layer (0 = the output), bend points of long arrows
    keyed by ``(upper id, lower id)`` in layer order, and the total size."""

    boxes: dict[str, Box]
    layers: dict[str, int]
    width: float
    height: float
    bends: dict[tuple[str, str], list[tuple[float, float]]] = field(default_factory=dict)

    def edge_bends(self, e: GraphEdge) -> list[tuple[float, float]]:
        """The bend points of an arrow, in order from its start to its end."""
        if (e.src, e.dst) in self.bends:
            return self.bends[(e.src, e.dst)]
        return self.bends.get((e.dst, e.src), [])[::-1]


def columns(text: str) -> int:
    """How many monospace columns ``text`` takes: a wide character (Chinese) takes two.

    Example:
        >>> columns("grad: 6."), columns("梯度 6.")
        (8, 7)
    """
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def box_size(lines) -> tuple[float, float]:
    """Width and height of a box that fits these lines of text."""
    width = max(columns(line) for line in lines) * CHAR_W
    return width + 2 * PAD_X, len(lines) * LINE_H + 2 * PAD_Y


def layout_graph(graph: Graph, alt_lines: dict | None = None) -> Layout:
    """Lay out ``graph``; ``alt_lines`` (id -> lines) makes boxes wide enough for other text
    too, as the stepper needs when a leaf's ``.grad`` line changes.

    Example:
        >>> import autogradkit as agk
        >>> from autogradkit.viz.graph import build_graph
        >>> x = agk.tensor(1., requires_grad=True)
        >>> lay = layout_graph(build_graph(x.exp().sin()))
        >>> sorted(lay.layers.values())
        [0, 1, 2, 3, 4]
    """
    sizes = {n.id: box_size(n.lines) for n in graph.nodes}
    for i, lines in (alt_lines or {}).items():
        w, h = box_size(lines)
        sizes[i] = (max(w, sizes[i][0]), max(h, sizes[i][1]))
    parents = _layer_parents(graph)
    layers = assign_layers(graph, parents)
    grid = _Grid(graph, parents, layers, sizes)
    grid.order()
    xs = grid.place()
    ys, height = _place_y(grid.level, sizes)
    left = min((xs[i] - grid.extent[i][0] for i in xs), default=0.0)
    shift = MARGIN - left
    boxes = {n.id: Box(xs[n.id] + shift, ys[n.id], *sizes[n.id]) for n in graph.nodes}
    width = max((b.x + b.w / 2 for b in boxes.values()), default=0.0) + MARGIN
    bends = {pair: [(xs[d] + shift, ys[d]) for d in route] for pair, route in grid.routes.items()}
    return Layout(boxes, layers, width, height, bends)


def _layer_parents(graph: Graph) -> dict[str, list[str]]:
    """For each box, the boxes one arrow nearer the output (a named intermediate tensor,
    drawn beside its node, has none: it takes its owner's layer)."""
    owned = {n.id for n in graph.nodes if n.owner is not None}
    parents: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    for e in graph.edges:
        if e.kind == GRAD_FN and e.src in owned:
            continue
        if e.kind == SAVED:  # the saved tensor sits above the node that saved it
            parents[e.src].append(e.dst)
        else:
            parents[e.dst].append(e.src)
    return parents


def assign_layers(graph: Graph, parents: dict[str, list[str]]) -> dict[str, int]:
    """Longest path from the output (Kahn's order), so every arrow points upwards."""
    children: dict[str, list[str]] = {i: [] for i in parents}
    waiting = {i: len(p) for i, p in parents.items()}
    for child, ps in parents.items():
        for p in ps:
            children[p].append(child)
    owners = {n.id: n.owner for n in graph.nodes if n.owner is not None}
    layer = {i: 0 for i in parents}
    ready = deque(i for i in parents if waiting[i] == 0 and i not in owners)
    while ready:
        i = ready.popleft()
        for c in children[i]:
            layer[c] = max(layer[c], layer[i] + 1)
            waiting[c] -= 1
            if waiting[c] == 0:
                ready.append(c)
    for i, owner in owners.items():
        layer[i] = layer[owner]
    return layer


class _Grid:
    """Rows of ids per layer, with bend points for long arrows and the satellites (named
    intermediate tensors) packed to the right of their owner."""

    def __init__(self, graph: Graph, parents, layers, sizes):
        self.level = dict(layers)
        self.up: dict[str, list[str]] = {i: [] for i in layers}
        self.down: dict[str, list[str]] = {i: [] for i in layers}
        self.routes: dict[tuple[str, str], list[str]] = {}
        self.satellites: dict[str, list[str]] = {}
        for n in graph.nodes:
            if n.owner is not None:
                self.satellites.setdefault(n.owner, []).append(n.id)
        self.extent = {i: (w / 2, w / 2) for i, (w, _) in sizes.items()}
        for owner, sats in self.satellites.items():
            right = sizes[owner][0] / 2 + sum(GAP_X + sizes[s][0] for s in sats)
            self.extent[owner] = (sizes[owner][0] / 2, right)
        self._sizes = sizes
        self._connect(graph, parents)
        self.rows: dict[int, list[str]] = {}
        for i in [n.id for n in graph.nodes if n.owner is None] + self._bend_ids:
            self.rows.setdefault(self.level[i], []).append(i)

    def _connect(self, graph: Graph, parents) -> None:
        """Neighbours one layer apart; an arrow that skips layers gets bend points."""
        self._bend_ids: list[str] = []
        budget = MAX_BENDS
        for child in [n.id for n in graph.nodes]:
            for p in dict.fromkeys(parents[child]):
                span = self.level[child] - self.level[p]
                route = []
                if 1 < span <= budget:
                    budget -= span - 1
                    route = [self._bend(self.level[p] + k) for k in range(1, span)]
                    self.routes[(p, child)] = route
                chain = [p, *route, child]
                for upper, lower in zip(chain, chain[1:], strict=False):
                    self.up[lower].append(upper)
                    self.down[upper].append(lower)

    def _bend(self, level: int) -> str:
        i = f"~{len(self._bend_ids)}"
        self._bend_ids.append(i)
        self.level[i] = level
        self.up[i], self.down[i] = [], []
        self.extent[i] = (BEND_W / 2, BEND_W / 2)
        return i

    def order(self) -> None:
        """Barycentre sweeps: sort each row by the mean rank of its neighbours in the row
        before it, alternately from the output up and from the leaves down."""
        levels = sorted(self.rows)
        rank = {i: k for row in self.rows.values() for k, i in enumerate(row)}
        for sweep in range(SWEEPS if len(self.level) <= BIG else 1):
            upward = sweep % 2 == 0
            near = self.up if upward else self.down
            for level in levels[1:] if upward else levels[-2::-1]:
                row = self.rows[level]
                if len(row) < 2:
                    continue
                key = {i: (_mean([rank[n] for n in near[i]], rank[i]), rank[i]) for i in row}
                row.sort(key=key.__getitem__)
                rank.update((i, k) for k, i in enumerate(row))

    def place(self) -> dict[str, float]:
        """x of every id: passes alternately from the output up and from the leaves down,
        each pulling a row towards its neighbours; then the satellites beside their owners."""
        xs: dict[str, float] = {}
        levels = sorted(self.rows)
        passes = [(self.up, levels), (self.down, levels[::-1])] * (SWEEPS // 2 - 1)
        passes = [*passes, (self.up, levels)] if len(self.level) <= BIG else [(self.up, levels)]
        for near, sweep in passes:
            for level in sweep:
                row = self.rows[level]
                wish = {i: _mean([xs[n] for n in near[i] if n in xs], xs.get(i, 0.0)) for i in row}
                xs.update(_pack(row, wish, self.extent) if len(row) > 1 else wish)
        for owner, sats in self.satellites.items():
            x = xs[owner] + self._sizes[owner][0] / 2
            for s in sats:
                xs[s] = x + GAP_X + self._sizes[s][0] / 2
                x += GAP_X + self._sizes[s][0]
        return xs


def _mean(values: list[float], default: float) -> float:
    return sum(values) / len(values) if values else default


def _pack(row: list[str], wish: dict, extent: dict) -> dict[str, float]:
    """x for each id of ``row``, in that order and without overlap, as near its wish as
    possible (least squares): shift each id left by the room the ids before it need, then
    the best non-decreasing fit is an isotonic regression."""
    offsets, room = [], 0.0
    for k, i in enumerate(row):
        if k:
            gap = BEND_W / 2 if i.startswith("~") or row[k - 1].startswith("~") else GAP_X
            room += extent[row[k - 1]][1] + gap + extent[i][0]
        offsets.append(room)
    fitted = isotonic([wish[i] - o for i, o in zip(row, offsets, strict=True)])
    return {i: y + o for i, y, o in zip(row, fitted, offsets, strict=True)}


def isotonic(values: list[float]) -> list[float]:
    """The non-decreasing sequence nearest to ``values`` in least squares (pool adjacent
    violators: merge neighbouring blocks while they are out of order).

    Example:
        >>> isotonic([1.0, 3.0, 2.0, 4.0])
        [1.0, 2.5, 2.5, 4.0]
    """
    blocks: list[list[float]] = []  # [sum, count] of each block
    for v in values:
        blocks.append([v, 1])
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    out: list[float] = []
    for total, count in blocks:
        out += [total / count] * int(count)
    return out


def _place_y(level: dict[str, int], sizes) -> tuple[dict[str, float], float]:
    """The output's layer at the bottom, the leaves at the top; each layer as tall as its
    tallest box (bend points take no height)."""
    tallest: dict[int, float] = {}
    for i, lv in level.items():
        tallest[lv] = max(tallest.get(lv, 0.0), sizes[i][1] if i in sizes else 0.0)
    top, centre = MARGIN, {}
    for lv in sorted(tallest, reverse=True):
        centre[lv] = top + tallest[lv] / 2
        top += tallest[lv] + GAP_Y
    return {i: centre[lv] for i, lv in level.items()}, top - GAP_Y + MARGIN
