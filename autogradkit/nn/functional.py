"""``autogradkit.nn.functional`` (``F``): layers and losses as plain functions.

Each function records the same nodes PyTorch records: ``linear`` is ``AddmmBackward0``,
``cross_entropy`` is ``NllLossBackward0`` over ``LogSoftmaxBackward0``, ``mse_loss`` is
``MseLossBackward0``. The modules in ``nn`` call these.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._dtype import float64, scalar_type_name
from .._shape import broadcast_shape
from ..creation import from_numpy, rand
from ..ops.scalar import DivBackward1, MulBackward1
from ..tensor import Tensor

# nn's own ops (nn/ops/): written as the core's ops are, recorded only by nn
from .ops.activation import LeakyReluBackward0
from .ops.conv import ConvolutionBackward0, MaxPool2DWithIndicesBackward0
from .ops.linear import AddmmBackward0
from .ops.loss import (
    BinaryCrossEntropyBackward0,
    BinaryCrossEntropyWithLogitsBackward0,
    MseLossBackward0,
    NllLoss2DBackward0,
    NllLossBackward0,
)

__all__ = [
    "legacy_reduction",
    "linear",
    "relu",
    "leaky_relu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "dropout",
    "conv2d",
    "max_pool2d",
    "mse_loss",
    "l1_loss",
    "nll_loss",
    "cross_entropy",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def legacy_reduction(size_average, reduce, reduction: str = "mean") -> str:
    """``reduction`` from the deprecated ``size_average``/``reduce`` pair, when either is given
    (None counts as True), with PyTorch's deprecation warning."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{reduction}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return reduction


def _array(t):
    return None if t is None else t.detach().numpy()


# ----- layers -----------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """``input @ weight.T + bias``, recorded as PyTorch records it.

    A matrix input is one fused ``AddmmBackward0`` (inputs: bias, input, ``weight.t()``);
    other inputs are flattened to a matrix and viewed back (``ViewBackward0`` on top).

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor([[1., 2.]], requires_grad=True)
        >>> agk.nn.functional.linear(agk.tensor([[3., 4.]]), w, agk.tensor([0.5]))
        tensor([[11.5000]], grad_fn=<AddmmBackward0>)
    """
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return AddmmBackward0.apply(bias, input, weight.t())
    if input.is_contiguous() and input.dim() >= 1:
        rows = input.reshape(int(np.prod(input.shape[:-1], dtype=np.int64)), input.shape[-1])
        out = AddmmBackward0.apply(bias, rows, weight.t())
        return out.view(*input.shape[:-1], out.shape[-1])
    return input.matmul(weight.t()) + bias


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``max(x, 0)`` elementwise (``ReluBackward0``)."""
    return input.relu_() if inplace else input.relu()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x`` where positive, ``negative_slope * x`` elsewhere (``LeakyReluBackward0``)."""
    out = LeakyReluBackward0.apply(input, negative_slope=negative_slope)
    return input.copy_(out) if inplace else out


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


def _softmax_dim(name: str, ndim: int, dim):
    if dim is not None:
        return dim
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        UserWarning,
        stacklevel=4,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:  # noqa: A002
    """``exp(x) / sum(exp(x))`` along ``dim`` (``SoftmaxBackward0``)."""
    x = input if dtype is None else input.to(dtype)
    return x.softmax(_softmax_dim("softmax", input.dim(), dim))


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:  # noqa: A002
    """``x - logsumexp(x)`` along ``dim``, computed stably (``LogSoftmaxBackward0``)."""
    x = input if dtype is None else input.to(dtype)
    return x.log_softmax(_softmax_dim("log_softmax", input.dim(), dim))


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """In training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)`` (``MulBackward0``); otherwise return ``input`` itself."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    keep = rand(input.shape, dtype=float64).numpy() >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    mask = from_numpy(keep * scale).to(input.dtype)
    return input.mul_(mask) if inplace else input * mask


