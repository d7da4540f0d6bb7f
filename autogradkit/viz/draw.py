"""Pictures of the backward graph: SVG text written here (deterministic) and matplotlib figures.

Both draw one ``Layout`` of one ``Graph``; ``draw_graph(tensor)`` returns a ``GraphDrawing``
that JupyterLab shows inline through ``_repr_svg_``. No Graphviz, no system binary.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
from xml.sax.saxutils import escape, quoteattr

from .._i18n import N_, here
from .extras import lab_import
from .graph import (
    ACCUMULATE,
    FUNCTION,
    GRAD_FN,
    LEAF,
    NEXT,
    NOGRAD,
    NONLEAF,
    SAVED,
    SUMMARY,
    VARIABLE,
    Graph,
    GraphEdge,
    Highlight,
    build_graph,
    caller_names,
)
from .layout import LINE_H, Box, Layout, columns, layout_graph
from .trace import trace_backward

__all__ = [
    "FONT",
    "LEGEND_ROW",
    "RUNNING",
    "COLORS",
    "LEGEND",
    "DASHES",
    "MPL_STYLES",
    "ARROWS",
    "HOT_TEXT",
    "STATES",
    "GraphDrawing",
    "draw_graph",
    "edge_path",
    "point_along",
    "label_width",
    "LABEL_SPOTS",
    "place_labels",
    "box_style",
    "SWATCH_W",
    "legend_entries",
    "legend_items",
    "legend_height",
    "canvas_size",
    "line_style",
    "state_style",
    "render_svg",
    "DPI",
    "PT_PER_PX",
    "render_figure",
    "new_figure",
    "figure_png",
]

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
FONT_PX, LABEL_PX = 12, 11
LEGEND_ROW = 22
EDGE_COLOR, HOT, READY = "#5f6368", "#e65100", "#2e7d32"
RUNNING = ("#ffd59a", HOT)
COLORS = {  # (fill, stroke) per kind of box
    LEAF: ("#fdebb3", "#b8860b"),
    NONLEAF: ("#d4edd2", "#4e8a4a"),
    NOGRAD: ("#ececec", "#8a8a8a"),
    FUNCTION: ("#d7e5f7", "#3e6db3"),
    ACCUMULATE: ("#eadff5", "#7a52a8"),
    SUMMARY: ("#ffffff", "#8a8a8a"),
}
LEGEND = {  # translated where drawn (tr), in the notebook's language
    LEAF: N_("leaf, requires_grad"),
    NONLEAF: N_("non-leaf (has grad_fn)"),
    NOGRAD: N_("requires_grad=False"),
    FUNCTION: N_("backward node"),
    ACCUMULATE: N_("AccumulateGrad"),
}
DASHES = {SAVED: "2,3", GRAD_FN: "5,3"}
MPL_STYLES = {SAVED: ":", GRAD_FN: "--"}  # the same dashes, as matplotlib names them
# What each style of arrow means, for the legend. Solid arrows (next_functions, and
# AccumulateGrad to its leaf) are the path the gradient takes.
ARROWS = {
    NEXT: N_("where the gradient goes next"),
    GRAD_FN: N_("a tensor and its grad_fn"),
    SAVED: N_("kept by the node for backward"),
}
HOT_TEXT = N_("carried this gradient")
STATES = {"running": N_("ran just now"), "ready": N_("ready (in the queue)")}


class GraphDrawing:
    """A drawn graph: shows itself inline in JupyterLab as SVG; ``.figure()`` for matplotlib.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(2., requires_grad=True)
        >>> drawing = draw_graph(a * 3, names=locals())
        >>> drawing.svg().startswith("<svg")
        True
    """

    def __init__(self, graph: Graph, layout: Layout | None = None, highlight=None):
        self.graph = graph
        self.layout = layout or layout_graph(graph)
        self.highlight = highlight or Highlight()
        self._svg: str | None = None

    def svg(self, style: str = "") -> str:
        """The drawing as standalone SVG text (the same graph always gives the same text);
        ``style`` is optional CSS for the ``<svg>`` element."""
        if style:
            return render_svg(self.graph, self.layout, self.highlight, style)
        if self._svg is None:
            self._svg = render_svg(self.graph, self.layout, self.highlight)
        return self._svg

    def _repr_svg_(self) -> str:
        return self.svg()

    def figure(self):
        """The drawing as a matplotlib ``Figure``; as a cell's result it shows as a PNG."""
        return render_figure(self.graph, self.layout, self.highlight)

    def png(self) -> bytes:
        """PNG bytes of ``figure()``."""
        return figure_png(self.figure())

    def save(self, path: str) -> None:
        """Write ``.svg`` text or, for any other suffix, a PNG."""
        if str(path).endswith(".svg"):
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.svg())
        else:
            with open(path, "wb") as f:
                f.write(self.png())

    def __repr__(self) -> str:
        kinds = [n.kind for n in self.graph.nodes]
        nodes = sum(k in (FUNCTION, ACCUMULATE) for k in kinds)
        return f"<GraphDrawing: {nodes} backward nodes, {len(kinds) - nodes} other boxes>"


