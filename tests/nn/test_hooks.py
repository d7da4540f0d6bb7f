"""Module hooks: forward pre/post (with kwargs, always_call, prepend), full backward hooks
through BackwardHookFunction, and the legacy last-node backward hook with its warning."""

from __future__ import annotations

import sys
import warnings

import pytest

import autogradkit as agk
from autogradkit import nn
from autogradkit.utils.hooks import RemovableHandle

LEGACY = "Using a non-full backward hook when the forward contains multiple autograd Nodes"


def _linear(weights, bias):
    lin = nn.Linear(len(weights[0]), len(weights))
    with agk.no_grad():
        lin.weight.copy_(agk.tensor(weights))
        lin.bias.copy_(agk.tensor(bias))
    return lin


class Scale(nn.Module):
    def forward(self, x, factor=2.0):
        return x * factor


# ----- forward hooks ----------------------------------------------------------------------------
def test_forward_pre_hook_can_replace_the_arguments():
    m = Scale()
    handle = m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
    assert isinstance(handle, RemovableHandle)
    assert m(agk.tensor([1.0])).tolist() == [4.0]
    handle.remove()
    assert m(agk.tensor([1.0])).tolist() == [2.0]


def test_forward_pre_hook_returning_a_single_value_is_wrapped_in_a_tuple():
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: args[0] * 10)
    assert m(agk.tensor([1.0])).tolist() == [20.0]


def test_forward_hook_sees_args_and_output_and_may_replace_output():
    seen = []
    m = Scale()
    m.register_forward_hook(lambda mod, args, out: seen.append((mod, args, out)))
    m.register_forward_hook(lambda mod, args, out: out + 100)
    x = agk.tensor([1.0])
    result = m(x)
    assert seen[0][0] is m and seen[0][1][0] is x and seen[0][2].tolist() == [2.0]
    assert result.tolist() == [102.0]


def test_hooks_with_kwargs():
    m = Scale()
    calls = []
    m.register_forward_pre_hook(lambda mod, a, k: ((a[0] + 1,), {"factor": 3.0}), with_kwargs=True)
    m.register_forward_hook(
        lambda mod, a, k, out: calls.append((a[0].item(), k, out.item())), with_kwargs=True
    )
    assert m(agk.tensor(1.0), factor=5.0).item() == 6.0
    assert calls == [(2.0, {"factor": 3.0}, 6.0)]


def test_pre_hook_with_kwargs_must_return_a_pair():
    m = Scale()
    m.register_forward_pre_hook(lambda mod, a, k: a, with_kwargs=True)
    with pytest.raises(
        RuntimeError,
        match=r"forward pre-hook must return None or a tuple of "
        r"\(new_args, new_kwargs\), but got",
    ):
        m(agk.tensor(1.0))


def test_prepend_puts_a_hook_first():
    order = []
    m = Scale()
    m.register_forward_hook(lambda *a: order.append("first registered"))
    handle = m.register_forward_hook(lambda *a: order.append("prepended"), prepend=True)
    m(agk.tensor(1.0))
    assert order == ["prepended", "first registered"]
    handle.remove()
    m(agk.tensor(1.0))
    assert order[-1] == "first registered" and len(order) == 3


