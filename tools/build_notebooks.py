"""Build the course notebooks in ``notebooks/source/`` from readable text, then execute them.

Each notebook is written below as one text block in which a line ``%% <kind> [key=value ...]``
starts a new cell. Kinds:

- ``md``: a markdown cell;
- ``code``: an ordinary code cell;
- ``solution id=<grade_id>``: an nbgrader solution cell (the answer between
  ``### BEGIN SOLUTION`` / ``### END SOLUTION``);
- ``test id=<grade_id> points=<n>``: an nbgrader autograded test cell (instant-feedback checks,
  hidden tests between ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``).

Options for any cell: ``topics=T01,T02`` adds the tags ``topic:T01``, ``topic:T02``;
``tags=a,b`` adds other tags (``raises-exception`` for a cell whose error is the lesson);
``collapsed`` hides the source of a long helper cell in JupyterLab.
``{POINTS}`` in a markdown cell becomes the notebook's total points.

Usage (from the repository root)::

    .venv/bin/python tools/build_notebooks.py              # write and execute every notebook
    .venv/bin/python tools/build_notebooks.py 01 03        # only the notebooks whose name starts so
    .venv/bin/python tools/build_notebooks.py --no-execute # write sources without outputs

Execution uses nbclient with the ``python3`` kernel, the notebook's folder as working
directory and stored widget state, exactly as ``jupyter nbconvert --execute --inplace`` would.
Release copies are never written here: run ``python -m autogradkit release --course notebooks``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "notebooks" / "source"

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
HEADER = re.compile(r"^%% (md|code|solution|test)\b(.*)$")


@dataclass(frozen=True)
class Notebook:
    """One assignment: ``notebooks/source/<name>/<name>.ipynb`` built from ``text``."""

    name: str
    text: str

    @property
    def path(self) -> Path:
        return SOURCE / self.name / f"{self.name}.ipynb"


def _options(rest: str) -> dict[str, str]:
    options = {}
    for item in rest.split():
        key, _, value = item.partition("=")
        options[key] = value
    return options


def _nbgrader(kind: str, options: dict[str, str]) -> dict | None:
    if kind == "solution":
        return {
            "grade": False,
            "grade_id": options["id"],
            "locked": False,
            "schema_version": 3,
            "solution": True,
            "task": False,
        }
    if kind == "test":
        return {
            "grade": True,
            "grade_id": options["id"],
            "locked": True,
            "points": int(options["points"]),
            "schema_version": 3,
            "solution": False,
            "task": False,
        }
    return None


def parse_cells(text: str) -> list[tuple[str, dict[str, str], str]]:
    """Split the text into (kind, options, source) triples."""
    cells: list[tuple[str, dict[str, str], list[str]]] = []
    for line in text.strip("\n").splitlines():
        match = HEADER.match(line)
        if match:
            cells.append((match.group(1), _options(match.group(2)), []))
        elif cells:
            cells[-1][2].append(line)
        elif line.strip():
            raise ValueError(f"text before the first %% header: {line!r}")
    return [(kind, options, "\n".join(lines).strip("\n")) for kind, options, lines in cells]


def build(notebook: Notebook):
    """The notebook object for ``notebook`` (no outputs)."""
    import nbformat

    cells = parse_cells(notebook.text)
    points = sum(int(options.get("points", 0)) for kind, options, _ in cells if kind == "test")
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for index, (kind, options, source) in enumerate(cells):
        source = source.replace("{POINTS}", str(points)) if kind == "md" else source
        if kind == "md":
            cell = nbformat.v4.new_markdown_cell(source)
        else:
            cell = nbformat.v4.new_code_cell(source)
        cell.id = options.get("id") or f"{notebook.name[:2]}-{index:03d}"
        tags = [f"topic:{t}" for t in options.get("topics", "").split(",") if t]
        tags += [t for t in options.get("tags", "").split(",") if t]
        if tags:
            cell.metadata["tags"] = tags
        grading = _nbgrader(kind, options)
        if grading:
            cell.metadata["nbgrader"] = grading
        if "collapsed" in options:
            cell.metadata["jupyter"] = {"source_hidden": True}
        nb.cells.append(cell)
    return nb


def execute(nb, folder: Path, timeout: int = 120) -> float:
    """Run every cell in a fresh ``python3`` kernel in ``folder``; returns the seconds taken."""
    from nbclient import NotebookClient

    os.environ.pop("MPLBACKEND", None)  # the inline backend only loads when this is unset
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        store_widget_state=True,
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    return time.perf_counter() - start


def stabilise(nb, path: Path):
    """Make a rebuild of an unchanged notebook change no byte (timings aside, which nbval
    ignores): merge split stream chunks, renumber memory addresses, drop kernel pids and
    machine paths, and name widget ids after the notebook, with the release command's helpers."""
    from autogradkit.grading import stable

    addresses: dict[str, str] = {}
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                out["text"] = stable.kernel_paths(stable.renumber_addresses(out["text"], addresses))
                if (
                    merged
                    and merged[-1].get("output_type") == "stream"
                    and merged[-1]["name"] == out["name"]
                ):
                    merged[-1]["text"] += out["text"]
                    continue
            elif out.get("output_type") == "error":
                lines = out["traceback"]
                out["traceback"] = [stable.strip_paths(line, path.parent) for line in lines]
            for mime, value in out.get("data", {}).items():
                if mime.startswith("text/") and isinstance(value, str):
                    out["data"][mime] = stable.renumber_addresses(value, addresses)
            merged.append(out)
        if cell.cell_type == "code":
            cell["outputs"] = merged
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    if state.get("state"):
        nb = stable.stable_widget_ids(nb, path.name, state["state"])
    return nb


