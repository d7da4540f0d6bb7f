# %% [markdown] id="07-capstone-train-a-small-network"
# # 07 · Capstone: train a small network, look inside, build the engine
#
# Time to use everything at once. You will generate a two-dimensional toy data set, build a small
# multi-layer perceptron (MLP) that separates its two classes, look at the graph one training step
# records, write the training loop yourself, watch the gradients of every layer with hooks,
# compare three optimizers, and plot the decision boundary the network learned. Then you go
# deeper: you watch gradients vanish in a deep network, and you write the engine behind
# `backward()` yourself, about sixty lines for numbers instead of tensors.
#
# **Time:** about 2 h 30 min: 55 min to read and run the cells, 95 min for the exercises
# (estimated from the notebook's length and points, as notebook 00 explains).
#
# **Before you start:** notebooks 02, 04, 05 and 06 (the training loop with autograd,
# `no_grad()`, the engine's order, hooks). Notebooks 01 and 03 help with the maths.
#
# **Learning goals.** By the end of this notebook you can
#
# - count the parameters of an `nn.Sequential` of `Linear` layers (exercise 1);
# - read the backward graph of a real network (`AddmmBackward0`, `TanhBackward0`, ...) and
#   predict what backward fills in (exercise 2);
# - write the training loop yourself: `zero_grad`, forward, loss, `backward`, `step`
#   (exercise 3);
# - attach hooks that watch each layer's gradient while the network trains;
# - compare SGD, SGD with momentum and Adam from their loss curves;
# - compute the accuracy under `no_grad()` (exercise 4), and draw a decision boundary;
# - measure each layer's weight gradient (exercise 5), and explain why gradients vanish in a deep
#   sigmoid network and what ReLU and tanh need not to;
# - write a scalar autograd engine: a topological order (exercise 6), then the chain rule in
#   reverse (exercise 7).
#
# **Graded exercises:** 7 exercises, **19 points** in total (predictions teach: they count for no points).

# %% id="07-import-math"
import math

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


# %% [markdown] id="07-the-data-two-interleaving-moons"
# ## 1. The data: two interleaving moons
#
# Each point has two coordinates and a class, 0 or 1. The classes form two half circles that hook
# into each other, so no straight line can separate them: the network has to learn a curved
# boundary. We generate the points with NumPy, with a fixed seed so that everyone gets the same
# data.

# %% id="07-def-make-moons-n-200"
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


# %% [markdown] id="07-the-model" tags=["topic:T51"]
# ## 2. The model
#
# Two inputs, two hidden layers of 16 units with `tanh`, and two outputs: one score (a *logit*)
# per class. `nn.CrossEntropyLoss` turns the scores into probabilities with a softmax and measures
# how much probability the correct class gets. Every weight and bias is a `Parameter` that
# requires grad. We build each model with the same seed, so comparisons are fair.

# %% id="07-def-make-model-seed-0" tags=["topic:T51"]
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

# %% [markdown] id="07-exercise-1-count-the-parameters"
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

# %% [markdown] id="07-the-graph-of-one-training" tags=["topic:T13", "topic:T27"]
# ## 3. The graph of one training step
#
# One forward pass records the whole graph. Each `Linear` on a batch becomes an `AddmmBackward0`
# node (a matrix product plus the bias, with `TBackward0` for the transposed weight); each `tanh`
# a `TanhBackward0`; the cross-entropy ends in `NllLossBackward0` over `LogSoftmaxBackward0`. The
# six `AccumulateGrad` boxes are the six parameters: the only leaves that get a `.grad` (the data
# `X` needs no gradient).

# %% id="07-loss-loss-fn-model-x" tags=["topic:T13", "topic:T27"]
loss = loss_fn(model(X), y)
print("loss before training:", loss)
names = dict(model.named_parameters())      # "0.weight", "0.bias", ...
draw_graph(loss, names={**names, "X": X, "loss": loss}, show_data=False)

# %% [markdown] id="07-exercise-2-predict-what-backward"
# ### Exercise 2 — predict what backward fills in (predict, no points)
#
# Call `loss.backward()` on the loss above, in your head. Predict the shape of the gradient that
# lands in the first layer's weight, `model[0].weight.grad`, and whether `X.grad` is `None`.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex2_predict", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set weight_grad_shape (a tuple of ints) and x_grad_is_none (True or False).
### BEGIN SOLUTION
weight_grad_shape = (16, 2)
x_grad_is_none = True
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex2_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.backward_prediction()

