# %% [markdown] id="06-hooks-watching-and-changing-gradients"
# # 06 · Hooks: watching (and changing) gradients
#
# autograd frees the gradients of intermediate results as soon as it has used them. That saves
# memory, but sometimes you want to *see* them: to debug a network whose loss does not move, to
# find a layer whose gradients vanish, or to clip gradients that explode. **Hooks** are functions
# you hand to autograd, which it calls with a gradient at the moment that gradient is computed.
# This notebook covers tensor hooks, module hooks, and a famous trap with the old module backward
# hook.
#
# **Time:** about 1 h 50 min: 50 min to read and run the cells, 60 min for the exercises
# (estimated from the notebook's length and points, as notebook 00 explains).
#
# **Before you start:** notebooks 02, 04 and 05 (why a non-leaf's `.grad` is `None`,
# initialising weights under `no_grad()`, backward nodes and the order the engine runs them).
#
# **Learning goals.** By the end of this notebook you can
#
# - predict which results require grad, and explain why an intermediate `.grad` stays `None`;
# - print an intermediate gradient with `register_hook`, and remove the hook with its handle;
# - predict what a chain of hooks sees and what reaches the leaf (exercise 1), and capture
#   intermediate gradients with hooks that change nothing (exercise 2);
# - use module forward hooks and backward hooks `hook(module, grad_input, grad_output)`;
# - work out the `Linear(4, 1)` example by hand (exercise 4), and explain why the legacy
#   backward hook's `grad_input` changes with the order of operations (20.5, 22, 5.5);
# - fix a function whose input gradient is `None` after `.to(...)` (exercise 3);
# - freeze parameters with `requires_grad_(False)` and hand the optimizer only the trainable
#   ones (exercise 5).
#
# **Graded exercises:** 5 exercises, **10 points** in total (predictions teach: they count for no points).

# %% id="06-import-numpy-as-np"
import numpy as np
import matplotlib.pyplot as plt
import ipywidgets as widgets

import autogradkit as agk
from autogradkit import nn

import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)

# %% [markdown] id="06-which-results-require-grad" tags=["topic:T43"]
# ## 1. Which results require grad?
#
# A result requires grad as soon as *any* of its inputs does. Adding two tensors that need no
# gradient gives a result that needs none; add a third that does, and the result does too:

# %% id="06-x-agk-randn-5-5" tags=["topic:T43"]
x = agk.randn(5, 5)                        # requires_grad=False by default
y = agk.randn(5, 5)
z = agk.randn((5, 5), requires_grad=True)
a = x + y
print("a = x + y requires grad:", a.requires_grad)
b = a + z
print("b = a + z requires grad:", b.requires_grad, "| grad_fn:", b.grad_fn.name())

# %% [markdown] id="06-intermediate-gradients-are-freed" tags=["topic:T44"]
# ## 2. Intermediate gradients are freed
#
# Take `x = (x₁, x₂) = (1, 2)`, `y = 2x` and `z = mean(y) = (y₁ + y₂) / 2`. By hand:
# `∂z/∂x = (1, 1)`, `∂z/∂y = (0.5, 0.5)` and `∂z/∂z = 1`. autograd computes all of these on the
# way back, but keeps only the leaf's:

# %% id="06-x-agk-tensor-1-2" tags=["topic:T44"]
x = agk.tensor([1, 2], dtype=agk.float32, requires_grad=True)
y = x * 2
z = agk.mean(y)
print(z)
z.backward()
print("x.grad:", x.grad)
print("y.grad:", y.grad)     # we expect (0.5, 0.5), but it was freed
print("z.grad:", z.grad)     # we expect 1

# %% [markdown] id="06-y-and-z-are-not" tags=["topic:T44"]
# `y` and `z` are not leaves, so their gradients were passed on and then freed (with the warning
# you met in notebook 02). `retain_grad()` would keep them. A hook is the more flexible way: it
# lets you look at the gradient, or change it, as it passes.

# %% [markdown] id="06-register-hook-print-see-a" tags=["topic:T45"]
# ## 3. `register_hook(print)`: see a gradient as it flows
#
# `t.register_hook(fn)` asks autograd to call `fn(grad)` when the gradient of `t` has been
# computed. The simplest hook is `print`:

# %% id="06-x-agk-tensor-1-2-2" tags=["topic:T45"]
x = agk.tensor([1, 2], dtype=agk.float32, requires_grad=True)
y = x * 2
handle = y.register_hook(print)
z = agk.mean(y)
z.backward()               # the hook prints dz/dy during the backward pass

