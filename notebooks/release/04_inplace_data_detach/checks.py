"""The checks of notebook 04: in-place operations, the version counter, .data and .detach().

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import warnings

import numpy as np

import autogradkit as agk
from autogradkit import nn
from autogradkit.grading.checks import Checks, backward_passes

check = Checks(__file__)

SAVED_CHANGED = "modified by an inplace operation"  # backward's version-counter error


def _still_a_parameter(w) -> bool:
    return w.is_leaf and w.requires_grad and w.grad_fn is None


# ----- exercise 1: initialise a leaf in place -------------------------------------------------
# init_weights runs, with the trial around it, where nn (nn.init is what it rebuilds) was never
# imported (obs.without): the library's init is not there to call, by any route
def _filling(init_weights):
    """A trial of ``init_weights`` on a fresh leaf: what a caller can see afterwards, as plain
    data."""

    def fill(values, value):
        w = agk.tensor(values, requires_grad=True)
        version = w._version
        returned = init_weights(w, value)
        seen = {"itself": returned is w, "w": w.detach().numpy()}
        return seen | {"parameter": _still_a_parameter(w), "version_moved": w._version > version}

    return fill


@check.exercise("init_weights")
def init_in_place(obs, init_weights):
    """Exercise 1: fill a leaf in place, keeping it a leaf"""
    shapes = [(int(obs.rng.integers(2, 7)),), (int(obs.rng.integers(2, 4)), 3)]
    fill = obs.without(init_weights, "autogradkit.nn", around=_filling)  # no function of nn
    for shape in shapes:
        values = obs.rng.normal(size=shape).round(2).astype(np.float32)
        value = round(float(obs.rng.uniform(-1.0, 1.0)), 3) + 0.0
        seen = obs.call(fill, values, value)
        about = f"w of shape {shape}"
        obs.require(
            f"{about}: init_weights returns w itself",
            seen["itself"],
            hint="change w in place and return it; a new tensor is not the caller's parameter",
        )
        obs.close(f"{about}: its values", seen["w"], hint="every entry of w holds the value")
        obs.require(
            f"{about}: still a leaf that requires grad, with no grad_fn",
            seen["parameter"],
            hint="change w's values with recording switched off",
        )
        obs.require(
            f"{about}: autograd saw the change (w._version went up)",
            seen["version_moved"],
            hint="change w itself, in place: a change autograd cannot see is a trap (section 3)",
        )


# ----- exercise 2: predict the version counter ----------------------------------------------
@check.exercise("predicted_values", "predicted_version")
def version_prediction(obs, predicted_values, predicted_version):
    """Exercise 2: the values and the version of t"""
    obs.predicted(
        "the values of t", predicted_values, hint="all four operations write into one storage"
    )
    obs.predicted(
        "t._version",
        predicted_version,
        hint="which of the four operations share t's version counter?",
    )


# ----- exercise 3: which of these raise? ----------------------------------------------------
@check.exercise("raises")
def which_raise(obs, raises):
    """Exercise 3: which snippets raise"""
    obs.require("raises is a dict", isinstance(raises, dict), hint='{"a": True, ...}')
    for key, hint in (
        ("a", "which tensor does exp save: its input y, or its output?"),
        ("b", "what does y * y save for its backward?"),
        ("c", "does a change through detach() reach y's version counter?"),
        ("d", "does a change through .data reach y's version counter?"),
    ):
        obs.predicted(f'raises["{key}"]', raises.get(key), hint=hint)


# ----- exercise 4: an update step that autograd can see ----------------------------------------
# The step runs, with the trial around it, where the library's optimizers were never imported
# (obs.without): they are not there to call, by any route, and what comes back is data
OPTIMIZERS = "autogradkit.optim"


def _stepping(sgd_step):
    """A trial of one ``sgd_step`` after a backward pass through a graph that saved ``w`` (used
    twice): what a caller can see afterwards, as plain data."""

    def step_once(values, x_values, lr):
        w, x = agk.tensor(values, requires_grad=True), agk.tensor(x_values)
        loss = (w * x).sum() ** 2 + (w * w).sum()
        loss.backward(retain_graph=True)
        version = w._version
        returned = sgd_step(w, lr)
        seen = {"returned": returned is None, "w": w.detach().numpy()}
        seen.update(parameter=_still_a_parameter(w), version_moved=w._version > version)
        seen["grad_cleared"] = w.grad is None
        try:
            loss.backward()  # through the old graph, which saved w before the step
            seen["caught"] = False
        except RuntimeError as error:
            seen["caught"] = SAVED_CHANGED in str(error)
        return seen

    return step_once


@check.exercise("sgd_step")
def step_in_place(obs, sgd_step):
    """Exercise 4: an update step that keeps the leaf"""
    size = int(obs.rng.integers(2, 6))
    lr = round(float(obs.rng.uniform(0.01, 0.2)), 3)
    values = obs.rng.normal(size=size).round(2).astype(np.float32)
    x_values = obs.rng.normal(size=size).astype(np.float32)
    step = obs.without(sgd_step, OPTIMIZERS, around=_stepping)  # no optimizer of the library
    seen = obs.call(step, values, x_values, lr)
    obs.require(
        "sgd_step returns nothing", seen["returned"], hint="update w in place; return nothing"
    )
    obs.close(f"w after one step with lr = {lr:g}", seen["w"], atol=1e-5, hint="w - lr * w.grad")
    obs.require(
        "w is still a leaf that requires grad, with no grad_fn",
        seen["parameter"],
        hint="update w with recording switched off",
    )
    obs.require(
        "autograd saw the update (w._version went up)",
        seen["version_moved"],
        hint="a change made through .data is hidden from the version counter: update w itself, "
        "in place, with recording switched off",
    )
    obs.equal(
        "backward through the graph recorded before the step raises",
        seen["caught"],
        hint="that graph saved the old w: autograd must be able to tell that w changed",
    )
    obs.require(
        "w.grad is None after the step", seen["grad_cleared"], hint="forget the used gradient"
    )


# ----- exercise 5: a target that stays put ---------------------------------------------------
def _network(obs, n_in: int):
    """Linear, Tanh, Linear, with weights drawn from ``obs.rng``."""
    hidden, n_out = int(obs.rng.integers(3, 7)), int(obs.rng.integers(1, 3))
    model = nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, n_out))
    with agk.no_grad():
        for param in model.parameters():
            param.copy_(agk.tensor(obs.rng.normal(0.0, 0.8, size=param.shape)))
    return model


@check.exercise("consistency_loss")
def stopped_target(obs, consistency_loss):
    """Exercise 5: the target stays put"""
    n_in = int(obs.rng.integers(2, 5))
    model = _network(obs, n_in)
    shape = (int(obs.rng.integers(3, 7)), n_in)
    x = agk.tensor(obs.rng.normal(size=shape), dtype=agk.float32, requires_grad=True)
    noise = agk.tensor(obs.rng.normal(0.0, 0.3, size=shape), dtype=agk.float32)
    loss = obs.call(consistency_loss, model, x, noise)
    obs.require(
        "consistency_loss returns a loss that backward() can start from",
        isinstance(loss, agk.Tensor) and loss.numel() == 1 and loss.grad_fn is not None,
        hint="one number, computed with the prediction on x + noise still recorded",
    )
    obs.close("the loss", loss, atol=1e-5, hint="the mean of the squared differences")
    obs.call(loss.backward)
    for name, param in model.named_parameters():
        obs.close(
            f"the gradient of {name}",
            param.grad,
            atol=1e-5,
            hint="the target must not move: cut it out of the graph",
        )
    obs.close("the gradient of x", x.grad, atol=1e-5, hint="x reaches the loss along two paths")


# ----- exercise 6: which operation made the nan? ---------------------------------------------
# Each guard computes both branches, so a value outside the guard makes the unused branch nan
# (or -inf) and its backward a nan: (what it computes, the node that returns the nan, a bad value)
GUARDS = (
    (lambda v: agk.where(v > 0, v.sqrt(), 0.0), "SqrtBackward0", -1.0),
    (lambda v: agk.where(v > 0, v.log(), 0.0), "LogBackward0", 0.0),
    (lambda v: agk.where(v != 0, v.sin() / v, 1.0), "DivBackward0", 0.0),
    (lambda v: agk.where(v > 0, v**0.5, 0.0), "PowBackward0", -2.0),
)


def _loss_with_guards(obs, first, second, k):
    """A loss with two guarded operations on two parts of the input, mixed with harmless ones."""
    weights = agk.tensor(obs.rng.uniform(0.5, 2.0, size=k), dtype=agk.float32)

    def loss_fn(x):
        a, b = x[:k], x[k:]
        return (GUARDS[first][0](a) * weights).sum() + GUARDS[second][0](b * 2.0).tanh().sum()

    return loss_fn


def _losses(obs) -> list:
    """Three losses and their inputs, ``(loss_fn, x)``: a bad value under the first guard,
    under the second, or none, in a random order. Drawn here, so that which is which lives in
    no frame the answer runs under (what the answer gets is all that the check keeps)."""
    losses = []
    for bad in obs.rng.permutation(["first", "second", "none"]):
        first, second = (int(i) for i in obs.rng.choice(len(GUARDS), size=2, replace=False))
        k, n = int(obs.rng.integers(2, 5)), int(obs.rng.integers(2, 5))
        values = obs.rng.uniform(0.5, 3.0, size=k + n)
        if bad != "none":
            guard, where = (first, 0) if bad == "first" else (second, k)
            values[where + int(obs.rng.integers(k if bad == "first" else n))] = GUARDS[guard][2]
        x = agk.tensor(values, dtype=agk.float32, requires_grad=True)
        losses.append((_loss_with_guards(obs, first, second, k), x))
    return losses


@check.exercise("nan_origin")
def nan_found(obs, nan_origin):
    """Exercise 6: the node that made the nan"""
    for draw, (loss_fn, x) in enumerate(_losses(obs), start=1):
        # the nan is made by a backward pass: a name read off the loss function (its code, its
        # closure, its globals) without running one is a guess, however right
        with warnings.catch_warnings(), backward_passes(x=x) as passes:
            warnings.simplefilter("ignore")  # the anomaly warnings: tracebacks into the check
            found = obs.call(nan_origin, loss_fn, x)
        obs.equal(
            f"a backward pass ran from loss_fn(x) back to x (loss {draw} of 3)",
            any("x" in reached for reached in passes),
            hint="the nan is made by the backward pass: call loss.backward() with anomaly "
            "detection on and read the name from the error it raises",
        )
        obs.equal(
            f"the node nan_origin names (loss {draw} of 3)",
            found,
            hint="the name in the error that anomaly detection raises, or None when none is raised",
        )
        obs.equal(
            f"anomaly detection is off after the call (loss {draw} of 3)",
            agk.is_anomaly_enabled(),
            hint="switch it on only for the backward pass you examine",
        )
        agk.autograd.set_detect_anomaly(False)


