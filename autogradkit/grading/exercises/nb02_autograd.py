"""Checkers for notebook 02: what autograd does (requires_grad, leaves, accumulation, no_grad)."""

from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import no_grad
from ...creation import tensor
from ...nn import MSELoss
from ...optim import SGD
from ...tensor import Tensor
from ..checks import check_close, check_true, count_calls
from ._common import require

X = (2.0, 4.0, 6.0, 8.0)
Y = (4.0, 8.0, 12.0, 16.0)


def check_predicted_reuse(predicted_a_grad, predicted_b_grad) -> None:
    """Exercise 1: f = (a + b) * a with a = 2 (tracked) and b = 3 (not tracked)."""
    a, b = tensor(2.0, requires_grad=True), tensor(3.0)
    ((a + b) * a).backward()
    require("a.grad", predicted_a_grad is not None, hint="a requires grad, so it gets a number")
    check_close(
        "a.grad",
        predicted_a_grad,
        a.grad,
        hint="a appears twice: add the gradients along both paths",
    )
    check_true("b.grad", predicted_b_grad is b.grad, hint="does b ask for a gradient?")


def check_predicted_reuse_types(predicted_a_grad, predicted_b_grad) -> None:
    """Exercise 1, hidden: a plain number for a."""
    check_true("a.grad is a number", np.ndim(predicted_a_grad) == 0)


def _reference_w(epochs: int) -> float:
    x, y = tensor(X), tensor(Y)
    w = tensor(0.0, requires_grad=True)
    optimizer = SGD([w], lr=0.01)
    for _ in range(epochs):
        MSELoss()(w * x, y).backward()
        optimizer.step()
        optimizer.zero_grad()
    return w.item()


def _check_train(train_fixed, epochs: int) -> None:
    task = f"train_fixed({epochs})"
    w = train_fixed(epochs)
    require(
        task,
        isinstance(w, Tensor) and w.is_leaf and w.requires_grad,
        hint="return the leaf w itself",
    )
    check_close(
        task,
        w.detach(),
        _reference_w(epochs),
        atol=1e-4,
        hint="what happens to w.grad between two epochs?",
    )


def check_train_fixed(train_fixed) -> None:
    """Exercise 2: one epoch and ten epochs."""
    _check_train(train_fixed, 1)
    _check_train(train_fixed, 10)


def check_train_fixed_any_epochs(train_fixed) -> None:
    """Exercise 2, hidden: other lengths of training."""
    _check_train(train_fixed, 3)
    _check_train(train_fixed, 25)


def _full_grad(x, y, w_value: float) -> Tensor:
    w = tensor(w_value, requires_grad=True)
    MSELoss()(w * x, y).backward()
    return w.grad


def _check_accumulated(task: str, accumulated_grad, x, y, w_value: float, batch_size: int) -> None:
    with count_calls(Tensor, "backward") as backward_calls:
        got = accumulated_grad(x, y, w_value, batch_size=batch_size)
    pieces = len(x) // batch_size
    require(
        task,
        len(backward_calls) == pieces,
        hint=f"call backward() once per piece ({pieces} here) and let the gradients add up",
    )
    check_close(
        task,
        got,
        _full_grad(x, y, w_value),
        rtol=1e-4,
        atol=1e-4,
        hint="divide each piece's loss by the number of pieces, and do not zero "
        "the gradient between pieces",
    )


def check_accumulated_grad(accumulated_grad) -> None:
    """Exercise 3: the notebook's data with pieces of 1, 2 and 4 examples."""
    x, y = tensor(X), tensor(Y)
    for size in (1, 2, 4):
        _check_accumulated(f"pieces of {size}", accumulated_grad, x, y, 0.0, size)


def check_accumulated_grad_other_data(accumulated_grad) -> None:
    """Exercise 3, hidden: six random examples, another w, pieces of 2 and 3."""
    rng = np.random.default_rng(11)
    x = tensor(rng.normal(size=6).astype(np.float32))
    y = tensor(rng.normal(size=6).astype(np.float32))
    for size in (2, 3):
        _check_accumulated(f"other data, pieces of {size}", accumulated_grad, x, y, 0.7, size)


def _tracked() -> dict[str, bool]:
    x = tensor(3.0, requires_grad=True)
    result = {"a": (x.detach() * 2).requires_grad}
    with no_grad():
        z = x * 2
    result["b"] = z.requires_grad
    result["c"] = (z * x).requires_grad
    x.requires_grad_(False)
    result["d"] = (x * 2).requires_grad
    return result


def check_tracked(tracked) -> None:
    """Exercise 4: four results, tracked or not."""
    require("tracked", isinstance(tracked, dict), hint='a dict like {"a": True, ...}')
    truth = _tracked()
    wrong = sum(bool(tracked.get(key)) != value for key, value in truth.items())
    check_true(
        "tracked or not",
        wrong == 0,
        hint=f"{wrong} of 4 predictions are wrong: is any input that requires grad "
        "taking part while recording is on?",
    )


def check_tracked_keys(tracked) -> None:
    """Exercise 4, hidden: exactly the four keys, with bool values."""
    check_true(
        "keys a-d with True/False values",
        sorted(tracked) == ["a", "b", "c", "d"]
        and all(isinstance(v, (bool, np.bool_)) for v in tracked.values()),
    )