# %% [markdown] id="06-there-it-is-tensor-0" tags=["topic:T45"]
# There it is: `tensor([0.5000, 0.5000])`, the gradient of `z` with respect to `y`.
# `register_hook` returns a handle; `handle.remove()` takes the hook off again (always remove
# hooks you only needed for a look, or they keep firing).

# %% id="06-print-type-handle-name" tags=["topic:T45"]
print(type(handle).__name__)
handle.remove()

# %% [markdown] id="06-a-hook-can-change-the" tags=["topic:T46"]
# ## 4. A hook can change the gradient
#
# A tensor hook has the signature `hook(grad) -> Tensor or None`:
#
# - return `None` (like `print` does) and the gradient flows on unchanged;
# - return a tensor of the same shape and it **replaces** the gradient: everything further back
#   (towards the leaves) receives the new one.
#
# You may not change `grad` itself in place; return a new tensor instead.

# %% id="06-x-agk-tensor-1-2-3" tags=["topic:T46"]
x = agk.tensor([1., 2.], requires_grad=True)
y = x * 2


def double(grad):
    return grad * 2


y.register_hook(double)
y.mean().backward()
print("x.grad with the doubling hook:", x.grad)   # 2 * 0.5 * 2 = 2 instead of 1

# %% [markdown] id="06-several-hooks-on-one-tensor" tags=["topic:T46"]
# Several hooks on one tensor run in the order you registered them, each seeing the gradient the
# previous one returned. Hooks on leaves work too: they see the gradient just before it is added
# into `.grad`. Here a clipping hook sits between two spies:

# %% id="06-x-agk-tensor-1-2-4" tags=["topic:T46"]
x = agk.tensor([1., 2.], requires_grad=True)
y = x * 2
y.register_hook(lambda grad: print("first spy sees ", grad))
y.register_hook(lambda grad: grad.clamp(max=0.3))
y.register_hook(lambda grad: print("second spy sees", grad))
x.register_hook(lambda grad: print("leaf hook sees ", grad))
y.mean().backward()
print("x.grad:", x.grad)


# %% [markdown] id="06-try-it-a-hook-on" tags=["topic:T45", "topic:T46"]
# ### Try it: a hook on `y`
#
# Pick a hook for the intermediate `y = x * 2` in `z = mean(y)` and see what it receives and
# what arrives in `x.grad`.

# %% id="06-def-hook-lab" jupyter={"source_hidden": true} tags=["topic:T45", "topic:T46"]
def hook_lab():
    """A dropdown of hooks for y in z = mean(x * 2); the panel shows what flows where."""
    choices = {
        "no hook": None,
        "look only (returns None)": lambda grad: None,
        "double: grad * 2": lambda grad: grad * 2,
        "zero: grad * 0": lambda grad: grad * 0,
        "clip: grad.clamp(max=0.3)": lambda grad: grad.clamp(max=0.3),
        "flip: -grad": lambda grad: -grad,
    }
    menu = widgets.Dropdown(options=list(choices), description="hook on y")
    panel = widgets.Output(layout={"border": "1px solid #ccc", "padding": "4px"})

    def show(_=None):
        x = agk.tensor([1., 2.], requires_grad=True)
        y = x * 2
        seen = []
        hook = choices[menu.value]
        if hook is not None:
            y.register_hook(lambda grad: seen.append(grad) or hook(grad))
        agk.mean(y).backward()
        received = f"the hook receives {seen[0]}\n" if seen else "no hook runs\n"
        panel.outputs = ()
        panel.append_stdout(received + f"x.grad = {x.grad}\n")

    menu.observe(show, names="value")
    show()
    return widgets.VBox([menu, panel])


hook_lab()

# %% [markdown] id="06-exercise-1-predict-what-the"
# ### Exercise 1 — predict what the hooks print (predict, no points)
#
# ```python
# x = agk.tensor([1., 2., 3.], requires_grad=True)
# y = x * 3
# y.register_hook(print)                    # hook A
# y.register_hook(lambda grad: grad * 10)   # hook B
# y.sum().backward()
# ```
#
# Predict the tensor that hook A prints, and the final `x.grad`. Write both as lists of numbers.

