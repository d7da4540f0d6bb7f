# %% [markdown]
# # 07 · Capstone: train a small network and look inside
#
# Time to use everything at once. You will generate a two-dimensional toy data set, build a small
# multi-layer perceptron (MLP) that separates its two classes, look at the graph one training step
# records, watch the gradients of every layer with hooks, compare three optimizers, and plot the
# decision boundary the network learned.
#
# **Learning goals.** By the end of this notebook you can
#
# - build and train an `nn.Sequential` classifier with `CrossEntropyLoss` and an optimizer;
# - read the backward graph of a real network (`AddmmBackward0`, `TanhBackward0`, ...);
# - attach hooks to watch gradients per layer while the network trains;
# - explain the difference between SGD, SGD with momentum and Adam from their loss curves;
# - evaluate under `no_grad()` and draw a decision boundary.
#
# **Graded exercises:** 4 exercises, **10 points** in total.

# %%
import numpy as np
import matplotlib.pyplot as plt
import ipywidgets as widgets
from IPython.display import Image

import autogradkit as agk
from autogradkit import nn
from autogradkit.viz import draw_graph, progress

import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)


# %% [markdown]
# ## 1. The data: two interleaving moons
#
# Each point has two coordinates and a class, 0 or 1. The classes form two half circles that hook
# into each other, so no straight line can separate them: the network has to learn a curved
# boundary. We generate the points with NumPy, with a fixed seed so that everyone gets the same
# data.

# %%
def make_moons(n=200, noise=0.15, seed=0):
    """Two interleaving half circles with Gaussian noise; returns float32 points, int64 labels."""
    rng = np.random.default_rng(seed)
    half = n // 2
    angle = rng.uniform(0, np.pi, size=n)
    upper = np.stack([np.cos(angle[:half]), np.sin(angle[:half])], axis=1)
    lower = np.stack([1 - np.cos(angle[half:]), 0.5 - np.sin(angle[half:])], axis=1)
    points = np.concatenate([upper, lower]) + rng.normal(0, noise, size=(n, 2))
    labels = np.concatenate([np.zeros(half), np.ones(n - half)])
    return points.astype(np.float32), labels.astype(np.int64)


points, labels = make_moons()
X = agk.tensor(points)
y = agk.tensor(labels)
print("X:", X.shape, X.dtype, "| y:", y.shape, y.dtype, "| class counts:", np.bincount(labels))

fig, ax = plt.subplots(figsize=(5.5, 3.8))
ax.scatter(points[:, 0], points[:, 1], c=labels, cmap="coolwarm", s=15, edgecolors="k",
           linewidths=0.3)
ax.set_title("Two moons: 200 points, 2 classes")
ax.set_xlabel("x₀")
ax.set_ylabel("x₁")
plt.show()


# %% [markdown] tags=["topic:T51"]
# ## 2. The model
#
# Two inputs, two hidden layers of 16 units with `tanh`, and two outputs: one score (a *logit*)
# per class. `nn.CrossEntropyLoss` turns the scores into probabilities with a softmax and measures
# how much probability the correct class gets. Every weight and bias is a `Parameter` that
# requires grad. We build each model with the same seed, so comparisons are fair.

# %% tags=["topic:T51"]
def make_model(seed=0):
    agk.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(2, 16), nn.Tanh(),
        nn.Linear(16, 16), nn.Tanh(),
        nn.Linear(16, 2),
    )


model = make_model()
loss_fn = nn.CrossEntropyLoss()
print(model)
for name, param in model.named_parameters():
    print(f"{name:9} {str(tuple(param.shape)):9} requires_grad={param.requires_grad}")

# %% [markdown]
# ### Exercise 1 — count the parameters (by hand, 2 points)
#
# How many numbers does training adjust in a model like this one? A `Linear(n_in, n_out)` layer
# has an `n_out × n_in` weight matrix and `n_out` biases; `Tanh` has none. Write
# `count_parameters(sizes)`: the number of parameters of the `Linear` layers that take
# `sizes[0]` inputs to `sizes[1]` outputs, then `sizes[1]` to `sizes[2]`, and so on (our model
# is `[2, 16, 16, 2]`). Work it out from the rule with plain arithmetic: the check tries other
# sizes, and `nn.Linear` is switched off while it runs.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex1_count", "locked": false, "schema_version": 3, "solution": true, "task": false}
def count_parameters(sizes):
    ### BEGIN SOLUTION
    return sum(n_out * n_in + n_out for n_in, n_out in zip(sizes, sizes[1:]))
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex1_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.parameter_count()
### BEGIN HIDDEN TESTS
checks.parameter_count_one_layer()
### END HIDDEN TESTS

# %% [markdown] tags=["topic:T13", "topic:T27"]
# ## 3. The graph of one training step
#
# One forward pass records the whole graph. Each `Linear` on a batch becomes an `AddmmBackward0`
# node (a matrix product plus the bias, with `TBackward0` for the transposed weight); each `tanh`
# a `TanhBackward0`; the cross-entropy ends in `NllLossBackward0` over `LogSoftmaxBackward0`. The
# six `AccumulateGrad` boxes are the six parameters: the only leaves that get a `.grad` (the data
# `X` needs no gradient).

