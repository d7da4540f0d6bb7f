"""Round 9 of issue 29's principle: answers that give the check the numbers it observes, made
some other way than the lesson's, found by trying each exercise as a student who wants the
marks without the lesson. Each was seen passing first, judged as ``grade`` judges, then closed
by observing what only the lesson's mechanism gives, never by a list of its names:

* **05 ex7** (the tensors a graph saves, counted with ``saved_tensors_hooks``): no hooks at
  all, the saved tensors read back off ``out``'s graph (each node's ``_saved_*`` attributes,
  numbers left out) passed on every seed. The function now also computes a value on the way
  and throws it away: its node saved a tensor while ``f`` ran, which a pack hook is handed and
  no walk from ``out`` reaches.
* **02 ex6** (evaluate without a graph): no ``no_grad()``, each layer's ``forward`` called
  directly and the result detached passed on every seed: the check saw recording through the
  layers' forward pre-hooks, which a direct ``forward`` call skips. It now also counts, with
  ``saved_tensors_hooks`` around the call, the tensors saved for a backward: a recorded
  operation saves them however the layer is called.
* **03 ex3** (J and vᵀJ of y = (x0·x1³, x0 + 3·x1) by hand): central differences at steps 1
  and 1/2, extrapolated (Richardson: (4·D(h/2) - D(h)) / 3 cancels the h² error, exact on a
  cubic) passed the 1e-12 tolerance on every seed. A fourth draw now puts x1 near 5.3e102 and
  |x0| >= 1.5, where y0 overflows and no entry of J or vᵀJ does.
* **04 ex6** (the node that made the nan): no anomaly detection, the check's own frame read
  (``sys._getframe``): its loop variable named the bad guard, its globals the node each guard
  makes; passed on every seed. The losses are now drawn in a helper whose frame is gone when
  the answer runs: the check keeps only what the answer is handed.
* **05 ex3** (Cube, an operation with its own backward): a backward that measures the slope
  of x³ by a central difference (step 1e-5, off by exactly step² = 1e-10) passed both checks
  on every seed, ``gradcheck`` and the by-hand run alike: the tolerance of an ordinary value
  cannot tell it from 3x². Cube's backward now also runs by hand at x near 1e120, where x³
  overflows and 3x² does not: every difference of x³ is nan there, whatever its step.
* **By hand, the frames that call the answer** (05 ex2 seen): the by-hand wrapper holds a list
  of every node's stand-in; an answer that reached its frame (a traceback's ``tb_frame``,
  ``sys._getframe``, a profile function's frames) and read the leaves off that list passed on
  every seed. The by-hand interpreter's audit hook now refuses every route to a frame unless
  the reader is its own code (exec and eval without a scope, the hook, an error's report).
* **06 ex2** (gradients captured with hooks): hooks that do nothing, then the gradients read
  off the cells of the stand-in ``loss.backward``'s closure, passed on every seed (round 7's
  idle hooks beside a gradient read, by another door). The stand-in backward now takes each
  pass from a generator that holds the gradients in its frame, which no answer reads.
* **06 ex5** (fine-tune the last layer): nothing frozen while training, the other layers
  frozen afterwards and their ``.grad`` set back to ``None`` passed on every seed: every
  observation was of the state after the call. The check now also records, with a hook on
  each parameter, which ones a backward pass computed a gradient for.

Doors tried and found closed, kept because they are cheap: a slope by torch's autograd,
sympy's ``diff`` or ``np.gradient`` in a by-hand answer (imports outside the standard library
and NumPy are refused; a difference of x³ near 1e120 is nan).
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import nn

from ..optional import skip_unless
from .exercises import assert_passes, assert_refused, checks_of, solution


def _reference(notebook: str, *grade_ids: str, **namespace) -> dict:
    found = {}
    for grade_id in grade_ids:
        found.update(solution(notebook, grade_id, **namespace))
    return found


# ----- 05 ex7: the saved tensors read off the graph, no hooks ---------------------------------
def count_saved_read_off_the_graph(f, *inputs):
    """Each node's saved tensors (``_saved_self``, ``_saved_result``...), read back by a walk
    from ``out``; a 0-d one is a number the node keeps (``h * 0.5``), not a saved tensor."""
    out = f(*inputs)
    count = numbers = 0
    todo, seen = [out.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for name in dir(node):
            if name.startswith("_saved_"):
                value = getattr(node, name)
                if isinstance(value, agk.Tensor) and value.dim() > 0:
                    count, numbers = count + 1, numbers + value.numel()
        todo += [child for child, _ in node.next_functions]
    return out, count, numbers


def count_saved_into_a_dict(f, *inputs):
    """Honest, spelled otherwise: a dict of totals, each tensor packed in a tuple."""
    totals = {"count": 0, "numbers": 0}

    def pack(t):
        totals["count"] += 1
        totals["numbers"] += int(t.numel())
        return (t,)

    def unpack(packed):
        return packed[0]

    with agk.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = f(*inputs)
    return out, totals["count"], totals["numbers"]


def test_05_saved_tensors_read_off_the_graph_are_refused():
    reference = _reference("05_inside_grad_fn", "nb05_ex7_count_saved")
    check = checks_of("05_inside_grad_fn").saved_counted
    assert_refused(check, reference, "count each call", count_saved=count_saved_read_off_the_graph)
    assert_passes(check, reference, count_saved=count_saved_into_a_dict)


# ----- 06 ex5: frozen after training, the gradients cleared -----------------------------------
def _train(model, optimizer, x, y, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return optimizer


def frozen_after_training_grads_cleared(model, x, y, steps, lr):
    """Trains with every layer computing gradients, then makes it look frozen."""
    optimizer = _train(model, agk.optim.SGD(model[-1].parameters(), lr=lr), x, y, steps)
    for module in list(model)[:-1]:
        for param in module.parameters():
            param.requires_grad_(False)
            param.grad = None
    return optimizer


def fine_tune_with_the_modules_switch(model, x, y, steps, lr):
    """Honest, spelled otherwise: ``Module.requires_grad_`` on the whole model, then on the
    last layer."""
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    optimizer = agk.optim.SGD(list(model[-1].parameters()), lr=lr)
    return _train(model, optimizer, x, y, steps)


def test_06_frozen_after_training_with_the_gradients_cleared_is_refused():
    reference = _reference("06_hooks", "nb06_ex5_fine_tune")
    check = checks_of("06_hooks").fine_tuned
    assert_refused(
        check, reference, "a gradient cleared", fine_tune_last=frozen_after_training_grads_cleared
    )
    assert_passes(check, reference, fine_tune_last=fine_tune_with_the_modules_switch)


# ----- 05 ex3: Cube's backward by a difference quotient -----------------------------------------
class CubeByDifferences(agk.autograd.Function):
    """backward measures the slope of x³ with a central difference instead of writing 3x²."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        step = 1e-5
        return grad_output * ((x + step) ** 3 - (x - step) ** 3) / (2 * step)


