# %% [markdown] id="02-what-autograd-does-for-you"
# # 02 · What autograd does for you
#
# In notebook 01 you worked out `dloss/dw` with the chain rule and typed the formula into a
# `gradient` function. That does not scale: a real network has millions of weights and hundreds of
# operations between them and the loss. autograd does this work for you. This notebook shows what
# it records during the forward pass, what `backward()` does with the record, and the handful of
# rules (`requires_grad`, leaves, accumulation, `no_grad`) that follow from it.
#
# **Time:** about 1 h 35 min: 50 min to read and run the cells, 45 min for the exercises
# (estimated from the notebook's length and points, as notebook 00 explains).
#
# **Before you start:** notebook 01 (the four steps of training, the one-weight model, the chain
# rule worked by hand).
#
# **Learning goals.** By the end of this notebook you can
#
# - rewrite the NumPy loop of notebook 01 with `MSELoss`, `backward()`, `SGD` and `zero_grad()`,
#   and get the same table;
# - say what `requires_grad` does and why it is off by default;
# - predict `grad`, `grad_fn` and `is_leaf` in a small graph, and the gradient of a tensor that is
#   used twice (exercise 1);
# - follow a backward pass through `MulBackward0` and `AccumulateGrad` by hand (`a.grad = 12`,
#   `d.grad = 6`);
# - explain why non-leaf tensors keep no `.grad`, and keep one with `retain_grad()`;
# - fix a loop that clears one parameter's gradient and not the other's (exercise 2), and
#   accumulate the gradients of the pieces of a batch on purpose (exercise 3);
# - predict whether a result is tracked after `requires_grad_(False)`, `detach()` or `no_grad()`
#   (exercise 4);
# - say what `model.eval()`, `no_grad()` and `inference_mode()` each change (exercise 5), and
#   write an evaluation helper that needs both kinds (exercise 6).
#
# **Graded exercises:** 6 exercises, **9 points** in total (predictions teach: they count for no points).

# %% id="02-import-numpy-as-np"
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit import nn
from autogradkit.viz import BackpropStepper, draw_graph

import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)

# %% [markdown] id="02-the-same-loop-with-autograd" tags=["topic:T11"]
# ## 1. The same loop, with autograd
#
# Here is the four-example training loop of notebook 01 (`x = 2, 4, 6, 8`, targets `2x`,
# `lr = 0.01`), written the way you will see it in every PyTorch tutorial. Compare each line with
# the four steps:
#
# - `w` is a tensor with `requires_grad=True`: "please track what happens to me";
# - `nn.MSELoss()` is the mean squared error;
# - `loss.backward()` does steps 2 and 3: local gradients, chained, stored in `w.grad`;
# - `optimizer.step()` does step 4: `w <- w - lr * w.grad`;
# - `optimizer.zero_grad()` clears `w.grad` for the next epoch (section 9 explains why).

# %% id="02-x-agk-tensor-2-4" tags=["topic:T11"]
x = agk.tensor([2, 4, 6, 8], dtype=agk.float32)
y = agk.tensor([4, 8, 12, 16], dtype=agk.float32)
w = agk.tensor(0.0, requires_grad=True)

loss_fn = nn.MSELoss()
optimizer = agk.optim.SGD([w], lr=0.01)

print("epoch |           loss |      w |        dw")
for epoch in range(1, 11):
    y_hat = w * x                  # 1. forward pass
    loss = loss_fn(y_hat, y)       #    ... and the loss
    loss.backward()                # 2 + 3. autograd fills w.grad
    dw = w.grad.item()
    optimizer.step()               # 4. update w
    optimizer.zero_grad()          #    clear w.grad for the next epoch
    print(f"{epoch:5d} | {loss.item():14.8f} | {w.item():6.3f} | {dw:9.3f}")

