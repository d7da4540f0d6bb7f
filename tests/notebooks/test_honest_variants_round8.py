"""Round 8's by-hand checks, against more honest answers written otherwise than the solutions.

A stand-in offers what the real object offers for the API the lesson taught. Each answer below
spells the solution otherwise, with what the notebooks showed of gradients (``dim()``,
``item()``, ``tolist()``, ``numpy()``), nodes (``next_functions``, ``name()``, ``variable``),
tensors (``requires_grad``, ``is_leaf``, ``grad_fn``) and plain Python, and each is also run on
the real kit's objects here, so that it is known to be right there too. Seen failing before
their fixes: 06's hooks with ``dim()``, ``numel()``, ``is_leaf`` or ``grad_fn``, and Cube with
``detach().numpy()``, ``mul_`` or ``dim()``."""

from __future__ import annotations

import collections
import functools
import itertools
import math

import numpy as np
import pytest

import autogradkit as agk

from .exercises import assert_passes, checks_of, reference_solution
from .test_exercises_07 import NOTEBOOK

pytestmark = pytest.mark.slow(29)  # honest answers judged on every seed, 05's and 07's walks

NB05, NB06, NB07 = "05_inside_grad_fn", "06_hooks", "07_capstone"


# ----- 06 ex2: capture intermediate gradients ----------------------------------------------------
def capture_by_dim(named, loss):
    """A 0-d gradient (the loss's own) kept as a number with ``item()``, found by ``dim()``."""
    captured, handles = {}, []
    for name, tensor in named.items():

        def store(grad, name=name):
            captured[name] = grad.item() if grad.dim() == 0 else grad.clone()

        handles.append(tensor.register_hook(store))
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


def capture_as_lists(named, loss):
    """Each gradient kept as Python numbers with ``tolist()``; a lambda that returns None."""
    captured = {}
    handles = [
        t.register_hook(lambda grad, name=name: captured.__setitem__(name, grad.tolist()))
        for name, t in named.items()
    ]
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


def capture_with_try_finally(named, loss):
    """Hooks made by ``functools.partial``, ``detach().clone()``, the handles removed in a
    ``finally`` (even if backward raised)."""
    captured, handles = {}, []
    for name, tensor in named.items():
        hook = functools.partial(lambda n, g: captured.update({n: g.detach().clone()}), name)
        handles.append(tensor.register_hook(hook))
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return captured


class Recorder:
    """A hook as an object: ``__call__`` stores a NumPy copy under the recorder's name."""

    def __init__(self, name, captured):
        self.name, self.captured = name, captured

    def __call__(self, grad):
        self.captured[self.name] = grad.numpy().copy()


def capture_with_a_class(named, loss):
    """Hooks that are ``Recorder`` objects; handles removed newest first."""
    captured = {}
    handles = [t.register_hook(Recorder(name, captured)) for name, t in named.items()]
    loss.backward()
    for handle in reversed(handles):
        handle.remove()
    return captured


def capture_only_non_leaves(named, loss):
    """Hooks only on tensors that need a gradient and are not leaves (``is_leaf``), as the
    lesson told which tensors keep no ``.grad``."""
    captured, handles = {}, []
    for name, tensor in named.items():
        if tensor.requires_grad and not tensor.is_leaf:

            def store(grad, name=name):
                captured[name] = grad * 1.0

            handles.append(tensor.register_hook(store))
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


def capture_checking_sizes(named, loss):
    """Each gradient checked against its tensor (``numel()``, ``shape``) before it is kept."""
    captured, handles = {}, []
    for name, tensor in named.items():

        def store(grad, name=name, tensor=tensor):
            assert grad.shape == tensor.shape and grad.numel() == tensor.numel()
            captured[name] = grad.clone()

        handles.append(tensor.register_hook(store))
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


def capture_where_there_is_a_grad_fn(named, loss):
    """Hooks only on tensors that were computed (``grad_fn is not None``); each hook hands the
    gradient it got back unchanged (``return grad``), which changes nothing."""
    captured, handles = {}, []
    for name, tensor in named.items():
        if tensor.grad_fn is None:
            continue

        def store(grad, name=name):
            captured[name] = grad.clone()
            return grad

        handles.append(tensor.register_hook(store))
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


