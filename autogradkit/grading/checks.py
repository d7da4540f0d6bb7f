"""Checks for graded test cells: one line of feedback each, never the expected value.

A passing check prints ``✓ <task>`` and returns True. A failing one prints
``✗ <task>: <hint>`` and raises ``AssertionError("<task>: <hint>")`` so the grader sees the cell
fail. Every message is deterministic text (nbval compares it) and says *what* is wrong (shape,
sign, NaN, a gradient that accumulated twice) without giving the answer away.
"""

from __future__ import annotations

import re
import signal
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from ..tensor import Tensor

__all__ = [
    "check_close",
    "check_true",
    "check_shapes",
    "check_gradients",
    "check_raises",
    "BuildItYourself",
    "refuse_library",
    "count_calls",
    "time_limit",
]


def _passed(task: str) -> bool:
    print(f"✓ {task}")
    return True


def _failed(task: str, reason: str, hint: str = "") -> None:
    """Print the ✗ line and raise; the student's hint comes first, our diagnosis after it."""
    message = f"{hint} ({reason})" if hint else reason
    print(f"✗ {task}: {message}")
    raise AssertionError(f"{task}: {message}")


def _as_array(value, what: str) -> np.ndarray | str:
    """A float NumPy array for a Tensor, array or number; otherwise a reason string."""
    if isinstance(value, Tensor):
        value = value.detach().numpy()
    if value is None:
        return f"{what} is None"
    if isinstance(value, (str, bytes)) or callable(value):
        return f"{what} should be a tensor, an array or a number, not {type(value).__name__}"
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return f"{what} should be a tensor, an array or a number, not {type(value).__name__}"
    return array


def _shape_text(shape: tuple[int, ...]) -> str:
    return str(tuple(int(n) for n in shape))