# %% [markdown] id="02-the-same-table-as-in" tags=["topic:T11"]
# The same table as in notebook 01: the gradient is **-120** at epoch 1 and `w` reaches
# **2.000** within 10 epochs. (The last digits of the loss can differ slightly from the NumPy
# version, which kept `w` in double precision.) We never wrote a derivative. The rest of this
# notebook opens up what happened inside `loss.backward()`.
#
# > **Note on the source.** Article 000 ("你所不知道的 Pytorch 大補包(十一):Pytorch 如何實驗 Backpropagation 之 Pytorch AutoGrad 幫我們做了什麼事?", a blog post that names no author or address; its first code block, the loop with `MSELoss` and
# > `SGD`) prints `f"epoch: {epoch+1}, ..."` inside `for epoch in range(1, epochs+1)`, so its
# > first line would say epoch 2 about the first update; the table here counts from 1. It also
# > prints `w.grad` after `optimizer.zero_grad()`, which in PyTorch 2.x is `None`: `zero_grad()`
# > sets the gradients to `None` (section 9). So the loop here reads the gradient right after
# > `backward()`.

# %% [markdown] id="02-requires-grad-asking-for-gradients" tags=["topic:T12"]
# ## 2. `requires_grad`: asking for gradients
#
# A tensor starts with `requires_grad=False`. Setting it to `True` is how you say "I will want
# the gradient of something with respect to this tensor". It shows in the tensor's printout:

# %% id="02-data-agk-tensor-1-2" tags=["topic:T12"]
data = agk.tensor([1, 2, 3, 4], dtype=agk.float32)
weight = agk.tensor(0.0, requires_grad=True)
print(data)
print(weight)

# %% [markdown] id="02-why-not-track-everything-because" tags=["topic:T12"]
# Why not track everything? Because tracking costs memory. To compute gradients later, every
# operation on a tracked tensor keeps what its backward needs (for `w * x` that is `x`) and a node
# of the graph. For the data you feed a network, and for every evaluation run, that would be
# memory spent on gradients nobody asks for. So tracking is opt-in: you switch it on for the
# parameters you train.

# %% [markdown] id="02-the-forward-pass-records-a" tags=["topic:T13"]
# ## 3. The forward pass records a graph
#
# Multiply two tensors that need no gradient and you get a plain result. Make just one of the
# inputs require grad and the result requires grad too, and carries a `grad_fn`: the node of the
# graph that knows how to send gradients back to the inputs.

# %% id="02-a-agk-tensor-2-0" tags=["topic:T13"]
a = agk.tensor(2.0)
b = agk.tensor(3.0)
c = a * b
print("without tracking:", c, "| requires_grad:", c.requires_grad, "| grad_fn:", c.grad_fn)

a = agk.tensor(2.0, requires_grad=True)
c = a * b
print("a requires grad: ", c, "| requires_grad:", c.requires_grad)

# %% [markdown] id="02-every-later-result-computed-from" tags=["topic:T13"]
# Every later result computed from `c` will require grad as well, so the whole chain from `a` to
# the loss gets recorded. Here is the recorded graph. Arrows point the way the gradient will flow,
# from the result back to the inputs. `b` needs no gradient, so no arrow leads to it:

# %% id="02-draw-graph-c-names-a" tags=["topic:T13"]
draw_graph(c, names={"a": a, "b": b, "c": c})

# %% [markdown] id="02-three-new-attributes-grad-grad" tags=["topic:T14"]
# ## 4. Three new attributes: `grad`, `grad_fn`, `is_leaf`
#
# - **`grad`**: where the gradient ends up. It is `None` until a backward pass fills it.
# - **`grad_fn`**: the backward node that made this tensor (`MulBackward0` here), or `None` for a
#   tensor you created yourself.
# - **`is_leaf`**: `True` for tensors you created (no `grad_fn`), `False` for results of tracked
#   operations. Only leaves get their `.grad` filled in, which saves memory again.
#
# Reading `c.grad` below prints a warning in red; section 7 explains it.

# %% id="02-for-name-t-in-a" tags=["topic:T14"]
for name, t in [("a", a), ("b", b), ("c", c)]:
    node = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    print(f"{name}: grad={t.grad}  grad_fn={node}  is_leaf={t.is_leaf}  "
          f"requires_grad={t.requires_grad}")

