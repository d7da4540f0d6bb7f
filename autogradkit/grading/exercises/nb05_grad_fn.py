"""Checkers for notebook 05: grad_fn, next_functions, AccumulateGrad and custom Functions."""

from __future__ import annotations

import numpy as np

from ...autograd.gradcheck import gradcheck
from ...creation import tensor
from ..checks import check_close, check_gradients, check_true, time_limit
from ._common import require


def _levels() -> tuple[list, list, list]:
    p = tensor(2.0, requires_grad=True)
    q = tensor(3.0)
    r = tensor(1.0, requires_grad=True)
    y = (p * q).exp() + r

    def names(node) -> list:
        return [None if n is None else type(n).__name__ for n, _ in node.next_functions]

    first = y.grad_fn.next_functions[0][0]
    second = first.next_functions[0][0]
    return names(y.grad_fn), names(first), names(second)


def check_predicted_levels(level_1, level_2, level_3) -> None:
    """Exercise 1: class names three levels deep in y = (p * q).exp() + r."""
    want = _levels()
    hints = (
        "what did the last operation, +, receive as inputs?",
        "which operation produced the input of exp?",
        "q does not require grad",
    )
    levels = zip((level_1, level_2, level_3), want, hints, strict=True)
    for number, (got, expected, hint) in enumerate(levels, 1):
        check_true(f"level {number}", list(got) == expected, hint=hint)


def check_predicted_levels_are_lists(level_1, level_2, level_3) -> None:
    """Exercise 1, hidden: lists of class-name strings (or None)."""

    def names_only(level) -> bool:
        if not isinstance(level, (list, tuple)):
            return False
        return all(n is None or isinstance(n, str) for n in level)

    ok = all(names_only(level) for level in (level_1, level_2, level_3))
    check_true("lists of names", ok, hint="write lists such as ['XBackward0', None]")


def _same_leaves(task: str, found, expected: list) -> None:
    require(task, isinstance(found, (list, tuple)), hint="return a list of tensors")
    ids = [id(t) for t in found]
    require(task, len(ids) == len(set(ids)), hint="each leaf must appear only once")
    check_true(
        task,
        set(ids) == {id(t) for t in expected},
        hint="return the leaf tensors themselves (node.variable), all of them",
    )


def check_find_leaves(find_leaves) -> None:
    """Exercise 2: e = (a + b) * d, and a graph that reuses a leaf (x * x + x)."""
    a, b, d = (tensor(v, requires_grad=True) for v in (2.0, 3.0, 4.0))
    _same_leaves("leaves of (a + b) * d", find_leaves((a + b) * d), [a, b, d])
    x, k = tensor(1.5, requires_grad=True), tensor(2.0)
    _same_leaves("leaves of x * x * k + x", find_leaves(x * x * k + x), [x])
    _check_diamonds(find_leaves, 40)


def _check_diamonds(find_leaves, count: int) -> None:
    """z = z + z, ``count`` times: 2**count paths from the top, but only count + 2 nodes."""
    u = tensor(1.0, requires_grad=True)
    z = u * 1.0
    for _ in range(count):
        z = z + z
    task = f"leaves of {count} diamonds in a row"
    try:
        with time_limit(2.0):
            found = find_leaves(z)
    except TimeoutError:
        check_true(
            task,
            False,
            hint="a node reached along two paths is walked again and "
            "again: keep a set of the nodes you have already seen",
        )
    _same_leaves(task, found, [u])


def check_find_leaves_deep(find_leaves) -> None:
    """Exercise 2, hidden: a 5,000-step chain (no recursion) and many shared paths."""
    x = tensor(1.0, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0
    _same_leaves("a chain of 5,000 operations", find_leaves(y), [x])
    u, v = tensor(1.0, requires_grad=True), tensor(2.0, requires_grad=True)
    z = u * v
    for _ in range(18):
        z = z + z
    _same_leaves("a graph with 262,144 paths", find_leaves(z), [u, v])


def check_cube(cube) -> None:
    """Exercise 3: forward values, gradients and the node's name."""
    x = tensor([1.0, 2.0, -0.5], requires_grad=True)
    y = cube.apply(x)
    check_close("Cube forward", y.detach(), np.array([1.0, 8.0, -0.125]))
    check_true(
        "the node is CubeBackward",
        type(y.grad_fn).__name__ == "CubeBackward",
        hint="call it through Cube.apply(x)",
    )
    (y * tensor([1.0, 0.5, 2.0])).sum().backward()
    expected = 3 * np.array([1.0, 4.0, 0.25]) * np.array([1.0, 0.5, 2.0])
    check_gradients(
        "Cube backward", {"x": x}, {"x": expected}, hint="grad_output times the derivative of x³"
    )


def check_cube_gradcheck(cube) -> None:
    """Exercise 3, hidden: gradcheck in float64 at random points."""
    values = np.random.default_rng(5).normal(size=4)
    x = tensor(values, requires_grad=True)
    check_true("gradcheck(Cube)", gradcheck(cube.apply, (x,), raise_exception=False))


def check_add_mul_by_hand(a_grad, b_grad, d_grad) -> None:
    """Exercise 4: e = (a + b) * d at a = 1, b = -2, d = 3."""
    a, b, d = (tensor(v, requires_grad=True) for v in (1.0, -2.0, 3.0))
    ((a + b) * d).backward()
    check_close("a.grad", a_grad, a.grad, hint="the addition passes the gradient on unchanged")
    check_close("b.grad", b_grad, b.grad, hint="b enters exactly like a")
    check_close("d.grad", d_grad, d.grad, hint="∂e/∂d is the other factor, c = a + b")


def check_add_mul_numbers(a_grad, b_grad, d_grad) -> None:
    """Exercise 4, hidden: plain numbers."""
    check_true(
        "three numbers",
        all(np.ndim(v) == 0 for v in (a_grad, b_grad, d_grad)),
        hint="type plain numbers",
    )
