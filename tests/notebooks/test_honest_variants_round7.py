"""Round 7's by-hand checks, against honest answers written otherwise than the solutions.

Six exercises' answers now run by hand, on stand-ins a check builds from data (05's graph
nodes, Cube's ctx, saved tensors and ``grad_output``; 07's Values, and 07's Value class as what
it holds), or where part of the kit was never imported (03's Jacobian). A stand-in offers what
the real object offers for the API the lesson taught: an honest student who spells the answer
otherwise than the solution (another loop, another container, another name of the same method)
must pass as the solution does, on every seed. Each answer below is one a student could write
from the lesson. Seen failing before their fixes: Cube with ``ctx.needs_input_grad``, ``.data``
or ``detach().clone()``, and a Value with ``__slots__``.
"""

from __future__ import annotations

import collections
import math

import pytest

import autogradkit as agk

from .exercises import assert_passes, checks_of, reference_solution
from .test_exercises_07 import NOTEBOOK

pytestmark = pytest.mark.slow(35)  # honest answers judged on every seed, 05's and 07's walks

NB03, NB05, NB07 = "03_nonscalar_leaves_jacobians", "05_inside_grad_fn", "07_capstone"


# ----- 03 ex4: a Jacobian from backward passes -------------------------------------------------
def jacobian_by_autograd_grad(f, x):
    """Rows from ``autograd.grad`` of each output, the graph kept."""
    x_leaf = x.clone().detach().requires_grad_(True)
    y = f(x_leaf)
    rows = []
    for i in range(y.shape[0]):
        (row,) = agk.autograd.grad(y[i], x_leaf, retain_graph=True)
        rows.append(row)
    return agk.stack(rows)


def jacobian_into_zeros(f, x):
    """A zero matrix filled row by row; one-hot rows of ``eye``; ``.grad.zero_()`` between."""
    x_leaf = agk.tensor(x.detach().numpy(), requires_grad=True)
    y = f(x_leaf)
    m, n = y.numel(), x_leaf.numel()
    jac = agk.zeros(m, n)
    basis = agk.eye(m)
    for i in range(m):
        y.backward(gradient=basis[i], retain_graph=True)
        jac[i] = x_leaf.grad
        x_leaf.grad.zero_()
    return jac


def jacobian_by_grad_outputs(f, x):
    """``autograd.grad`` with a one-hot ``grad_outputs``, rows kept as NumPy, joined once."""
    x_leaf = x.detach().clone()
    x_leaf.requires_grad = True
    y = f(x_leaf)
    rows = []
    for i in range(len(y)):
        one_hot = agk.zeros_like(y)
        one_hot[i] = 1
        grad = agk.autograd.grad(y, x_leaf, grad_outputs=one_hot, retain_graph=True)[0]
        rows.append(grad.detach().numpy().copy())
    return agk.tensor(rows)


@pytest.mark.parametrize("check_name", ["jacobian_rows", "jacobian_of_a_parameter"])
@pytest.mark.parametrize(
    "answer", [jacobian_by_autograd_grad, jacobian_into_zeros, jacobian_by_grad_outputs]
)
def test_03_honest_jacobians_pass(check_name, answer):
    check = getattr(checks_of(NB03), check_name)
    assert_passes(check, reference_solution(NB03, "nb03_ex4_jacobian"), jacobian=answer)


# ----- 05 ex2: the leaves, by a walk with a stack ----------------------------------------------
def leaves_with_a_deque(t):
    """A deque, ``name()`` read (``autogradkit::autograd::AccumulateGrad``, as ``show_graph``
    prints it), a set of the nodes themselves."""
    leaves, visited = [], set()
    todo = collections.deque([t.grad_fn])
    while todo:
        fn = todo.pop()
        if fn is None or fn in visited:
            continue
        visited.add(fn)
        if fn.name().endswith("AccumulateGrad"):
            leaves.append(fn.variable)
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                todo.append(next_fn)
    return leaves


def leaves_by_class_name(t):
    """``type(fn).__name__``, ``getattr`` with a default, entries indexed, leaves kept by id."""
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found, seen, stack = {}, {id(t.grad_fn)}, [t.grad_fn]
    while stack:
        fn = stack.pop()
        if type(fn).__name__ == "AccumulateGrad":
            leaf = getattr(fn, "variable", None)
            found[id(leaf)] = leaf
        for entry in fn.next_functions:
            child = entry[0]
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return list(found.values())