# %% [markdown] id="07-your-training-loop" tags=["topic:T11", "topic:T19"]
# ## 4. Your training loop
#
# Every training loop in PyTorch is the same five steps, whatever the model. For each epoch:
#
# 1. `optimizer.zero_grad()`: clear what the last epoch left in `.grad` (backward *adds* into
#    `.grad`, notebook 02);
# 2. the forward pass: `model(X)`, the scores;
# 3. the loss: `loss_fn(scores, y)`, one number;
# 4. `loss.backward()`: every parameter's `.grad` gets its gradient;
# 5. `optimizer.step()`: every parameter takes a step against its gradient.
#
# ### Exercise 3 — write the training loop (3 points)
#
# Write `training_loop(model, loss_fn, optimizer, X, y, epochs)`: train `model` in place on the
# whole of `X` and `y` (one step per epoch) for `epochs` epochs, and return the losses, one
# Python number per epoch (each epoch's loss, computed before its step). Use the loss function
# and the optimizer you are given: the check trains networks of its own, a classifier with
# `CrossEntropyLoss` and SGD, and a regression with `MSELoss` and Adam.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex3_training_loop", "locked": false, "schema_version": 3, "solution": true, "task": false}
def training_loop(model, loss_fn, optimizer, X, y, epochs):
    ### BEGIN SOLUTION
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex3_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.training_loop_trains()
### BEGIN HIDDEN TESTS
checks.training_loop_momentum()
### END HIDDEN TESTS

# %% [markdown] id="07-a-loop-that-runs-and"
# **A loop that runs and learns nothing.** Swap two lines and nothing complains:
#
# ```python
# loss.backward()
# optimizer.zero_grad()   # sets every .grad to None: the gradient just computed is gone
# optimizer.step()        # a parameter without a gradient is skipped: nothing moves
# ```
#
# The loss stays where it was, epoch after epoch. Leave `zero_grad()` out altogether and each
# step uses the sum of every gradient so far instead of this epoch's. Either way the first
# epoch's loss is right and the later ones are not: the check compares every epoch's loss.

# %% [markdown] id="07-training-with-hooks-watching-the" tags=["topic:T47"]
# ## 5. Training, with hooks watching the gradients
#
# For the experiments that follow, the same loop gets three extras. A forward hook on each
# `Linear` attaches a tensor hook to the layer's output; the tensor hook records the norm of the
# gradient that arrives there during every backward pass (notebook 06). The loop can save the
# parameters as it goes, and `progress(...)` shows a progress bar while it runs.

# %% id="07-def-watch-gradients-model-norms" tags=["topic:T47", "topic:T11"]
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
    """Full-batch training; returns the loss per epoch. Optionally records the gradient norms
    per layer, and keeps the parameters before training and every 25 epochs (snapshots, keyed
    by the number of epochs done)."""
    handles = watch_gradients(model, norms) if norms is not None else []
    losses = []
    if snapshots is not None:
        snapshots[0] = [p.detach().clone() for p in model.parameters()]
    for epoch in progress(range(epochs), description="epochs"):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if snapshots is not None and (epoch + 1) % 25 == 0:
            snapshots[epoch + 1] = [p.detach().clone() for p in model.parameters()]
    for handle in handles:
        handle.remove()
    return losses


model = make_model()
norms = {}
sgd_losses = train(model, agk.optim.SGD(model.parameters(), lr=0.1), norms=norms)
print(f"SGD: loss {sgd_losses[0]:.4f} -> {sgd_losses[-1]:.4f}")
first, last = norms["layer 0"], norms["layer 4"]
crossing = next(epoch for epoch, (a, b) in enumerate(zip(first, last)) if a > b)
print(f"first layer / last layer: {first[0] / last[0]:.2f} in epoch 1, "
      f"{first[-1] / last[-1]:.2f} in epoch 300; the first layer's is larger from epoch "
      f"{crossing + 1}")

fig, ax = plt.subplots(figsize=(6.5, 3.5))
for name, values in norms.items():
    ax.semilogy(range(1, len(values) + 1), values, label=f"gradient at the output of {name}")
ax.set_xlabel("epoch")
ax.set_ylabel("gradient norm (log scale)")
ax.set_title("Hooks: how much gradient reaches each layer")
ax.legend(fontsize=8)
plt.show()


