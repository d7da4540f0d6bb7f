"""``kit_calls`` sees what of the kit an answer ran, by any route: a name kept before the
check, an import inside the answer, a private helper, and a profiler switched off."""

from __future__ import annotations

import sys

import autogradkit as agk
from autogradkit.autograd import targets
from autogradkit.grading.checks import kit_calls

KEPT_WALK = agk.autograd.graph.walk  # kept before the check, as a notebook cell may


def _graph():
    a = agk.tensor([1.0, 2.0], requires_grad=True)
    return ((a * a).sin() + a).sum()


def leaves_by_hand(t):
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


def leaves_by_a_kept_walk(t):
    return [n.variable for n in KEPT_WALK(t.grad_fn) if hasattr(n, "variable")]


def leaves_by_an_import_inside(t):
    from autogradkit.autograd.graph import walk

    return [n.variable for n in walk(t.grad_fn) if hasattr(n, "variable")]


def leaves_by_the_engines_own_walk(t):
    every = targets.nodes_leading_to([t.grad_fn], set())  # empty: nothing leads to no target
    return [n.variable for n in every if hasattr(n, "variable")]


def leaves_unwatched(t):
    watching = sys.getprofile()
    list(map(sys.setprofile, [None]))  # through C code: no call event to see
    try:
        return leaves_by_a_kept_walk(t)
    finally:
        list(map(sys.setprofile, [watching]))


ALLOWED = ("grad_fn", "variable", "name")


def test_a_walk_by_hand_calls_nothing_of_the_kit_but_its_attributes():
    t = _graph()
    with kit_calls(*ALLOWED) as calls:
        assert len(leaves_by_hand(t)) == 1
    assert calls == []


def test_every_route_to_a_library_walk_shows():
    for shortcut, name in (
        (leaves_by_a_kept_walk, "walk"),
        (leaves_by_an_import_inside, "walk"),
        (leaves_by_the_engines_own_walk, "nodes_leading_to"),
    ):
        t = _graph()
        with kit_calls(*ALLOWED) as calls:
            shortcut(t)
        assert name in calls, (shortcut.__name__, calls)


def test_a_profiler_switched_off_and_back_shows():
    t = _graph()
    with kit_calls(*ALLOWED) as calls:
        assert len(leaves_unwatched(t)) == 1
    assert "sys.setprofile" in calls
    assert sys.getprofile() is None  # and the watch ends with the block


def test_a_package_narrows_what_counts():
    w = agk.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with kit_calls(package="autogradkit.optim") as calls:
        with agk.no_grad():
            w -= 0.1 * w.grad  # the kit's tensors, not its optimizers
    assert calls == []
    with kit_calls(package="autogradkit.optim") as calls:
        agk.optim.SGD([w], lr=0.1).step()
    assert calls == ["Optimizer.step", "SGD.__init__"]
