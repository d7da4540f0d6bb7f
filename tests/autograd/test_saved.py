"""Saved tensors, inference tensors and in-place ops on views of views, without torch (the
parity snippets compare the same behaviours with PyTorch when it is installed)."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd.graph import save_on_cpu, saved_tensors_hooks


def test_a_saved_input_is_the_input_and_a_saved_output_a_new_tensor_of_the_node():
    x = agk.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_exponent == 2
    e = x.exp()
    result = e.grad_fn._saved_result
    assert result is not e and result.grad_fn is e.grad_fn and result.equal(e)


def test_backward_frees_saved_tensors_but_keeps_numbers_and_unsaved_nones():
    x = agk.tensor([1.0, 2.0], requires_grad=True)
    y = x * agk.tensor([3.0, 4.0])
    s = x.sum(0)
    y.sum().backward()
    s.backward()
    assert y.grad_fn._saved_self is None and s.grad_fn._saved_dim == (0,)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        _ = y.grad_fn._saved_other


def test_pack_and_unpack_hooks_see_every_saved_tensor_in_pytorchs_order():
    a = agk.ones(3, requires_grad=True)
    b = agk.ones(3, requires_grad=True) * 2
    seen = []

    def pack(t):
        seen.append(("pack", t is a, t is b, agk.is_grad_enabled()))
        return t.detach()

    def unpack(t):
        seen.append(("unpack", float(t[0])))
        return t

    with saved_tensors_hooks(pack, unpack):
        y = a * b
    y.sum().backward()
    assert seen == [
        ("pack", False, True, False),  # mul saves other first, as PyTorch
        ("pack", True, False, False),
        ("unpack", 2.0),
        ("unpack", 1.0),
    ]
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])


def test_register_hooks_on_a_raw_saved_tensor_and_its_errors():
    x = agk.tensor([1.0, 2.0], requires_grad=True)
    z = x.sin()
    raw = z.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: t * 10, lambda p: p / 10)
    assert z.grad_fn._saved_self is not x and z.grad_fn._saved_self.equal(x)
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        raw.register_hooks(lambda t: t, lambda t: t)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="after it has been freed"):
        raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError, match="with value None is forbidden"):
        (x * agk.ones(2)).grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)


def test_unpack_must_give_a_tensor_and_pack_must_not_change_its_input():
    x = agk.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach(), lambda p: 5):
        y = x.sin()
    with pytest.raises(TypeError, match="got result of type int"):
        y.sum().backward()
    with (
        saved_tensors_hooks(lambda t: t.add_(1), lambda p: p),
        pytest.raises(RuntimeError, match="pack hook is modifying its input in place"),
    ):
        (x * 1).sin()


def test_save_on_cpu_keeps_gradients():
    x = agk.tensor([1.0, 2.0], requires_grad=True)
    with save_on_cpu(pin_memory=True):
        y = x.sin() * x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1, 2]) * [1, 2] + np.sin([1, 2]), 1e-6)


def test_inference_tensors_cannot_be_saved_versioned_or_changed_outside_the_mode():
    x = agk.ones(2, requires_grad=True)
    with agk.inference_mode():
        y = x * 2
        assert y.is_inference() and agk.is_inference_mode_enabled()
    assert not x.is_inference() and not y.clone().is_inference()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * y
    with pytest.raises(RuntimeError, match="do not track version counter"):
        _ = y._version
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        y.add_(1)
    assert (x + y).grad_fn.name() == "AddBackward0"  # add saves nothing: allowed


def test_in_place_on_a_view_of_a_view_gives_the_right_gradient():
    x = agk.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    v = y.T[1:][:, :1]  # y[0, 1:] seen through a transpose and two slices
    v.mul_(3)
    assert y.grad_fn.name() == "autogradkit::autograd::CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0" and v.grad_fn._saved_stride == (1, 3)
    (y * y).sum().backward()
    expected = 2 * np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    expected[0, 1:] *= 9  # d/dx (3x)^2 = 18x there
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_describe_lists_what_a_node_saved_and_nothing_once_freed():
    from autogradkit.autograd.saved_fields import describe

    a = agk.tensor([1.0, 2.0], requires_grad=True)
    e = a.exp()  # saves its result
    y = a * 3.0  # saves the number's tensor, not a (no gradient flows to the constant)
    assert [(t, out) for _, t, out in describe(e.grad_fn)] == [(None, True)]
    values = describe(y.grad_fn)
    assert len(values) == 2 and values[0][0] is None and values[1][1] is None
    z = (a * a).sum()
    assert all(t is a and not out for _, t, out in describe(z.grad_fn.next_functions[0][0]))
    z.backward()
    assert describe(z.grad_fn.next_functions[0][0]) is None
    assert describe(z.grad_fn) == []