def draw_graph(
    tensor,
    names=None,
    show_data: bool = True,
    show_grad: bool = True,
    show_saved: bool = False,
    trace=None,
    max_nodes: int | None = 400,
    max_depth: int | None = 60,
) -> GraphDrawing:
    """Draw the backward graph of ``tensor`` the way the articles do.

    Tensors show name, shape, data and grad; ``XBackward0`` nodes lead to the leaves through
    ``AccumulateGrad`` boxes; a legend explains the colours.

    Args:
        tensor: the output to start from (usually the loss).
        names: ``{"a": a, ...}`` or ``locals()``; tensors found in it get their names.
            By default, the variables where ``draw_graph`` is called (in a notebook: your
            variables); ``{}`` draws without names.
        show_data, show_grad, show_saved: what the boxes say (``saved:`` lists what each
            node kept for backward).
        trace: a ``trace_backward(tensor)`` result, or ``True`` to record one now, to write
            on each arrow the gradient it carried. Recording runs ``backward`` once more
            (``retain_graph=True``) and then puts every leaf's ``.grad`` back as it was.
        max_nodes, max_depth: at most this many backward nodes are drawn, at most this many
            arrows from the output (nearest first); the rest become one "… more nodes" box
            (``None``: no limit). Big graphs stay quick and readable this way.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(2., requires_grad=True); b = agk.tensor(3.)
        >>> d = agk.tensor(4., requires_grad=True); c = a * b; e = c * d
        >>> drawing = draw_graph(e, trace=True)   # names: the caller's variables
        >>> sorted(drawing.graph.count().items())
        [('AccumulateGrad', 2), ('MulBackward0', 2)]
        >>> "12." in drawing.svg()   # the gradient MulBackward0 sent to a's AccumulateGrad
        True
    """
    if names is None:
        names = caller_names(inspect.currentframe().f_back)
    graph = build_graph(
        tensor,
        names,
        show_data=show_data,
        show_grad=show_grad,
        show_saved=show_saved,
        max_nodes=max_nodes,
        max_depth=max_depth,
    )
    return GraphDrawing(graph, highlight=_final_gradients(tensor, graph, trace))


def _final_gradients(tensor, graph: Graph, trace) -> Highlight | None:
    """Every arrow labelled with the gradient it carried (``trace=True``: record it now)."""
    if trace is None or trace is False:
        return None
    recorded = trace_backward(tensor) if trace is True else trace
    return recorded.highlight(graph, len(recorded.steps), fade=False)


# ----- geometry shared by both renderers -----------------------------------------------------
def edge_path(e: GraphEdge, graph: Graph, layout: Layout) -> list[tuple[float, float]]:
    """The points of an arrow: from the top of one box (or its side, for a box in the same
    layer) through any bend points to the bottom of the next."""
    s, d = layout.boxes[e.src], layout.boxes[e.dst]
    bends = layout.edge_bends(e)
    sx = s.x
    if e.kind == NEXT:  # spread a node's inputs along its top edge, in input order
        slots = len(getattr(graph.node(e.src).ref, "next_functions", ())) or 1
        step = min(s.w / (slots + 1), 28.0)
        sx = s.x + (e.index - (slots - 1) / 2) * step
    if abs(d.y - s.y) < 1e-6:
        sign = 1 if d.x >= s.x else -1
        return [(s.x + sign * s.w / 2, s.y), (d.x - sign * d.w / 2, d.y)]
    if d.y < s.y:
        return [(sx, s.top), *bends, (d.x, d.bottom)]
    return [(sx, s.bottom), *bends, (d.x, d.top)]


