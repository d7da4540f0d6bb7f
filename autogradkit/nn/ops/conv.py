"""2-D convolution and max pooling on NumPy windows (im2col without copying).

``_windows`` views every kernel-sized patch of the padded input at once: shape
``(N, C, out_h, out_w, kh, kw)``. A convolution is then one ``tensordot`` per group, and each
backward is a convolution again (``ConvolutionInputGradBackward0`` and
``ConvolutionWeightGradBackward0``), so gradients of gradients work as in PyTorch.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...autograd.engine import Function
from ...ops.indexing import IndexPutBackward0

__all__ = (
    "ConvolutionBackward0 ConvolutionInputGradBackward0 ConvolutionWeightGradBackward0 "
    "MaxPool2DWithIndicesBackward0"
).split()


def _windows(xp, kernel, stride, dilation, writeable=False):
    """Every patch of ``xp`` (already padded) over its last two dims:
    ``(..., out_h, out_w, kh, kw)``, a view."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    span = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    patches = sliding_window_view(xp, span, axis=(-2, -1), writeable=writeable)
    return patches[..., ::sh, ::sw, ::dh, ::dw]


def _pad(x, padding, value=0.0):
    """``x`` padded on its last two dims by ``((top, bottom), (left, right))``."""
    return np.pad(x, ((0, 0),) * (x.ndim - 2) + tuple(padding), constant_values=value)


def _correlate(x, w, padding, stride, dilation, groups):
    """out[n, o] = sum over c, i, j of x_padded[n, c, h*s + i*d, w*s + j*d] * w[o, c, i, j]"""
    cols = _windows(_pad(x, padding), w.shape[2:], stride, dilation)
    parts = [  # each group of input channels meets its own group of kernels
        np.tensordot(xk, wk, axes=([1, 4, 5], [1, 2, 3]))
        for xk, wk in zip(np.split(cols, groups, axis=1), np.split(w, groups))
    ]
    return np.moveaxis(np.concatenate(parts, axis=-1), -1, 1)  # (N, O, out_h, out_w)


def _spread(g, w, input_shape, padding, stride, dilation, groups):
    """The adjoint of ``_correlate`` in x: each output gradient added back to every input
    element its patch read (a transposed convolution), through the same window view."""
    (top, bottom), (left, right) = padding
    n, c, h, wd = input_shape
    gxp = np.zeros((n, c, h + top + bottom, wd + left + right), np.result_type(g, w))
    patches = _windows(gxp, w.shape[2:], stride, dilation, writeable=True)
    g_groups, w_groups = np.split(g, groups, axis=1), np.split(w, groups)
    for gk, wk, target in zip(g_groups, w_groups, np.split(patches, groups, axis=1)):
        cols = np.tensordot(gk, wk, axes=([1], [0]))  # (N, oh, ow, c_in, kh, kw)
        for i, j in np.ndindex(*w.shape[2:]):  # patches overlap: one kernel offset at a time
            target[..., i, j] += np.moveaxis(cols[..., i, j], -1, 1)
    return gxp[:, :, top : top + h, left : left + wd]


def _weight_grad(x, g, weight_shape, padding, stride, dilation, groups):
    """d<out, g>/dw: each kernel entry meets the input elements it multiplied."""
    cols = _windows(_pad(x, padding), weight_shape[2:], stride, dilation)
    parts = [  # each group's output gradients meet its own group of input channels
        np.tensordot(gk, xk, axes=([0, 2, 3], [0, 2, 3]))
        for gk, xk in zip(np.split(g, groups, axis=1), np.split(cols, groups, axis=1))
    ]
    return np.concatenate(parts, axis=0)  # (O, c_in, kh, kw)


class ConvolutionBackward0(Function):
    """out = conv(x, w) + b;  dx = conv_transpose(g, w),  dw = conv(x, g),  db = sum(g)"""

    promotes = False
    saved_names = ("input", "weight")
    saved_values = ("bias_sym_sizes_opt", "dilation", "groups", "output_padding", "padding")
    saved_values += ("stride", "transposed")

    @staticmethod
    def forward(ctx, x, w, b, *, stride, padding, dilation, groups, shown_padding=None):
        ctx.save_for_backward(x, w)
        ctx.options = dict(padding=padding, stride=stride, dilation=dilation, groups=groups)
        ctx.stride, ctx.dilation, ctx.groups = stride, dilation, groups
        ctx.padding = shown_padding or tuple(p[0] for p in padding)
        ctx.output_padding, ctx.transposed = (0, 0), False
        ctx.bias_sym_sizes_opt = (0,) if b is None else b.shape
        out = _correlate(x, w, **ctx.options)
        return out if b is None else out + b.reshape(1, -1, 1, 1)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        needs, options = ctx.needs_input_grad, ctx.options
        gx = ConvolutionInputGradBackward0.call(g, w, input_shape=np.shape(x), **options)
        gw = ConvolutionWeightGradBackward0.call(x, g, weight_shape=np.shape(w), **options)
        gb = np.sum(g, axis=(0, 2, 3)) if needs[2] else None
        return gx if needs[0] else None, gw if needs[1] else None, gb


