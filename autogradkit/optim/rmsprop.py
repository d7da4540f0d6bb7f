"""RMSprop: divide each step by a running root-mean-square of recent gradients."""

from __future__ import annotations

import numpy as np

from ..autograd.graph import increment_version
from ..creation import tensor, zeros_like
from ..tensor import Tensor
from .optimizer import Optimizer, check_non_negative

__all__ = ["rmsprop_update", "RMSprop"]


def rmsprop_update(
    p: np.ndarray,
    g: np.ndarray,
    square_avg: np.ndarray,
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float = 0.0,
    momentum: float = 0.0,
    buf: np.ndarray | None = None,
    centered: bool = False,
    grad_avg: np.ndarray | None = None,
    maximize: bool = False,
) -> None:
    """One RMSprop step on arrays: changes ``p`` and the running averages in place.

    Pseudocode (PyTorch's)::

        g = -g if maximize else g
        g = g + weight_decay * p
        square_avg = alpha * square_avg + (1 - alpha) * g * g
        avg = sqrt(square_avg - grad_avg**2) + eps   (centered: grad_avg = running mean of g)
        avg = sqrt(square_avg) + eps                 (otherwise)
        if momentum:  buf = momentum * buf + g / avg;  p = p - lr * buf
        else:         p = p - lr * g / avg

    Example:
        >>> p, sq = np.ones(1, np.float32), np.zeros(1, np.float32)
        >>> rmsprop_update(p, np.array([2.], np.float32), sq, lr=0.01, alpha=0.99, eps=1e-8)
        >>> p.round(4)  # the first step is lr / sqrt(1 - alpha) = 10 * lr
        array([0.9], dtype=float32)
    """
    if maximize:
        g = -g
    if weight_decay != 0:
        g = g + weight_decay * p
    square_avg *= alpha
    square_avg += (1 - alpha) * g * g
    if centered:
        grad_avg += (1 - alpha) * (g - grad_avg)  # a lerp towards g
        avg = np.sqrt(square_avg - grad_avg * grad_avg)
    else:
        avg = np.sqrt(square_avg)
    avg += eps
    if momentum > 0:
        buf *= momentum
        buf += g / avg
        p -= lr * buf
    else:
        p -= lr * (g / avg)


class RMSprop(Optimizer):
    """``p <- p - lr * g / (sqrt(running mean of g**2) + eps)``."""

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach=None,
        maximize: bool = False,
        differentiable: bool = False,
    ):
        check_non_negative(
            lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha
        )
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        state["step"] += 1
        rmsprop_update(
            p.numpy(force=True),
            p.grad.numpy(force=True),
            state["square_avg"].numpy(force=True),
            lr=group["lr"],
            alpha=group["alpha"],
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            momentum=group["momentum"],
            centered=group["centered"],
            maximize=group["maximize"],
            buf=state["momentum_buffer"].numpy(force=True) if "momentum_buffer" in state else None,
            grad_avg=state["grad_avg"].numpy(force=True) if "grad_avg" in state else None,
        )
        increment_version(p)  # p changed in place
