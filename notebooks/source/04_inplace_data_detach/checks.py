"""The checks of notebook 04: in-place operations, the version counter, .data and .detach().

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import numpy as np

import autogradkit as agk
from autogradkit.grading.checks import Checks

check = Checks(__file__)

SAVED_CHANGED = "modified by an inplace operation"  # backward's version-counter error


def _parameter(obs, shape):
    """A fresh leaf that requires grad, holding numbers the check draws."""
    values = obs.rng.normal(size=shape).round(2).astype(np.float32)
    return agk.tensor(values, requires_grad=True)


def _still_a_parameter(w) -> bool:
    return w.is_leaf and w.requires_grad and w.grad_fn is None


# ----- exercise 1: initialise a leaf in place -------------------------------------------------
@check.exercise("init_weights")
def init_in_place(obs, init_weights):
    """Exercise 1: fill a leaf in place, keeping it a leaf"""
    shapes = [(int(obs.rng.integers(2, 7)),), (int(obs.rng.integers(2, 4)), 3)]
    for shape in shapes:
        w = _parameter(obs, shape)
        value = round(float(obs.rng.uniform(-1.0, 1.0)), 3) + 0.0
        version = w._version
        returned = obs.call(init_weights, w, value)
        about = f"w of shape {shape}"
        obs.require(
            f"{about}: init_weights returns w itself",
            returned is w,
            hint="change w in place and return it; a new tensor is not the caller's parameter",
        )
        obs.close(f"{about}: its values", w.detach(), hint="every entry of w holds the value")
        obs.require(
            f"{about}: still a leaf that requires grad, with no grad_fn",
            _still_a_parameter(w),
            hint="change w's values with recording switched off",
        )
        obs.require(
            f"{about}: autograd saw the change (w._version went up)",
            w._version > version,
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
def _step_once(obs, sgd_step, w, lr) -> dict:
    """One ``sgd_step`` after a backward pass through a graph that saved ``w`` (used twice),
    and what a caller can see afterwards."""
    x = agk.tensor(obs.rng.normal(size=w.shape).astype(np.float32))
    loss = (w * x).sum() ** 2 + (w * w).sum()
    loss.backward(retain_graph=True)
    version = w._version
    seen = {"returned": obs.call(sgd_step, w, lr)}
    seen.update(version_moved=w._version > version, grad_cleared=w.grad is None)
    try:
        loss.backward()  # through the old graph, which saved w before the step
        seen["caught"] = False
    except RuntimeError as error:
        seen["caught"] = SAVED_CHANGED in str(error)
    return seen


@check.exercise("sgd_step")
def step_in_place(obs, sgd_step):
    """Exercise 4: an update step that keeps the leaf"""
    w = _parameter(obs, int(obs.rng.integers(2, 6)))
    lr = round(float(obs.rng.uniform(0.01, 0.2)), 3)
    seen = _step_once(obs, sgd_step, w, lr)
    obs.require(
        "sgd_step returns nothing",
        seen["returned"] is None,
        hint="update w in place; return nothing",
    )
    obs.close(f"w after one step with lr = {lr:g}", w.detach(), atol=1e-5, hint="w - lr * w.grad")
    obs.require(
        "w is still a leaf that requires grad, with no grad_fn",
        _still_a_parameter(w),
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


### BEGIN HIDDEN TESTS
@check.exercise("sgd_step", hidden=True)
def steps_train(obs, sgd_step):
    """Exercise 4, hidden: repeated steps reach the minimum, each seen by autograd"""
    target = agk.tensor(obs.rng.normal(size=3).round(2).astype(np.float32))
    w = agk.zeros(3, requires_grad=True)
    versions = []
    for _ in range(40):
        ((w - target) ** 2).sum().backward()
        before = w._version
        obs.call(sgd_step, w, 0.1)
        versions.append(w._version > before)
    obs.close("w after 40 steps with lr = 0.1", w.detach(), atol=1e-4)
    obs.require("every step moved w's version counter", all(versions))
    obs.require("w is still a leaf that requires grad", _still_a_parameter(w))


### END HIDDEN TESTS
