"""Each exercise's check refuses a plausible answer that skips the lesson, and takes a real one.

The shortcut answers are what a student who wants marks without the mechanism would try; each
passed its check before the check tested the mechanism itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.grading.exercises import (
    nb02_autograd,
    nb03_jacobians,
    nb04_inplace,
    nb05_grad_fn,
)

loss_fn = agk.nn.MSELoss()


# ----- 02 ex. 3: gradient accumulation ------------------------------------------------------
def accumulate_by_pieces(x, y, w_value, batch_size):
    w = agk.tensor(w_value, requires_grad=True)
    pieces = len(x) // batch_size
    for start in range(0, len(x), batch_size):
        part = slice(start, start + batch_size)
        (loss_fn(w * x[part], y[part]) / pieces).backward()
    return w.grad


def whole_batch_at_once(x, y, w_value, batch_size):
    w = agk.tensor(w_value, requires_grad=True)
    loss_fn(w * x, y).backward()  # the same number, without accumulating anything
    return w.grad


def test_02_accumulation_needs_one_backward_per_piece():
    nb02_autograd.check_accumulated_grad(accumulate_by_pieces)
    nb02_autograd.check_accumulated_grad_other_data(accumulate_by_pieces)
    with pytest.raises(AssertionError, match="backward"):
        nb02_autograd.check_accumulated_grad(whole_batch_at_once)


# ----- 03 ex. 2: the gradient comes from backward() -----------------------------------------
def test_03_the_quantity_gradient_must_come_from_backward():
    prices = agk.tensor([3.0, 5.0, 2.0])
    quantities = agk.tensor([1.0, 4.0, 2.0], requires_grad=True)
    with pytest.raises(AssertionError, match="backward"):
        nb03_jacobians.check_quantity_grad(quantities, prices.clone(), prices)  # typed in
    (prices * quantities).sum().backward()
    nb03_jacobians.check_quantity_grad(quantities, quantities.grad, prices)


# ----- 03 ex. 4: a Jacobian built from backward passes --------------------------------------
def jacobian_by_rows(f, x):
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


def test_03_the_jacobian_exercise_refuses_the_library_jacobian():
    from autogradkit.autograd.functional import jacobian as library_jacobian

    nb03_jacobians.check_jacobian(jacobian_by_rows)
    with pytest.raises(AssertionError, match="yourself"):
        nb03_jacobians.check_jacobian(library_jacobian)
    with pytest.raises(AssertionError, match="yourself"):
        nb03_jacobians.check_jacobian(lambda f, x: agk.autograd.functional.jacobian(f, x))
    x = agk.tensor([1.0, 2.0], dtype=agk.float64)
    assert library_jacobian(lambda t: t**2, x).shape == (2, 2)  # the library works again


# ----- 04 ex. 4: an update autograd can see -------------------------------------------------
def step_in_no_grad(w, lr):
    with agk.no_grad():
        w -= lr * w.grad
    w.grad = None


def step_through_data(w, lr):
    w.data -= lr * w.grad.data  # the change is hidden from the version counter
    w.grad = None


def test_04_sgd_step_through_data_is_refused():
    nb04_inplace.check_sgd_step(step_in_no_grad)
    with pytest.raises(AssertionError, match="version"):
        nb04_inplace.check_sgd_step(step_through_data)


# ----- 05 ex. 2: walking the graph with a visited set ---------------------------------------
def leaves_with_visited_set(t):
    leaves, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if hasattr(node, "variable"):
            leaves.append(node.variable)
        stack.extend(child for child, _ in node.next_functions)
    return leaves


def leaves_without_visited_set(t):
    found, stack = {}, [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if hasattr(node, "variable"):
            found[id(node.variable)] = node.variable  # duplicates removed at the end
        stack.extend(child for child, _ in node.next_functions)
    return list(found.values())


def test_05_walking_every_path_of_a_diamond_chain_is_refused():
    nb05_grad_fn.check_find_leaves(leaves_with_visited_set)
    with pytest.raises(AssertionError, match="seen"):
        nb05_grad_fn.check_find_leaves(leaves_without_visited_set)


def test_the_guards_leave_the_library_as_they_found_it():
    from autogradkit.autograd import functional
    from autogradkit.tensor import Tensor

    before = (functional._jacobian_of, Tensor.backward)
    with pytest.raises(AssertionError):
        nb03_jacobians.check_jacobian(functional.jacobian)
    with pytest.raises(AssertionError):
        nb02_autograd.check_accumulated_grad(whole_batch_at_once)
    assert (functional._jacobian_of, Tensor.backward) == before
    assert np.allclose(jacobian_by_rows(lambda t: 3 * t, agk.ones(2)).numpy(), 3 * np.eye(2))


# ----- 06 ex. 3: the input's gradient from backward -----------------------------------------
def test_06_a_typed_in_input_gradient_is_refused():
    from autogradkit.grading.exercises import nb06_hooks

    inp = agk.tensor([1, 2, 3, 4], dtype=agk.float32, requires_grad=True)
    with pytest.raises(AssertionError, match="backward"):
        nb06_hooks.check_input_grad(inp, agk.tensor([2.0, 2.0, 2.0, 2.0]))
    linear, quarter = nb06_hooks._reference_net()
    quarter(linear(inp)).sum().backward()
    nb06_hooks.check_input_grad(inp, inp.grad)


# ----- 07 ex. 3: accuracy on data the student never saw -------------------------------------
def accuracy_computed(model, X, y):
    with agk.no_grad():
        predicted = model(X).argmax(dim=1)
    return (predicted == y).float().mean().item()


def test_07_a_typed_in_accuracy_is_refused():
    from autogradkit.grading.exercises import nb07_capstone

    nb07_capstone.check_accuracy(accuracy_computed)
    with pytest.raises(AssertionError):
        nb07_capstone.check_accuracy(lambda model, X, y: 5 / 8)
