"""A tensor's autograd state lives in autograd (TensorBase); edges and saved origins are named;
the engine reports to observers (issue 30)."""

from __future__ import annotations

import pytest

import autogradkit as agk
from autogradkit.autograd.engine import TensorBase
from autogradkit.autograd.graph import GradientEdge, get_gradient_edge
from autogradkit.autograd.observer import BackwardObserver, observe


def test_tensor_builds_on_tensor_base_and_autograd_makes_tensors():
    a = agk.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    assert isinstance(a, TensorBase) and type(y) is agk.Tensor
    y.sum().backward()
    assert type(a.grad) is agk.Tensor and vars(a) == {}


def test_a_gradient_edge_is_named_and_next_functions_stay_plain_pairs():
    a = agk.tensor(2.0, requires_grad=True)
    y = a * 3
    edge = get_gradient_edge(a)
    assert isinstance(edge, GradientEdge) and edge.output_nr == 0
    assert edge.node is y.grad_fn.next_functions[0][0]
    assert get_gradient_edge(y) == (y.grad_fn, 0)
    assert all(type(pair) is tuple for pair in y.grad_fn.next_functions)  # as PyTorch's


def test_a_saved_value_knows_its_origin_by_name():
    a = agk.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()
    (origin,) = y.grad_fn._saved_meta
    assert origin.is_output and origin.output_nr == 0 and origin.tensor is None
    w = a.sin()
    (origin,) = w.grad_fn._saved_meta
    assert origin.tensor is a and origin.version == a._version and not origin.is_output


class Events(BackwardObserver):
    def __init__(self):
        self.seen = []

    def dependencies_counted(self, counts):
        self.seen.append(("counted", sorted(counts.values())))

    def node_ready(self, node):
        self.seen.append(("ready", node.name()))

    def node_running(self, node, queue):
        self.seen.append(("running", node.name(), len(queue)))

    def node_ran(self, node, grad_inputs):
        self.seen.append(("ran", node.name(), len(grad_inputs)))

    def gradient_accumulated(self, leaf, grad):
        self.seen.append(("accumulated", grad.tolist()))


def test_the_engine_reports_each_step_to_its_observers():
    a = agk.tensor(3.0, requires_grad=True)
    events = Events()
    with observe(events):
        (a * a).backward()
    acc = "autogradkit::autograd::AccumulateGrad"
    assert events.seen == [
        ("counted", [2]),
        ("ready", "MulBackward0"),
        ("running", "MulBackward0", 0),
        ("ready", acc),
        ("ran", "MulBackward0", 2),
        ("running", acc, 0),
        ("accumulated", 6.0),
        ("ran", acc, 0),
    ]
    (a * a).backward()  # outside the block: nothing more is reported
    assert len(events.seen) == 8


def test_an_observer_leaves_even_when_backward_fails():
    a = agk.tensor([1.0, 2.0], requires_grad=True)
    events = Events()
    with pytest.raises(RuntimeError, match="only for scalar outputs"), observe(events):
        (a * a).backward()
    from autogradkit.autograd import engine

    assert engine.watchers == []
