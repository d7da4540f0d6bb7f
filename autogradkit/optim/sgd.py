"""Stochastic gradient descent, with momentum, dampening, weight decay and Nesterov."""

from __future__ import annotations

import numpy as np

from ..autograd.graph import increment_version
from ..creation import from_numpy
from ..tensor import Tensor
from .optimizer import Optimizer, check_non_negative

__all__ = ["SGD", "sgd_update"]


def sgd_update(
    p: np.ndarray,
    g: np.ndarray,
    buf: np.ndarray | None,
    *,
    lr: float,
    momentum: float = 0.0,
    dampening: float = 0.0,
    weight_decay: float = 0.0,
    nesterov: bool = False,
    maximize: bool = False,
) -> np.ndarray | None:
    """One SGD step on arrays: changes ``p`` (and ``buf``) in place, returns the buffer.

    Pseudocode (PyTorch's)::

        g = -g if maximize else g
        g = g + weight_decay * p
        if momentum:
            buf = g (first step)  or  buf = momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g

    Example:
        >>> p = np.array([0.], np.float32)
        >>> sgd_update(p, np.array([-16.], np.float32), None, lr=0.01); p
        array([0.16], dtype=float32)
    """
    if maximize:
        g = -g
    if weight_decay != 0:
        g = fused_add(g, p, weight_decay)
    if momentum != 0:
        if buf is None:
            buf = np.array(g)  # the first step starts the buffer at the gradient
        else:
            buf *= momentum
            fused_add(buf, g, 1 - dampening, out=buf)
        g = fused_add(g, buf, momentum) if nesterov else buf
    fused_add(p, g, -lr, out=p)
    return buf


def fused_add(a: np.ndarray, b: np.ndarray, alpha: float, out=None) -> np.ndarray:
    """``a + alpha * b`` rounded once, as PyTorch's ``a.add(b, alpha=alpha)`` does.

    PyTorch fuses the multiply and the add (one rounding, with ``alpha`` in ``a``'s dtype);
    computing in float64 gives the same float32 result, so training prints the same digits.
    With ``out`` the result is written there (``out=a`` updates ``a`` in place).
    """
    # one float64 buffer, made by the multiply (b is cast on the fly) and then added into
    scaled = np.multiply(b, np.float64(a.dtype.type(alpha)), dtype=np.float64)
    scaled += a  # exact product for float32 (it fits in 53 bits), one rounding below
    if out is None:
        return scaled.astype(a.dtype)
    np.copyto(out, scaled, casting="unsafe")  # rounded once, into out
    return out


class SGD(Optimizer):
    """``p <- p - lr * grad`` (plus the options of ``sgd_update``).

    Example:
        >>> import autogradkit as agk
        >>> agk.optim.SGD([agk.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        SGD (
        Parameter Group 0
            dampening: 0
            differentiable: False
            foreach: None
            fused: None
            lr: 0.1
            maximize: False
            momentum: 0.9
            nesterov: False
            weight_decay: 0
        )
    """

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach=None,
        differentiable: bool = False,
        fused=None,
    ):
        check_non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        # plain SGD keeps no state at all (its state_dict stays empty, as in PyTorch)
        state = self.state[p] if group["momentum"] != 0 else {}
        buf = state.get("momentum_buffer")
        new = sgd_update(
            p.numpy(force=True),
            p.grad.numpy(force=True),
            None if buf is None else buf.numpy(force=True),
            lr=group["lr"],
            momentum=group["momentum"],
            dampening=group["dampening"],
            weight_decay=group["weight_decay"],
            nesterov=group["nesterov"],
            maximize=group["maximize"],
        )
        increment_version(p)  # p changed in place
        if group["momentum"] != 0 and buf is None:
            state["momentum_buffer"] = from_numpy(new)