# %% [markdown] id="02-c-backward-one-step-at" tags=["topic:T15"]
# ## 5. `c.backward()`, one step at a time
#
# What happens when we call `c.backward()` on `c = a * b`?
#
# 1. The engine starts at `c` with the gradient `dc/dc = 1`.
# 2. It calls `c.grad_fn`, the `MulBackward0` node. For `c = a · b` the local gradients are
#    `dc/da = b = 3` and `dc/db = a = 2`. Only `a` needs a gradient, so only `1 · 3 = 3` is sent
#    on (the `b` side is skipped).
# 3. The gradient arrives at `AccumulateGrad`, the node that stands for the leaf `a`. It *adds*
#    the gradient into `a.grad`.

# %% id="02-c-backward" tags=["topic:T15"]
c.backward()
print("a.grad =", a.grad)
print("b.grad =", b.grad, " (b does not require grad, so it gets nothing)")

# %% [markdown] id="02-step-through-the-engine" tags=["topic:T15", "topic:T16"]
# ### Step through the engine
#
# The stepper below replays the backward pass of `e = (a * b) * d` node by node, on the real
# engine. Press **Step ▶** and watch which node runs, which gradient travels along each arrow, and
# when `a.grad` and `d.grad` get written. Section 6 works through the same numbers by hand.

# %% id="02-a-agk-tensor-2-0-2" tags=["topic:T15", "topic:T16"]
a = agk.tensor(2.0, requires_grad=True)
d = agk.tensor(4.0, requires_grad=True)
c = a * b
e = c * d
BackpropStepper(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})

# %% [markdown] id="02-exercise-1-predict-what-autograd"
# ### Exercise 1 — predict what autograd prints (predict, no points)
#
# Let `a = agk.tensor(2.0, requires_grad=True)` and `b = agk.tensor(3.0)`, and compute
# `f = (a + b) * a`. Notice that `a` is used twice. Predict `a.grad` and `b.grad` after
# `f.backward()`. Write a number, or `None`.

# %% nbgrader={"grade": false, "grade_id": "nb02_ex1_predict", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set predicted_a_grad (a number or None) and predicted_b_grad (a number or None).
### BEGIN SOLUTION
predicted_a_grad = 7.0
predicted_b_grad = None
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb02_ex1_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.reuse_prediction()

# %% [markdown] id="02-a-longer-chain-e-a" tags=["topic:T16"]
# ## 6. A longer chain: `e = (a * b) * d`
#
# Add a second leaf `d = 4` that requires grad, and one more multiplication:
#
# ```
# c = a * b      # 6
# e = c * d      # 24
# ```
#
# By hand, walking back from `e`:
#
# - `de/dd = c = 6`, so `d.grad = 6`;
# - `de/dc = d = 4`; `c` is not a leaf, so this gradient is not stored but passed on to
#   `c.grad_fn`;
# - `dc/da = b = 3`, so `a.grad = 4 · 3 = 12` (the chain rule: multiply along the path).
#
# > **Note on the source.** Article 000 ("你所不知道的 Pytorch 大補包(十一):Pytorch 如何實驗 Backpropagation 之 Pytorch AutoGrad 幫我們做了什麼事?", a blog post that names no author or address; section "Backpropagation", its walk through
# > `e = c * d`) writes `de/dc = d(c*d)/dc = d = 6.0` and `de/dd = d(c*d)/dd = c = 4.0`. The
# > formulas are right but the numbers are swapped: `d = 4` and `c = 6`, so `de/dc = 4` and
# > `de/dd = 6`. PyTorch agrees: with `c.retain_grad()`, `e.backward()` gives `c.grad = 4` and
# > `d.grad = 6`. The article itself goes on with the right 4 ("再乘上傳進來的 4", times the 4
# > passed in) to get `a.grad = 12`, and prints `d.grad -> 6.0`.

# %% id="02-a-agk-tensor-2-0-3" tags=["topic:T16"]
a = agk.tensor(2.0, requires_grad=True)
b = agk.tensor(3.0)
d = agk.tensor(4.0, requires_grad=True)
c = a * b
e = c * d
e.backward()
print("a.grad =", a.grad)
print("d.grad =", d.grad)

