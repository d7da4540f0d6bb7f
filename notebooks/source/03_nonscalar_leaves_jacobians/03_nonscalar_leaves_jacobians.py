# %% [markdown] id="03-backward-on-non-scalars-leaves"
# # 03 · `backward()` on non-scalars, leaves and Jacobians
#
# So far every `backward()` started from a single number, the loss. This notebook asks what
# happens when the output is a vector or a matrix, which tensors count as *leaves* of the graph,
# and what `backward()` computes in general: a vector-Jacobian product.
#
# **Time:** about 1 h 20 min: 40 min to read and run the cells, 40 min for the exercises
# (estimated from the notebook's length and points, as notebook 00 explains).
#
# **Before you start:** notebook 02 (`requires_grad`, `grad_fn`, leaves, `backward()`,
# `no_grad()`). From maths: partial derivatives, and a row vector times a matrix.
#
# **Learning goals.** By the end of this notebook you can
#
# - explain why `backward()` on a non-scalar needs `gradient=`, and predict the gradients that a
#   given `gradient=` produces (exercise 1);
# - call `autograd.backward` on several outputs, backpropagate twice with `retain_graph`, and take
#   a second derivative with `create_graph`;
# - make an integer tensor ready for gradients without changing the caller's tensor (exercise 2);
# - tell a leaf from a non-leaf, and name the three ways a tensor becomes a leaf;
# - show that the graph is built while the code runs, and time what `no_grad()` saves;
# - work out a Jacobian and a vector-Jacobian product by hand (exercise 3), and build a Jacobian
#   row by row with `backward()` (exercise 4);
# - plot a function and its derivative with autograd alone.
#
# **Graded exercises:** 4 exercises, **7 points** in total (predictions teach: they count for no points).

# %% id="03-import-time"
import time

import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit.viz import FunctionPlotter
import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)

# %% [markdown] id="03-backward-needs-somewhere-to-start" tags=["topic:T22"]
# ## 1. `backward()` needs somewhere to start
#
# Backpropagation starts at the output with the gradient of the output with respect to itself.
# For a scalar that is simply 1, so `backward()` can supply it on its own:

# %% id="03-x-agk-tensor-1-0" tags=["topic:T22"]
x = agk.tensor(1.0, requires_grad=True)
y = x ** 2 + 1
y.backward()          # the seed dy/dy = 1 is implied
print(x.grad)         # dy/dx = 2x = 2

# %% [markdown] id="03-now-let-the-output-be" tags=["topic:T22"]
# Now let the output be a 2×4 matrix. Its "gradient with respect to itself" would have to be
# eight numbers, and autograd will not guess which eight you mean:

# %% id="03-x-agk-ones-2-4" tags=["topic:T22", "raises-exception"]
x = agk.ones(2, 4, requires_grad=True)
y = 2 * x
y.backward()

# %% [markdown] id="03-runtimeerror-grad-can-be-implicitly" tags=["topic:T22"]
# `RuntimeError: grad can be implicitly created only for scalar outputs` means exactly that:
# autograd only invents the starting gradient (a 1) when the output holds a single number.

# %% [markdown] id="03-passing-gradient" tags=["topic:T23"]
# ## 2. Passing `gradient=`
#
# For a non-scalar output you hand in the starting gradient yourself, with the same shape as the
# output. Each entry says how much that output element should count. The most common choice is
# all ones, which gives the same result as calling `backward()` on `y.sum()`:

# %% id="03-y-backward-gradient-agk-ones" tags=["topic:T23"]
y.backward(gradient=agk.ones_like(y))
print(x.grad)

x_check = agk.ones(2, 4, requires_grad=True)
(2 * x_check).sum().backward()
print("same as y.sum().backward():", agk.equal(x.grad, x_check.grad))

# %% [markdown] id="03-the-weights-do-not-have" tags=["topic:T23"]
# The weights do not have to be ones. Here a row vector `x` times a 2×2 matrix `y` gives
# `z = x @ y = [[5., 8.]]`. Passing the weights `[[1., 0.]]` asks for the gradient of the first
# element of `z` only, and ignores the second:

# %% id="03-x-agk-tensor-2-1" tags=["topic:T23"]
x = agk.tensor([2., 1.], requires_grad=True)
y = agk.tensor([[1., 2.], [3., 4.]], requires_grad=True)
z = x.view(1, 2) @ y
print("z =", z)
z.backward(gradient=agk.tensor([[1., 0.]]))
print("x.grad =", x.grad)
print("y.grad =", y.grad)

# %% [markdown] id="03-check-it-by-hand-the" tags=["topic:T23"]
# Check it by hand. The first element is `z₀ = x₀·y₀₀ + x₁·y₁₀ = 2·1 + 1·3 = 5`. Its derivative
# with respect to `x` is `(y₀₀, y₁₀) = (1, 3)`, and with respect to `y` it is `x₀ = 2` at
# position (0, 0), `x₁ = 1` at position (1, 0) and zero elsewhere, because the second column of
# `y` only feeds `z₁`, which has weight 0.

# %% [markdown] id="03-exercise-1-predict-what-autograd"
# ### Exercise 1 — predict what autograd prints (predict, no points)
#
# Same `x`, `y` and `z = x.view(1, 2) @ y`, but now the weights are `[[0., 1.]]`. Without running
# anything, predict `x.grad` and `y.grad` and write them as tensors.

# %% nbgrader={"grade": false, "grade_id": "nb03_ex1_predict_weights", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set predicted_x_grad and predicted_y_grad, both as agk.tensor(...).
### BEGIN SOLUTION
predicted_x_grad = agk.tensor([2., 4.])
predicted_y_grad = agk.tensor([[0., 2.], [0., 1.]])
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb03_ex1_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.weighted_prediction()

# %% [markdown] id="03-the-full-signature-autograd-backward" tags=["topic:T24"]
# ## 3. The full signature: `autograd.backward`
#
# `t.backward(gradient)` is a shortcut for the function
#
# ```python
# agk.autograd.backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False)
# ```
#
# - **`tensors`**: one output or a list of outputs to start from;
# - **`grad_tensors`**: one starting gradient per output (`None` allowed for scalars). The
#   gradients of all the outputs are added together in the leaves;
# - **`retain_graph`**: keep the values saved for backward so you can call backward again;
# - **`create_graph`**: record the backward pass itself as a graph, so the gradient can be
#   differentiated again (second derivatives). `retain_graph` defaults to the value of
#   `create_graph`.

# %% id="03-a-agk-tensor-1-2" tags=["topic:T24"]
a = agk.tensor([1., 2.], requires_grad=True)
u = a * 3            # du/da = 3
v = a ** 2           # dv/da = 2a
agk.autograd.backward([u, v], grad_tensors=[agk.ones(2), agk.tensor([1., 10.])])
print(a.grad)        # 3 * 1 + 2a * [1, 10] = [5., 43.]

# %% [markdown] id="03-after-a-backward-pass-the" tags=["topic:T24"]
# After a backward pass the values saved for it are freed, to save memory. A second pass through
# the same graph then fails, unless the first one kept them with `retain_graph=True`:

# %% id="03-a-agk-tensor-3-requires" tags=["topic:T24"]
a = agk.tensor(3., requires_grad=True)
y = a ** 3
y.backward(retain_graph=True)
print(a.grad)        # 3a² = 27
y.backward()         # allowed: the graph was retained; gradients add up
print(a.grad)

# %% id="03-y-backward-the-second-call" tags=["topic:T24", "raises-exception"]
y.backward()         # the second call freed the graph

# %% [markdown] id="03-with-create-graph-true-the" tags=["topic:T24"]
# With `create_graph=True` the gradient is itself a tensor with a `grad_fn`, so it can be
# differentiated again. `autograd.grad` returns the gradient instead of adding it into `.grad`,
# which is the cleaner way to take second derivatives:

# %% id="03-a-agk-tensor-3-requires-2" tags=["topic:T24"]
a = agk.tensor(3., requires_grad=True)
y = a ** 3
(dy_da,) = agk.autograd.grad(y, a, create_graph=True)
print("dy/da   =", dy_da)          # 3a² = 27, and it has a grad_fn
dy_da.backward()
print("d²y/da² =", a.grad)         # 6a = 18

# %% [markdown] id="03-only-floating-point-tensors-can" tags=["topic:T25"]
# ## 4. Only floating-point tensors can require gradients
#
# A gradient measures the effect of a *small* change. Integers cannot change a little, so
# autograd refuses integer tensors:

# %% id="03-counts-agk-tensor-1-2" tags=["topic:T25", "raises-exception"]
counts = agk.tensor([1, 2, 3], requires_grad=True)

# %% [markdown] id="03-the-three-ways-of-asking" tags=["topic:T25"]
# The three ways of asking give slightly different messages, but they all mean the same thing.
# The fix is to convert to a floating-point type first, with `.float()`, `.to(agk.float32)` or
# `.type_as(some_float_tensor)`:

# %% id="03-counts-agk-tensor-1-2-2" tags=["topic:T25"]
counts = agk.tensor([[1, 2, 3], [4, 5, 6]])
print(counts.dtype, "is floating point:", counts.is_floating_point())
try:
    counts.requires_grad_()
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

x = counts.float().requires_grad_()
print(x)
y = x ** 2
y.backward(agk.ones_like(x))
print(x.grad)        # 2x

# %% [markdown] id="03-exercise-2-find-the-bug"
# ### Exercise 2 — find the bug (2 points)
#
# A shop stores how many of each item a customer buys as whole numbers, and wants to know how
# the total price reacts to buying a little more of each item: the gradient of the total with
# respect to the quantities. A classmate's function crashes:
#
# ```python
# def quantity_grad(total_fn, quantities):
#     quantities.requires_grad_()
#     total = total_fn(quantities)
#     total.backward()
#     return quantities.grad
# ```
#
# `total_fn` computes the total price from a tensor of quantities, and `quantities` is an integer
# tensor such as `agk.tensor([1, 4, 2])`. Fix the function so that it returns the gradient that
# `backward()` computes, and leaves the caller's `quantities` as they were. The check calls it
# with totals of its own.

# %% nbgrader={"grade": false, "grade_id": "nb03_ex2_find_the_bug", "locked": false, "schema_version": 3, "solution": true, "task": false}
def quantity_grad(total_fn, quantities):
    ### BEGIN SOLUTION
    q = quantities.float().requires_grad_()
    total = total_fn(q)
    total.backward()
    return q.grad
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb03_ex2_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.integer_quantities()
### BEGIN HIDDEN TESTS
checks.order_book()
### END HIDDEN TESTS

# %% [markdown] id="03-a-little-history-variable-became" tags=["topic:T26"]
# ## 5. A little history: `Variable` became `Tensor`
#
# In PyTorch before version 0.4 (2018) a plain tensor could not take part in autograd. You
# wrapped it in an `autograd.Variable`, which carried `.grad` and `.grad_fn`. Since 0.4 the two
# are merged: every `Tensor` can record history, and `requires_grad` switches it on. You will
# still meet `Variable(...)` in old code and in some error messages ("a leaf *Variable* that
# requires grad..."): read it as "tensor". `Variable` still exists so that old code runs, but it
# simply hands back a plain tensor:

# %% id="03-from-autogradkit-autograd-import-variable" tags=["topic:T26"]
from autogradkit.autograd import Variable   # kept only so that old code still runs

v = Variable(agk.tensor([1., 2.]), requires_grad=True)
print(type(v), v)
t = agk.tensor([1., 2.], requires_grad=True)   # today's way to say the same
print(type(t), t)


# %% [markdown] id="03-the-graph-is-built-while" tags=["topic:T27"]
# ## 6. The graph is built while your code runs
#
# autograd has no separate "compile the model" step. Every operation on a tensor that requires
# grad adds a node to the graph *as it runs*, so ordinary Python control flow decides what the
# graph looks like. The same function can build a different graph for different data:

# %% id="03-def-f-x" tags=["topic:T27"]
def f(x):
    if x.sum() > 0:
        return (x * 3).sum()
    return (x ** 2).sum()


for start in ([1., 2.], [-1., -2.]):
    x = agk.tensor(start, requires_grad=True)
    out = f(x)
    out.backward()
    print(f"x = {start}: root {out.grad_fn.name()} <- {out.grad_fn.next_functions[0][0].name()}, "
          f"x.grad = {x.grad}")

