"""Notebook 06's exercises: the lesson's mechanism passes, its shortcuts do not."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import nn
from autogradkit.grading.observations import BUILTIN_ERRORS

from . import exercises
from .exercises import (
    assert_passes,
    checks_of,
    english_reference,
    solution,
    translations,
    verdicts,
)

pytestmark = pytest.mark.slow(6)  # every shortcut judged in each language

NB = "06_hooks"
checks = checks_of(NB)
# a word in Latin letters (an identifier is one; an attribute, as in 2.weight, is not), outside
# [...] (values, code lists) and {...}
LATIN = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]+")


def _latin_words(text: str) -> set[str]:
    return set(LATIN.findall(re.sub(r"\[[^\]]*\]|\{[^}]*\}", "", text)))


def assert_refused(check, reference: dict, words: str = "", **answers) -> list[str]:
    """``exercises.assert_refused``, and in each translation no English is left in a ✗ line:
    every word in Latin letters is one the catalog's own translations keep (an identifier,
    a name such as ``named`` or ``dtype``), not one of the English words checks.py fills into
    a name ("for h, u", "one input", "a batch", "draw 1: x and w of 3 numbers")."""
    lines = exercises.assert_refused(check, reference, words, **answers)
    for tr in translations(check):
        translated = [*tr.kit.values(), *tr.texts.values(), *(t for _, t in tr.templates)]
        kept = set().union(*map(_latin_words, translated)) | BUILTIN_ERRORS  # Python's own
        for verdict in verdicts(check, reference, {**reference, **answers}, tr=tr):
            for line in verdict.lines:
                left = _latin_words(line) - kept if line.startswith("✗") else set()
                assert not left, f"English left in {tr.language}: {sorted(left)} in {line!r}"
    return lines


# the English solutions (the fixture every test judges against), and the test that each other
# edition's solutions are observed alike (so they would give the very same verdicts)
answers, test_each_editions_solutions_are_observed_as_the_english = english_reference(
    NB, checks, lambda edition: _solutions(edition)
)


def _solutions(edition: str) -> dict:
    found = {}
    for grade_id in (
        "nb06_ex1_predict_hooks",
        "nb06_ex2_capture",
        "nb06_ex3_find_the_bug",
        "nb06_ex4_by_hand",
        "nb06_ex5_fine_tune",
    ):
        found.update(solution(NB, grade_id, edition))
    return found


# ----- ex. 1: predict what the hooks print -------------------------------------------------
def test_ex1_predictions_are_judged_and_revealed_only_after_an_attempt(answers):
    assert_passes(checks.predicted_hooks, answers)
    assert_passes(checks.predicted_hooks, answers, printed_by_a=np.ones(3), final_x_grad=(30,) * 3)
    lines = assert_refused(
        checks.predicted_hooks, answers, "it is [1., 1., 1.]", printed_by_a=[10.0, 10.0, 10.0]
    )
    assert lines == [
        "✗ what hook A prints: it is 10 times the right value; it is [1., 1., 1.] "
        "(hook A runs before hook B: what gradient does y.sum() send to y?)"
    ]
    assert_refused(checks.predicted_hooks, answers, "it is [30., 30., 30.]", final_x_grad=[3.0] * 3)
    assert_refused(checks.predicted_hooks, answers, "not answered yet", final_x_grad=...)


# ----- ex. 2: capture intermediate gradients -----------------------------------------------
def capture_with_autograd_grad(named, loss):
    grads = agk.autograd.grad(loss, list(named.values()), retain_graph=True)
    loss.backward()
    return dict(zip(named, grads))


def capture_with_retain_grad(named, loss):
    for tensor in named.values():
        tensor.retain_grad()
    loss.backward()
    return {name: tensor.grad for name, tensor in named.items()}


def capture_into_grad_of_inputs(named, loss):
    loss.backward(inputs=list(named.values()))  # fills t.grad of the named tensors only
    return {name: tensor.grad for name, tensor in named.items()}


def capture_with_late_binding(named, loss):
    captured, handles = {}, []
    for name, tensor in named.items():
        hook = lambda grad: captured.update({name: grad.clone()})  # noqa: B023, E731  (the bug)
        handles.append(tensor.register_hook(hook))
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


def capture_without_removing(named, loss):
    captured = {}
    for name, tensor in named.items():
        tensor.register_hook(lambda grad, name=name: captured.update({name: grad.clone()}))
    loss.backward()
    return captured


CAPTURED = {}  # one dict for every call


def capture_into_one_dict(named, loss):
    handles = []
    for name, tensor in named.items():
        handles.append(tensor.register_hook(lambda g, name=name: CAPTURED.update({name: g})))
    loss.backward()
    for handle in handles:
        handle.remove()
    return CAPTURED


def capture_with_context_managers(named, loss):
    """Another correct style: handles as context managers, the hook returns grad unchanged."""
    captured = {}

    def keeper(name):
        def hook(grad):
            captured[name] = grad.detach().clone()
            return grad

        return hook

    handles = [tensor.register_hook(keeper(name)) for name, tensor in named.items()]
    loss.backward()
    for handle in handles:
        with handle:
            pass
    return captured


KEPT_GRAD = agk.autograd.targets.grad  # kept before the check, as a notebook cell may


def capture_with_a_kept_grad_and_idle_hooks(named, loss):
    """Hooks that do nothing, for the count; the gradients from a kept autograd.grad."""
    handles = [tensor.register_hook(lambda grad: None) for tensor in named.values()]
    grads = KEPT_GRAD(loss, list(named.values()), retain_graph=True)
    for handle in handles:
        handle.remove()
    loss.backward()
    return dict(zip(named, grads))


def capture_with_inputs_then_idle_hooks(named, loss):
    """backward(inputs=...) fills the named tensors' .grad; idle hooks, for the count, on a
    second pass that fills the leaves' .grad."""
    loss.backward(inputs=list(named.values()), retain_graph=True)
    captured = {name: tensor.grad.clone() for name, tensor in named.items()}
    handles = [tensor.register_hook(lambda grad: None) for tensor in named.values()]
    loss.backward()
    for handle in handles:
        handle.remove()
    return captured


