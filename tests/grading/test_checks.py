"""checks.py: one ✓/✗ line, AssertionError on failure, never the expected value."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.grading.checks import (
    check_close,
    check_gradients,
    check_raises,
    check_shapes,
    check_true,
)


def test_check_close_passes_with_one_line(capsys):
    assert check_close("double", agk.tensor([1.0, 2.0]) * 2, np.array([2.0, 4.0])) is True
    assert capsys.readouterr().out == "✓ double\n"


def test_check_close_failure_prints_and_raises_without_expected_value(capsys):
    with pytest.raises(AssertionError, match=r"^loss: use the mean \(the values are not close"):
        check_close("loss", 3.25, 7.125, hint="use the mean")
    out = capsys.readouterr().out
    assert out.startswith("✗ loss: use the mean") and "7.125" not in out


def test_check_close_names_shape_sign_nan_and_type():
    cases = [
        ([1.0, 2.0], [1.0], "expected shape (1,), got (2,)"),
        ([-2.0], [2.0], "the sign is wrong"),
        ([np.nan], [1.0], "the result contains NaN"),
        ("text", [1.0], "not str"),
    ]
    for actual, expected, message in cases:
        with pytest.raises(AssertionError, match=message.replace("(", r"\(").replace(")", r"\)")):
            check_close("t", actual, expected)


def test_check_true_accepts_a_tensor(capsys):
    check_true("positive", agk.tensor(True))
    with pytest.raises(AssertionError, match="t: look here"):
        check_true("t", False, hint="look here")


def test_check_shapes_spots_a_transpose():
    assert check_shapes("ok", np.zeros((2, 3)), (2, 3))
    with pytest.raises(AssertionError, match=r"transposed\?"):
        check_shapes("logits", agk.zeros(3, 2), (2, 3))


def test_check_gradients_names_the_wrong_gradient():
    w = agk.tensor([1.0, 2.0], requires_grad=True)
    b = agk.tensor(0.5, requires_grad=True)
    (w * w * b).sum().backward()  # dw = 2 w b = [1, 2], db = sum(w^2) = 5
    assert check_gradients("grads", {"w": w, "b": b}, {"w": [1.0, 2.0], "b": 5.0})
    with pytest.raises(AssertionError, match="the gradient of b has the wrong sign"):
        check_gradients("grads", {"w": w, "b": b}, {"w": [1.0, 2.0], "b": -5.0})
    with pytest.raises(AssertionError, match=r"gradient of input 0 should have shape \(3,\)"):
        check_gradients("grads", [w], [[1.0, 2.0, 3.0]])


def test_check_gradients_suggests_zero_grad_for_accumulated_gradients():
    w = agk.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        (w * w).sum().backward()
    with pytest.raises(AssertionError, match=r"3x too large: did you forget zero_grad\(\)\?"):
        check_gradients("dw", w, [2.0, 4.0])


def test_check_gradients_reports_a_missing_gradient():
    with pytest.raises(AssertionError, match="gradient of x is None: did you call backward"):
        check_gradients("dx", {"x": agk.tensor([1.0], requires_grad=True)}, {"x": [1.0]})


def test_check_raises_cases(capsys):
    assert check_raises("index", lambda: [][1], IndexError)
    with pytest.raises(AssertionError, match="no ValueError was raised"):
        check_raises("r", lambda: None, ValueError)
    with pytest.raises(AssertionError, match="raised KeyError instead of ValueError"):
        check_raises("r", lambda: {}["k"], ValueError)
    with pytest.raises(AssertionError, match="with a different message"):
        check_raises("r", lambda: int("x"), ValueError, match="shape")


def test_messages_are_deterministic(capsys):
    for _ in range(2):
        with pytest.raises(AssertionError):
            check_close("same", [1.0, 2.0], [1.0, 3.0])
    first, second = capsys.readouterr().out.splitlines()
    assert first == second == "✗ same: the values are not close enough"