def leaves_checked_as_leaves(t):
    """``hasattr(fn, "variable")``, then the leaf's own ``is_leaf`` and ``requires_grad``."""
    leaves, seen = [], []
    stack = [t.grad_fn] if t.grad_fn is not None else []
    visited = set()
    while stack:
        fn = stack.pop()
        if id(fn) in visited:
            continue
        visited.add(id(fn))
        if hasattr(fn, "variable") and fn.variable.is_leaf and fn.variable.requires_grad:
            if id(fn.variable) not in seen:
                seen.append(id(fn.variable))
                leaves.append(fn.variable)
        stack += [next_fn for next_fn, _ in fn.next_functions if next_fn is not None]
    return leaves


def leaves_by_what_printing_shows(t):
    """What printing a node shows (``<AccumulateGrad object at 0x...>``, as the lesson prints
    ``grad_fn``), ``type(fn)`` as it prints, and the root's own ``is_leaf``."""
    if t.is_leaf:
        return [t]
    leaves, stack, seen = [], [t.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if repr(fn).startswith("<AccumulateGrad object at ") and "AccumulateGrad'>" in str(
            type(fn)
        ):
            if all(leaf is not fn.variable for leaf in leaves):
                leaves.append(fn.variable)
        stack.extend(child for child, _ in fn.next_functions)
    return leaves


@pytest.mark.parametrize("check_name", ["leaves_found", "leaves_found_twice"])
@pytest.mark.parametrize(
    "answer",
    [
        leaves_with_a_deque,
        leaves_by_class_name,
        leaves_checked_as_leaves,
        leaves_by_what_printing_shows,
    ],
)
def test_05_honest_leaf_walks_pass(check_name, answer):
    check = getattr(checks_of(NB05), check_name)
    assert_passes(check, reference_solution(NB05, "nb05_ex2_find_leaves"), find_leaves=answer)


# ----- 05 ex3: Cube's backward -----------------------------------------------------------------
class CubeUnpacked(agk.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad_output


class CubeByPow(agk.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.pow(3)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return grad_output * 3 * x.pow(2)


class CubeByMethods(agk.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors  # fmt: skip
        return grad_output.mul(x.mul(x)).mul(3)


class CubeWithNeedsInputGrad(agk.autograd.Function):
    """PyTorch's documented pattern: a gradient only for an input that needs one."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = x * x * 3 * grad_output
        return grad_x


class CubeThroughData(agk.autograd.Function):
    """The saved tensor's numbers read through ``.data`` (notebook 04's back door)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0].data
        return grad_output * 3 * x.square()


class CubeOnADetachedCopy(agk.autograd.Function):
    """The saved tensor detached and copied before use (nothing of backward recorded)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        x = x.detach().clone()
        return grad_output.mul(3).mul(x.pow(2))


@pytest.mark.parametrize("check_name", ["cube_function", "cube_used_twice"])
@pytest.mark.parametrize(
    "answer",
    [
        CubeUnpacked,
        CubeByPow,
        CubeByMethods,
        CubeWithNeedsInputGrad,
        CubeThroughData,
        CubeOnADetachedCopy,
    ],
)
def test_05_honest_cubes_pass(check_name, answer):
    check = getattr(checks_of(NB05), check_name)
    assert_passes(check, reference_solution(NB05, "nb05_ex3_cube"), Cube=answer)


# ----- 05 ex6: the engine's order --------------------------------------------------------------
def order_with_a_defaultdict(t):
    """Arrows counted into a ``defaultdict`` keyed by the nodes, then the ready list."""
    counts = collections.defaultdict(int)
    stack, visited = [t.grad_fn], {t.grad_fn}
    while stack:
        fn = stack.pop()
        for next_fn, _ in fn.next_functions:
            if next_fn is None:
                continue
            counts[next_fn] += 1
            if next_fn not in visited:
                visited.add(next_fn)
                stack.append(next_fn)
    order, ready = [], [t.grad_fn]
    while ready:
        fn = ready.pop()
        order.append(fn)
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                counts[next_fn] -= 1
                if counts[next_fn] == 0:
                    ready.append(next_fn)
    return order


def order_by_ids(t):
    """Counts keyed by ``id``, entries read by index, the ready list a deque popped on the right."""
    root = t.grad_fn
    pending, seen, stack = {}, {id(root)}, [root]
    while stack:
        fn = stack.pop()
        for i in range(len(fn.next_functions)):
            child = fn.next_functions[i][0]
            if child is None:
                continue
            pending[id(child)] = pending.get(id(child), 0) + 1
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    order, ready = [], collections.deque([root])
    while len(ready) > 0:
        fn = ready.pop()
        order.append(fn)
        for child, _ in fn.next_functions:
            if child is None:
                continue
            pending[id(child)] -= 1
            if pending[id(child)] == 0:
                ready.append(child)
    return order


@pytest.mark.parametrize("check_name", ["engine_order", "engine_order_twice"])
@pytest.mark.parametrize("answer", [order_with_a_defaultdict, order_by_ids])
def test_05_honest_engine_orders_pass(check_name, answer):
    check = getattr(checks_of(NB05), check_name)
    assert_passes(check, reference_solution(NB05, "nb05_ex6_order"), backward_order=answer)


# ----- 07 ex6: a topological order -------------------------------------------------------------
def order_by_counting(root):
    """The lesson's second way: dependency counts, a deque, the list reversed at the end."""
    uses, seen, stack = collections.Counter(), {id(root)}, [root]
    while stack:
        value = stack.pop()
        for child in value.children:
            uses[id(child)] += 1
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    order, ready = [], collections.deque([root])
    while ready:
        value = ready.popleft()
        order.append(value)
        for child in value.children:
            uses[id(child)] -= 1
            if uses[id(child)] == 0:
                ready.append(child)
    order.reverse()
    return order


def order_by_a_stack_of_iterators(root):
    """Depth first, a stack of (value, iterator over its children), a set of the values."""
    order, visited = [], {root}
    stack = [(root, iter(root.children))]
    while stack:
        value, children = stack[-1]
        for child in children:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child.children)))
                break
        else:
            stack.pop()
            order.append(value)
    return order


