"""The checks of notebook 02: what autograd does for you.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

from contextlib import contextmanager

import numpy as np

import autogradkit as agk
import autogradkit.autograd
from autogradkit import nn
from autogradkit.grading.checks import Checks, gradient_trail

check = Checks(__file__)


def _data(obs, n: int):
    """``n`` inputs between 1 and 3, targets near ``slope * x``: a fresh line to learn."""
    x = obs.rng.uniform(1.0, 3.0, size=n)
    y = obs.rng.uniform(1.5, 2.5) * x + obs.rng.normal(0.0, 0.1, size=n)
    return agk.tensor(x.astype(np.float32)), agk.tensor(y.astype(np.float32))


@check.exercise("predicted_a_grad", "predicted_b_grad")
def reuse_prediction(obs, predicted_a_grad, predicted_b_grad):
    """Exercise 1: a.grad and b.grad after f.backward()"""
    obs.predicted("a.grad", predicted_a_grad, hint="a is used twice: what happens at a fork?")
    obs.predicted("b.grad", predicted_b_grad, hint="did b ask for a gradient?")


def _is_leaf(value) -> bool:
    return isinstance(value, agk.Tensor) and value.is_leaf and value.requires_grad


@check.exercise("train_fixed")
def fixed_loop(obs, train_fixed):
    """Exercise 2: the corrected training loop"""
    x, y = _data(obs, int(obs.rng.integers(4, 9)))
    y = y + float(obs.rng.uniform(-2.0, 2.0))  # a line with an intercept, for b to learn
    for epochs in (1, int(obs.rng.integers(3, 13))):
        found = obs.call(train_fixed, x, y, epochs)
        obs.require(
            f"train_fixed(x, y, {epochs}) returns the leaves w and b",
            isinstance(found, (tuple, list)) and len(found) == 2 and all(map(_is_leaf, found)),
            hint="return w, b themselves, the tensors the optimizer updates",
        )
        obs.close(
            f"w and b after epoch {epochs}",
            [found[0].item(), found[1].item()],
            atol=1e-4,
            hint="which leaves does AccumulateGrad add into, and which of them does the loop "
            "clear after optimizer.step()?",
        )


@check.exercise("accumulated_grad")
def accumulation(obs, accumulated_grad):
    """Exercise 3: one gradient from several pieces"""
    batch_size, pieces = int(obs.rng.integers(1, 4)), int(obs.rng.integers(2, 4))
    x, y = _data(obs, batch_size * pieces)
    w_value = float(obs.rng.uniform(-1.0, 1.0))
    with gradient_trail() as trail:  # w.grad after each backward pass: the running sum
        grad = obs.call(accumulated_grad, x, y, w_value, batch_size)
    obs.close(
        f"w.grad after each backward() for {pieces} pieces",
        trail,
        atol=1e-4,
        hint="call backward() once per piece and let w.grad add them up",
    )
    obs.close(
        "the accumulated gradient",
        grad,
        atol=1e-4,
        hint="each piece's loss is a mean over fewer examples: scale it by 1 / number of pieces",
    )


@check.exercise("tracked")
def tracked_or_not(obs, tracked):
    """Exercise 4: tracked or not"""
    obs.require("tracked is a dict", isinstance(tracked, dict), hint='{"a": True, ...}')
    for key, hint in (
        ("a", "detach() returns a tensor with no history"),
        ("b", "nothing is recorded inside no_grad()"),
        ("c", "after the block, one input that requires grad is enough"),
        ("d", "requires_grad_(False) changed x itself"),
    ):
        obs.predicted(f'tracked["{key}"]', tracked.get(key), hint=hint)


@check.exercise("switches")
def three_switches(obs, switches):
    """Exercise 5: which switch does what"""
    obs.require("switches is a dict", isinstance(switches, dict), hint='{"a": True, ...}')
    for key, hint in (
        ("a", "which of the two switches lasts after the block?"),
        ("b", "in which mode is the dropout layer after the block?"),
        ("c", "is anything recorded, or saved, inside the block?"),
        ("d", "w's gradient needs out saved: can an inference tensor be saved?"),
    ):
        obs.predicted(f'switches["{key}"]', switches.get(key), hint=hint)


# ----- exercise 6: an evaluation helper --------------------------------------------------------
def _model_with_dropout(obs):
    """Linear, ReLU, Dropout, Linear, with weights drawn from ``obs.rng``; the inputs size."""
    n_in, hidden = int(obs.rng.integers(2, 5)), int(obs.rng.integers(8, 17))
    model = nn.Sequential(
        nn.Linear(n_in, hidden),
        nn.ReLU(),
        nn.Dropout(float(obs.rng.uniform(0.3, 0.6))),
        nn.Linear(hidden, 1),
    )
    with agk.no_grad():
        for param in model.parameters():
            param.copy_(agk.tensor(obs.rng.normal(0.0, 0.8, size=param.shape)))
    return model, n_in


def _recording_seen(model) -> list:
    """A list that gets, for every call of one of the model's Linear layers, whether the graph
    was being recorded at that moment (a forward pre-hook)."""
    seen = []
    for layer in model:
        if isinstance(layer, nn.Linear):
            layer.register_forward_pre_hook(
                lambda module, inputs: seen.append(agk.is_grad_enabled())
            )
    return seen


@contextmanager
def _saves_counted():
    """A list that gets a 1 for every tensor an operation saves for backward inside the block:
    only a recorded operation saves, whether a layer is called or its ``forward``, or the
    layer's arithmetic is written out."""
    saved = []

    def pack(t):
        saved.append(1)
        return t

    with agk.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield saved


def _modes(model) -> list:
    return [module.training for module in model.modules()]


@check.exercise("evaluate")
def evaluation(obs, evaluate):
    """Exercise 6: evaluate in eval mode, without a graph, and leave the mode as it was"""
    model, n_in = _model_with_dropout(obs)
    x = agk.tensor(obs.rng.normal(size=(int(obs.rng.integers(3, 7)), n_in)), dtype=agk.float32)
    seen = _recording_seen(model)
    starts = [True, False] if obs.rng.integers(2) else [False, True]
    for training in starts:
        mode = "training" if training else "eval"
        model.train(training)
        seen.clear()
        with _saves_counted() as saved:  # a recorded op saves for backward, however called
            predictions = obs.call(evaluate, model, x)
        obs.require(
            f"evaluate returns a tensor (model in {mode} mode)",
            isinstance(predictions, agk.Tensor),
            hint="return what the model computed",
        )
        obs.close(
            f"the predictions (model in {mode} mode)",
            predictions,
            atol=1e-5,
            hint="the dropout layer must pass everything through: which mode does that?",
        )
        obs.equal(
            f"a graph was recorded while the layers ran (model in {mode} mode)",
            any(seen) or bool(saved),
            hint="run the model inside a block that stops recording; a later detach() "
            "comes too late, the graph is built by then",
        )
        obs.equal(
            f"the modes of the model and its layers afterwards (it was in {mode} mode)",
            _modes(model),
            hint="remember model.training before the call and give it back with model.train()",
        )


