"""The engine: graph shapes that must work, and PyTorch's rules for what backward does."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd import grad_mode


def test_product_rule_gives_each_leaf_the_other_factor():
    a = agk.tensor(2.0, requires_grad=True)
    b = agk.tensor(3.0, requires_grad=True)
    (a * b).backward()
    assert a.grad.item() == 3.0 and b.grad.item() == 2.0


def test_articles_chain_e_equals_a_times_b_times_d():
    a, b, d = (agk.tensor(v, requires_grad=True) for v in (2.0, 3.0, 4.0))
    e = (a * b) * d
    e.backward()
    assert (a.grad.item(), b.grad.item(), d.grad.item()) == (12.0, 8.0, 6.0)


def test_reused_input_x_times_x_sums_both_paths():
    x = agk.tensor(3.0, requires_grad=True)
    (x * x).backward()
    assert x.grad.item() == 6.0


def test_diamond_b_equals_a_plus_a_then_c_equals_b_plus_b():
    a = agk.tensor(1.0, requires_grad=True)
    b = a + a
    c = b + b
    c.backward()
    assert a.grad.item() == 4.0


def test_deep_chain_of_100000_ops_needs_no_recursion():
    x = agk.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    assert sys.getrecursionlimit() <= 10_000
    y.backward()
    assert x.grad.item() == 1.0


def test_gradients_accumulate_across_backward_calls():
    x = agk.tensor(2.0, requires_grad=True)
    (x * 3).backward()
    (x * 3).backward()
    assert x.grad.item() == 6.0


def test_broadcast_gradient_is_summed_to_the_input_shape():
    x = agk.ones(2, 3, requires_grad=True)
    b = agk.tensor([1.0, 2.0, 3.0], requires_grad=True)
    upstream = agk.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (x * b).backward(upstream)
    np.testing.assert_allclose(b.grad.numpy(), [5.0, 7.0, 9.0])
    np.testing.assert_allclose(x.grad.numpy(), upstream.numpy() * [1, 2, 3])


def test_second_backward_without_retain_graph_raises_pytorchs_error():
    x = agk.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_op_that_saves_nothing_can_be_backpropagated_twice():
    x = agk.tensor(1.0, requires_grad=True)
    y = x + 1
    y.backward()
    y.backward()
    assert x.grad.item() == 2.0


def test_retain_graph_allows_a_second_backward():
    x = agk.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 8.0


def test_second_derivative_of_cube_through_create_graph():
    x = agk.tensor(2.0, requires_grad=True)
    (g,) = agk.autograd.grad(x**3, x, create_graph=True)
    (gg,) = agk.autograd.grad(g, x)
    assert g.item() == 12.0 and gg.item() == 12.0


@pytest.mark.parametrize("with_bias", [False, True])
def test_a_weight_used_through_t_gets_a_row_major_grad(with_bias):
    """PyTorch computes the grad of a column-major mat2 as (g.T @ x).T, and a new .grad is
    laid out like its leaf: the weight's gradient is contiguous, with the right values."""
    x = np.arange(8.0).reshape(4, 2)
    w = agk.tensor([[1.0, -1.0], [0.5, 2.0], [3.0, 0.0]], requires_grad=True)
    b = agk.zeros(3, requires_grad=True) if with_bias else None
    out = agk.nn.functional.linear(agk.tensor(x, dtype=agk.float32), w, b)
    assert out.grad_fn.name() == ("AddmmBackward0" if with_bias else "MmBackward0")
    (out * agk.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert w.grad.is_contiguous()
    np.testing.assert_allclose(w.grad.numpy(), np.outer([1.0, 2.0, 3.0], x.sum(0)))


def test_anomaly_mode_plugs_into_the_engine_only_while_it_is_on():
    """Anomaly mode sits beside the core: the engine runs its checks through
    ``grad_mode.anomaly`` (a hook it reads), set only while the mode is on."""
    x = agk.tensor([1.0, 4.0], requires_grad=True)
    assert grad_mode.anomaly is None and (x * x).grad_fn.metadata == {}
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with agk.autograd.detect_anomaly():
            assert grad_mode.anomaly is not None
            y = x.sqrt()  # recorded here: its node keeps this line
    assert grad_mode.anomaly is None
    assert "y = x.sqrt()" in y.grad_fn.metadata["traceback_"][-1]
    agk.autograd.set_detect_anomaly(True, check_nan=False)  # on until switched off
    try:
        assert grad_mode.anomaly is not None and not agk.is_anomaly_check_nan_enabled()
    finally:
        agk.autograd.set_detect_anomaly(False)
    assert grad_mode.anomaly is None


def test_dir_of_a_node_lists_the_node_not_the_op_or_its_store():
    """``dir(grad_fn)`` as PyTorch shows it (``saved_fields.node_dir``, beside the core): a
    node's own names and ``_saved_<name>`` fields; not the op's API, the ctx helpers or the
    store they read. For an op's node, a CopySlices and an AccumulateGrad alike."""
    a = agk.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b[0].mul_(3)  # b's grad_fn becomes a CopySlices
    product = (a * a).grad_fn
    nodes = [product, b.grad_fn, product.next_functions[0][0]]
    assert [n.name() for n in nodes[1:]] == [
        "autogradkit::autograd::CopySlices",
        "autogradkit::autograd::AccumulateGrad",
    ]
    hidden = {"backward", "forward", "apply", "save_for_backward", "saved_tensors"}
    hidden |= {"needs_input_grad", "_saved", "_saved_meta"}
    for node in nodes:
        names = set(dir(node))
        assert {"name", "next_functions", "metadata", "register_hook"} <= names
        assert names & hidden == set()
    assert "_saved_self" in dir(product) and "variable" in dir(nodes[2])


def test_targets_py_hands_the_engine_its_targets():
    """engine.py cannot import targets.py (beside the core, it imports the engine): it puts
    ``Targets`` in the engine's hook when it loads, and ``backward(inputs=...)`` makes one."""
    from autogradkit.autograd import engine, targets

    assert engine.Targets is targets.Targets
    assert "targets" not in vars(engine)
    a = agk.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    (b * b).sum().backward(inputs=[b])  # a non-leaf input gets its .grad; a is not a target
    assert a.grad is None
    assert b.grad.tolist() == [6.0, 12.0]