def topological_order(root):
    """The lesson's first way, with a list of pairs and ``visited`` a set of the values."""
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        value, done = stack.pop()
        if done:
            order.append(value)
            continue
        if value in visited:
            continue
        visited.add(value)
        stack.append((value, True))
        for child in value.children:
            if child not in visited:
                stack.append((child, False))
    return order


@pytest.mark.parametrize("check_name", ["order_of_the_graph", "order_twice"])
@pytest.mark.parametrize(
    "answer", [order_by_counting, order_by_a_stack_of_iterators, topological_order]
)
def test_07_honest_topological_orders_pass(check_name, answer):
    check = getattr(checks_of(NB07), check_name)
    reference = reference_solution(NB07, "nb07_ex6_topological_order", **NOTEBOOK)
    assert_passes(check, reference, topological_order=answer)


# ----- 07 ex7: Value ---------------------------------------------------------------------------
class ValueWithItsOwnSort:
    """``__radd__``/``__rmul__`` as methods, ``__neg__`` and ``__sub__`` too, lists of local
    gradients, and the sort written inside ``backward`` (a stack, a set of ids)."""

    def __init__(self, data, children=(), local_grads=()):
        self.data = float(data)
        self.grad = 0.0
        self.children = children
        self.local_grads = local_grads

    def __add__(self, other):
        if not isinstance(other, ValueWithItsOwnSort):
            other = ValueWithItsOwnSort(other)
        return ValueWithItsOwnSort(self.data + other.data, [self, other], [1.0, 1.0])

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        if not isinstance(other, ValueWithItsOwnSort):
            other = ValueWithItsOwnSort(other)
        return ValueWithItsOwnSort(self.data * other.data, [self, other], [other.data, self.data])

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def tanh(self):
        t = math.tanh(self.data)
        return ValueWithItsOwnSort(t, [self], [1 - t**2])

    def relu(self):
        return ValueWithItsOwnSort(
            self.data if self.data > 0 else 0.0, [self], [float(self.data > 0)]
        )

    def backward(self):
        order, met, stack = [], set(), [(self, False)]
        while stack:
            value, ready = stack.pop()
            if ready:
                order.append(value)
            elif id(value) not in met:
                met.add(id(value))
                stack.append((value, True))
                stack.extend((child, False) for child in value.children)
        self.grad = 1.0
        for value in reversed(order):
            for child, local in zip(value.children, value.local_grads):
                child.grad += local * value.grad


