"""Checkers for notebook 04: in-place operations, the version counter, .data and .detach()."""

from __future__ import annotations

import numpy as np

from ...creation import tensor, zeros
from ...tensor import Tensor
from ..checks import check_close, check_gradients, check_shapes, check_true
from ._common import require


def check_init_weights(init_weights) -> None:
    """Exercise 1: a (4,) leaf filled with 0.25 that requires grad."""
    w = init_weights()
    require("init_weights", isinstance(w, Tensor), hint="return the tensor w")
    check_shapes("shape of w", w, (4,))
    check_close("values of w", w.detach(), np.full(4, 0.25))
    check_true(
        "w is a leaf that requires grad, with no grad_fn",
        w.is_leaf and w.requires_grad and w.grad_fn is None,
        hint="change the values inside agk.no_grad() instead of rebuilding w",
    )


def check_init_weights_trainable(init_weights) -> None:
    """Exercise 1, hidden: backward reaches the returned tensor, and each call is independent."""
    w, other = init_weights(), init_weights()
    require("init_weights", w is not other, hint="create a new tensor on every call")
    (w * w).sum().backward()
    check_gradients("w receives its gradient", {"w": w}, {"w": np.full(4, 0.5)})


def _version_story() -> Tensor:
    t = zeros(3)
    t.add_(1)
    t.mul_(2)
    t.detach().add_(1)
    t.data.add_(1)
    return t


def check_predicted_version(predicted_values, predicted_version) -> None:
    """Exercise 2: values and version of t after add_, mul_, detach().add_, data.add_."""
    t = _version_story()
    check_close(
        "values of t", predicted_values, t, hint="all four operations write into the same storage"
    )
    check_true(
        "t._version",
        predicted_version == t._version,
        hint="which of the four operations share t's version counter?",
    )


def check_predicted_version_type(predicted_version) -> None:
    """Exercise 2, hidden: a version is a whole number."""
    check_true("the version is an int", isinstance(predicted_version, (int, np.integer)))


def _snippets() -> dict[str, object]:
    def a(x):
        y = x * 2
        z = y.sum()
        y.add_(1)
        z.backward()

    def b(x):
        y = x.exp()
        z = y.sum()
        y.add_(1)
        z.backward()

    def c(x):
        y = x.sigmoid()
        z = (y * 3).sum()
        y.detach().zero_()
        z.backward()

    def d(x):
        y = x.sigmoid()
        z = (y * 3).sum()
        y.data.zero_()
        z.backward()

    return {"a": a, "b": b, "c": c, "d": d}


def _raises(snippet) -> bool:
    try:
        snippet(tensor([1.0, 2.0], requires_grad=True))
    except RuntimeError as error:
        return "modified by an inplace operation" in str(error)
    return False


def check_which_raise(raises) -> None:
    """Exercise 3: which snippets hit the version-counter error."""
    require("raises", isinstance(raises, dict), hint='a dict like {"a": True, ...}')
    truth = {key: _raises(snippet) for key, snippet in _snippets().items()}
    wrong = sum(bool(raises.get(key)) != value for key, value in truth.items())
    check_true(
        "which snippets raise",
        wrong == 0,
        hint=f"{wrong} of 4 predictions are wrong: for each, ask which tensors were "
        "saved for backward and whose version counter changed",
    )


def check_which_raise_keys(raises) -> None:
    """Exercise 3, hidden: exactly the four keys, with bool values."""
    check_true(
        "keys a-d with True/False values",
        sorted(raises) == ["a", "b", "c", "d"]
        and all(isinstance(v, (bool, np.bool_)) for v in raises.values()),
    )


def check_sgd_step(sgd_step) -> None:
    """Exercise 4: one step on sum(w ** 2) from (1, -2) with lr = 0.1."""
    w = tensor([1.0, -2.0], requires_grad=True)
    (w**2).sum().backward()
    version = w._version
    result = sgd_step(w, 0.1)
    require("sgd_step", result is None, hint="update w in place and return nothing")
    check_close("w after one step", w.detach(), [0.8, -1.6], hint="w - lr * w.grad")
    check_true(
        "autograd saw the update (w._version went up)",
        w._version > version,
        hint="a change made through .data is hidden from the version counter: update w "
        "itself, in place, with recording switched off",
    )
    check_true(
        "w is still a leaf that requires grad",
        w.is_leaf and w.requires_grad and w.grad_fn is None,
        hint="update inside agk.no_grad()",
    )
    check_true("w.grad is None afterwards", w.grad is None, hint="set w.grad = None")


def check_sgd_step_trains(sgd_step) -> None:
    """Exercise 4, hidden: repeated steps minimise a quadratic (gradients do not pile up)."""
    target = np.array([0.5, -1.5, 2.0], dtype=np.float32)
    w = zeros(3, requires_grad=True)
    for _ in range(60):
        ((w - tensor(target)) ** 2).sum().backward()
        sgd_step(w, 0.1)
    check_close("60 steps reach the minimum", w.detach(), target, atol=1e-3)