def test_always_call_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    calls = []
    m = Boom()
    m.register_forward_hook(lambda mod, a, out: calls.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, a, out: calls.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(agk.tensor(1.0))
    assert calls == ["always"]


def test_handle_works_as_a_context_manager():
    m = Scale()
    with m.register_forward_hook(lambda mod, a, out: out * 0):
        assert m(agk.tensor(1.0)).item() == 0.0
    assert m(agk.tensor(1.0)).item() == 2.0


# ----- full backward hooks ----------------------------------------------------------------------
def test_full_backward_hook_sees_gradients_of_module_inputs_and_outputs():
    lin = _linear([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], [0.1, -0.2])
    calls = []
    lin.register_full_backward_hook(lambda m, gi, go: calls.append((m, gi, go)))
    x = agk.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = lin(x)
    assert y.grad_fn.name() == "BackwardHookFunctionBackward"
    assert y.grad_fn.next_functions[0][0].name() == "AddmmBackward0"
    (y * agk.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    ((m, (gi,), (go,)),) = calls
    assert m is lin
    assert go.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert gi.tolist() == x.grad.tolist() == [[-1.0, 3.0, 7.0], [-1.0, 8.0, 17.0]]


def test_full_backward_hook_can_replace_grad_input():
    lin = _linear([[1.0, 1.0]], [0.0])
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    x = agk.tensor([[1.0, 2.0]], requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.tolist() == [[10.0, 10.0]]


def test_backward_pre_hook_can_replace_grad_output():
    lin = _linear([[1.0, 1.0]], [0.0])
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    x = agk.tensor([[1.0, 2.0]], requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.tolist() == [[3.0, 3.0]]
    assert lin.weight.grad.tolist() == [[3.0, 6.0]]


def test_full_hook_wrong_number_of_grads_is_an_error():
    lin = _linear([[1.0, 1.0]], [0.0])
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(
        RuntimeError,
        match="Backward hook returned an invalid number of grad_input, got 2, but expected 1",
    ):
        lin(agk.ones(1, 2, requires_grad=True)).sum().backward()


def test_full_hook_when_no_input_requires_grad_warns_and_passes_none():
    lin = _linear([[1.0, 1.0]], [0.0])
    calls = []
    lin.register_full_backward_hook(lambda m, gi, go: calls.append(gi))
    with pytest.warns(
        UserWarning,
        match="Full backward hook is firing when gradients are "
        "computed with respect to module outputs since no inputs require",
    ):
        lin(agk.ones(1, 2)).sum().backward()
    assert calls == [(None,)]


@pytest.mark.parametrize("anomaly", [False, True], ids=["plain", "anomaly mode"])
def test_the_no_input_grad_warning_points_at_the_users_backward_line(anomaly):
    """As PyTorch's stacklevel=5 does for ``t.backward()``: counted on the call structure
    (nn reads no frames), anomaly mode's extra frame included."""
    lin = _linear([[1.0, 1.0]], [0.0])
    lin.register_full_backward_hook(lambda m, gi, go: None)
    out = lin(agk.ones(1, 2)).sum()
    with warnings.catch_warnings(record=True) as caught, agk.autograd.set_detect_anomaly(anomaly):
        warnings.simplefilter("always")
        out.backward()
        line = sys._getframe().f_lineno - 1  # the test reads its own frame: the line above
    (w,) = [w for w in caught if "Full backward hook is firing" in str(w.message)]
    assert (w.category, w.filename, w.lineno) == (UserWarning, __file__, line)


def test_full_hook_with_an_input_that_needs_no_grad():
    class Two(nn.Module):
        def forward(self, a, b):
            return a * b

    calls = []
    m = Two()
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(gi))
    a = agk.tensor([1.0, 2.0], requires_grad=True)
    m(a, agk.tensor([3.0, 4.0])).sum().backward()
    (gi,) = calls
    assert gi[0].tolist() == [3.0, 4.0] and gi[1].tolist() == [0.0, 0.0]
    assert a.grad.tolist() == [3.0, 4.0]


def test_full_and_legacy_hooks_cannot_be_mixed():
    lin = nn.Linear(1, 1)
    lin.register_backward_hook(lambda *a: None)
    with pytest.raises(
        RuntimeError,
        match="Cannot use both regular backward hooks and full "
        "backward hooks on a single Module. Please use only one of them.",
    ):
        lin.register_full_backward_hook(lambda *a: None)


# ----- the legacy hook --------------------------------------------------------------------------
def test_legacy_hook_sees_only_the_last_node_of_a_batch_linear():
    lin = _linear([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], [1.0, 1.0])
    calls = []
    lin.register_backward_hook(lambda m, gi, go: calls.append((gi, go)))
    x = agk.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    with pytest.warns(FutureWarning, match=LEGACY):
        out = lin(x)
    out.sum().backward()
    ((gi, go),) = calls
    # AddmmBackward0's inputs: bias (summed to its own shape), input, weight.t()
    assert [g.shape for g in gi] == [(2,), (2, 3), (3, 2)]
    assert gi[0].tolist() == [2.0, 2.0]
    assert gi[2].tolist() == [[5.0, 5.0], [7.0, 7.0], [9.0, 9.0]]
    assert [g.tolist() for g in go] == [[[1.0, 1.0], [1.0, 1.0]]]


def test_legacy_hook_result_replaces_the_last_nodes_gradients():
    class Half(nn.Module):
        def forward(self, x):
            return x / 4

    m = Half()
    m.register_backward_hook(lambda mod, gi, go: (gi[0] * 8, None))
    x = agk.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(FutureWarning, match=LEGACY):  # DivBackward0 also takes the number 4
        y = m(x)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_legacy_hook_is_silent_when_the_last_node_takes_exactly_the_inputs():
    class Product(nn.Module):
        def forward(self, a, b):
            return a * b

    m = Product()
    calls = []
    m.register_backward_hook(lambda mod, gi, go: calls.append([g.tolist() for g in gi]))
    a = agk.tensor([1.0, 2.0], requires_grad=True) * 1
    b = agk.tensor([3.0, 4.0], requires_grad=True) * 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = m(a, b)
    out.sum().backward()
    assert calls == [[[3.0, 4.0], [1.0, 2.0]]]


def test_legacy_hook_warns_at_forward_and_points_at_the_caller():
    lin = nn.Linear(2, 1)
    lin.register_backward_hook(lambda *a: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lin(agk.ones(2, requires_grad=True))
    (w,) = caught
    assert w.category is FutureWarning and w.filename == __file__
    assert w.lineno == sys._getframe().f_lineno - 3  # the line of lin(...) above
    assert str(w.message) == (
        "Using a non-full backward hook when the forward contains multiple autograd Nodes is "
        "deprecated and will be removed in future versions. This hook will be missing some "
        "grad_input. Please use register_full_backward_hook to get the documented behavior."
    )


def test_legacy_hook_warning_points_at_the_line_that_called_the_module():
    """A hooked module called in the user's own forward: the warning names that line."""

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 1)

        def forward(self, x):
            self.line = sys._getframe().f_lineno + 1
            return self.lin(x)

    outer = Outer()
    outer.lin.register_backward_hook(lambda *a: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outer(agk.ones(2, requires_grad=True))
    (w,) = caught
    assert (w.category, w.filename, w.lineno) == (FutureWarning, __file__, outer.line)


def test_legacy_hook_with_output_not_requiring_grad_is_silent():
    lin = nn.Linear(2, 1).requires_grad_(False)
    lin.register_backward_hook(lambda *a: None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lin(agk.ones(2)).grad_fn is None