class ValueByTheNotebooksSort:
    """Numbers told apart with ``isinstance(other, (int, float))``, tanh from ``math.exp``, and
    ``backward`` over the notebook's ``topological_order`` (here, the one above)."""

    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self.children = tuple(children)
        self.local_grads = tuple(local_grads)

    def __add__(self, other):
        if isinstance(other, (int, float)):
            other = ValueByTheNotebooksSort(other)
        return ValueByTheNotebooksSort(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        if isinstance(other, (int, float)):
            other = ValueByTheNotebooksSort(other)
        return ValueByTheNotebooksSort(
            self.data * other.data, (self, other), (other.data, self.data)
        )

    __radd__ = __add__
    __rmul__ = __mul__

    def tanh(self):
        e = math.exp(2 * self.data)
        t = (e - 1) / (e + 1)
        return ValueByTheNotebooksSort(t, (self,), (1 - t * t,))

    def relu(self):
        return ValueByTheNotebooksSort(
            max(0.0, self.data), (self,), (1.0 if self.data > 0 else 0.0,)
        )

    def backward(self):
        self.grad = 1
        for value in topological_order(self)[::-1]:
            for child, local_grad in zip(value.children, value.local_grads):
                child.grad = child.grad + local_grad * value.grad


@pytest.mark.parametrize("check_name", ["engine_against_autogradkit", "engine_accumulates"])
@pytest.mark.parametrize("answer", [ValueWithItsOwnSort, ValueByTheNotebooksSort])
def test_07_honest_engines_pass(check_name, answer):
    check = getattr(checks_of(NB07), check_name)
    order = reference_solution(NB07, "nb07_ex6_topological_order", **NOTEBOOK)["topological_order"]
    reference = reference_solution(NB07, "nb07_ex7_value", **NOTEBOOK, topological_order=order)
    assert_passes(check, reference, Value=answer)


class ValueWithSlots:
    """``__slots__`` for the four fields, ``max`` for relu."""

    __slots__ = ("data", "grad", "children", "local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad = float(data), 0.0
        self.children, self.local_grads = children, local_grads

    def __add__(self, other):
        other = other if isinstance(other, ValueWithSlots) else ValueWithSlots(other)
        return ValueWithSlots(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, ValueWithSlots) else ValueWithSlots(other)
        return ValueWithSlots(self.data * other.data, (self, other), (other.data, self.data))

    __radd__, __rmul__ = __add__, __mul__

    def tanh(self):
        t = math.tanh(self.data)
        return ValueWithSlots(t, (self,), (1.0 - t * t,))

    def relu(self):
        return ValueWithSlots(max(self.data, 0.0), (self,), (1.0 if self.data > 0 else 0.0,))

    def backward(self):
        self.grad = 1.0
        for value in reversed(topological_order(self)):
            for child, local_grad in zip(value.children, value.local_grads):
                child.grad += local_grad * value.grad


class ValueWithClosures:
    """micrograd's way: each operation leaves a ``_backward`` closure; ``children`` kept too."""

    def __init__(self, data, children=()):
        self.data, self.grad, self.children = float(data), 0.0, tuple(children)
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, ValueWithClosures) else ValueWithClosures(other)
        out = ValueWithClosures(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, ValueWithClosures) else ValueWithClosures(other)
        out = ValueWithClosures(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def tanh(self):
        t = math.tanh(self.data)
        out = ValueWithClosures(t, (self,))

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = ValueWithClosures(self.data if self.data > 0 else 0.0, (self,))

        def _backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        self.grad = 1.0
        for value in reversed(topological_order(self)):
            value._backward()


@pytest.mark.parametrize("check_name", ["engine_against_autogradkit", "engine_accumulates"])
@pytest.mark.parametrize("answer", [ValueWithSlots, ValueWithClosures])
def test_07_honest_engines_of_other_shapes_pass(check_name, answer):
    check = getattr(checks_of(NB07), check_name)
    order = reference_solution(NB07, "nb07_ex6_topological_order", **NOTEBOOK)["topological_order"]
    reference = reference_solution(NB07, "nb07_ex7_value", **NOTEBOOK, topological_order=order)
    assert_passes(check, reference, Value=answer)
