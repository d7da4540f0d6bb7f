# %% [markdown] id="01-backpropagation-by-hand"
# # 01 · Backpropagation by hand
#
# You are going to train the smallest neural network there is: a single weight. You will do it
# with nothing but NumPy and a pencil, computing every gradient yourself. In the next notebook
# `loss.backward()` will do the same work for you, and you will know exactly what it computed.
#
# **Time:** about 1 h 15 min: 40 min to read and run the cells, 35 min for the exercises
# (estimated from the notebook's length and points, as notebook 00 explains).
#
# **Before you start:** notebook 00 (running cells, reading a check's `✓` / `✗`). From school
# maths: the slope of a curve, the derivatives of `x²` and of `a·x`, and the chain rule for a
# function of a function. From NumPy: arrays and `np.mean`.
#
# **Learning goals.** By the end of this notebook you can
#
# - name the four steps of a training iteration and say what each one produces;
# - draw the computation tree of `y_hat = w * x` with a squared-error loss, and compute its loss at
#   any `w` (16 at `w = 0`, 4 at `w = 1`);
# - read a gradient as a slope, and say which way an update moves `w` when the slope is negative;
# - compute the local gradients of the tree and chain them into `dloss/dw` (exercise 1);
# - write a NumPy training loop for `y_hat = w * x + b`, with the gradient of the bias
#   (exercise 2);
# - find a gradient that does not average over the examples, and write the right one for a new
#   model, `y_hat = w * x**2` (exercise 3);
# - predict where the first update lands and whether a learning rate converges (exercise 4).
#
# **Graded exercises:** 4 exercises, **7 points** in total (predictions teach: they count for no points). After each exercise a check cell
# runs your answer on inputs of its own and prints a `✓` line for each thing it checked, or one
# `✗` line with a hint.

# %% id="01-import-numpy-as-np"
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk

import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)

# %% [markdown] id="01-training-is-four-steps-repeated" tags=["topic:T01"]
# ## 1. Training is four steps, repeated
#
# Every training loop you will ever read repeats the same four steps:
#
# 1. **Forward pass.** Run the model on the input, then measure how wrong its output is. That
#    measurement is one number, the *loss*.
# 2. **Local gradients.** The model is a chain of small operations. For each one, work out how
#    its output changes when its input changes a little.
# 3. **Backpropagation.** Multiply the local gradients together, starting at the loss and walking
#    back to each weight. The product is `dloss/dw`: how the loss reacts to a change in `w`.
# 4. **Weight update.** Move each weight a small step in the direction that makes the loss smaller.
#
# In PyTorch, steps 2 and 3 hide inside `loss.backward()` and step 4 inside `optimizer.step()`.
# In this notebook all four happen in plain sight.

# %% [markdown] id="01-the-model-one-weight-one" tags=["topic:T02"]
# ## 2. The model: one weight, one example
#
# The task is to learn to double a number. We have one training example: the input `x = 2` and
# its target `y = 4`. The model owns a single weight `w` and predicts `y_hat = w * x`. We start
# from a bad guess, `w = 0`.
#
# Written as a computation tree, the forward pass flows from left to right, and the gradient will
# later flow back from right to left:
#
# ```
#   w ──┐
#       (×)──> y_hat ──┐
#   x ──┘              (−)──> s ──(square)──> loss
#                y ────┘
# ```
#
# The leaves on the left (`w`, `x`, `y`) are the values we start from; the root on the right is
# the loss. Only `w` is something we are allowed to change.

# %% id="01-x-2-0-the-input" tags=["topic:T02"]
x = 2.0   # the input
y = 4.0   # the target: twice the input
w = 0.0   # the only weight, deliberately wrong at the start

y_hat = w * x
print("prediction y_hat =", y_hat, "  target y =", y)


# %% [markdown] id="01-how-wrong-is-the-model" tags=["topic:T03"]
# ## 3. How wrong is the model? The squared error
#
# Looking at the tree we can see that `w = 2` is the answer. A real network has millions of
# weights and no formula to solve, so instead we *measure* how far off the prediction is and
# push that number down, one small step at a time.
#
# The measurement is the **squared error**: take the difference `s = y_hat - y` and square it.
# With several examples we average the squared errors, which gives the **mean squared error**
# (MSE). Squaring makes the loss zero only for a perfect prediction, positive otherwise, and it
# punishes big mistakes far more than small ones.

