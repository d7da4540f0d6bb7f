"""``torch.autograd.function``'s names: ``Function``, ``FunctionCtx``, ``once_differentiable``.

``Function`` and its ``apply`` (what records one op), and ``FunctionCtx`` (the ``ctx``
forward saves into and backward reads from), live with the backward pass that runs their
nodes, in ``engine.py``; your own Functions' way through them is ``custom_function.py``,
whose ``Function`` (a subclass of the engine's that overrides ``_run_custom``) is the one
exported here.
This module gives them PyTorch's module name (``torch.autograd.function.Function``).
"""

from __future__ import annotations

from .custom_function import Function, once_differentiable
from .engine import REGISTRY, FunctionCtx

__all__ = ["Function", "FunctionCtx", "once_differentiable", "REGISTRY"]
