"""Notebook 04's exercises: the lesson's mechanism passes, its shortcuts do not, in each
edition; and what the checks say in Chinese has no English left but code."""

from __future__ import annotations

import re

import pytest

import autogradkit as agk

from . import exercises
from .exercises import (
    assert_passes,
    checks_of,
    english_reference,
    solution,
    translations,
    verdicts,
)

NB = "04_inplace_data_detach"
checks = checks_of(NB)


# the English solutions (the fixture every test judges against), and the test that each other
# edition's solutions are observed alike (so they would give the very same verdicts)
answers, test_each_editions_solutions_are_observed_as_the_english = english_reference(
    NB, checks, lambda edition: _solutions(edition)
)


def _solutions(edition: str) -> dict:
    found = {}
    for grade_id in (
        "nb04_ex1_init_weights",
        "nb04_ex2_predict_version",
        "nb04_ex3_which_raise",
        "nb04_ex4_sgd_step",
        "nb04_ex5_consistency",
        "nb04_ex6_nan_origin",
    ):
        found.update(solution(NB, grade_id, edition))
    return found


# ----- the translated lines: code may stay English, words may not -----------------------------
# a line's tokens: what stands between spaces, Chinese characters and punctuation marks
TOKEN = re.compile(r"[^\s:;,!?\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")
# the notebook's names that a line shows as plain words (a variable, a method, a value)
NAMES = {"w", "x", "y", "t", "lr", "value", "noise", "raises", "exp", "backward", "tensor", "nan"}
NAMES |= {"None", "True", "False"}


def english_words(line: str) -> list[str]:
    """The tokens of ``line`` that are plain words: not code (a dotted or snake_case name, a
    call, an index, a number, a CamelCase type such as RuntimeError), not one of ``NAMES``."""
    return [
        token
        for token in TOKEN.findall(line)
        if re.fullmatch(r"[A-Za-z]+", token)
        and not re.fullmatch(r"[A-Z][a-z]+[A-Z]\w*", token)
        and token not in NAMES
    ]


def assert_all_chinese(check, reference: dict, **answers) -> None:
    """Every line the check writes in each translation, ✓ or ✗, is in that language: titles,
    names (exercise 1's "w of shape ..." too), hints (exercise 3's too, held in a variable in
    checks.py) and the kit's reasons. On the practice seed and one grading seed: the words are
    the same on every seed, only the numbers differ."""
    tables = translations(check)
    assert tables, f"{NB} has no translated checks"
    for tr in tables:
        for verdict in verdicts(check, reference, {**reference, **answers}, (None, 2024), tr):
            for line in verdict.lines:
                assert not english_words(line), f"English left in {tr.language}: {line!r}"


def assert_refused(check, reference: dict, words: str = "", **answers) -> list[str]:
    """``exercises.assert_refused``, and the refusal reads in Chinese through and through."""
    lines = exercises.assert_refused(check, reference, words, **answers)
    assert_all_chinese(check, reference, **answers)
    return lines


@pytest.mark.parametrize(
    "check",
    [checks.init_in_place, checks.version_prediction, checks.which_raise, checks.step_in_place]
    + [checks.steps_train, checks.stopped_target, checks.nan_found],
    ids=lambda c: c.name,
)
def test_each_check_speaks_chinese_on_the_solution(answers, check):
    assert_all_chinese(check, answers)


def test_the_english_words_of_a_line_are_found():
    assert english_words("✗ w of shape (2,): its values: 数值不对") == [
        "of",
        "shape",
        "its",
        "values",
    ]
    assert not english_words("✗ 形状为 (2,) 的 w：它的数值：你的代码抛出了 RuntimeError")
    assert not english_words(
        '✓ raises["a"]：实际是 False，不是你预测的结果（提示：exp 保存的是 y）'
    )


# ----- ex. 1: initialise a leaf in place -------------------------------------------------------
def classmate_init(w, value):
    w.fill_(value)
    return w


def init_through_data(w, value):
    w.data.fill_(value)  # passed the old checker: autograd never hears of it
    return w


def init_a_new_leaf(w, value):
    return agk.full(w.shape, value, requires_grad=True)


def init_by_arithmetic(w, value):
    return w * 0 + value


def init_through_detach(w, value):
    w.detach().fill_(value)  # detach() shares w's storage and its version counter
    return w


def init_with_tracking_off(w, value):
    w.requires_grad_(False)
    w.copy_(agk.full_like(w, value))
    return w.requires_grad_()


def test_ex1_filling_w_itself_with_recording_off_passes(answers):
    assert_passes(checks.init_in_place, answers)
    assert_passes(checks.init_in_place, answers, init_weights=init_through_detach)
    assert_passes(checks.init_in_place, answers, init_weights=init_with_tracking_off)


