"""gradcheck / gradgradcheck (PyTorch's signature and messages) and autograd.functional."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd import Function, GradcheckError, gradcheck, gradgradcheck
from autogradkit.autograd import functional as AF


def _t(values, grad=True):
    return agk.tensor(values, dtype=agk.float64, requires_grad=grad)


class WrongSquare(Function):
    """x**2 with a deliberately wrong backward (3x instead of 2x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * g


class WrongSecond(Function):
    """x**3 whose backward is right but not differentiable (detached x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x.detach() ** 2 * g


def test_gradcheck_passes_for_correct_gradients():
    x, y = _t([1.0, 2.0]), _t([3.0, -4.0])
    assert gradcheck(lambda a, b: (a * b).exp().sum(), (x, y))
    assert gradcheck(lambda a, k: a * k, (x, 3))  # non-tensor arguments are passed through


def test_gradcheck_message_has_both_jacobians_like_pytorch():
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongSquare.apply, (_t([1.0, 2.0]),))
    assert str(info.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 4.0000]], "
        "dtype=autogradkit.float64)\n"
        "analytical:tensor([[3., 0.],\n        [0., 6.]], dtype=autogradkit.float64)\n"
    )
    assert isinstance(info.value, RuntimeError)
    assert gradcheck(WrongSquare.apply, (_t([1.0, 2.0]),), raise_exception=False) is False


def test_gradcheck_names_the_input_that_fails():
    class WrongSecondInput(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * 2

    with pytest.raises(
        GradcheckError, match="Jacobian mismatch for output 0 with respect to input 1,"
    ):
        gradcheck(WrongSecondInput.apply, (_t([1.0, 2.0]), _t([3.0, 5.0])))


def test_gradcheck_rows_are_inputs_and_columns_outputs():
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda a: WrongSquare.apply(a).sum() + a[0] * 0, (_t([1.0, 2.0]),))
    assert "numerical:tensor([[2.0000],\n        [4.0000]]" in str(info.value)


def test_gradcheck_input_checks():
    with pytest.raises(
        ValueError,
        match="gradcheck expects at least one input tensor to "
        "require gradient, but none of them have requires_grad=True.",
    ):
        gradcheck(lambda a: a * 2, (_t([1.0], grad=False),))
    with pytest.warns(
        UserWarning,
        match="Input #0 requires gradient and is not a double precision floating point or complex.",
    ):
        gradcheck(
            lambda a: a * 2, (agk.tensor([1.0, 2.0], requires_grad=True),), raise_exception=False
        )


def test_gradcheck_catches_a_detached_output():
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: (a * 2).detach(), (_t([1.0, 2.0]),))


def test_gradcheck_restores_the_inputs():
    x = _t([1.0, 2.0])
    gradcheck(lambda a: a.sin(), (x,))
    assert x.tolist() == [1.0, 2.0] and x._version == 0


def test_gradgradcheck_passes_and_catches_a_non_differentiable_backward():
    x = _t([1.0, 2.0])
    assert gradgradcheck(lambda a: a**3, (x,))
    assert gradgradcheck(lambda a: (a.tanh() * a).sum(), (x,))
    with pytest.raises(
        GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        gradgradcheck(WrongSecond.apply, (x,))
    assert gradcheck(WrongSecond.apply, (x,))  # first derivatives are right


def test_gradgradcheck_with_given_grad_outputs():
    x = _t([0.5, -1.0])
    v = _t([1.0, 2.0])
    assert gradgradcheck(lambda a: a.exp(), (x,), (v,))


# ----- autograd.functional ----------------------------------------------------------------------
def test_jacobian_single_and_tuples():
    x = _t([1.0, 3.0], grad=False)
    np.testing.assert_allclose(AF.jacobian(lambda a: a**2, x).numpy(), np.diag([2.0, 6.0]))
    y = _t([2.0], grad=False)
    jac = AF.jacobian(lambda a, b: (a * b, a.sum()), (x, y))
    assert len(jac) == 2 and len(jac[0]) == 2
    np.testing.assert_allclose(jac[0][0].numpy(), np.diag([2.0, 2.0]))
    np.testing.assert_allclose(jac[0][1].numpy(), [[1.0], [3.0]])
    np.testing.assert_allclose(jac[1][0].numpy(), [1.0, 1.0])
    np.testing.assert_allclose(jac[1][1].numpy(), [0.0])
    assert not jac[0][0].requires_grad


def test_jacobian_of_a_matrix_function_has_output_then_input_dims():
    w = _t(np.arange(6.0).reshape(2, 3), grad=False)
    x = _t([1.0, 2.0, 3.0], grad=False)
    jac = AF.jacobian(lambda v: w @ v, x)
    assert jac.shape == (2, 3)
    np.testing.assert_allclose(jac.numpy(), w.numpy())


def test_jacobian_strict_and_type_errors():
    with pytest.raises(
        RuntimeError, match="Output 0 of the user-provided function does not require gradients."
    ):
        AF.jacobian(lambda a: agk.ones(2), _t([1.0]), strict=True)
    with pytest.raises(
        TypeError,
        match="The inputs given to jacobian must be either a Tensor "
        "or a tuple of Tensors but the value at index 0 has type",
    ):
        AF.jacobian(lambda a: a, [1.0])


def test_jacobian_with_create_graph_can_be_differentiated():
    x = _t([2.0])
    jac = AF.jacobian(lambda a: a**3, x, create_graph=True)
    (second,) = agk.autograd.grad(jac.sum(), x)
    np.testing.assert_allclose(second.numpy(), [12.0])


def test_hessian():
    x = _t([1.0, 2.0], grad=False)
    h = AF.hessian(lambda a: (a**3).sum() + a[0] * a[1], x)
    np.testing.assert_allclose(h.numpy(), [[6.0, 1.0], [1.0, 12.0]])
    with pytest.raises(
        RuntimeError,
        match="The Tensor returned by the function given to "
        "hessian should contain a single element",
    ):
        AF.hessian(lambda a: a**2, x)


def test_vjp_jvp_hvp_against_explicit_jacobians():
    rng = np.random.default_rng(0)
    x = _t(rng.normal(size=3), grad=False)
    u, v = _t(rng.normal(size=3), grad=False), _t(rng.normal(size=3), grad=False)

    def f(a):
        return a.sin() * a.sum()

    jac = AF.jacobian(f, x).numpy()
    out, vjp = AF.vjp(f, x, u)
    np.testing.assert_allclose(out.numpy(), f(x).numpy())
    np.testing.assert_allclose(vjp.numpy(), u.numpy() @ jac)
    _, jvp = AF.jvp(f, x, v)
    np.testing.assert_allclose(jvp.numpy(), jac @ v.numpy())

    def g(a):
        return (a.exp() * a).sum()

    hess = AF.hessian(g, x).numpy()
    value, hvp = AF.hvp(g, x, v)
    np.testing.assert_allclose(value.numpy(), g(x).numpy())
    np.testing.assert_allclose(hvp.numpy(), hess @ v.numpy())


def test_v_checks():
    x = _t([1.0, 2.0], grad=False)
    with pytest.raises(
        RuntimeError,
        match="The vector v can only be None if the user-provided "
        "function returns a single Tensor with a single element.",
    ):
        AF.vjp(lambda a: a * 2, x)
    with pytest.raises(
        RuntimeError,
        match=r"v has invalid size: should be "
        r"autogradkit.Size\(\[2\]\) but got autogradkit.Size\(\[3\]\).",
    ):
        AF.jvp(lambda a: a * 2, x, _t([1.0, 2.0, 3.0], grad=False))
    out, grad = AF.vjp(lambda a: (a**2).sum(), x)
    assert out.item() == 5.0 and grad.tolist() == [2.0, 4.0]


def test_fast_mode_passes_right_gradients_and_catches_a_wrong_one_in_any_output():
    x, w = _t([1.0, -2.0, 0.5]), _t([[0.3, 1.0, -1.0], [2.0, 0.1, 0.7]])
    assert gradcheck(lambda a, m: ((m @ a).sin(), a.exp() * 2), (x, w), fast_mode=True)
    assert not gradcheck(
        lambda a, m: (m @ a, WrongSquare.apply(a)), (x, w), fast_mode=True, raise_exception=False
    )
    with pytest.raises(GradcheckError, match="computed \nin fast mode") as caught:
        gradcheck(lambda a: WrongSquare.apply(a), (x,), fast_mode=True)
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(caught.value)
    assert "The max per-element difference (slow mode) is: " in str(caught.value)


@pytest.mark.parametrize("option", ["check_forward_ad", "check_batched_grad", "masked"])
def test_checks_of_features_autogradkit_lacks_are_refused_not_skipped(option):
    with pytest.raises(NotImplementedError, match=option):
        gradcheck(lambda a: a * 2, (_t([1.0]),), **{option: True})
