"""Anomaly detection: record where each node was made, and stop at the first NaN gradient.

With it on, a node keeps the traceback of the forward call that created it (in
``node.metadata["traceback_"]``, as PyTorch does). When its backward fails, a warning gives
that traceback before the error, and with ``check_nan`` a NaN gradient raises at once.

A debugging mode beside the core: no core module imports this file. While anomaly mode is
on, ``grad_mode.anomaly`` holds its ``Checks``, and the engine hands them each node it
records and each node it runs.
"""

from __future__ import annotations

import traceback
import warnings
from pathlib import Path

import numpy as np

from . import grad_mode

__all__ = [
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_detect_anomaly",
    "detect_anomaly",
]

_mode = {"enabled": False, "check_nan": True}  # the anomaly-mode flags, like grad mode's


def _set(enabled: bool, check_nan: bool) -> None:
    """Set both flags; while anomaly mode is on, the engine runs its ``Checks``."""
    _mode.update(enabled=enabled, check_nan=check_nan)
    grad_mode.anomaly = Checks if enabled else None


def is_anomaly_enabled() -> bool:
    return _mode["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    return _mode["check_nan"]


class set_detect_anomaly:
    """Turn anomaly detection on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self._previous = dict(_mode)
        _set(bool(mode), bool(check_nan))

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        _set(**self._previous)


class detect_anomaly(set_detect_anomaly):
    """Anomaly detection inside a ``with`` block (it slows everything down: debug only)."""

    def __init__(self, check_nan: bool = True):
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )
        self._check_nan = check_nan
        self._previous = dict(_mode)

    def __enter__(self):
        _set(True, self._check_nan)
        return self


_PACKAGE = str(Path(__file__).resolve().parent.parent)


class Checks:
    """What the engine runs while anomaly mode is on (it finds them in ``grad_mode.anomaly``)."""

    # the end of PyTorch's version error while anomaly mode is on (variable.version_message)
    version_hint = (
        "the backtrace further above shows the operation that failed to compute its gradient. "
        "The variable in question was changed in there or anywhere later. Good luck!"
    )

    @staticmethod
    def record_forward(node) -> None:
        """Keep the traceback of the forward call that made ``node`` (your frames, not ours)."""
        frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE)]
        node.metadata["traceback_"] = traceback.format_list(frames)

    @staticmethod
    def run_node(node, grad_outputs):
        """Run ``node``: say where it was made if it fails, and stop at NaN."""
        try:
            grad_inputs = node._backward(grad_outputs)
            if _mode["check_nan"]:
                check_nan(node, grad_inputs)
        except Exception:
            forward_traceback_warning(node)
            raise
        return grad_inputs


def forward_traceback_warning(node) -> None:
    lines = "".join(node.metadata.get("traceback_", []))
    warnings.warn(
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
        f"{lines}",
        UserWarning,
        stacklevel=2,
    )


def check_nan(node, grads) -> None:
    for i, g in enumerate(grads):
        data = getattr(g, "_data", g)
        if data is not None and np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
