# %% [markdown] id="04-in-place-operations-data-and"
# # 04 · In-place operations, `.data` and `.detach()`
#
# An *in-place* operation changes a tensor's values without making a new tensor: `x.add_(1)`,
# `x -= 1`, `x[0] = 5`, `x.zero_()`. They save memory, and they are exactly how weights get
# updated. They also clash with autograd, which may have *saved* the old values to use later in
# the backward pass. This notebook shows the two errors autograd raises to protect you, and the
# one back door, `.data`, where it cannot protect you at all.
#
# **Time:** about 1 h 35 min: 45 min to read and run the cells, 50 min for the exercises
# (estimated from the notebook's length and points, as notebook 00 explains).
#
# **Before you start:** notebooks 02 and 03 (leaves, `no_grad()`, `detach()`, what a backward
# pass needs from the forward pass).
#
# **Learning goals.** By the end of this notebook you can
#
# - explain why an in-place change of a leaf that requires grad is refused, and fix an
#   initialisation that does one (exercise 1);
# - read the "modified by an inplace operation ... is at version 1; expected version 0" error,
#   and find the tensor and the operation it is about;
# - predict a tensor's `_version` after a series of in-place operations (exercise 2), and which
#   in-place changes make backward fail (exercise 3);
# - say what `.data` and `.detach()` have in common, and show with a training run why
#   `.detach()` is the safe one;
# - write an update step that changes a parameter in place and keeps it a leaf (exercise 4);
# - stop the gradient on purpose with `detach()`, for a target built from the model's own
#   output (exercise 5);
# - find the operation that made a `nan` gradient with anomaly detection (exercise 6).
#
# **Graded exercises:** 6 exercises, **11 points** in total (predictions teach: they count for no points).

# %% id="04-import-numpy-as-np"
import numpy as np
import matplotlib.pyplot as plt
import ipywidgets as widgets

import autogradkit as agk
import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)

# %% [markdown] id="04-a-leaf-that-requires-grad" tags=["topic:T31"]
# ## 1. A leaf that requires grad cannot be changed in place
#
# A leaf with `requires_grad=True` is a parameter: autograd will write its gradient into `.grad`,
# and that gradient only makes sense for the values the forward pass actually used. If you could
# quietly overwrite the leaf while it is being tracked, the recorded graph would no longer
# describe it. So autograd refuses:

# %% id="04-w-agk-ones-3-requires" tags=["topic:T31", "raises-exception"]
w = agk.ones(3, requires_grad=True)
w.add_(1)

# %% [markdown] id="04-the-message-still-says-variable" tags=["topic:T31"]
# The message still says *Variable*, the old name for a tensor that takes part in autograd
# (notebook 03). Every in-place form is refused in the same way:

# %% id="04-for-attempt-in-w-mul" tags=["topic:T31"]
for attempt in ["w.mul_(2)", "w.zero_()", "w += 1"]:
    try:
        exec(attempt)
    except RuntimeError as error:
        print(f"{attempt:10} -> {type(error).__name__}: {error}")

# %% [markdown] id="04-but-you-do-need-to" tags=["topic:T31"]
# But you *do* need to set weights to starting values, and to update them during training. Both
# are meant to happen outside the graph, so do them inside `agk.no_grad()`. The tensor stays the
# same object, stays a leaf and keeps `requires_grad=True`; only its values (and its version
# number, see below) change:

# %% id="04-w-agk-empty-3-requires" tags=["topic:T31"]
w = agk.empty(3, requires_grad=True)
with agk.no_grad():
    w.copy_(agk.tensor([0.5, -0.2, 0.1]))     # initialise
print(w, "| is_leaf:", w.is_leaf, "| grad_fn:", w.grad_fn)

loss = (w ** 2).sum()
loss.backward()
with agk.no_grad():
    w -= 0.1 * w.grad                        # one gradient-descent update, by hand
w.grad = None                                # forget the old gradient before the next step
print(w, "| is_leaf:", w.is_leaf)


# %% [markdown] id="04-this-is-exactly-what-an" tags=["topic:T31"]
# This is exactly what an optimizer's `step()` does, and what `nn.init` functions do when they
# fill a layer's weights. Writing `w = w - 0.1 * w.grad` instead would *not* update the leaf: it
# would build a new, non-leaf tensor with a `grad_fn`, and the next backward pass would no longer
# reach your parameter.