# %% [markdown] id="02-the-kit-can-replay-a" tags=["topic:T16"]
# The kit can replay a backward pass and write on each arrow the gradient that travelled along
# it. Follow `1` from `e`, `4` into the first `MulBackward0`, `6` to `d` and `12` to `a`:

# %% id="02-a-agk-tensor-2-0-4" tags=["topic:T16"]
a = agk.tensor(2.0, requires_grad=True)
d = agk.tensor(4.0, requires_grad=True)
c = a * b
e = c * d
draw_graph(e, names={"a": a, "b": b, "c": c, "d": d, "e": e}, trace=True)

# %% [markdown] id="02-non-leaf-tensors-keep-no" tags=["topic:T17"]
# ## 7. Non-leaf tensors keep no `.grad`
#
# Now run the backward pass and ask every tensor for its gradient:

# %% id="02-e-backward" tags=["topic:T17"]
e.backward()
print("a.grad ->", a.grad)
print("c.grad ->", c.grad)
print("d.grad ->", d.grad)
print("e.grad ->", e.grad)

# %% [markdown] id="02-a-grad-and-d-grad" tags=["topic:T17"]
# `a.grad` and `d.grad` are right, but `c.grad` and `e.grad` are `None`, and reading them triggers
# a `UserWarning` (shown in red above). The gradient *did* pass through `c` (that is how the 4
# reached `a`), but only leaves have an `AccumulateGrad` node that stores it. For intermediate
# results the gradient is handed straight to the next node and then freed. The warning exists
# because reading `.grad` of a non-leaf is almost always a mistake: usually you meant a leaf.

# %% [markdown] id="02-retain-grad-keeping-a-non" tags=["topic:T18"]
# ## 8. `retain_grad()`: keeping a non-leaf's gradient
#
# If you really want the gradient of an intermediate result, ask for it *before* the backward
# pass with `retain_grad()`:

# %% id="02-a-agk-tensor-2-0-5" tags=["topic:T18"]
a = agk.tensor(2.0, requires_grad=True)
d = agk.tensor(4.0, requires_grad=True)
c = a * b
c.retain_grad()
e = c * d
e.retain_grad()
e.backward()
print("a.grad ->", a.grad)
print("c.grad ->", c.grad)
print("d.grad ->", d.grad)
print("e.grad ->", e.grad)
print("c is still not a leaf:", not c.is_leaf, "| c.retains_grad:", c.retains_grad)

# %% [markdown] id="02-accumulategrad-adds-why-the-loop" tags=["topic:T19"]
# ## 9. `AccumulateGrad` adds: why the loop zeroes gradients
#
# `AccumulateGrad` does not overwrite `.grad`, it **adds** to it. Run three backward passes on the
# one-example loss of notebook 01 (`loss = (2w - 4)²` at `w = 0`, gradient `-16`) without clearing:

# %% id="02-w-agk-tensor-0-0" tags=["topic:T19"]
w = agk.tensor(0.0, requires_grad=True)
for attempt in range(3):
    loss = (w * 2 - 4) ** 2
    loss.backward()
    print(f"after backward #{attempt + 1}: w.grad = {w.grad!r}")


# %% [markdown] id="02-in-a-training-loop-that" tags=["topic:T19"]
# In a training loop that is a bug: each step would use the sum of all gradients so far. This is
# why the loop calls `optimizer.zero_grad()` (in PyTorch 2.x it sets `.grad` to `None`). Here is
# the loop of section 1 with and without that line:

# %% id="02-def-train-zero-grad-epochs" tags=["topic:T19"]
def train(zero_grad, epochs=10):
    w = agk.tensor(0.0, requires_grad=True)
    optimizer = agk.optim.SGD([w], lr=0.01)
    losses = []
    for _ in range(epochs):
        loss = loss_fn(w * x, y)
        loss.backward()
        optimizer.step()
        if zero_grad:
            optimizer.zero_grad()
        losses.append(loss.item())
    return w, losses