def test_ex2_idle_hooks_beside_a_kept_grad_or_a_grad_read_are_refused(answers):
    # issue 29, families 1 and 3: each passed the patched names and the count of hooks
    for shortcut in (capture_with_a_kept_grad_and_idle_hooks, capture_with_inputs_then_idle_hooks):
        assert_refused(checks.captured_grads, answers, "", capture_grads=shortcut)


def test_ex2_hooks_that_look_and_are_removed_pass(answers):
    assert_passes(checks.captured_grads, answers)
    assert_passes(checks.captured_grads, answers, capture_grads=capture_with_context_managers)
    assert_passes(checks.captured_grads_twice, answers)


def test_ex2_gradients_taken_without_hooks_are_refused(answers):
    # by hand, the named tensors are stand-ins whose hooks loss.backward() runs: no autograd,
    # no retain_grad() and no .grad are there
    assert_refused(
        checks.captured_grads, answers, "do it yourself", capture_grads=capture_with_autograd_grad
    )
    for shortcut in (capture_with_retain_grad, capture_into_grad_of_inputs):
        assert_refused(checks.captured_grads, answers, "AttributeError", capture_grads=shortcut)


def test_ex2_one_name_for_every_hook_or_hooks_left_behind_are_refused(answers):
    assert_refused(
        checks.captured_grads,
        answers,
        "its own tensor's name",
        capture_grads=capture_with_late_binding,
    )
    lines = assert_refused(
        checks.captured_grads, answers, "remove each hook", capture_grads=capture_without_removing
    )
    assert lines[-1].startswith("✗ a later backward pass changes what you captured")


def test_ex2_hidden_a_dict_shared_by_every_call_is_refused(answers):
    CAPTURED.clear()
    lines = assert_refused(
        checks.captured_grads_twice,
        answers,
        "one entry per tensor",
        capture_grads=capture_into_one_dict,
    )
    assert lines[-1].startswith("✗ the names in it (a second call)")


