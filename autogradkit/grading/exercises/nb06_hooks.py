"""Checkers for notebook 06: tensor hooks and module hooks."""

from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import no_grad
from ...creation import tensor
from ...nn import Linear, Module
from ...tensor import Tensor
from ..checks import check_close, check_shapes, check_true
from ._common import require


def check_predicted_hooks(printed_by_a, final_x_grad) -> None:
    """Exercise 1: a print hook, then a hook that multiplies by 10, on y = 3x."""
    x = tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 3
    seen = []
    y.register_hook(lambda grad: seen.append(grad.clone()))
    y.register_hook(lambda grad: grad * 10)
    y.sum().backward()
    check_close(
        "what hook A prints", printed_by_a, seen[0], hint="hook A runs first: what is d(sum)/dy?"
    )
    check_close(
        "x.grad", final_x_grad, x.grad, hint="hook B's result flows on to x, through y = 3x"
    )


def check_predicted_hooks_shapes(printed_by_a, final_x_grad) -> None:
    """Exercise 1, hidden: one number per element of x."""
    check_shapes("three numbers each", np.asarray([printed_by_a, final_x_grad]), (2, 3))


def _check_captured(task: str, captured, expected: dict) -> None:
    require(
        task,
        isinstance(captured, dict) and set(captured) == set(expected),
        hint="return a dict with one entry per name",
    )
    for name, want in expected.items():
        check_close(
            f"{task}: {name}",
            captured[name],
            want,
            hint="store grad.clone() in the hook and return None",
        )


def check_capture_grads(capture_grads) -> None:
    """Exercise 2: the mean example, y.grad = (0.5, 0.5) and z.grad = 1."""
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.mean()
    _check_captured("mean example", capture_grads({"y": y, "z": z}, z), {"y": [0.5, 0.5], "z": 1.0})
    check_close("x.grad is unchanged by your hooks", x.grad, [1.0, 1.0])


def check_capture_grads_other_graph(capture_grads) -> None:
    """Exercise 2, hidden: a longer chain with a reused intermediate."""
    x = tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x.tanh()
    u = h * h
    loss = (u * tensor([1.0, 2.0, 3.0])).sum()
    hn = np.tanh(np.array([0.5, -1.0, 2.0]))
    expected = {"u": [1.0, 2.0, 3.0], "h": 2 * hn * np.array([1.0, 2.0, 3.0])}
    _check_captured("tanh chain", capture_grads({"h": h, "u": u}, loss), expected)
    check_close("x.grad is unchanged by your hooks", x.grad, expected["h"] * (1 - hn**2), rtol=1e-4)


class _Quarter(Module):
    def forward(self, input):
        return input / 4


def _reference_net() -> tuple[Linear, Module]:
    linear = Linear(4, 1)
    with no_grad():
        linear.weight.fill_(8.0)
        linear.bias.fill_(2.0)
    return linear, _Quarter()


def check_input_grad(inp, input_grad) -> None:
    """Exercise 3: a float32 leaf input and its gradient (w / 4 = 2 everywhere)."""
    require("inp", isinstance(inp, Tensor), hint="inp should be a tensor")
    check_close("the values of inp", inp.detach(), [1.0, 2.0, 3.0, 4.0])
    check_true(
        "input_grad comes from backward()",
        input_grad is not None and input_grad is inp.grad,
        hint="run the net on inp, call backward(), and read the gradient left on inp",
    )
    x = tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    linear, quarter = _reference_net()
    quarter(linear(x)).sum().backward()
    check_close(
        "input_grad",
        input_grad,
        x.grad,
        hint="the gradient lands in the leaf: make inp itself the leaf",
    )


def check_input_is_float32_leaf(inp) -> None:
    """Exercise 3, hidden: a float32 leaf that requires grad."""
    check_true(
        "inp is a float32 leaf that requires grad",
        inp.is_leaf and inp.requires_grad and str(inp.dtype) == "autogradkit.float32",
    )


def check_linear_by_hand(result_by_hand, weight_grad_by_hand, bias_grad_by_hand) -> None:
    """Exercise 4: Linear (w = 8, b = 2) then / 4, on the input (2, 0, 1, 1)."""
    linear, quarter = _reference_net()
    out = quarter(linear(tensor([2.0, 0.0, 1.0, 1.0])))
    out.sum().backward()
    check_close("result", result_by_hand, out.detach().sum(), hint="(w · x + b) / 4")
    check_close(
        "weight gradient",
        np.ravel(weight_grad_by_hand),
        linear.weight.grad.reshape(-1),
        hint="d result / d w_i = x_i / 4",
    )
    check_close(
        "bias gradient", bias_grad_by_hand, linear.bias.grad.sum(), hint="d result / d b = 1 / 4"
    )


def check_linear_by_hand_shapes(weight_grad_by_hand) -> None:
    """Exercise 4, hidden: one weight gradient per input."""
    check_true("four weight gradients", np.size(weight_grad_by_hand) == 4)