# %% [markdown] id="03-in-this-graph-the-leaves" tags=["topic:T27"]
# In this graph the **leaves** are the inputs you created (they feed `AccumulateGrad` nodes,
# which write `.grad`) and the **root** is the output you call `backward()` on. Backward walks
# from the root to the leaves.
#
# > **Note on the source.** Article 001 ("使用pytorch的backward()报错", a blog post that names no
# > author or address; its section "PyTorch Basics" and the heading after it, "静态计算图(Dynamic
# > Computational graph)") calls this graph "静态计算图", a *static* computation graph,
# > although the English it gives in brackets says dynamic. Dynamic is right. A static graph is declared
# > once, before any data flows, and then run many times (TensorFlow 1 worked like that).
# > PyTorch records a new graph on every forward pass, while the code runs: in PyTorch, the
# > loop above also prints `SumBackward0 <- MulBackward0` for the first input and
# > `SumBackward0 <- PowBackward0` for the second, because the `if` chose another operation.

# %% [markdown] id="03-what-makes-a-leaf" tags=["topic:T28"]
# ## 7. What makes a leaf?
#
# A tensor is a leaf (`is_leaf == True`) when any of these holds:
#
# 1. you created it directly (`agk.tensor`, `agk.randn`, ...);
# 2. it was computed only from tensors that need no gradient, so there is no history to keep;
# 3. it came out of `.detach()`, which cuts it off from its history.
#
# Only leaves with `requires_grad=True` receive a `.grad` from backward.

# %% id="03-a-agk-tensor-1-2-2" tags=["topic:T28"]
a = agk.tensor([1., 2.], requires_grad=True)   # 1. created directly, requires grad
b = agk.tensor([3., 4.])                       # 1. created directly
c = b * 2                                      # 2. computed from tensors that need no grad
d = a * 2                                      # computed from a: NOT a leaf
e = d.detach()                                 # 3. detached
for name, t in [("a", a), ("b", b), ("c", c), ("d", d), ("e", e)]:
    kind = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    print(f"{name}: requires_grad={t.requires_grad!s:5}  is_leaf={t.is_leaf!s:5}  grad_fn={kind}")

# %% [markdown] id="03-no-grad-faster-and-lighter" tags=["topic:T29"]
# ## 8. `no_grad()`: faster and lighter
#
# Recording the graph costs time, and the values saved for backward cost memory. When you only
# need results (evaluating a model, updating weights by hand), switch recording off with
# `agk.no_grad()`. Inside the block, results have no `grad_fn` and nothing is saved:

# %% id="03-w-agk-randn-10-10" tags=["topic:T29"]
w = agk.randn(10, 10, requires_grad=True)
h = agk.randn(10)


def run(steps=500):
    out = h
    for _ in range(steps):
        out = (w @ out).tanh()
    return out


out = run()
print("with recording:   requires_grad =", out.requires_grad, "| grad_fn =", out.grad_fn)
with agk.no_grad():
    out = run()
print("inside no_grad(): requires_grad =", out.requires_grad, "| grad_fn =", out.grad_fn)


# %% [markdown] id="03-now-time-both-each-is" tags=["topic:T29"]
# Now time both. Each is measured five times, taking turns, and the fastest run counts. The
# clock is `time.process_time()`, the processor time this kernel itself used: other programs on a
# busy computer do not add to it, as they add to a wall clock. The milliseconds depend on your
# machine and differ on every run, so the cell prints only which one is slower. `recorded` and
# `plain` hold your numbers: print `recorded / plain` to see how many times as long recording
# takes on your machine.

# %% id="03-def-fastest-ms-function-repeats" tags=["topic:T29"]
def processor_ms(function):
    start = time.process_time()
    function()
    return 1000 * (time.process_time() - start)


def run_without_recording():
    with agk.no_grad():
        return run()


turns = [(processor_ms(run), processor_ms(run_without_recording)) for _ in range(5)]
recorded, plain = min(r for r, _ in turns), min(p for _, p in turns)
print("recording the graph takes longer than no_grad():", recorded > plain)