def test_ex1_the_classmates_code_raises(answers):
    assert_refused(
        checks.init_in_place, answers, "raised RuntimeError", init_weights=classmate_init
    )


def test_ex1_a_fill_through_data_is_refused(answers):
    assert_refused(
        checks.init_in_place,
        answers,
        "a change autograd cannot see",
        init_weights=init_through_data,
    )


def test_ex1_a_new_tensor_is_refused(answers):
    for shortcut in (init_a_new_leaf, init_by_arithmetic):
        assert_refused(checks.init_in_place, answers, "returns w itself", init_weights=shortcut)


# ----- ex. 2: predict the version counter ------------------------------------------------------
def test_ex2_counting_the_data_change_is_refused_and_then_revealed(answers):
    assert_passes(checks.version_prediction, answers)
    assert_passes(checks.version_prediction, answers, predicted_values=agk.tensor([4.0] * 3))
    lines = assert_refused(checks.version_prediction, answers, "it is 3", predicted_version=4)
    assert lines[-1] == (
        "✗ t._version: it is 3, not your prediction "
        "(which of the four operations share t's version counter?)"
    )
    assert_refused(
        checks.version_prediction, answers, "it is 3", predicted_version=2
    )  # no detach()
    no_sharing = {"predicted_values": [2.0, 2.0, 2.0]}  # "detach() and .data copy"
    assert_refused(checks.version_prediction, answers, "it is [4., 4., 4.]", **no_sharing)


# ----- ex. 3: which of these raise? ------------------------------------------------------------
def test_ex3_each_prediction_is_judged_and_revealed_one_at_a_time(answers):
    assert_passes(checks.which_raise, answers)
    every_change_raises = {key: True for key in "abcd"}
    lines = assert_refused(checks.which_raise, answers, "it is False", raises=every_change_raises)
    assert lines[-1].startswith('✗ raises["a"]') and len(lines) == 2
    data_is_caught = {**answers["raises"], "d": True}
    lines = assert_refused(checks.which_raise, answers, "reach y's version", raises=data_is_caught)
    assert lines[-1].startswith('✗ raises["d"]: it is False')
    assert_refused(checks.which_raise, answers, "is a dict", raises=[False, True, True, False])


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("a", "which tensor does exp save"),
        ("b", "what does y * y save"),
        ("c", "through detach() reach"),
        ("d", "through .data reach"),
    ],
)
def test_ex3_a_wrong_prediction_shows_its_snippets_own_hint(answers, key, words):
    flipped = {**answers["raises"], key: not answers["raises"][key]}
    lines = assert_refused(checks.which_raise, answers, words, raises=flipped)
    assert lines[-1].startswith(f'✗ raises["{key}"]: it is {answers["raises"][key]}')


# ----- ex. 4: an update step that autograd can see -----------------------------------------------
def step_through_data(w, lr):
    w.data -= lr * w.grad
    w.grad = None


def step_setting_data(w, lr):
    w.data = w.data - lr * w.grad
    w.grad = None


def step_rebinding(w, lr):
    w = w - lr * w.grad  # a new tensor: the caller's w never moves
    w.grad = None


def step_outside_no_grad(w, lr):
    w -= lr * w.grad
    w.grad = None


def step_keeping_the_grad(w, lr):
    with agk.no_grad():
        w -= lr * w.grad
    w.grad.zero_()


def step_with_sub_(w, lr):
    with agk.no_grad():
        w.sub_(w.grad * lr)
    w.grad = None


def step_through_detach(w, lr):
    w.detach().sub_(lr * w.grad)  # shares w's version counter: autograd sees it
    w.grad = None


def step_with_the_library_optimizer(w, lr):
    agk.optim.SGD([w], lr=lr).step()  # the library's step: the exercise asks for your own
    w.grad = None


KEPT_SGD = agk.optim.SGD  # kept before the check, as a notebook cell may


def step_with_a_kept_optimizer(w, lr):
    optimizer = KEPT_SGD([w], lr=lr)
    optimizer.step()
    optimizer.zero_grad()


def test_ex4_the_library_optimizer_is_refused(answers):
    # issue 29, family 8: the library's optimizer passed where a hand-written step is asked for
    for shortcut in (step_with_the_library_optimizer, step_with_a_kept_optimizer):
        assert_refused(
            checks.step_in_place, answers, "without the library function", sgd_step=shortcut
        )
        assert_refused(checks.steps_train, answers, "", sgd_step=shortcut)


def step_under_inference_mode(w, lr):
    with agk.inference_mode():  # an honest alternative to no_grad()
        w -= lr * w.grad
    w.grad = None