w_good, losses_good = train(zero_grad=True)
w_bad, losses_bad = train(zero_grad=False)
print(f"with zero_grad:    w = {w_good.item():.3f}")
print(f"without zero_grad: w = {w_bad.item():.3f}")

fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.semilogy(range(1, 11), losses_good, "o-", label="optimizer.zero_grad() every epoch")
ax.semilogy(range(1, 11), losses_bad, "s--", label="zero_grad() forgotten")
ax.set_xlabel("epoch")
ax.set_ylabel("loss (log scale)")
ax.set_title("Gradients that pile up make training wander")
ax.legend()
plt.show()


# %% [markdown] id="02-exercise-2-find-the-bug"
# ### Exercise 2 — find the bug (3 points)
#
# A classmate gave the model of section 1 a bias, `y_hat = w * x + b`. They read section 9 and
# clear a gradient by hand after each step, yet their line drifts further off with every epoch.
# Their code:
#
# ```python
# def train_classmate(x, y, epochs):
#     w = agk.tensor(0.0, requires_grad=True)
#     b = agk.tensor(0.0, requires_grad=True)
#     optimizer = agk.optim.SGD([w, b], lr=0.01)
#     for _ in range(epochs):
#         loss = loss_fn(w * x + b, y)
#         loss.backward()
#         optimizer.step()
#         w.grad = None    # a fresh gradient for the next epoch
#     return w, b
# ```
#
# Write a corrected `train_fixed(x, y, epochs)` that returns the two trained leaves `w, b` (the
# tensors themselves). The check trains it on lines of its own and compares `w` and `b` after
# one epoch and after several.