CAPTURES = [
    capture_by_dim,
    capture_as_lists,
    capture_with_try_finally,
    capture_with_a_class,
    capture_only_non_leaves,
    capture_checking_sizes,
    capture_where_there_is_a_grad_fn,
]


@pytest.mark.parametrize("answer", CAPTURES)
def test_06_captures_are_right_on_the_kit(answer):
    x = agk.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * x
    u = h.tanh()
    loss = (u * h).sum()
    expected = agk.autograd.grad(loss, [h, u, loss], retain_graph=True)
    captured = answer({"h": h, "u": u, "loss": loss}, loss)
    for name, want in zip(("h", "u", "loss"), expected):
        assert np.allclose(np.asarray(captured[name], dtype=float), want.numpy())


@pytest.mark.parametrize("check_name", ["captured_grads", "captured_grads_twice"])
@pytest.mark.parametrize("answer", CAPTURES)
def test_06_honest_captures_pass(check_name, answer):
    check = getattr(checks_of(NB06), check_name)
    assert_passes(check, reference_solution(NB06, "nb06_ex2_capture"), capture_grads=answer)


# ----- 05 ex2: the leaves ------------------------------------------------------------------------
def leaves_where_nothing_comes_next(t):
    """A leaf's node is the one with empty ``next_functions``; ``dict.fromkeys`` keeps each
    leaf once, in the order met."""
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if not fn.next_functions:
            found.append(fn.variable)
        stack.extend(child for child, _ in fn.next_functions)
    return list(dict.fromkeys(found))