# %% [markdown] id="04-exercise-1-find-the-bug"
# ### Exercise 1 — find the bug (3 points)
#
# An `nn.init` function fills a parameter that already exists, in place. A classmate's version
# crashes with the leaf error above:
#
# ```python
# def init_weights(w, value):
#     w.fill_(value)
#     return w
# ```
#
# Fix `init_weights` so that it fills the given leaf `w` (it requires grad) with `value` and
# returns `w` itself: the same object, still a leaf that requires grad, with no `grad_fn`. The
# check calls it on parameters of its own.

# %% nbgrader={"grade": false, "grade_id": "nb04_ex1_init_weights", "locked": false, "schema_version": 3, "solution": true, "task": false}
def init_weights(w, value):
    ### BEGIN SOLUTION
    with agk.no_grad():
        w.fill_(value)
    return w
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb04_ex1_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.init_in_place()

# %% [markdown] id="04-changing-a-tensor-that-backward" tags=["topic:T32"]
# ## 2. Changing a tensor that backward still needs
#
# Many operations save some of their inputs for the backward pass. A matrix product `d = x @ w`
# needs `x` to compute `w.grad = xᵀ · (gradient of d)`, so `MmBackward0` keeps a reference to `x`.
# If `x` changes in place before backward runs, the saved "x" is no longer the `x` that produced
# `d`, and the gradient would silently be wrong.
#
# autograd catches this with a **version counter**. Every tensor has one (`_version`); each
# in-place operation adds 1. When a tensor is saved, its version is saved with it, and backward
# compares the two:

# %% id="04-x-agk-tensor-1-2" tags=["topic:T32"]
x = agk.tensor([[1., 2.], [4., 5.]])
w = agk.ones(2, 2, requires_grad=True)
d = agk.mm(x, w)               # MmBackward0 saves x (at version 0) to compute w.grad
print(d)
print("x._version before:", x._version)
x -= 1                         # in place: x is now at version 1
print("x._version after: ", x._version)

# %% id="04-d-sum-backward" tags=["topic:T32", "raises-exception"]
d.sum().backward()

# %% [markdown] id="04-read-the-message-piece-by" tags=["topic:T32"]
# Read the message piece by piece:
#
# - `[autogradkit.FloatTensor [2, 2]]` is the type and shape of the tensor that changed: our `x`;
# - `is at version 1; expected version 0` says it was saved at version 0 and was changed once
#   since;
# - when the changed tensor is itself the output of an operation, the message also names that
#   operation, as in `which is output 0 of Exp`. Here `exp` saves its *output* (the derivative of
#   `eˣ` is `eˣ`), so changing the output in place breaks its backward:

# %% id="04-a-agk-tensor-1-2" tags=["topic:T32"]
a = agk.tensor([1., 2.], requires_grad=True)
y = a.exp()                    # ExpBackward0 saves y itself
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

# %% [markdown] id="04-not-every-in-place-operation" tags=["topic:T32"]
# Not every in-place operation is a problem: only changing a tensor that some backward node
# *saved*. `y = a * 2` saves only the constant 2 (the gradient with respect to `a`), so changing
# `y` afterwards is fine. autograd records the in-place `add_` as a new node on `y`, and the
# gradient is correct:

# %% id="04-a-agk-tensor-1-2-2" tags=["topic:T32"]
a = agk.tensor([1., 2.], requires_grad=True)
y = a * 2
y.add_(1)
print(y, "| version:", y._version)
y.sum().backward()
print(a.grad)

# %% [markdown] id="04-data-versus-detach" tags=["topic:T33"]
# ## 3. `.data` versus `.detach()`
#
# Both give you a tensor that
#
# - **shares storage** with the original: change one and the other changes too;
# - has **no history**: `requires_grad=False`, `grad_fn=None`, it is a leaf.

# %% id="04-a-agk-tensor-1-2-3" tags=["topic:T33"]
a = agk.tensor([1., 2., 3.], requires_grad=True)
for name, t in [("a.data", a.data), ("a.detach()", a.detach())]:
    print(f"{name:11} {t}  requires_grad={t.requires_grad}  is_leaf={t.is_leaf}")