class ConvolutionInputGradBackward0(Function):
    """out = conv_transpose(g, w) (the input's gradient);  dg = conv(gg, w),  dw = conv(gg, g)"""

    promotes = False

    @staticmethod
    def forward(ctx, g, w, *, input_shape, **options):
        ctx.save_for_backward(g, w)
        ctx.options = options
        return _spread(g, w, input_shape, **options)

    @staticmethod
    def backward(ctx, gg):
        g, w = ctx.saved_tensors
        dg = ConvolutionBackward0.call(gg, w, None, **ctx.options)
        dw = ConvolutionWeightGradBackward0.call(gg, g, weight_shape=np.shape(w), **ctx.options)
        return dg, dw


class ConvolutionWeightGradBackward0(Function):
    """out = the weight's gradient from x and g;  dx = conv_transpose(g, gw),  dg = conv(x, gw)"""

    promotes = False

    @staticmethod
    def forward(ctx, x, g, *, weight_shape, **options):
        ctx.save_for_backward(x, g)
        ctx.options = options
        return _weight_grad(x, g, weight_shape, **options)

    @staticmethod
    def backward(ctx, gw):
        x, g = ctx.saved_tensors
        dx = ConvolutionInputGradBackward0.call(g, gw, input_shape=np.shape(x), **ctx.options)
        return dx, ConvolutionBackward0.call(x, gw, None, **ctx.options)


class MaxPool2DWithIndicesBackward0(Function):
    """out = the largest value of each window (its first, in row order);
    dx = g added at each window's winner"""

    saved_names = ("self", "result1")  # result1: the indices (output 1)
    saved_values = ("ceil_mode", "dilation", "kernel_size", "padding", "stride")

    @staticmethod
    def forward(ctx, x, *, kernel_size, stride, padding, dilation, ceil_mode, shown_stride):
        ctx.kernel_size, ctx.stride, ctx.padding = kernel_size, shown_stride, padding
        ctx.dilation, ctx.ceil_mode = dilation, ceil_mode
        # (N, C, H, W) or one image (C, H, W): everything below works on the last two dims
        extra = [_ceil_extra(n, k, s, p, d) if ceil_mode else 0 for n, k, s, p, d in
                 zip(x.shape[-2:], kernel_size, stride, padding, dilation)]  # fmt: skip
        pads = ((padding[0], padding[0] + extra[0]), (padding[1], padding[1] + extra[1]))
        cols = _windows(_pad(x, pads, -np.inf), kernel_size, stride, dilation)
        flat = cols.reshape(*cols.shape[:-2], -1)
        nan = np.isnan(flat)  # a nan wins its window: the last one, as PyTorch's loop keeps it
        last_nan = flat.shape[-1] - 1 - np.argmax(nan[..., ::-1], -1)
        winner = np.where(nan.any(-1), last_nan, np.argmax(flat, -1))  # else the first largest
        out = np.take_along_axis(flat, winner[..., None], -1)[..., 0].astype(x.dtype)
        i, j = np.divmod(winner, kernel_size[1])
        oh, ow = np.arange(cols.shape[-4])[:, None], np.arange(cols.shape[-3])
        rows = oh * stride[0] - padding[0] + i * dilation[0]
        columns = ow * stride[1] - padding[1] + j * dilation[1]
        indices = rows * x.shape[-1] + columns
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(x, indices)
        return out, indices

    @staticmethod
    def backward(ctx, g, g_indices=None):
        x, indices = ctx.saved_tensors
        indices = np.asarray(indices)
        lead = tuple(i[..., None, None] for i in np.indices(indices.shape[:-2]))
        where = (*lead, *np.divmod(indices, np.shape(x)[-1]))
        return IndexPutBackward0.call(np.zeros_like(x), g, index=where, accumulate=True)


def _ceil_extra(size, kernel, stride, pad, dilation) -> int:
    """How much padding on the far side ceil_mode needs for its last window."""
    span = dilation * (kernel - 1) + 1
    out = -(-(size + 2 * pad - span) // stride) + 1
    if (out - 1) * stride >= size + pad:  # the last window must start inside the input
        out -= 1
    return max(0, (out - 1) * stride + span - (size + 2 * pad))
