"""The checks of notebook 07, the capstone: a small network, trained and evaluated.

Each check runs your answer on inputs it draws itself (layer sizes, networks, points and labels
you have not seen) and reports what it saw. It is compared with what the instructor's solution
gives on the same inputs: here, with the answers recorded for practice; when your notebook is
graded, on inputs drawn fresh for the grading run.
"""

import numpy as np

import autogradkit as agk
from autogradkit import nn
from autogradkit.grading.checks import Checks, refuse_library

check = Checks(__file__)


def _network(obs, sizes):
    """``Linear`` layers from ``sizes[0]`` to ``sizes[-1]`` with ``Tanh`` between them; every
    weight and bias is drawn from ``obs.rng``, so the network is new on every check."""
    layers = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        layer = nn.Linear(n_in, n_out)
        scale = 1.5 / np.sqrt(n_in)
        with agk.no_grad():
            layer.weight.copy_(
                agk.tensor(obs.rng.normal(0, scale, (n_out, n_in)), dtype=agk.float32)
            )
            layer.bias.copy_(agk.tensor(obs.rng.normal(0, scale, n_out), dtype=agk.float32))
        layers += [layer, nn.Tanh()]
    return nn.Sequential(*layers[:-1])


def _points(obs, n: int, n_features: int = 2):
    return agk.tensor(obs.rng.normal(size=(n, n_features)), dtype=agk.float32)


def _labels_it_gets_partly_right(obs, model, x, n_classes: int):
    """The network's own predictions with a random number of them changed: its accuracy is
    different on every draw, and no constant can match it."""
    with agk.no_grad():
        labels = model(x).argmax(dim=1).numpy().copy()
    wrong = obs.rng.choice(len(labels), size=int(obs.rng.integers(1, len(labels))), replace=False)
    labels[wrong] = (labels[wrong] + obs.rng.integers(1, n_classes, size=len(wrong))) % n_classes
    return agk.tensor(labels, dtype=agk.int64)


def _recording_seen(model) -> list:
    """A list that gets, for every call of one of the model's Linear layers, whether the graph
    was being recorded (a forward pre-hook, notebook 06)."""
    seen = []
    for layer in model:
        if isinstance(layer, nn.Linear):
            layer.register_forward_pre_hook(
                lambda module, inputs: seen.append(agk.is_grad_enabled())
            )
    return seen


def _blobs(obs, n: int, n_classes: int):
    """``n`` points, labelled by the side of a random line they fall on (some noise added)."""
    x = obs.rng.normal(size=(n, 2))
    score = x @ obs.rng.normal(size=2) + obs.rng.normal(0, 0.5, size=n)
    labels = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return agk.tensor(x, dtype=agk.float32), agk.tensor(labels, dtype=agk.int64)


def _shape_text(shape) -> str:
    """A predicted shape as it prints, ``(16, 2)``, whether it was written as a tuple, a list
    or ``agk.Size``; anything else as its own text (a prediction that cannot be right)."""
    try:
        numbers = [float(n) for n in shape]
    except (TypeError, ValueError):
        return repr(shape)
    if not all(n.is_integer() for n in numbers):
        return repr(shape)
    return str(tuple(int(n) for n in numbers))


@check.exercise("count_parameters")
def parameter_count(obs, count_parameters):
    """Exercise 1: the number of parameters, from the layer sizes"""
    for depth in (int(obs.rng.integers(2, 4)), 4):
        sizes = [int(n) for n in obs.rng.integers(1, 65, size=depth + 1)]
        with refuse_library(nn.Linear, "__init__", exercise="the count"):
            n_params = obs.call(count_parameters, list(sizes))
        obs.require(
            f"count_parameters({sizes}) is a whole number",
            isinstance(n_params, (int, np.integer)) and not isinstance(n_params, bool),
            hint="return an int",
        )
        obs.equal(
            f"count_parameters({sizes})",
            n_params,
            hint="every pair of neighbouring sizes is one Linear layer: count its weights "
            "and its biases",
        )


@check.exercise("weight_grad_shape", "x_grad_is_none")
def backward_prediction(obs, weight_grad_shape, x_grad_is_none):
    """Exercise 2: what backward fills in"""
    obs.predicted(
        "model[0].weight.grad.shape",
        _shape_text(weight_grad_shape),
        hint="a gradient belongs to one tensor: what shape is that tensor?",
    )
    obs.predicted("X.grad is None", x_grad_is_none, hint="did X ask for a gradient?")


@check.exercise("accuracy")
def accuracy_no_grad(obs, accuracy):
    """Exercise 3: accuracy under no_grad()"""
    for n_classes in (2, 3):
        model = _network(obs, [2, int(obs.rng.integers(4, 9)), n_classes])
        x = _points(obs, int(obs.rng.integers(30, 80)))
        labels = _labels_it_gets_partly_right(obs, model, x, n_classes)
        recording = _recording_seen(model)
        with agk.enable_grad():  # as in a fresh notebook, whatever an earlier cell left
            result = obs.call(accuracy, model, x, labels)
        obs.require(
            f"accuracy of a {n_classes}-class network is a Python float",
            isinstance(result, float),
            hint="turn the one-element tensor into a Python number",
        )
        obs.close(
            f"accuracy of a {n_classes}-class network on new points",
            result,
            hint="a point's predicted class is the one with the highest score; "
            "count the points where it equals the label, then divide",
        )
        obs.equal(
            f"the {n_classes}-class network ran with recording off",
            bool(recording) and not any(recording),
            hint="evaluation needs no graph: switch recording off around the model call",
        )


@check.exercise("train_fixed")
def fixed_training_loop(obs, train_fixed):
    """Exercise 4: the corrected training loop"""
    x, y = _blobs(obs, int(obs.rng.integers(20, 40)), 2)
    model = _network(obs, [2, int(obs.rng.integers(4, 9)), 2])
    lr, epochs = float(obs.rng.uniform(0.1, 0.5)), int(obs.rng.integers(4, 9))
    optimizer = agk.optim.SGD(model.parameters(), lr=lr)
    with agk.enable_grad():  # as in a fresh notebook, whatever an earlier cell left
        losses = obs.call(train_fixed, model, optimizer, x, y, epochs)
    obs.require(
        f"train_fixed returns {epochs} losses, as a list of numbers",
        isinstance(losses, list)
        and len(losses) == epochs
        and all(isinstance(loss, (int, float)) for loss in losses),
        hint="one loss per epoch, each a Python number",
    )
    obs.close(
        "the loss of the first epoch",
        losses[0],
        atol=1e-5,
        hint="compute each epoch's loss from the model, X and y you are given",
    )
    obs.close(
        f"the losses of {epochs} epochs",
        losses,
        atol=1e-5,
        hint="step with the optimizer you are given, when .grad holds this epoch's gradient "
        "and only this epoch's",
    )
    obs.close(
        "the first layer's weight after training",
        model[0].weight,
        atol=1e-5,
        hint="train the model you are given, in place",
    )