shared = a.detach()
shared[0] = 10.                # changes a too: same storage
print("a after changing a.detach():", a)


# %% [markdown] id="04-the-difference-is-the-version" tags=["topic:T33"]
# The difference is the version counter. `detach()` **shares** it with the original, so an
# in-place change through the detached tensor still counts as a change of `x`, and backward still
# catches it. `.data` gets its **own** counter, so autograd never hears about the change. Repeat
# the matrix example from section 2 both ways:

# %% id="04-def-gradient-after-change-through" tags=["topic:T33"]
def gradient_after_change(through):
    """Compute d = x @ w, subtract 1 from x through `through`, then backpropagate."""
    x = agk.tensor([[1., 2.], [4., 5.]])
    w = agk.ones(2, 2, requires_grad=True)
    d = agk.mm(x, w)
    alias = x.data if through == "data" else x.detach()
    alias -= 1
    print(f"via {through:6}: x._version = {x._version}, alias._version = {alias._version}")
    d.sum().backward()
    return w.grad


print("w.grad =", gradient_after_change("data"))

# %% id="04-gradient-after-change-detach" tags=["topic:T33", "raises-exception"]
gradient_after_change("detach")

# %% [markdown] id="04-with-detach-you-get-the" tags=["topic:T33"]
# With `detach()` you get the error, which is annoying but honest. With `.data` the backward pass
# runs happily and returns `[[3., 3.], [5., 5.]]`. The right gradient of `d.sum()` with respect
# to `w` is `xᵀ` times ones, the column sums of the *original* `x`: `[[5., 5.], [7., 7.]]`.
# Nothing warned us.
#
# **Rule of thumb:** use `.detach()` when you need a tensor without history, and `no_grad()`
# when you need to change parameters. `.data` is an old back door kept for compatibility; code
# that uses it can be silently wrong.

# %% [markdown] id="04-exercise-2-predict-the-version"
# ### Exercise 2 — predict the version counter (predict, no points)
#
# Predict, without running it, what this prints: the values of `t` and `t._version`.
#
# ```python
# t = agk.zeros(3)
# t.add_(1)
# t.mul_(2)
# u = t.detach()
# u.add_(1)
# v = t.data
# v.add_(1)
# print(t, t._version)
# ```

# %% nbgrader={"grade": false, "grade_id": "nb04_ex2_predict_version", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set predicted_values (a list of three numbers) and predicted_version (an int).
### BEGIN SOLUTION
predicted_values = [4., 4., 4.]
predicted_version = 3
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb04_ex2_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.version_prediction()

# %% [markdown] id="04-try-it-the-version-counter" tags=["topic:T32", "topic:T33"]
# ### Try it: the version counter, live
#
# Each button applies one operation to `x` *after* `d = x @ w` has been recorded. The panel shows
# `x`, its version, and what `d.sum().backward()` would do now. Try `x.data -= 1` and compare the
# gradient with the correct `[[5., 5.], [7., 7.]]`; then reset and try `x.detach() -= 1`.

# %% id="04-import-re" jupyter={"source_hidden": true} tags=["topic:T32", "topic:T33"]
import re


def version_lab():
    """Buttons change x in place after d = x @ w was recorded; a panel says what backward does."""
    state = {}
    panel = widgets.Output(layout={"border": "1px solid #ccc", "padding": "4px"})

    def report(action):
        x, w = state["x"], state["w"]
        w.grad = None
        try:
            state["d"].sum().backward(retain_graph=True)
            outcome = f"backward runs: w.grad = {w.grad.tolist()}"
        except RuntimeError as error:
            found = re.search(r"is at version \d+; expected version \d+", str(error))
            outcome = f"backward raises RuntimeError: x {found.group()}"
        panel.outputs = ()
        panel.append_stdout(f"{action}\nx = {x.tolist()}   x._version = {x._version}\n{outcome}\n")

    def reset(_=None):
        state["x"] = agk.tensor([[1., 2.], [4., 5.]])
        state["w"] = agk.ones(2, 2, requires_grad=True)
        state["d"] = agk.mm(state["x"], state["w"])
        report("reset: d = x @ w recorded, with x at version 0")

    def button(label, change):
        def on_click(_):
            change(state["x"])
            report(label)

        widget = widgets.Button(description=label, layout={"width": "140px"})
        widget.on_click(on_click)
        return widget

    buttons = [
        button("x -= 1", lambda x: x.sub_(1)),
        button("x.detach() -= 1", lambda x: x.detach().sub_(1)),
        button("x.data -= 1", lambda x: x.data.sub_(1)),
        button("x.clone() -= 1", lambda x: x.clone().sub_(1)),
    ]
    again = widgets.Button(description="reset", button_style="warning")
    again.on_click(reset)
    reset()
    return widgets.VBox([widgets.HBox(buttons + [again]), panel])