# %% nbgrader={"grade": false, "grade_id": "nb02_ex2_find_the_bug", "locked": false, "schema_version": 3, "solution": true, "task": false}
def train_fixed(x, y, epochs):
    w = agk.tensor(0.0, requires_grad=True)
    b = agk.tensor(0.0, requires_grad=True)
    optimizer = agk.optim.SGD([w, b], lr=0.01)
    ### BEGIN SOLUTION
    for _ in range(epochs):
        loss = loss_fn(w * x + b, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    ### END SOLUTION
    return w, b

# %% nbgrader={"grade": true, "grade_id": "nb02_ex2_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.fixed_loop()

# %% [markdown] id="02-accumulating-gradients-on-purpose" tags=["topic:T20"]
# ## 10. Accumulating gradients on purpose
#
# The adding behaviour is also useful. When a batch of data does not fit in memory at once, split
# it into smaller pieces, call `backward()` on each, and only step once all pieces are in. To get
# the same gradient as the whole batch, divide each piece's loss by the number of pieces (each
# piece's loss is a mean over fewer examples). Here the four examples are processed as two
# mini-batches of two:

# %% id="02-w-agk-tensor-0-0-2" tags=["topic:T20"]
w = agk.tensor(0.0, requires_grad=True)
pieces = [(x[:2], y[:2]), (x[2:], y[2:])]
for x_piece, y_piece in pieces:
    loss = loss_fn(w * x_piece, y_piece) / len(pieces)
    loss.backward()                      # adds into w.grad
print("accumulated over 2 pieces:", w.grad)

w_full = agk.tensor(0.0, requires_grad=True)
loss_fn(w_full * x, y).backward()
print("whole batch at once:      ", w_full.grad)


# %% [markdown] id="02-in-a-training-loop-the" tags=["topic:T20"]
# In a training loop the pattern looks like this: divide, call `backward()` every time, and step
# (and zero) only every `accumulation_steps` batches:
#
# ```python
# for i, (inputs, targets) in enumerate(batches):
#     loss = loss_fn(model(inputs), targets) / accumulation_steps
#     loss.backward()
#     if (i + 1) % accumulation_steps == 0:
#         optimizer.step()
#         optimizer.zero_grad()
# ```

# %% [markdown] id="02-exercise-3-gradient-accumulation-write"
# ### Exercise 3 — gradient accumulation (write the code, 3 points)
#
# Write `accumulated_grad(x, y, w_value, batch_size)`: make a leaf `w` holding `w_value`, split the
# data into consecutive pieces of `batch_size` examples (assume it divides the data evenly), and
# accumulate the gradients of the pieces' MSE losses so that the result equals the gradient of the
# MSE over all the data. Return `w.grad`.

# %% nbgrader={"grade": false, "grade_id": "nb02_ex3_accumulate", "locked": false, "schema_version": 3, "solution": true, "task": false}
def accumulated_grad(x, y, w_value, batch_size):
    w = agk.tensor(w_value, requires_grad=True)
    ### BEGIN SOLUTION
    n_pieces = len(x) // batch_size
    for start in range(0, len(x), batch_size):
        piece = slice(start, start + batch_size)
        loss = loss_fn(w * x[piece], y[piece]) / n_pieces
        loss.backward()
    ### END SOLUTION
    return w.grad

# %% nbgrader={"grade": true, "grade_id": "nb02_ex3_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.accumulation()
### BEGIN HIDDEN TESTS
checks.accumulation_called_twice()
### END HIDDEN TESTS

# %% [markdown] id="02-three-ways-to-stop-tracking" tags=["topic:T21"]
# ## 11. Three ways to stop tracking
#
# Sometimes you want a tensor's value without its history:
#
# 1. **`x.requires_grad_(False)`** switches tracking off for `x` itself, in place (the trailing
#    underscore marks in-place methods);
# 2. **`x.detach()`** returns a new tensor that shares `x`'s data but has no history (`x` is left
#    as it was);
# 3. **`with agk.no_grad():`** switches recording off for everything computed inside the block.

# %% id="02-x1-agk-tensor-3-0" tags=["topic:T21"]
x1 = agk.tensor(3.0, requires_grad=True)
print("1. before:", x1)
x1.requires_grad_(False)
print("   after: ", x1)

x2 = agk.tensor(3.0, requires_grad=True)
print("2. x2.detach():", x2.detach(), "| x2 itself is still", x2)

x3 = agk.tensor(3.0, requires_grad=True)
with agk.no_grad():
    y3 = x3 + 2
print("3. x3 + 2 under no_grad():", y3, "| requires_grad:", y3.requires_grad)

# %% [markdown] id="02-no-grad-is-the-one" tags=["topic:T21"]
# `no_grad()` is the one you will use most, every time you *evaluate* a model: computing
# predictions on test data, or a validation loss. Forgetting it is a classic reason for running
# out of memory during evaluation, because every prediction would record a graph nobody
# backpropagates through. Evaluating under `no_grad()` also guarantees that nothing you do there
# can end up in the gradients of the parameters:

# %% id="02-w-trained-train-zero-grad" tags=["topic:T21"]
w_trained, _ = train(zero_grad=True)     # the trained leaf from section 9
with agk.no_grad():
    predictions = w_trained * agk.tensor([10.0, 20.0])
print(predictions)

# %% [markdown] id="02-exercise-4-tracked-or-not"
# ### Exercise 4 — tracked or not? (predict, no points)
#
# Start from `x = agk.tensor(3.0, requires_grad=True)`. For each line, predict the value of
# `.requires_grad` of the result, in order:
#
# | key | code |
# |---|---|
# | `"a"` | `x.detach() * 2` |
# | `"b"` | `z = x * 2` computed inside `with agk.no_grad():` |
# | `"c"` | `z * x`, computed after the `no_grad` block |
# | `"d"` | `x * 2` after calling `x.requires_grad_(False)` |

# %% nbgrader={"grade": false, "grade_id": "nb02_ex4_tracked", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set tracked = {"a": ..., "b": ..., "c": ..., "d": ...} with True or False values.
### BEGIN SOLUTION
tracked = {"a": False, "b": False, "c": True, "d": False}
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb02_ex4_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.tracked_or_not()

# %% [markdown] id="02-model-eval-no-grad-and" tags=["topic:T21"]
# ## 12. `model.eval()`, `no_grad()` and `inference_mode()`: three different switches
#
# Evaluation code in PyTorch usually has two lines around it, `model.eval()` and a `with` block,
# and they are often taken for one thing. Each changes something different:
#
# - **`model.eval()`** changes how *layers* behave. Some layers act differently while training:
#   `nn.Dropout(p)` sets a random fraction `p` of its inputs to zero (and scales the others by
#   `1 / (1 - p)`), but passes everything through unchanged in evaluation mode. `eval()` sets
#   `training = False` on the model and on every layer inside it; `model.train()` switches back.
#   It does nothing to autograd: the graph is still recorded.
# - **`with agk.no_grad():`** switches *recording* off (section 11), and nothing else: a model
#   in training mode still drops values inside the block.
# - **`with agk.inference_mode():`** is `no_grad()` and one step more: every tensor made inside
#   is an *inference tensor*, which skips autograd's bookkeeping (it has no version counter,
#   notebook 04), so it can never be saved for a backward pass later.
#
# A small model with a dropout layer shows each switch on its own. For each setting, the cell
# runs the model twice on the same inputs:

# %% id="02-agk-manual-seed-0" tags=["topic:T21"]
agk.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))
inputs = agk.randn(4, 3)