@pytest.mark.parametrize("check_name", ["cube_function", "cube_used_twice"])
def test_05_cubes_backward_by_a_difference_quotient_is_refused(check_name):
    reference = _reference("05_inside_grad_fn", "nb05_ex3_cube")
    check = getattr(checks_of("05_inside_grad_fn"), check_name)
    assert_refused(check, reference, "x near 1e120", Cube=CubeByDifferences)


# ----- 02 ex6: evaluated with recording on, past the layers' forward pre-hooks -------------------
def evaluate_past_the_hooks(model, x):
    """Eval mode, but no no_grad(): each layer's forward called directly (the check's
    pre-hooks see no call, so no call recorded), the result detached."""
    was_training = model.training
    model.eval()
    out = x
    for layer in model:
        out = layer.forward(out)
    model.train(was_training)
    return out.detach()


def test_02_an_evaluation_with_recording_on_past_the_hooks_is_refused():
    reference = _reference("02_autograd_does_it", "nb02_ex6_evaluate")
    check = checks_of("02_autograd_does_it").evaluation
    assert_refused(check, reference, "stops recording", evaluate=evaluate_past_the_hooks)


def evaluate_in_inference_mode(model, x):
    """Honest, spelled otherwise: ``inference_mode()``, the mode put back in ``finally``."""
    was_training = model.training
    model.eval()
    try:
        with agk.inference_mode():
            return model(x)
    finally:
        model.train(was_training)