# ----- ex. 3: the gradient lands in the leaf -----------------------------------------------
def input_gradient_as_given(values, net):
    inp = agk.tensor(values, dtype=agk.float64, requires_grad=True).to(agk.float32)
    out = net(inp).sum()
    out.backward()
    return inp, inp.grad


def input_gradient_retained(values, net):
    inp = agk.tensor(values, dtype=agk.float64, requires_grad=True).to(agk.float32)
    inp.retain_grad()  # the gradient shows, but inp is still the copy
    net(inp).sum().backward()
    return inp, inp.grad


def input_gradient_of_the_float64_leaf(values, net):
    leaf = agk.tensor(values, dtype=agk.float64, requires_grad=True)
    net(leaf.to(agk.float32)).sum().backward()
    return leaf, leaf.grad


def input_gradient_typed_in(values, net):
    inp = agk.tensor(values, dtype=agk.float32, requires_grad=True)
    inp.grad = agk.full_like(inp, 2.0)  # the notebook's answer: w / 4 = 8 / 4
    return inp, inp.grad


def input_gradient_detached(values, net):
    inp = agk.tensor(values, dtype=agk.float64).to(agk.float32).detach().requires_grad_()
    net(inp).sum().backward()
    return inp, inp.grad


def input_gradient_converted_first(values, net):
    inp = agk.tensor(values, dtype=agk.float64).to(agk.float32)  # no grad yet: still a leaf
    inp.requires_grad_()
    net(inp).sum().backward()
    return inp, inp.grad


def test_ex3_a_float32_leaf_made_in_any_way_passes(answers):
    assert_passes(checks.leaf_input, answers)
    for fixed in (input_gradient_detached, input_gradient_converted_first):
        assert_passes(checks.leaf_input, answers, input_gradient=fixed)


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_ex3_the_copy_the_float64_leaf_or_a_typed_in_gradient_are_refused(answers):
    for copy in (input_gradient_as_given, input_gradient_retained):
        assert_refused(checks.leaf_input, answers, "which tensor is the leaf", input_gradient=copy)
    assert_refused(
        checks.leaf_input, answers, "float32", input_gradient=input_gradient_of_the_float64_leaf
    )
    lines = assert_refused(checks.leaf_input, answers, "", input_gradient=input_gradient_typed_in)
    assert lines[-1].startswith("✗ input_grad (one input)")


# ----- ex. 4: the example by hand ----------------------------------------------------------
def linear_typed_in(x, w, b):
    return 8.5, [0.5, 0.0, 0.25, 0.25], 0.25  # the numbers for x = (2, 0, 1, 1)


def linear_with_autograd(x, w, b):
    layer = nn.Linear(len(x), 1)
    with agk.no_grad():
        layer.weight.copy_(agk.tensor(w[None, :]))
        layer.bias.fill_(b)
    out = layer(agk.tensor(x, dtype=agk.float32)) / 4
    out.sum().backward()
    return out.item(), layer.weight.grad[0].numpy(), layer.bias.grad.item()


def linear_without_the_quarter(x, w, b):
    return (w @ x + b) / 4, x, 1.0  # the derivatives of the layer alone


def linear_by_calling_the_nodes(x, w, b):
    """The nodes' own backward, called directly: the library's local derivatives."""
    wt, bt = agk.tensor(w, requires_grad=True), agk.tensor(b, requires_grad=True)
    out = ((wt * agk.tensor(x)).sum() + bt) / 4
    with agk.no_grad():
        (summed,) = out.grad_fn(agk.tensor(1.0))[:1]
        dot, bias_grad = out.grad_fn.next_functions[0][0](summed)
        (product,) = out.grad_fn.next_functions[0][0].next_functions[0][0](dot)
        weight_grad, _ = (
            out.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0](product)
        )
    return out.item(), weight_grad.numpy(), bias_grad.item()