def point_along(points: list[tuple[float, float]], t: float) -> tuple[float, float]:
    """The point a fraction ``t`` of the way along a polyline."""
    lengths = [
        ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
        for (x1, y1), (x2, y2) in zip(points, points[1:], strict=False)
    ]
    left = t * sum(lengths)
    for ((x1, y1), (x2, y2)), length in zip(
        zip(points, points[1:], strict=False), lengths, strict=True
    ):
        if left <= length and length > 0:
            f = left / length
            return x1 + f * (x2 - x1), y1 + f * (y2 - y1)
        left -= length
    return points[-1]


def label_width(text: str) -> float:
    return len(text) * LABEL_PX * 0.61 + 6


class _Rects:
    """Rectangles in a coarse grid, to ask quickly whether a new one would overlap any."""

    CELL = 64.0

    def __init__(self):
        self.cells: dict[tuple[int, int], list] = {}

    def _keys(self, r):
        x0, y0, x1, y1 = (int(v // self.CELL) for v in r)
        return [(cx, cy) for cx in range(x0, x1 + 1) for cy in range(y0, y1 + 1)]

    def add(self, r) -> None:
        for key in self._keys(r):
            self.cells.setdefault(key, []).append(r)

    def hits(self, r) -> bool:
        return any(
            r[0] < q[2] and q[0] < r[2] and r[1] < q[3] and q[1] < r[3]
            for key in self._keys(r)
            for q in self.cells.get(key, ())
        )


LABEL_SPOTS = (0.5, 0.35, 0.65, 0.22, 0.78, 0.12, 0.88)


def place_labels(graph: Graph, layout: Layout, h: Highlight) -> dict:
    """Centre of each arrow label: the first spot along its arrow (middle first) where it
    covers no box and no earlier label."""
    taken = _Rects()
    for b in layout.boxes.values():
        taken.add((b.x - b.w / 2, b.top, b.x + b.w / 2, b.bottom))
    spots = {}
    for e in graph.edges:
        key = (e.src, e.dst, e.index)
        text = h.edge_labels.get(key)
        if not text:
            continue
        points, half = edge_path(e, graph, layout), label_width(text) / 2
        rects = [
            (x - half, y - 9, x + half, y + 9)
            for x, y in (point_along(points, t) for t in LABEL_SPOTS)
        ]
        rect = next((r for r in rects if not taken.hits(r)), rects[0])
        taken.add(rect)
        spots[key] = ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
    return spots


def box_style(kind: str, node_id: str, h: Highlight) -> tuple[str, str, float, float]:
    """Fill, stroke, stroke width and opacity of a box in the current highlight."""
    fill, stroke = COLORS[kind]
    if node_id == h.running:
        return RUNNING[0], RUNNING[1], 3.0, 1.0
    if node_id in h.ready:
        return fill, READY, 3.0, 1.0
    return fill, stroke, 1.2, 0.55 if node_id in h.done else 1.0


SWATCH_W = 26  # a legend's sample box or line, then its text


def legend_entries(graph: Graph, h: Highlight) -> list[tuple[str, str, str]]:
    """``(swatch, key, text)`` for what this drawing shows: each kind of box (swatch
    ``box``), each kind of arrow (``line``), and the stepper's states (``state``), in the
    notebook's language."""
    tr = here()
    entries = [("box", kind, tr(text)) for kind, text in LEGEND.items() if _has_box(graph, kind)]
    kinds = {NEXT if e.kind == VARIABLE else e.kind for e in graph.edges}
    entries += [("line", kind, tr(text)) for kind, text in ARROWS.items() if kind in kinds]
    if h.edge_labels or h.stepping:
        entries.append(("line", "hot", tr(HOT_TEXT)))
    states = {key: tr(text) for key, text in STATES.items()}
    if h.running is not None or h.stepping:
        entries.append(("state", "running", states["running"]))
    if h.ready or h.stepping:
        entries.append(("state", "ready", states["ready"]))
    return entries


def _has_box(graph: Graph, kind: str) -> bool:
    return any(n.kind == kind for n in graph.nodes)


def legend_items(graph: Graph, width: float, h: Highlight | None = None) -> list[tuple]:
    """``(swatch, key, text, x, y)`` for each legend entry, wrapped into rows that fit."""
    x, y, items = 16.0, 8.0, []
    for swatch, key, text in legend_entries(graph, h or Highlight()):
        item_w = SWATCH_W + 5 + columns(text) * LABEL_PX * 0.61
        if x > 16.0 and x + item_w > width - 8:
            x, y = 16.0, y + LEGEND_ROW
        items.append((swatch, key, text, x, y))
        x += item_w + 18
    return items


def legend_height(graph: Graph, width: float, h: Highlight | None = None) -> float:
    items = legend_items(graph, width, h)
    return (items[-1][4] + LEGEND_ROW) if items else 0.0


def canvas_size(graph: Graph, layout: Layout, h: Highlight) -> tuple[float, float]:
    """Width and height of the picture: the layout, widened so that every legend entry fits
    on a line of its own, and the legend below it."""
    widest = max(
        (SWATCH_W + 5 + columns(text) * LABEL_PX * 0.61 for *_, text in legend_entries(graph, h)),
        default=0.0,
    )
    width = max(layout.width, widest + 32)
    return width, layout.height + legend_height(graph, width, h)


def line_style(key: str) -> tuple[str, float]:
    """Colour and width of the legend's sample arrow for an arrow kind (or ``hot``)."""
    return (HOT, 2.2) if key == "hot" else (EDGE_COLOR, 1.3)


def state_style(key: str) -> tuple[str, str]:
    """Fill and border of the legend's sample box for a stepper state."""
    return (RUNNING[0], RUNNING[1]) if key == "running" else (COLORS[FUNCTION][0], READY)


# ----- SVG ---------------------------------------------------------------------------------
def _f(v: float) -> str:
    return f"{v:.1f}"


_MARKER = "agk-arrow-of-this-drawing"  # replaced by the drawing's own id (own_marker_ids)
_HOT_MARKER = _MARKER + "-hot"


def render_svg(
    graph: Graph, layout: Layout, highlight: Highlight | None = None, style: str = ""
) -> str:
    """Standalone SVG text: arrows first, then boxes, then the legend. ``style`` is CSS for
    the ``<svg>`` element (the stepper scales its drawing to the page's width)."""
    h = highlight or Highlight()
    width, height = canvas_size(graph, layout, h)
    css = f" style={quoteattr(style)}" if style else ""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="agk-graph" width="{_f(width)}" '
        f'height="{_f(height)}" viewBox="0 0 {_f(width)} {_f(height)}"{css} '
        f'font-family={quoteattr(FONT)} font-size="{FONT_PX}">',
        _svg_defs(),
        f'<rect width="{_f(width)}" height="{_f(height)}" fill="#ffffff"/>',
    ]
    spots = place_labels(graph, layout, h)
    parts += [_svg_edge(e, graph, layout, h, spots) for e in graph.edges]
    parts += [_svg_node(n, layout.boxes[n.id], h) for n in graph.nodes]
    parts.append(_svg_legend(graph, layout.height, width, h))
    parts.append("</svg>")
    return own_marker_ids("\n".join(parts) + "\n")


def own_marker_ids(svg: str) -> str:
    """Give the drawing's arrowhead markers ids of its own, made from its text.

    A page holds many drawings, and a browser takes the first definition of an id on the
    page, even one inside a cell scrolled out of view (then no arrowhead shows). The ids are
    a digest of the drawing, so the same drawing gets the same ids on every run (stored
    notebook outputs stay as they are), and two drawings share ids only when they are equal.
    """
    digest = hashlib.sha1(svg.encode()).hexdigest()[:12]
    return svg.replace(_MARKER, f"agk-arrow-{digest}")


def _svg_defs() -> str:
    def marker(name: str, color: str) -> str:
        return (
            f'<marker id="{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{color}"/></marker>'
        )

    return f"<defs>{marker(_MARKER, EDGE_COLOR)}{marker(_HOT_MARKER, HOT)}</defs>"


def _svg_edge(e: GraphEdge, graph: Graph, layout: Layout, h: Highlight, spots: dict) -> str:
    points = edge_path(e, graph, layout)
    label = h.edge_labels.get((e.src, e.dst, e.index))
    hot = label is not None
    color, marker = (HOT, _HOT_MARKER) if hot else (EDGE_COLOR, _MARKER)
    dash = f' stroke-dasharray="{DASHES[e.kind]}"' if e.kind in DASHES else ""
    coords = " ".join(f"{_f(x)},{_f(y)}" for x, y in points)
    out = (
        f'<g class="edge {e.kind}"><polyline points="{coords}" fill="none" stroke="{color}" '
        f'stroke-width="{2.2 if hot else 1.3}"{dash} marker-end="url(#{marker})"/>'
    )
    if label:
        mx, my = spots[(e.src, e.dst, e.index)]
        w = label_width(label)
        out += (
            f'<rect x="{_f(mx - w / 2)}" y="{_f(my - 8)}" width="{_f(w)}" height="16" rx="3" '
            f'fill="#ffffff" fill-opacity="0.9" stroke="{HOT}" stroke-width="0.6"/>'
            f'<text x="{_f(mx)}" y="{_f(my + 4)}" text-anchor="middle" font-size="{LABEL_PX}" '
            f'fill="{HOT}" font-weight="bold">{escape(label)}</text>'
        )
    return out + "</g>"


def _svg_node(n, box: Box, h: Highlight) -> str:
    fill, stroke, width, opacity = box_style(n.kind, n.id, h)
    lines = h.lines.get(n.id, n.lines)
    rx = 8 if n.kind in (FUNCTION, ACCUMULATE) else 2
    dash = ' stroke-dasharray="4,3"' if n.kind == SUMMARY else ""
    out = [
        f'<g class="node {n.kind}" id="agk-{n.id}" opacity="{opacity}">'
        f'<rect x="{_f(box.x - box.w / 2)}" y="{_f(box.top)}" width="{_f(box.w)}" '
        f'height="{_f(box.h)}" rx="{rx}" fill="{fill}" stroke="{stroke}" '
        f'stroke-width="{width}"{dash}/>'
    ]
    first = box.top + (box.h - len(lines) * LINE_H) / 2 + LINE_H / 2 + 4
    for k, line in enumerate(lines):
        weight = ' font-weight="bold"' if k == 0 else ""
        out.append(
            f'<text x="{_f(box.x)}" y="{_f(first + k * LINE_H)}" text-anchor="middle"'
            f"{weight}>{escape(line)}</text>"
        )
    return "".join(out) + "</g>"


def _svg_legend(graph: Graph, top: float, width: float, h: Highlight) -> str:
    out = ['<g class="legend">']
    for swatch, key, text, x, y in legend_items(graph, width, h):
        y0 = top + y
        if swatch == "line":
            color, lw = line_style(key)
            dash = f' stroke-dasharray="{DASHES[key]}"' if key in DASHES else ""
            head = _HOT_MARKER if key == "hot" else _MARKER
            out.append(
                f'<line class="legend-{key}" x1="{_f(x)}" y1="{_f(y0 + 7)}" '
                f'x2="{_f(x + SWATCH_W - 2)}" y2="{_f(y0 + 7)}" stroke="{color}" '
                f'stroke-width="{lw}"{dash} marker-end="url(#{head})"/>'
            )
        else:
            fill, stroke = COLORS[key] if swatch == "box" else state_style(key)
            border = "1" if swatch == "box" else "2.5"
            out.append(
                f'<rect class="legend-{key}" x="{_f(x + 6)}" y="{_f(y0)}" width="14" '
                f'height="14" rx="2" fill="{fill}" stroke="{stroke}" stroke-width="{border}"/>'
            )
        out.append(
            f'<text x="{_f(x + SWATCH_W + 5)}" y="{_f(y0 + 11)}" '
            f'font-size="{LABEL_PX}">{escape(text)}</text>'
        )
    return "".join(out) + "</g>"


# ----- matplotlib --------------------------------------------------------------------------
DPI = 100
PT_PER_PX = 72 / DPI


def text_families() -> list[str]:
    """The drawing's monospace font, then matplotlib's ``font.family``: a character the first
    lacks (Chinese) comes from the next that has it (in a zh-CN folder, the kit's Noto Sans CJK
    subset, ``_i18n.use_fonts``)."""
    from matplotlib import rcParams

    return ["monospace", *rcParams["font.family"]]


def render_figure(graph: Graph, layout: Layout, highlight: Highlight | None = None):
    """A matplotlib ``Figure`` of the same layout: one pixel of the layout is one pixel."""
    h = highlight or Highlight()
    width, height = canvas_size(graph, layout, h)
    fig = new_figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    _mpl_edges(ax, graph, layout, h)
    _mpl_nodes(ax, graph, layout, h)
    _mpl_legend(ax, graph, layout.height, width, h)
    return fig


def _arrow_head(points, length: float = 8.0, half: float = 3.5) -> list[tuple[float, float]]:
    (x1, y1), (x2, y2) = points[-2], points[-1]
    dx, dy = x2 - x1, y2 - y1
    norm = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    ux, uy = dx / norm, dy / norm
    bx, by = x2 - ux * length, y2 - uy * length
    return [(x2, y2), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]


def _mpl_edges(ax, graph: Graph, layout: Layout, h: Highlight) -> None:
    """All arrows as one line collection per style, plus their heads and labels."""
    from matplotlib.collections import LineCollection, PolyCollection

    groups: dict[tuple, tuple[list, list]] = {}
    spots = place_labels(graph, layout, h)
    for e in graph.edges:
        points = edge_path(e, graph, layout)
        label = h.edge_labels.get((e.src, e.dst, e.index))
        style = (
            HOT if label else EDGE_COLOR,
            2.0 if label else 1.1,
            MPL_STYLES.get(e.kind, "-"),
        )
        lines, heads = groups.setdefault(style, ([], []))
        lines.append(points)
        heads.append(_arrow_head(points))
        if label:
            x, y = spots[(e.src, e.dst, e.index)]
            ax.text(
                x,
                y,
                label,
                ha="center",
                va="center",
                color=HOT,
                fontsize=LABEL_PX * PT_PER_PX,
                fontweight="bold",
                family=text_families(),
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec=HOT, lw=0.6, alpha=0.9),
            )
    for (color, lw, linestyle), (lines, heads) in groups.items():
        ax.add_collection(LineCollection(lines, colors=color, linewidths=lw, linestyles=linestyle))
        ax.add_collection(PolyCollection(heads, facecolors=color, edgecolors="none"))