version_lab()

# %% [markdown] id="04-exercise-3-which-of-these"
# ### Exercise 3 — which of these raise? (predict, no points)
#
# For each snippet, predict whether the last line raises the version-counter `RuntimeError`
# (`True`) or runs (`False`). Each starts from `a = agk.tensor([1., 2.], requires_grad=True)`.
#
# | key | snippet |
# |---|---|
# | `"a"` | `y = a * 3; z = y.exp().sum(); y.add_(1); z.backward()` |
# | `"b"` | `y = a * 3; z = (y * y).sum(); y.add_(1); z.backward()` |
# | `"c"` | `y = a.sigmoid(); z = (y * 3).sum(); y.detach().zero_(); z.backward()` |
# | `"d"` | `y = a.sigmoid(); z = (y * 3).sum(); y.data.zero_(); z.backward()` |
#
# Hint: `sigmoid`, like `exp`, saves its output, because its derivative is `y * (1 - y)`.

# %% nbgrader={"grade": false, "grade_id": "nb04_ex3_which_raise", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set raises = {"a": ..., "b": ..., "c": ..., "d": ...} with True or False values.
### BEGIN SOLUTION
raises = {"a": False, "b": True, "c": True, "d": False}
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb04_ex3_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.which_raise()

# %% [markdown] id="04-what-a-silent-wrong-gradient"
# Snippet `"d"` runs, but look at what it computes: the saved sigmoid output is now all zeros, so
# the gradient `3 * y * (1 - y)` comes out as zero everywhere. That is the `.data` trap again.
#
# ### What a silent wrong gradient does to training
#
# Is a wrong gradient here and there a big deal? One printed gradient cannot tell you; a training
# run can. A classmate trains a small classifier, `p = sigmoid(x @ w)` with a squared-error loss.
# Each epoch they also measure the accuracy, and to save memory they turn `p` into 0/1
# predictions *in place*, through `.data`: snippet `"d"` inside a training loop. Here are the
# loss and the accuracy, with that one line written three ways:

# %% id="04-agk-manual-seed-0" tags=["topic:T33"]
agk.manual_seed(0)
x_train = agk.randn(64, 3)                                      # 64 examples, 3 features
labels = (x_train @ agk.tensor([1.5, -2.0, 0.5]) > 0).float()   # 1 on one side of a plane


def train_classifier(in_place_through, epochs=40, lr=2.0):
    """Train p = sigmoid(x @ w) and measure the accuracy each epoch, making the 0/1
    predictions in place through .data or .detach(), or (None) as a new tensor."""
    w = agk.zeros(3, requires_grad=True)
    losses, accuracies = [], []
    for _ in range(epochs):
        p = (x_train @ w).sigmoid()                  # SigmoidBackward0 saves p itself
        loss = ((p - labels) ** 2).mean()
        if in_place_through is None:
            hard = (p.detach() > 0.5).float()        # a new tensor: p is left alone
        else:
            hard = p.data if in_place_through == "data" else p.detach()
            hard.copy_((hard > 0.5).float())         # writes 0s and 1s into p's storage
        accuracies.append((hard == labels).float().mean().item())
        loss.backward()
        with agk.no_grad():
            w -= lr * w.grad
        w.grad = None
        losses.append(loss.item())
    return losses, accuracies


runs = {
    "0/1 predictions as a new tensor": train_classifier(None),
    "p.data overwritten in place": train_classifier("data"),
}
try:
    train_classifier("detach")
except RuntimeError as error:
    print("p.detach() overwritten in place: RuntimeError at the first backward():")
    print("   ", str(error).split(" Hint")[0])