# %% id="01-def-mse-y-hat-y" tags=["topic:T03"]
def mse(y_hat, y):
    """Mean squared error: the average of (prediction - target) ** 2."""
    return np.mean((np.asarray(y_hat) - np.asarray(y)) ** 2)


print("   w   y_hat   loss   (w - 2)**2")
for w_try in [0.0, 1.0, 1.5, 2.0]:
    print(f"{w_try:4.1f}  {w_try * x:5.1f}  {mse(w_try * x, y):6.2f}  {(w_try - 2) ** 2:8.2f}")


# %% [markdown] id="01-at-the-start-w-0" tags=["topic:T03"]
# At the start (`w = 0`) the loss is **16**. It shrinks as `w` approaches 2 and is exactly 0
# there.
#
# Look at the row `w = 1` carefully, because it is a classic slip. The weight is 1 away from the
# answer, so its squared distance `(w - 2)**2` is **1**. The loss, however, measures the error of
# the *prediction*: `y_hat = 2` misses the target 4 by 2, so the loss is 4. The two are related by
# `loss = (w*x - y)**2 = x**2 * (w - 2)**2`, so here the loss is always `x**2 = 4` times the
# squared distance of the weight from the answer.
#
# > **Note on the source.** Article 004 ("你所不知道的 Pytorch 大補包(十):Pytorch 如何實做出 Backpropagation 之什麼是 Backpropagation", a blog post that names no author or address; section "什麼是 Backpropagation?", where it introduces
# > the mean squared error) says that at `w = 1` the loss is "(1-2)²=1", one unit away from the
# > answer. That number is the squared distance of the *weight* from 2. The loss compares the
# > prediction with the target, `(1·2 − 4)² = 4`, and that is what PyTorch computes:
# > `nn.MSELoss()(w * x, y)` with `w = 1`, `x = 2`, `y = 4` gives `tensor(4.)`. The table above,
# > with its four rows `w = 0, 1, 1.5, 2`, prints both columns so that you can see the two
# > numbers side by side.

# %% [markdown] id="01-a-gradient-is-a-slope" tags=["topic:T04"]
# ## 4. A gradient is a slope
#
# Plot the loss against `w` and you get a valley. The **gradient** `dloss/dw` is the slope of
# that curve at the current `w`. Think of standing on a hillside in fog: you cannot see the
# bottom, but you can feel which way the ground tilts under your feet. Gradient descent takes a
# step downhill, which is *against* the slope:
#
# - at `w = 0` the slope is negative (the curve falls to the right), so we should increase `w`;
# - at `w = 3` the slope is positive, so we should decrease `w`;
# - the steeper the slope, the further we are from the bottom, and the bigger the step.

# %% id="01-def-loss-at-w" tags=["topic:T04"]
def loss_at(w):
    return (w * x - y) ** 2


def slope_at(w, h=1e-4):
    """The slope measured numerically: rise over run across a tiny interval around w."""
    return (loss_at(w + h) - loss_at(w - h)) / (2 * h)


ws = np.linspace(-1, 5, 200)
fig, ax = plt.subplots(figsize=(6.5, 3.8))
ax.plot(ws, loss_at(ws), color="tab:blue", label="loss(w) = (w·x − y)²")
for w0, color in [(0.0, "tab:red"), (1.0, "tab:orange"), (3.0, "tab:green")]:
    slope = slope_at(w0)
    near = np.linspace(w0 - 0.8, w0 + 0.8, 2)
    ax.plot(near, loss_at(w0) + slope * (near - w0), "--", color=color,
            label=f"slope at w={w0:g}: {slope:.1f}")
    ax.annotate("", xy=(w0 - 0.04 * slope, loss_at(w0)), xytext=(w0, loss_at(w0)),
                arrowprops={"arrowstyle": "->", "color": color, "lw": 2})
ax.set_xlabel("w")
ax.set_ylabel("loss")
ax.set_ylim(-2, 40)
ax.set_title("Gradient descent steps against the slope (arrows)")
ax.legend(fontsize=8)
plt.show()

# %% id="01-print-f-slope-of-the" tags=["topic:T04"]
print(f"slope of the loss at w = 0, measured: {slope_at(0.0):.4f}")

