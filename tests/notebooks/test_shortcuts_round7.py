"""Round 7 of issue 29's principle: the record of what ran, emptied where it is still kept.

Round 6 moved 04's answers out of the kernel (``obs.without``); six exercises still ran the
answer in the kernel, beside ``kit_calls``' record of what of the kit it ran. Each attack below
is a whole answer a student who wants the marks without the lesson could hand in: it lets the
kit do the lesson's work, then empties that record (the profiler's set of seen functions, found
through its closure, or through the closure of ``recursion_limit``'s profiler, which chains it).
Each was seen passing first, judged as ``grade`` judges, then closed by a principle, never by a
list of its names:

* **03 ex4** (a Jacobian from backward passes): the library's ``functional.jacobian``, its
  refused names put back from a copy kept at the top of the notebook. ``jacobian`` now runs,
  with the check's trial around it, where ``autograd.functional`` and ``gradcheck`` were never
  imported (``obs.without``).
* **05 ex2 and ex6** (a walk of the graph): ``autograd.graph.walk``, and the engine's own order
  read off ``viz.trace_backward``. The walk now runs by hand, in an interpreter without the kit,
  over stand-ins of the graph's nodes made from it as data (``next_functions``, ``variable``,
  ``name()``): there is no walk, engine or tracer there to call.
* **05 ex3** (Cube's backward): the library's own node for ``x ** 3`` called for its local
  derivative. Cube's backward now also runs by hand, on stand-ins of the tensors its node saved
  and of ``grad_output`` (arrays with the methods of arithmetic): there is no node, gradient or
  engine there to find the derivative for it.
* **07 ex7** (an engine of your own): round 4's Value of autogradkit's tensors that puts back
  what the check swapped, its backward now emptying the record too. Value now runs by hand,
  with the check's builds around it: a class of the notebook crosses as what it holds (its
  methods, rebuilt from their cells; a method set on it later too), and there is no autogradkit
  there at all.

* **06 ex2** (gradients captured with hooks): ``retain_grad()`` and ``.grad`` read back, beside
  hooks that do nothing but get counted. ``capture_grads`` now runs by hand, on stand-ins of the
  named tensors and of the loss, whose ``backward()`` runs their hooks with the gradients the
  check computed: there is no ``retain_grad``, ``.grad`` or ``autograd.grad`` there.

And the next instance, found in this round's hunt:

* **07 ex6** (a topological order): the check made every node itself, leaves first, and kept
  them in a list in its own frame, a topological order already: read off the call stack
  (``sys._getframe``), it passed ``order_of_the_graph`` on every seed. The sort now runs by
  hand, on stand-ins made from the graph as data (children only): the check's frames are in
  another interpreter.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import autogradkit as agk

from .exercises import assert_passes, assert_refused, checks_of, solution
from .test_exercises_07 import NOTEBOOK
from .test_shortcuts_round4 import AutogradkitInside, _capstone

pytestmark = pytest.mark.slow(20)  # 07's shortcuts judged on every seed

# kept at the top of the notebook, before any check ran (as a cell may)
KEPT_FUNCTIONAL = dict(vars(agk.autograd.functional))
WALK = agk.autograd.graph.walk
TRACE = agk.viz.trace_backward


def _reference(notebook: str, *grade_ids: str, **namespace) -> dict:
    found = {}
    for grade_id in grade_ids:
        found.update(solution(notebook, grade_id, **namespace))
    return found


def empty_the_record() -> None:
    """What ``kit_calls`` saw so far, cleared: each set in the closures of the profilers in
    place (``recursion_limit``'s chains ``kit_calls``': followed through its closure too)."""
    todo = [sys.getprofile(), threading.getprofile()]
    while todo:
        function = todo.pop()
        for cell in getattr(function, "__closure__", None) or ():
            if isinstance(cell.cell_contents, set):
                cell.cell_contents.clear()
            elif callable(cell.cell_contents):
                todo.append(cell.cell_contents)


# ----- 03 ex4: the library's Jacobian ----------------------------------------------------------
def jacobian_of_the_library(f, x):
    functional = agk.autograd.functional
    refused = {name: vars(functional)[name] for name in KEPT_FUNCTIONAL}
    vars(functional).update(KEPT_FUNCTIONAL)  # the names the check refused, put back
    try:
        return functional.jacobian(f, x.detach().clone())
    finally:
        vars(functional).update(refused)
        empty_the_record()


@pytest.mark.parametrize("check_name", ["jacobian_rows", "jacobian_of_a_parameter"])
def test_03_the_librarys_jacobian_with_its_record_emptied_is_refused(check_name):
    notebook = "03_nonscalar_leaves_jacobians"
    check = getattr(checks_of(notebook), check_name)
    reference = _reference(notebook, "nb03_ex4_jacobian")
    assert_refused(check, reference, "", jacobian=jacobian_of_the_library)
    assert_passes(check, reference)


# ----- 05 ex2 and ex6: the library's walk, the engine's own order ------------------------------
def leaves_by_the_librarys_walk(t):
    leaves = [node.variable for node in WALK(t.grad_fn) if hasattr(node, "variable")]
    empty_the_record()
    return leaves


def order_read_off_the_engine(t):
    order = [step.node for step in TRACE(t, agk.ones_like(t)).steps]
    empty_the_record()
    return order


@pytest.mark.parametrize("check_name", ["leaves_found", "leaves_found_twice"])
def test_05_a_library_walk_with_its_record_emptied_is_refused(check_name):
    notebook = "05_inside_grad_fn"
    check = getattr(checks_of(notebook), check_name)
    reference = _reference(notebook, "nb05_ex2_find_leaves")
    assert_refused(check, reference, "do it yourself", find_leaves=leaves_by_the_librarys_walk)
    assert_passes(check, reference)


@pytest.mark.parametrize("check_name", ["engine_order", "engine_order_twice"])
def test_05_the_engines_own_order_with_its_record_emptied_is_refused(check_name):
    notebook = "05_inside_grad_fn"
    check = getattr(checks_of(notebook), check_name)
    reference = _reference(notebook, "nb05_ex6_order")
    assert_refused(check, reference, "do it yourself", backward_order=order_read_off_the_engine)
    assert_passes(check, reference)


# ----- 05 ex3: Cube's backward, by the library's own node --------------------------------------
class CubeByANodeThenEmptied(agk.autograd.Function):
    """backward calls the library's node for x ** 3 (its local derivative), then empties the
    record of what it ran."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with agk.enable_grad():
            cube = x.detach().requires_grad_() ** 3
        with agk.no_grad():
            found = cube.grad_fn(grad_output)[0]
        empty_the_record()
        return found