def run_twice(label):
    first, second = model(inputs), model(inputs)
    node = type(first.grad_fn).__name__ if first.grad_fn is not None else None
    print(f"{label:35} same output twice: {bool((first == second).all())!s:5}  "
          f"requires_grad: {first.requires_grad!s:5}  grad_fn: {node}")


print("model.training:", model.training)
run_twice("training mode")
with agk.no_grad():
    run_twice("training mode, inside no_grad()")
model.eval()
print("model.eval() -> model.training:", model.training, "| the Dropout layer's:", model[2].training)
run_twice("eval mode")
with agk.no_grad():
    run_twice("eval mode, inside no_grad()")
with agk.inference_mode():
    run_twice("eval mode, inside inference_mode()")
model.train()
print("model.train() -> model.training:", model.training)

# %% [markdown] id="02-only-eval-makes-the-predictions" tags=["topic:T21"]
# Only `eval()` makes the predictions repeatable, and only the `with` blocks stop the recording,
# so evaluation code needs both. Between `no_grad()` and `inference_mode()` the difference
# appears when a result is used again later, in a computation autograd records. Multiplying by
# a tensor `w` that requires grad saves the other factor for `w`'s gradient, and an inference
# tensor cannot be saved (a `clone()` made outside the block is an ordinary tensor again):

# %% id="02-w-agk-tensor-2-0" tags=["topic:T21"]
w = agk.tensor(2.0, requires_grad=True)
model.eval()
with agk.no_grad():
    plain = model(inputs)
with agk.inference_mode():
    frozen = model(inputs)
model.train()
print("plain.is_inference():", plain.is_inference(), "| frozen.is_inference():",
      frozen.is_inference())
print("plain * w          ->", (plain * w).grad_fn)
try:
    frozen * w
except RuntimeError as error:
    print(f"frozen * w         -> {type(error).__name__}: {error}")
print("frozen.clone() * w ->", (frozen.clone() * w).grad_fn)

# %% [markdown] id="02-so-model-eval-for-the" tags=["topic:T21"]
# So: `model.eval()` for the layers, and `no_grad()` for the graph; `inference_mode()` instead
# of `no_grad()` when the results will never take part in training (it is slightly faster), and
# `model.train()` before training goes on.

# %% [markdown] id="02-exercise-5-which-switch-does"
# ### Exercise 5 — which switch does what? (predict, no points)
#
# `model` is a network with a dropout layer (many units), in training mode; `x` is a batch of
# inputs and `w = agk.tensor(2.0, requires_grad=True)`. Each row starts afresh. Predict `True` or
# `False`:
#
# | key | code | question |
# |---|---|---|
# | `"a"` | `model.eval()` inside a `with agk.no_grad():` block; after the block, `out = model(x)` | does `out` require grad? |
# | `"b"` | the same, then `out1, out2 = model(x), model(x)` after the block | are `out1` and `out2` equal? |
# | `"c"` | inside one `with agk.inference_mode():` block, `out = model(x)` and then `loss = (out * w).sum()` | does the last line raise? |
# | `"d"` | inside a `with agk.inference_mode():` block, `out = model(x)`; after the block, `loss = (out * w).sum()` | does the last line raise? |