# %% tags=["topic:T13", "topic:T27"]
loss = loss_fn(model(X), y)
print("loss before training:", loss)
names = dict(model.named_parameters())      # "0.weight", "0.bias", ...
draw_graph(loss, names={**names, "X": X, "loss": loss}, show_data=False)

# %% [markdown]
# ### Exercise 2 — predict what backward fills in (predict, 2 points)
#
# Call `loss.backward()` on the loss above, in your head. Predict the shape of the gradient that
# lands in the first layer's weight, `model[0].weight.grad`, and whether `X.grad` is `None`.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex2_predict", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set weight_grad_shape (a tuple of ints) and x_grad_is_none (True or False).
### BEGIN SOLUTION
weight_grad_shape = (16, 2)
x_grad_is_none = True
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex2_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.backward_prediction()

# %% [markdown]
# ## 4. Training, with hooks watching the gradients
#
# A forward hook on each `Linear` attaches a tensor hook to the layer's output; the tensor hook
# records the norm of the gradient that arrives there during every backward pass (notebook 06).
# The loop itself is the one from notebook 02: forward, loss, `zero_grad`, `backward`, `step`.
# `progress(...)` shows a progress bar while it runs.

# %% tags=["topic:T47", "topic:T11"]
def watch_gradients(model, norms):
    """Record, per Linear layer, the gradient norm at its output in every backward pass."""
    handles = []
    for index, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            def forward_hook(module, inputs, output, name=f"layer {index}"):
                record = norms.setdefault(name, [])
                output.register_hook(lambda grad: record.append(grad.norm().item()))
            handles.append(layer.register_forward_hook(forward_hook))
    return handles