# %% [markdown] id="01-local-gradients" tags=["topic:T05"]
# ## 5. Local gradients
#
# We want `dloss/dw`, but the loss does not mention `w` directly: the loss depends on `s`, `s`
# depends on `y_hat`, and `y_hat` depends on `w`. Each link on its own is easy to differentiate.
# These are the **local gradients**, one per operation in the tree:
#
# | operation | local gradient | value at `w = 0` (`s = -4`) |
# |---|---|---|
# | `loss = s**2` | `dloss/ds = 2*s` | `-8` |
# | `s = y_hat - y` | `ds/dy_hat = 1` | `1` |
# | `y_hat = w * x` | `dy_hat/dw = x` | `2` |
#
# A local gradient only needs the values that flowed through that operation in the forward pass.
# That is why a framework has to remember them: `x` for the multiplication, `s` for the square.

# %% id="01-w-0-0" tags=["topic:T05"]
w = 0.0
y_hat = w * x       # forward pass, keeping every intermediate value
s = y_hat - y
loss = s ** 2

dloss_ds_0 = 2 * s    # local gradient of the square
ds_dyhat_0 = 1.0      # local gradient of the subtraction (with respect to y_hat)
dyhat_dw_0 = x        # local gradient of the multiplication (with respect to w)
print(f"loss = {loss}, local gradients: {dloss_ds_0}, {ds_dyhat_0}, {dyhat_dw_0}")

# %% [markdown] id="01-the-chain-rule-multiplies-local" tags=["topic:T06"]
# ## 6. The chain rule multiplies local gradients
#
# The chain rule says that the gradient through a chain is the product of the links:
#
# $$
# \frac{d\,\mathrm{loss}}{dw}
# = \frac{d\,\mathrm{loss}}{ds}\cdot\frac{ds}{d\hat y}\cdot\frac{d\hat y}{dw}
# = 2s \cdot 1 \cdot x = (-8)(1)(2) = -16
# $$
#
# **Backpropagation** computes this product starting from the loss end. Each operation receives
# "the gradient of the loss with respect to my output" from the operation after it, multiplies it
# by its own local gradient, and passes the result to the operation before it. The loss starts
# the relay with `dloss/dloss = 1`.

# %% id="01-grad-loss-1-0-dloss" tags=["topic:T06"]
grad_loss = 1.0                        # dloss/dloss: where every backward pass starts
grad_s = grad_loss * dloss_ds_0        # dloss/ds
grad_yhat = grad_s * ds_dyhat_0        # dloss/dy_hat
grad_w = grad_yhat * dyhat_dw_0        # dloss/dw
print(f"dloss/ds = {grad_s}, dloss/dy_hat = {grad_yhat}, dloss/dw = {grad_w}")
print("agrees with the measured slope:", bool(np.isclose(grad_w, slope_at(0.0))))

# %% [markdown] id="01-exercise-1-the-chain-rule"
# ### Exercise 1 — the chain rule by hand (work it out, then write it, 2 points)
#
# Do one backward pass with pen and paper, this time at **`w = 1.5`** (still `x = 2`, `y = 4`).
# First compute `y_hat` and `s`, then the three local gradients, then their product.
#
# Then write the steps you took as `backward_by_hand(w, x, y)`: it returns the three local
# gradients and `dloss/dw`, in the order `dloss_ds, ds_dyhat, dyhat_dw, dloss_dw`, for any
# numbers `w`, `x` and `y`. Use plain arithmetic, as on paper (autograd is switched off while
# this is checked). The check runs it on numbers of its own, one set with `y` near `1e160`:
# there `s**2` is too large for a float (`inf`), but no local gradient is, so take them from
# their formulas, not from differences of the loss. To compare with your paper, call
# `backward_by_hand(1.5, 2.0, 4.0)` in a new cell once it is written.

# %% nbgrader={"grade": false, "grade_id": "nb01_ex1_chain_rule", "locked": false, "schema_version": 3, "solution": true, "task": false}
def backward_by_hand(w, x, y):
    ### BEGIN SOLUTION
    y_hat = w * x
    s = y_hat - y
    dloss_ds = 2 * s
    ds_dyhat = 1.0
    dyhat_dw = x
    dloss_dw = dloss_ds * ds_dyhat * dyhat_dw
    ### END SOLUTION
    return dloss_ds, ds_dyhat, dyhat_dw, dloss_dw

# %% nbgrader={"grade": true, "grade_id": "nb01_ex1_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.chain_rule()

# %% [markdown] id="01-the-update-rule" tags=["topic:T07"]
# ## 7. The update rule
#
# Now that we have the gradient, step 4 moves the weight against it:
#
# $$w \leftarrow w - \eta \cdot \frac{d\,\mathrm{loss}}{dw}$$
#
# The minus sign turns "uphill" into "downhill". The **learning rate** $\eta$ (`lr` in code) sets
# the size of the step. With `lr = 0.01` and a gradient of `-16`, the weight moves from `0` to
# `0 - 0.01 * (-16) = 0.16`.