# %% nbgrader={"grade": false, "grade_id": "nb06_ex1_predict_hooks", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set printed_by_a and final_x_grad (lists of three numbers).
### BEGIN SOLUTION
printed_by_a = [1., 1., 1.]
final_x_grad = [30., 30., 30.]
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb06_ex1_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.predicted_hooks()

# %% [markdown] id="06-exercise-2-capture-intermediate-gradients"
# ### Exercise 2 — capture intermediate gradients (write the code, 3 points)
#
# Write `capture_grads(named, loss)`. `named` is a dict `{name: tensor}` of intermediate results
# that `loss` was computed from. Register one hook per tensor that stores a copy of its gradient
# under its name, run `loss.backward()`, remove the hooks, and return the dict of captured
# gradients. Your hooks must not change the gradients. The check tries graphs of its own, where
# one tensor is used twice and another is reached along two paths.

# %% nbgrader={"grade": false, "grade_id": "nb06_ex2_capture", "locked": false, "schema_version": 3, "solution": true, "task": false}
def capture_grads(named, loss):
    ### BEGIN SOLUTION
    captured, handles = {}, []
    for name, tensor in named.items():
        def store(grad, name=name):
            captured[name] = grad.clone()
        handles.append(tensor.register_hook(store))
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb06_ex2_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.captured_grads()
### BEGIN HIDDEN TESTS
checks.captured_grads_twice()
### END HIDDEN TESTS

# %% [markdown] id="06-module-parameters-require-grad" tags=["topic:T51"]
# ## 5. Module parameters require grad
#
# A layer such as `nn.Linear(4, 1)` holds its weights as `Parameter`s: leaf tensors that require
# grad from the moment they are created. You never set `requires_grad=True` on a network's
# weights, because they are exactly what training changes, so they are tracked by default:

# %% id="06-layer-nn-linear-4-1" tags=["topic:T51"]
layer = nn.Linear(4, 1)
for name, param in layer.named_parameters():
    print(f"{name:6} shape={tuple(param.shape)}  requires_grad={param.requires_grad}  "
          f"is_leaf={param.is_leaf}")


# %% [markdown] id="06-module-hooks" tags=["topic:T47"]
# ## 6. Module hooks
#
# Modules have hooks too, registered on the module rather than on a tensor:
#
# - a **forward hook** `hook(module, inputs, output)` runs right after the module's `forward`:
#   handy to record activations;
# - a **backward hook** `hook(module, grad_input, grad_output)` runs during the backward pass:
#   `grad_output` holds the gradients with respect to the module's outputs and `grad_input` those
#   with respect to its inputs (tuples, because a module can have several). Returning a new tuple
#   replaces `grad_input`.
#
# Our example network computes a `Linear(4, 1)` with all weights 8 and bias 2, then divides by 4:

# %% id="06-class-quarter-nn-module" tags=["topic:T47", "topic:T48"]
class Quarter(nn.Module):
    def forward(self, input):
        return input / 4


class Net(nn.Module):
    """Linear(4, 1) with weights 8 and bias 2, and a division by 4, in one of three orders."""

    def __init__(self, order="linear-then-quarter"):
        super().__init__()
        self.f1 = nn.Linear(4, 1)
        self.f2 = Quarter()
        self.order = order
        with agk.no_grad():            # initialise parameters outside the graph (notebook 04)
            self.f1.weight.fill_(8.0)
            self.f1.bias.fill_(2.0)

    def forward(self, input):
        if self.order == "linear-then-quarter":
            return self.f2(self.f1(input))
        if self.order == "quarter-then-linear":
            return self.f1(self.f2(input))
        return self.f1(self.f2(input)) / 4


net = Net()
print(net)


# %% id="06-def-show-forward-module-inputs" tags=["topic:T47"]
def show_forward(module, inputs, output):
    print(f"forward hook on {type(module).__name__}: inputs={inputs} output={output}")


handle = net.f1.register_forward_hook(show_forward)
print("result:", net(agk.tensor([1., 2., 3., 4.])))
handle.remove()


