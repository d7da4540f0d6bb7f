"""Notebook 03's exercises: the lesson's mechanism passes, its shortcuts do not."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd import functional

from .exercises import (
    assert_passes,
    assert_refused,
    checks_of,
    english_reference,
    solution,
    translations,
    verdicts,
)

pytestmark = pytest.mark.slow(11)  # every shortcut judged on every seed and in each language

NB = "03_nonscalar_leaves_jacobians"
checks = checks_of(NB)


# the English solutions (the fixture every test judges against), and the test that each other
# edition's solutions are observed alike (so they would give the very same verdicts)
answers, test_each_editions_solutions_are_observed_as_the_english = english_reference(
    NB, checks, lambda edition: _solutions(edition)
)


def _solutions(edition: str) -> dict:
    found = {}
    for grade_id in (
        "nb03_ex1_predict_weights",
        "nb03_ex2_find_the_bug",
        "nb03_ex3_vjp_by_hand",
        "nb03_ex4_jacobian",
    ):
        found.update(solution(NB, grade_id, edition))
    return found


# ----- ex. 1: a starting gradient that picks one output ------------------------------------------
def test_ex1_the_weights_of_the_example_above_are_refused_and_then_revealed(answers):
    assert_passes(checks.weighted_prediction, answers)
    assert_passes(
        checks.weighted_prediction,
        answers,
        predicted_x_grad=[2, 4],
        predicted_y_grad=np.array([[0.0, 2.0], [0.0, 1.0]]),
    )
    copied = {"predicted_x_grad": agk.tensor([1.0, 3.0]), "predicted_y_grad": [[2, 0], [1, 0]]}
    lines = assert_refused(checks.weighted_prediction, answers, "not your prediction", **copied)
    assert lines == [
        "✗ x.grad: it is [2., 4.], not your prediction (only z[0, 1] counts: what multiplies x "
        "in it?)"
    ]
    wrong_y = {"predicted_y_grad": agk.tensor([[0.0, 1.0], [0.0, 2.0]])}
    assert_refused(checks.weighted_prediction, answers, "which column", **wrong_y)
    row = {"predicted_x_grad": agk.tensor([[2.0, 4.0]])}
    assert_refused(checks.weighted_prediction, answers, "expected shape (2,)", **row)


# ----- ex. 2: integer quantities -------------------------------------------------------------
def classmate(total_fn, quantities):
    quantities.requires_grad_()
    total = total_fn(quantities)
    total.backward()
    return quantities.grad


def finite_differences(total_fn, quantities):
    """The gradient without backward(): nudge each quantity (passed the old checker's idea)."""
    base = quantities.numpy().astype(np.float64)
    grad = np.zeros_like(base)
    for index in np.ndindex(base.shape):
        step = np.zeros_like(base)
        step[index] = 1e-4
        up = total_fn(agk.tensor(base + step)).item()
        down = total_fn(agk.tensor(base - step)).item()
        grad[index] = (up - down) / 2e-4
    return agk.tensor(grad)


def price_per_item(total_fn, quantities):
    """What the gradient of a plain sum of prices is: the total of one item of each kind."""
    rows = [total_fn(agk.eye(quantities.numel())[i]) for i in range(quantities.numel())]
    return agk.stack(rows).reshape(*quantities.shape)


def grad_of_the_original(total_fn, quantities):
    q = quantities.float().requires_grad_()
    total_fn(q).backward()
    return quantities.grad  # the integer tensor got nothing


def caller_made_float(total_fn, quantities):
    quantities.data = quantities.data.float()  # "fixes" the caller's tensor itself
    quantities.requires_grad_()
    total_fn(quantities).backward()
    return quantities.grad


def through_autograd_grad(total_fn, quantities):
    q = quantities.to(agk.float64).requires_grad_()
    return agk.autograd.grad(total_fn(q), q)[0]


def test_ex2_a_float_copy_passes(answers):
    assert_passes(checks.integer_quantities, answers)
    assert_passes(checks.integer_quantities, answers, quantity_grad=through_autograd_grad)
    assert_passes(checks.order_book, answers)
    assert_passes(checks.order_book, answers, quantity_grad=through_autograd_grad)


def test_ex2_the_classmates_code_raises(answers):
    assert_refused(
        checks.integer_quantities, answers, "raised RuntimeError", quantity_grad=classmate
    )


def test_ex2_a_gradient_found_without_backward_is_refused(answers):
    for shortcut in (finite_differences, price_per_item):
        assert_refused(checks.integer_quantities, answers, "one backward()", quantity_grad=shortcut)
    assert_refused(checks.order_book, answers, "one backward()", quantity_grad=finite_differences)


def finite_differences_and_an_empty_backward(total_fn, quantities):
    agk.tensor(0.0, requires_grad=True).backward()  # the one backward() the old check counted
    return finite_differences(total_fn, quantities)


def test_ex2_an_empty_backward_beside_the_gradient_is_refused(answers):
    # Issue 29, family 3: any backward() counted; now a pass counts when it runs the total's
    # own graph.
    shortcut = finite_differences_and_an_empty_backward
    assert_refused(checks.integer_quantities, answers, "one backward()", quantity_grad=shortcut)


def test_ex2_the_wrong_tensor_or_a_changed_caller_is_refused(answers):
    assert_refused(
        checks.integer_quantities,
        answers,
        "expected a number",
        quantity_grad=grad_of_the_original,
    )
    assert_refused(
        checks.integer_quantities, answers, "leave the caller's", quantity_grad=caller_made_float
    )
    assert_refused(
        checks.order_book, answers, "leave the caller's", quantity_grad=caller_made_float
    )


# ----- ex. 3: a vector-Jacobian product by hand --------------------------------------------------
def jacobian_numpy(x0, x1):
    return np.array([[x1**3, 3 * x0 * x1 * x1], [1.0, 3.0]])


def vjp_numpy(x0, x1, v0, v1):
    return np.array([v0, v1]) @ jacobian_numpy(x0, x1)


def jacobian_by_autograd(x0, x1):
    rows = []
    for i in range(2):
        x = agk.tensor([x0, x1], requires_grad=True)
        agk.stack([x[0] * x[1] ** 3, x[0] + 3 * x[1]])[i].backward()
        rows.append(x.grad.tolist())
    return rows


def vjp_by_autograd(x0, x1, v0, v1):
    x = agk.tensor([x0, x1], requires_grad=True)
    agk.stack([x[0] * x[1] ** 3, x[0] + 3 * x[1]]).backward(agk.tensor([v0, v1]))
    return x.grad.tolist()


def test_ex3_plain_arithmetic_and_numpy_pass(answers):
    assert_passes(checks.vjp_written_by_hand, answers)
    numpy_style = {"jacobian_by_hand": jacobian_numpy, "vjp_by_hand": vjp_numpy}
    assert_passes(checks.vjp_written_by_hand, answers, **numpy_style)


def test_ex3_numbers_typed_in_at_the_old_point_are_refused(answers):
    typed_in = {
        "jacobian_by_hand": lambda x0, x1: [[1.0, 2.0], [1.0, 3.0]],
        "vjp_by_hand": lambda x0, x1, v0, v1: [3.0, 8.0],
    }
    assert_refused(checks.vjp_written_by_hand, answers, "row i holds", **typed_in)


def test_ex3_autograd_is_switched_off(answers):
    for shortcut in (
        {"jacobian_by_hand": jacobian_by_autograd},
        {"vjp_by_hand": vjp_by_autograd},
    ):
        assert_refused(checks.vjp_written_by_hand, answers, "do it yourself", **shortcut)


def vjp_by_calling_nodes(x0, x1, v0, v1):
    a, b = agk.tensor(x0, requires_grad=True), agk.tensor(x1, requires_grad=True)
    cube = b**3
    product = a * cube
    with agk.no_grad():  # the library's local derivatives, without its engine
        da, dcube = product.grad_fn(agk.tensor(v0))
        (db,) = cube.grad_fn(dcube)
    return [da.item() + v1, db.item() + 3 * v1]


def test_ex3_node_calls_are_refused(answers):
    # Issue 29, family 2: calling a grad_fn node never reached the patched run_backward.
    assert vjp_by_calling_nodes(1.0, 2.0, 1.0, 1.0) == [9.0, 15.0]
    assert_refused(
        checks.vjp_written_by_hand, answers, "do it yourself", vjp_by_hand=vjp_by_calling_nodes
    )


def central_differences_by_hand(step):
    """J and vᵀJ from difference quotients of y, at a step of ``step``."""

    def y(x0, x1):
        return np.array([x0 * x1**3, x0 + 3 * x1])

    def jacobian(x0, x1):
        columns = [
            (y(x0 + step, x1) - y(x0 - step, x1)) / (2 * step),
            (y(x0, x1 + step) - y(x0, x1 - step)) / (2 * step),
        ]
        return np.stack(columns, axis=1).tolist()

    def vjp(x0, x1, v0, v1):
        return (np.array([v0, v1]) @ np.array(jacobian(x0, x1))).tolist()

    return {"jacobian_by_hand": jacobian, "vjp_by_hand": vjp}


def test_ex3_central_differences_miss_at_every_step(answers):
    # Issue 29, family 4: on the old y = (x0·x1, x0 + 3·x1) central differences are exact at
    # any step (y is bilinear); x1³ curves, and the check wants the exact derivatives.
    for step in (1.0, 1e-3, 1e-5, 1e-7):
        assert_refused(
            checks.vjp_written_by_hand, answers, "row i holds", **central_differences_by_hand(step)
        )


def test_ex3_a_transposed_jacobian_or_jv_is_refused(answers):
    transposed = lambda x0, x1: [[x1**3, 1.0], [3 * x0 * x1**2, 3.0]]  # noqa: E731
    assert_refused(checks.vjp_written_by_hand, answers, "row i holds", jacobian_by_hand=transposed)
    jv = lambda x0, x1, v0, v1: list(jacobian_numpy(x0, x1) @ [v0, v1])  # noqa: E731
    assert_refused(checks.vjp_written_by_hand, answers, "over the rows i", vjp_by_hand=jv)


# ----- ex. 4: a Jacobian from backward passes ----------------------------------------------------
def rows_by_grad(f, x):
    x_leaf = x.detach().clone().requires_grad_()
    y = f(x_leaf)
    eye = agk.eye(y.numel(), dtype=y.dtype)
    rows = [agk.autograd.grad(y, x_leaf, eye[i], retain_graph=True)[0] for i in range(len(eye))]
    return agk.stack(rows)


def rows_by_grad_indexed(f, x):
    rows = []
    for i in range(f(x).numel()):  # a fresh graph for each row, y[i] as the scalar root
        x_leaf = x.detach().clone().requires_grad_()
        f(x_leaf)[i].backward()
        rows.append(x_leaf.grad)
    return agk.stack(rows)


def library_jacobian(f, x):
    return functional.jacobian(f, x)


def rows_by_library_vjp(f, x):
    y = f(x)
    eye = agk.eye(y.numel(), dtype=y.dtype)
    return agk.stack([functional.vjp(f, x, eye[i])[1] for i in range(y.numel())])


def columns_by_library_jvp(f, x):
    eye = agk.eye(x.numel(), dtype=x.dtype)
    return agk.stack([functional.jvp(f, x, eye[j])[1] for j in range(x.numel())], dim=1)


def central_differences(f, x):
    base, columns = x.detach().numpy().astype(np.float64), []
    for j in range(base.size):
        step = np.zeros_like(base)
        step[j] = 1e-6
        up, down = f(agk.tensor(base + step)), f(agk.tensor(base - step))
        columns.append((up.numpy() - down.numpy()) / 2e-6)
    return agk.tensor(np.stack(columns, axis=1))


def differences_and_empty_backwards(f, x):
    jacobian = central_differences(f, x)
    for _ in range(len(jacobian)):  # the count of backward passes the old check wanted
        agk.tensor(0.0, requires_grad=True).backward()
    return jacobian


def rows_not_cleared(f, x):
    x_leaf = x.detach().clone().requires_grad_()
    y, rows = f(x_leaf), []
    for i in range(y.numel()):
        one_hot = agk.zeros_like(y)
        one_hot[i] = 1.0
        y.backward(one_hot, retain_graph=True)
        rows.append(x_leaf.grad.clone())
    return agk.stack(rows)


def diagonal_from_one_pass(f, x):
    x_leaf = x.detach().clone().requires_grad_()
    f(x_leaf).backward(agk.ones_like(f(x_leaf)))  # "ones, as in section 10"
    return agk.tensor(np.diag(x_leaf.grad.numpy()))


def on_x_itself(f, x):
    x.requires_grad_()
    y, rows = f(x), []
    for i in range(y.numel()):
        one_hot = agk.zeros_like(y)
        one_hot[i] = 1.0
        y.backward(one_hot, retain_graph=True)
        rows.append(x.grad.clone())
        x.grad = None
    return agk.stack(rows)


def test_ex4_rows_from_backward_or_grad_pass(answers):
    assert_passes(checks.jacobian_rows, answers)
    assert_passes(checks.jacobian_rows, answers, jacobian=rows_by_grad)
    assert_passes(checks.jacobian_rows, answers, jacobian=rows_by_grad_indexed)
    assert_passes(checks.jacobian_of_a_parameter, answers)
    assert_passes(checks.jacobian_of_a_parameter, answers, jacobian=rows_by_grad)


def test_ex4_empty_backward_passes_beside_differences_are_refused(answers):
    # Issue 29, family 3: one empty backward() per row made the old count of passes.
    assert_refused(
        checks.jacobian_rows, answers, "one-hot", jacobian=differences_and_empty_backwards
    )


def test_ex4_the_librarys_jacobian_and_its_helpers_are_refused(answers):
    for shortcut in (
        functional.jacobian,
        library_jacobian,
        rows_by_library_vjp,
        columns_by_library_jvp,
    ):
        assert_refused(checks.jacobian_rows, answers, "do it yourself", jacobian=shortcut)
        assert_refused(checks.jacobian_of_a_parameter, answers, "do it yourself", jacobian=shortcut)


def test_ex4_the_library_works_again_after_the_check(answers):
    assert_refused(checks.jacobian_rows, answers, "do it yourself", jacobian=library_jacobian)
    found = functional.jacobian(lambda t: t * t.sum(), agk.tensor([1.0, 2.0]))
    assert np.allclose(found.numpy(), [[4.0, 1.0], [2.0, 5.0]])


def test_ex4_finite_differences_are_refused(answers):
    assert_refused(checks.jacobian_rows, answers, "one backward pass", jacobian=central_differences)


def test_ex4_rows_left_to_pile_up_or_one_pass_with_ones_are_refused(answers):
    assert_refused(checks.jacobian_rows, answers, "clear .grad", jacobian=rows_not_cleared)
    assert_refused(
        checks.jacobian_rows, answers, "one backward pass", jacobian=diagonal_from_one_pass
    )


def test_ex4_differentiating_x_itself_is_refused(answers):
    assert_refused(checks.jacobian_rows, answers, "fresh leaf copy", jacobian=on_x_itself)
    assert_refused(checks.jacobian_of_a_parameter, answers, "", jacobian=on_x_itself)


# ----- the feedback in Simplified Chinese --------------------------------------------------------
def last_line_in_chinese(check, reference: dict, **shortcut) -> str:
    """The last line a shortcut gets in the zh-CN edition, on a grading seed."""
    (zh,) = [tr for tr in translations(check) if tr.language == "zh-CN"]
    (verdict,) = verdicts(check, reference, {**reference, **shortcut}, seeds=(11,), tr=zh)
    assert not verdict.passed
    return verdict.lines[-1]


def test_the_shortcuts_are_told_why_in_chinese_through_and_through(answers):
    copied = {"predicted_x_grad": agk.tensor([1.0, 3.0])}
    assert last_line_in_chinese(checks.weighted_prediction, answers, **copied) == (
        "✗ x.grad：实际是 [2., 4.]，不是你预测的结果"
        "（提示：只有 z[0, 1] 计入：它的式子里，和 x 相乘的是什么？）"
    )
    assert last_line_in_chinese(checks.integer_quantities, answers, quantity_grad=classmate) == (
        "✗ 练习 2：对整数的购买数量求梯度：你的代码抛出了 RuntimeError"
    )
    assert last_line_in_chinese(
        checks.integer_quantities, answers, quantity_grad=finite_differences
    ) == (
        "✗ sum(prices * q) 的反向传播次数：不对"
        "（提示：让自动求导去求梯度：对总价调用一次 backward()）"
    )
    assert last_line_in_chinese(
        checks.integer_quantities, answers, quantity_grad=caller_made_float
    ) == (
        "✗ 算完 sum(prices * q) 之后，quantities 仍是原来那些整数：不对"
        "（提示：创建一个需要梯度的浮点型副本，不要改动调用者的张量）"
    )
    by_autograd = {"vjp_by_hand": vjp_by_autograd}
    assert last_line_in_chinese(checks.vjp_written_by_hand, answers, **by_autograd) == (
        "✗ 练习 3：手算 y = (x0·x1³, x0 + 3·x1) 的雅可比矩阵和 vᵀJ："
        "这道练习要求你自己动手实现，不能调用库里现成的函数"
    )
    assert last_line_in_chinese(checks.jacobian_rows, answers, jacobian=rows_not_cleared) == (
        "✗ x ** 2 的雅可比矩阵：数值不对"
        "（提示：第 i 行来自以独热向量 e_i 为 gradient 的一次反向传播；算下一行之前要清空 .grad）"
    )
    assert last_line_in_chinese(checks.jacobian_rows, answers, jacobian=on_x_itself) == (
        "✗ x 保持原样：不对（提示：照第 1 步说的，对 x 的一个新叶子节点副本求导）"
    )