# %% id="01-lr-0-01" tags=["topic:T07"]
lr = 0.01
w_next = w - lr * grad_w
print(f"w: {w:.3f} -> {w_next:.3f}")
print(f"loss: {loss_at(w):.4f} -> {loss_at(w_next):.4f}")

# %% [markdown] id="01-the-whole-loop-in-numpy" tags=["topic:T08"]
# ## 8. The whole loop in NumPy
#
# Repeating the four steps gives the training loop. We store the data as `float32` arrays (as
# deep-learning frameworks do) and keep `w` as a Python number. With more than one example the
# loss is the mean of the squared errors, and so the gradient is the mean of the per-example
# gradients `2 * (y_hat - y) * x`.

# %% id="01-x-data-np-array-2" tags=["topic:T08"]
x_data = np.array([2.0], dtype=np.float32)
y_data = np.array([4.0], dtype=np.float32)


def forward(x, w):
    return w * x


def gradient(x, y, y_hat):
    """dloss/dw for the mean squared error: the mean over the data of 2 * (y_hat - y) * x."""
    return np.mean(2 * (y_hat - y) * x)


def fit(x, y, w=0.0, lr=0.01, epochs=10, show=True):
    """Train y_hat = w * x by gradient descent; returns the final w and a list of (loss, w, dw)."""
    history = []
    if show:
        print("epoch |           loss |      w |        dw")
    for epoch in range(1, epochs + 1):
        y_hat = forward(x, w)              # 1. forward pass ...
        loss = float(mse(y_hat, y))        #    ... and the loss
        dw = float(gradient(x, y, y_hat))  # 2 + 3. local gradients, chained
        w = w - lr * dw                    # 4. update
        history.append((loss, w, dw))
        if show:
            print(f"{epoch:5d} | {loss:14.8f} | {w:6.3f} | {dw:9.3f}")
    return w, history


w_one, history_one = fit(x_data, y_data)


# %% [markdown] id="01-read-the-first-row-at" tags=["topic:T08"]
# Read the first row: at epoch 1 the loss is **16**, the gradient `dw` is **-16** (exactly what we
# computed by hand), and after the update `w` is **0.160**. Row after row the gradient shrinks
# towards 0, the loss falls, and `w` creeps towards 2. After 10 epochs `w` is only **1.131**: the
# model is learning, but slowly.

# %% [markdown] id="01-exercise-2-a-model-with"
# ### Exercise 2 — a model with a bias (write the code, 3 points)
#
# Extend the loop to the model `y_hat = w * x + b`, which has two parameters. The loss is still
# the mean squared error. Work out the two gradients first:
#
# - `dloss/dw` is the mean of `2 * (y_hat - y) * x` (as before);
# - `dloss/db` is the mean of `2 * (y_hat - y) * ...` — what is `dy_hat/db`?
#
# Write `fit_line(x, y, lr, epochs)`: start from `w = 0` and `b = 0`, run `epochs` updates of both
# parameters (each update uses the gradients computed *before* either parameter changes), and
# return the final `(w, b)` as two floats. The check trains it on lines, learning rates and
# numbers of epochs of its own, once with targets near `1e160`, where the loss overflows (`inf`)
# and the gradients do not: the loop needs the gradients, never the loss itself.

# %% nbgrader={"grade": false, "grade_id": "nb01_ex2_fit_line", "locked": false, "schema_version": 3, "solution": true, "task": false}
def fit_line(x, y, lr, epochs):
    w, b = 0.0, 0.0
    ### BEGIN SOLUTION
    for _ in range(epochs):
        y_hat = w * x + b
        dw = float(np.mean(2 * (y_hat - y) * x))
        db = float(np.mean(2 * (y_hat - y)))
        w, b = w - lr * dw, b - lr * db
    ### END SOLUTION
    return w, b

# %% nbgrader={"grade": true, "grade_id": "nb01_ex2_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.line_with_bias()

# %% [markdown] id="01-more-data-averaged" tags=["topic:T09"]
# ## 9. More data, averaged
#
# One example teaches the model very little. Let us give it four: the inputs `x = 2, 4, 6, 8`
# with the targets `y = 4, 8, 12, 16`. Nothing in `fit` has to change, because `mse` and
# `gradient` already average over however many examples there are.