fig, (loss_ax, acc_ax) = plt.subplots(1, 2, figsize=(8, 3.2), layout="constrained")
for (label, (losses, accuracies)), style in zip(runs.items(), ["o-", "s--"]):
    loss_ax.plot(range(1, 41), losses, style, ms=3, label=label)
    acc_ax.plot(range(1, 41), accuracies, style, ms=3, label=label)
loss_ax.set(xlabel="epoch", ylabel="loss", title="loss")
acc_ax.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0, 1.05))
loss_ax.legend(fontsize=8)
fig.suptitle("Same code, no error: the .data run never learns")
plt.show()

# %% [markdown] id="04-the-data-run-is-flat" tags=["topic:T33"]
# The `.data` run is flat from the first epoch: loss 0.25, and the accuracy it had with `w = 0`.
# The 0/1 predictions were written into the very tensor `sigmoid` had saved, so its backward
# computed `p · (1 − p) = 0` everywhere: no gradient, no learning, and no error message. Through
# `.detach()` the same line raises at once, and as a new tensor it does no harm at all.

# %% [markdown] id="04-exercise-4-an-update-step"
# ### Exercise 4 — an update step that keeps the leaf (write the code, 2 points)
#
# Write `sgd_step(w, lr)`: given a leaf `w` whose `.grad` has been filled by a backward pass,
# update `w` in place to `w - lr * w.grad`, then set `w.grad` to `None`. Return nothing. `w` must
# be the same object afterwards, still a leaf, still requiring grad, and autograd must be able to
# tell that it changed: a graph recorded before the step saved the old `w`.

# %% nbgrader={"grade": false, "grade_id": "nb04_ex4_sgd_step", "locked": false, "schema_version": 3, "solution": true, "task": false}
def sgd_step(w, lr):
    ### BEGIN SOLUTION
    with agk.no_grad():
        w -= lr * w.grad
    w.grad = None
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb04_ex4_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.step_in_place()
### BEGIN HIDDEN TESTS
checks.steps_train()
### END HIDDEN TESTS

# %% [markdown] id="04-detach-on-purpose-stopping-the" tags=["topic:T33"]
# ## 4. `detach()` on purpose: stopping the gradient
#
# Section 3 used `detach()` to look at a tensor's values without its history. Its everyday job
# is to cut the graph on purpose: the gradient flows back to the detached tensor and stops
# there. Two places where every PyTorch user meets it.
#
# **A target made from the model's own output.** Sometimes the number a prediction should move
# towards is computed from the model itself: reinforcement learning's Q-learning target
# `reward + γ · max Q(next state)`, or a prediction on clean data that a prediction on noisy data
# should match. The target must stay put while the prediction moves, so it is detached. Here
# the simplest such target: "10 % more than you predict now", for `prediction = w * x`:

# %% id="04-x-agk-tensor-1-2-2" tags=["topic:T33"]
x = agk.tensor([1., 2., 3.])
for cut in (True, False):
    w = agk.tensor(1.0, requires_grad=True)
    prediction = w * x
    target = 1.1 * (prediction.detach() if cut else prediction)
    loss = ((prediction - target) ** 2).mean()
    loss.backward()
    label = "target = 1.1 * prediction.detach()" if cut else "target = 1.1 * prediction"
    print(f"{label:35} loss = {loss.item():.4f}   w.grad = {w.grad.item():+.4f}")

# %% [markdown] id="04-with-the-detached-target-w" tags=["topic:T33"]
# With the detached target, `w.grad` is negative: a gradient-descent step makes `w` larger and
# moves the prediction up, towards the target, as intended. Without `detach()` the gradient
# also flows through the target, and the loss is simply `(0.1 · prediction)²`. Its gradient is
# positive: the step makes `w` *smaller*, because shrinking the prediction shrinks the target
# with it and that lowers the loss fastest. The model "wins" by dragging the target along, and
# nothing raises an error.
#
# **Frozen features.** A feature extractor that was trained before (or someone else's) computes
# features, and only a new layer on top of it is trained. Detaching the features ends the graph
# there: backward never reaches the extractor, and its weights get no gradient.

