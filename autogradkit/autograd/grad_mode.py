"""Grad mode: the one switch that says whether operations record a graph; inference mode; and
where anomaly mode plugs into the engine while it is on (``anomaly``)."""

from __future__ import annotations

from ..utils._contextlib import DecoratorContextManager

__all__ = [
    "is_grad_enabled",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_inference_mode_enabled",
    "inference_mode",
]

_enabled = True  # the grad-mode flag: read by Function.apply on every operation
_inference = False  # inside inference_mode: new tensors are inference tensors
# anomaly mode's checks while it is on, else None (anomaly_mode.py, beside the core, sets it):
# the engine hands them each node it records (``record_forward``) and runs (``run_node``)
anomaly = None


def is_grad_enabled() -> bool:
    """True when operations record the graph (the default)."""
    return _enabled


class _GradModeContext(DecoratorContextManager):
    """Sets the flag on entry and restores the previous one on exit, even after an error.

    Instances also work as decorators (``utils/_contextlib.py``): ``@no_grad()`` or bare
    ``@no_grad`` runs the function inside the block, as in PyTorch.
    """

    mode = True

    def __enter__(self) -> None:  # ``with no_grad() as c`` binds None, as in PyTorch
        global _enabled
        self._previous = _enabled
        _enabled = self.mode

    def __exit__(self, *exc_info) -> None:
        global _enabled
        _enabled = self._previous


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
        self._previous, self._args = _enabled, (mode,)
        self.mode = bool(mode)
        _enabled = self.mode

    def __enter__(self) -> None:
        pass  # the flag was already set in __init__, as in PyTorch

    def __call__(self, fn):
        global _enabled
        _enabled = self._previous  # used as a decorator: only change the mode during calls
        return super().__call__(fn)


def is_inference_mode_enabled() -> bool:
    """True inside an ``inference_mode()`` block."""
    return _inference


class inference_mode(_GradModeContext):
    """``no_grad``, and every tensor made inside is an inference tensor: it has no version
    counter, so it can never be saved for backward or changed in place outside the block.

    Example:
        >>> import autogradkit as agk
        >>> with agk.inference_mode():
        ...     y = agk.ones(2) * 2
        >>> y.is_inference(), y.clone().is_inference()
        (True, False)
    """

    def __init__(self, mode: bool = True):
        self.mode, self._args = not mode, (mode,)  # the grad mode inside: off in inference mode

    def __enter__(self) -> None:
        global _inference
        super().__enter__()
        self._previous_inference, _inference = _inference, not self.mode

    def __exit__(self, *exc_info) -> None:
        global _inference
        super().__exit__(*exc_info)
        _inference = self._previous_inference