def test_02_an_evaluation_without_recording_passes_however_spelled():
    reference = _reference("02_autograd_does_it", "nb02_ex6_evaluate")
    check = checks_of("02_autograd_does_it").evaluation
    assert_passes(check, reference, evaluate=evaluate_in_inference_mode)


# ----- 03 ex3: J and vᵀJ by Richardson extrapolation of central differences ----------------------
def jacobian_by_richardson(x0, x1):
    """Central differences at steps 1 and 1/2, their h² error cancelled: exact for a cubic."""

    def y(a, b):
        return np.array([a * b**3, a + 3 * b])

    def slope(at, direction, step):
        ahead = y(*(np.array(at) + step * np.array(direction)))
        behind = y(*(np.array(at) - step * np.array(direction)))
        return (ahead - behind) / (2 * step)

    columns = [
        (4 * slope((x0, x1), d, 0.5) - slope((x0, x1), d, 1.0)) / 3 for d in ((1, 0), (0, 1))
    ]
    return np.stack(columns, axis=1).tolist()


def vjp_by_richardson(x0, x1, v0, v1):
    return (np.array([v0, v1]) @ np.array(jacobian_by_richardson(x0, x1))).tolist()


def test_03_richardson_extrapolated_differences_are_refused():
    reference = _reference("03_nonscalar_leaves_jacobians", "nb03_ex3_vjp_by_hand")
    check = checks_of("03_nonscalar_leaves_jacobians").vjp_written_by_hand
    assert_refused(
        check,
        reference,
        "",
        jacobian_by_hand=jacobian_by_richardson,
        vjp_by_hand=vjp_by_richardson,
    )


def jacobian_as_an_array(x0, x1):
    """Honest, spelled otherwise: an array, x1 multiplied out."""
    return np.array([[x1 * x1 * x1, 3.0 * x0 * x1 * x1], [1.0, 3.0]])


def vjp_as_a_product(x0, x1, v0, v1):
    """Honest, spelled otherwise: vᵀJ as NumPy's product of v and J."""
    return np.dot(np.array([v0, v1]), jacobian_as_an_array(x0, x1))


def test_03_a_jacobian_by_hand_passes_however_spelled():
    reference = _reference("03_nonscalar_leaves_jacobians", "nb03_ex3_vjp_by_hand")
    check = checks_of("03_nonscalar_leaves_jacobians").vjp_written_by_hand
    assert_passes(
        check, reference, jacobian_by_hand=jacobian_as_an_array, vjp_by_hand=vjp_as_a_product
    )


# ----- by hand: the check's stand-ins read off the frames that call the answer -------------------
def _stand_ins_of_the_caller(frame):
    """The leaves of the list of every node's stand-in the check's wrapper holds."""
    while frame is not None:
        nodes = frame.f_locals.get("nodes")
        if isinstance(nodes, list) and nodes:
            return [node.variable for node in nodes if hasattr(node, "variable")]
        frame = frame.f_back
    return []


def leaves_by_a_tracebacks_frame(t):
    try:
        raise ValueError("only for its traceback")
    except ValueError as error:
        return _stand_ins_of_the_caller(error.__traceback__.tb_frame)


def leaves_by_getframe(t):
    import sys

    return _stand_ins_of_the_caller(sys._getframe(1))