def linear_by_central_differences(step):
    def linear_by_hand(x, w, b):
        f = lambda w, b: (np.dot(w, x) + b) / 4  # noqa: E731
        weight_grad = [
            (f(w + step * e, b) - f(w - step * e, b)) / (2 * step) for e in np.eye(len(w))
        ]
        return f(w, b), np.array(weight_grad), (f(w, b + step) - f(w, b - step)) / (2 * step)

    return linear_by_hand


def test_ex4_the_nodes_own_backward_is_refused(answers):
    # issue 29, family 2: passed when the check patched run_backward's name
    assert_refused(
        checks.by_hand, answers, "do it yourself", linear_by_hand=linear_by_calling_the_nodes
    )


@pytest.mark.parametrize("step", [1e-12, 1e-8, 1e-6, 1e-3, 1.0, 1e3, 1e150])
def test_ex4_central_differences_miss_at_every_step(answers, step):
    # issue 29, family 4: the result is linear in w and b, so differences are exact where it
    # is a number; the check also draws inputs where it overflows and the gradients do not
    assert_refused(checks.by_hand, answers, "", linear_by_hand=linear_by_central_differences(step))


def test_ex4_the_three_numbers_by_hand_pass(answers):
    assert_passes(checks.by_hand, answers)
    in_a_list = lambda x, w, b: [sum(w * x) / 4 + b / 4, list(x / 4), 1 / 4]  # noqa: E731
    assert_passes(checks.by_hand, answers, linear_by_hand=in_a_list)


def test_ex4_typed_in_numbers_autograd_or_a_missing_quarter_are_refused(answers):
    assert_refused(checks.by_hand, answers, "", linear_by_hand=linear_typed_in)
    assert_refused(checks.by_hand, answers, "do it yourself", linear_by_hand=linear_with_autograd)
    lines = assert_refused(
        checks.by_hand, answers, "when one weight grows", linear_by_hand=linear_without_the_quarter
    )
    assert lines[-1].startswith("✗ the weight gradient (draw 1")


# ----- ex. 5: fine-tune the last layer ----------------------------------------------------------
def _train(model, optimizer, x, y, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return optimizer


def fine_tune_with_the_setter(model, x, y, steps, lr):
    for module in list(model)[:-1]:
        for param in module.parameters():
            param.requires_grad = False
    optimizer = agk.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=lr)
    return _train(model, optimizer, x, y, steps)


def frozen_but_all_in_the_optimizer(model, x, y, steps, lr):
    for module in list(model)[:-1]:
        for param in module.parameters():
            param.requires_grad_(False)
    return _train(model, agk.optim.SGD(model.parameters(), lr=lr), x, y, steps)


def only_the_optimizer_restricted(model, x, y, steps, lr):
    optimizer = agk.optim.SGD(model[-1].parameters(), lr=lr)  # nothing frozen
    return _train(model, optimizer, x, y, steps)


def frozen_after_training(model, x, y, steps, lr):
    optimizer = _train(model, agk.optim.SGD(model[-1].parameters(), lr=lr), x, y, steps)
    for module in list(model)[:-1]:
        for param in module.parameters():
            param.requires_grad_(False)
    return optimizer


def without_zeroing(model, x, y, steps, lr):
    for module in list(model)[:-1]:
        for param in module.parameters():
            param.requires_grad_(False)
    optimizer = agk.optim.SGD(model[-1].parameters(), lr=lr)
    for _ in range(steps):
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return optimizer


def test_ex5_freezing_and_a_trainable_only_optimizer_passes(answers):
    assert_passes(checks.fine_tuned, answers)
    assert_passes(checks.fine_tuned, answers, fine_tune_last=fine_tune_with_the_setter)


@pytest.mark.parametrize(
    ("shortcut", "words"),
    [
        (frozen_but_all_in_the_optimizer, "hand it"),
        (only_the_optimizer_restricted, "freeze with requires_grad_(False)"),
        (frozen_after_training, "before the first backward()"),
        (without_zeroing, "zero the gradients"),
    ],
)
def test_ex5_an_optimizer_over_frozen_weights_or_no_freezing_is_refused(answers, shortcut, words):
    assert_refused(checks.fine_tuned, answers, words, fine_tune_last=shortcut)