# %% id="04-agk-manual-seed-0-2" tags=["topic:T33"]
agk.manual_seed(0)
extractor = agk.nn.Sequential(agk.nn.Linear(3, 4), agk.nn.Tanh())   # kept as it is
head = agk.nn.Linear(4, 1)                                          # trained
features = extractor(agk.randn(8, 3)).detach()
print("features:", "requires_grad =", features.requires_grad, "| is_leaf =", features.is_leaf)
loss = head(features).pow(2).mean()
loss.backward()
print("head.weight.grad:        ", head.weight.grad)
print("extractor[0].weight.grad:", extractor[0].weight.grad)

# %% [markdown] id="04-detach-cuts-one-use-the" tags=["topic:T33"]
# `detach()` cuts one use: the extractor's weights still require grad, and any other path to
# them still trains them. To freeze the parameters themselves, everywhere they are used, switch
# off their `requires_grad` (notebook 06 shows how, with the optimizer).

# %% [markdown] id="04-exercise-5-a-target-that"
# ### Exercise 5 — a target that stays put (write the code, 3 points)
#
# A prediction on a noisy copy of the input should match the prediction on the clean input.
# Write `consistency_loss(model, x, noise)`: it returns the mean squared difference between the
# prediction `model(x + noise)` and the target `model(x)`, where the target stays put: when
# `backward()` runs on the loss, gradients flow back only through the prediction on the noisy
# input. The check calls it on networks and inputs of its own (`x` requires grad) and compares
# the gradients that reach the weights and `x`.

# %% nbgrader={"grade": false, "grade_id": "nb04_ex5_consistency", "locked": false, "schema_version": 3, "solution": true, "task": false}
def consistency_loss(model, x, noise):
    ### BEGIN SOLUTION
    target = model(x).detach()
    return ((model(x + noise) - target) ** 2).mean()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb04_ex5_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.stopped_target()

# %% [markdown] id="04-finding-the-operation-that-made" tags=["topic:T32"]
# ## 5. Finding the operation that made a NaN: anomaly detection
#
# A wrong gradient can also be `nan` ("not a number"). One `nan` in a gradient makes the weight
# it updates `nan`, and within a few steps the whole network, while the loss printed just before
# looked fine. A classic cause is a guard that protects the forward pass but not the backward
# pass. `agk.where(condition, a, b)` picks `a` where the condition holds and `b` elsewhere, so
# this computes `√x` for positive `x` and 0 elsewhere, without a `nan` in sight:

# %% id="04-x-agk-tensor-4-1" tags=["topic:T32"]
x = agk.tensor([4., 1., 0., -1.], requires_grad=True)
root = agk.where(x > 0, x.sqrt(), 0.0)
loss = root.sum()
loss.backward()
print("root:  ", root)
print("loss:  ", loss)
print("x.grad:", x.grad)

# %% [markdown] id="04-where-do-the-two-nan" tags=["topic:T32"]
# Where do the two `nan`s come from? In a bigger model you would not know which of hundreds of
# operations made them. **Anomaly detection** finds out. Inside `with
# agk.autograd.detect_anomaly():` every node remembers the traceback of the forward call that
# created it, and the engine checks the gradients each node returns: the first node that
# returns a `nan` stops the backward pass with an error that names it, and a warning shows the
# line of your code that created it. (The cell collects the warnings to print them tidily.)

# %% id="04-import-warnings" tags=["topic:T32"]
import warnings

x.grad = None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with agk.autograd.detect_anomaly():
        loss = agk.where(x > 0, x.sqrt(), 0.0).sum()
        try:
            loss.backward()
        except RuntimeError as raised:
            error = raised
for warning in caught:                  # the warnings come first, then the error
    lines = str(warning.message).strip().splitlines()
    print(f"{warning.category.__name__}: {lines[0]}")
    if len(lines) > 1:                  # the traceback: its last line is the forward call
        print("    ...\n" + lines[-1])
print(f"{type(error).__name__}: {error}")
print("x.grad after the stopped pass:", x.grad)

# %% [markdown] id="04-it-is-sqrtbackward0-made-by" tags=["topic:T32"]
# It is `SqrtBackward0`, made by `x.sqrt()`. `where` computes *both* branches and then picks, so
# `√-1 = nan` was computed even though the result never used it. In the backward pass `where`
# sends the gradient 0 to the branch it did not pick, and `sqrt`'s backward turns that 0 into
# `0 / (2 · √x)`: `0 / 0 = nan` at `x = 0`, and `0 / nan = nan` at `x = -1`. The fix is to
# make the unused branch harmless before it is computed:

# %% id="04-x-grad-none" tags=["topic:T32"]
x.grad = None
safe = agk.where(x > 0, x, 1.0)          # 1 where the square root is not wanted
agk.where(x > 0, safe.sqrt(), 0.0).sum().backward()
print("x.grad:", x.grad)

# %% [markdown] id="04-three-things-to-know-about" tags=["topic:T32"]
# Three things to know about anomaly detection:
#
# - it slows every operation down (it keeps a traceback per node), so switch it on to debug,
#   not to train: the `with` block above, or `agk.autograd.set_detect_anomaly(True)` and
#   `set_detect_anomaly(False)` around the code you suspect;
# - it names the first node whose backward *returns* a `nan`. An infinity made one step
#   earlier (`√0` has an infinite slope) often becomes that `nan`, so look one node back too;
# - the version error of section 2 says "Hint: enable anomaly detection to find the operation
#   that failed to compute its gradient": with it on, that error also comes with the traceback
#   of the forward call. In PyTorch the traceback can end inside PyTorch's own Python files
#   (for `x ** 2`, say): the line you want is the last one from your code.

# %% [markdown] id="04-exercise-6-which-operation-made"
# ### Exercise 6 — which operation made the `nan`? (write the code, 3 points)
#
# Write `nan_origin(loss_fn, x)`: compute `loss = loss_fn(x)` and call `loss.backward()` with
# anomaly detection on, and return the name of the backward node anomaly detection stops at (a
# string such as `"SqrtBackward0"`), or `None` when the backward pass runs through without a
# `nan`. Leave anomaly detection switched off when you return. The check calls it with loss
# functions of its own, in which several operations could make a `nan`.

# %% nbgrader={"grade": false, "grade_id": "nb04_ex6_nan_origin", "locked": false, "schema_version": 3, "solution": true, "task": false}
def nan_origin(loss_fn, x):
    ### BEGIN SOLUTION
    with agk.autograd.detect_anomaly():
        loss = loss_fn(x)
        try:
            loss.backward()
        except RuntimeError as error:
            return str(error).split("'")[1]
    return None
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb04_ex6_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.nan_found()

# %% [markdown] id="04-recap"
# ## Recap
#
# - In-place operations on a leaf that requires grad are refused ("a leaf Variable that requires
#   grad is being used in an in-place operation."). Initialise and update parameters inside
#   `no_grad()`.
# - Every tensor carries a version counter that in-place operations increase. Backward checks the
#   versions of the tensors it saved and raises "... is at version 1; expected version 0 instead"
#   when one was changed.
# - Only saved tensors matter: changing `a * 2` in place is fine, changing `a.exp()` is not.
# - `.data` and `.detach()` both share storage and drop history. `detach()` also shares the version
#   counter, so misuse is caught; `.data` does not, so misuse gives a wrong gradient silently.
# - `detach()` on purpose stops the gradient: a target made from the model's own output must be
#   detached (or the model drags it along), and detached features keep the layers below out of
#   the backward pass.
# - A `nan` gradient from a finite loss often comes from a `where` whose unused branch is `nan`.
#   `agk.autograd.detect_anomaly()` names the first node that returned a `nan` and the line of
#   your code that created it; switch it on only to debug.
#
# **Next:** notebook 05 opens up `grad_fn` and follows the references from an output back to the
# leaves.
#
# **Further reading** in PyTorch's documentation:
#
# - [Autograd mechanics](https://docs.pytorch.org/docs/stable/notes/autograd.html):
#   in-place operations and the correctness checks
# - [`torch.autograd`](https://docs.pytorch.org/docs/stable/autograd.html):
#   in-place operations on tensors, and anomaly detection (the error's hint)
# - [`Tensor.detach`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.detach.html):
#   what it shares with the original
# - [`torch.nn.init`](https://docs.pytorch.org/docs/stable/nn.init.html):
#   initialising parameters in place, under `no_grad()`
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="04-checks-check-progress"
checks.check.progress()