# %% [markdown] id="06-the-linear-4-1-example" tags=["topic:T48"]
# ## 7. The `Linear(4, 1)` example
#
# Now the full experiment. The input `[1, 2, 3, 4]` is created as a tensor that requires grad and
# then converted with `.to(...)`, as in code that moves data to a GPU. The network gets the legacy
# backward hook `register_backward_hook`, and the converted input gets a tensor hook. Expected
# result: `(1 + 2 + 3 + 4) · 8 + 2 = 82`, divided by 4: **20.5**.
#
# > **Note on the source.** Article 003 (Song, "pytorch中autograd以及hook函数详解", pytorch中文网,
# > <https://ptorch.com/news/172.html>; section 2, "register_backward_hook") explains the
# > result with "(1+2+3+4)*8 + 2/4 = 20.5". Read with the usual precedence, division before
# > addition, that is `80 + 0.5 = 80.5`: only the bias is divided by 4. The network divides the
# > whole output of the linear layer, bias included, so the sum needs brackets:
# > `((1+2+3+4)*8 + 2)/4 = 82/4 = 20.5`, which is what PyTorch prints for this network.

# %% id="06-def-module-hook-module-grad" tags=["topic:T48"]
def module_hook(module, grad_input, grad_output):
    print("module hook: grad_input =", grad_input)
    print("             grad_output =", grad_output)


def input_hook(grad):
    print("tensor hook on input:", grad)


def experiment(order):
    input = agk.tensor([1, 2, 3, 4], dtype=agk.float64, requires_grad=True).to(agk.float32)
    net = Net(order)
    net.register_backward_hook(module_hook)
    input.register_hook(input_hook)
    result = net(input)
    print("result =", result)
    result.backward()
    print("input.grad:", input.grad)
    print("weight.grad:", net.f1.weight.grad)
    print("bias.grad:  ", net.f1.bias.grad)


experiment("linear-then-quarter")

# %% [markdown] id="06-read-the-output-from-the" tags=["topic:T48"]
# Read the output from the top:
#
# - **result 20.5**, as computed;
# - the **module hook** reports `grad_output = (1,)` (the gradient of the result with respect to
#   itself) and `grad_input = (0.25, None)`. That is the gradient of the division `y / 4` with
#   respect to `y`, which is 1/4, and `None` for the constant 4. It is *not* the gradient with
#   respect to the network's input (more on this in section 9);
# - the **tensor hook** on the input sees `[2, 2, 2, 2]`: `∂result/∂xᵢ = wᵢ / 4 = 8 / 4`;
# - the **weight gradients** are `xᵢ / 4 = [0.25, 0.5, 0.75, 1.0]` and the **bias gradient** is
#   `1/4 = 0.25`;
# - `input.grad` is `None`, with a warning (section 8 explains).
#
# Now swap the order of the two steps, and then divide once more at the end:

# %% id="06-experiment-quarter-then-linear" tags=["topic:T48"]
experiment("quarter-then-linear")

# %% id="06-experiment-quarter-linear-quarter" tags=["topic:T48"]
experiment("quarter-linear-quarter")

# %% [markdown] id="06-the-results-are-22-1" tags=["topic:T48"]
# The results are **22** (`(1 + 2 + 3 + 4)/4 · 8 + 2`) and **5.5** (`22 / 4`), and the gradients
# follow the algebra: with the linear layer last, the bias gradient is 1; with a final division
# it is 0.25 again and the weight gradients shrink to `xᵢ / 16`. The module hook's `grad_input`
# changes shape completely each time: `(0.25, None)`, then `([[1.]],)`, then `(0.25, None)`. It
# always describes *the last operation inside the module*: the division in the first and third
# orders, the reshape at the end of the `Linear` in the second. The warning printed at each
# forward pass says the same thing.

# %% [markdown] id="06-why-was-input-grad-none" tags=["topic:T49"]
# ## 8. Why was `input.grad` `None`?
#
# `input` was not the tensor we created. `.to(agk.float32)` made a *copy* (with the `grad_fn`
# `ToCopyBackward0`, as the next cell shows), and a copy produced by an operation is not a leaf,
# so it keeps no `.grad`. The tensor hook saw
# the gradient because hooks fire on any tensor. The leaf that did receive a gradient is the
# original tensor, which we never kept a name for.
#
# In the original version of this example the copy came from `.to("cuda")`, moving the input to
# the GPU. On the CPU, `.to("cpu")` (or `.float()` on a float32 tensor) has nothing to do and
# returns the very same tensor, so there the problem does not show:

# %% id="06-original-agk-tensor-1-2" tags=["topic:T49"]
original = agk.tensor([1., 2., 3., 4.], requires_grad=True)
print("to('cpu') returns the same tensor:", original.to("cpu") is original)

copy = original.to(agk.float64)
print("to(float64) makes a copy:", copy.grad_fn, "| is_leaf:", copy.is_leaf)

