"""viz.trace: the recorded steps are the real engine's, in its order, with its numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd.graph import walk
from autogradkit.viz import trace as trace_module
from autogradkit.viz import trace_backward
from autogradkit.viz.graph import build_graph

from . import examples


def engine_order(root) -> list:
    """The nodes in the order the engine runs them, seen through our own pre-hooks."""
    seen, handles = [], []
    for node in walk(root.grad_fn):
        handles.append(node.register_prehook(lambda g, node=node: seen.append(node)))
    root.backward(retain_graph=True)
    for h in handles:
        h.remove()
    return seen


@pytest.mark.parametrize("make", [examples.article_002, examples.two_layer])
def test_trace_order_is_the_engines_order(make):
    v = make()
    root = v["e"] if "e" in v else v["loss"]
    trace = trace_backward(root)
    order = engine_order(root)
    assert [s.node for s in trace.steps] == order
    assert len(order) == len(walk(root.grad_fn))


def test_diamond_runs_the_shared_node_once_after_both_branches():
    x = agk.tensor(1.5, requires_grad=True)
    y = x.exp()
    z = y.sin() + y.cos()
    trace = trace_backward(z)
    assert trace.order() == [
        "AddBackward0",
        "CosBackward0",
        "SinBackward0",
        "ExpBackward0",
        "AccumulateGrad",
    ]
    exp_step = trace.steps[3]
    expected = np.cos(np.exp(1.5)) - np.sin(np.exp(1.5))  # both branches, summed
    assert exp_step.grad_outputs[0] == pytest.approx(expected, rel=1e-5)


def test_steps_hold_what_each_node_received_and_sent():
    v = examples.article_002()
    steps = trace_backward(v["e"]).steps
    assert [s.name for s in steps] == [
        "MulBackward0",
        "AccumulateGrad",
        "AddBackward0",
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    assert [g.item() for g in steps[0].grad_outputs] == [1.0]
    assert [g.item() for g in steps[0].grad_inputs] == [4.0, 5.0]
    assert steps[1].node.variable is v["d"] and steps[1].leaf_grad.item() == 5.0
    assert [g.item() for g in steps[2].grad_inputs] == [4.0, 4.0]
    assert steps[1].grad_inputs == ()  # AccumulateGrad sends nothing on


def test_gradients_sent_are_reduced_to_each_inputs_shape():
    v = examples.two_layer()
    trace = trace_backward(v["loss"])
    add = next(s for s in trace.steps if s.name == "AddBackward0")
    assert [g.shape for g in add.grad_inputs] == [(2, 1), (1,)]  # b2 gets the summed gradient
    assert add.grad_inputs[1] == pytest.approx(add.grad_outputs[0].sum(axis=0))


def test_leaf_grads_are_put_back_as_they_were():
    v = examples.article_002()
    v["e"].backward(retain_graph=True)
    grad_a = v["a"].grad
    trace = trace_backward(v["e"])
    assert v["a"].grad is grad_a and v["a"].grad.item() == 4.0
    a_step = next(s for s in trace.steps if getattr(s.node, "variable", None) is v["a"])
    assert a_step.had_grad and a_step.leaf_grad.item() == 8.0  # what the engine really did


def test_restore_grads_false_keeps_the_accumulated_grads():
    v = examples.article_002()
    trace_backward(v["e"], restore_grads=False)
    assert (v["a"].grad.item(), v["d"].grad.item()) == (4.0, 5.0)


def test_hooks_are_removed_afterwards():
    v = examples.article_002()
    trace = trace_backward(v["e"])
    v["e"].backward()
    assert len(trace.steps) == 5


def test_a_users_tensor_hook_changes_what_the_trace_sees():
    v = examples.article_002()
    v["c"].register_hook(lambda g: g * 10)
    steps = trace_backward(v["e"]).steps
    add = next(s for s in steps if s.name == "AddBackward0")
    assert [g.item() for g in add.grad_outputs] == [40.0]


def test_non_scalar_root_needs_a_gradient_like_backward():
    x = agk.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        trace_backward(y)
    trace = trace_backward(y, agk.tensor([1.0, 0.5]))
    assert trace.steps[-1].leaf_grad.tolist() == [3.0, 1.5]
    assert x.grad is None


def test_freed_graph_raises_pytorchs_error_and_leaves_grads_alone():
    v = examples.article_000()
    v["e"].backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        trace_backward(v["e"])
    assert (v["a"].grad.item(), v["d"].grad.item()) == (12.0, 6.0)


def test_highlight_marks_the_running_node_and_fades_the_ones_before():
    v = examples.article_002()
    trace = trace_backward(v["e"])
    graph = build_graph(v["e"], v)
    start = trace.highlight(graph, 0)
    assert start.running is None and list(start.edge_labels.values()) == ["1."]
    h = trace.highlight(graph, 3)
    assert h.running == graph.id_of(v["c"].grad_fn)
    assert h.done == {graph.id_of(v["e"].grad_fn), graph.id_of(trace.steps[1].node)}
    assert h.lines[graph.id_of(v["d"])] == ("d", "data: 4.", "grad: 5.")
    assert graph.id_of(v["a"]) not in h.lines  # a's AccumulateGrad has not run yet


def test_describe_tells_each_step_in_words():
    v = examples.article_002()
    trace = trace_backward(v["e"])
    graph = build_graph(v["e"], v)
    assert trace.describe(0, graph) == (
        "Before backward: the engine seeds the output's gradient with 1."
    )
    assert trace.describe(1, graph) == (
        "Step 1 of 5: MulBackward0 received 1.; it sent 4. to AddBackward0, 5. to AccumulateGrad"
    )
    assert trace.describe(2, graph) == (
        "Step 2 of 5: AccumulateGrad received 5. and wrote d.grad, which is now 5."
    )


def test_a_leaf_output_has_no_steps_and_keeps_its_grad():
    x = agk.tensor(2.0, requires_grad=True)
    trace = trace_backward(x)
    assert trace.steps == [] and x.grad is None
    assert trace.describe(0) == "Nothing to run: this tensor has no backward graph."


# ----- the engine's own bookkeeping: ready queue and pending counts -------------------------
def fork_and_diamond():
    """``h = a * b`` used twice (a diamond), ``a`` used twice, and ``x * x`` (one node, two
    edges to the same leaf)."""
    a = agk.tensor(2.0, requires_grad=True)
    b = agk.tensor(3.0, requires_grad=True)
    x = agk.tensor(0.5, requires_grad=True)
    h = a * b
    y = h.sin() + h * 3 + a + x * x
    return dict(a=a, b=b, x=x, h=h, y=y)


def consumer_edges(root_node) -> dict:
    """For every node, the edges pointing at it from nodes reachable from ``root_node``:
    counted here from the graph alone, independently of the engine."""
    counts = {}
    for node in walk(root_node):
        for child, _ in node.next_functions:
            if child is not None:
                counts[child] = counts.get(child, 0) + 1
    return counts


def test_pending_counts_start_as_the_number_of_consumer_edges():
    v = fork_and_diamond()
    trace = trace_backward(v["y"], engine_state=True)
    edges = consumer_edges(v["y"].grad_fn)
    assert trace.pending(0) == {v["y"].grad_fn: 0, **edges}
    assert trace.pending(0)[_leaf_node(v, "x")] == 2  # x * x: one node, two edges
    assert trace.pending(0)[v["h"].grad_fn] == 2 and trace.pending(0)[_leaf_node(v, "a")] == 2


def _leaf_node(v, name):
    return next(n for n in walk(v["y"].grad_fn) if getattr(n, "variable", None) is v[name])


def test_each_step_lowers_a_count_once_per_edge_from_the_node_that_ran():
    v = fork_and_diamond()
    trace = trace_backward(v["y"], engine_state=True)
    for position, step in enumerate(trace.steps):
        before, after = trace.pending(position), trace.pending(position + 1)
        sent = {}
        for child, _ in step.node.next_functions:
            if child is not None:
                sent[child] = sent.get(child, 0) + 1
        expected = {n: c - sent.get(n, 0) for n, c in before.items() if n is not step.node}
        assert after == expected


def test_the_ready_queue_holds_exactly_the_nodes_whose_count_reached_zero():
    v = fork_and_diamond()
    trace = trace_backward(v["y"], engine_state=True)
    for position, step in enumerate(trace.steps):
        ready, pending = trace.ready(position), trace.pending(position)
        assert ready[0] is step.node  # the engine runs the head of its queue next
        assert {n for n, c in pending.items() if c == 0} == set(ready)
    assert trace.ready(len(trace.steps)) == [] and trace.pending(len(trace.steps)) == {}


def test_a_shared_node_runs_only_after_both_branches_sent_their_gradients():
    v = fork_and_diamond()
    trace = trace_backward(v["y"], engine_state=True)
    shared = v["h"].grad_fn
    counts = [trace.pending(p).get(shared) for p in range(len(trace.steps))]
    ran_at = [s.node for s in trace.steps].index(shared)
    assert counts[0] == 2 and counts[ran_at] == 0 and 1 in counts[:ran_at]
    senders = [s.node for s in trace.steps[:ran_at]]
    assert sum(shared in [c for c, _ in n.next_functions] for n in senders) == 2  # both uses


def test_among_ready_nodes_the_newest_runs_first_and_accumulate_grad_at_once():
    x = agk.tensor(1.5, requires_grad=True)
    y = x.exp()
    z = y.sin() + y.cos()  # cos was made after sin: it runs first
    trace = trace_backward(z, engine_state=True)
    assert [node_label_of(n) for n in trace.ready(1)] == ["CosBackward0", "SinBackward0"]


def node_label_of(node) -> str:
    return node.name().rsplit("::", 1)[-1]


def test_engine_state_is_only_recorded_when_asked_for():
    v = examples.article_002()
    assert trace_backward(v["e"]).steps[0].pending is None
    assert trace_backward(v["e"], engine_state=True).steps[0].pending is not None


def test_the_engine_state_comes_from_the_public_observer_only():
    """viz follows the engine through ``autograd.observer`` (no frame of the engine is read):
    outside a traced backward nothing is watching, and the stepper's counts come from it."""
    from autogradkit.autograd import observer

    v = fork_and_diamond()
    seen = []

    class Counts(observer.BackwardObserver):
        def dependencies_counted(self, counts):
            seen.append(counts)

    with observer.observe(Counts()):
        trace = trace_backward(v["y"], engine_state=True)
    assert observer.watchers == []  # (the engine's list, which observe fills)
    assert {n: c for n, c in seen[0].items() if c} == {
        n: c for n, c in trace.pending(0).items() if c
    }
    assert "_getframe" not in Path(trace_module.__file__).read_text()


