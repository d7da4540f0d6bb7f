"""The losses of ``nn.functional``, one node each as PyTorch records them (``MseLossBackward0``,
``NllLossBackward0``...), and the reduction they share."""

from __future__ import annotations

import numpy as np

from ...autograd.engine import Function

__all__ = (
    "MseLossBackward0 NllLossBackward0 NllLoss2DBackward0 BinaryCrossEntropyBackward0 "
    "BinaryCrossEntropyWithLogitsBackward0"
).split()


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return np.mean(loss)
    if reduction == "sum":
        return np.sum(loss)
    return loss


def _spread(g, shape: tuple, reduction: str):
    """The upstream gradient of a reduced loss, spread back over every element."""
    if reduction == "none":
        return g
    scale = g / int(np.prod(shape)) if reduction == "mean" else g  # an int keeps g's dtype
    return np.broadcast_to(scale, shape)


class MseLossBackward0(Function):
    """out = reduce((x - y)**2);  dx = 2 (x - y) g / n,  dy = -dx  (n only for "mean")"""

    saved_names, saved_values = ("self", "target"), ("reduction",)

    @staticmethod
    def forward(ctx, x, y, *, reduction="mean"):
        ctx.reduction = reduction
        ctx.save_for_backward(x, y)  # the inputs, not x - y: create_graph needs the link
        diff = x - y
        return _reduce(diff * diff, reduction)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        gx = 2 * (x - y) * _spread(g, np.shape(x), ctx.reduction)
        return gx, -gx


class _NllLoss(Function):
    """out = reduce(-w[t_i] * x[i, t_i]) (mean divides by sum of w[t_i]);
    dx = -w[t_i] * g at [i, t_i], 0 elsewhere.  Class dim is 1 (or 0 for one sample)."""

    saved_names = ("self", "target", "weight", "total_weight")
    saved_values = ("ignore_index", "reduction")

    @staticmethod
    def forward(ctx, x, *, target, weight=None, reduction="mean", ignore_index=-100):
        class_dim = 0 if x.ndim == 1 else 1
        by_class = x if x.ndim <= 2 else np.moveaxis(x, 1, -1)  # classes last
        rows = by_class.reshape(-1, by_class.shape[-1])  # one row per sample
        targets = target.reshape(-1)
        kept = targets != ignore_index
        sample = np.arange(targets.size)
        if weight is None and kept.all():  # the common case: every sample counts once
            picked, w = targets, x.dtype.type(1)
            losses, total = -rows[sample, picked], x.dtype.type(targets.size)
        else:
            picked = np.where(kept, targets, 0)
            w = (kept if weight is None else np.where(kept, weight[picked], 0)).astype(x.dtype)
            losses, total = -rows[sample, picked] * w, w.sum()
            losses[~kept] = 0  # an ignored target gives exactly 0 (not -0.), as in PyTorch
        # the gradient as a constant mask: -w[t] at each picked class, 0 elsewhere
        mask = np.zeros(rows.shape, x.dtype)
        mask[sample, picked] = -w
        mask = mask.reshape(by_class.shape)
        ctx.mask = mask if x.ndim <= 2 else np.moveaxis(mask, -1, 1)
        ctx.class_dim, ctx.reduction, ctx.total = class_dim, reduction, total
        ctx.ignore_index = ignore_index
        ctx.save_for_backward(x, target, weight, np.asarray(total, x.dtype))
        if reduction == "mean":
            if ctx.total == 0:  # every target ignored: nan, as in PyTorch
                return np.full((), np.nan, x.dtype)
            return np.asarray(losses.sum() / ctx.total, x.dtype)
        return np.asarray(_reduce(losses.reshape(target.shape), reduction), x.dtype)

    @staticmethod
    def backward(ctx, g):
        if ctx.reduction == "none":
            return ctx.mask * np.expand_dims(g, ctx.class_dim)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = g / ctx.total if ctx.reduction == "mean" else g
        return ctx.mask * scale


class NllLossBackward0(_NllLoss):
    """nll_loss of (C) or (N, C) log-probabilities"""


class NllLoss2DBackward0(_NllLoss):
    """nll_loss over extra spatial dims (N, C, d1, ...): PyTorch names this node apart"""


class BinaryCrossEntropyBackward0(Function):
    """out = reduce(-w (y log x + (1 - y) log(1 - x))), each log clamped at -100;
    dx = w g (x - y) / max(x (1 - x), 1e-12),  dy = w g (log(1 - x) - log x)"""

    quiet_floating_errors = True  # log 0 = -inf, clamped to -100 as PyTorch clamps it
    saved_names, saved_values = ("self", "target", "weight"), ("reduction",)

    @staticmethod
    def forward(ctx, x, y, *, weight=None, reduction="mean"):
        if np.any((x < 0) | (x > 1)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        log_x, log_1mx = np.maximum(np.log(x), -100), np.maximum(np.log1p(-x), -100)
        loss = -(y * log_x + (1 - y) * log_1mx)
        ctx.w = np.ones((), x.dtype) if weight is None else weight.astype(x.dtype)
        ctx.reduction = reduction
        ctx.save_for_backward(x, y, weight)
        return np.asarray(_reduce(loss * ctx.w, reduction), x.dtype)

    @staticmethod
    def backward(ctx, g):
        x, y, _ = ctx.saved_tensors
        g = _spread(g, np.shape(x), ctx.reduction) * ctx.w
        gx = g * (x - y) / np.maximum((1 - x) * x, 1e-12)
        gy = g * (np.maximum(np.log(1 - x), -100) - np.maximum(np.log(x), -100))
        return gx, gy


class BinaryCrossEntropyWithLogitsBackward0(Function):
    """out = reduce(w ((1 - y) x + (1 + (p - 1) y) softplus(-x)))  (p: pos_weight);
    dx = w g (sigmoid(x) (p y + 1 - y) - p y),  dy = w g ((1 - p) log sigmoid(x) - x)"""

    saved_names = ("self", "target", "weight", "pos_weight")
    saved_values = ("reduction",)

    @staticmethod
    def forward(ctx, x, y, *, weight=None, pos_weight=None, reduction="mean"):
        softplus_neg = np.logaddexp(0, -x)  # log(1 + e^-x) = -log sigmoid(x), no overflow
        p = np.ones((), x.dtype) if pos_weight is None else pos_weight.astype(x.dtype)
        loss = (1 - y) * x + (1 + (p - 1) * y) * softplus_neg
        ctx.w = np.ones((), x.dtype) if weight is None else weight.astype(x.dtype)
        ctx.p, ctx.reduction = p, reduction
        ctx.save_for_backward(x, y, weight, pos_weight)
        return np.asarray(_reduce(loss * ctx.w, reduction), x.dtype)

    @staticmethod
    def backward(ctx, g):
        x, y, _, _ = ctx.saved_tensors
        g = _spread(g, np.shape(x), ctx.reduction) * ctx.w
        sig = 1 / (1 + np.exp(-x))
        gx = g * (sig * (ctx.p * y + 1 - y) - ctx.p * y)
        gy = g * (np.asarray(1 - ctx.p) * np.log(sig) - x)  # an array, not a NumPy scalar
        return gx, gy
