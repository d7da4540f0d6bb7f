"""Checkers for notebook 07, the capstone: a small MLP on the two-moons data."""

from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import is_grad_enabled
from ...creation import tensor
from ...nn import CrossEntropyLoss, Linear, Module, Sequential, Tanh
from ...optim import SGD
from ..checks import check_close, check_true
from ._common import require

LAYER_SIZES = ((2, 16), (16, 16), (16, 2))


def check_n_params(n_params) -> None:
    """Exercise 1: the number of trainable numbers in the notebook's MLP."""
    model = Sequential(*(Linear(i, o) for i, o in LAYER_SIZES))
    total = sum(p.numel() for p in model.parameters())
    check_close(
        "number of parameters",
        n_params,
        total,
        hint="per layer: n_out * n_in weights plus n_out biases",
    )


def check_n_params_type(n_params) -> None:
    """Exercise 1, hidden: a whole number."""
    check_true("n_params is an int", isinstance(n_params, (int, np.integer)))


def check_backward_prediction(weight_grad_shape, x_grad_is_none) -> None:
    """Exercise 2: the shape of model[0].weight.grad, and whether X.grad is None."""
    model = Sequential(Linear(2, 16), Tanh(), Linear(16, 2))
    x = tensor(np.random.default_rng(0).normal(size=(5, 2)).astype(np.float32))
    CrossEntropyLoss()(model(x), tensor([0, 1, 0, 1, 1])).backward()
    check_true(
        "shape of model[0].weight.grad",
        tuple(weight_grad_shape) == tuple(model[0].weight.grad.shape),
        hint="a gradient has the shape of its tensor: what shape is the weight?",
    )
    check_true("X.grad", bool(x_grad_is_none) == (x.grad is None), hint="does X require grad?")


def check_backward_prediction_types(weight_grad_shape, x_grad_is_none) -> None:
    """Exercise 2, hidden: a tuple and a bool."""
    check_true(
        "a tuple and a bool",
        isinstance(weight_grad_shape, tuple) and isinstance(x_grad_is_none, (bool, np.bool_)),
    )


class _Fixed(Module):
    """A model with known scores: class 1 wins exactly where the first feature is positive.
    It also remembers whether it was called with recording switched on."""

    def __init__(self):
        super().__init__()
        self.grad_mode_seen = []

    def forward(self, x):
        self.grad_mode_seen.append(is_grad_enabled())
        return x[:, :2] * tensor([-1.0, 1.0])


def check_accuracy(accuracy) -> None:
    """Exercise 3: a model whose accuracy is known (5 of 8 right)."""
    x = tensor(
        [
            [1.0, 0.0],
            [2.0, 0.0],
            [-1.0, 0.0],
            [-3.0, 0.0],
            [0.5, 0.0],
            [-0.5, 0.0],
            [4.0, 0.0],
            [-2.0, 0.0],
        ]
    )
    labels = tensor([1, 1, 0, 1, 0, 0, 1, 1])
    result = accuracy(_Fixed(), x, labels)
    require("accuracy", isinstance(result, float), hint="return a Python float (.item())")
    check_close(
        "accuracy", result, 5 / 8, hint="compare argmax(dim=1) with the labels, then average"
    )
    _check_accuracy_on_fresh_data(accuracy)


def _check_accuracy_on_fresh_data(accuracy) -> None:
    """New random points and labels at every check, so no typed-in number can pass."""
    rng = np.random.default_rng()  # seeded by the OS: different on every run
    n = int(rng.integers(20, 40))
    x = tensor(rng.normal(size=(n, 2)).astype(np.float32))
    labels = tensor(rng.integers(0, 2, size=n))
    scores = x.numpy() * np.array([-1.0, 1.0])  # _Fixed's outputs, computed here in NumPy
    expected = float(np.mean(scores.argmax(axis=1) == labels.numpy()))
    check_close(
        "accuracy on fresh random data",
        accuracy(_Fixed(), x, labels),
        expected,
        hint="compute it from the model's outputs and the labels you are given",
    )


def check_accuracy_no_graph(accuracy) -> None:
    """Exercise 3, hidden: the model runs with recording switched off."""
    model = _Fixed()
    x = tensor([[1.0, 0.0], [-1.0, 0.0]], requires_grad=True)
    accuracy(model, x, tensor([1, 0]))
    check_true(
        "evaluated under no_grad()",
        model.grad_mode_seen == [False],
        hint="call the model inside agk.no_grad()",
    )


def _reference_losses(make_model, X, y, epochs: int, **sgd) -> list[float]:
    model = make_model()
    optimizer = SGD(model.parameters(), **sgd)
    losses = []
    for _ in range(epochs):
        loss = CrossEntropyLoss()(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def _check_training(task: str, train_fixed, make_model, X, y, epochs: int, **sgd) -> None:
    model = make_model()
    losses = train_fixed(model, SGD(model.parameters(), **sgd), epochs)
    require(
        task,
        isinstance(losses, list) and len(losses) == epochs,
        hint="return one loss per epoch, as a list",
    )
    check_close(
        task,
        losses,
        _reference_losses(make_model, X, y, epochs, **sgd),
        rtol=1e-3,
        hint="zero the old gradients before backward(), and step after it",
    )


def check_train_fixed(train_fixed, make_model, X, y) -> None:
    """Exercise 4: ten epochs of SGD give the reference losses."""
    _check_training("train_fixed with SGD", train_fixed, make_model, X, y, 10, lr=0.1)


def check_train_fixed_momentum(train_fixed, make_model, X, y) -> None:
    """Exercise 4, hidden: with momentum, stale gradients would show even more."""
    _check_training(
        "train_fixed with momentum", train_fixed, make_model, X, y, 12, lr=0.05, momentum=0.9
    )
