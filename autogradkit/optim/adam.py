"""Adam (with AMSGrad and L2 weight decay) and AdamW (decoupled weight decay)."""

from __future__ import annotations

import math

import numpy as np

from ..autograd.graph import increment_version
from ..creation import tensor, zeros_like
from ..tensor import Tensor
from .optimizer import Optimizer, check_non_negative

__all__ = ["adam_update", "Adam", "AdamW"]


def adam_update(
    p: np.ndarray,
    g: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    step: int,
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float = 0.0,
    amsgrad: bool = False,
    v_max: np.ndarray | None = None,
    maximize: bool = False,
    decoupled_weight_decay: bool = False,
) -> None:
    """One Adam step on arrays (``step`` counts from 1): changes ``p, m, v, v_max`` in place.

    Pseudocode (PyTorch's)::

        g = -g if maximize else g
        if weight_decay:  p = p * (1 - lr * wd)  (AdamW)   or   g = g + wd * p  (Adam)
        m = beta1 * m + (1 - beta1) * g            # running mean of gradients
        v = beta2 * v + (1 - beta2) * g * g        # running mean of squared gradients
        v_max = max(v_max, v)  (amsgrad: use v_max below instead of v)
        p = p - lr / (1 - beta1**step) * m / (sqrt(v) / sqrt(1 - beta2**step) + eps)

    Example:
        >>> p, m, v = np.ones(1, np.float32), np.zeros(1, np.float32), np.zeros(1, np.float32)
        >>> adam_update(p, np.array([3.], np.float32), m, v, 1, lr=0.1, beta1=0.9,
        ...             beta2=0.999, eps=1e-8); p  # the first step moves by about lr
        array([0.9], dtype=float32)
    """
    if maximize:
        g = -g
    if weight_decay != 0:
        if decoupled_weight_decay:
            p *= 1 - lr * weight_decay
        else:
            g = g + weight_decay * p
    m += (1 - beta1) * (g - m)  # a lerp: beta1 * m + (1 - beta1) * g
    v *= beta2
    v += (1 - beta2) * g * g
    if amsgrad:
        np.maximum(v_max, v, out=v_max)
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = math.sqrt(1 - beta2**step)
    denom = np.sqrt(v_max if amsgrad else v) / bias_correction2_sqrt + eps
    p -= step_size * (m / denom)


class Adam(Optimizer):
    """Adaptive moments: each parameter's step is scaled by its own gradient history.

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor([1.], requires_grad=True)
        >>> opt = agk.optim.Adam([w], lr=0.1)
        >>> (w * 3).sum().backward(); opt.step()
        >>> w, opt.state[w]["step"]
        (tensor([0.9000], requires_grad=True), tensor(1.))
    """

    _decoupled = False

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach=None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused=None,
        decoupled_weight_decay: bool | None = None,
    ):
        check_non_negative(lr=lr, eps=eps)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        check_non_negative(weight_decay=weight_decay)
        if decoupled_weight_decay is None:
            decoupled_weight_decay = self._decoupled
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        state["step"] += 1
        decoupled = group["decoupled_weight_decay"]
        adam_update(
            p.numpy(force=True),
            p.grad.numpy(force=True),
            state["exp_avg"].numpy(force=True),
            state["exp_avg_sq"].numpy(force=True),
            state["step"].item(),
            lr=group["lr"],
            beta1=group["betas"][0],
            beta2=group["betas"][1],
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            amsgrad=group["amsgrad"],
            maximize=group["maximize"],
            v_max=state["max_exp_avg_sq"].numpy(force=True) if group["amsgrad"] else None,
            decoupled_weight_decay=decoupled,
        )
        if decoupled and group["weight_decay"] != 0:  # AdamW writes p twice, as PyTorch does
            increment_version(p)  # the decay...
        increment_version(p)  # ...and the step


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p <- p * (1 - lr * wd)`` before the Adam step."""

    _decoupled = True

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach=None,
        capturable: bool = False,
        differentiable: bool = False,
        fused=None,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