# %% [markdown] id="03-jacobians-and-vector-jacobian-products" tags=["topic:T30"]
# ## 9. Jacobians and vector-Jacobian products
#
# For a function from `n` inputs to `m` outputs, the **Jacobian** `J` is the `m × n` matrix of all
# partial derivatives, `J[i, j] = ∂yᵢ/∂xⱼ`. `y.backward(v)` never builds `J`. It computes the
# **vector-Jacobian product** `vᵀJ`, a vector shaped like `x`:
#
# $$
# x.\mathrm{grad} = v^\top J
# = \Big(\sum_i v_i \frac{\partial y_i}{\partial x_0},\ \dots,\
#   \sum_i v_i \frac{\partial y_i}{\partial x_{n-1}}\Big)
# $$
#
# This is all training needs. If a scalar loss `L` is computed from `y`, then `v = ∂L/∂y` and the
# chain rule gives `∂L/∂x = vᵀJ`. Each node of the graph only has to know how to multiply an
# incoming vector by its own Jacobian, which is far cheaper than building the matrix.
#
# For `y = x ** 2` the Jacobian is diagonal, `diag(2x)`, so `vᵀJ` just scales each entry:

# %% id="03-x-agk-tensor-1-2" tags=["topic:T30"]
x = agk.tensor([1., 2., 3.], requires_grad=True)
y = x ** 2
v = agk.tensor([1., 0.1, 0.01])
y.backward(v)
print(x.grad)      # v * 2x = [2., 0.4, 0.06]

# %% [markdown] id="03-choosing-v-as-a-one" tags=["topic:T30"]
# Choosing `v` as a one-hot vector picks out a single row of `J`: `(0, 1, 0)ᵀJ` is row 1. Repeat
# that for every row (keeping the graph with `retain_graph=True`) and you have built the whole
# Jacobian from backward passes.

# %% [markdown] id="03-exercise-3-by-hand-a"
# ### Exercise 3 — by hand: a vector-Jacobian product (2 points)
#
# Let `x = (x₀, x₁)` and
#
# $$y = \begin{pmatrix} x_0 x_1^3 \\ x_0 + 3x_1 \end{pmatrix}$$
#
# Work out the 2×2 Jacobian `J` (row `i` holds the derivatives of `yᵢ`) on paper, then write it
# as `jacobian_by_hand(x0, x1)`, returning a 2×2 nested list. Then write
# `vjp_by_hand(x0, x1, v0, v1)`, returning the product `vᵀJ` as a list of two numbers: exactly
# what `y.backward(v)` would put into `x.grad`. Use plain arithmetic: the check calls them
# where autograd does not exist, at points of its own, and wants the exact derivatives (a
# difference quotient such as `(f(x + h) - f(x - h)) / 2h` is off by far more than it allows).

# %% nbgrader={"grade": false, "grade_id": "nb03_ex3_vjp_by_hand", "locked": false, "schema_version": 3, "solution": true, "task": false}
def jacobian_by_hand(x0, x1):
    ### BEGIN SOLUTION
    return [[x1**3, 3 * x0 * x1**2], [1.0, 3.0]]
    ### END SOLUTION


def vjp_by_hand(x0, x1, v0, v1):
    ### BEGIN SOLUTION
    jac = jacobian_by_hand(x0, x1)
    return [v0 * jac[0][0] + v1 * jac[1][0], v0 * jac[0][1] + v1 * jac[1][1]]
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb03_ex3_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.vjp_written_by_hand()

# %% [markdown] id="03-exercise-4-build-a-jacobian"
# ### Exercise 4 — build a Jacobian with backward (write the code, 3 points)
#
# Write `jacobian(f, x)` for a function `f` that maps a 1-D tensor to a 1-D tensor. It should
#
# 1. make a fresh leaf copy of `x` that requires grad (`x.detach().clone().requires_grad_()`);
# 2. compute `y = f(x_leaf)` once;
# 3. for each output index `i`, run a backward pass with the one-hot vector `eᵢ` as `gradient`
#    (keep the graph), read row `i` from the leaf's `.grad`, and clear `.grad` before the next row;
# 4. return an `m × n` tensor (`agk.stack` joins rows).
#
# The library's own `autograd.functional` helpers are switched off while the check runs, which
# tries functions with more outputs than inputs and inputs that are used twice.

