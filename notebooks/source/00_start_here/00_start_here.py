# %% [markdown] id="00-start-here"
# # 00 · Start here
#
# Welcome! This course shows what PyTorch's **autograd** really does when you call
# `loss.backward()`. You will use **autogradkit**, a small library written in NumPy that behaves
# like PyTorch: the same names, the same printouts, the same errors. Wherever a PyTorch tutorial
# writes `import torch`, we write `import autogradkit as agk`, and the code reads the same. Because
# the whole library is Python, you can also open any part of it and read how it works.
#
# This notebook is a short tour of the tools you will use in every other notebook: code cells,
# figures, interactive widgets, and the checks that tell you at once whether an exercise is right.
#
# **Time:** about 25 min: 15 min to read and run the cells, 10 min for the exercises.
# Every notebook opens with an estimate like this one, measured from the notebook itself:
# its text at 150 words a minute, its code at 6 lines a minute, 3 minutes for each widget,
# and for the exercises 3 minutes a point plus a minute for each line of the model answer.
# Take it as a guide: some exercises will take you longer, some less.
#
# **Before you start:** nothing from this course. You need a little Python (variables, lists,
# functions, `for` loops, `print`) and, for exercise 2, the derivative of a power,
# `d(xⁿ)/dx = n·xⁿ⁻¹`.
#
# **Learning goals.** By the end of this notebook you can
#
# - run a notebook from top to bottom, restart its kernel, and read the last line of a red
#   error message (sections 1 and 3);
# - make a tensor that requires grad from a list of numbers, whole numbers too (exercise 1);
# - move a widget's slider and find where the slope it shows is zero (section 5);
# - work out a derivative on paper and write it as a function (exercise 2);
# - predict what autograd prints, read the `✓` / `✗` lines of a check (exercise 3), and submit
#   your notebook (section 7).
#
# **Graded exercises:** 3 exercises, **2 points** in total (predictions teach: they count for no points).

# %% [markdown] id="00-running-cells"
# ## 1. Running cells
#
# A notebook is a list of cells. Markdown cells (like this one) hold text; code cells hold Python.
# Click into a code cell and press **Shift + Enter** to run it; the output appears below the cell
# and the cursor moves on. The number in `[ ]` on the left shows the order in which cells ran;
# `[*]` means the cell is still running.
#
# - Run the cells **from top to bottom**: later cells use names defined by earlier ones.
# - If things get confusing, use **Kernel → Restart Kernel and Run All Cells**: it forgets
#   everything and runs the notebook again from the top.
#
# Run the next cell. It imports the libraries and fixes the random seeds, so that everybody sees
# the same random numbers.

# %% id="00-import-numpy-as-np"
import numpy as np
import matplotlib.pyplot as plt

import autogradkit as agk
from autogradkit.viz import TangentExplorer

import checks  # this notebook's checks, in checks.py beside it

agk.manual_seed(0)
np.random.seed(0)

# %% [markdown] id="00-a-first-tensor-and-a"
# ## 2. A first tensor, and a first gradient
#
# A tensor is an array of numbers. `requires_grad=True` asks autogradkit to remember every
# operation done with it, so that it can compute gradients later. Here `y = x² + 3x`, so
# `dy/dx = 2x + 3 = 7` at `x = 2`:

# %% id="00-x-agk-tensor-2-0"
x = agk.tensor(2.0, requires_grad=True)
y = x ** 2 + 3 * x
print(y)
y.backward()
print("dy/dx at x = 2:", x.grad)

# %% [markdown] id="00-errors-are-part-of-the"
# The printouts are exactly what PyTorch prints: `tensor(10., grad_fn=<AddBackward0>)` and
# `tensor(7.)`. The following notebooks explain every part of them.
#
# ## 3. Errors are part of the lesson
#
# Some cells in this course fail on purpose, to show you a real error message. They are marked
# with a short note, and their output is a red traceback. Read the **last line**: it names the
# error and says what went wrong. For example, PyTorch (and autogradkit) only compute gradients
# for floating-point tensors:

# %% id="00-counts-agk-tensor-1-2" tags=["raises-exception"]
counts = agk.tensor([1, 2, 3], requires_grad=True)

# %% [markdown] id="00-figures"
# ## 4. Figures
#
# Plots appear right below the cell that draws them. Here is `y = x² + 3x` with its tangent line
# at `x = 2`, whose slope is the gradient we just computed:

# %% id="00-xs-np-linspace-4-3"
xs = np.linspace(-4, 3, 100)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(xs, xs ** 2 + 3 * xs, label="y = x² + 3x")
ax.plot(xs, 10 + x.grad.item() * (xs - 2), "--", label="tangent at x = 2 (slope = x.grad = 7)")
ax.plot([2], [10], "ko")
ax.set_ylim(-5, 20)
ax.set_xlabel("x")
ax.legend()
plt.show()

# %% [markdown] id="00-widgets"
# ## 5. Widgets
#
# Some cells show interactive controls. The figure above answers one question: the slope at
# `x = 2`. The widget below answers it for every `x`: move the slider, and autogradkit's
# `backward()` computes `x.grad` at that point; the dashed line is the tangent with that slope.
# Find the `x` where the slope is zero. What is special about the curve there? (Notebook 01 uses
# exactly this to find the best weight.) Widgets run Python in the kernel, so they only respond
# after you have run the cell (and after a restart, run it again).

# %% id="00-tangentexplorer-lambda-x-x-2"
TangentExplorer(lambda x: x ** 2 + 3 * x, "x² + 3x", x=2.0, xlim=(-4, 3))