@pytest.mark.parametrize("check_name", ["cube_function", "cube_used_twice"])
def test_05_cubes_backward_by_a_library_node_with_its_record_emptied_is_refused(check_name):
    notebook = "05_inside_grad_fn"
    check = getattr(checks_of(notebook), check_name)
    reference = _reference(notebook, "nb05_ex3_cube")
    assert_refused(check, reference, "", Cube=CubeByANodeThenEmptied)
    assert_passes(check, reference)


# ----- 07 ex7: an engine of autogradkit's tensors, its record emptied ---------------------------
class AutogradkitInsideThenEmptied(AutogradkitInside):
    """Round 4's Value that puts back what the check swapped and lets autogradkit's tensors and
    engine work; now its backward empties the record of what it ran, too."""

    def backward(self):
        super().backward()
        empty_the_record()


def test_07_an_engine_of_autogradkit_with_its_record_emptied_is_refused():
    reference = _capstone()
    capstone = checks_of("07_capstone")
    for check in (capstone.engine_against_autogradkit, capstone.engine_accumulates):
        assert_refused(check, reference, "", Value=AutogradkitInsideThenEmptied)
        assert_passes(check, reference)


# ----- 07 ex6: the check's own list of the nodes it made, read off the call stack --------------
def order_from_the_checks_own_list(root):
    """The check made every node in order, leaves first: its list is a topological order."""
    frame = sys._getframe(1)
    while frame is not None:
        made = frame.f_locals.get("nodes")
        if isinstance(made, list) and made and made[-1] is root:
            return list(made)
        frame = frame.f_back
    return [root]


