"""viz.graph: the backward graph as boxes and arrows, checked as plain data."""

from __future__ import annotations

from collections import Counter

import numpy as np

import autogradkit as agk
from autogradkit.viz.graph import (
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
    breadth_first,
    build_graph,
    format_value,
    pick_tensors,
)

from . import examples


def kinds(graph) -> Counter:
    return Counter(n.kind for n in graph.nodes)


def tensor_names(graph) -> set:
    return {n.name for n in graph.nodes if n.kind in (LEAF, NONLEAF, NOGRAD)}


def arrows(graph) -> set:
    """Arrows as (label of src, label of dst, kind), readable in assertions."""
    label = {n.id: n.label for n in graph.nodes}
    return {(label[e.src], label[e.dst], e.kind) for e in graph.edges}


def test_chain_with_three_leaves_has_two_mul_nodes_and_three_accumulators():
    v = examples.chain_all_leaves()
    graph = build_graph(v["e"], v)
    assert graph.count() == {"MulBackward0": 2, "AccumulateGrad": 3}
    assert tensor_names(graph) == {"a", "b", "c", "d", "e"}
    assert kinds(graph)[LEAF] == 3 and kinds(graph)[NONLEAF] == 2


def test_article_000_draws_b_as_a_saved_tensor_that_needs_no_grad():
    v = examples.article_000()
    graph = build_graph(v["e"], v)
    assert graph.count() == {"MulBackward0": 2, "AccumulateGrad": 2}
    assert tensor_names(graph) == {"a", "b", "c", "d", "e"}
    b_box = graph.node(graph.id_of(v["b"]))
    assert b_box.kind == NOGRAD
    assert ("b", "MulBackward0", SAVED) in arrows(graph)


def test_article_002_edges_follow_next_functions():
    v = examples.article_002()
    graph = build_graph(v["e"], v)
    assert graph.count() == {"MulBackward0": 1, "AddBackward0": 1, "AccumulateGrad": 3}
    assert arrows(graph) == {
        ("e", "MulBackward0", GRAD_FN),
        ("MulBackward0", "AddBackward0", NEXT),
        ("MulBackward0", "AccumulateGrad", NEXT),
        ("AddBackward0", "AccumulateGrad", NEXT),
        ("AccumulateGrad", "a", VARIABLE),
        ("AccumulateGrad", "b", VARIABLE),
        ("AccumulateGrad", "d", VARIABLE),
        ("c", "AddBackward0", GRAD_FN),
    }


def test_accumulate_grad_box_points_at_its_variable_the_leaf_itself():
    v = examples.article_002()
    graph = build_graph(v["e"], v)
    for e in graph.edges:
        if e.kind == VARIABLE:
            assert graph.node(e.src).ref.variable is graph.node(e.dst).ref


def test_next_edges_carry_the_input_slot():
    v = examples.article_002()
    graph = build_graph(v["e"], v)
    mul = graph.id_of(v["e"].grad_fn)
    slots = {e.index: graph.node(e.dst).label for e in graph.edges if e.src == mul}
    assert slots == {0: "AddBackward0", 1: "AccumulateGrad"}


def test_named_intermediate_sits_beside_its_grad_fn():
    v = examples.article_002()
    graph = build_graph(v["e"], v)
    c = graph.node(graph.id_of(v["c"]))
    assert c.kind == NONLEAF and c.owner == graph.id_of(v["c"].grad_fn)


def test_boxes_show_name_shape_data_and_grad_after_backward():
    v = examples.article_000()
    v["e"].backward()
    graph = build_graph(v["e"], v)
    assert graph.node(graph.id_of(v["a"])).lines == ("a", "data: 2.", "grad: 12.")
    assert graph.node(graph.id_of(v["d"])).lines == ("d", "data: 4.", "grad: 6.")
    assert graph.node(graph.id_of(v["c"])).lines == ("c", "data: 6.", "grad: None")
    W = agk.ones(2, 3, requires_grad=True)
    assert build_graph(W.sum(), {"W": W}).nodes[-1].lines[0] == "W (2, 3)"