def _diagnose(actual: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> str:
    """Why ``actual`` is not close to ``expected``, in words; "" when it is close."""
    if actual.shape != expected.shape:
        return f"expected shape {_shape_text(expected.shape)}, got {_shape_text(actual.shape)}"
    if np.isnan(actual).any() and not np.isnan(expected).any():
        return "the result contains NaN"
    if np.isinf(actual).any() and not np.isinf(expected).any():
        return "the result contains inf"
    if np.allclose(actual, expected, atol=atol, rtol=rtol, equal_nan=True):
        return ""
    flipped = np.allclose(actual, -expected, atol=atol, rtol=rtol)
    if flipped and np.abs(expected).max(initial=0) > atol:
        return "the sign is wrong"
    if not actual.any() and expected.any():
        return "the result is all zeros"
    return "the values are not close enough"


def check_close(
    task: str, actual, expected, *, atol: float = 1e-6, rtol: float = 1e-4, hint: str = ""
) -> bool:
    """Check that ``actual`` equals ``expected`` within ``atol + rtol * |expected|``.

    Args:
        task: short name shown to the student, e.g. ``"loss at w=0"``.
        actual: the student's value (Tensor, NumPy array or number).
        expected: the right value, computed in code (never printed).
        atol: absolute tolerance.
        rtol: relative tolerance.
        hint: what to look at when it fails.

    Returns:
        True; a mismatch raises ``AssertionError`` after printing one ``✗`` line.

    Example:
        >>> import autogradkit as agk
        >>> check_close("double", agk.tensor([1., 2.]) * 2, [2., 4.])
        ✓ double
        True
        >>> check_close("half", 1.0, -1.0, hint="divide, do not negate")
        Traceback (most recent call last):
        ...
        AssertionError: half: divide, do not negate (the sign is wrong)
    """
    got, want = _as_array(actual, "the result"), _as_array(expected, "the expected value")
    if isinstance(want, str):
        raise TypeError(f"check_close({task!r}): {want}")
    if isinstance(got, str):
        _failed(task, got, hint)
    reason = _diagnose(got, want, atol, rtol)
    if reason:
        _failed(task, reason, hint)
    return _passed(task)


def check_true(task: str, condition, hint: str = "") -> bool:
    """Check that ``condition`` is true (a bool, or a one-element Tensor/array).

    Example:
        >>> check_true("positive", 3 > 0)
        ✓ positive
        True
    """
    if isinstance(condition, Tensor):
        condition = condition.detach().numpy()
    if not bool(np.all(condition)):
        _failed(task, "the condition is false", hint)
    return _passed(task)


def check_shapes(task: str, actual, expected_shape: Sequence[int], hint: str = "") -> bool:
    """Check the shape of a Tensor or array; says when it is the transpose.

    Example:
        >>> import numpy as np
        >>> check_shapes("logits", np.zeros((4, 3)), (3, 4))
        Traceback (most recent call last):
        ...
        AssertionError: logits: expected shape (3, 4), got (4, 3) (transposed?)
    """
    if actual is None or not hasattr(actual, "shape"):
        _failed(task, f"expected a tensor or array, got {type(actual).__name__}", hint)
    got, want = tuple(actual.shape), tuple(expected_shape)
    if got != want:
        reason = f"expected shape {_shape_text(want)}, got {_shape_text(got)}"
        if len(got) == 2 and got[::-1] == want:
            reason += " (transposed?)"
        _failed(task, reason, hint)
    return _passed(task)


def _named(tensors, expected) -> list[tuple[str, object, object]]:
    """Pair tensors with expected grads: a dict gives names, a list gives positions."""
    if isinstance(tensors, Mapping):
        return [(str(name), tensors[name], expected[name]) for name in tensors]
    if isinstance(tensors, (list, tuple)):
        pairs = zip(tensors, expected, strict=True)
        return [(f"input {i}", t, e) for i, (t, e) in enumerate(pairs)]
    return [("the tensor", tensors, expected)]


def _gradient_problem(name: str, tensor, expected, atol: float, rtol: float) -> str:
    """What is wrong with one tensor's ``.grad``, or "" when it is right."""
    grad = getattr(tensor, "grad", None) if isinstance(tensor, Tensor) else tensor
    if grad is None:
        return f"the gradient of {name} is None: did you call backward()? Is requires_grad set?"
    got, want = _as_array(grad, f"the gradient of {name}"), _as_array(expected, "expected")
    if isinstance(got, str):
        return got
    if got.shape != want.shape:
        want_shape, got_shape = _shape_text(want.shape), _shape_text(got.shape)
        return f"the gradient of {name} should have shape {want_shape}, got {got_shape}"
    reason = _diagnose(got, want, atol, rtol)
    if not reason:
        return ""
    if reason == "the sign is wrong":
        return f"the gradient of {name} has the wrong sign"
    scale = float(np.vdot(got, want) / np.vdot(want, want)) if want.any() else 0.0
    if round(scale) >= 2 and np.allclose(got, round(scale) * want, atol=atol, rtol=rtol):
        return f"the gradient of {name} is {round(scale)}x too large: did you forget zero_grad()?"
    return f"the gradient of {name}: {reason}"


def check_gradients(
    task: str,
    tensor_or_tensors,
    expected_grads,
    *,
    atol: float = 1e-6,
    rtol: float = 1e-4,
    hint: str = "",
) -> bool:
    """Check ``.grad`` of one tensor, a list of tensors, or a ``{name: tensor}`` dict.

    The message names the first wrong gradient and what is wrong with it: missing, wrong shape,
    wrong sign, or a whole multiple of the right one (gradients accumulated over several
    ``backward()`` calls: "did you forget zero_grad()?").

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor([1., 2.], requires_grad=True)
        >>> for _ in range(2):
        ...     (w * w).sum().backward()
        >>> check_gradients("dw", {"w": w}, {"w": [2., 4.]})
        Traceback (most recent call last):
        ...
        AssertionError: dw: the gradient of w is 2x too large: did you forget zero_grad()?
    """
    for name, tensor, expected in _named(tensor_or_tensors, expected_grads):
        problem = _gradient_problem(name, tensor, expected, atol, rtol)
        if problem:
            _failed(task, problem, hint)
    return _passed(task)


def check_raises(
    task: str,
    fn: Callable[[], object],
    exc_type: type[BaseException],
    match: str | None = None,
    hint: str = "",
) -> bool:
    """Check that calling ``fn()`` raises ``exc_type`` (message matching the regex ``match``).

    Example:
        >>> check_raises("bad shape", lambda: [][0], IndexError)
        ✓ bad shape
        True
    """
    try:
        fn()
    except exc_type as error:
        if match is not None and not re.search(match, str(error)):
            _failed(task, f"{exc_type.__name__} was raised with a different message", hint)
        return _passed(task)
    except Exception as error:  # the wrong kind of error is feedback, not a crash
        _failed(task, f"raised {type(error).__name__} instead of {exc_type.__name__}", hint)
    _failed(task, f"no {exc_type.__name__} was raised", hint)
    return False  # not reached: _failed raises


class BuildItYourself(RuntimeError):
    """Raised by a library function while an exercise that re-implements it is checked."""


@contextmanager
def refuse_library(owner, *names: str, exercise: str) -> Iterator[None]:
    """While checking a "build it yourself" exercise, ``owner.<name>`` raises instead of working.

    Patch what the library function itself calls at run time (a module global), so that a
    student's earlier ``from ... import jacobian`` is refused too. Always restored.
    """
    originals = {name: getattr(owner, name) for name in names}

    def refused(*args, **kwargs):
        raise BuildItYourself(f"this exercise asks you to build {exercise} yourself")

    try:
        for name in names:
            setattr(owner, name, refused)
        yield
    finally:
        for name, original in originals.items():
            setattr(owner, name, original)


@contextmanager
def count_calls(owner, name: str) -> Iterator[list]:
    """Record every call of ``owner.<name>`` (e.g. ``Tensor.backward``) made inside the block."""
    original, calls = getattr(owner, name), []

    def counted(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    setattr(owner, name, counted)
    try:
        yield calls
    finally:
        setattr(owner, name, original)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``TimeoutError`` in the block after ``seconds`` (main thread only; else no limit).

    A walk that revisits shared nodes takes time exponential in the number of diamonds: the
    limit turns "never finishes" into feedback.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise TimeoutError(f"did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