def leaves_by_a_profile_function(t):
    import sys

    seen = []
    sys.setprofile(lambda frame, event, arg: seen.append(frame))
    sys.setprofile(None)
    return _stand_ins_of_the_caller(seen[0] if seen else None)


@pytest.mark.parametrize(
    "answer", [leaves_by_a_tracebacks_frame, leaves_by_getframe, leaves_by_a_profile_function]
)
def test_by_hand_the_frames_that_call_the_answer_are_refused(answer):
    reference = _reference("05_inside_grad_fn", "nb05_ex2_find_leaves")
    check = checks_of("05_inside_grad_fn").leaves_found
    assert_refused(check, reference, "do it yourself", find_leaves=answer)


# ----- 06 ex2: idle hooks, the gradients read off the stand-in backward's closure -----------------
def capture_from_the_backwards_closure(named, loss):
    """Hooks that do nothing, then the gradients the stand-in loss.backward() hands out, read
    from the cells of its closure (a dict holding an array for each name)."""
    handles = [t.register_hook(lambda g: None) for t in named.values()]
    loss.backward()
    for handle in handles:
        handle.remove()
    todo = [loss.backward]
    while todo:
        function = todo.pop()
        for cell in getattr(function, "__closure__", None) or ():
            held = cell.cell_contents
            if isinstance(held, dict) and held is not named and set(named) <= set(held):
                if all(hasattr(held[name], "shape") for name in named):
                    return {name: held[name].copy() for name in named}
            if callable(held):
                todo.append(held)
    return {}


@pytest.mark.parametrize("check_name", ["captured_grads", "captured_grads_twice"])
def test_06_gradients_read_off_the_stand_in_backward_are_refused(check_name):
    reference = _reference("06_hooks", "nb06_ex2_capture")
    check = getattr(checks_of("06_hooks"), check_name)
    assert_refused(check, reference, "", capture_grads=capture_from_the_backwards_closure)


# ----- 04 ex6: which guard is bad, read off the check's own frame --------------------------------
def nan_origin_read_off_the_check(loss_fn, x):
    """No anomaly detection: the check's frame names the bad guard (``bad``, ``first``,
    ``second``), and its globals the node each guard makes."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        names = frame.f_locals
        if {"bad", "first", "second"} <= set(names):
            if names["bad"] == "none":
                return None
            guard = names["first"] if names["bad"] == "first" else names["second"]
            return frame.f_globals["GUARDS"][guard][1]
        frame = frame.f_back
    return None


def test_04_the_bad_guard_read_off_the_checks_frame_is_refused():
    reference = _reference("04_inplace_data_detach", "nb04_ex6_nan_origin")
    check = checks_of("04_inplace_data_detach").nan_found
    assert_refused(check, reference, "anomaly detection", nan_origin=nan_origin_read_off_the_check)


# ----- closed doors, by hand: another library differentiates (00 ex2, y = x³ - 2x) ---------------
def slope_by_torch(x):
    import torch

    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    (t**3 - 2 * t).backward()
    return t.grad.item()


def slope_by_sympy(x):
    import sympy

    symbol = sympy.Symbol("x")
    return float(sympy.diff(symbol**3 - 2 * symbol, symbol).subs(symbol, x))


def slope_by_np_gradient(x):
    grid = np.array([x - 1e-5, x, x + 1e-5])
    return float(np.gradient(grid**3 - 2 * grid, grid)[1])


@pytest.mark.parametrize("answer", [slope_by_torch, slope_by_sympy, slope_by_np_gradient])
def test_00_a_slope_by_another_library_is_refused(answer):
    if answer is not slope_by_np_gradient:  # a door is closed only where the library is there:
        skip_unless("torch")  # torch, and sympy, which torch installs (it depends on it)
    reference = _reference("00_start_here", "nb00_ex2_by_hand")
    assert_refused(checks_of("00_start_here").slope_by_hand, reference, "", slope=answer)