# %% [markdown] id="07-in-the-first-epoch-the"
# In the first epoch the gradient arriving at the first layer is about a third of the one at
# the last layer: on its way back it passes two `tanh` layers, whose slope is at most 1, and two
# weight matrices. Training then changes the weights, and the picture turns around: later on,
# the first layer gets the largest gradient of the three. (Compare the curves with care: they
# are norms of tensors of different sizes, 200 × 16 for the hidden layers and 200 × 2 at the
# output.) Three layers are too few for gradients to *vanish*; section 9 builds networks deep
# enough for that.

# %% [markdown] id="07-accuracy"
# ## 6. Accuracy
#
# ### Exercise 4 — accuracy under `no_grad()` (write the code, 3 points)
#
# Write `accuracy(model, X, y)`: the fraction of points whose highest-scoring class
# (`argmax` over `dim=1`) equals the label, as a Python float, for any number of classes.
# Compute it inside `agk.no_grad()`: evaluation must not record a graph. The check runs your
# function on networks and points of its own.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex4_accuracy", "locked": false, "schema_version": 3, "solution": true, "task": false}
def accuracy(model, X, y):
    ### BEGIN SOLUTION
    with agk.no_grad():
        predicted = model(X).argmax(dim=1)
    return (predicted == y).float().mean().item()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex4_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.accuracy_no_grad()
### BEGIN HIDDEN TESTS
checks.accuracy_restores_recording()
### END HIDDEN TESTS

# %% [markdown] id="07-comparing-optimizers"
# ## 7. Comparing optimizers
#
# Plain **SGD** moves every parameter by `lr × gradient`. **SGD with momentum** keeps a running
# velocity, so steps in a consistent direction build up speed while back-and-forth steps cancel.
# **Adam** additionally scales each parameter's step by a running estimate of its gradient's size,
# so parameters with small gradients still move. Same model, same data, same start:

# %% id="07-optimizers"
optimizers = {
    "SGD + momentum 0.9": lambda params: agk.optim.SGD(params, lr=0.1, momentum=0.9),
    "Adam (lr 0.01)": lambda params: agk.optim.Adam(params, lr=0.01),
}
curves = {"SGD (lr 0.1)": sgd_losses}       # the SGD run of section 5 started from the same model
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
    ax.semilogy(range(1, len(losses) + 1), losses, label=label)
ax.set_xlabel("epoch")
ax.set_ylabel("cross-entropy loss (log scale)")
ax.set_title("Same network, three optimizers")
ax.legend()
plt.show()


# %% [markdown] id="07-the-decision-boundary" tags=["topic:T21"]
# ## 8. The decision boundary
#
# To see what the network learned, ask it for the probability of class 1 at every point of a fine
# grid, under `no_grad()` (we only evaluate, so there is no graph to record), and colour the plane
# by it. The boundary is where the probability crosses 0.5.

# %% id="07-grid-x0-grid-x1-np" tags=["topic:T21"]
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


# %% [markdown] id="07-watch-the-boundary-form"
# ### Watch the boundary form
#
# The slider replays the Adam run: the parameters were saved before training and after every 25
# epochs, and each position shows the boundary the network had after that many epochs. At 0 it
# is the untrained network's guess; the curve appears as the loss falls.

# %% id="07-def-boundary-explorer-snapshots" jupyter={"source_hidden": true}
def boundary_explorer(snapshots):
    """A slider over saved parameter snapshots; each position shows that moment's boundary."""
    epochs = sorted(snapshots)
    slider = widgets.SelectionSlider(options=epochs, value=epochs[-1], description="epochs")
    view = widgets.Output()
    replay = make_model()

    def show(_=None):
        with agk.no_grad():
            for param, saved in zip(replay.parameters(), snapshots[slider.value]):
                param.copy_(saved)
        fig = boundary_figure(replay, f"Adam, after {slider.value} epochs")
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

# %% [markdown] id="07-vanishing-gradients-sigmoid-tanh-and" tags=["topic:T47"]
# ## 9. Vanishing gradients: sigmoid, tanh and ReLU across depth
#
# On its way back, the gradient is multiplied, layer after layer, by the slope of each
# activation and by each weight matrix. The slopes differ:
#
# - sigmoid: σ'(z) = σ(z)(1 − σ(z)), at most **1/4** (at z = 0);
# - tanh: 1 − tanh²(z), at most **1** (at z = 0), close to 0 once |z| is large;
# - ReLU: exactly **1** where the unit is active, 0 where it is not.
#
# So each sigmoid layer makes the gradient about four times smaller or more, unless the weights
# make up for it. The experiment: networks of 15 `Linear` layers, 32 units wide, with one kind
# of activation between them, each given the moons once. The hooks of section 5 record the
# gradient that arrives at the output of every layer. The weights are drawn in two ways:
# PyTorch's default for `nn.Linear`, and an init scaled for the activation (Xavier for sigmoid
# and tanh, Kaiming for ReLU: `nn.init.xavier_normal_`, `nn.init.kaiming_normal_`), with biases
# zero.