def test_ex4_an_in_place_step_autograd_can_see_passes(answers):
    honest = (answers["sgd_step"], step_with_sub_, step_through_detach, step_under_inference_mode)
    for correct in honest:
        assert_passes(checks.step_in_place, answers, sgd_step=correct)
        assert_passes(checks.steps_train, answers, sgd_step=correct)


def test_ex4_a_step_through_data_is_refused(answers):
    for shortcut in (step_through_data, step_setting_data):
        assert_refused(
            checks.step_in_place, answers, "hidden from the version counter", sgd_step=shortcut
        )
        assert_refused(checks.steps_train, answers, "", sgd_step=shortcut)


def test_ex4_rebinding_or_recording_the_step_is_refused(answers):
    assert_refused(checks.step_in_place, answers, "w - lr * w.grad", sgd_step=step_rebinding)
    assert_refused(
        checks.step_in_place, answers, "raised RuntimeError", sgd_step=step_outside_no_grad
    )


def test_ex4_a_gradient_left_behind_is_refused(answers):
    assert_refused(
        checks.step_in_place, answers, "forget the used gradient", sgd_step=step_keeping_the_grad
    )


# ----- ex. 5: a target that stays put -----------------------------------------------------------
def target_under_no_grad(model, x, noise):
    with agk.no_grad():
        target = model(x)
    return agk.nn.functional.mse_loss(model(x + noise), target)


def target_not_detached(model, x, noise):
    return ((model(x + noise) - model(x)) ** 2).mean()  # the target moves too


def prediction_detached(model, x, noise):
    return ((model(x + noise).detach() - model(x)) ** 2).mean()  # the wrong side cut


def both_detached(model, x, noise):
    return ((model(x + noise) - model(x)) ** 2).mean().detach()


def test_ex5_a_target_cut_from_the_graph_passes(answers):
    assert_passes(checks.stopped_target, answers)
    assert_passes(checks.stopped_target, answers, consistency_loss=target_under_no_grad)


@pytest.mark.parametrize(
    ("shortcut", "words"),
    [
        (target_not_detached, "cut it out of the graph"),
        (prediction_detached, "cut it out of the graph"),
        (both_detached, "still recorded"),
    ],
)
def test_ex5_a_moving_target_or_a_cut_prediction_is_refused(answers, shortcut, words):
    assert_refused(checks.stopped_target, answers, words, consistency_loss=shortcut)


# ----- ex. 6: which operation made the nan? -------------------------------------------------------
def nan_origin_from_node_hooks(loss_fn, x):
    """The same search without anomaly detection: a hook on every node looks at what it
    returns, in the order the engine runs them."""
    loss, found, stack, seen = loss_fn(x), [], [], set()
    stack.append(loss.grad_fn)
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)

        def look(grad_inputs, grad_outputs, node=node):
            if not found and any(g is not None and bool(g.isnan().any()) for g in grad_inputs):
                found.append(node.name())

        node.register_hook(look)
        stack.extend(child for child, _ in node.next_functions)
    loss.backward()
    return found[0] if found else None


def nan_origin_left_on(loss_fn, x):
    agk.autograd.set_detect_anomaly(True)
    try:
        loss_fn(x).backward()
    except RuntimeError as error:
        return str(error).split("'")[1]
    return None


def nan_origin_without_the_nan_check(loss_fn, x):
    with agk.autograd.detect_anomaly(check_nan=False):
        try:
            loss_fn(x).backward()
        except RuntimeError as error:
            return str(error).split("'")[1]
    return None


def nan_origin_first_risky_node(loss_fn, x):
    """Reads the graph, not the numbers: the first node that could make a nan."""
    stack, risky = [loss_fn(x).grad_fn], ("Sqrt", "Log", "Div", "Pow")
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.name().startswith(risky):
            return node.name()
        stack.extend(child for child, _ in node.next_functions)
    return None


def nan_origin_from_the_root(loss_fn, x):
    return loss_fn(x).grad_fn.name()


def test_ex6_anomaly_detection_or_a_hook_on_every_node_passes(answers):
    assert_passes(checks.nan_found, answers)
    assert_passes(checks.nan_found, answers, nan_origin=nan_origin_from_node_hooks)


@pytest.mark.parametrize(
    ("shortcut", "words"),
    [
        (nan_origin_left_on, "switch it on only"),
        (nan_origin_without_the_nan_check, "or None when none"),
        (nan_origin_first_risky_node, "the backward pass"),  # no backward pass at all
        (nan_origin_from_the_root, "the backward pass"),
        (lambda loss_fn, x: "SqrtBackward0", "the backward pass"),
    ],
)
def test_ex6_a_guess_from_the_graph_or_detection_left_on_is_refused(answers, shortcut, words):
    assert_refused(checks.nan_found, answers, words, nan_origin=shortcut)
    assert not agk.is_anomaly_enabled()
