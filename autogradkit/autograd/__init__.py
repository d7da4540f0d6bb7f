"""``autogradkit.autograd``: the graph and how backward walks it.

Read ``engine.py`` first: a tensor's autograd state, the nodes, what ``Function.apply``
records for one op, and what ``backward()`` does. Below it (it imports them): ``hooks.py``
(running the hooks you register),
``outputs.py`` (several outputs and views), ``variable.py`` (the methods the lesson never
calls, version counters) and ``grad_mode.py``. Beside it (they import it):
``custom_function.py`` (your own Functions: ``autograd.Function``), ``saved.py`` (what
forward kept, beyond the arrays an op's backward reads), ``targets.py`` (backward toward
chosen tensors: ``grad``, ``backward(inputs=...)``).
``functional`` (Jacobians, vjp, hvp...) is built on the Tensor API; ``autogradkit`` loads it
after ``tensor.py``.
"""

from __future__ import annotations

# saved.py and targets.py hand the engine their parts when they load; custom_function.py has
# autograd.Function
from . import custom_function, engine, graph, saved, targets  # noqa: F401
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .engine import backward
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .targets import grad

__all__ = [
    "Variable",
    "Function",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "backward",
    "grad",
    "graph",
    "engine",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
]


def Variable(data, requires_grad: bool = False):  # noqa: N802  (PyTorch's historical name)
    """What ``Variable`` became: since PyTorch 0.4 it just returns a Tensor.

    Tensors themselves now carry ``requires_grad``, ``grad`` and ``grad_fn``.
    """
    t = data.detach()
    if requires_grad:
        t.requires_grad_()
    return t