def _mpl_nodes(ax, graph: Graph, layout: Layout, h: Highlight) -> None:
    """Boxes as one patch collection (much faster than one patch each), then their text."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import FancyBboxPatch

    patches = []
    for n in graph.nodes:
        box = layout.boxes[n.id]
        fill, stroke, width, opacity = box_style(n.kind, n.id, h)
        rounding = 8 if n.kind in (FUNCTION, ACCUMULATE) else 2
        patches.append(
            FancyBboxPatch(
                (box.x - box.w / 2, box.top),
                box.w,
                box.h,
                boxstyle=f"round,pad=0,rounding_size={rounding}",
                fc=fill,
                ec=stroke,
                lw=width * PT_PER_PX * 1.3,
                alpha=opacity,
                linestyle="--" if n.kind == SUMMARY else "-",
            )
        )
        lines = h.lines.get(n.id, n.lines)
        first = box.top + (box.h - len(lines) * LINE_H) / 2 + LINE_H / 2
        for k, line in enumerate(lines):
            ax.text(
                box.x,
                first + k * LINE_H,
                line,
                ha="center",
                va="center",
                family=text_families(),
                fontsize=FONT_PX * PT_PER_PX,
                fontweight="bold" if k == 0 else "normal",
                alpha=opacity,
                zorder=3,
            )
    ax.add_collection(PatchCollection(patches, match_original=True, zorder=2))


def _mpl_legend(ax, graph: Graph, top: float, width: float, h: Highlight) -> None:
    from matplotlib.patches import FancyArrowPatch, Rectangle

    for swatch, key, text, x, y in legend_items(graph, width, h):
        y0 = top + y
        if swatch == "line":
            color, lw = line_style(key)
            arrow = FancyArrowPatch(
                (x, y0 + 7),
                (x + SWATCH_W - 2, y0 + 7),
                arrowstyle="-|>",
                mutation_scale=8,
                color=color,
                lw=lw * PT_PER_PX * 1.3,
                linestyle=MPL_STYLES.get(key, "-"),
            )
            ax.add_patch(arrow)
        else:
            fill, stroke = COLORS[key] if swatch == "box" else state_style(key)
            lw = 1.0 if swatch == "box" else 2.0
            ax.add_patch(Rectangle((x + 6, y0), 14, 14, fc=fill, ec=stroke, lw=lw))
        ax.text(
            x + SWATCH_W + 5,
            y0 + 7,
            text,
            va="center",
            fontsize=LABEL_PX * PT_PER_PX,
            family=text_families(),
        )


@functools.cache
def _figure_class() -> type:
    class ShownFigure(lab_import("matplotlib.figure").Figure):
        """A Figure that shows itself as a PNG in Jupyter, even if pyplot never loaded
        (the inline backend only teaches IPython to show figures once pyplot is used)."""

        def _repr_png_(self) -> bytes:
            return figure_png(self)

    return ShownFigure


def new_figure(**kwargs):
    """A matplotlib figure outside pyplot (nothing to close, never shown twice) that
    displays as a cell's result."""
    return _figure_class()(**kwargs)


def figure_png(fig) -> bytes:
    """PNG bytes of a matplotlib figure (works with any backend, even without pyplot)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi)
    return buffer.getvalue()