def leaves_by_the_last_part_of_the_name(t):
    """``name().split("::")[-1]``, ``itertools.chain`` over the children, leaves by ``id``."""
    leaves, seen, stack = {}, {id(t.grad_fn)}, [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn.name().split("::")[-1] == "AccumulateGrad":
            leaves.setdefault(id(fn.variable), fn.variable)
        for child in itertools.chain.from_iterable([fn.next_functions]):
            node = child[0]
            if node is not None and id(node) not in seen:
                seen.add(id(node))
                stack.append(node)
    return list(leaves.values())


def leaves_that_are_leaves(t):
    """Each candidate's own ``is_leaf``, ``requires_grad`` and ``grad_fn is None`` checked."""
    out, seen, todo = [], set(), collections.deque([t.grad_fn])
    while todo:
        fn = todo.popleft()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        leaf = getattr(fn, "variable", None)
        if leaf is not None and leaf.is_leaf and leaf.requires_grad and leaf.grad_fn is None:
            if not any(leaf is kept for kept in out):
                out.append(leaf)
        todo.extend(child for child, _ in fn.next_functions)
    return out


LEAF_WALKS = [leaves_where_nothing_comes_next, leaves_by_the_last_part_of_the_name]
LEAF_WALKS += [leaves_that_are_leaves]


@pytest.mark.parametrize("answer", LEAF_WALKS)
def test_05_leaf_walks_are_right_on_the_kit(answer):
    a, b = (agk.tensor([1.0, 2.0], requires_grad=True) for _ in range(2))
    s = (a * a).sin()
    root = s * b + s.cos() + b.exp()
    assert sorted(map(id, answer(root))) == sorted([id(a), id(b)])


@pytest.mark.parametrize("check_name", ["leaves_found", "leaves_found_twice"])
@pytest.mark.parametrize("answer", LEAF_WALKS)
def test_05_honest_leaf_walks_pass(check_name, answer):
    check = getattr(checks_of(NB05), check_name)
    assert_passes(check, reference_solution(NB05, "nb05_ex2_find_leaves"), find_leaves=answer)


# ----- 05 ex3: Cube's backward -------------------------------------------------------------------
class CubeThroughNumpy(agk.autograd.Function):
    """The derivative computed on the saved tensor's NumPy numbers (``detach().numpy()``)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (3 * x.detach().numpy() ** 2)


class CubeInPlace(agk.autograd.Function):
    """A copy of the saved tensor multiplied in place (``clone()``, ``mul_``)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = x.clone()
        grad.mul_(x)
        grad.mul_(3.0)
        return grad * grad_output


class CubeCheckingShapes(agk.autograd.Function):
    """Shapes checked (``shape``, ``dim()``) before the product, the gradient as a 1-tuple."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.pow(3)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        assert grad_output.shape == x.shape and grad_output.dim() == x.dim()
        return (3.0 * x * x * grad_output,)


CUBES = [CubeThroughNumpy, CubeInPlace, CubeCheckingShapes]


@pytest.mark.parametrize("answer", CUBES)
def test_05_cubes_are_right_on_the_kit(answer):
    x = agk.tensor([0.5, -1.5, 2.0], requires_grad=True)
    g = agk.tensor([1.0, 2.0, -3.0])
    answer.apply(x * 1.0).backward(g)
    assert np.allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2 * g.numpy())


@pytest.mark.parametrize("check_name", ["cube_function", "cube_used_twice"])
@pytest.mark.parametrize("answer", CUBES)
def test_05_honest_cubes_pass(check_name, answer):
    check = getattr(checks_of(NB05), check_name)
    assert_passes(check, reference_solution(NB05, "nb05_ex3_cube"), Cube=answer)


# ----- 05 ex6: the engine's order ----------------------------------------------------------------
def _arrows_into(root):
    """How many arrows point at each node reachable from ``root`` (a helper of the answer)."""
    arrows, seen, stack = collections.Counter(), {root}, [root]
    while stack:
        fn = stack.pop()
        for child, _ in fn.next_functions:
            if child is not None:
                arrows[child] += 1
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
    return arrows


def order_with_a_helper(t):
    """The counting in a helper function, a ``Counter`` keyed by the nodes themselves."""
    arrows, order, ready = _arrows_into(t.grad_fn), [], [t.grad_fn]
    while ready:
        fn = ready.pop()
        order.append(fn)
        for child, _ in fn.next_functions:
            if child is not None:
                arrows[child] -= 1
                if arrows[child] == 0:
                    ready.append(child)
    return order


class Schedule:
    """The engine's bookkeeping as a class: counts in ``__init__``, the order in ``run``."""

    def __init__(self, root):
        self.root, self.waiting = root, {}
        seen, stack = {id(root)}, [root]
        while stack:
            fn = stack.pop()
            for child in (c for c, _ in fn.next_functions if c is not None):
                self.waiting[id(child)] = self.waiting.get(id(child), 0) + 1
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)

    def run(self):
        order, ready = [], [self.root]
        while ready:
            fn = ready.pop()
            order.append(fn)
            for child, _ in fn.next_functions:
                if child is None:
                    continue
                self.waiting[id(child)] -= 1
                if not self.waiting[id(child)]:
                    ready.append(child)
        return order


def order_by_a_class(t):
    """``Schedule(t.grad_fn).run()``."""
    return Schedule(t.grad_fn).run()


ORDERS = [order_with_a_helper, order_by_a_class]


@pytest.mark.parametrize("answer", ORDERS)
def test_05_orders_are_right_on_the_kit(answer):
    reference = reference_solution(NB05, "nb05_ex6_order")["backward_order"]
    a, b = (agk.tensor([1.0, 2.0], requires_grad=True) for _ in range(2))
    s = (a * b).sin()
    root = s * s.cos() + a * a
    assert [id(fn) for fn in answer(root)] == [id(fn) for fn in reference(root)]


@pytest.mark.parametrize("check_name", ["engine_order", "engine_order_twice"])
@pytest.mark.parametrize("answer", ORDERS)
def test_05_honest_orders_pass(check_name, answer):
    check = getattr(checks_of(NB05), check_name)
    assert_passes(check, reference_solution(NB05, "nb05_ex6_order"), backward_order=answer)


# ----- 07 ex6: a topological order ---------------------------------------------------------------
def order_with_an_early_return(root):
    """A lone value returned at once; ``visited`` a dict; children pushed reversed."""
    if not root.children:
        return [root]
    order, visited, stack = [], {}, [(root, False)]
    while stack:
        value, expanded = stack.pop()
        if expanded:
            order.append(value)
        elif id(value) not in visited:
            visited[id(value)] = value
            stack.append((value, True))
            stack.extend((child, False) for child in reversed(value.children))
    return order