(copy * 2).sum().backward()
print("the original leaf got the gradient:", original.grad)

# %% [markdown] id="06-note-on-the-source-article" tags=["topic:T49"]
# > **Note on the source.** Article 003 (Song, "pytorch中autograd以及hook函数详解"; section 2,
# > after the first run of this example) finds
# > `input.grad: None` and says it is "很有可能是bug问题" (most likely a bug) that it will not go
# > into. It is not a bug but the rule of notebook 02: `.to(...)` that has to copy is an
# > operation, its result has a `grad_fn` (`ToCopyBackward0` in PyTorch too) and is not a leaf,
# > so it keeps no `.grad`. PyTorch 2.x says so when you read it, with the `UserWarning` about
# > the `.grad` of a non-leaf tensor shown in section 7; the article used PyTorch 0.4, which
# > did not warn.

# %% [markdown] id="06-exercise-3-find-the-bug"
# ### Exercise 3 — find the bug (2 points)
#
# This function wants the gradient of a network's output with respect to its input, but the
# gradient it returns is `None`:
#
# ```python
# def input_gradient(values, net):
#     inp = agk.tensor(values, dtype=agk.float64, requires_grad=True).to(agk.float32)
#     out = net(inp).sum()
#     out.backward()
#     return inp, inp.grad
# ```
#
# Write the fixed `input_gradient(values, net)`: it returns `inp`, a leaf holding the values as
# float32, and `input_grad`, the gradient that `out.backward()` left in it (there is more than
# one good fix). The check calls it with inputs and networks of its own.

# %% nbgrader={"grade": false, "grade_id": "nb06_ex3_find_the_bug", "locked": false, "schema_version": 3, "solution": true, "task": false}
def input_gradient(values, net):
    ### BEGIN SOLUTION
    inp = agk.tensor(values, dtype=agk.float32, requires_grad=True)
    out = net(inp).sum()
    out.backward()
    return inp, inp.grad
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb06_ex3_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.leaf_input()

# %% [markdown] id="06-the-legacy-backward-hook-only" tags=["topic:T50"]
# ## 9. The legacy backward hook only sees the last operation
#
# `register_backward_hook` was designed when a module was assumed to be a single operation. It is
# attached to the last backward node the module's forward pass created, so its `grad_input` is the
# gradient with respect to *that node's* inputs, whatever the module does before it. That is why it
# changed with the order of operations, and why PyTorch now warns that it is deprecated.
#
# Two reliable alternatives:
#
# - **tensor hooks** on exactly the tensors you care about (as the input hook above);
# - **`register_full_backward_hook`**, whose `grad_input` really is the gradient with respect to the
#   module's inputs and `grad_output` with respect to its outputs:

# %% id="06-net-net-linear-then-quarter" tags=["topic:T50"]
net = Net("linear-then-quarter")
net.register_full_backward_hook(module_hook)
leaf_input = agk.tensor([1., 2., 3., 4.], requires_grad=True)
result = net(leaf_input)
print("result =", result)
result.backward()
print("leaf_input.grad:", leaf_input.grad)

# %% [markdown] id="06-now-grad-input-is-2" tags=["topic:T50"]
# Now `grad_input` is `([2., 2., 2., 2.],)`, the gradient with respect to the network's input,
# matching the tensor hook and `leaf_input.grad`, whatever order the module uses inside.
#
# > **Note on the source.** Article 003 (Song, "pytorch中autograd以及hook函数详解"; the end of
# > section 2) calls this behaviour "pytorch的一个
# > bug" (a bug in PyTorch). It is how the legacy hook was built: PyTorch's documentation of
# > `register_backward_hook` marks it deprecated in favour of `register_full_backward_hook`,
# > and a forward pass with several nodes inside the module now triggers the `FutureWarning`
# > you saw in section 7 ("Using a non-full backward hook when the forward contains multiple
# > autograd Nodes is deprecated ... This hook will be missing some grad_input"). The article's
# > own conclusion, to prefer tensor hooks, still holds.

# %% [markdown] id="06-hooks-in-practice-watching-gradients" tags=["topic:T47", "topic:T50"]
# ### Hooks in practice: watching gradients while a network trains
#
# A common use of hooks is to monitor training. Below, a forward hook on every `Linear` layer of a
# small network attaches a tensor hook to the layer's output each time the layer runs; the tensor
# hook records the size (norm) of the gradient arriving there while the network learns
# `y = sin(3x)`. Plots like this reveal layers whose gradients vanish or explode.