# %% id="07-activations-sigmoid-nn-sigmoid-tanh" tags=["topic:T47"]
ACTIVATIONS = {"sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "relu": nn.ReLU}


def deep_network(activation, scaled_init, depth=15, width=32):
    """depth Linear layers, width units wide, the activation between them."""
    agk.manual_seed(0)
    sizes = [2] + [width] * (depth - 1) + [2]
    layers = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        layer = nn.Linear(n_in, n_out)
        if scaled_init and activation == "relu":
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
        elif scaled_init:
            nn.init.xavier_normal_(layer.weight, gain=nn.init.calculate_gain(activation))
        if scaled_init:
            nn.init.zeros_(layer.bias)
        layers += [layer, ACTIVATIONS[activation]()]
    return nn.Sequential(*layers[:-1])


def gradient_per_layer(model):
    """The norm of the gradient arriving at each Linear layer's output, first layer first,
    in one backward pass on the moons."""
    norms = {}
    handles = watch_gradients(model, norms)
    loss_fn(model(X), y).backward()
    for handle in handles:
        handle.remove()
    return [values[0] for values in norms.values()]


inits = {False: "PyTorch's default init", True: "Xavier init (Kaiming for ReLU)"}
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True, layout="constrained")
for ax, (scaled_init, title) in zip(axes, inits.items()):
    print(f"{title}: the first layer's gradient / the last layer's")
    for activation in ACTIVATIONS:
        per_layer = gradient_per_layer(deep_network(activation, scaled_init))
        layers = range(1, len(per_layer) + 1)
        ax.semilogy(layers, per_layer, marker="o", markersize=3, label=activation)
        print(f"    {activation:8} about 10^{round(math.log10(per_layer[0] / per_layer[-1]))}")
    ax.set_title(title)
    ax.set_xlabel("layer (1 = first, 15 = last)")
axes[0].set_ylabel("gradient at the layer's output\n(norm, log scale)")
axes[1].legend()
fig.suptitle("The gradient each layer of a 15-layer network gets, before training")
plt.show()


# %% [markdown] id="07-exercise-5-the-gradient-each"
# Read the figure from right to left, the way the gradient travels:
#
# - **sigmoid** vanishes whatever the init: its first layer gets about 10⁻¹² (default init) or
#   10⁻⁹ (Xavier) of the gradient its last layer gets, four to eight times less per layer, as a
#   slope of at most 1/4 predicts. A step `lr × gradient` then leaves the first
#   layers where they started: they do not learn.
# - **tanh and ReLU** depend on the weights. PyTorch's default init is scaled for neither, and in
#   a network this deep their gradients shrink too: to about 10⁻⁴ (tanh) and 10⁻⁶ (ReLU, faster
#   than tanh here) over the 15 layers. With the init made for each, the gradient keeps its size
#   from the last layer to the first, within a factor of 20 (tanh's even grows on the way back).
#
# That is why deep networks use ReLU-like activations with Kaiming init (or tanh with Xavier),
# and sigmoid only at the output, where a probability is wanted.
#
# ### Exercise 5 — the gradient each layer's weights get (3 points)
#
# The hooks measured the gradient that arrives at each layer's output. What the optimizer uses is
# each weight's `.grad`. Write `weight_grad_norms(model, loss_fn, X, y)`: run one backward pass of
# `loss_fn(model(X), y)` and return, for each `Linear` layer of the `nn.Sequential` `model`, the
# first layer first, the norm of its weight's gradient (`.norm()`) as a Python float. Whatever an
# earlier backward left in `.grad` must not count: the check calls your function more than once
# on the same network. When it passes, compare the layers yourself, in a cell of your own:
# `weight_grad_norms(deep_network("sigmoid", True), loss_fn, X, y)`, then `"relu"`.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex5_weight_grad_norms", "locked": false, "schema_version": 3, "solution": true, "task": false}
def weight_grad_norms(model, loss_fn, X, y):
    ### BEGIN SOLUTION
    model.zero_grad()
    loss_fn(model(X), y).backward()
    return [layer.weight.grad.norm().item() for layer in model if isinstance(layer, nn.Linear)]
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex5_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.gradient_norms_per_layer()
### BEGIN HIDDEN TESTS
checks.gradient_norms_after_training()
### END HIDDEN TESTS

