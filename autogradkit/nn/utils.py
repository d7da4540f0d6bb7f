"""``nn.utils``: gradient clipping, what a training loop calls between backward and step."""

from __future__ import annotations

import math

from .._functions import stack
from ..autograd.grad_mode import no_grad
from ..creation import tensor
from ..tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


@no_grad()
def clip_grad_norm_(
    parameters,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
) -> Tensor:
    """Scale every ``.grad`` by ``max_norm / total_norm`` when the total norm is larger.

    The total norm is the norm of the per-parameter gradient norms, as if all gradients were
    one long vector. Returns it (before clipping), as PyTorch does.

    Example:
        >>> import autogradkit as agk
        >>> w = agk.zeros(2, requires_grad=True)
        >>> w.grad = agk.tensor([3., 4.])
        >>> agk.nn.utils.clip_grad_norm_(w, 1.0), w.grad
        (tensor(5.), tensor([0.6000, 0.8000]))
    """
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    norm_type = float(norm_type)
    if not grads:
        return tensor(0.0)
    norms = [g.norm(norm_type) for g in grads]
    total_norm = stack(norms).norm(norm_type)
    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    clip_coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(clip_coef)  # by 1.0 when the norm is already small enough, as PyTorch does
    return total_norm


@no_grad()
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every ``.grad`` into ``[-clip_value, clip_value]`` in place."""
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