# %% id="06-x-train-agk-linspace-1" tags=["topic:T47", "topic:T50"]
x_train = agk.linspace(-1, 1, 64).reshape(64, 1)
y_train = agk.sin(3 * x_train)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
norms = {}


def record(name):
    def forward_hook(module, inputs, output):
        output.register_hook(lambda grad: norms.setdefault(name, []).append(grad.norm().item()))
    return forward_hook


for index in (0, 2, 4):
    model[index].register_forward_hook(record(f"Linear {index}"))
optimizer = agk.optim.SGD(model.parameters(), lr=0.1)
for step in range(150):
    loss = nn.functional.mse_loss(model(x_train), y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"final loss: {loss.item():.4f}")

fig, ax = plt.subplots(figsize=(6.5, 3.5))
for name, values in norms.items():
    ax.semilogy(values, label=f"gradient at the output of {name}")
ax.set_xlabel("training step")
ax.set_ylabel("gradient norm (log scale)")
ax.set_title("Hooks record the gradients while the network trains")
ax.legend(fontsize=8)
plt.show()

# %% [markdown] id="06-exercise-4-the-example-by"
# ### Exercise 4 — the example by hand (2 points)
#
# Take the network of section 7 in its first order (`Linear` then divide by 4), with any input
# `x`, weights `w` and bias `b` (`x` and `w` are NumPy arrays of the same length). Work out by
# hand the result, its gradient with respect to the weights (one number per weight) and with
# respect to the bias, then write `linear_by_hand(x, w, b)` that returns the three, computed with
# plain NumPy. The check calls it on inputs of its own, and autograd's backward is switched off
# while it runs.

# %% nbgrader={"grade": false, "grade_id": "nb06_ex4_by_hand", "locked": false, "schema_version": 3, "solution": true, "task": false}
def linear_by_hand(x, w, b):
    """The result of Linear-then-divide-by-4, and its gradients for w and b, by hand."""
    ### BEGIN SOLUTION
    result = (np.dot(w, x) + b) / 4
    weight_grad = x / 4
    bias_grad = 0.25
    return result, weight_grad, bias_grad
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb06_ex4_test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
checks.by_hand()

# %% [markdown] id="06-freezing-parameters" tags=["topic:T51"]
# ## 10. Freezing parameters
#
# Section 5 showed that parameters require grad from the start, because training changes them.
# Sometimes some of them should stay as they are: you fine-tune only the last layer of a network
# someone else trained, or keep a trained feature extractor fixed while a new layer on top
# learns. That is **freezing**, and it takes two steps:
#
# 1. `param.requires_grad_(False)` on every parameter to freeze. It stays a `Parameter` and a
#    leaf; autograd simply stops recording for it, so backward neither computes nor stores its
#    gradient;
# 2. give the optimizer only the parameters that still require grad.
#
# Freeze the first layer of a small network and look at the graph of its output:

# %% id="06-agk-manual-seed-0" tags=["topic:T51"]
agk.manual_seed(0)
small = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
for param in small[0].parameters():
    param.requires_grad_(False)
for name, param in small.named_parameters():
    print(f"{name:8} requires_grad={param.requires_grad}")
trainable = [param for param in small.parameters() if param.requires_grad]
print("numbers to train:", sum(p.numel() for p in trainable), "of",
      sum(p.numel() for p in small.parameters()))

out = small(agk.randn(5, 3))
print("below the output:", [(type(node).__name__ if node is not None else None)
                            for node, _ in out.grad_fn.next_functions])
out.sum().backward()
print("small[0].weight.grad:", small[0].weight.grad)
print("small[2].weight.grad:", small[2].weight.grad)

# %% [markdown] id="06-the-last-linear-is-an" tags=["topic:T51"]
# The last `Linear` is an `AddmmBackward0` whose inputs are its bias, the output of `tanh`, and
# its weight (through `TBackward0`). The `tanh` entry is `(None, 0)`: with the first layer frozen
# and the input needing no gradient, nothing below it requires grad, so nothing below it was
# recorded. The backward pass stops at the last layer and skips the frozen part entirely.
#
# Why step 2, when the optimizer skips a parameter whose `.grad` is `None` anyway? Because a
# frozen parameter is not always one whose `.grad` is `None`. Fine-tuning often freezes a layer
# after some training: the layer still holds its last gradient, and an optimizer with momentum
# holds a momentum buffer for it. Older code also clears gradients with
# `zero_grad(set_to_none=False)`, which leaves zeros instead of `None`. Then the optimizer goes
# on updating the "frozen" weights with the old momentum. An optimizer over the trainable
# parameters only cannot touch them, and keeps no state (momentum, Adam's averages) for them:

# %% id="06-def-frozen-layer-moves-optimizer" tags=["topic:T51"]
def frozen_layer_moves(optimizer_over):
    """Train 3 steps, freeze the first layer, train 5 more steps: how far do its weights move?"""
    agk.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    x, y = agk.randn(16, 3), agk.randn(16, 1)
    optimizer = agk.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for step in range(8):
        if step == 3:
            for param in net[0].parameters():
                param.requires_grad_(False)
            before = net[0].weight.detach().clone()
            if optimizer_over == "the trainable parameters":
                trainable = [param for param in net.parameters() if param.requires_grad]
                optimizer = agk.optim.SGD(trainable, lr=0.1, momentum=0.9)
        optimizer.zero_grad(set_to_none=False)
        nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    return (net[0].weight - before).abs().max().item()


for over in ("all parameters", "the trainable parameters"):
    print(f"optimizer over {over:24}: the frozen weights moved by up to {frozen_layer_moves(over):.4f}")

# %% [markdown] id="06-exercise-5-fine-tune-the"
# ### Exercise 5 — fine-tune the last layer (write the code, 3 points)
#
# Write `fine_tune_last(model, x, y, steps, lr)`. `model` is an `nn.Sequential` whose last entry
# is a `Linear` layer. Freeze every parameter of the model except those of its last layer, make
# an `agk.optim.SGD` optimizer with learning rate `lr` over the trainable parameters only, train
# for `steps` steps on the `nn.MSELoss()` between `model(x)` and `y` (zero the gradients, forward,
# loss, backward, step), and return the optimizer. The check calls it on networks of its own and
# looks at every parameter afterwards.

# %% nbgrader={"grade": false, "grade_id": "nb06_ex5_fine_tune", "locked": false, "schema_version": 3, "solution": true, "task": false}
def fine_tune_last(model, x, y, steps, lr):
    ### BEGIN SOLUTION
    for param in model.parameters():
        param.requires_grad_(False)
    for param in model[-1].parameters():
        param.requires_grad_(True)
    optimizer = agk.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    loss_fn = nn.MSELoss()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    return optimizer
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb06_ex5_test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
checks.fine_tuned()

# %% [markdown] id="06-recap"
# ## Recap
#
# - A result requires grad if any input does. Intermediate gradients are computed, used and freed:
#   `y.grad` stays `None` unless you keep it.
# - `t.register_hook(fn)` calls `fn(grad)` when `t`'s gradient is ready; `register_hook(print)`
#   shows `tensor([0.5000, 0.5000])` in the mean example. Remove hooks with the handle.
# - A hook returns `None` (look only) or a new tensor that replaces the gradient flowing on.
# - Module hooks: forward hooks `(module, inputs, output)`, backward hooks
#   `(module, grad_input, grad_output)`. Parameters require grad by default.
# - In the `Linear(4, 1)` example (results 20.5, 22 and 5.5; weight gradients 0.25 0.5 0.75 1.0;
#   bias gradient 0.25) the legacy backward hook only sees the module's last operation. Prefer tensor
#   hooks or `register_full_backward_hook`.
# - `input.grad` was `None` because `.to(...)` made a non-leaf copy; keep a reference to the leaf.
# - Freeze parameters with `requires_grad_(False)`: backward no longer computes their gradients
#   (nothing below a frozen first layer is even recorded). Give the optimizer only
#   `[p for p in model.parameters() if p.requires_grad]`: a frozen parameter that still has an
#   old gradient or momentum would otherwise keep moving.
#
# **Next:** notebook 07 puts everything together: train a small network, watch its graph and its
# gradients, and compare optimizers.
#
# **Further reading** in PyTorch's documentation:
#
# - [`Tensor.register_hook`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html):
#   tensor hooks and their handle
# - [`torch.nn.Module`](https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html):
#   `register_forward_hook`, `register_full_backward_hook` and the deprecated
#   `register_backward_hook`
# - [Autograd mechanics](https://docs.pytorch.org/docs/stable/notes/autograd.html):
#   when each kind of backward hook runs
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="06-checks-check-progress"
checks.check.progress()