# ----- convolution and pooling ------------------------------------------------------------
def _pair(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _same_padding(weight: Tensor, dilation: tuple) -> tuple:
    """padding='same': the output as large as the input; an odd total puts the extra row and
    column at the end, as PyTorch does (with its warning)."""
    pads = []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)
        pads.append((total // 2, total - total // 2))
    if any(a != b for a, b in pads):
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created",
            UserWarning,
            stacklevel=3,
        )
    return tuple(pads)


def _conv_padding(padding, weight: Tensor, stride: tuple, dilation: tuple):
    """((top, bottom), (left, right)) and the padding PyTorch shows as ``_saved_padding``."""
    if padding == "valid":
        return ((0, 0), (0, 0)), (0,)
    if padding == "same":
        if stride != (1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = _same_padding(weight, dilation)
        return pads, tuple(p[0] for p in pads)
    if isinstance(padding, str):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    padding = _pair(padding)
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in padding), padding


def _check_conv(input: Tensor, weight: Tensor, bias, pads, stride, groups) -> None:  # noqa: A002
    """PyTorch's conv2d errors, in the order it checks."""
    if input.dim() not in (3, 4):
        raise RuntimeError(
            "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
            f"{list(input.shape)}"
        )
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if input.dtype is not weight.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(input.dtype)} but found "
            + scalar_type_name(weight.dtype)
        )
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
            f"{input.shape[1]} channels instead"
        )
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional "
            f"with {weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead"
        )
    padded = [n + a + b for n, (a, b) in zip(input.shape[2:], pads)]
    if any(p < k for p, k in zip(padded, weight.shape[2:])):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({padded[0]} x {padded[1]}). Kernel "
            f"size: ({weight.shape[2]} x {weight.shape[3]}). Kernel size can't be greater "
            "than actual input size"
        )


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:  # noqa: A002
    """2-D cross-correlation of ``input`` (N, C, H, W) with ``weight`` (O, C / groups, kh,
    kw), plus ``bias`` (``ConvolutionBackward0``). One image (C, H, W) is unsqueezed first
    and squeezed after, as PyTorch records it.

    Example:
        >>> import autogradkit as agk
        >>> x = agk.ones(1, 1, 3, 3, requires_grad=True)
        >>> agk.nn.functional.conv2d(x, agk.ones(1, 1, 2, 2)).grad_fn.name()
        'ConvolutionBackward0'
    """
    stride, dilation = _pair(stride), _pair(dilation)
    if input.dim() == 3:
        out = conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups)
        return out.squeeze(0)
    pads, shown = _conv_padding(padding, weight, stride, dilation)
    _check_conv(input, weight, bias, pads, stride, groups)
    return ConvolutionBackward0.apply(
        input,
        weight,
        bias,
        stride=stride,
        padding=pads,
        dilation=dilation,
        groups=groups,
        shown_padding=shown,
    )


def _pool_output_size(size, kernel, stride, pad, dilation, ceil_mode) -> int:
    span = dilation * (kernel - 1) + 1
    out = (size + 2 * pad - span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def max_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """The largest value of each ``kernel_size`` window (``MaxPool2DWithIndicesBackward0``);
    with ``return_indices``, also where each came from (flat positions in H * W)."""
    kernel, pad, dil = _pair(kernel_size), _pair(padding), _pair(dilation)
    steps = kernel if stride is None or stride == [] else _pair(stride)
    if input.dim() not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if min(steps) == 0:
        raise RuntimeError("stride should not be zero")
    for p, k, d in zip(pad, kernel, dil):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    sizes = [
        _pool_output_size(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip(input.shape[-2:], kernel, steps, pad, dil)
    ]
    if min(sizes) < 1:
        plane = "x".join(str(n) for n in input.shape[-3:])
        raise RuntimeError(
            f"Given input size: ({plane}). Calculated output size: "
            f"({input.shape[-3]}x{sizes[0]}x{sizes[1]}). Output size is too small"
        )
    out, indices = MaxPool2DWithIndicesBackward0.apply(
        input,
        kernel_size=kernel,
        stride=steps,
        padding=pad,
        dilation=dil,
        ceil_mode=ceil_mode,
        shown_stride=() if stride is None else steps,
    )
    return (out, indices) if return_indices else out


# ----- losses ---------------------------------------------------------------------------------
def _warn_target_size(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape!r}) that is different to the input size "
            f"({input.shape!r}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _broadcast(input: Tensor, target: Tensor):
    if input.shape == target.shape:
        return input, target
    shape = broadcast_shape(input.shape, target.shape)
    return input.expand(*shape), target.expand(*shape)


def mse_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Mean squared error ``mean((input - target)**2)`` (``MseLossBackward0``).

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor(0., requires_grad=True)
        >>> agk.nn.functional.mse_loss(w * 2, agk.tensor(4.))
        tensor(16., grad_fn=<MseLossBackward0>)
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    _warn_target_size(input, target)
    input, target = _broadcast(input, target)
    return MseLossBackward0.apply(input, target, reduction=_check_reduction(reduction))


def l1_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Mean absolute error ``mean(|input - target|)``, composed as PyTorch composes it."""
    reduction = _check_reduction(legacy_reduction(size_average, reduce, reduction))
    _warn_target_size(input, target)
    input, target = _broadcast(input, target)
    diff = (input - target).abs()
    return diff.mean() if reduction == "mean" else diff.sum() if reduction == "sum" else diff


def _check_nll(input: Tensor, target: Tensor, ignore_index: int) -> None:
    """PyTorch's checks, in its order: matching batch sizes, the target's shape for the
    input's, class indices stored as Long or Byte, classes in range."""
    batch = target.shape[0] if target.dim() else 1
    if input.dim() > 1 and input.shape[0] != batch:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({batch})."
        )
    expected = (input.shape[0],) + tuple(input.shape[2:])  # (N, d1, d2...) for (N, C, d1...)
    if input.dim() <= 2 and target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.dim() == 4 and target.dim() != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {target.dim()}"
        )
    if input.dim() > 2 and tuple(target.shape) != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target.shape)}")
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got " + scalar_type_name(target.dtype)
        )
    n_classes = input.shape[0 if input.dim() == 1 else 1]
    t = target.numpy()
    if t.size and (t.min() < 0 or t.max() >= n_classes):  # only then look for the culprit
        bad = t[((t < 0) | (t >= n_classes)) & (t != ignore_index)]
        if bad.size:
            raise IndexError(f"Target {bad.flat[0]} is out of bounds.")


def nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood: ``-input[i, target[i]]`` averaged (weighted by ``weight``).

    ``input`` holds log-probabilities, classes along dim 1 (dim 0 for a single sample);
    targets equal to ``ignore_index`` count for nothing. Extra dims other than two
    (``(N, C, d)``) are viewed as ``(N, C, 1, d)`` first, as PyTorch does.
    """
    reduction = _check_reduction(legacy_reduction(size_average, reduce, reduction))
    _check_nll(input, target, ignore_index)
    options = {"weight": _array(weight), "reduction": reduction, "ignore_index": ignore_index}
    if input.dim() <= 2:
        return NllLossBackward0.apply(input, target=target.numpy(), **options)
    if input.dim() == 4:
        return NllLoss2DBackward0.apply(input, target=target.numpy(), **options)
    n, c = input.shape[:2]
    flat = input.contiguous().reshape(n, c, 1, -1)
    out = NllLoss2DBackward0.apply(flat, target=target.numpy().reshape(n, 1, -1), **options)
    return out if reduction != "none" else out.view(n, *input.shape[2:])


def cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """``nll_loss(log_softmax(input), target)``: the loss for classification from logits.

    ``target`` holds class indices (integers) or class probabilities (floats, the same
    shape as ``input``). ``label_smoothing`` mixes the target with a uniform distribution.

    Example:
        >>> import autogradkit as agk
        >>> logits = agk.tensor([[2., 0., 0.]], requires_grad=True)
        >>> loss = agk.nn.functional.cross_entropy(logits, agk.tensor([0]))
        >>> loss, loss.grad_fn.next_functions[0][0].name()
        (tensor(0.2395, grad_fn=<NllLossBackward0>), 'LogSoftmaxBackward0')
    """
    reduction = _check_reduction(legacy_reduction(size_average, reduce, reduction))
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    if target.shape == input.shape:  # class probabilities, as PyTorch tells them apart
        if not target.is_floating_point():
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                + scalar_type_name(target.dtype)
            )
        return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    smooth = _smooth_term(logp, target, weight, ignore_index, reduction, class_dim)
    scale = MulBackward1.apply  # PyTorch's C++ multiplies by a Scalar
    return scale(nll, 1 - label_smoothing) + scale(smooth, label_smoothing / input.shape[class_dim])


def _class_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.reshape(*shape)


def _smooth_term(logp, target, weight, ignore_index, reduction, class_dim) -> Tensor:
    """The uniform-target part of label smoothing, reduced as PyTorch reduces it."""
    if weight is None:
        smooth = -logp.sum(class_dim)
    else:
        smooth = -(logp * _class_view(weight, logp.dim(), class_dim)).sum(class_dim)
    ignored = target.numpy() == ignore_index
    smooth = smooth.masked_fill(from_numpy(ignored), 0.0)
    if reduction == "sum":
        return smooth.sum()
    if reduction == "none":
        return smooth
    if weight is None:
        return smooth.sum() / int((~ignored).sum())
    kept = target.numpy()[~ignored]
    return smooth.sum() / from_numpy(np.asarray(np.sum(weight.detach().numpy()[kept])))


def _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, class_dim) -> Tensor:
    """Soft targets: ``-sum(target * log_softmax(input))`` per sample."""
    n_classes = logp.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * _class_view(weight, logp.dim(), class_dim)
    if reduction == "none":
        return -prod.sum(class_dim)
    if reduction == "sum":
        return -prod.sum()
    return DivBackward1.apply(-prod.sum(), logp.numel() // n_classes)


def _check_same_size(input: Tensor, target: Tensor, message: str) -> None:
    if target.shape != input.shape:
        raise ValueError(message.format(target=repr(target.shape), input=repr(input.shape)))


def binary_cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``-mean(target * log(input) + (1 - target) * log(1 - input))`` for probabilities
    ``input`` in [0, 1] (``BinaryCrossEntropyBackward0``)."""
    reduction = _check_reduction(legacy_reduction(size_average, reduce, reduction))
    _check_same_size(
        input,
        target,
        "Using a target size ({target}) that is different to the "
        "input size ({input}) is deprecated. Please ensure they have the same size.",
    )
    return BinaryCrossEntropyBackward0.apply(
        input, target, weight=_array(weight), reduction=reduction
    )


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)`` computed in one stable step."""
    reduction = _check_reduction(legacy_reduction(size_average, reduce, reduction))
    _check_same_size(
        input, target, "Target size ({target}) must be the same as input size ({input})"
    )
    return BinaryCrossEntropyWithLogitsBackward0.apply(
        input, target, weight=_array(weight), pos_weight=_array(pos_weight), reduction=reduction
    )
