"""Adagrad: divide each step by the root of the sum of all squared gradients so far."""

from __future__ import annotations

import numpy as np

from ..autograd.graph import increment_version
from ..creation import full_like, tensor
from ..tensor import Tensor
from .optimizer import Optimizer, check_non_negative

__all__ = ["adagrad_update", "Adagrad"]


def adagrad_update(
    p: np.ndarray,
    g: np.ndarray,
    state_sum: np.ndarray,
    step: int,
    *,
    lr: float,
    lr_decay: float = 0.0,
    weight_decay: float = 0.0,
    eps: float = 1e-10,
    maximize: bool = False,
) -> None:
    """One Adagrad step on arrays (``step`` counts from 1): changes ``p, state_sum``.

    Pseudocode (PyTorch's)::

        g = -g if maximize else g
        g = g + weight_decay * p
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum = state_sum + g * g
        p = p - clr * g / (sqrt(state_sum) + eps)

    Example:
        >>> p, s = np.ones(1, np.float32), np.zeros(1, np.float32)
        >>> adagrad_update(p, np.array([4.], np.float32), s, 1, lr=0.1); p, s
        (array([0.9], dtype=float32), array([16.], dtype=float32))
    """
    if maximize:
        g = -g
    if weight_decay != 0:
        g = g + weight_decay * p
    clr = lr / (1 + (step - 1) * lr_decay)
    state_sum += g * g
    std = np.sqrt(state_sum) + eps
    p -= clr * (g / std)


class Adagrad(Optimizer):
    """Per-parameter learning rates that shrink where gradients have been large."""

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach=None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused=None,
    ):
        check_non_negative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:  # PyTorch creates Adagrad's state up front
            for p in group["params"]:
                self.state[p]["step"] = tensor(0.0)
                self.state[p]["sum"] = full_like(p, group["initial_accumulator_value"])

    def _update(self, p: Tensor, group: dict) -> None:
        state = self.state[p]
        state["step"] += 1
        adagrad_update(
            p.numpy(force=True),
            p.grad.numpy(force=True),
            state["sum"].numpy(force=True),
            state["step"].item(),
            lr=group["lr"],
            lr_decay=group["lr_decay"],
            weight_decay=group["weight_decay"],
            eps=group["eps"],
            maximize=group["maximize"],
        )
        increment_version(p)  # p changed in place