def train(model, optimizer, epochs=300, norms=None, snapshots=None):
    """Full-batch training; returns the loss per epoch. Optionally keeps model snapshots."""
    handles = watch_gradients(model, norms) if norms is not None else []
    losses = []
    for epoch in progress(range(epochs), description="epochs"):
        loss = loss_fn(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if snapshots is not None and epoch % 25 == 0:
            snapshots[epoch] = [p.detach().clone() for p in model.parameters()]
    for handle in handles:
        handle.remove()
    return losses


model = make_model()
norms = {}
sgd_losses = train(model, agk.optim.SGD(model.parameters(), lr=0.1), norms=norms)
print(f"SGD: loss {sgd_losses[0]:.4f} -> {sgd_losses[-1]:.4f}")

fig, ax = plt.subplots(figsize=(6.5, 3.5))
for name, values in norms.items():
    ax.semilogy(values, label=f"gradient at the output of {name}")
ax.set_xlabel("epoch")
ax.set_ylabel("gradient norm (log scale)")
ax.set_title("Hooks: how much gradient reaches each layer")
ax.legend(fontsize=8)
plt.show()


# %% [markdown]
# At the start, the gradient that reaches the first layer is about three times smaller than the
# one at the output: on its way back it passes through two `tanh` layers, whose derivative is at
# most 1, and two weight matrices. As training goes on the weights grow and the picture changes.
# (Compare the curves with care: the layers have different widths.) In a deep network the
# shrinking compounds layer after layer, which is called the *vanishing gradient* problem; hooks
# like these are how you spot it.

# %% [markdown]
# ### Exercise 3 — accuracy under `no_grad()` (write the code, 3 points)
#
# Write `accuracy(model, X, y)`: the fraction of points whose highest-scoring class
# (`argmax` over `dim=1`) equals the label, as a Python float, for any number of classes.
# Compute it inside `agk.no_grad()`: evaluation must not record a graph. The check runs your
# function on networks and points of its own.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex3_accuracy", "locked": false, "schema_version": 3, "solution": true, "task": false}
def accuracy(model, X, y):
    ### BEGIN SOLUTION
    with agk.no_grad():
        predicted = model(X).argmax(dim=1)
    return (predicted == y).float().mean().item()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex3_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.accuracy_no_grad()
### BEGIN HIDDEN TESTS
checks.accuracy_restores_recording()
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Comparing optimizers
#
# Plain **SGD** moves every parameter by `lr × gradient`. **SGD with momentum** keeps a running
# velocity, so steps in a consistent direction build up speed while back-and-forth steps cancel.
# **Adam** additionally scales each parameter's step by a running estimate of its gradient's size,
# so parameters with small gradients still move. Same model, same data, same start:

# %%
optimizers = {
    "SGD + momentum 0.9": lambda params: agk.optim.SGD(params, lr=0.1, momentum=0.9),
    "Adam (lr 0.01)": lambda params: agk.optim.Adam(params, lr=0.01),
}
curves = {"SGD (lr 0.1)": sgd_losses}       # the SGD run of section 4 started from the same model
trained, snapshots = {}, {}                  # snapshots: the Adam run, every 25 epochs
print(f"{'SGD (lr 0.1)':20} final loss {sgd_losses[-1]:.4f}")
for label, make_optimizer in optimizers.items():
    model = make_model()
    keep = snapshots if label.startswith("Adam") else None
    curves[label] = train(model, make_optimizer(model.parameters()), snapshots=keep)
    trained[label] = model
    print(f"{label:20} final loss {curves[label][-1]:.4f}")

fig, ax = plt.subplots(figsize=(6.5, 3.5))
for label, losses in curves.items():
    ax.semilogy(losses, label=label)
ax.set_xlabel("epoch")
ax.set_ylabel("cross-entropy loss (log scale)")
ax.set_title("Same network, three optimizers")
ax.legend()
plt.show()


# %% [markdown]
# ### Exercise 4 — find the bug (3 points)
#
# This loop runs without any error, yet the loss never changes:
#
# ```python
# def train_buggy(model, optimizer, X, y, epochs):
#     losses = []
#     for _ in range(epochs):
#         loss = loss_fn(model(X), y)
#         loss.backward()
#         optimizer.zero_grad()
#         optimizer.step()
#         losses.append(loss.item())
#     return losses
# ```
#
# Explain the bug to yourself (what is in `.grad` when `step()` runs?), then write
# `train_fixed(model, optimizer, X, y, epochs)` that trains `model` with `optimizer` on `X`, `y`
# and returns the list of losses. The check trains networks of its own on data of its own.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex4_find_the_bug", "locked": false, "schema_version": 3, "solution": true, "task": false}
def train_fixed(model, optimizer, X, y, epochs):
    losses = []
    ### BEGIN SOLUTION
    for _ in range(epochs):
        loss = loss_fn(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    ### END SOLUTION
    return losses

# %% nbgrader={"grade": true, "grade_id": "nb07_ex4_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.fixed_training_loop()
### BEGIN HIDDEN TESTS
checks.fixed_training_loop_momentum()
### END HIDDEN TESTS

# %% [markdown] tags=["topic:T21"]
# ## 6. The decision boundary
#
# To see what the network learned, ask it for the probability of class 1 at every point of a fine
# grid, under `no_grad()` (we only evaluate, so there is no graph to record), and colour the plane
# by it. The boundary is where the probability crosses 0.5.

# %% tags=["topic:T21"]
grid_x0, grid_x1 = np.meshgrid(np.linspace(-1.6, 2.6, 120), np.linspace(-1.1, 1.6, 90))
grid = agk.tensor(np.stack([grid_x0.ravel(), grid_x1.ravel()], axis=1).astype(np.float32))


def boundary_figure(model, title):
    with agk.no_grad():
        probability = model(grid).softmax(dim=1)[:, 1].reshape(grid_x0.shape).numpy()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.contourf(grid_x0, grid_x1, probability, levels=20, cmap="coolwarm", alpha=0.6)
    ax.contour(grid_x0, grid_x1, probability, levels=[0.5], colors="k", linewidths=1.5)
    ax.scatter(points[:, 0], points[:, 1], c=labels, cmap="coolwarm", s=15, edgecolors="k",
               linewidths=0.3)
    ax.set_title(title)
    return fig


fig = boundary_figure(trained["Adam (lr 0.01)"], "Decision boundary after 300 epochs of Adam")
plt.show()


# %% [markdown]
# ### Watch the boundary form
#
# The slider replays the Adam run: the parameters were saved every 25 epochs, and each position
# shows the boundary the network had at that moment. Early on it is almost a straight line; the
# curve appears as the loss falls.

# %% jupyter={"source_hidden": true}
def boundary_explorer(snapshots):
    """A slider over saved parameter snapshots; each position shows that moment's boundary."""
    epochs = sorted(snapshots)
    slider = widgets.SelectionSlider(options=epochs, value=epochs[-1], description="epoch")
    view = widgets.Output()
    replay = make_model()

    def show(_=None):
        with agk.no_grad():
            for param, saved in zip(replay.parameters(), snapshots[slider.value]):
                param.copy_(saved)
        fig = boundary_figure(replay, f"Adam, after {slider.value + 1} epochs")
        png = fig_png(fig)
        plt.close(fig)
        view.outputs = ()
        view.append_display_data(Image(data=png, format="png"))

    slider.observe(show, names="value")
    show()
    return widgets.VBox([slider, view])


def fig_png(fig):
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    return buffer.getvalue()


boundary_explorer(snapshots)

# %% [markdown]
# ## Recap
#
# - A classifier is trained exactly like the one-weight model: forward, loss, `zero_grad()`,
#   `backward()`, `step()`. Only the model and the loss changed.
# - The graph of one step has one node per operation (`AddmmBackward0`, `TanhBackward0`,
#   `NllLossBackward0`, ...) and one `AccumulateGrad` per parameter.
# - Hooks let you watch gradients per layer during training without changing them.
# - Momentum and Adam reach a low loss much faster than plain SGD on this problem.
# - Evaluate under `no_grad()`; the decision boundary shows what the network learned.
#
# Congratulations: you have followed a gradient from a single weight all the way to a trained
# network, and you know what every line of the training loop does.