def test_highlight_says_where_each_node_stands():
    v = fork_and_diamond()
    trace = trace_backward(v["y"], engine_state=True)
    graph = build_graph(v["y"], v)
    h = trace.highlight(graph, 1)
    shared = graph.id_of(v["h"].grad_fn)
    assert h.lines[shared] == ("MulBackward0", "waits for 2")
    assert h.lines[graph.id_of(v["y"].grad_fn)] == ("AddBackward0", "ran at step 1")
    assert h.ready == {graph.id_of(n) for n in trace.ready(1)}
    assert all(h.lines[i][-1].startswith("ready #") for i in h.ready)
    assert trace.highlight(graph, 1, fade=False).lines.get(shared) is None  # draw_graph(trace=)


def test_engine_text_lists_the_queue_in_order_and_the_waiting_nodes():
    from autogradkit.viz.trace import engine_text

    v = fork_and_diamond()
    trace = trace_backward(v["y"], engine_state=True)
    graph = build_graph(v["y"], v)
    assert engine_text(trace, 0, graph).startswith(
        "Ready queue (runs left to right): AddBackward0 (y)."
    )
    assert "MulBackward0 (h) for 2 gradients" in engine_text(trace, 0, graph)
    assert "AccumulateGrad (a) for 2 gradients" in engine_text(trace, 0, graph)
    assert engine_text(trace, len(trace.steps), graph).startswith("Ready queue: empty.")
    assert engine_text(trace_backward(v["y"]), 0, graph) == ""