# %% id="01-x-four-np-array-2" tags=["topic:T09"]
x_four = np.array([2, 4, 6, 8], dtype=np.float32)
y_four = np.array([4, 8, 12, 16], dtype=np.float32)
w_four, history_four = fit(x_four, y_four)

# %% [markdown] id="01-at-epoch-1-the-gradient" tags=["topic:T09"]
# At epoch 1 the gradient is **-120** and one update takes `w` from 0 straight to **1.200**;
# within 10 epochs `w` reaches **2.000** (printed with three decimals). Why so much faster than
# with one example? The gradient is `2 * mean(x**2) * (w - 2)`, and the average of `x**2` over
# these inputs is 30 instead of 4, so every step is longer. With the same learning rate each
# epoch now shrinks the distance to 2 by the factor `1 - 2 * lr * 30 = 0.4`, instead of
# `1 - 2 * lr * 4 = 0.92`. (More examples also average out noise in real data, which our perfect
# data does not have.)

# %% [markdown] id="01-exercise-3-find-the-bug"
# ### Exercise 3 — find the bug (2 points)
#
# A classmate trained on the four examples `x = 1, 2, 3, 4` with targets `y = 2, 4, 6, 8` and
# got a lovely table: the loss starts at **30**, the first gradient is **-120**, and `w` is
# **2.000** after 10 epochs. Their gradient function was meant to average, like ours:

# %% id="01-x-mate-np-array-1"
x_mate = np.array([1, 2, 3, 4], dtype=np.float32)
y_mate = np.array([2, 4, 6, 8], dtype=np.float32)


def gradient_mate(x, y, y_hat):
    """Meant to be the mean over the data of 2 * x * (y_hat - y)."""
    return np.dot(2 * x, y_hat - y).mean()


w_mate = 0.0
print("epoch |           loss |      w |        dw")
for epoch in range(1, 11):
    y_hat = forward(x_mate, w_mate)
    loss = float(mse(y_hat, y_mate))
    dw = float(gradient_mate(x_mate, y_mate, y_hat))
    w_mate = w_mate - 0.01 * dw
    print(f"{epoch:5d} | {loss:14.6f} | {w_mate:6.3f} | {dw:9.3f}")


# %% [markdown] id="01-the-loss-in-this-table"
# The loss in this table is a mean, but the gradient is not the gradient of that loss. Check it:
# at `w = 0` the mean squared error is `mean(y**2) = 30`, and its slope there (measure it, as in
# section 4) is -30, not -120. The mistake is a scale factor that grows with the number of
# examples, so the same learning rate that works on 4 examples would blow up on 4,000.
#
# The classmate's next model is a parabola through 0, `y_hat = w * x**2`, and they wrote its
# gradient the same way: `np.dot(2 * x**2, y_hat - y).mean()`. Write
# `gradient_fixed(x, y, y_hat)` so that it returns the true gradient of `mse(y_hat, y)` with
# respect to `w` for this model, for any number of examples: the check tries one example, a
# few, many, and targets near `1e160` (the loss overflows there, its gradient does not). Work it
# out as in sections 5 and 6: which number multiplies `w` now? *Hint:* what does `np.dot` do to
# the products before `.mean()` is called?

# %% nbgrader={"grade": false, "grade_id": "nb01_ex3_find_the_bug", "locked": false, "schema_version": 3, "solution": true, "task": false}
def gradient_fixed(x, y, y_hat):
    ### BEGIN SOLUTION
    return np.mean(2 * x**2 * (y_hat - y))
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb01_ex3_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.mean_gradient()

# %% [markdown] id="01-note-on-the-source-article"
# > **Note on the source.** Article 004 ("你所不知道的 Pytorch 大補包(十):Pytorch 如何實做出 Backpropagation 之什麼是 Backpropagation", a blog post that names no author or address; its last section, where it adds data) gives its loop the
# > four examples `x = 2, 4, 6, 8` and prints a table that starts "loss: 30.00000000, w: 1.200,
# > dw: -120.000". That table does not come from those four examples. Its gradient,
# > `np.dot(2*x, y_hat-y).mean()`, is the classmate's function above: `np.dot` already adds the
# > four products into one number, so `.mean()` has nothing left to average. On `x = 2, 4, 6, 8`
# > that code starts with loss 120 and `dw = -480`, jumps to `w = 4.8` and diverges. The article's
# > table (loss 30, `dw = -120`, then `w` = 1.200, 1.680, 1.872, ...) is what it gives on
# > `x = 1, 2, 3, 4`, the classmate's data. This notebook averages properly: on `x = 2, 4, 6, 8`
# > (section 9) the loss starts at 120, the gradient at -120, and `w` follows the same path as
# > the article's table. PyTorch's `nn.MSELoss` with `optim.SGD` prints exactly that table, as
# > notebook 02 shows.