def test_options_hide_data_and_grad_and_show_saved():
    v = examples.article_000()
    graph = build_graph(v["e"], v, show_data=False, show_grad=False, show_saved=True)
    assert graph.node(graph.id_of(v["a"])).lines == ("a",)
    saved = {n.lines[1] for n in graph.nodes if n.kind == FUNCTION}
    assert saved == {"saved: None, b", "saved: c, d"}


def test_saved_line_says_when_backward_freed_it():
    v = examples.article_000()
    v["e"].backward()
    graph = build_graph(v["e"], v, show_saved=True)
    assert {n.lines[1] for n in graph.nodes if n.kind == FUNCTION} == {"saved: (freed by backward)"}


def test_without_names_tensors_are_called_tensor_and_ids_are_stable():
    v = examples.article_002()
    first, second = build_graph(v["e"]), build_graph(v["e"])
    assert [n.id for n in first.nodes] == [n.id for n in second.nodes]
    assert {n.label for n in first.nodes if n.kind == LEAF} == {"tensor"}


def test_pick_tensors_skips_underscore_names_and_keeps_the_first_name():
    t = agk.tensor(1.0)
    picked = pick_tensors({"_": t, "_1": t, "x": t, "y": t, "n": 3})
    assert list(picked.values()) == [("x", t)]


def test_tensor_that_needs_no_grad_is_a_single_grey_box():
    graph = build_graph(agk.tensor([1.0, 2.0]), {})
    assert [(n.kind, n.lines[0]) for n in graph.nodes] == [(NOGRAD, "tensor (2,)")]
    assert graph.edges == []


def test_reused_input_gives_two_arrows_to_one_accumulator():
    x = agk.tensor(3.0, requires_grad=True)
    graph = build_graph(x * x, {"x": x})
    assert graph.count() == {"MulBackward0": 1, "AccumulateGrad": 1}
    assert sorted(e.index for e in graph.edges if e.kind == NEXT) == [0, 1]


def test_big_graph_is_summarised_into_one_box():
    _, y = examples.chain(1000)
    graph = build_graph(y, {}, max_nodes=50, max_depth=None)
    assert graph.hidden == 1001 - 50  # 1000 ops + the leaf's AccumulateGrad, minus those kept
    summary = [n for n in graph.nodes if n.kind == SUMMARY]
    assert [s.label for s in summary] == ["… 951 more nodes"]
    assert sum(e.dst == summary[0].id for e in graph.edges) == 1


def test_breadth_first_keeps_nodes_nearest_the_output():
    _, y = examples.chain(10)
    kept, hidden = breadth_first(y.grad_fn, max_depth=3)
    assert [n.name() for n in kept] == ["SinBackward0", "MulBackward0"] * 2
    assert hidden == 7


def test_walking_a_100000_op_chain_needs_no_recursion(chain_100k, chain_100k_graph):
    y, graph = chain_100k, chain_100k_graph
    assert graph.count() == {"MulBackward0": 50_000, "SinBackward0": 50_000, "AccumulateGrad": 1}
    assert build_graph(y, {}).hidden == 100_001 - 61  # default: 61 levels from the output


def test_format_value_prints_like_pytorch():
    assert format_value(np.float32(2.0)) == "2."
    assert format_value(np.array([[1.0, 2.0], [0.5, -1.0]])) == "[[1., 2.], [0.5, -1.]]"
    assert format_value(np.float64(1e-8)) == "1e-08"
    assert format_value(np.arange(6.0).reshape(2, 3), max_items=3, digits=3) == "[0., 1., …] (2, 3)"
    assert format_value(None) == "None"


def test_kinds_cover_every_box():
    v = examples.article_000()
    graph = build_graph(v["e"], v)
    assert set(kinds(graph)) == {FUNCTION, ACCUMULATE, LEAF, NONLEAF, NOGRAD}