# %% nbgrader={"grade": false, "grade_id": "nb02_ex5_switches", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set switches = {"a": ..., "b": ..., "c": ..., "d": ...} with True or False values.
### BEGIN SOLUTION
switches = {"a": True, "b": True, "c": False, "d": True}
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb02_ex5_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.three_switches()

# %% [markdown] id="02-exercise-6-an-evaluation-helper"
# ### Exercise 6 — an evaluation helper (write the code, 3 points)
#
# Write `evaluate(model, x)`: it returns the model's predictions for `x` as evaluation code
# should compute them, with every layer in evaluation mode and without recording a graph. A
# training loop calls such a helper between epochs and then goes on training, so afterwards the
# model must be back in the mode it was in before the call (`model.training` tells you which;
# `model.train(mode)` sets it). The check runs it on models with dropout of its own, starting
# from either mode, and watches whether a graph is recorded while the layers run.

# %% nbgrader={"grade": false, "grade_id": "nb02_ex6_evaluate", "locked": false, "schema_version": 3, "solution": true, "task": false}
def evaluate(model, x):
    ### BEGIN SOLUTION
    was_training = model.training
    model.eval()
    with agk.no_grad():
        predictions = model(x)
    model.train(was_training)
    return predictions
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb02_ex6_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.evaluation()
### BEGIN HIDDEN TESTS
checks.evaluation_in_a_loop()
### END HIDDEN TESTS

# %% [markdown] id="02-recap"
# ## Recap
#
# - With autograd the training loop is: forward, `loss.backward()`, `optimizer.step()`,
#   `optimizer.zero_grad()`. It prints the same table as the NumPy loop (`dw = -120`, `w = 2.000`).
# - `requires_grad=True` asks for gradients. It is off by default because recording costs memory.
# - One tracked input makes every result tracked; results carry a `grad_fn`.
# - `grad` is `None` until backward; `grad_fn` is the backward node; `is_leaf` marks tensors you
#   created. Only leaves store `.grad` (`c = a * b` gives `a.grad = 3`; `e = (a * b) * d` gives
#   `a.grad = 12`, `d.grad = 6`); `retain_grad()` keeps a non-leaf's gradient.
# - `AccumulateGrad` adds into `.grad`: zero the gradients every step, or accumulate on purpose
#   with the loss divided by the number of steps.
# - Stop tracking with `requires_grad_(False)`, `detach()` or `no_grad()`; evaluate under
#   `no_grad()`.
# - Three different switches: `model.eval()` changes how layers such as `Dropout` behave and
#   still records the graph; `no_grad()` stops recording; `inference_mode()` stops recording and
#   makes inference tensors, which cannot be saved for a backward pass later. Evaluation code
#   uses `eval()` and a `with` block, and `train()` again afterwards.
#
# **Next:** notebook 03 calls `backward()` on outputs that are not a single number.
#
# **Further reading** in PyTorch's documentation:
#
# - [Autograd mechanics](https://docs.pytorch.org/docs/stable/notes/autograd.html):
#   how the graph is recorded and what it saves
# - [`Tensor.is_leaf`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html):
#   which tensors are leaves and get a `.grad`
# - [`Tensor.retain_grad`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.retain_grad.html):
#   keeping a non-leaf's gradient
# - [`Optimizer.zero_grad`](https://docs.pytorch.org/docs/stable/generated/torch.optim.Optimizer.zero_grad.html):
#   why it sets `.grad` to `None`
# - [`torch.no_grad`](https://docs.pytorch.org/docs/stable/generated/torch.no_grad.html):
#   switching recording off
# - [`Tensor.detach`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.detach.html):
#   a tensor without history
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="02-checks-check-progress"
checks.check.progress()