def test_07_the_checks_own_list_of_nodes_is_refused():
    notebook = "07_capstone"
    check = checks_of(notebook).order_of_the_graph
    reference = _reference(notebook, "nb07_ex6_topological_order", **NOTEBOOK)
    assert_refused(check, reference, "", topological_order=order_from_the_checks_own_list)
    assert_passes(check, reference)


# ----- 06 ex2: gradients read back from .grad, beside idle hooks -------------------------------
def capture_by_retain_grad_then_emptied(named, loss):
    """retain_grad() and .grad read back (what the lesson's hooks are for), idle hooks to be
    counted, then the record of what ran emptied."""
    handles = [t.register_hook(lambda g: None) for t in named.values()]
    for t in named.values():
        t.retain_grad()
    loss.backward()
    for handle in handles:
        handle.remove()
    captured = {name: t.grad.clone() for name, t in named.items()}
    for t in named.values():
        t.grad = None
    empty_the_record()
    return captured


@pytest.mark.parametrize("check_name", ["captured_grads", "captured_grads_twice"])
def test_06_gradients_read_back_with_the_record_emptied_are_refused(check_name):
    notebook = "06_hooks"
    check = getattr(checks_of(notebook), check_name)
    reference = _reference(notebook, "nb06_ex2_capture")
    assert_refused(check, reference, "", capture_grads=capture_by_retain_grad_then_emptied)
    assert_passes(check, reference)


# honest answers written otherwise than the solution: the stand-ins must not refuse them
def capture_with_data_clone(named, loss):
    """The older spelling of a copy: ``grad.data.clone()``, and a handle list built after."""
    captured = {}

    def hook_for(name):
        def store(grad):
            captured[name] = grad.data.clone()

        return store

    handles = {name: t.register_hook(hook_for(name)) for name, t in named.items()}
    loss.backward()
    for handle in handles.values():
        handle.remove()
    return captured


def capture_with_detach_cpu(named, loss):
    """``grad.detach().cpu().clone()`` kept, ``copy.deepcopy`` for a second copy, the modules
    imported inside the answer (where a by-hand answer's imports run)."""
    import copy
    import functools

    captured, handles = {}, []

    def store(name, grad):
        captured[name] = copy.deepcopy(grad.detach().cpu().clone())

    for name, tensor in named.items():
        handles.append(tensor.register_hook(functools.partial(store, name)))
    loss.backward()
    while handles:
        handles.pop().remove()
    return captured


def capture_into_room_made_first(named, loss):
    """Room made first from each tensor's ``shape`` (and ``dim()``, ``size()``, ``numel()``),
    filled in place by its hook: a stand-in tensor tells its shape, as a tensor does."""
    captured, handles = {}, []
    for name, tensor in named.items():
        assert tensor.dim() == tensor.ndim == len(tensor.size()) and tensor.numel() >= 1
        captured[name] = room = np.zeros(tensor.shape)

        def fill(grad, room=room):
            room[...] = grad.numpy()

        handles.append(tensor.register_hook(fill))
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


@pytest.mark.parametrize("check_name", ["captured_grads", "captured_grads_twice"])
@pytest.mark.parametrize(
    "answer", [capture_with_data_clone, capture_with_detach_cpu, capture_into_room_made_first]
)
def test_06_honest_answers_written_otherwise_pass(check_name, answer):
    check = getattr(checks_of("06_hooks"), check_name)
    reference = _reference("06_hooks", "nb06_ex2_capture")
    assert_passes(check, reference, capture_grads=answer)