def write(nb, path: Path) -> None:
    import nbformat

    path.parent.mkdir(parents=True, exist_ok=True)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)  # nbclient may rewrite it
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    with path.open("w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)


# ------------------------------------------------------------------------------------------------
# The notebooks. Each text is a list of cells; see the module docstring for the format.

NB00 = Notebook(
    "00_start_here",
    r"""
%% md
# 00 · Start here

Welcome! This course shows what PyTorch's **autograd** really does when you call
`loss.backward()`. You will use **autogradkit**, a small library written in NumPy that behaves
like PyTorch: the same names, the same printouts, the same errors. Wherever a PyTorch tutorial
writes `import torch`, we write `import autogradkit as agk`, and the code reads the same. Because
the whole library is Python, you can also open any part of it and read how it works.

This notebook is a short tour of the tools you will use in every other notebook: code cells,
figures, interactive widgets, and the checks that tell you at once whether an exercise is right.

**Learning goals.** By the end of this notebook you can

- run cells in order, restart the kernel, and read an error message;
- create a tensor and ask autogradkit for a gradient;
- use an interactive widget;
- answer an exercise, read the `✓` / `✗` feedback, and submit your notebook.

**Graded exercises:** 3 exercises, **{POINTS} points** in total.

%% md
## 1. Running cells

A notebook is a list of cells. Markdown cells (like this one) hold text; code cells hold Python.
Click into a code cell and press **Shift + Enter** to run it; the output appears below the cell
and the cursor moves on. The number in `[ ]` on the left shows the order in which cells ran;
`[*]` means the cell is still running.

- Run the cells **from top to bottom**: later cells use names defined by earlier ones.
- If things get confusing, use **Kernel → Restart Kernel and Run All Cells**: it forgets
  everything and runs the notebook again from the top.

Run the next cell. It imports the libraries and fixes the random seeds, so that everybody sees
the same random numbers.

%% code
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit.viz import FunctionPlotter
from autogradkit.grading.checks import check_close
from autogradkit.grading.exercises import nb00_start as ex

agk.manual_seed(0)
np.random.seed(0)

%% md
## 2. A first tensor, and a first gradient

A tensor is an array of numbers. `requires_grad=True` asks autogradkit to remember every
operation done with it, so that it can compute gradients later. Here `y = x² + 3x`, so
`dy/dx = 2x + 3 = 7` at `x = 2`:

%% code
x = agk.tensor(2.0, requires_grad=True)
y = x ** 2 + 3 * x
print(y)
y.backward()
print("dy/dx at x = 2:", x.grad)

%% md
The printouts are exactly what PyTorch prints: `tensor(10., grad_fn=<AddBackward0>)` and
`tensor(7.)`. The following notebooks explain every part of them.

## 3. Errors are part of the lesson

Some cells in this course fail on purpose, to show you a real error message. They are marked
with a short note, and their output is a red traceback. Read the **last line**: it names the
error and says what went wrong. For example, PyTorch (and autogradkit) only compute gradients
for floating-point tensors:

%% code tags=raises-exception
counts = agk.tensor([1, 2, 3], requires_grad=True)

%% md
## 4. Figures

Plots appear right below the cell that draws them. Here is `y = x² + 3x` with its tangent line
at `x = 2`, whose slope is the gradient we just computed:

%% code
xs = np.linspace(-4, 3, 100)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(xs, xs ** 2 + 3 * xs, label="y = x² + 3x")
ax.plot(xs, 10 + x.grad.item() * (xs - 2), "--", label="tangent at x = 2 (slope = x.grad = 7)")
ax.plot([2], [10], "ko")
ax.set_ylim(-5, 20)
ax.set_xlabel("x")
ax.legend()
plt.show()

%% md
## 5. Widgets

Some cells show interactive controls. Pick a function from the menu: the plot shows the function
and its derivative, computed by autogradkit's `backward()`. Widgets run Python in the kernel, so
they only respond after you have run the cell (and after a restart, run it again).

%% code
FunctionPlotter()

%% md
## 6. Exercises and instant feedback

Each exercise has an **answer cell** and a **check cell** below it.

1. In the answer cell, replace the line `raise NotImplementedError()` with your answer.
2. Run the answer cell, then the check cell.
3. The check prints `✓ <task>` when your answer is right. When it is not, it prints
   `✗ <task>: <hint>` and the cell fails with an `AssertionError`. The hint says what to look
   at, never the answer. Fix your answer and run both cells again.

The check cells are locked: do not change them. When your notebook is graded, the original check
cells are put back and some extra *hidden* checks run as well, so make sure your answer is right
in general, not just for the visible check.

Here is what a failing check looks like (the `try` / `except` only stops this demonstration cell
from failing):

%% code
try:
    check_close("two plus two", 2 + 2 + 1, 4, hint="count again")
except AssertionError:
    print("-> the check raised AssertionError, so this cell would have failed")

%% md
### Exercise 1 — your first tensor (write the code, 1 point)

Create a tensor `t` that holds the three numbers `1.0, 2.0, 3.0`.

%% solution id=nb00_ex1_tensor
# Define t.
### BEGIN SOLUTION
t = agk.tensor([1.0, 2.0, 3.0])
### END SOLUTION
print(t)

%% test id=nb00_ex1_test points=1
ex.check_first_tensor(t)
### BEGIN HIDDEN TESTS
ex.check_first_tensor_is_float(t)
### END HIDDEN TESTS

%% md
### Exercise 2 — a gradient by hand (compute by hand, 1 point)

For `y = x² + 3x`, what is `dy/dx` at `x = -1`? Work it out on paper and type the number.

%% solution id=nb00_ex2_by_hand
# Set slope (a number).
### BEGIN SOLUTION
slope = 1.0
### END SOLUTION

%% test id=nb00_ex2_test points=1
ex.check_slope_by_hand(slope)
### BEGIN HIDDEN TESTS
ex.check_slope_is_number(slope)
### END HIDDEN TESTS

%% md
### Exercise 3 — predict a printout (predict, 1 point)

What does `print(agk.tensor(2.0, requires_grad=True) * 3)` print? Write it as a string, exactly
as it would appear. (Hint: look at the printout of `y` in section 2.)

%% solution id=nb00_ex3_predict
# Set printed (a string).
### BEGIN SOLUTION
printed = "tensor(6., grad_fn=<MulBackward0>)"
### END SOLUTION

%% test id=nb00_ex3_test points=1
ex.check_predicted_printout(printed)
### BEGIN HIDDEN TESTS
ex.check_predicted_printout_is_str(printed)
### END HIDDEN TESTS

%% md
## 7. Submitting

When you have finished a notebook:

1. **Kernel → Restart Kernel and Run All Cells**, and check that every exercise shows `✓` (cells
   marked as failing on purpose may still show their red error).
2. **File → Save Notebook** (Ctrl + S).
3. Hand in the `.ipynb` file the way your instructor asked (for example by uploading it to the
   course page). Keep the file name unchanged.

Your instructor grades all submissions with `python -m autogradkit grade`: your notebook runs in
a fresh kernel, the locked check cells are restored from the original, the hidden checks run,
and you get back a feedback file with the points for each exercise.

%% md
## Recap

- Run cells from top to bottom; restart and run all when in doubt.
- `import autogradkit as agk` behaves like `import torch` for everything in this course.
- Red errors can be part of a lesson: read their last line.
- Answer in the answer cell, run the check cell, and read the `✓` / `✗` line.
- Restart, run all, save, and hand in the `.ipynb` file.

**Next:** notebook 01 trains a one-weight model by hand.
""",
)


NB01 = Notebook(
    "01_backprop_by_hand",
    r'''
%% md
# 01 · Backpropagation by hand

You are going to train the smallest neural network there is: a single weight. You will do it
with nothing but NumPy and a pencil, computing every gradient yourself. In the next notebook
`loss.backward()` will do the same work for you, and you will know exactly what it computed.

**Learning goals.** By the end of this notebook you can

- name the four steps of a training iteration and say what each one produces;
- draw the computation tree of the model `y_hat = w * x` with a squared-error loss;
- read a gradient as a slope, and explain why the update steps *against* it;
- compute local gradients and chain them into `dloss/dw`;
- write a NumPy training loop and read its table of loss, weight and gradient per epoch;
- say what happens when you change the number of epochs, the data or the learning rate.

**Graded exercises:** 4 exercises, **{POINTS} points** in total. After each exercise a check
cell prints `✓` when your answer is right, or `✗` with a hint when it is not.

%% code
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit.grading.exercises import nb01_backprop as ex

agk.manual_seed(0)
np.random.seed(0)

%% md topics=T01
## 1. Training is four steps, repeated

Every training loop you will ever read repeats the same four steps:

1. **Forward pass.** Run the model on the input, then measure how wrong its output is. That
   measurement is one number, the *loss*.
2. **Local gradients.** The model is a chain of small operations. For each one, work out how
   its output changes when its input changes a little.
3. **Backpropagation.** Multiply the local gradients together, starting at the loss and walking
   back to each weight. The product is `dloss/dw`: how the loss reacts to a change in `w`.
4. **Weight update.** Move each weight a small step in the direction that makes the loss smaller.

In PyTorch, steps 2 and 3 hide inside `loss.backward()` and step 4 inside `optimizer.step()`.
In this notebook all four happen in plain sight.

%% md topics=T02
## 2. The model: one weight, one example

The task is to learn to double a number. We have one training example: the input `x = 2` and
its target `y = 4`. The model owns a single weight `w` and predicts `y_hat = w * x`. We start
from a bad guess, `w = 0`.

Written as a computation tree, the forward pass flows from left to right, and the gradient will
later flow back from right to left:

```
  w ──┐
      (×)──> y_hat ──┐
  x ──┘              (−)──> s ──(square)──> loss
               y ────┘
```

The leaves on the left (`w`, `x`, `y`) are the values we start from; the root on the right is
the loss. Only `w` is something we are allowed to change.

%% code topics=T02
x = 2.0   # the input
y = 4.0   # the target: twice the input
w = 0.0   # the only weight, deliberately wrong at the start

y_hat = w * x
print("prediction y_hat =", y_hat, "  target y =", y)

%% md topics=T03
## 3. How wrong is the model? The squared error

Looking at the tree we can see that `w = 2` is the answer. A real network has millions of
weights and no formula to solve, so instead we *measure* how far off the prediction is and
push that number down, one small step at a time.

The measurement is the **squared error**: take the difference `s = y_hat - y` and square it.
With several examples we average the squared errors, which gives the **mean squared error**
(MSE). Squaring makes the loss zero only for a perfect prediction, positive otherwise, and it
punishes big mistakes far more than small ones.

%% code topics=T03
def mse(y_hat, y):
    """Mean squared error: the average of (prediction - target) ** 2."""
    return np.mean((np.asarray(y_hat) - np.asarray(y)) ** 2)


print("   w   y_hat   loss   (w - 2)**2")
for w_try in [0.0, 1.0, 1.5, 2.0]:
    print(f"{w_try:4.1f}  {w_try * x:5.1f}  {mse(w_try * x, y):6.2f}  {(w_try - 2) ** 2:8.2f}")

%% md topics=T03
At the start (`w = 0`) the loss is **16**. It shrinks as `w` approaches 2 and is exactly 0
there.

Look at the row `w = 1` carefully, because it is a classic slip. The weight is 1 away from the
answer, so its squared distance `(w - 2)**2` is **1**. The loss, however, measures the error of
the *prediction*: `y_hat = 2` misses the target 4 by 2, so the loss is 4. The two are related by
`loss = (w*x - y)**2 = x**2 * (w - 2)**2`, so here the loss is always `x**2 = 4` times the
squared distance of the weight from the answer.

%% md topics=T04
## 4. A gradient is a slope

Plot the loss against `w` and you get a valley. The **gradient** `dloss/dw` is the slope of
that curve at the current `w`. Think of standing on a hillside in fog: you cannot see the
bottom, but you can feel which way the ground tilts under your feet. Gradient descent takes a
step downhill, which is *against* the slope:

- at `w = 0` the slope is negative (the curve falls to the right), so we should increase `w`;
- at `w = 3` the slope is positive, so we should decrease `w`;
- the steeper the slope, the further we are from the bottom, and the bigger the step.

%% code topics=T04
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

%% code topics=T04
print(f"slope of the loss at w = 0, measured: {slope_at(0.0):.4f}")

%% md topics=T05
## 5. Local gradients

We want `dloss/dw`, but the loss does not mention `w` directly: the loss depends on `s`, `s`
depends on `y_hat`, and `y_hat` depends on `w`. Each link on its own is easy to differentiate.
These are the **local gradients**, one per operation in the tree:

| operation | local gradient | value at `w = 0` (`s = -4`) |
|---|---|---|
| `loss = s**2` | `dloss/ds = 2*s` | `-8` |
| `s = y_hat - y` | `ds/dy_hat = 1` | `1` |
| `y_hat = w * x` | `dy_hat/dw = x` | `2` |

A local gradient only needs the values that flowed through that operation in the forward pass.
That is why a framework has to remember them: `x` for the multiplication, `s` for the square.

%% code topics=T05
w = 0.0
y_hat = w * x       # forward pass, keeping every intermediate value
s = y_hat - y
loss = s ** 2

dloss_ds_0 = 2 * s    # local gradient of the square
ds_dyhat_0 = 1.0      # local gradient of the subtraction (with respect to y_hat)
dyhat_dw_0 = x        # local gradient of the multiplication (with respect to w)
print(f"loss = {loss}, local gradients: {dloss_ds_0}, {ds_dyhat_0}, {dyhat_dw_0}")

%% md topics=T06
## 6. The chain rule multiplies local gradients

The chain rule says that the gradient through a chain is the product of the links:

$$
\frac{d\,\mathrm{loss}}{dw}
= \frac{d\,\mathrm{loss}}{ds}\cdot\frac{ds}{d\hat y}\cdot\frac{d\hat y}{dw}
= 2s \cdot 1 \cdot x = (-8)(1)(2) = -16
$$

**Backpropagation** computes this product starting from the loss end. Each operation receives
"the gradient of the loss with respect to my output" from the operation after it, multiplies it
by its own local gradient, and passes the result to the operation before it. The loss starts
the relay with `dloss/dloss = 1`.

%% code topics=T06
grad_loss = 1.0                        # dloss/dloss: where every backward pass starts
grad_s = grad_loss * dloss_ds_0        # dloss/ds
grad_yhat = grad_s * ds_dyhat_0        # dloss/dy_hat
grad_w = grad_yhat * dyhat_dw_0        # dloss/dw
print(f"dloss/ds = {grad_s}, dloss/dy_hat = {grad_yhat}, dloss/dw = {grad_w}")
print("agrees with the measured slope:", bool(np.isclose(grad_w, slope_at(0.0))))

%% md
### Exercise 1 — the chain rule by hand (compute by hand, 2 points)

Do one backward pass with pen and paper, this time at **`w = 1`** (still `x = 2`, `y = 4`).
First compute `y_hat` and `s`, then the three local gradients, then their product. Type in the
numbers you found; do not write code that computes them.

%% solution id=nb01_ex1_chain_rule
# Set four plain numbers for w = 1: dloss_ds, ds_dyhat, dyhat_dw and dloss_dw.
### BEGIN SOLUTION
dloss_ds = -4.0
ds_dyhat = 1.0
dyhat_dw = 2.0
dloss_dw = -8.0
### END SOLUTION

%% test id=nb01_ex1_test points=2
ex.check_chain_rule_by_hand(dloss_ds, ds_dyhat, dyhat_dw, dloss_dw)
### BEGIN HIDDEN TESTS
ex.check_chain_rule_product(dloss_ds, ds_dyhat, dyhat_dw, dloss_dw)
### END HIDDEN TESTS

%% md topics=T07
## 7. The update rule

Now that we have the gradient, step 4 moves the weight against it:

$$w \leftarrow w - \eta \cdot \frac{d\,\mathrm{loss}}{dw}$$

The minus sign turns "uphill" into "downhill". The **learning rate** $\eta$ (`lr` in code) sets
the size of the step. With `lr = 0.01` and a gradient of `-16`, the weight moves from `0` to
`0 - 0.01 * (-16) = 0.16`.

%% code topics=T07
lr = 0.01
w_next = w - lr * grad_w
print(f"w: {w:.3f} -> {w_next:.3f}")
print(f"loss: {loss_at(w):.4f} -> {loss_at(w_next):.4f}")

%% md topics=T08
## 8. The whole loop in NumPy

Repeating the four steps gives the training loop. We store the data as `float32` arrays (as
deep-learning frameworks do) and keep `w` as a Python number. With more than one example the
loss is the mean of the squared errors, and so the gradient is the mean of the per-example
gradients `2 * (y_hat - y) * x`.

%% code topics=T08
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

%% md topics=T08
Read the first row: at epoch 1 the loss is **16**, the gradient `dw` is **-16** (exactly what we
computed by hand), and after the update `w` is **0.160**. Row after row the gradient shrinks
towards 0, the loss falls, and `w` creeps towards 2. After 10 epochs `w` is only **1.131**: the
model is learning, but slowly.

%% md
### Exercise 2 — a model with a bias (write the code, 3 points)

Extend the loop to the model `y_hat = w * x + b`, which has two parameters. The loss is still
the mean squared error. Work out the two gradients first:

- `dloss/dw` is the mean of `2 * (y_hat - y) * x` (as before);
- `dloss/db` is the mean of `2 * (y_hat - y) * ...` — what is `dy_hat/db`?

Write `fit_line(x, y, lr, epochs)`: start from `w = 0` and `b = 0`, run `epochs` updates of both
parameters (each update uses the gradients computed *before* either parameter changes), and
return the final `(w, b)` as two floats.

%% solution id=nb01_ex2_fit_line
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


x_line = np.array([1, 2, 3, 4], dtype=np.float32)
y_line = 2 * x_line + 1           # a line with slope 2 and intercept 1
print(fit_line(x_line, y_line, lr=0.05, epochs=500))

%% test id=nb01_ex2_test points=3
ex.check_fit_line(fit_line)
### BEGIN HIDDEN TESTS
ex.check_fit_line_other_data(fit_line)
### END HIDDEN TESTS

%% md topics=T09
## 9. More data, averaged

One example teaches the model very little. Let us give it four: the inputs `x = 2, 4, 6, 8`
with the targets `y = 4, 8, 12, 16`. Nothing in `fit` has to change, because `mse` and
`gradient` already average over however many examples there are.

%% code topics=T09
x_four = np.array([2, 4, 6, 8], dtype=np.float32)
y_four = np.array([4, 8, 12, 16], dtype=np.float32)
w_four, history_four = fit(x_four, y_four)

%% md topics=T09
At epoch 1 the gradient is **-120** and one update takes `w` from 0 straight to **1.200**;
within 10 epochs `w` reaches **2.000** (printed with three decimals). Why so much faster than
with one example? The gradient is `2 * mean(x**2) * (w - 2)`, and the average of `x**2` over
these inputs is 30 instead of 4, so every step is longer. With the same learning rate each
epoch now shrinks the distance to 2 by the factor `1 - 2 * lr * 30 = 0.4`, instead of
`1 - 2 * lr * 4 = 0.92`. (More examples also average out noise in real data, which our perfect
data does not have.)

%% md
### Exercise 3 — find the bug (2 points)

A classmate trained on the four examples `x = 1, 2, 3, 4` with targets `y = 2, 4, 6, 8` and
got a lovely table: the loss starts at **30**, the first gradient is **-120**, and `w` is
**2.000** after 10 epochs. Their gradient function was meant to average, like ours:

%% code
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
    print(f"{epoch:5d} | {loss:14.8f} | {w_mate:6.3f} | {dw:9.3f}")

%% md
The loss in this table is a mean, but the gradient is not the gradient of that loss. Check it:
at `w = 0` the mean squared error is `mean(y**2) = 30`, and its slope is
`mean(2 * x * (0 - y)) = -30`, not -120. The mistake is a scale factor that grows with the
number of examples, so the same learning rate that works on 4 examples would blow up on 4,000.

Write `gradient_fixed(x, y, y_hat)` so that it returns the true gradient of `mse(y_hat, y)`
with respect to `w`, for any number of examples. *Hint:* what does `np.dot` do to the four
products before `.mean()` is called?

%% solution id=nb01_ex3_find_the_bug
def gradient_fixed(x, y, y_hat):
    ### BEGIN SOLUTION
    return np.mean(2 * x * (y_hat - y))
    ### END SOLUTION


print("fixed gradient at w = 0:", gradient_fixed(x_mate, y_mate, forward(x_mate, 0.0)))

%% test id=nb01_ex3_test points=2
ex.check_gradient_fixed(gradient_fixed)
### BEGIN HIDDEN TESTS
ex.check_gradient_fixed_any_size(gradient_fixed)
### END HIDDEN TESTS

%% md topics=T10
## 10. What you can tune

Three knobs decide how well this loop does:

- **epochs**: more repetitions give more steps; we saw `w = 1.131` after 10 epochs on one
  example, and it keeps approaching 2 if you keep going;
- **data**: more (and more varied) examples give better-informed gradients;
- **learning rate**: the step size. Too small and training crawls. Too large and every step
  overshoots the bottom of the valley, lands higher up on the other side, and training
  *diverges*.

For our one-example model each update multiplies the distance to the answer by
`1 - 8 * lr`. Any `lr` below 0.125 approaches 2 from one side; between 0.125 and 0.25 it
overshoots but still settles; above 0.25 the distance grows every epoch.

%% code topics=T10
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

%% md topics=T10
### Try it yourself

Move the sliders: pick the data set, the learning rate and the number of epochs, and watch the
loss curve and the table update. Find the largest learning rate that still converges for each
data set. Why is it smaller for the four examples?

%% code topics=T10
from autogradkit.viz import TrainingExplorer

TrainingExplorer()

%% md
### Exercise 4 — predict before you run (2 points)

Start again from `w = 0` on the single example (`x = 2`, `y = 4`), but with the learning rate
`lr = 0.3`. Without running the loop, predict:

1. `w_after_one_step`: the value of `w` after the first update;
2. `converges`: `True` if training with this learning rate would approach `w = 2`, `False` if it
   diverges.

%% solution id=nb01_ex4_predict
# Set w_after_one_step (a number) and converges (True or False).
### BEGIN SOLUTION
w_after_one_step = 4.8
converges = False
### END SOLUTION

%% test id=nb01_ex4_test points=2
ex.check_prediction_large_lr(w_after_one_step, converges)
### BEGIN HIDDEN TESTS
ex.check_prediction_types(w_after_one_step, converges)
### END HIDDEN TESTS

%% md
## Recap

- Training repeats four steps: forward pass (and loss), local gradients, backpropagation,
  weight update.
- The mean squared error of `y_hat = w * x` on `x = 2, y = 4` is 16 at `w = 0` and falls to 0
  at `w = 2`.
- A gradient is a slope. Gradient descent steps against it: `w <- w - lr * dloss/dw`.
- The chain rule multiplies local gradients: `dloss/dw = 2s · 1 · x = -16` at the start.
- Averaging over more examples, choosing the learning rate and training longer all change how
  fast `w` gets to 2. Too large a learning rate makes training diverge.

**Next:** notebook 02 hands steps 2 and 3 to autograd and looks at what it records.
''',
)


NB03 = Notebook(
    "03_nonscalar_leaves_jacobians",
    r"""
%% md
# 03 · `backward()` on non-scalars, leaves and Jacobians

So far every `backward()` started from a single number, the loss. This notebook asks what
happens when the output is a vector or a matrix, which tensors count as *leaves* of the graph,
and what `backward()` computes in general: a vector-Jacobian product.

**Learning goals.** By the end of this notebook you can

- explain why `backward()` on a non-scalar needs a `gradient=` argument, and choose one;
- read the signature of `autograd.backward` and use `retain_graph` and `create_graph`;
- make an integer tensor ready for gradients;
- tell a leaf from a non-leaf, and say which three ways produce a leaf;
- explain why the graph is *dynamic* and why `no_grad()` saves time and memory;
- build a Jacobian with `backward()` and explain that backward computes `vᵀJ`;
- plot a function and its derivative using autograd alone.

**Graded exercises:** 4 exercises, **{POINTS} points** in total.

%% code
import time

import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit.viz import FunctionPlotter
from autogradkit.grading.exercises import nb03_jacobians as ex

agk.manual_seed(0)
np.random.seed(0)

%% md topics=T22
## 1. `backward()` needs somewhere to start

Backpropagation starts at the output with the gradient of the output with respect to itself.
For a scalar that is simply 1, so `backward()` can supply it on its own:

%% code topics=T22
x = agk.tensor(1.0, requires_grad=True)
y = x ** 2 + 1
y.backward()          # the seed dy/dy = 1 is implied
print(x.grad)         # dy/dx = 2x = 2

%% md topics=T22
Now let the output be a 2×4 matrix. Its "gradient with respect to itself" would have to be
eight numbers, and autograd will not guess which eight you mean:

%% code topics=T22 tags=raises-exception
x = agk.ones(2, 4, requires_grad=True)
y = 2 * x
y.backward()

%% md topics=T22
`RuntimeError: grad can be implicitly created only for scalar outputs` means exactly that:
autograd only invents the starting gradient (a 1) when the output holds a single number.

%% md topics=T23
## 2. Passing `gradient=`

For a non-scalar output you hand in the starting gradient yourself, with the same shape as the
output. Each entry says how much that output element should count. The most common choice is
all ones, which gives the same result as calling `backward()` on `y.sum()`:

%% code topics=T23
y.backward(gradient=agk.ones_like(y))
print(x.grad)

x_check = agk.ones(2, 4, requires_grad=True)
(2 * x_check).sum().backward()
print("same as y.sum().backward():", agk.equal(x.grad, x_check.grad))

%% md topics=T23
The weights do not have to be ones. Here a row vector `x` times a 2×2 matrix `y` gives
`z = x @ y = [[5., 8.]]`. Passing the weights `[[1., 0.]]` asks for the gradient of the first
element of `z` only, and ignores the second:

%% code topics=T23
x = agk.tensor([2., 1.], requires_grad=True)
y = agk.tensor([[1., 2.], [3., 4.]], requires_grad=True)
z = x.view(1, 2) @ y
print("z =", z)
z.backward(gradient=agk.tensor([[1., 0.]]))
print("x.grad =", x.grad)
print("y.grad =", y.grad)

%% md topics=T23
Check it by hand. The first element is `z₀ = x₀·y₀₀ + x₁·y₁₀ = 2·1 + 1·3 = 5`. Its derivative
with respect to `x` is `(y₀₀, y₁₀) = (1, 3)`, and with respect to `y` it is `x₀ = 2` at
position (0, 0), `x₁ = 1` at position (1, 0) and zero elsewhere, because the second column of
`y` only feeds `z₁`, which has weight 0.

%% md
### Exercise 1 — predict what autograd prints (2 points)

Same `x`, `y` and `z = x.view(1, 2) @ y`, but now the weights are `[[0., 1.]]`. Without running
anything, predict `x.grad` and `y.grad` and write them as tensors.

%% solution id=nb03_ex1_predict_weights
# Set predicted_x_grad and predicted_y_grad, both as agk.tensor(...).
### BEGIN SOLUTION
predicted_x_grad = agk.tensor([2., 4.])
predicted_y_grad = agk.tensor([[0., 2.], [0., 1.]])
### END SOLUTION

%% test id=nb03_ex1_test points=2
ex.check_predicted_weighted_grads(predicted_x_grad, predicted_y_grad)
### BEGIN HIDDEN TESTS
ex.check_predicted_shapes(predicted_x_grad, predicted_y_grad)
### END HIDDEN TESTS

%% md topics=T24
## 3. The full signature: `autograd.backward`

`t.backward(gradient)` is a shortcut for the function

```python
agk.autograd.backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False)
```

- **`tensors`**: one output or a list of outputs to start from;
- **`grad_tensors`**: one starting gradient per output (`None` allowed for scalars). The
  gradients of all the outputs are added together in the leaves;
- **`retain_graph`**: keep the values saved for backward so you can call backward again;
- **`create_graph`**: record the backward pass itself as a graph, so the gradient can be
  differentiated again (second derivatives). `retain_graph` defaults to the value of
  `create_graph`.

%% code topics=T24
a = agk.tensor([1., 2.], requires_grad=True)
u = a * 3            # du/da = 3
v = a ** 2           # dv/da = 2a
agk.autograd.backward([u, v], grad_tensors=[agk.ones(2), agk.tensor([1., 10.])])
print(a.grad)        # 3 * 1 + 2a * [1, 10] = [5., 43.]

%% md topics=T24
After a backward pass the values saved for it are freed, to save memory. A second pass through
the same graph then fails, unless the first one kept them with `retain_graph=True`:

%% code topics=T24
a = agk.tensor(3., requires_grad=True)
y = a ** 3
y.backward(retain_graph=True)
print(a.grad)        # 3a² = 27
y.backward()         # allowed: the graph was retained; gradients add up
print(a.grad)

%% code topics=T24 tags=raises-exception
y.backward()         # the second call freed the graph

%% md topics=T24
With `create_graph=True` the gradient is itself a tensor with a `grad_fn`, so it can be
differentiated again. `autograd.grad` returns the gradient instead of adding it into `.grad`,
which is the cleaner way to take second derivatives:

%% code topics=T24
a = agk.tensor(3., requires_grad=True)
y = a ** 3
(dy_da,) = agk.autograd.grad(y, a, create_graph=True)
print("dy/da   =", dy_da)          # 3a² = 27, and it has a grad_fn
dy_da.backward()
print("d²y/da² =", a.grad)         # 6a = 18

%% md topics=T25
## 4. Only floating-point tensors can require gradients

A gradient measures the effect of a *small* change. Integers cannot change a little, so
autograd refuses integer tensors:

%% code topics=T25 tags=raises-exception
counts = agk.tensor([1, 2, 3], requires_grad=True)

%% md topics=T25
The three ways of asking give slightly different messages, but they all mean the same thing.
The fix is to convert to a floating-point type first, with `.float()`, `.to(agk.float32)` or
`.type_as(some_float_tensor)`:

%% code topics=T25
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

%% md
### Exercise 2 — find the bug (2 points)

A shop wants to know how the total price reacts to buying one more of each item, that is the
gradient of `total` with respect to `quantities`. This code crashes:

```python
prices = agk.tensor([3., 5., 2.])
quantities = agk.tensor([1, 4, 2], requires_grad=True)
total = (prices * quantities).sum()
total.backward()
quantity_grad = quantities.grad
```

Fix it so that it runs, `quantities` still holds the amounts 1, 4 and 2, and `quantity_grad`
holds the gradient.

%% solution id=nb03_ex2_find_the_bug
prices = agk.tensor([3., 5., 2.])
# Define quantities, total and quantity_grad: the fixed version of the code above.
### BEGIN SOLUTION
quantities = agk.tensor([1., 4., 2.], requires_grad=True)
total = (prices * quantities).sum()
total.backward()
quantity_grad = quantities.grad
### END SOLUTION
print(quantity_grad)

%% test id=nb03_ex2_test points=2
ex.check_quantity_grad(quantities, quantity_grad, prices)
### BEGIN HIDDEN TESTS
ex.check_quantities_leaf(quantities)
### END HIDDEN TESTS

%% md topics=T26
## 5. A little history: `Variable` became `Tensor`

In PyTorch before version 0.4 (2018) a plain tensor could not take part in autograd. You
wrapped it in an `autograd.Variable`, which carried `.grad` and `.grad_fn`. Since 0.4 the two
are merged: every `Tensor` can record history, and `requires_grad` switches it on. You will
still meet `Variable(...)` in old code and in some error messages ("a leaf *Variable* that
requires grad..."): read it as "tensor". `Variable` still exists so that old code runs, but it
simply hands back a plain tensor:

%% code topics=T26
from autogradkit.autograd import Variable   # kept only so that old code still runs

v = Variable(agk.tensor([1., 2.]), requires_grad=True)
print(type(v), v)
t = agk.tensor([1., 2.], requires_grad=True)   # today's way to say the same
print(type(t), t)

%% md topics=T27
## 6. The graph is built while your code runs

autograd has no separate "compile the model" step. Every operation on a tensor that requires
grad adds a node to the graph *as it runs*, so ordinary Python control flow decides what the
graph looks like. The same function can build a different graph for different data:

%% code topics=T27
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

%% md topics=T27
In this graph the **leaves** are the inputs you created (they feed `AccumulateGrad` nodes,
which write `.grad`) and the **root** is the output you call `backward()` on. Backward walks
from the root to the leaves.

%% md topics=T28
## 7. What makes a leaf?

A tensor is a leaf (`is_leaf == True`) when any of these holds:

1. you created it directly (`agk.tensor`, `agk.randn`, ...);
2. it was computed only from tensors that need no gradient, so there is no history to keep;
3. it came out of `.detach()`, which cuts it off from its history.

Only leaves with `requires_grad=True` receive a `.grad` from backward.

%% code topics=T28
a = agk.tensor([1., 2.], requires_grad=True)   # 1. created directly, requires grad
b = agk.tensor([3., 4.])                       # 1. created directly
c = b * 2                                      # 2. computed from tensors that need no grad
d = a * 2                                      # computed from a: NOT a leaf
e = d.detach()                                 # 3. detached
for name, t in [("a", a), ("b", b), ("c", c), ("d", d), ("e", e)]:
    kind = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    print(f"{name}: requires_grad={t.requires_grad!s:5}  is_leaf={t.is_leaf!s:5}  grad_fn={kind}")

%% md topics=T29
## 8. `no_grad()`: faster and lighter

Recording the graph costs time, and the values saved for backward cost memory. When you only
need results (evaluating a model, updating weights by hand), switch recording off with
`agk.no_grad()`. Inside the block, results have no `grad_fn` and nothing is saved:

%% code topics=T29
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

%% md topics=T29
Now time both. Each is measured five times and the fastest run counts, which filters out
hiccups of a busy computer. The exact numbers depend on your machine:

%% code topics=T29
# NBVAL_IGNORE_OUTPUT
# (timings differ from run to run, so nbval does not compare this output)
def fastest_ms(function, repeats=5):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return 1000 * min(times)


def run_without_recording():
    with agk.no_grad():
        return run()


recorded, plain = fastest_ms(run), fastest_ms(run_without_recording)
print(f"recording the graph: {recorded:.1f} ms, under no_grad(): {plain:.1f} ms "
      f"({recorded / plain:.1f} times as long)")

%% md topics=T30
## 9. Jacobians and vector-Jacobian products

For a function from `n` inputs to `m` outputs, the **Jacobian** `J` is the `m × n` matrix of all
partial derivatives, `J[i, j] = ∂yᵢ/∂xⱼ`. `y.backward(v)` never builds `J`. It computes the
**vector-Jacobian product** `vᵀJ`, a vector shaped like `x`:

$$
x.\mathrm{grad} = v^\top J
= \Big(\sum_i v_i \frac{\partial y_i}{\partial x_0},\ \dots,\
  \sum_i v_i \frac{\partial y_i}{\partial x_{n-1}}\Big)
$$

This is all training needs. If a scalar loss `L` is computed from `y`, then `v = ∂L/∂y` and the
chain rule gives `∂L/∂x = vᵀJ`. Each node of the graph only has to know how to multiply an
incoming vector by its own Jacobian, which is far cheaper than building the matrix.

For `y = x ** 2` the Jacobian is diagonal, `diag(2x)`, so `vᵀJ` just scales each entry:

%% code topics=T30
x = agk.tensor([1., 2., 3.], requires_grad=True)
y = x ** 2
v = agk.tensor([1., 0.1, 0.01])
y.backward(v)
print(x.grad)      # v * 2x = [2., 0.4, 0.06]

%% md topics=T30
Choosing `v` as a one-hot vector picks out a single row of `J`: `(0, 1, 0)ᵀJ` is row 1. Repeat
that for every row (keeping the graph with `retain_graph=True`) and you have built the whole
Jacobian from backward passes.

%% md
### Exercise 3 — compute by hand: a vector-Jacobian product (2 points)

Let `x = (x₀, x₁) = (2, 1)` and

$$y = \begin{pmatrix} x_0 x_1 \\ x_0 + 3x_1 \end{pmatrix}$$

Work out the 2×2 Jacobian `J` (row `i` holds the derivatives of `yᵢ`) at this `x`, and then the
product `vᵀJ` for `v = (1, 2)`. That product is exactly what `y.backward(v)` would put into
`x.grad`.

%% solution id=nb03_ex3_vjp_by_hand
# Set jacobian_by_hand (a 2x2 nested list) and vjp_by_hand (a list of two numbers).
### BEGIN SOLUTION
jacobian_by_hand = [[1., 2.], [1., 3.]]
vjp_by_hand = [3., 8.]
### END SOLUTION

%% test id=nb03_ex3_test points=2
ex.check_vjp_by_hand(jacobian_by_hand, vjp_by_hand)
### BEGIN HIDDEN TESTS
ex.check_vjp_consistent(jacobian_by_hand, vjp_by_hand)
### END HIDDEN TESTS

%% md
### Exercise 4 — build a Jacobian with backward (write the code, 3 points)

Write `jacobian(f, x)` for a function `f` that maps a 1-D tensor to a 1-D tensor. It should

1. make a fresh leaf copy of `x` that requires grad (`x.detach().clone().requires_grad_()`);
2. compute `y = f(x_leaf)` once;
3. for each output index `i`, run a backward pass with the one-hot vector `eᵢ` as `gradient`
   (keep the graph), read row `i` from the leaf's `.grad`, and clear `.grad` before the next row;
4. return an `m × n` tensor (`agk.stack` joins rows).

%% solution id=nb03_ex4_jacobian
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


print(jacobian(lambda t: t ** 2, agk.tensor([1., 2., 3.])))

%% test id=nb03_ex4_test points=3
ex.check_jacobian(jacobian)
### BEGIN HIDDEN TESTS
ex.check_jacobian_general(jacobian)
### END HIDDEN TESTS

%% md topics=T34
## 10. A derivative from autograd alone

Here is a neat use of `gradient=`. For `y = sin(x)` applied elementwise, each `yᵢ` depends only
on `xᵢ`, so the Jacobian is diagonal and `y.backward(ones)` puts `cos(xᵢ)` into `x.grad[i]`. One
backward pass gives the derivative at 100 points at once, without ever writing "cos":

%% code topics=T34
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

%% md topics=T34,T30
### Try other functions

The same trick works for any elementwise function. Pick one: the plot shows the function and
the derivative that one `backward(ones)` call produces. Can you explain the shape of each
derivative? (Look at `relu` near 0, and compare `sigmoid` with `tanh`.)

%% code topics=T34,T30
FunctionPlotter()

%% md
## Recap

- `backward()` invents the starting gradient 1 only for a scalar output; for anything else pass
  `gradient=` with the output's shape. Ones give the gradient of the sum; other weights weigh
  the elements (`z = x @ y = [[5., 8.]]` with weights `[[1., 0.]]` gives `x.grad = [1., 3.]`).
- `autograd.backward(tensors, grad_tensors, retain_graph, create_graph)`: several roots at once,
  keep the graph for another pass, or record the backward pass for higher derivatives.
- Only floating-point tensors can require gradients; convert integers with `.float()`.
- `Variable` is history: today every `Tensor` can carry a graph.
- The graph is built as the code runs. Leaves are tensors you created, tensors computed without
  any grad-requiring input, and detached tensors. Only leaves receive `.grad`.
- `no_grad()` skips recording: faster, and nothing is kept for backward.
- backward computes a vector-Jacobian product `vᵀJ`; one-hot vectors recover `J` row by row, and
  a diagonal Jacobian turns one backward pass into a whole derivative curve.

**Next:** notebook 04 shows what happens when you change a tensor *in place* after autograd has
saved it.
""",
)

NB04 = Notebook(
    "04_inplace_data_detach",
    r'''
%% md
# 04 · In-place operations, `.data` and `.detach()`

An *in-place* operation changes a tensor's values without making a new tensor: `x.add_(1)`,
`x -= 1`, `x[0] = 5`, `x.zero_()`. They save memory, and they are exactly how weights get
updated. They also clash with autograd, which may have *saved* the old values to use later in
the backward pass. This notebook shows the two errors autograd raises to protect you, and the
one back door, `.data`, where it cannot protect you at all.

**Learning goals.** By the end of this notebook you can

- explain why an in-place change of a leaf that requires grad is refused, and initialise or
  update weights correctly under `no_grad()`;
- read the "modified by an inplace operation ... is at version 1; expected version 0" error,
  and find the tensor and the operation it is about;
- use the version counter `_version` to predict when backward will fail;
- say what `.data` and `.detach()` have in common, and why `.detach()` is the safe one.

**Graded exercises:** 4 exercises, **{POINTS} points** in total.

%% code
import numpy as np
import matplotlib.pyplot as plt
import ipywidgets as widgets

import autogradkit as agk
from autogradkit.grading.exercises import nb04_inplace as ex

agk.manual_seed(0)
np.random.seed(0)

%% md topics=T31
## 1. A leaf that requires grad cannot be changed in place

A leaf with `requires_grad=True` is a parameter: autograd will write its gradient into `.grad`,
and that gradient only makes sense for the values the forward pass actually used. If you could
quietly overwrite the leaf while it is being tracked, the recorded graph would no longer
describe it. So autograd refuses:

%% code topics=T31 tags=raises-exception
w = agk.ones(3, requires_grad=True)
w.add_(1)

%% md topics=T31
The message still says *Variable*, the old name for a tensor that takes part in autograd
(notebook 03). Every in-place form is refused in the same way:

%% code topics=T31
for attempt in ["w.mul_(2)", "w.zero_()", "w += 1"]:
    try:
        exec(attempt)
    except RuntimeError as error:
        print(f"{attempt:10} -> {type(error).__name__}: {error}")

%% md topics=T31
But you *do* need to set weights to starting values, and to update them during training. Both
are meant to happen outside the graph, so do them inside `agk.no_grad()`. The tensor stays the
same object, stays a leaf and keeps `requires_grad=True`; only its values (and its version
number, see below) change:

%% code topics=T31
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

%% md topics=T31
This is exactly what an optimizer's `step()` does, and what `nn.init` functions do when they
fill a layer's weights. Writing `w = w - 0.1 * w.grad` instead would *not* update the leaf: it
would build a new, non-leaf tensor with a `grad_fn`, and the next backward pass would no longer
reach your parameter.

%% md
### Exercise 1 — find the bug (3 points)

This initialisation crashes with the leaf error above:

```python
def init_weights():
    w = agk.zeros(4, requires_grad=True)
    w.fill_(0.25)
    return w
```

Fix `init_weights` so that it returns a tensor of shape `(4,)` filled with `0.25` that is still
a leaf, still requires grad, and has no `grad_fn`.

%% solution id=nb04_ex1_init_weights
def init_weights():
    ### BEGIN SOLUTION
    w = agk.zeros(4, requires_grad=True)
    with agk.no_grad():
        w.fill_(0.25)
    return w
    ### END SOLUTION


print(init_weights())

%% test id=nb04_ex1_test points=3
ex.check_init_weights(init_weights)
### BEGIN HIDDEN TESTS
ex.check_init_weights_trainable(init_weights)
### END HIDDEN TESTS

%% md topics=T32
## 2. Changing a tensor that backward still needs

Many operations save some of their inputs for the backward pass. A matrix product `d = x @ w`
needs `x` to compute `w.grad = xᵀ · (gradient of d)`, so `MmBackward0` keeps a reference to `x`.
If `x` changes in place before backward runs, the saved "x" is no longer the `x` that produced
`d`, and the gradient would silently be wrong.

autograd catches this with a **version counter**. Every tensor has one (`_version`); each
in-place operation adds 1. When a tensor is saved, its version is saved with it, and backward
compares the two:

%% code topics=T32
x = agk.tensor([[1., 2.], [4., 5.]])
w = agk.ones(2, 2, requires_grad=True)
d = agk.mm(x, w)               # MmBackward0 saves x (at version 0) to compute w.grad
print(d)
print("x._version before:", x._version)
x -= 1                         # in place: x is now at version 1
print("x._version after: ", x._version)

%% code topics=T32 tags=raises-exception
d.sum().backward()

%% md topics=T32
Read the message piece by piece:

- `[autogradkit.FloatTensor [2, 2]]` is the type and shape of the tensor that changed: our `x`;
- `is at version 1; expected version 0` says it was saved at version 0 and was changed once
  since;
- when the changed tensor is itself the output of an operation, the message also names that
  operation, as in `which is output 0 of Exp`. Here `exp` saves its *output* (the derivative of
  `eˣ` is `eˣ`), so changing the output in place breaks its backward:

%% code topics=T32
a = agk.tensor([1., 2.], requires_grad=True)
y = a.exp()                    # ExpBackward0 saves y itself
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

%% md topics=T32
Not every in-place operation is a problem: only changing a tensor that some backward node
*saved*. `y = a * 2` saves only the constant 2 (the gradient with respect to `a`), so changing
`y` afterwards is fine. autograd records the in-place `add_` as a new node on `y`, and the
gradient is correct:

%% code topics=T32
a = agk.tensor([1., 2.], requires_grad=True)
y = a * 2
y.add_(1)
print(y, "| version:", y._version)
y.sum().backward()
print(a.grad)

%% md
### Exercise 2 — predict the version counter (2 points)

Predict, without running it, what this prints: the values of `t` and `t._version`.

```python
t = agk.zeros(3)
t.add_(1)
t.mul_(2)
u = t.detach()
u.add_(1)
v = t.data
v.add_(1)
print(t, t._version)
```

Section 3 explains how `detach()` and `.data` relate to the tensor they come from. If you are
unsure, read it first and come back.

%% solution id=nb04_ex2_predict_version
# Set predicted_values (a list of three numbers) and predicted_version (an int).
### BEGIN SOLUTION
predicted_values = [4., 4., 4.]
predicted_version = 3
### END SOLUTION

%% test id=nb04_ex2_test points=2
ex.check_predicted_version(predicted_values, predicted_version)
### BEGIN HIDDEN TESTS
ex.check_predicted_version_type(predicted_version)
### END HIDDEN TESTS

%% md topics=T33
## 3. `.data` versus `.detach()`

Both give you a tensor that

- **shares storage** with the original: change one and the other changes too;
- has **no history**: `requires_grad=False`, `grad_fn=None`, it is a leaf.

%% code topics=T33
a = agk.tensor([1., 2., 3.], requires_grad=True)
for name, t in [("a.data", a.data), ("a.detach()", a.detach())]:
    print(f"{name:11} {t}  requires_grad={t.requires_grad}  is_leaf={t.is_leaf}")

shared = a.detach()
shared[0] = 10.                # changes a too: same storage
print("a after changing a.detach():", a)

%% md topics=T33
The difference is the version counter. `detach()` **shares** it with the original, so an
in-place change through the detached tensor still counts as a change of `x`, and backward still
catches it. `.data` gets its **own** counter, so autograd never hears about the change. Repeat
the matrix example from section 2 both ways:

%% code topics=T33
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

%% code topics=T33 tags=raises-exception
gradient_after_change("detach")

%% md topics=T33
With `detach()` you get the error, which is annoying but honest. With `.data` the backward pass
runs happily and returns `[[3., 3.], [5., 5.]]`. The right gradient of `d.sum()` with respect
to `w` is `xᵀ` times ones, the column sums of the *original* `x`: `[[5., 5.], [7., 7.]]`.
Nothing warned us. The figure puts the two side by side.

%% code topics=T33
correct = agk.tensor([[1., 2.], [4., 5.]]).T @ agk.ones(2, 2)   # xᵀ · ones, with the original x
silent = gradient_after_change("data")

fig, axes = plt.subplots(1, 2, figsize=(6.5, 3.0), layout="constrained")
panels = [(axes[0], correct, "correct w.grad"), (axes[1], silent, "w.grad via .data")]
for ax, grad, title in panels:
    ax.imshow(grad.numpy(), cmap="Blues", vmin=0, vmax=8)
    for (i, j), value in np.ndenumerate(grad.numpy()):
        ax.text(j, i, f"{value:g}", ha="center", va="center", fontsize=14,
                color="white" if value > 5 else "black")
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("Same code, no error, different gradient")
plt.show()

%% md topics=T33
**Rule of thumb:** use `.detach()` when you need a tensor without history, and `no_grad()`
when you need to change parameters. `.data` is an old back door kept for compatibility; code
that uses it can be silently wrong.

%% md topics=T32,T33
### Try it: the version counter, live

Each button applies one operation to `x` *after* `d = x @ w` has been recorded. The panel shows
`x`, its version, and what `d.sum().backward()` would do now. Try `x.data -= 1` and compare the
gradient with the correct `[[5., 5.], [7., 7.]]`; then reset and try `x.detach() -= 1`.

%% code topics=T32,T33 collapsed
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

%% md
### Exercise 3 — which of these raise? (predict, 2 points)

For each snippet, predict whether the last line raises the version-counter `RuntimeError`
(`True`) or runs (`False`). Each starts from `a = agk.tensor([1., 2.], requires_grad=True)`.

| key | snippet |
|---|---|
| `"a"` | `y = a * 2; z = y.sum(); y.add_(1); z.backward()` |
| `"b"` | `y = a.exp(); z = y.sum(); y.add_(1); z.backward()` |
| `"c"` | `y = a.sigmoid(); z = (y * 3).sum(); y.detach().zero_(); z.backward()` |
| `"d"` | `y = a.sigmoid(); z = (y * 3).sum(); y.data.zero_(); z.backward()` |

Hint: `sigmoid`, like `exp`, saves its output, because its derivative is `y * (1 - y)`.

%% solution id=nb04_ex3_which_raise
# Set raises = {"a": ..., "b": ..., "c": ..., "d": ...} with True or False values.
### BEGIN SOLUTION
raises = {"a": False, "b": True, "c": True, "d": False}
### END SOLUTION

%% test id=nb04_ex3_test points=2
ex.check_which_raise(raises)
### BEGIN HIDDEN TESTS
ex.check_which_raise_keys(raises)
### END HIDDEN TESTS

%% md
Snippet `"d"` runs, but look at what it computes: the saved sigmoid output is now all zeros, so
the gradient `3 * y * (1 - y)` comes out as zero everywhere. That is the `.data` trap again.

### Exercise 4 — an update step that keeps the leaf (write the code, 2 points)

Write `sgd_step(w, lr)`: given a leaf `w` whose `.grad` has been filled by a backward pass,
update `w` in place to `w - lr * w.grad`, then set `w.grad` to `None`. Return nothing. `w` must
be the same object afterwards, still a leaf, still requiring grad.

%% solution id=nb04_ex4_sgd_step
def sgd_step(w, lr):
    ### BEGIN SOLUTION
    with agk.no_grad():
        w -= lr * w.grad
    w.grad = None
    ### END SOLUTION


w = agk.tensor([1., -2.], requires_grad=True)
(w ** 2).sum().backward()
sgd_step(w, lr=0.1)
print(w, w.grad)

%% test id=nb04_ex4_test points=2
ex.check_sgd_step(sgd_step)
### BEGIN HIDDEN TESTS
ex.check_sgd_step_trains(sgd_step)
### END HIDDEN TESTS

%% md
## Recap

- In-place operations on a leaf that requires grad are refused ("a leaf Variable that requires
  grad is being used in an in-place operation."). Initialise and update parameters inside
  `no_grad()`.
- Every tensor carries a version counter that in-place operations increase. Backward checks the
  versions of the tensors it saved and raises "... is at version 1; expected version 0 instead"
  when one was changed.
- Only saved tensors matter: changing `a * 2` in place is fine, changing `a.exp()` is not.
- `.data` and `.detach()` both share storage and drop history. `detach()` also shares the version
  counter, so misuse is caught; `.data` does not, so misuse gives a wrong gradient silently.

**Next:** notebook 05 opens up `grad_fn` and follows the references from an output back to the
leaves.
''',
)

NB05 = Notebook(
    "05_inside_grad_fn",
    r'''
%% md
# 05 · Inside `grad_fn`

Calling `e.backward()` changes `a.grad`, even though `a` never appears in that line. If you are
used to objects that only change when you call their own methods, that looks like magic. In
this notebook you open up the objects autograd creates and follow the references that lead from
an output back to its leaves. Then you write a new operation of your own.

**Learning goals.** By the end of this notebook you can

- explain how `e.backward()` reaches `a`: through `grad_fn`, `next_functions` and
  `AccumulateGrad.variable`;
- say what `backward()` does with its arguments before the engine starts;
- explore an unfamiliar object with `vars()`, `dir()` and `type()`;
- walk a graph from the root to every leaf, without recursion;
- write an operation with `autograd.Function`, giving both its forward and its backward;
- compute the gradients of `e = (a + b) * d` by hand and predict what autograd prints.

**Graded exercises:** 4 exercises, **{POINTS} points** in total.

%% code
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit.viz import BackpropStepper, draw_graph
from autogradkit.grading.exercises import nb05_grad_fn as ex

agk.manual_seed(0)
np.random.seed(0)

%% md topics=T35,T42
## 1. The puzzle

Build `e = (a + b) * d` from three leaves that require grad, and call backward on `e`:

%% code topics=T35,T42
a = agk.tensor(2.0, requires_grad=True)
b = agk.tensor(3.0, requires_grad=True)
c = a + b
d = agk.tensor(4.0, requires_grad=True)
e = c * d
print("before:", a.grad, b.grad, d.grad)
e.backward()
print("after: ", a.grad, b.grad, d.grad)

%% md topics=T35,T42
The numbers are easy to check by hand. `e = (a + b) · d`, so

- `∂e/∂a = d = 4` and `∂e/∂b = d = 4` (the addition passes the gradient on unchanged);
- `∂e/∂d = a + b = c = 5`.

The surprising part is *how*. We called a method of `e`, and the state of `a`, `b` and `d`
changed. For that to happen, `e` must hold, directly or indirectly, references to those tensors.
Let us find them.

%% md topics=T36
## 2. What `backward()` does before the engine runs

`e.backward()` is a thin front end. Before any gradient is computed it tidies up its arguments:

1. it turns `tensors` into a tuple, so one tensor and a list of tensors are handled alike;
2. it turns `grad_tensors` into a list with one entry per tensor;
3. for every missing gradient it makes one: `ones` for a scalar output, and the error "grad can
   be implicitly created only for scalar outputs" otherwise;
4. if `retain_graph` was not given, it takes the value of `create_graph`;
5. it hands the roots and their starting gradients to the engine, which walks the graph.

Here is that front end written out in Python. It ends by calling the real function with
everything filled in, and gives the same gradients:

%% code topics=T36
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

%% md topics=T36
Rule 4 has a visible consequence: `create_graph=True` also keeps the graph. Here
`autograd.grad` (which follows the same rules) builds the graph of the gradient, and the graph
of `y` is still there afterwards for a normal backward pass, without asking for
`retain_graph`:

%% code topics=T36
x = agk.tensor(3.0, requires_grad=True)
y = x ** 2
(dy_dx,) = agk.autograd.grad(y, x, create_graph=True)   # retain_graph becomes True as well
y.backward()                                            # so this second pass still works
print(dy_dx, x.grad)

%% md topics=T37
## 3. Exploring an object: `vars()`, `dir()`, `type()`

When you meet an unfamiliar object, Python has three tools. `vars(obj)` shows the attributes
stored in the object's own `__dict__`; `dir(obj)` lists every name you can reach on it;
`type(obj)` tells you its class. On a fresh tensor, `vars()` shows nothing, because a tensor
keeps its state elsewhere (in PyTorch, in C++), while `dir()` offers hundreds of names:

%% code topics=T37
fresh = agk.tensor(2.0, requires_grad=True)
print("vars:", vars(fresh))
print("names in dir():", len(dir(fresh)) > 100)
with_grad = [n for n in dir(fresh) if "grad" in n and not n.startswith("_")]
print("names with 'grad' in them:", with_grad)

%% md topics=T37
The interesting one is `grad_fn`. On `c = a + b` it is an object of class `AddBackward0`: the
backward half of the addition, created by the forward pass. Its public names are short:

%% code topics=T37
print(c)
print(c.grad_fn)
print(type(c.grad_fn).__name__)
print([n for n in dir(c.grad_fn) if not n.startswith("_")])

%% md topics=T38
## 4. `next_functions`: the arrows of the graph

`next_functions` is a tuple with one entry per input of the operation. Each entry is a pair
`(node, index)`: the backward node that should receive the gradient for that input, and which
of that node's outputs it belongs to (always 0 for the one-output operations here). For
`e = c * d`:

%% code topics=T38
print(e.grad_fn)
print(e.grad_fn.next_functions)

%% md topics=T38
The first input, `c`, was computed by an addition, so its entry points to `c`'s own `grad_fn`.
The second input, `d`, is a leaf, so its entry is an `AccumulateGrad` node. An input that needs
no gradient gets `(None, 0)`: there is nobody to send a gradient to.

%% code topics=T38
(f1, i1), (f2, i2) = e.grad_fn.next_functions
print("f1 is c.grad_fn:", f1 is c.grad_fn, "| index:", i1)

p = agk.tensor(2.0, requires_grad=True)
q = agk.tensor(3.0)                       # needs no gradient
print((p * q).grad_fn.next_functions)

%% md topics=T39
## 5. `AccumulateGrad.variable` **is** the leaf

An `AccumulateGrad` node has no inputs of its own (`next_functions` is empty). Instead it has
`variable`, and that attribute is not a copy of the leaf: it is the leaf object itself. Same
object, same `id`:

%% code topics=T39
print(f2.name())
print(f2.next_functions)
print(f2.variable)
print("f2.variable is d:", f2.variable is d, "| same id:", id(f2.variable) == id(d))

%% md topics=T39
That answers the puzzle. `e` holds `e.grad_fn`; its `next_functions` lead through
`AddBackward0` to `AccumulateGrad` nodes; each of those holds the leaf in `.variable`. When the
engine reaches an `AccumulateGrad` node it adds the incoming gradient into `variable.grad`. So
`e.backward()` changes `a.grad` through a chain of ordinary references.

%% md topics=T40
## 6. Walking from the root to the leaves

Non-leaf nodes have no `variable` (a non-leaf's gradient is not stored, notebook 02):

%% code topics=T40
try:
    f1.variable
except AttributeError as error:
    print(f"{type(error).__name__}: {error}")

%% md topics=T40
So to reach the leaves, the engine follows `next_functions` from node to node until it hits
`AccumulateGrad` nodes. A recursive function is the natural first idea, but a deep network can
have thousands of nodes in a row, more than Python's recursion limit. The kit's engine, like
PyTorch's, uses a loop with an explicit stack. Here is a loop that prints the tree:

%% code topics=T40
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

%% md topics=T40
The kit can draw the same graph. Tensors are the coloured boxes with their data and gradient,
backward nodes are blue, and each arrow points the way the gradient flows, from `e` towards the
leaves:

%% code topics=T40
draw_graph(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})

%% md topics=T35,T40
### Step through the walk

The stepper replays the real engine on this graph. Each **Step ▶** runs one node: watch
`MulBackward0` split the gradient between `c` and `d`, `AddBackward0` pass it on unchanged, and
each `AccumulateGrad` write into its leaf's `.grad`. (Backward already ran on our `e` and freed
its saved values, so we build the same graph once more.)

%% code topics=T35,T40
a = agk.tensor(2.0, requires_grad=True)
b = agk.tensor(3.0, requires_grad=True)
d = agk.tensor(4.0, requires_grad=True)
c = a + b
e = c * d
BackpropStepper(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})

%% md
### Exercise 1 — predict the graph (2 points)

Let `p` and `r` require grad and `q` not, and compute `y = (p * q).exp() + r`. Predict the class
names (`type(node).__name__`) of the nodes in `y.grad_fn.next_functions`, in order (`level_1`).
Then do the same one level down, below the *first* node of `level_1` (`level_2`), and once more
below the first node of `level_2` (`level_3`). Write `None` for a `(None, 0)` entry.

%% solution id=nb05_ex1_predict_graph
# Set level_1, level_2 and level_3: lists of class names (strings) or None.
### BEGIN SOLUTION
level_1 = ["ExpBackward0", "AccumulateGrad"]
level_2 = ["MulBackward0"]
level_3 = ["AccumulateGrad", None]
### END SOLUTION

%% test id=nb05_ex1_test points=2
ex.check_predicted_levels(level_1, level_2, level_3)
### BEGIN HIDDEN TESTS
ex.check_predicted_levels_are_lists(level_1, level_2, level_3)
### END HIDDEN TESTS

%% md
### Exercise 2 — collect the leaves (write the code, 3 points)

Write `find_leaves(t)`: starting from `t.grad_fn`, walk the graph **with a loop and a stack**
(no recursion), and return the list of leaf tensors that would receive a gradient, each one
exactly once, in the order you first reach them. Skip `(None, 0)` entries. A node can be
reached along several paths (think of `x * x`), so remember which nodes you have already
visited.

%% solution id=nb05_ex2_find_leaves
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


print(find_leaves(e))

%% test id=nb05_ex2_test points=3
ex.check_find_leaves(find_leaves)
### BEGIN HIDDEN TESTS
ex.check_find_leaves_deep(find_leaves)
### END HIDDEN TESTS

%% md topics=T41
## 7. Every operation has a forward and a backward

Where do `AddBackward0` and `MulBackward0` come from? Every operation the kit (or PyTorch)
offers is defined twice: a **forward** that computes the result, and a **backward** that turns
the gradient of the result into gradients of the inputs. The forward pass runs the forward and
leaves behind a node whose class is named after the operation; the backward pass calls its
backward. You can add your own operation the same way with `agk.autograd.Function`:

- `forward(ctx, inputs...)` computes the output and may keep what backward will need with
  `ctx.save_for_backward(...)`;
- `backward(ctx, grad_output)` returns one gradient per input, `grad_output` times the local
  derivative;
- you call it through `.apply(...)`. The node is named after your class plus `Backward`.

%% code topics=T41
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

%% md topics=T41
A wrong backward gives wrong gradients without any error, so check it numerically.
`agk.autograd.gradcheck` compares your backward with finite differences (use `float64` inputs
for enough precision) and returns `True` when they agree:

%% code topics=T41
x64 = agk.tensor([0.5, -1.5], dtype=agk.float64, requires_grad=True)
print(agk.autograd.gradcheck(Square.apply, (x64,)))

%% md topics=T41
A picture makes the same check. Run `Square` forward and backward on many points at once and
compare the gradient from *your* backward with the slope measured between neighbouring points:

%% code topics=T41
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

%% md
### Exercise 3 — your own operation (write the code, 3 points)

Write `Cube`, an `autograd.Function` for `y = x³`. Save what backward needs in `forward`, and
return `grad_output` times the local derivative in `backward`.

%% solution id=nb05_ex3_cube
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


x = agk.tensor([1., 2.], requires_grad=True)
y = Cube.apply(x)
y.sum().backward()
print(y, x.grad)

%% test id=nb05_ex3_test points=3
ex.check_cube(Cube)
### BEGIN HIDDEN TESTS
ex.check_cube_gradcheck(Cube)
### END HIDDEN TESTS

%% md
### Exercise 4 — the gradients of `(a + b) * d` by hand (2 points)

Take the graph of section 1 with new values: `a = 1`, `b = -2`, `d = 3`, and `e = (a + b) * d`.
Work out on paper what `a.grad`, `b.grad` and `d.grad` will be after `e.backward()`.

%% solution id=nb05_ex4_by_hand
# Set a_grad, b_grad and d_grad (plain numbers).
### BEGIN SOLUTION
a_grad = 3.0
b_grad = 3.0
d_grad = -1.0
### END SOLUTION

%% test id=nb05_ex4_test points=2
ex.check_add_mul_by_hand(a_grad, b_grad, d_grad)
### BEGIN HIDDEN TESTS
ex.check_add_mul_numbers(a_grad, b_grad, d_grad)
### END HIDDEN TESTS

%% md
## Recap

- `e.backward()` reaches the leaves through references: `e.grad_fn` → `next_functions` →
  ... → `AccumulateGrad.variable`, which *is* the leaf tensor.
- Before the engine runs, `backward()` normalises its arguments: tensors to a tuple, one
  gradient per tensor, ones for scalar outputs, `retain_graph` defaulting to `create_graph`.
- `vars()`, `dir()` and `type()` are how you explore objects you did not write.
- `next_functions` holds `(node, index)` pairs; `(None, 0)` marks an input that needs no
  gradient. Non-leaf nodes have no `variable`; a loop with a stack walks down to the leaves.
- Every operation has a forward and a backward; `autograd.Function` lets you write both, and
  `gradcheck` checks the backward.
- For `c = a + b; e = c * d` with `a = 2, b = 3, d = 4`: `a.grad = b.grad = 4`, `d.grad = 5`.

**Next:** notebook 06 hooks into the backward pass to watch, and change, the gradients as they
flow.
''',
)

NB02 = Notebook(
    "02_autograd_does_it",
    r"""
%% md
# 02 · What autograd does for you

In notebook 01 you worked out `dloss/dw` with the chain rule and typed the formula into a
`gradient` function. That does not scale: a real network has millions of weights and hundreds of
operations between them and the loss. autograd does this work for you. This notebook shows what
it records during the forward pass, what `backward()` does with the record, and the handful of
rules (`requires_grad`, leaves, accumulation, `no_grad`) that follow from it.

**Learning goals.** By the end of this notebook you can

- rewrite the NumPy loop of notebook 01 with `MSELoss`, `backward()`, `SGD` and `zero_grad()`;
- say what `requires_grad` does and why it is off by default;
- read `grad`, `grad_fn` and `is_leaf` and predict their values;
- follow a backward pass through `MulBackward0` and `AccumulateGrad` by hand;
- explain why non-leaf tensors keep no `.grad` and use `retain_grad()` when you want one;
- explain why the loop must zero the gradients, and accumulate them on purpose;
- stop tracking with `requires_grad_(False)`, `detach()` and `no_grad()`.

**Graded exercises:** 4 exercises, **{POINTS} points** in total.

%% code
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit import nn
from autogradkit.viz import BackpropStepper, draw_graph
from autogradkit.grading.exercises import nb02_autograd as ex

agk.manual_seed(0)
np.random.seed(0)

%% md topics=T11
## 1. The same loop, with autograd

Here is the four-example training loop of notebook 01 (`x = 2, 4, 6, 8`, targets `2x`,
`lr = 0.01`), written the way you will see it in every PyTorch tutorial. Compare each line with
the four steps:

- `w` is a tensor with `requires_grad=True`: "please track what happens to me";
- `nn.MSELoss()` is the mean squared error;
- `loss.backward()` does steps 2 and 3: local gradients, chained, stored in `w.grad`;
- `optimizer.step()` does step 4: `w <- w - lr * w.grad`;
- `optimizer.zero_grad()` clears `w.grad` for the next epoch (section 8 explains why).

%% code topics=T11
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

%% md topics=T11
The same table as in notebook 01: the gradient is **-120** at epoch 1 and `w` reaches
**2.000** within 10 epochs. (The last digits of the loss can differ slightly from the NumPy
version, which kept `w` in double precision.) We never wrote a derivative. The rest of this
notebook opens up what happened inside `loss.backward()`.

%% md topics=T12
## 2. `requires_grad`: asking for gradients

A tensor starts with `requires_grad=False`. Setting it to `True` is how you say "I will want
the gradient of something with respect to this tensor". It shows in the tensor's printout:

%% code topics=T12
data = agk.tensor([1, 2, 3, 4], dtype=agk.float32)
weight = agk.tensor(0.0, requires_grad=True)
print(data)
print(weight)

%% md topics=T12
Why not track everything? Because tracking costs memory. To compute gradients later, every
operation on a tracked tensor keeps what its backward needs (for `w * x` that is `x`) and a node
of the graph. For the data you feed a network, and for every evaluation run, that would be
memory spent on gradients nobody asks for. So tracking is opt-in: you switch it on for the
parameters you train.

%% md topics=T13
## 3. The forward pass records a graph

Multiply two tensors that need no gradient and you get a plain result. Make just one of the
inputs require grad and the result requires grad too, and carries a `grad_fn`: the node of the
graph that knows how to send gradients back to the inputs.

%% code topics=T13
a = agk.tensor(2.0)
b = agk.tensor(3.0)
c = a * b
print("without tracking:", c, "| requires_grad:", c.requires_grad, "| grad_fn:", c.grad_fn)

a = agk.tensor(2.0, requires_grad=True)
c = a * b
print("a requires grad: ", c, "| requires_grad:", c.requires_grad)

%% md topics=T13
Every later result computed from `c` will require grad as well, so the whole chain from `a` to
the loss gets recorded. Here is the recorded graph. Arrows point the way the gradient will flow,
from the result back to the inputs. `b` needs no gradient, so no arrow leads to it:

%% code topics=T13
draw_graph(c, names={"a": a, "b": b, "c": c})

%% md topics=T14
## 4. Three new attributes: `grad`, `grad_fn`, `is_leaf`

- **`grad`**: where the gradient ends up. It is `None` until a backward pass fills it.
- **`grad_fn`**: the backward node that made this tensor (`MulBackward0` here), or `None` for a
  tensor you created yourself.
- **`is_leaf`**: `True` for tensors you created (no `grad_fn`), `False` for results of tracked
  operations. Only leaves get their `.grad` filled in, which saves memory again.

Reading `c.grad` below prints a warning in red; section 7 explains it.

%% code topics=T14
for name, t in [("a", a), ("b", b), ("c", c)]:
    node = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    print(f"{name}: grad={t.grad}  grad_fn={node}  is_leaf={t.is_leaf}  "
          f"requires_grad={t.requires_grad}")

%% md topics=T15
## 5. `c.backward()`, one step at a time

What happens when we call `c.backward()` on `c = a * b`?

1. The engine starts at `c` with the gradient `dc/dc = 1`.
2. It calls `c.grad_fn`, the `MulBackward0` node. For `c = a · b` the local gradients are
   `dc/da = b = 3` and `dc/db = a = 2`. Only `a` needs a gradient, so only `1 · 3 = 3` is sent
   on (the `b` side is skipped).
3. The gradient arrives at `AccumulateGrad`, the node that stands for the leaf `a`. It *adds*
   the gradient into `a.grad`.

%% code topics=T15
c.backward()
print("a.grad =", a.grad)
print("b.grad =", b.grad, " (b does not require grad, so it gets nothing)")

%% md topics=T15,T16
### Step through the engine

The stepper below replays the backward pass of `e = (a * b) * d` node by node, on the real
engine. Press **Step ▶** and watch which node runs, which gradient travels along each arrow, and
when `a.grad` and `d.grad` get written. Section 6 works through the same numbers by hand.

%% code topics=T15,T16
a = agk.tensor(2.0, requires_grad=True)
d = agk.tensor(4.0, requires_grad=True)
c = a * b
e = c * d
BackpropStepper(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})

%% md
### Exercise 1 — predict what autograd prints (2 points)

Let `a = agk.tensor(2.0, requires_grad=True)` and `b = agk.tensor(3.0)`, and compute
`f = (a + b) * a`. Notice that `a` is used twice. Predict `a.grad` and `b.grad` after
`f.backward()`. Write a number, or `None`.

%% solution id=nb02_ex1_predict
# Set predicted_a_grad (a number or None) and predicted_b_grad (a number or None).
### BEGIN SOLUTION
predicted_a_grad = 7.0
predicted_b_grad = None
### END SOLUTION

%% test id=nb02_ex1_test points=2
ex.check_predicted_reuse(predicted_a_grad, predicted_b_grad)
### BEGIN HIDDEN TESTS
ex.check_predicted_reuse_types(predicted_a_grad, predicted_b_grad)
### END HIDDEN TESTS

%% md topics=T16
## 6. A longer chain: `e = (a * b) * d`

Add a second leaf `d = 4` that requires grad, and one more multiplication:

```
c = a * b      # 6
e = c * d      # 24
```

By hand, walking back from `e`:

- `de/dd = c = 6`, so `d.grad = 6`;
- `de/dc = d = 4`; `c` is not a leaf, so this gradient is not stored but passed on to
  `c.grad_fn`;
- `dc/da = b = 3`, so `a.grad = 4 · 3 = 12` (the chain rule: multiply along the path).

%% code topics=T16
a = agk.tensor(2.0, requires_grad=True)
b = agk.tensor(3.0)
d = agk.tensor(4.0, requires_grad=True)
c = a * b
e = c * d
e.backward()
print("a.grad =", a.grad)
print("d.grad =", d.grad)

%% md topics=T16
The kit can replay a backward pass and write on each arrow the gradient that travelled along
it. Follow `1` from `e`, `4` into the first `MulBackward0`, `6` to `d` and `12` to `a`:

%% code topics=T16
a = agk.tensor(2.0, requires_grad=True)
d = agk.tensor(4.0, requires_grad=True)
c = a * b
e = c * d
draw_graph(e, names={"a": a, "b": b, "c": c, "d": d, "e": e}, trace=True)

%% md topics=T17
## 7. Non-leaf tensors keep no `.grad`

Now run the backward pass and ask every tensor for its gradient:

%% code topics=T17
e.backward()
print("a.grad ->", a.grad)
print("c.grad ->", c.grad)
print("d.grad ->", d.grad)
print("e.grad ->", e.grad)

%% md topics=T17
`a.grad` and `d.grad` are right, but `c.grad` and `e.grad` are `None`, and reading them triggers
a `UserWarning` (shown in red above). The gradient *did* pass through `c` (that is how the 4
reached `a`), but only leaves have an `AccumulateGrad` node that stores it. For intermediate
results the gradient is handed straight to the next node and then freed. The warning exists
because reading `.grad` of a non-leaf is almost always a mistake: usually you meant a leaf.

%% md topics=T18
## 8. `retain_grad()`: keeping a non-leaf's gradient

If you really want the gradient of an intermediate result, ask for it *before* the backward
pass with `retain_grad()`:

%% code topics=T18
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

%% md topics=T19
## 9. `AccumulateGrad` adds: why the loop zeroes gradients

`AccumulateGrad` does not overwrite `.grad`, it **adds** to it. Run three backward passes on the
one-example loss of notebook 01 (`loss = (2w - 4)²` at `w = 0`, gradient `-16`) without clearing:

%% code topics=T19
w = agk.tensor(0.0, requires_grad=True)
for attempt in range(3):
    loss = (w * 2 - 4) ** 2
    loss.backward()
    print(f"after backward #{attempt + 1}: w.grad = {w.grad!r}")

%% md topics=T19
In a training loop that is a bug: each step would use the sum of all gradients so far. This is
why the loop calls `optimizer.zero_grad()` (in PyTorch 2.x it sets `.grad` to `None`). Here is
the loop of section 1 with and without that line:

%% code topics=T19
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

%% md
### Exercise 2 — find the bug (3 points)

A classmate's loop never gets `w` to 2. Their code:

```python
def train_classmate(epochs):
    w = agk.tensor(0.0, requires_grad=True)
    optimizer = agk.optim.SGD([w], lr=0.01)
    for _ in range(epochs):
        loss = loss_fn(w * x, y)
        loss.backward()
        optimizer.step()
    return w
```

Write a corrected `train_fixed(epochs)` that returns the trained `w` (the leaf tensor itself).
With `epochs=10` the weight should come out within 0.001 of 2, as in the table of section 1.

%% solution id=nb02_ex2_find_the_bug
def train_fixed(epochs):
    w = agk.tensor(0.0, requires_grad=True)
    optimizer = agk.optim.SGD([w], lr=0.01)
    ### BEGIN SOLUTION
    for _ in range(epochs):
        loss = loss_fn(w * x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    ### END SOLUTION
    return w


print(train_fixed(10))

%% test id=nb02_ex2_test points=3
ex.check_train_fixed(train_fixed)
### BEGIN HIDDEN TESTS
ex.check_train_fixed_any_epochs(train_fixed)
### END HIDDEN TESTS

%% md topics=T20
## 10. Accumulating gradients on purpose

The adding behaviour is also useful. When a batch of data does not fit in memory at once, split
it into smaller pieces, call `backward()` on each, and only step once all pieces are in. To get
the same gradient as the whole batch, divide each piece's loss by the number of pieces (each
piece's loss is a mean over fewer examples). Here the four examples are processed as two
mini-batches of two:

%% code topics=T20
w = agk.tensor(0.0, requires_grad=True)
pieces = [(x[:2], y[:2]), (x[2:], y[2:])]
for x_piece, y_piece in pieces:
    loss = loss_fn(w * x_piece, y_piece) / len(pieces)
    loss.backward()                      # adds into w.grad
print("accumulated over 2 pieces:", w.grad)

w_full = agk.tensor(0.0, requires_grad=True)
loss_fn(w_full * x, y).backward()
print("whole batch at once:      ", w_full.grad)

%% md topics=T20
In a training loop the pattern looks like this: divide, call `backward()` every time, and step
(and zero) only every `accumulation_steps` batches:

```python
for i, (inputs, targets) in enumerate(batches):
    loss = loss_fn(model(inputs), targets) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
```

%% md
### Exercise 3 — gradient accumulation (write the code, 3 points)

Write `accumulated_grad(x, y, w_value, batch_size)`: make a leaf `w` holding `w_value`, split the
data into consecutive pieces of `batch_size` examples (assume it divides the data evenly), and
accumulate the gradients of the pieces' MSE losses so that the result equals the gradient of the
MSE over all the data. Return `w.grad`.

%% solution id=nb02_ex3_accumulate
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


print(accumulated_grad(x, y, 0.0, batch_size=1), accumulated_grad(x, y, 0.0, batch_size=2))

%% test id=nb02_ex3_test points=3
ex.check_accumulated_grad(accumulated_grad)
### BEGIN HIDDEN TESTS
ex.check_accumulated_grad_other_data(accumulated_grad)
### END HIDDEN TESTS

%% md topics=T21
## 11. Three ways to stop tracking

Sometimes you want a tensor's value without its history:

1. **`x.requires_grad_(False)`** switches tracking off for `x` itself, in place (the trailing
   underscore marks in-place methods);
2. **`x.detach()`** returns a new tensor that shares `x`'s data but has no history (`x` is left
   as it was);
3. **`with agk.no_grad():`** switches recording off for everything computed inside the block.

%% code topics=T21
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

%% md topics=T21
`no_grad()` is the one you will use most, every time you *evaluate* a model: computing
predictions on test data, or a validation loss. Forgetting it is a classic reason for running
out of memory during evaluation, because every prediction would record a graph nobody
backpropagates through. Evaluating under `no_grad()` also guarantees that nothing you do there
can end up in the gradients of the parameters:

%% code topics=T21
w_trained, _ = train(zero_grad=True)     # the trained leaf from section 9
with agk.no_grad():
    predictions = w_trained * agk.tensor([10.0, 20.0])
print(predictions)

%% md
### Exercise 4 — tracked or not? (predict, 2 points)

Start from `x = agk.tensor(3.0, requires_grad=True)`. For each line, predict the value of
`.requires_grad` of the result, in order:

| key | code |
|---|---|
| `"a"` | `x.detach() * 2` |
| `"b"` | `z = x * 2` computed inside `with agk.no_grad():` |
| `"c"` | `z * x`, computed after the `no_grad` block |
| `"d"` | `x * 2` after calling `x.requires_grad_(False)` |

%% solution id=nb02_ex4_tracked
# Set tracked = {"a": ..., "b": ..., "c": ..., "d": ...} with True or False values.
### BEGIN SOLUTION
tracked = {"a": False, "b": False, "c": True, "d": False}
### END SOLUTION

%% test id=nb02_ex4_test points=2
ex.check_tracked(tracked)
### BEGIN HIDDEN TESTS
ex.check_tracked_keys(tracked)
### END HIDDEN TESTS

%% md
## Recap

- With autograd the training loop is: forward, `loss.backward()`, `optimizer.step()`,
  `optimizer.zero_grad()`. It prints the same table as the NumPy loop (`dw = -120`, `w = 2.000`).
- `requires_grad=True` asks for gradients. It is off by default because recording costs memory.
- One tracked input makes every result tracked; results carry a `grad_fn`.
- `grad` is `None` until backward; `grad_fn` is the backward node; `is_leaf` marks tensors you
  created. Only leaves store `.grad` (`c = a * b` gives `a.grad = 3`; `e = (a * b) * d` gives
  `a.grad = 12`, `d.grad = 6`); `retain_grad()` keeps a non-leaf's gradient.
- `AccumulateGrad` adds into `.grad`: zero the gradients every step, or accumulate on purpose
  with the loss divided by the number of steps.
- Stop tracking with `requires_grad_(False)`, `detach()` or `no_grad()`; evaluate under
  `no_grad()`.

**Next:** notebook 03 calls `backward()` on outputs that are not a single number.
""",
)

NB06 = Notebook(
    "06_hooks",
    r'''
%% md
# 06 · Hooks: watching (and changing) gradients

autograd frees the gradients of intermediate results as soon as it has used them. That saves
memory, but sometimes you want to *see* them: to debug a network whose loss does not move, to
find a layer whose gradients vanish, or to clip gradients that explode. **Hooks** are functions
you hand to autograd, which it calls with a gradient at the moment that gradient is computed.
This notebook covers tensor hooks, module hooks, and a famous trap with the old module backward
hook.

**Learning goals.** By the end of this notebook you can

- predict which results require grad, and explain why intermediate `.grad` stays `None`;
- print an intermediate gradient with `register_hook`, and remove the hook again;
- write a hook `hook(grad) -> Tensor or None` that changes the gradient flowing on;
- use module forward hooks and backward hooks `hook(module, grad_input, grad_output)`;
- explain the `Linear(4, 1)` example (20.5, 22, 5.5) and why the legacy backward hook only sees
  the module's last operation;
- explain why `input.grad` was `None` after `.to(...)`, and that module parameters require grad.

**Graded exercises:** 4 exercises, **{POINTS} points** in total.

%% code
import numpy as np
import matplotlib.pyplot as plt
import ipywidgets as widgets

import autogradkit as agk
from autogradkit import nn
from autogradkit.grading.exercises import nb06_hooks as ex

agk.manual_seed(0)
np.random.seed(0)

%% md topics=T43
## 1. Which results require grad?

A result requires grad as soon as *any* of its inputs does. Adding two tensors that need no
gradient gives a result that needs none; add a third that does, and the result does too:

%% code topics=T43
x = agk.randn(5, 5)                        # requires_grad=False by default
y = agk.randn(5, 5)
z = agk.randn((5, 5), requires_grad=True)
a = x + y
print("a = x + y requires grad:", a.requires_grad)
b = a + z
print("b = a + z requires grad:", b.requires_grad, "| grad_fn:", b.grad_fn.name())

%% md topics=T44
## 2. Intermediate gradients are freed

Take `x = (x₁, x₂) = (1, 2)`, `y = 2x` and `z = mean(y) = (y₁ + y₂) / 2`. By hand:
`∂z/∂x = (1, 1)`, `∂z/∂y = (0.5, 0.5)` and `∂z/∂z = 1`. autograd computes all of these on the
way back, but keeps only the leaf's:

%% code topics=T44
x = agk.tensor([1, 2], dtype=agk.float32, requires_grad=True)
y = x * 2
z = agk.mean(y)
print(z)
z.backward()
print("x.grad:", x.grad)
print("y.grad:", y.grad)     # we expect (0.5, 0.5), but it was freed
print("z.grad:", z.grad)     # we expect 1

%% md topics=T44
`y` and `z` are not leaves, so their gradients were passed on and then freed (with the warning
you met in notebook 02). `retain_grad()` would keep them. A hook is the more flexible way: it
lets you look at the gradient, or change it, as it passes.

%% md topics=T45
## 3. `register_hook(print)`: see a gradient as it flows

`t.register_hook(fn)` asks autograd to call `fn(grad)` when the gradient of `t` has been
computed. The simplest hook is `print`:

%% code topics=T45
x = agk.tensor([1, 2], dtype=agk.float32, requires_grad=True)
y = x * 2
handle = y.register_hook(print)
z = agk.mean(y)
z.backward()               # the hook prints dz/dy during the backward pass

%% md topics=T45
There it is: `tensor([0.5000, 0.5000])`, the gradient of `z` with respect to `y`.
`register_hook` returns a handle; `handle.remove()` takes the hook off again (always remove
hooks you only needed for a look, or they keep firing).

%% code topics=T45
print(type(handle).__name__)
handle.remove()

%% md topics=T46
## 4. A hook can change the gradient

A tensor hook has the signature `hook(grad) -> Tensor or None`:

- return `None` (like `print` does) and the gradient flows on unchanged;
- return a tensor of the same shape and it **replaces** the gradient: everything further back
  (towards the leaves) receives the new one.

You may not change `grad` itself in place; return a new tensor instead.

%% code topics=T46
x = agk.tensor([1., 2.], requires_grad=True)
y = x * 2


def double(grad):
    return grad * 2


y.register_hook(double)
y.mean().backward()
print("x.grad with the doubling hook:", x.grad)   # 2 * 0.5 * 2 = 2 instead of 1

%% md topics=T46
Several hooks on one tensor run in the order you registered them, each seeing the gradient the
previous one returned. Hooks on leaves work too: they see the gradient just before it is added
into `.grad`. Here a clipping hook sits between two spies:

%% code topics=T46
x = agk.tensor([1., 2.], requires_grad=True)
y = x * 2
y.register_hook(lambda grad: print("first spy sees ", grad))
y.register_hook(lambda grad: grad.clamp(max=0.3))
y.register_hook(lambda grad: print("second spy sees", grad))
x.register_hook(lambda grad: print("leaf hook sees ", grad))
y.mean().backward()
print("x.grad:", x.grad)

%% md topics=T45,T46
### Try it: a hook on `y`

Pick a hook for the intermediate `y = x * 2` in `z = mean(y)` and see what it receives and
what arrives in `x.grad`.

%% code topics=T45,T46 collapsed
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

%% md
### Exercise 1 — predict what the hooks print (2 points)

```python
x = agk.tensor([1., 2., 3.], requires_grad=True)
y = x * 3
y.register_hook(print)                    # hook A
y.register_hook(lambda grad: grad * 10)   # hook B
y.sum().backward()
```

Predict the tensor that hook A prints, and the final `x.grad`. Write both as lists of numbers.

%% solution id=nb06_ex1_predict_hooks
# Set printed_by_a and final_x_grad (lists of three numbers).
### BEGIN SOLUTION
printed_by_a = [1., 1., 1.]
final_x_grad = [30., 30., 30.]
### END SOLUTION

%% test id=nb06_ex1_test points=2
ex.check_predicted_hooks(printed_by_a, final_x_grad)
### BEGIN HIDDEN TESTS
ex.check_predicted_hooks_shapes(printed_by_a, final_x_grad)
### END HIDDEN TESTS

%% md
### Exercise 2 — capture intermediate gradients (write the code, 3 points)

Write `capture_grads(named, loss)`. `named` is a dict `{name: tensor}` of intermediate results
that `loss` was computed from. Register one hook per tensor that stores a copy of its gradient
under its name, run `loss.backward()`, remove the hooks, and return the dict of captured
gradients. Your hooks must not change the gradients.

%% solution id=nb06_ex2_capture
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


x = agk.tensor([1., 2.], requires_grad=True)
y = x * 2
z = agk.mean(y)
print(capture_grads({"y": y, "z": z}, z))

%% test id=nb06_ex2_test points=3
ex.check_capture_grads(capture_grads)
### BEGIN HIDDEN TESTS
ex.check_capture_grads_other_graph(capture_grads)
### END HIDDEN TESTS

%% md topics=T51
## 5. Module parameters require grad

A layer such as `nn.Linear(4, 1)` holds its weights as `Parameter`s: leaf tensors that require
grad from the moment they are created. You never set `requires_grad=True` on a network's
weights, because they are exactly what training changes, so they are tracked by default:

%% code topics=T51
layer = nn.Linear(4, 1)
for name, param in layer.named_parameters():
    print(f"{name:6} shape={tuple(param.shape)}  requires_grad={param.requires_grad}  "
          f"is_leaf={param.is_leaf}")

%% md topics=T47
## 6. Module hooks

Modules have hooks too, registered on the module rather than on a tensor:

- a **forward hook** `hook(module, inputs, output)` runs right after the module's `forward`:
  handy to record activations;
- a **backward hook** `hook(module, grad_input, grad_output)` runs during the backward pass:
  `grad_output` holds the gradients with respect to the module's outputs and `grad_input` those
  with respect to its inputs (tuples, because a module can have several). Returning a new tuple
  replaces `grad_input`.

Our example network computes a `Linear(4, 1)` with all weights 8 and bias 2, then divides by 4:

%% code topics=T47,T48
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

%% code topics=T47
def show_forward(module, inputs, output):
    print(f"forward hook on {type(module).__name__}: inputs={inputs} output={output}")


handle = net.f1.register_forward_hook(show_forward)
print("result:", net(agk.tensor([1., 2., 3., 4.])))
handle.remove()

%% md topics=T48
## 7. The `Linear(4, 1)` example

Now the full experiment. The input `[1, 2, 3, 4]` is created as a tensor that requires grad and
then converted with `.to(...)`, as in code that moves data to a GPU. The network gets the legacy
backward hook `register_backward_hook`, and the converted input gets a tensor hook. Expected
result: `(1 + 2 + 3 + 4) · 8 + 2 = 82`, divided by 4: **20.5**.

%% code topics=T48
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

%% md topics=T48
Read the output from the top:

- **result 20.5**, as computed;
- the **module hook** reports `grad_output = (1,)` (the gradient of the result with respect to
  itself) and `grad_input = (0.25, None)`. That is the gradient of the division `y / 4` with
  respect to `y`, which is 1/4, and `None` for the constant 4. It is *not* the gradient with
  respect to the network's input (more on this in section 9);
- the **tensor hook** on the input sees `[2, 2, 2, 2]`: `∂result/∂xᵢ = wᵢ / 4 = 8 / 4`;
- the **weight gradients** are `xᵢ / 4 = [0.25, 0.5, 0.75, 1.0]` and the **bias gradient** is
  `1/4 = 0.25`;
- `input.grad` is `None`, with a warning (section 8 explains).

Now swap the order of the two steps, and then divide once more at the end:

%% code topics=T48
experiment("quarter-then-linear")

%% code topics=T48
experiment("quarter-linear-quarter")

%% md topics=T48
The results are **22** (`(1 + 2 + 3 + 4)/4 · 8 + 2`) and **5.5** (`22 / 4`), and the gradients
follow the algebra: with the linear layer last, the bias gradient is 1; with a final division
it is 0.25 again and the weight gradients shrink to `xᵢ / 16`. The module hook's `grad_input`
changes shape completely each time: `(0.25, None)`, then `([[1.]],)`, then `(0.25, None)`. It
always describes *the last operation inside the module*: the division in the first and third
orders, the reshape at the end of the `Linear` in the second. The warning printed at each
forward pass says the same thing.

%% md topics=T49
## 8. Why was `input.grad` `None`?

`input` was not the tensor we created. `.to(agk.float32)` made a *copy* (with the `grad_fn`
`ToCopyBackward0`, as the next cell shows), and a copy produced by an operation is not a leaf,
so it keeps no `.grad`. The tensor hook saw
the gradient because hooks fire on any tensor. The leaf that did receive a gradient is the
original tensor, which we never kept a name for.

In the original version of this example the copy came from `.to("cuda")`, moving the input to
the GPU. On the CPU, `.to("cpu")` (or `.float()` on a float32 tensor) has nothing to do and
returns the very same tensor, so there the problem does not show:

%% code topics=T49
original = agk.tensor([1., 2., 3., 4.], requires_grad=True)
print("to('cpu') returns the same tensor:", original.to("cpu") is original)

copy = original.to(agk.float64)
print("to(float64) makes a copy:", copy.grad_fn, "| is_leaf:", copy.is_leaf)

(copy * 2).sum().backward()
print("the original leaf got the gradient:", original.grad)

%% md
### Exercise 3 — find the bug (2 points)

This code wants the gradient of `out` with respect to the input, but `inp.grad` is `None`:

```python
inp = agk.tensor([1, 2, 3, 4], dtype=agk.float64, requires_grad=True).to(agk.float32)
out = (Net()(inp)).sum()
out.backward()
input_grad = inp.grad
```

Fix it so that `inp` is a leaf holding the float32 values 1, 2, 3, 4 and `input_grad` holds the
gradient (there is more than one good fix).

%% solution id=nb06_ex3_find_the_bug
# Define inp, out and input_grad: the fixed version of the code above.
### BEGIN SOLUTION
inp = agk.tensor([1, 2, 3, 4], dtype=agk.float32, requires_grad=True)
out = (Net()(inp)).sum()
out.backward()
input_grad = inp.grad
### END SOLUTION
print(input_grad)

%% test id=nb06_ex3_test points=2
ex.check_input_grad(inp, input_grad)
### BEGIN HIDDEN TESTS
ex.check_input_is_float32_leaf(inp)
### END HIDDEN TESTS

%% md topics=T50
## 9. The legacy backward hook only sees the last operation

`register_backward_hook` was designed when a module was assumed to be a single operation. It is
attached to the last backward node the module's forward pass created, so its `grad_input` is the
gradient with respect to *that node's* inputs, whatever the module does before it. That is why it
changed with the order of operations, and why PyTorch now warns that it is deprecated.

Two reliable alternatives:

- **tensor hooks** on exactly the tensors you care about (as the input hook above);
- **`register_full_backward_hook`**, whose `grad_input` really is the gradient with respect to the
  module's inputs and `grad_output` with respect to its outputs:

%% code topics=T50
net = Net("linear-then-quarter")
net.register_full_backward_hook(module_hook)
leaf_input = agk.tensor([1., 2., 3., 4.], requires_grad=True)
result = net(leaf_input)
print("result =", result)
result.backward()
print("leaf_input.grad:", leaf_input.grad)

%% md topics=T50
Now `grad_input` is `([2., 2., 2., 2.],)`, the gradient with respect to the network's input,
matching the tensor hook and `leaf_input.grad`, whatever order the module uses inside.

%% md topics=T47,T50
### Hooks in practice: watching gradients while a network trains

A common use of hooks is to monitor training. Below, a forward hook on every `Linear` layer of a
small network attaches a tensor hook to the layer's output each time the layer runs; the tensor
hook records the size (norm) of the gradient arriving there while the network learns
`y = sin(3x)`. Plots like this reveal layers whose gradients vanish or explode.

%% code topics=T47,T50
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

%% md
### Exercise 4 — the example by hand (2 points)

Use the network of section 7 in its first order (`Linear` then divide by 4; weights 8, bias 2),
but feed it the input `[2., 0., 1., 1.]`. Work out by hand the result, the gradient of the result
with respect to the weights, and with respect to the bias.

%% solution id=nb06_ex4_by_hand
# Set result_by_hand (a number), weight_grad_by_hand (four numbers), bias_grad_by_hand.
### BEGIN SOLUTION
result_by_hand = 8.5
weight_grad_by_hand = [0.5, 0.0, 0.25, 0.25]
bias_grad_by_hand = 0.25
### END SOLUTION

%% test id=nb06_ex4_test points=2
ex.check_linear_by_hand(result_by_hand, weight_grad_by_hand, bias_grad_by_hand)
### BEGIN HIDDEN TESTS
ex.check_linear_by_hand_shapes(weight_grad_by_hand)
### END HIDDEN TESTS

%% md
## Recap

- A result requires grad if any input does. Intermediate gradients are computed, used and freed:
  `y.grad` stays `None` unless you keep it.
- `t.register_hook(fn)` calls `fn(grad)` when `t`'s gradient is ready; `register_hook(print)`
  shows `tensor([0.5000, 0.5000])` in the mean example. Remove hooks with the handle.
- A hook returns `None` (look only) or a new tensor that replaces the gradient flowing on.
- Module hooks: forward hooks `(module, inputs, output)`, backward hooks
  `(module, grad_input, grad_output)`. Parameters require grad by default.
- In the `Linear(4, 1)` example (results 20.5, 22 and 5.5; weight gradients 0.25 0.5 0.75 1.0;
  bias gradient 0.25) the legacy backward hook only sees the module's last operation. Prefer tensor
  hooks or `register_full_backward_hook`.
- `input.grad` was `None` because `.to(...)` made a non-leaf copy; keep a reference to the leaf.

**Next:** notebook 07 puts everything together: train a small network, watch its graph and its
gradients, and compare optimizers.
''',
)

NB07 = Notebook(
    "07_capstone",
    r'''
%% md
# 07 · Capstone: train a small network and look inside

Time to use everything at once. You will generate a two-dimensional toy data set, build a small
multi-layer perceptron (MLP) that separates its two classes, look at the graph one training step
records, watch the gradients of every layer with hooks, compare three optimizers, and plot the
decision boundary the network learned.

**Learning goals.** By the end of this notebook you can

- build and train an `nn.Sequential` classifier with `CrossEntropyLoss` and an optimizer;
- read the backward graph of a real network (`AddmmBackward0`, `TanhBackward0`, ...);
- attach hooks to watch gradients per layer while the network trains;
- explain the difference between SGD, SGD with momentum and Adam from their loss curves;
- evaluate under `no_grad()` and draw a decision boundary.

**Graded exercises:** 4 exercises, **{POINTS} points** in total.

%% code
import numpy as np
import matplotlib.pyplot as plt
import ipywidgets as widgets
from IPython.display import Image

import autogradkit as agk
from autogradkit import nn
from autogradkit.viz import draw_graph, progress
from autogradkit.grading.exercises import nb07_capstone as ex

agk.manual_seed(0)
np.random.seed(0)

%% md
## 1. The data: two interleaving moons

Each point has two coordinates and a class, 0 or 1. The classes form two half circles that hook
into each other, so no straight line can separate them: the network has to learn a curved
boundary. We generate the points with NumPy, with a fixed seed so that everyone gets the same
data.

%% code
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

%% md topics=T51
## 2. The model

Two inputs, two hidden layers of 16 units with `tanh`, and two outputs: one score (a *logit*)
per class. `nn.CrossEntropyLoss` turns the scores into probabilities with a softmax and measures
how much probability the correct class gets. Every weight and bias is a `Parameter` that
requires grad. We build each model with the same seed, so comparisons are fair.

%% code topics=T51
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

%% md
### Exercise 1 — count the parameters (compute by hand, 2 points)

How many numbers does training adjust in this model? A `Linear(n_in, n_out)` layer has an
`n_out × n_in` weight matrix and `n_out` biases. Work it out by hand from the layer sizes and
write the total.

%% solution id=nb07_ex1_count
# Set n_params (an int).
### BEGIN SOLUTION
n_params = (2 * 16 + 16) + (16 * 16 + 16) + (16 * 2 + 2)
### END SOLUTION
print(n_params)

%% test id=nb07_ex1_test points=2
ex.check_n_params(n_params)
### BEGIN HIDDEN TESTS
ex.check_n_params_type(n_params)
### END HIDDEN TESTS

%% md topics=T13,T27
## 3. The graph of one training step

One forward pass records the whole graph. Each `Linear` on a batch becomes an `AddmmBackward0`
node (a matrix product plus the bias, with `TBackward0` for the transposed weight); each `tanh`
a `TanhBackward0`; the cross-entropy ends in `NllLossBackward0` over `LogSoftmaxBackward0`. The
six `AccumulateGrad` boxes are the six parameters: the only leaves that get a `.grad` (the data
`X` needs no gradient).

%% code topics=T13,T27
loss = loss_fn(model(X), y)
print("loss before training:", loss)
names = dict(model.named_parameters())      # "0.weight", "0.bias", ...
draw_graph(loss, names={**names, "X": X, "loss": loss}, show_data=False)

%% md
### Exercise 2 — predict what backward fills in (predict, 2 points)

Call `loss.backward()` on the loss above, in your head. Predict the shape of the gradient that
lands in the first layer's weight, `model[0].weight.grad`, and whether `X.grad` is `None`.

%% solution id=nb07_ex2_predict
# Set weight_grad_shape (a tuple of ints) and x_grad_is_none (True or False).
### BEGIN SOLUTION
weight_grad_shape = (16, 2)
x_grad_is_none = True
### END SOLUTION

%% test id=nb07_ex2_test points=2
ex.check_backward_prediction(weight_grad_shape, x_grad_is_none)
### BEGIN HIDDEN TESTS
ex.check_backward_prediction_types(weight_grad_shape, x_grad_is_none)
### END HIDDEN TESTS

%% md
## 4. Training, with hooks watching the gradients

A forward hook on each `Linear` attaches a tensor hook to the layer's output; the tensor hook
records the norm of the gradient that arrives there during every backward pass (notebook 06).
The loop itself is the one from notebook 02: forward, loss, `zero_grad`, `backward`, `step`.
`progress(...)` shows a progress bar while it runs.

%% code topics=T47,T11
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

%% md
At the start, the gradient that reaches the first layer is about three times smaller than the
one at the output: on its way back it passes through two `tanh` layers, whose derivative is at
most 1, and two weight matrices. As training goes on the weights grow and the picture changes.
(Compare the curves with care: the layers have different widths.) In a deep network the
shrinking compounds layer after layer, which is called the *vanishing gradient* problem; hooks
like these are how you spot it.

%% md
### Exercise 3 — accuracy under `no_grad()` (write the code, 3 points)

Write `accuracy(model, X, y)`: the fraction of points whose highest-scoring class
(`argmax` over `dim=1`) equals the label, as a Python float. Compute it inside `agk.no_grad()`:
evaluation must not record a graph.

%% solution id=nb07_ex3_accuracy
def accuracy(model, X, y):
    ### BEGIN SOLUTION
    with agk.no_grad():
        predicted = model(X).argmax(dim=1)
    return (predicted == y).float().mean().item()
    ### END SOLUTION


print(f"accuracy after SGD: {accuracy(model, X, y):.3f}")

%% test id=nb07_ex3_test points=3
ex.check_accuracy(accuracy)
### BEGIN HIDDEN TESTS
ex.check_accuracy_no_graph(accuracy)
### END HIDDEN TESTS

%% md
## 5. Comparing optimizers

Plain **SGD** moves every parameter by `lr × gradient`. **SGD with momentum** keeps a running
velocity, so steps in a consistent direction build up speed while back-and-forth steps cancel.
**Adam** additionally scales each parameter's step by a running estimate of its gradient's size,
so parameters with small gradients still move. Same model, same data, same start:

%% code
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

%% md
### Exercise 4 — find the bug (3 points)

This loop runs without any error, yet the loss never changes:

```python
def train_buggy(model, optimizer, epochs):
    losses = []
    for _ in range(epochs):
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
    return losses
```

Explain the bug to yourself (what is in `.grad` when `step()` runs?), then write
`train_fixed(model, optimizer, epochs)` that trains correctly and returns the list of losses.

%% solution id=nb07_ex4_find_the_bug
def train_fixed(model, optimizer, epochs):
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


demo = make_model()
print([round(v, 4) for v in train_fixed(demo, agk.optim.SGD(demo.parameters(), lr=0.1), 5)])

%% test id=nb07_ex4_test points=3
ex.check_train_fixed(train_fixed, make_model, X, y)
### BEGIN HIDDEN TESTS
ex.check_train_fixed_momentum(train_fixed, make_model, X, y)
### END HIDDEN TESTS

%% md topics=T21
## 6. The decision boundary

To see what the network learned, ask it for the probability of class 1 at every point of a fine
grid, under `no_grad()` (we only evaluate, so there is no graph to record), and colour the plane
by it. The boundary is where the probability crosses 0.5.

%% code topics=T21
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

%% md
### Watch the boundary form

The slider replays the Adam run: the parameters were saved every 25 epochs, and each position
shows the boundary the network had at that moment. Early on it is almost a straight line; the
curve appears as the loss falls.

%% code collapsed
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

%% md
## Recap

- A classifier is trained exactly like the one-weight model: forward, loss, `zero_grad()`,
  `backward()`, `step()`. Only the model and the loss changed.
- The graph of one step has one node per operation (`AddmmBackward0`, `TanhBackward0`,
  `NllLossBackward0`, ...) and one `AccumulateGrad` per parameter.
- Hooks let you watch gradients per layer during training without changing them.
- Momentum and Adam reach a low loss much faster than plain SGD on this problem.
- Evaluate under `no_grad()`; the decision boundary shows what the network learned.

Congratulations: you have followed a gradient from a single weight all the way to a trained
network, and you know what every line of the training loop does.
''',
)


NOTEBOOKS = [NB00, NB01, NB02, NB03, NB04, NB05, NB06, NB07]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="name prefixes, e.g. 01 03")
    parser.add_argument("--no-execute", action="store_true")
    args = parser.parse_args(argv)
    chosen = [nb for nb in NOTEBOOKS if not args.only or nb.name.startswith(tuple(args.only))]
    for notebook in chosen:
        nb = build(notebook)
        seconds = 0.0 if args.no_execute else execute(nb, notebook.path.parent)
        write(stabilise(nb, notebook.path), notebook.path)
        where = notebook.path.relative_to(ROOT)
        print(f"{where}: {len(nb.cells)} cells, executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
