"""The checks of notebook 02: what autograd does for you.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import numpy as np

import autogradkit as agk
import autogradkit.autograd
from autogradkit.grading.checks import Checks, count_calls

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


@check.exercise("train_fixed")
def fixed_loop(obs, train_fixed):
    """Exercise 2: the corrected training loop"""
    x, y = _data(obs, int(obs.rng.integers(4, 9)))
    for epochs in (1, int(obs.rng.integers(3, 13))):
        w = obs.call(train_fixed, x, y, epochs)
        obs.require(
            f"train_fixed(x, y, {epochs}) returns the leaf w",
            isinstance(w, agk.Tensor) and w.is_leaf and w.requires_grad,
            hint="return w itself, the tensor the optimizer updates",
        )
        obs.close(
            f"w after {epochs} epoch{'s' if epochs > 1 else ''}",
            w,
            atol=1e-4,
            hint="after optimizer.step(), what is still left in w.grad for the next epoch?",
        )


@check.exercise("accumulated_grad")
def accumulation(obs, accumulated_grad):
    """Exercise 3: one gradient from several pieces"""
    batch_size, pieces = int(obs.rng.integers(1, 4)), int(obs.rng.integers(2, 4))
    x, y = _data(obs, batch_size * pieces)
    w_value = float(obs.rng.uniform(-1.0, 1.0))
    with count_calls(agk.autograd, "backward") as calls:  # Tensor.backward() goes through it
        grad = obs.call(accumulated_grad, x, y, w_value, batch_size)
    obs.equal(
        f"backward() calls for {pieces} pieces",
        len(calls),
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