def order_by_counting_parents(root):
    """Kahn's way with ``dict.get``, from the root down, then ``list(reversed(...))``."""
    parents, seen, stack = {}, {root}, [root]
    while stack:
        value = stack.pop()
        for child in value.children:
            parents[child] = parents.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    down, ready = [], [root]
    while ready:
        value = ready.pop()
        down.append(value)
        for child in value.children:
            parents[child] -= 1
            if parents[child] == 0:
                ready.append(child)
    return list(reversed(down))


SORTS = [order_with_an_early_return, order_by_counting_parents]


@pytest.mark.parametrize("check_name", ["order_of_the_graph", "order_twice"])
@pytest.mark.parametrize("answer", SORTS)
def test_07_honest_topological_orders_pass(check_name, answer):
    check = getattr(checks_of(NB07), check_name)
    reference = reference_solution(NB07, "nb07_ex6_topological_order", **NOTEBOOK)
    assert_passes(check, reference, topological_order=answer)


# ----- 07 ex7: Value -----------------------------------------------------------------------------
class ValueWithMore:
    """More than asked: ``__repr__``, ``__pow__``, ``__truediv__``, ``exp``; tanh from
    ``exp``; its own sort in ``backward``, with a ``deque``."""

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad = float(data), 0.0
        self.children, self.local_grads = tuple(children), tuple(local_grads)

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    @staticmethod
    def _wrap(other):
        return other if isinstance(other, ValueWithMore) else ValueWithMore(other)

    def __add__(self, other):
        other = self._wrap(other)
        return ValueWithMore(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = self._wrap(other)
        return ValueWithMore(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k):
        return ValueWithMore(self.data**k, (self,), (k * self.data ** (k - 1),))

    def __truediv__(self, other):
        return self * self._wrap(other) ** -1

    __radd__, __rmul__ = __add__, __mul__

    def exp(self):
        e = math.exp(self.data)
        return ValueWithMore(e, (self,), (e,))

    def tanh(self):
        t = math.tanh(self.data)
        return ValueWithMore(t, (self,), (1.0 - t * t,))

    def relu(self):
        return ValueWithMore(self.data * (self.data > 0), (self,), (float(self.data > 0),))

    def backward(self):
        uses, seen, todo = collections.Counter(), {id(self)}, collections.deque([self])
        while todo:
            value = todo.pop()
            for child in value.children:
                uses[id(child)] += 1
                if id(child) not in seen:
                    seen.add(id(child))
                    todo.append(child)
        self.grad, ready = 1.0, [self]
        while ready:
            value = ready.pop()
            for child, local in zip(value.children, value.local_grads):
                child.grad += local * value.grad
                uses[id(child)] -= 1
                if uses[id(child)] == 0:
                    ready.append(child)


@pytest.mark.parametrize("check_name", ["engine_against_autogradkit", "engine_accumulates"])
def test_07_an_honest_engine_with_more_passes(check_name):
    check = getattr(checks_of(NB07), check_name)
    order = reference_solution(NB07, "nb07_ex6_topological_order", **NOTEBOOK)["topological_order"]
    reference = reference_solution(NB07, "nb07_ex7_value", **NOTEBOOK, topological_order=order)
    assert_passes(check, reference, Value=ValueWithMore)


# ----- 00 ex2, 01 ex1–3, 03 ex3: derivatives by hand, on plain numbers ---------------------------
def slope_with_numpy_names(x):
    """The power rule with NumPy's names: ``np.square``, ``np.multiply``, ``np.subtract``."""
    return np.subtract(np.multiply(3, np.square(x)), 2)


def backward_with_a_helper(w, x, y):
    """Each local derivative from a small helper of the answer; floats returned as a tuple."""

    def square_slope(s):
        return 2 * s

    residual = w * x - y
    dloss_ds, ds_dyhat, dyhat_dw = square_slope(residual), 1, x
    return dloss_ds, ds_dyhat, dyhat_dw, math.prod([dloss_ds, ds_dyhat, dyhat_dw])


def fit_line_in_place(x, y, lr, epochs):
    """``.mean()`` as a method, ``-=`` updates, ``float`` of a 0-d array, the error once."""
    w, b = 0.0, 0.0
    for _ in range(epochs):
        error = w * x + b - y
        dw, db = float((2 * error * x).mean()), float((2 * error).mean())
        w -= lr * dw
        b -= lr * db
    return w, b


def gradient_by_zip(x, y, y_hat):
    """The average written out: a generator over ``zip``, divided by ``len``."""
    return sum(2 * xi * xi * (p - t) for xi, t, p in zip(x, y, y_hat)) / len(x)


def jacobian_as_an_array(x0, x1):
    """The Jacobian as a NumPy array, rows built from the partials named one by one."""
    dy0_dx0, dy0_dx1 = x1**3, 3 * x0 * x1**2
    dy1_dx0, dy1_dx1 = 1.0, 3.0
    return np.array([[dy0_dx0, dy0_dx1], [dy1_dx0, dy1_dx1]])


def add_mul_grads_named(a, b, d):
    """Each partial named before it is returned; ``a + b`` as the sum of the two inputs."""
    grad_a = d  # de/da = d
    grad_b = d  # de/db = d
    grad_d = sum([a, b])  # de/dd = a + b
    return grad_a, grad_b, grad_d


def linear_by_hand_with_matmul(x, w, b):
    """``w @ x`` for the product, ``np.full_like`` for a weight gradient of x / 4 everywhere."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    result = (w @ x + b) * 0.25
    return result, x * np.full_like(x, 0.25), 1 / 4


NB00, NB01, NB03 = "00_start_here", "01_backprop_by_hand", "03_nonscalar_leaves_jacobians"
PLAIN = [  # notebook, its solution cell, the check, the answer's name, the answer
    (NB00, "nb00_ex2_by_hand", "slope_by_hand", "slope", slope_with_numpy_names),
    (NB01, "nb01_ex1_chain_rule", "chain_rule", "backward_by_hand", backward_with_a_helper),
    (NB01, "nb01_ex2_fit_line", "line_with_bias", "fit_line", fit_line_in_place),
    (NB01, "nb01_ex3_find_the_bug", "mean_gradient", "gradient_fixed", gradient_by_zip),
    (NB03, "nb03_ex3_vjp_by_hand", "vjp_written_by_hand", "jacobian_by_hand", jacobian_as_an_array),
    (NB05, "nb05_ex4_by_hand", "by_hand", "add_mul_grads", add_mul_grads_named),
    (NB06, "nb06_ex4_by_hand", "by_hand", "linear_by_hand", linear_by_hand_with_matmul),
]


@pytest.mark.parametrize(
    "notebook, grade_id, check_name, name, answer", PLAIN, ids=[row[1] for row in PLAIN]
)
def test_plain_answers_are_right_as_the_solutions_are(notebook, grade_id, check_name, name, answer):
    reference = reference_solution(notebook, grade_id)[name]
    args = {
        "slope": (np.array([-1.5, 0.0, 2.0]),),
        "backward_by_hand": (1.5, 2.0, -0.5),
        "fit_line": (np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.5, 7.0]), 0.05, 30),
        "gradient_fixed": (np.array([1.0, 2.0]), np.array([2.0, 4.0]), np.array([1.0, 5.0])),
        "jacobian_by_hand": (1.5, -2.0),
        "add_mul_grads": (1.5, -2.0, 0.5),
        "linear_by_hand": (np.array([1.0, -2.0, 0.5]), np.array([0.5, 1.5, -1.0]), 0.25),
    }[name]
    found, expected = answer(*args), reference(*args)
    if not isinstance(expected, tuple):  # one result, not several
        found, expected = (found,), (expected,)
    assert len(found) == len(expected)
    for got, want in zip(found, expected):
        assert np.allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float))


@pytest.mark.parametrize(
    "notebook, grade_id, check_name, name, answer", PLAIN, ids=[row[1] for row in PLAIN]
)
def test_honest_plain_answers_pass(notebook, grade_id, check_name, name, answer):
    check = getattr(checks_of(notebook), check_name)
    assert_passes(check, reference_solution(notebook, grade_id), **{name: answer})
