"""Grad mode: the one switch that says whether operations record a graph."""

from __future__ import annotations

import functools
import inspect

_enabled = True  # the grad-mode flag: read by Function.apply on every operation


def is_grad_enabled() -> bool:
    """True when operations record the graph (the default)."""
    return _enabled


class _GradModeContext:
    """Sets the flag on entry and restores the previous one on exit, even after an error.

    Instances also work as decorators: ``@no_grad()`` (or bare ``@no_grad``) runs the
    function inside the block; a decorated generator runs each of its steps inside it,
    while the caller keeps its own mode between steps.
    """

    mode = True

    def __new__(cls, *args):
        if args and callable(args[0]):  # used bare: ``@no_grad`` decorates at once
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self) -> None:
        global _enabled
        self._previous = _enabled
        _enabled = self.mode

    def __exit__(self, *exc_info) -> None:
        global _enabled
        _enabled = self._previous

    def __call__(self, fn):
        make_context = self.clone  # a fresh one per call: calls may nest or recurse
        if inspect.isgeneratorfunction(fn):
            return _in_mode_step_by_step(make_context, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_context():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self) -> _GradModeContext:
        """A new context that sets the same mode."""
        return type(self)()


def _in_mode_step_by_step(make_context, generator_fn):
    """Wrap a generator function so each step (next, send, throw, close) runs in the mode."""

    @functools.wraps(generator_fn)
    def generator(*args, **kwargs):
        inner = generator_fn(*args, **kwargs)
        resume = functools.partial(inner.send, None)
        while True:
            try:
                with make_context():
                    value = resume()
            except StopIteration as stop:
                return stop.value
            try:
                sent = yield value
            except GeneratorExit:
                with make_context():
                    inner.close()
                raise
            except BaseException as error:  # thrown in by the caller: pass it on, in mode
                resume = functools.partial(inner.throw, error)
            else:
                resume = functools.partial(inner.send, sent)

    return generator


class no_grad(_GradModeContext):
    """Operations inside do not record a graph: faster, lighter, for evaluation and updates.

    Example:
        >>> import autogradkit as agk
        >>> x = agk.tensor(1., requires_grad=True)
        >>> with agk.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    mode = False


class enable_grad(_GradModeContext):
    """Turns recording back on inside a ``no_grad`` block."""

    mode = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode to ``mode``; works at once, as a context manager, or as a decorator."""

    def __init__(self, mode: bool):
        global _enabled
        self._previous = _enabled
        self.mode = bool(mode)
        _enabled = self.mode

    def __new__(cls, mode: bool):
        return object.__new__(cls)

    def __enter__(self) -> None:
        pass  # the flag was already set in __init__, as in PyTorch

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self.mode)

    def __call__(self, fn):
        global _enabled
        _enabled = self._previous  # used as a decorator: only change the mode during calls
        return super().__call__(fn)


class inference_mode(_GradModeContext):
    """Like ``no_grad`` (autogradkit has no separate inference tensors); ``@inference_mode``
    works bare, ``inference_mode(False)`` turns grad mode back on."""

    def __init__(self, mode: bool = True):
        self.mode = not mode

    def clone(self) -> inference_mode:
        return inference_mode(not self.mode)