# %% nbgrader={"grade": false, "grade_id": "nb03_ex4_jacobian", "locked": false, "schema_version": 3, "solution": true, "task": false}
def jacobian(f, x):
    ### BEGIN SOLUTION
    x_leaf = x.detach().clone().requires_grad_()
    y = f(x_leaf)
    rows = []
    for i in range(y.numel()):
        one_hot = agk.zeros_like(y)
        one_hot[i] = 1.0
        y.backward(one_hot, retain_graph=True)
        rows.append(x_leaf.grad.clone())
        x_leaf.grad = None
    return agk.stack(rows)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb03_ex4_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.jacobian_rows()
### BEGIN HIDDEN TESTS
checks.jacobian_of_a_parameter()
### END HIDDEN TESTS

# %% [markdown] id="03-a-derivative-from-autograd-alone" tags=["topic:T34"]
# ## 10. A derivative from autograd alone
#
# Here is a neat use of `gradient=`. For `y = sin(x)` applied elementwise, each `yᵢ` depends only
# on `xᵢ`, so the Jacobian is diagonal and `y.backward(ones)` puts `cos(xᵢ)` into `x.grad[i]`. One
# backward pass gives the derivative at 100 points at once, without ever writing "cos":

# %% id="03-x-agk-linspace-5-5" tags=["topic:T34"]
x = agk.linspace(-5, 5, 100, requires_grad=True)
y = agk.sin(x)
y.backward(agk.ones_like(x))

with agk.no_grad():
    worst = (x.grad - agk.cos(x)).abs().max().item()
print(f"largest difference between x.grad and cos(x): {worst}")

fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.plot(x.detach().numpy(), y.detach().numpy(), label="sin(x)")
ax.plot(x.detach().numpy(), x.grad.numpy(), "--", label="x.grad from backward()")
ax.axhline(0, color="gray", lw=0.5)
ax.set_xlabel("x")
ax.legend()
ax.set_title("The derivative of sin, computed by autograd")
plt.show()

# %% [markdown] id="03-try-other-functions" tags=["topic:T34", "topic:T30"]
# ### Try other functions
#
# The same trick works for any elementwise function. Pick one from the menu: the plot shows the
# function and the derivative that one `backward(ones)` call produces. Questions a single
# picture cannot answer: where is each derivative largest, and where does it vanish? Look at
# `relu` near 0, compare `sigmoid` with `tanh` (which one's derivative ever reaches 1?), and
# find the function that is its own derivative.

# %% id="03-functionplotter-tanh" tags=["topic:T34", "topic:T30"]
FunctionPlotter("tanh")

# %% [markdown] id="03-recap"
# ## Recap
#
# - `backward()` invents the starting gradient 1 only for a scalar output; for anything else pass
#   `gradient=` with the output's shape. Ones give the gradient of the sum; other weights weigh
#   the elements (`z = x @ y = [[5., 8.]]` with weights `[[1., 0.]]` gives `x.grad = [1., 3.]`).
# - `autograd.backward(tensors, grad_tensors, retain_graph, create_graph)`: several roots at once,
#   keep the graph for another pass, or record the backward pass for higher derivatives.
# - Only floating-point tensors can require gradients; convert integers with `.float()`.
# - `Variable` is history: today every `Tensor` can carry a graph.
# - The graph is built as the code runs. Leaves are tensors you created, tensors computed without
#   any grad-requiring input, and detached tensors. Only leaves receive `.grad`.
# - `no_grad()` skips recording: faster, and nothing is kept for backward.
# - backward computes a vector-Jacobian product `vᵀJ`; one-hot vectors recover `J` row by row, and
#   a diagonal Jacobian turns one backward pass into a whole derivative curve.
#
# **Next:** notebook 04 shows what happens when you change a tensor *in place* after autograd has
# saved it.
#
# **Further reading** in PyTorch's documentation:
#
# - [`Tensor.backward`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.backward.html):
#   the `gradient` argument
# - [`torch.autograd.backward`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.backward.html):
#   several roots, `retain_graph`, `create_graph`
# - [`torch.autograd.grad`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.grad.html):
#   gradients returned instead of accumulated
# - [`torch.autograd.functional.jacobian`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.functional.jacobian.html):
#   the library's version of exercise 4
# - [Autograd mechanics](https://docs.pytorch.org/docs/stable/notes/autograd.html):
#   why the graph is rebuilt on every forward pass
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="03-checks-check-progress"
checks.check.progress()