# %% [markdown] id="01-what-you-can-tune" tags=["topic:T10"]
# ## 10. What you can tune
#
# Three knobs decide how well this loop does:
#
# - **epochs**: more repetitions give more steps; we saw `w = 1.131` after 10 epochs on one
#   example, and it keeps approaching 2 if you keep going;
# - **data**: more (and more varied) examples give better-informed gradients;
# - **learning rate**: the step size. Too small and training crawls. Too large and every step
#   overshoots the bottom of the valley, lands higher up on the other side, and training
#   *diverges*.
#
# For our one-example model each update multiplies the distance to the answer by
# `1 - 8 * lr`. Any `lr` below 0.125 approaches 2 from one side; between 0.125 and 0.25 it
# overshoots but still settles; above 0.25 the distance grows every epoch.

# %% id="01-fig-ax-plt-subplots-figsize" tags=["topic:T10"]
fig, ax = plt.subplots(figsize=(6.5, 3.8))
for lr_try in [0.002, 0.02, 0.1, 0.2, 0.26]:
    _, hist = fit(x_data, y_data, lr=lr_try, epochs=25, show=False)
    ax.plot(range(1, 26), [w_after for _, w_after, _ in hist], marker=".", label=f"lr = {lr_try}")
ax.axhline(2.0, color="gray", lw=1, ls=":")
ax.set_xlabel("epoch")
ax.set_ylabel("w after the update")
ax.set_ylim(-1, 5)
ax.set_title("Too small crawls, too large diverges")
ax.legend(fontsize=8)
plt.show()

# %% [markdown] id="01-try-it-yourself" tags=["topic:T10"]
# ### Try it yourself
#
# Move the sliders: pick the data set, the learning rate and the number of epochs, and watch the
# loss curve and the table update. Find the largest learning rate that still converges for each
# data set. Why is it smaller for the four examples?

# %% id="01-from-autogradkit-viz-import-trainingexplorer" tags=["topic:T10"]
from autogradkit.viz import TrainingExplorer

TrainingExplorer()

# %% [markdown] id="01-exercise-4-predict-before-you"
# ### Exercise 4 — predict before you run (predict, no points)
#
# Start again from `w = 0` on the single example (`x = 2`, `y = 4`), but with the learning rate
# `lr = 0.3`. Without running the loop, predict:
#
# 1. `w_after_one_step`: the value of `w` after the first update;
# 2. `converges`: `True` if training with this learning rate would approach `w = 2`, `False` if it
#    diverges.
#
# Predict first: a wrong prediction is marked wrong; then run section 8's
# `fit(np.array([2.0]), np.array([4.0]), lr=0.3, epochs=3)` and see what happens.

# %% nbgrader={"grade": false, "grade_id": "nb01_ex4_predict", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set w_after_one_step (a number) and converges (True or False).
### BEGIN SOLUTION
w_after_one_step = 4.8
converges = False
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb01_ex4_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.large_learning_rate()

# %% [markdown] id="01-recap"
# ## Recap
#
# - Training repeats four steps: forward pass (and loss), local gradients, backpropagation,
#   weight update.
# - The mean squared error of `y_hat = w * x` on `x = 2, y = 4` is 16 at `w = 0` and falls to 0
#   at `w = 2`.
# - A gradient is a slope. Gradient descent steps against it: `w <- w - lr * dloss/dw`.
# - The chain rule multiplies local gradients: `dloss/dw = 2s · 1 · x = -16` at the start.
# - Averaging over more examples, choosing the learning rate and training longer all change how
#   fast `w` gets to 2. Too large a learning rate makes training diverge.
#
# **Next:** notebook 02 hands steps 2 and 3 to autograd and looks at what it records.
#
# **Further reading** in PyTorch's documentation:
#
# - [`torch.nn.MSELoss`](https://docs.pytorch.org/docs/stable/generated/torch.nn.MSELoss.html):
#   the mean squared error of section 3, as PyTorch ships it
# - [`Tensor.backward`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.backward.html):
#   the call that does steps 2 and 3 in notebook 02
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="01-checks-check-progress"
checks.check.progress()