# %% [markdown] id="07-your-own-engine-autograd-for"
# ## 10. Your own engine: autograd for numbers, in sixty lines
#
# `loss.backward()` did all the work so far. Now you write the engine yourself, for single
# numbers instead of tensors and for four operations (`+`, `*`, `tanh`, `relu`), but with the
# two steps autogradkit's engine takes (notebook 05):
#
# 1. **Order.** List every value the root was computed from in *topological order*: each value
#    after the values it was computed from (the leaves first, the root last). Walking that list
#    backwards, a value comes only after every value that used it: when you reach it, all of
#    its uses have sent it their gradients.
# 2. **The chain rule, in reverse.** Set the root's gradient to 1. Then for each value, from the
#    root back, send each child `local gradient × value.grad`, *adding* it into `child.grad`:
#    a child used twice gets both shares.
#
# Each `Value` keeps its number (`data`), its gradient (`grad`, 0 until backward), the values it
# was computed from (`children`) and, worked out during the forward pass, the derivative of
# itself with respect to each child (`local_grads`). For `c = a * b`: `c.children == (a, b)` and
# `c.local_grads == (b.data, a.data)`.
#
# Here is the kind of graph your engine must handle, built with autogradkit's tensors: `a` is
# used three times, `d` twice by one `*` and once more through `e`, and the paths join again.

# %% id="07-def-example-a-b-c"
def example(a, b, c):
    d = a * b + c
    e = d.tanh()
    f = d * d + e * a
    return (f + 1.5 * a).relu() + e


a, b, c = (agk.tensor(v, dtype=agk.float64, requires_grad=True) for v in (0.6, -1.2, 0.9))
root = example(a, b, c)
root.backward()
print(f"root = {root.item():.6f}")
print(f"autogradkit: a.grad = {a.grad.item():.6f}, b.grad = {b.grad.item():.6f}, "
      f"c.grad = {c.grad.item():.6f}")
draw_graph(root, names={"a": a, "b": b, "c": c, "root": root})

# %% [markdown] id="07-exercise-6-topological-order-3"
# When your `Value` works, `example(Value(0.6), Value(-1.2), Value(0.9))` must give the same
# numbers: try it in a cell of your own.
#
# ### Exercise 6 — topological order (3 points)
#
# Write `topological_order(root)`: a list of `root` and every value it was computed from,
# directly or not, each exactly once, each after all of its `children`. Read nothing but
# `.children`. Do it without recursion: Python stops about 1,000 calls deep, and the check hands
# you a chain of 5,000 additions. Two ways that work:
#
# - **Depth first, with a stack of your own.** Push `(root, False)`. Pop a pair: the first time
#   you meet a value, push it back as `(value, True)`, then its children as `(child, False)`;
#   when `(value, True)` comes off the stack, all of its children are in the list: append it.
#   Keep a set of the values you have met (`id(value)`): otherwise a value reached along two
#   paths is listed twice, and a chain of diamonds takes hours.
# - **Dependency counting**, as autogradkit's engine does: count, for each value, how many times
#   it is a child (walk once, with a stack); then list the root, and list a child once every
#   value that uses it has been listed; reverse the list at the end.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex6_topological_order", "locked": false, "schema_version": 3, "solution": true, "task": false}
def topological_order(root):
    ### BEGIN SOLUTION
    order, met = [], set()
    stack = [(root, False)]
    while stack:
        value, children_listed = stack.pop()
        if children_listed:
            order.append(value)
        elif id(value) not in met:
            met.add(id(value))
            stack.append((value, True))
            stack.extend((child, False) for child in value.children if id(child) not in met)
    return order
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex6_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.order_of_the_graph()
### BEGIN HIDDEN TESTS
checks.order_twice()
### END HIDDEN TESTS

