# %% [markdown] id="05-inside-grad-fn"
# # 05 · Inside `grad_fn`
#
# Calling `e.backward()` changes `a.grad`, even though `a` never appears in that line. If you are
# used to objects that only change when you call their own methods, that looks like magic. In
# this notebook you open up the objects autograd creates and follow the references that lead from
# an output back to its leaves. Then you write a new operation of your own.
#
# **Time:** about 2 h 35 min: 65 min to read and run the cells, 90 min for the exercises
# (estimated from the notebook's length and points, as notebook 00 explains).
#
# **Before you start:** notebooks 02 and 03 (`grad_fn`, leaves, `retain_graph`,
# `create_graph`). From Python: classes and `@staticmethod`.
#
# **Learning goals.** By the end of this notebook you can
#
# - explain how `e.backward()` reaches `a`: through `grad_fn`, `next_functions` and
#   `AccumulateGrad.variable`;
# - say what `backward()` does with its arguments before the engine starts;
# - explore an unfamiliar object with `vars()`, `dir()` and `type()`;
# - predict the node classes of a graph level by level (exercise 1), and collect its leaves with a
#   loop and a stack, without recursion (exercise 2);
# - write an operation with `autograd.Function`, its forward and its backward, and check it with
#   `gradcheck` (exercise 3);
# - compute the gradients of `e = (a + b) * d` by hand (exercise 4);
# - predict the engine's pending counts and hook calls at a fork (exercise 5), and put a graph's
#   nodes in an order the engine can run, by counting dependencies (exercise 6);
# - read what each node saves for backward (`_saved_self`, `_saved_result`), and count it with
#   `saved_tensors_hooks` (exercise 7).
#
# **Graded exercises:** 7 exercises, **14 points** in total (predictions teach: they count for no points).

# %% id="05-import-numpy-as-np"
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit.viz import BackpropStepper, draw_graph

import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)

# %% [markdown] id="05-the-puzzle" tags=["topic:T35", "topic:T42"]
# ## 1. The puzzle
#
# Build `e = (a + b) * d` from three leaves that require grad, and call backward on `e`:

# %% id="05-a-agk-tensor-2-0" tags=["topic:T35", "topic:T42"]
a = agk.tensor(2.0, requires_grad=True)
b = agk.tensor(3.0, requires_grad=True)
c = a + b
d = agk.tensor(4.0, requires_grad=True)
e = c * d
print("before:", a.grad, b.grad, d.grad)
e.backward()
print("after: ", a.grad, b.grad, d.grad)


# %% [markdown] id="05-the-numbers-are-easy-to" tags=["topic:T35", "topic:T42"]
# The numbers are easy to check by hand. `e = (a + b) · d`, so
#
# - `∂e/∂a = d = 4` and `∂e/∂b = d = 4` (the addition passes the gradient on unchanged);
# - `∂e/∂d = a + b = c = 5`.
#
# The surprising part is *how*. We called a method of `e`, and the state of `a`, `b` and `d`
# changed. For that to happen, `e` must hold, directly or indirectly, references to those tensors.
# Let us find them.

# %% [markdown] id="05-what-backward-does-before-the" tags=["topic:T36"]
# ## 2. What `backward()` does before the engine runs
#
# `e.backward()` is a thin front end. Before any gradient is computed it tidies up its arguments:
#
# 1. it turns `tensors` into a tuple, so one tensor and a list of tensors are handled alike;
# 2. it turns `grad_tensors` into a list with one entry per tensor;
# 3. for every missing gradient it makes one: `ones` for a scalar output, and the error "grad can
#    be implicitly created only for scalar outputs" otherwise;
# 4. if `retain_graph` was not given, it takes the value of `create_graph`;
# 5. it hands the roots and their starting gradients to the engine, which walks the graph.
#
# Here is that front end written out in Python. It ends by calling the real function with
# everything filled in, and gives the same gradients:

# %% id="05-def-backward-front-end-tensors" tags=["topic:T36"]
def backward_front_end(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    tensors = (tensors,) if isinstance(tensors, agk.Tensor) else tuple(tensors)      # 1
    if grad_tensors is None:                                                         # 2
        grad_tensors = [None] * len(tensors)
    elif isinstance(grad_tensors, agk.Tensor):
        grad_tensors = [grad_tensors]
    grads = []
    for t, g in zip(tensors, grad_tensors):                                          # 3
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = agk.ones_like(t)
        grads.append(g)
    if retain_graph is None:                                                         # 4
        retain_graph = create_graph
    print(f"engine gets {len(tensors)} root(s), gradients {grads}, retain_graph={retain_graph}")
    agk.autograd.backward(tensors, grads, retain_graph=retain_graph,                  # 5
                          create_graph=create_graph)


a2 = agk.tensor(2.0, requires_grad=True)
e2 = (a2 + agk.tensor(3.0, requires_grad=True)) * agk.tensor(4.0, requires_grad=True)
backward_front_end(e2)
print("a2.grad =", a2.grad)

# %% [markdown] id="05-rule-4-has-a-visible" tags=["topic:T36"]
# Rule 4 has a visible consequence: `create_graph=True` also keeps the graph. Here
# `autograd.grad` (which follows the same rules) builds the graph of the gradient, and the graph
# of `y` is still there afterwards for a normal backward pass, without asking for
# `retain_graph`:

# %% id="05-x-agk-tensor-3-0" tags=["topic:T36"]
x = agk.tensor(3.0, requires_grad=True)
y = x ** 2
(dy_dx,) = agk.autograd.grad(y, x, create_graph=True)   # retain_graph becomes True as well
y.backward()                                            # so this second pass still works
print(dy_dx, x.grad)

# %% [markdown] id="05-exploring-an-object-vars-dir" tags=["topic:T37"]
# ## 3. Exploring an object: `vars()`, `dir()`, `type()`
#
# When you meet an unfamiliar object, Python has three tools. `vars(obj)` shows the attributes
# stored in the object's own `__dict__`; `dir(obj)` lists every name you can reach on it;
# `type(obj)` tells you its class. On a fresh tensor, `vars()` shows nothing, because a tensor
# keeps its state elsewhere (in PyTorch, in C++), while `dir()` offers hundreds of names:

# %% id="05-fresh-agk-tensor-2-0" tags=["topic:T37"]
fresh = agk.tensor(2.0, requires_grad=True)
print("vars:", vars(fresh))
print("names in dir():", len(dir(fresh)) > 100)
with_grad = [n for n in dir(fresh) if "grad" in n and not n.startswith("_")]
print("names with 'grad' in them:", with_grad)

# %% [markdown] id="05-the-interesting-one-is-grad" tags=["topic:T37"]
# The interesting one is `grad_fn`. On `c = a + b` it is an object of class `AddBackward0`: the
# backward half of the addition, created by the forward pass. Its public names are short:

# %% id="05-print-c" tags=["topic:T37"]
print(c)
print(c.grad_fn)
print(type(c.grad_fn).__name__)
print([n for n in dir(c.grad_fn) if not n.startswith("_")])

# %% [markdown] id="05-next-functions-the-arrows-of" tags=["topic:T38"]
# ## 4. `next_functions`: the arrows of the graph
#
# `next_functions` is a tuple with one entry per input of the operation. Each entry is a pair
# `(node, index)`: the backward node that should receive the gradient for that input, and which
# of that node's outputs it belongs to (always 0 for the one-output operations here). For
# `e = c * d`:

# %% id="05-print-e-grad-fn" tags=["topic:T38"]
print(e.grad_fn)
print(e.grad_fn.next_functions)

# %% [markdown] id="05-the-first-input-c-was" tags=["topic:T38"]
# The first input, `c`, was computed by an addition, so its entry points to `c`'s own `grad_fn`.
# The second input, `d`, is a leaf, so its entry is an `AccumulateGrad` node. An input that needs
# no gradient gets `(None, 0)`: there is nobody to send a gradient to.

# %% id="05-f1-i1-f2-i2-e" tags=["topic:T38"]
(f1, i1), (f2, i2) = e.grad_fn.next_functions
print("f1 is c.grad_fn:", f1 is c.grad_fn, "| index:", i1)

p = agk.tensor(2.0, requires_grad=True)
q = agk.tensor(3.0)                       # needs no gradient
print((p * q).grad_fn.next_functions)

# %% [markdown] id="05-accumulategrad-variable-is-the-leaf" tags=["topic:T39"]
# ## 5. `AccumulateGrad.variable` **is** the leaf
#
# An `AccumulateGrad` node has no inputs of its own (`next_functions` is empty). Instead it has
# `variable`, and that attribute is not a copy of the leaf: it is the leaf object itself. Same
# object, same `id`:

# %% id="05-print-f2-name" tags=["topic:T39"]
print(f2.name())
print(f2.next_functions)
print(f2.variable)
print("f2.variable is d:", f2.variable is d, "| same id:", id(f2.variable) == id(d))

# %% [markdown] id="05-that-answers-the-puzzle-e" tags=["topic:T39"]
# That answers the puzzle. `e` holds `e.grad_fn`; its `next_functions` lead through
# `AddBackward0` to `AccumulateGrad` nodes; each of those holds the leaf in `.variable`. When the
# engine reaches an `AccumulateGrad` node it adds the incoming gradient into `variable.grad`. So
# `e.backward()` changes `a.grad` through a chain of ordinary references.

# %% [markdown] id="05-walking-from-the-root-to" tags=["topic:T40"]
# ## 6. Walking from the root to the leaves
#
# Non-leaf nodes have no `variable` (a non-leaf's gradient is not stored, notebook 02):

# %% id="05-try" tags=["topic:T40"]
try:
    f1.variable
except AttributeError as error:
    print(f"{type(error).__name__}: {error}")


# %% [markdown] id="05-so-to-reach-the-leaves" tags=["topic:T40"]
# So to reach the leaves, you follow `next_functions` from node to node until you hit
# `AccumulateGrad` nodes. A recursive function is the natural first idea, but a deep network can
# have thousands of nodes in a row, more than Python's recursion limit. So walks over the graph
# use a loop and an explicit stack of nodes still to visit. Here is a loop that prints the tree.
#
# Printing the graph is not running it, though. To compute gradients the engine does not simply
# take nodes off a stack as it finds them: a node may have to wait for gradients from several
# places. Section 8 shows what it does instead.

# %% id="05-def-show-graph-root" tags=["topic:T40"]
def show_graph(root):
    stack = [(root.grad_fn, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None:
            print("    " * depth + "None (needs no gradient)")
            continue
        extra = f" -> variable {node.variable!r}" if hasattr(node, "variable") else ""
        print("    " * depth + node.name() + extra)
        for child, _ in reversed(node.next_functions):
            stack.append((child, depth + 1))


show_graph(e)

# %% [markdown] id="05-the-kit-can-draw-the" tags=["topic:T40"]
# The kit can draw the same graph. Tensors are the coloured boxes with their data and gradient,
# backward nodes are blue, and each arrow points the way the gradient flows, from `e` towards the
# leaves:

# %% id="05-draw-graph-e-names-a" tags=["topic:T40"]
draw_graph(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})

# %% [markdown] id="05-step-through-the-walk" tags=["topic:T35", "topic:T40"]
# ### Step through the walk
#
# The stepper replays the real engine on this graph. Each **Step ▶** runs one node: watch
# `MulBackward0` split the gradient between `c` and `d`, `AddBackward0` pass it on unchanged, and
# each `AccumulateGrad` write into its leaf's `.grad`. The second line in each box, and the line
# under the status, show the engine's own bookkeeping; section 8 explains it. (Backward already
# ran on our `e` and freed its saved values, so we build the same graph once more.)

# %% id="05-a-agk-tensor-2-0-2" tags=["topic:T35", "topic:T40"]
a = agk.tensor(2.0, requires_grad=True)
b = agk.tensor(3.0, requires_grad=True)
d = agk.tensor(4.0, requires_grad=True)
c = a + b
e = c * d
BackpropStepper(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})

# %% [markdown] id="05-exercise-1-predict-the-graph"
# ### Exercise 1 — predict the graph (predict, no points)
#
# Let `p` and `r` require grad and `q` not, and compute `y = (p.exp() - q) * r`. Predict the class
# names (`type(node).__name__`) of the nodes in `y.grad_fn.next_functions`, in order (`level_1`).
# Then do the same one level down, below the *first* node of `level_1` (`level_2`), and once more
# below the first node of `level_2` (`level_3`). Write `None` for a `(None, 0)` entry.

# %% nbgrader={"grade": false, "grade_id": "nb05_ex1_predict_graph", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set level_1, level_2 and level_3: lists of class names (strings) or None.
### BEGIN SOLUTION
level_1 = ["SubBackward0", "AccumulateGrad"]
level_2 = ["ExpBackward0", None]
level_3 = ["AccumulateGrad"]
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb05_ex1_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.predicted_graph()

# %% [markdown] id="05-exercise-2-collect-the-leaves"
# ### Exercise 2 — collect the leaves (write the code, 3 points)
#
# Write `find_leaves(t)`: starting from `t.grad_fn`, walk the graph **with a loop and a stack**
# (no recursion), and return a list of the leaf tensors that would receive a gradient, each one
# exactly once, in any order. Skip `(None, 0)` entries. A node can be reached along several
# paths (think of `x * x`, or of a result that two later operations both use), so remember
# which nodes you have already visited: the check walks graphs with dozens of such diamonds in
# a row, and a chain of 5,000 operations.

# %% nbgrader={"grade": false, "grade_id": "nb05_ex2_find_leaves", "locked": false, "schema_version": 3, "solution": true, "task": false}
def find_leaves(t):
    ### BEGIN SOLUTION
    leaves, seen = [], set()
    stack = [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if hasattr(node, "variable"):
            leaves.append(node.variable)
        stack.extend(child for child, _ in reversed(node.next_functions))
    return leaves
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb05_ex2_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.leaves_found()
### BEGIN HIDDEN TESTS
checks.leaves_found_twice()
### END HIDDEN TESTS

# %% [markdown] id="05-every-operation-has-a-forward" tags=["topic:T41"]
# ## 7. Every operation has a forward and a backward
#
# Where do `AddBackward0` and `MulBackward0` come from? Every operation the kit (or PyTorch)
# offers is defined twice: a **forward** that computes the result, and a **backward** that turns
# the gradient of the result into gradients of the inputs. The forward pass runs the forward and
# leaves behind a node whose class is named after the operation; the backward pass calls its
# backward. You can add your own operation the same way with `agk.autograd.Function`:
#
# - `forward(ctx, inputs...)` computes the output and may keep what backward will need with
#   `ctx.save_for_backward(...)`;
# - `backward(ctx, grad_output)` returns one gradient per input, `grad_output` times the local
#   derivative;
# - you call it through `.apply(...)`. The node is named after your class plus `Backward`.

# %% id="05-class-square-agk-autograd-function" tags=["topic:T41"]
class Square(agk.autograd.Function):
    """y = x², dy/dx = 2x"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


x = agk.tensor([1., 2., 3.], requires_grad=True)
y = Square.apply(x)
print(y)
print(type(y.grad_fn).__name__, y.grad_fn.next_functions)
y.sum().backward()
print(x.grad)

# %% [markdown] id="05-a-wrong-backward-gives-wrong" tags=["topic:T41"]
# A wrong backward gives wrong gradients without any error, so check it numerically.
# `agk.autograd.gradcheck` compares your backward with finite differences (use `float64` inputs
# for enough precision) and returns `True` when they agree:

# %% id="05-x64-agk-tensor-0-5" tags=["topic:T41"]
x64 = agk.tensor([0.5, -1.5], dtype=agk.float64, requires_grad=True)
print(agk.autograd.gradcheck(Square.apply, (x64,)))

# %% [markdown] id="05-a-picture-makes-the-same" tags=["topic:T41"]
# A picture makes the same check. Run `Square` forward and backward on many points at once and
# compare the gradient from *your* backward with the slope measured between neighbouring points:

# %% id="05-xs-agk-linspace-2-2" tags=["topic:T41"]
xs = agk.linspace(-2, 2, 41, requires_grad=True)
ys = Square.apply(xs)
ys.backward(agk.ones_like(ys))           # diagonal Jacobian: one pass gives every slope

x_np, y_np = xs.detach().numpy(), ys.detach().numpy()
fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.plot(x_np, y_np, label="Square.apply(x)")
ax.plot(x_np, xs.grad.numpy(), label="x.grad from Square.backward")
ax.plot((x_np[1:] + x_np[:-1]) / 2, np.diff(y_np) / np.diff(x_np), "k.", ms=4,
        label="measured slope")
ax.set_xlabel("x")
ax.legend()
ax.set_title("A custom backward, checked against the measured slope")
plt.show()


# %% [markdown] id="05-exercise-3-your-own-operation"
# ### Exercise 3 — your own operation (write the code, 3 points)
#
# Write `Cube`, an `autograd.Function` for `y = x³`. In `forward`, keep what backward needs with
# `ctx.save_for_backward`; in `backward`, take it back from `ctx.saved_tensors` and return
# `grad_output` times the local derivative. The check runs `Cube` on tensors of its own, with an
# upstream gradient other than ones, and through `gradcheck`.

# %% nbgrader={"grade": false, "grade_id": "nb05_ex3_cube", "locked": false, "schema_version": 3, "solution": true, "task": false}
class Cube(agk.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ### BEGIN SOLUTION
        ctx.save_for_backward(x)
        return x * x * x
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        ### BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x * x
        ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb05_ex3_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.cube_function()
### BEGIN HIDDEN TESTS
checks.cube_used_twice()
### END HIDDEN TESTS

# %% [markdown] id="05-exercise-4-the-gradients-of"
# ### Exercise 4 — the gradients of `(a + b) * d` by hand (2 points)
#
# Take the graph of section 1, `e = (a + b) * d`, for any numbers `a`, `b` and `d`. Work out on
# paper what `a.grad`, `b.grad` and `d.grad` will be after `e.backward()`, then write
# `add_mul_grads(a, b, d)` that returns the three of them, computed with plain arithmetic. The
# check calls it on numbers of its own, and autograd's backward is switched off while it runs.

# %% nbgrader={"grade": false, "grade_id": "nb05_ex4_by_hand", "locked": false, "schema_version": 3, "solution": true, "task": false}
def add_mul_grads(a, b, d):
    """a.grad, b.grad and d.grad for e = (a + b) * d, worked out by hand."""
    ### BEGIN SOLUTION
    return d, d, a + b
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb05_ex4_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.by_hand()

# %% [markdown] id="05-forks-gradients-add-up-and"
# ## 8. Forks: gradients add up, and the engine waits for them
#
# In notebook 02 (exercise 1) `a` was used twice, in `f = (a + b) * a`, and `a.grad` came out as
# the **sum** of what each use contributed. That is the rule at every *fork* of the graph: when a
# tensor feeds several operations, a small change of it moves the loss through each of them, so
# its gradient is the sum of the gradients that come back along each use. This is the chain rule
# with several paths: `∂L/∂h = Σₖ ∂L/∂uₖ · ∂uₖ/∂h` over the results `uₖ` computed from `h`.
#
# Here the fork is in the middle of the graph: `h` is an intermediate result, used twice. A hook
# on `h` (notebook 06 covers hooks) prints the gradient that reaches it:

# %% id="05-a-agk-tensor-1-5"
a = agk.tensor(1.5, requires_grad=True)
h = a * 2                          # h = 3, used twice below
y = h.sin() + h ** 2
h.register_hook(lambda grad: print("the hook on h sees", grad))
y.backward()
print("a.grad =", a.grad)

with agk.no_grad():
    from_sin, from_square = h.cos(), 2 * h   # what each use sends back to h, by hand
print(f"cos(h) = {from_sin.item():.4f}, 2h = {from_square.item():.4f}, "
      f"sum = {(from_sin + from_square).item():.4f}, times dh/da = 2: "
      f"{(2 * (from_sin + from_square)).item():.4f}")

# %% [markdown] id="05-dependency-counting"
# The hook ran **once**, and it saw the sum, `cos(3) + 6 = 5.01`. So the engine did not run
# `h`'s node (`MulBackward0`) when the first of the two gradients arrived: it waited for both,
# added them up, and only then ran the node once and sent `5.01 · 2` on to `a`. How does it know
# that everything has arrived?
#
# ### Dependency counting
#
# Before it runs anything, the engine walks the graph once and counts, for every node, the
# arrows that point at it from the nodes it will run: how many gradients that node must receive.
# This is the node's **pending count**. One operation that uses a tensor twice, like `h * h`,
# sends it two gradients, so it counts twice. Then:
#
# 1. The output's node waits for nothing: it goes into the **ready queue**.
# 2. The engine takes a node from the ready queue and runs its backward.
# 3. Each gradient that node sends is *added* into the buffer of the node it goes to, and that
#    node's pending count drops by one. A node whose count reaches 0 has everything it will ever
#    get: it joins the ready queue.
# 4. This repeats until the ready queue is empty.
#
# Every node therefore runs exactly once, after every node that sends it a gradient: the engine
# runs the graph in a **topological order**. When several nodes are ready at once, the order
# among them changes no gradient; the kit, like PyTorch, takes the most recently created one
# first, and an `AccumulateGrad` as soon as it is ready. You can read all of it in
# `run_backward`, in `autogradkit/autograd/engine.py`: it counts the dependencies first, then
# its `while ready:` loop runs the ready nodes and passes each gradient on.
#
# The stepper shows this bookkeeping as it happens. Each backward node says how many gradients
# it still *waits for*, its place in the ready queue (`ready #1` runs next, with a green border),
# or the step at which it ran; the line under the status lists the queue. Step through and watch
# `h`'s `MulBackward0` go from "waits for 2" to "waits for 1", and run only once both uses have
# sent their gradient. Notice that `a`'s `AccumulateGrad` waits for 2 as well: `a` is used twice.

# %% id="05-a-agk-tensor-1-5-2"
a = agk.tensor(1.5, requires_grad=True)
h = a * 2
y = h.sin() + h ** 2 + a
BackpropStepper(y, names={"a": a, "h": h, "y": y})

# %% [markdown] id="05-why-not-simply-run-a"
# Why not simply run a node each time a gradient reaches it, following `next_functions`
# depth-first? On a graph without forks that gives the same result. With forks, a node reached
# along `k` paths would run `k` times, and everything below it again for each of them. A chain
# of diamonds doubles the paths at every diamond. The cell below counts the node runs of such a
# "run on arrival" walk and compares them with the one run per node that counting gives:

# %% id="05-def-runs-on-arrival-root"
def runs_on_arrival(root):
    """Node runs of an engine that runs a node whenever a gradient reaches it."""
    runs, stack = 0, [root.grad_fn]
    while stack:
        node = stack.pop()
        runs += 1
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return runs


def runs_with_counting(root):
    """Node runs of the real engine: each node once (count them with pre-hooks)."""
    ran, handles, stack, seen = [], [], [root.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        handles.append(node.register_prehook(lambda grads: ran.append(1)))
        stack.extend(child for child, _ in node.next_functions)
    root.backward()
    for handle in handles:
        handle.remove()
    return len(ran)


print("diamonds | runs on arrival | runs with counting")
for diamonds in (1, 2, 4, 8, 12, 16):
    z = agk.tensor(0.3, requires_grad=True)
    for _ in range(diamonds):
        z = z.sin() + z.cos()               # z is used twice: one diamond
    print(f"{diamonds:8d} | {runs_on_arrival(z):15,d} | {runs_with_counting(z):18,d}")

# %% [markdown] id="05-sixteen-diamonds-are-a-graph"
# Sixteen diamonds are a graph of 49 nodes, and "run on arrival" would make more than 260,000
# node runs. Real networks have forks everywhere (a residual connection is one, and so is every
# weight used for several examples), so counting is not an optimisation but a necessity. It also
# keeps hooks honest: a hook on `h` sees the gradient of `h`, not one part of it at a time.
#
# > **Note on the source.** Article 002 ("PyTorch自动求导(Autograd)原理解析", a blog post that
# > names no author or address; its last section, on how `e.backward()` reaches the leaves) says
# > that when a node in `next_functions` is not an `AccumulateGrad`, the engine
# > "递归遍历" (walks recursively) through that node's `next_functions` until it reaches every
# > leaf. PyTorch's engine does not recurse, and it does not run a node when it first reaches it:
# > it counts dependencies first and runs each node once, when all of its gradients have arrived
# > (`compute_dependencies` and the ready queue in PyTorch's `torch/csrc/autograd/engine.cpp`;
# > `run_backward` in the kit). On the article's example, which has no fork, the two descriptions
# > give the same numbers; on a graph with forks, a recursive walk would run shared nodes once
# > per path, as the table above shows, and a long chain would exceed Python's recursion limit.

# %% [markdown] id="05-exercise-5-what-the-engine"
# ### Exercise 5 — what the engine counts at a fork (predict, no points)
#
# Read this code without running it:
#
# ```python
# u = agk.tensor(0.5, requires_grad=True)
# v = u * 3                  # v's node is a MulBackward0
# w = v * v + v
# v.register_hook(print)
# w.backward()
# ```
#
# Predict:
#
# 1. `pending_v`: the pending count of `v`'s node when the backward pass starts, that is, how
#    many gradients the engine will wait for before it runs it;
# 2. `hook_calls`: how many times the hook prints;
# 3. `hook_grad`: the number the hook prints (the first one, if it prints more than once).

# %% nbgrader={"grade": false, "grade_id": "nb05_ex5_fork", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set pending_v (an int), hook_calls (an int) and hook_grad (a number).
### BEGIN SOLUTION
pending_v = 3
hook_calls = 1
hook_grad = 4.0
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb05_ex5_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.fork_prediction()

# %% [markdown] id="05-exercise-6-an-order-the"
# ### Exercise 6 — the order the engine runs (write the code, 3 points)
#
# Write `backward_order(t)`: it returns a list of the backward nodes of `t`'s graph (every node
# reachable from `t.grad_fn`, `AccumulateGrad` nodes included, each exactly once) in the order in
# which the engine runs them, so that every node comes **after** all the nodes that send it
# a gradient, and, where several nodes are ready at once, in the order the engine picks them. Do
# it the engine's way:
#
# 1. walk the graph once (a loop with a stack and a visited set, as in exercise 2) and count, for
#    every node, the arrows that point at it: one per entry in some node's `next_functions`,
#    skipping `(None, 0)`;
# 2. start a ready list with `t.grad_fn`; repeatedly take the node added to it last
#    (`ready.pop()`), append it to the order, and lower the count of each node it points at by
#    one, in the order of its `next_functions`; a node whose count reaches 0 is ready: add it to
#    the ready list.
#
# The check runs it on graphs of its own, with forks, a node used twice by one operation, paths
# of different lengths to the same node, chains of diamonds and a chain of 5,000 operations. The
# engine and the library's graph walks are switched off while it runs, and your order is compared
# with the order the engine really runs on the same graph.

# %% nbgrader={"grade": false, "grade_id": "nb05_ex6_order", "locked": false, "schema_version": 3, "solution": true, "task": false}
def backward_order(t):
    ### BEGIN SOLUTION
    counts, stack = {}, [t.grad_fn]
    while stack:  # count the arrows into each node; its first arrow puts it on the stack
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is not None:
                counts[child] = counts.get(child, 0) + 1
                if counts[child] == 1:
                    stack.append(child)
    order, ready = [], [t.grad_fn]
    while ready:  # a node is ready once every arrow into it has been used
        node = ready.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                counts[child] -= 1
                if counts[child] == 0:
                    ready.append(child)
    return order
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb05_ex6_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.engine_order()
### BEGIN HIDDEN TESTS
checks.engine_order_twice()
### END HIDDEN TESTS

# %% [markdown] id="05-what-the-graph-saves-for" tags=["topic:T41"]
# ## 9. What the graph saves for backward
#
# `Square` in section 7 kept `x` with `ctx.save_for_backward(x)`, because its backward needs it.
# Every built-in node does the same, and you can look at what it kept: PyTorch calls the saved
# values `_saved_<name>`, after the operation's arguments (`self`, `other`, `exponent`, ...) or
# `result` for its output. The leading underscore says the names may change between versions,
# but they answer a real question: what does my graph keep in memory until backward?

# %% id="05-x-agk-tensor-1-2" tags=["topic:T41"]
x = agk.tensor([1., 2., 3.], requires_grad=True)
w = agk.tensor([0.5, -1., 2.], requires_grad=True)
k = agk.tensor([4., 5., 6.])                     # needs no gradient


def saved_names(t):
    return [n for n in dir(t.grad_fn) if n.startswith("_saved")]


z = x * w
print("x * w  :", saved_names(z), "| _saved_self is x:", z.grad_fn._saved_self is x,
      "| _saved_other is w:", z.grad_fn._saved_other is w)
z2 = x * k
print("x * k  : _saved_self =", z2.grad_fn._saved_self, "| _saved_other is k:",
      z2.grad_fn._saved_other is k)
y = x.exp()
print("x.exp():", saved_names(y), "=", y.grad_fn._saved_result)
print("x ** 2 :", saved_names(x ** 2))
print("x + w  :", saved_names(x + w), "(alpha is the number in x + alpha * w)")

# %% [markdown] id="05-each-node-keeps-only-what" tags=["topic:T41"]
# Each node keeps only what its backward formula reads:
#
# - `x * w` needs `w` for `x`'s gradient and `x` for `w`'s, so it keeps both, and they are the
#   input tensors themselves (`is x`). That is why changing `x` in place before backward is
#   caught by the version counter (notebook 04).
# - `x * k` keeps only `k`: `k` needs no gradient, so nobody needs `x` (`_saved_self` is
#   `None`).
# - `exp` keeps its *output*, since `d eˣ/dx = eˣ`. It is handed out as a new tensor with the
#   same values: the node cannot hold `y` itself, because `y` holds the node.
# - `x + w` keeps no tensor at all: its local derivatives are 1.
#
# Backward frees what the nodes saved (unless `retain_graph=True`), and reading it afterwards
# raises the same error as a second backward pass:

# %% id="05-z-sum-backward" tags=["topic:T41"]
z.sum().backward()
try:
    z.grad_fn._saved_self
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

# %% [markdown] id="05-every-saved-tensor-of-a" tags=["topic:T41"]
# ### Every saved tensor of a forward pass: `saved_tensors_hooks`
#
# Looking node by node does not scale to a network.
# `agk.autograd.graph.saved_tensors_hooks(pack, unpack)` is a `with` block: every tensor that an
# operation inside it saves is handed to `pack(tensor)` first, and whatever `pack` returns is
# stored instead; when backward needs the tensor it calls `unpack(stored)`, which must give back
# a tensor with the same values. PyTorch
# users move saved tensors to the CPU or compress them this way, to train models that would not
# fit in memory. (`grad_fn._raw_saved_self.register_hooks(pack, unpack)` does the same for one
# saved tensor.) Here `pack` only measures, on a small network, for three batch sizes:

# %% id="05-agk-manual-seed-0" tags=["topic:T41"]
agk.manual_seed(0)
mlp = agk.nn.Sequential(agk.nn.Linear(20, 64), agk.nn.Tanh(), agk.nn.Linear(64, 64),
                        agk.nn.Tanh(), agk.nn.Linear(64, 1))
n_parameters = sum(p.numel() for p in mlp.parameters())


def saved_shapes(batch_size):
    shapes = []

    def pack(t):
        shapes.append(tuple(t.shape))
        return t

    with agk.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = mlp(agk.randn(batch_size, 20)).pow(2).mean()
    loss.backward()                     # unpack gives every saved tensor back: backward works
    return shapes


print("saved for a batch of 8:", saved_shapes(8))
for batch_size in (1, 32, 1024):
    numbers = sum(int(np.prod(shape)) for shape in saved_shapes(batch_size))
    print(f"batch of {batch_size:4}: the graph keeps {numbers:7,d} numbers for backward "
          f"(the network has {n_parameters:,d} parameters)")

# %% [markdown] id="05-the-first-linear-keeps-only" tags=["topic:T41"]
# The first `Linear` keeps only its input (its weight would only serve the input's gradient,
# and the input needs none), each `tanh` keeps its output, the other `Linear` layers keep their
# input and their weight, and `pow` keeps its input. Everything but the weights grows in
# proportion to the batch: from 32 examples on, the graph holds more numbers than the network
# has parameters. This is the memory that `no_grad()` saves during evaluation (notebook 02), and
# the reason a batch size that evaluates fine can run out of memory in training.

# %% [markdown] id="05-exercise-7-count-what-a"
# ### Exercise 7 — count what a graph saves (write the code, 3 points)
#
# Write `count_saved(f, *inputs)`: it runs `out = f(*inputs)` inside a `saved_tensors_hooks`
# block whose hooks count the tensors the graph saves and their numbers (elements), and returns
# `(out, count, numbers)`. A backward pass through `out` must still work afterwards and give the
# right gradients, so `unpack` has to give back what `pack` was handed. The check runs it on
# functions and inputs of its own, then backpropagates through `out`.

# %% nbgrader={"grade": false, "grade_id": "nb05_ex7_count_saved", "locked": false, "schema_version": 3, "solution": true, "task": false}
def count_saved(f, *inputs):
    ### BEGIN SOLUTION
    sizes = []

    def pack(t):
        sizes.append(t.numel())
        return t

    def unpack(t):
        return t

    with agk.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = f(*inputs)
    return out, len(sizes), sum(sizes)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb05_ex7_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.saved_counted()

# %% [markdown] id="05-recap"
# ## Recap
#
# - `e.backward()` reaches the leaves through references: `e.grad_fn` → `next_functions` →
#   ... → `AccumulateGrad.variable`, which *is* the leaf tensor.
# - Before the engine runs, `backward()` normalises its arguments: tensors to a tuple, one
#   gradient per tensor, ones for scalar outputs, `retain_graph` defaulting to `create_graph`.
# - `vars()`, `dir()` and `type()` are how you explore objects you did not write.
# - `next_functions` holds `(node, index)` pairs; `(None, 0)` marks an input that needs no
#   gradient. Non-leaf nodes have no `variable`; a loop with a stack walks down to the leaves.
# - Every operation has a forward and a backward; `autograd.Function` lets you write both, and
#   `gradcheck` checks the backward.
# - For `c = a + b; e = c * d` with `a = 2, b = 3, d = 4`: `a.grad = b.grad = 4`, `d.grad = 5`.
# - Where a tensor is used more than once, the gradients of its uses add up. The engine counts,
#   for every node, the gradients it must receive, runs a node only when that count reaches 0
#   (the ready queue), and so runs every node once, in a topological order.
# - Nodes keep only what their backward reads: `grad_fn._saved_self`, `_saved_other`,
#   `_saved_result` show it (inputs are the tensors themselves; `x * k` keeps only `k`; `x + w`
#   keeps nothing), and backward frees it. `saved_tensors_hooks(pack, unpack)` sees every saved
#   tensor of a forward pass: the graph's memory grows with the batch.
#
# **Next:** notebook 06 hooks into the backward pass to watch, and change, the gradients as they
# flow.
#
# **Further reading** in PyTorch's documentation:
#
# - [Autograd mechanics](https://docs.pytorch.org/docs/stable/notes/autograd.html):
#   how autograd encodes the history, and what it saves
# - [`torch.autograd`](https://docs.pytorch.org/docs/stable/autograd.html):
#   `Function`, the graph's nodes, `gradcheck`
# - [`Function.backward`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.Function.backward.html):
#   what your backward receives and returns
# - [`ctx.save_for_backward`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.function.FunctionCtx.save_for_backward.html):
#   keeping tensors for backward
# - [`torch.autograd.gradcheck`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.gradcheck.gradcheck.html):
#   checking a backward numerically
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="05-checks-check-progress"
checks.check.progress()