# %% [markdown] id="00-exercises-and-instant-feedback"
# ## 6. Exercises and instant feedback
#
# Each exercise has an **answer cell** and a **check cell** below it.
#
# 1. In the answer cell, replace the line `raise NotImplementedError()` with your answer.
# 2. Run the answer cell, then the check cell.
# 3. Read what the check prints:
#    - one `✓` line for each thing it checked, when your answer is right;
#    - one `✗` line at the first thing that is wrong: what it looked at, why it is wrong, and in
#      brackets a hint that says where to look (never the answer). The check cell then fails.
#      Fix your answer and run both cells again;
#    - `not answered yet` on its `✗` line when there is no answer (run a check cell before you
#      answer and you will see it);
#    - for a prediction ("what will this print?"), a wrong answer is marked wrong, without the
#      answer: run the code then, and see why. Predict first: the difference is the lesson
#      (the graded feedback shows the real value);
#    - when your own code raised an error, the `✗` line names the error and shows the lines of
#      your code where it happened.
#
# A check runs your code on inputs of its own, not only on the numbers in the exercise text, so
# write an answer that works in general: a typed-in result does not pass. If an exercise asked
# for `double(x)` and you wrote `x + 2`, its check might print
#
# ```
# ✓ double(2)
# ✗ double(-1.5): the value is not right (doubling is not adding 2)
# ```
#
# The check cells are locked: do not change them. When your notebook is graded, the original
# check cells are put back, the checks draw new inputs, and some extra *hidden* checks may run as
# well.

# %% [markdown] id="00-exercise-1-your-first-tensor"
# ### Exercise 1 — your first tensor (write the code, 1 point)
#
# Write `first_tensor(values)`: given a list of numbers, it returns a tensor that holds them and
# asks for gradients, like `x` in section 2. The check calls it with numbers of its own, whole
# numbers too (remember section 3).

# %% nbgrader={"grade": false, "grade_id": "nb00_ex1_tensor", "locked": false, "schema_version": 3, "solution": true, "task": false}
def first_tensor(values):
    ### BEGIN SOLUTION
    return agk.tensor(values, dtype=agk.float32, requires_grad=True)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb00_ex1_test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
checks.tensor_from_numbers()

# %% [markdown] id="00-exercise-2-a-gradient-by"
# ### Exercise 2 — a gradient by hand (work it out, then write it, 1 point)
#
# For `y = x³ - 2x`, work out `dy/dx` on paper, as a formula in `x`. Then write `slope(x)`, which
# returns it for any number `x`, with plain arithmetic. You may compare it with autograd, as in
# section 2, but the check switches autograd off while it runs your function.

# %% nbgrader={"grade": false, "grade_id": "nb00_ex2_by_hand", "locked": false, "schema_version": 3, "solution": true, "task": false}
def slope(x):
    ### BEGIN SOLUTION
    return 3 * x**2 - 2
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb00_ex2_test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
checks.slope_by_hand()

# %% [markdown] id="00-exercise-3-predict-a-printout"
# ### Exercise 3 — predict a printout (predict, no points)
#
# What does `print(agk.tensor(2.0, requires_grad=True) * 3)` print? Write it as a string, exactly
# as it would appear, without running it. (Hint: look at the printout of `y` in section 2.) If
# your prediction is wrong, the check says so: then run the line and compare.

# %% nbgrader={"grade": false, "grade_id": "nb00_ex3_predict", "locked": false, "schema_version": 3, "solution": true, "task": false}
# Set printed (a string).
### BEGIN SOLUTION
printed = "tensor(6., grad_fn=<MulBackward0>)"
### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "nb00_ex3_test", "locked": true, "points": 0, "schema_version": 3, "solution": false, "task": false}
checks.printout_prediction()

# %% [markdown] id="00-submitting"
# ## 7. Submitting
#
# When you have finished a notebook:
#
# 1. **Kernel → Restart Kernel and Run All Cells**, and check that every check cell shows only
#    `✓` lines (cells marked as failing on purpose may still show their red error).
# 2. **File → Save Notebook** (Ctrl + S).
# 3. Hand in the `.ipynb` file the way your instructor asked (for example by uploading it to the
#    course page). Keep the file name unchanged.
#
# Your instructor grades all submissions with `autogradkit grade`: your notebook runs in
# a fresh kernel, the locked check cells are restored from the original, the checks run your
# answers on inputs drawn for this grading run (the hidden checks too), and you get back a
# feedback file with the points for each exercise.

# %% [markdown] id="00-recap"
# ## Recap
#
# - Run cells from top to bottom; restart and run all when in doubt.
# - `import autogradkit as agk` behaves like `import torch` for everything in this course.
# - Red errors can be part of a lesson: read their last line.
# - Answer in the answer cell, run the check cell, and read its lines: a `✓` for each thing
#   checked, or one `✗` with a hint. Answers must work on the check's own inputs.
# - Restart, run all, save, and hand in the `.ipynb` file.
#
# **Next:** notebook 01 trains a one-weight model by hand.
#
# **Along the way:** [GLOSSARY.md](../../GLOSSARY.md) explains the course's words (with their
# Simplified Chinese terms), and [ERRORS.md](../../ERRORS.md) lists every error message the
# notebooks show, with the section that explains it.
#
# **Further reading** in PyTorch's documentation:
#
# - [`torch.tensor`](https://docs.pytorch.org/docs/stable/generated/torch.tensor.html):
#   making a tensor, and `requires_grad`
# - [`torch.Tensor`](https://docs.pytorch.org/docs/stable/tensors.html): everything a tensor can do
# - [`Tensor.backward`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.backward.html):
#   what section 2 called
#
# The last cell lists this notebook's exercises: `✓` passed, `✗` not yet, `·` not run yet
# in this session. Run it when you have finished (it only reports: grading runs every check
# again).

# %% id="00-checks-check-progress"
checks.check.progress()
