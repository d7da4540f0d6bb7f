"""viz.layout: layers, positions and bends, checked as numbers."""

from __future__ import annotations

import autogradkit as agk
from autogradkit.viz.graph import SAVED, build_graph
from autogradkit.viz.layout import isotonic, layout_graph

from . import examples


def overlapping_pairs(layout) -> list:
    """Pairs of boxes in one layer that overlap (sorted by x, so neighbours suffice)."""
    rows: dict[int, list] = {}
    for node_id, box in layout.boxes.items():
        rows.setdefault(layout.layers[node_id], []).append(box)
    pairs = []
    for boxes in rows.values():
        boxes.sort(key=lambda b: b.x)
        neighbours = zip(boxes, boxes[1:], strict=False)
        pairs += [(p, q) for p, q in neighbours if p.x + p.w / 2 > q.x - q.w / 2]
    return pairs


def test_every_arrow_points_up_and_the_output_is_at_the_bottom():
    v = examples.two_layer()
    graph = build_graph(v["loss"], v)
    layout = layout_graph(graph)
    for e in graph.edges:
        low, high = (e.dst, e.src) if e.kind == SAVED else (e.src, e.dst)
        if graph.node(e.src).owner is None:
            assert layout.layers[high] > layout.layers[low]
            assert layout.boxes[high].y < layout.boxes[low].y
    root = graph.id_of(v["loss"])
    assert layout.layers[root] == 0
    assert layout.boxes[root].y == max(b.y for b in layout.boxes.values())


def test_boxes_do_not_overlap_even_in_a_few_hundred_node_graph():
    loss = examples.scalar_mlp()
    layout = layout_graph(build_graph(loss, {}, max_nodes=None))
    assert len(layout.boxes) > 300
    assert overlapping_pairs(layout) == []
    assert all(b.x - b.w / 2 >= 0 and b.x + b.w / 2 <= layout.width for b in layout.boxes.values())


def test_long_arrows_bend_once_per_layer_they_cross():
    x = agk.tensor(1.0, requires_grad=True)
    y = x.exp().sin().cos() * x  # x's accumulator feeds the last op and the first
    graph = build_graph(y, {"x": x})
    layout = layout_graph(graph)
    acc = graph.id_of(y.grad_fn.next_functions[1][0])
    mul = graph.id_of(y.grad_fn)
    bends = layout.bends[(mul, acc)]
    assert len(bends) == layout.layers[acc] - layout.layers[mul] - 1 == 3


def test_named_intermediate_is_placed_right_of_its_node():
    v = examples.article_002()
    graph = build_graph(v["e"], v)
    layout = layout_graph(graph)
    c, add = layout.boxes[graph.id_of(v["c"])], layout.boxes[graph.id_of(v["c"].grad_fn)]
    assert c.y == add.y and c.x - c.w / 2 > add.x + add.w / 2


def test_same_graph_same_layout():
    v = examples.two_layer()
    first = layout_graph(build_graph(v["loss"], v))
    second = layout_graph(build_graph(v["loss"], v))
    assert first == second


def test_alt_lines_widen_a_box():
    v = examples.article_002()
    graph = build_graph(v["e"], v)
    a = graph.id_of(v["a"])
    wide = layout_graph(graph, alt_lines={a: ("a", "grad: 123456789012345")})
    assert wide.boxes[a].w > layout_graph(graph).boxes[a].w


def test_isotonic_pools_out_of_order_neighbours():
    assert isotonic([3.0, 1.0, 2.0]) == [2.0, 2.0, 2.0]
    assert isotonic([0.0, 1.0]) == [0.0, 1.0]


def test_laying_out_a_100000_op_chain_needs_no_recursion(chain_100k_graph):
    layout = layout_graph(chain_100k_graph)
    assert max(layout.layers.values()) == 100_002  # output, 100,000 ops, AccumulateGrad, leaf
    xs = {round(b.x, 6) for b in layout.boxes.values()}
    assert len(xs) == 1  # a chain is one straight column