# %% [markdown] id="07-exercise-7-the-engine-5"
# ### Exercise 7 — the engine (5 points)
#
# Complete `Value`:
#
# - `a + b` and `a * b`, with another `Value` or a plain number on either side (a number becomes
#   a `Value` with no children; `__radd__` and `__rmul__` make `2 * a` work). Each returns a new
#   `Value` with its `children` and its `local_grads`.
# - `a.tanh()` (`math.tanh`) and `a.relu()` (its slope at 0 is 0, as in PyTorch).
# - `backward()`: set the root's gradient to 1, then run the chain rule over
#   `topological_order(self)`, backwards. It adds into every other `.grad` and never resets one,
#   as autogradkit does: a second backward adds to a leaf's gradient.
#
# The check builds random expression graphs with your `Value` (forks, values used twice, numbers
# on either side) and with autogradkit's tensors, and compares every value's gradient with
# autogradkit's. While your engine runs, autogradkit's operations and its engine refuse to work:
# build it from plain Python numbers.

# %% nbgrader={"grade": false, "grade_id": "nb07_ex7_value", "locked": false, "schema_version": 3, "solution": true, "task": false}
class Value:
    """A number that remembers how it was computed, so that it can get a gradient."""

    def __init__(self, data, children=(), local_grads=()):
        self.data = float(data)
        self.grad = 0.0                 # d(root)/d(self), filled in by root.backward()
        self.children = children        # the Values this one was computed from
        self.local_grads = local_grads  # d(self)/d(child), one number per child

    def __repr__(self):
        return f"Value(data={self.data:.4g}, grad={self.grad:.4g})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        ### BEGIN SOLUTION
        return Value(self.data + other.data, (self, other), (1.0, 1.0))
        ### END SOLUTION

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        ### BEGIN SOLUTION
        return Value(self.data * other.data, (self, other), (other.data, self.data))
        ### END SOLUTION

    __radd__ = __add__  # 2 + a
    __rmul__ = __mul__  # 2 * a

    def tanh(self):
        ### BEGIN SOLUTION
        t = math.tanh(self.data)
        return Value(t, (self,), (1.0 - t * t,))
        ### END SOLUTION

    def relu(self):
        ### BEGIN SOLUTION
        return Value(max(self.data, 0.0), (self,), (1.0 if self.data > 0 else 0.0,))
        ### END SOLUTION

    def backward(self):
        ### BEGIN SOLUTION
        self.grad = 1.0
        for value in reversed(topological_order(self)):
            for child, local_grad in zip(value.children, value.local_grads):
                child.grad += local_grad * value.grad
        ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb07_ex7_test", "locked": true, "points": 5, "schema_version": 3, "solution": false, "task": false}
checks.engine_against_autogradkit()
### BEGIN HIDDEN TESTS
checks.engine_accumulates()
### END HIDDEN TESTS

# %% [markdown] id="07-recap"
# ## Recap
#
# - A classifier is trained exactly like the one-weight model: `zero_grad()`, forward, loss,
#   `backward()`, `step()`. Only the model and the loss changed; swap `zero_grad()` and
#   `backward()` and nothing learns.
# - The graph of one step has one node per operation (`AddmmBackward0`, `TanhBackward0`,
#   `NllLossBackward0`, ...) and one `AccumulateGrad` per parameter.
# - Hooks let you watch gradients per layer during training without changing them.
# - Momentum and Adam reach a low loss much faster than plain SGD on this problem.
# - Evaluate under `no_grad()`; the decision boundary shows what the network learned.
# - Through many layers the gradient is multiplied by every activation's slope: sigmoid's, at
#   most 1/4, makes it vanish; tanh and ReLU keep it alive when the weights are scaled for them.
# - An autograd engine is two steps: a topological order of the graph, then the chain rule from
#   the root back, adding into `.grad` where a value is used more than once.
#
# Congratulations: you have followed a gradient from a single weight all the way to a trained
# network, and you have written the engine that computes it.
#
# **Further reading** in PyTorch's documentation:
#
# - [`torch.nn.Module`](https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html):
#   parameters, `train()` / `eval()`, hooks
# - [`torch.nn.CrossEntropyLoss`](https://docs.pytorch.org/docs/stable/generated/torch.nn.CrossEntropyLoss.html):
#   logits in, class indices as targets
# - [`Optimizer.zero_grad`](https://docs.pytorch.org/docs/stable/generated/torch.optim.Optimizer.zero_grad.html):
#   the first line of your loop
# - [`torch.nn.init`](https://docs.pytorch.org/docs/stable/nn.init.html):
#   Xavier and Kaiming initialisation
# - [`torch.no_grad`](https://docs.pytorch.org/docs/stable/generated/torch.no_grad.html):
#   evaluation without a graph
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="07-checks-check-progress"
checks.check.progress()
