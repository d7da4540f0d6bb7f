"""One ``OpSpec`` per op in ``autogradkit.ops.REGISTRY``: how to call it, its NumPy reference,
input shapes and a safe input domain.

``fn(lib, *xs)`` is written against the public API, so the same function runs with
``lib = autogradkit`` and with ``lib = torch`` for the parity check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class OpSpec:
    op: str  # the REGISTRY name this spec covers
    fn: Callable  # (lib, *tensors) -> tensor
    ref: Callable | None  # (*arrays) -> array; None where the op is only a gradient helper
    shapes: tuple  # input shapes
    low: float = -2.0  # inputs are drawn from [low, high], away from kinks
    high: float = 2.0
    torch: bool = True  # False for ops that torch does not expose the same way
    id: str = ""
    rtol: float = 1e-3  # wider only where float32 rounding limits finite differences
    no_derivative: bool = False  # PyTorch records a NotImplemented node: backward raises

    @property
    def name(self) -> str:
        return self.id or self.op


def _setitem(lib, x, v):
    y = x * 1
    y[0] = v
    return y


def _copy(lib, x, v):
    y = x * 1
    y.copy_(v)
    return y


def _index_put(lib, x):
    from autogradkit.ops.indexing import IndexPutBackward0

    zeros = np.zeros((4, 3))
    return IndexPutBackward0.apply(zeros, x, index=(np.array([0, 2, 0]),), accumulate=True)


def _by_number(name: str, number: float):
    """MulBackward1 / DivBackward1 (mul.Scalar, div.Scalar): only PyTorch's composites record
    them (cross_entropy), so the op is called directly."""

    def fn(lib, x):
        from autogradkit.ops import scalar

        return getattr(scalar, name).apply(x, number)

    return fn


def _relu_backward(lib, g, x):
    """relu's backward as a function of the gradient and its input: what create_graph records
    (called directly, as torch has no public name for it)."""
    from autogradkit.ops.unary import ThresholdBackwardBackward0

    return ThresholdBackwardBackward0.apply(g, x, threshold=0)


def _setitem_advanced(lib, x, v):
    y = x * 1
    y[lib.tensor([True, False, True])] = v
    return y


def _softmax_ref(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _inplace_on_view(lib, x):
    y = x * 1
    v = y[1]
    v.mul_(3)  # y records CopySlices, v becomes an AsStrided view of the new y
    return v * v


def _fill(lib, x):
    return (x * 1).fill_(2.0)


def _fill_tensor(lib, x, v):
    return (x * 1).fill_(v)


def _zero(lib, x):
    return (x * 1).zero_()


SPECS = [
    OpSpec("AddBackward0", lambda t, x, y: x + y, np.add, ((2, 3), (3,))),
    OpSpec("SubBackward0", lambda t, x, y: x - y, np.subtract, ((2, 3), (2, 1))),
    OpSpec("RsubBackward1", lambda t, x: 1.5 - x, lambda x: 1.5 - x, ((3,),)),
    OpSpec("RsubBackward0", lambda t, x, y: t.rsub(x, y), lambda x, y: y - x, ((2, 3), (3,))),
    OpSpec(
        "MulBackward1", _by_number("MulBackward1", 0.9), lambda x: x * 0.9, ((3,),), torch=False
    ),
    OpSpec("DivBackward1", _by_number("DivBackward1", 3), lambda x: x / 3, ((3,),), torch=False),
    OpSpec("MulBackward0", lambda t, x, y: x * y, np.multiply, ((2, 3), (2, 3))),
    OpSpec("DivBackward0", lambda t, x, y: x / y, np.divide, ((2, 3), (3,)), 0.5, 2.0),
    OpSpec("NegBackward0", lambda t, x: -x, np.negative, ((4,),)),
    OpSpec("ReciprocalBackward0", lambda t, x: 3 / x, lambda x: 3 / x, ((4,),), 0.5, 2.0),
    OpSpec("PowBackward0", lambda t, x: x**3, lambda x: x**3, ((4,),), id="Pow_number_exponent"),
    OpSpec(
        "PowBackward1",
        lambda t, x, y: x**y,
        np.power,
        ((4,), (4,)),
        0.5,
        2.0,
        id="Pow_tensor_exponent",
    ),
    OpSpec("PowBackward2", lambda t, x: 2**x, lambda x: 2**x, ((4,),), id="Pow_number_base"),
    OpSpec(
        "RemainderBackward0",
        lambda t, x: x % 0.7,
        lambda x: np.remainder(x, 0.7),
        ((5,),),
        0.1,
        0.6,
    ),
    OpSpec(
        "RemainderBackward1",
        lambda t, x, y: x % y,
        np.remainder,
        ((2, 3), (3,)),
        0.5,
        3.0,
        id="Remainder_tensor",
    ),
    OpSpec(
        "RemainderOfNumberNotImplemented",
        lambda t, x: 2.5 % x,
        lambda x: np.remainder(2.5, x),
        ((4,),),
        0.5,
        3.0,
        no_derivative=True,
    ),
    OpSpec(
        "FloorDivideNotImplemented",
        lambda t, x, y: x // y,
        np.floor_divide,
        ((2, 3), (3,)),
        0.5,
        3.0,
        no_derivative=True,
    ),
    OpSpec("FlipBackward0", lambda t, x: x.flip(0, -1), lambda x: np.flip(x, (0, -1)), ((2, 3),)),
    OpSpec("FlipBackward0", lambda t, x: x.flip(0), lambda x: x, ((),), id="flip_0dim"),
    OpSpec("ExpBackward0", lambda t, x: x.exp(), np.exp, ((2, 2),)),
    OpSpec("LogBackward0", lambda t, x: x.log(), np.log, ((2, 2),), 0.5, 3.0),
    OpSpec("SinBackward0", lambda t, x: x.sin(), np.sin, ((5,),)),
    OpSpec("CosBackward0", lambda t, x: x.cos(), np.cos, ((5,),)),
    OpSpec("TanBackward0", lambda t, x: x.tan(), np.tan, ((5,),), -1.2, 1.2),
    OpSpec("TanhBackward0", lambda t, x: x.tanh(), np.tanh, ((5,),)),
    OpSpec(
        "SigmoidBackward0", lambda t, x: x.sigmoid(), lambda x: 1 / (1 + np.exp(-x)), ((5,),), -6, 6
    ),
    OpSpec("ReluBackward0", lambda t, x: x.relu(), lambda x: np.maximum(x, 0), ((6,),)),
    OpSpec(
        "ThresholdBackwardBackward0",
        _relu_backward,
        lambda g, x: g * (x > 0),
        ((6,), (6,)),
        torch=False,
    ),
    OpSpec("SqrtBackward0", lambda t, x: x.sqrt(), np.sqrt, ((4,),), 0.5, 3.0),
    OpSpec("AbsBackward0", lambda t, x: x.abs(), np.abs, ((6,),)),
    OpSpec("SignBackward0", lambda t, x: x.sign(), np.sign, ((6,),)),
    OpSpec(
        "MaskedFillBackward0",
        lambda t, x: x.masked_fill(x > 0.5, 2.0),
        lambda x: np.where(x > 0.5, np.float64(2.0), x),
        ((3, 4),),
    ),
    OpSpec(
        "MaskedFillBackward1",
        lambda t, x, v: x.masked_fill(x > 0.5, v),
        lambda x, v: np.where(x > 0.5, v, x),
        ((3, 4), ()),
        id="MaskedFill_tensor",
    ),
    OpSpec("SgnBackward0", lambda t, x: x.sgn(), np.sign, ((6,),)),
    OpSpec(
        "ClampBackward1", lambda t, x: x.clamp(-0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7), ((8,),)
    ),
    OpSpec(
        "ClampMinBackward0", lambda t, x: x.clamp_min(-0.5), lambda x: np.maximum(x, -0.5), ((8,),)
    ),
    OpSpec(
        "ClampMaxBackward0", lambda t, x: t.clamp_max(x, 0.7), lambda x: np.minimum(x, 0.7), ((8,),)
    ),
    OpSpec("MaximumBackward0", lambda t, x, y: t.maximum(x, y), np.maximum, ((3, 2), (3, 2))),
    OpSpec("MinimumBackward0", lambda t, x, y: t.minimum(x, y), np.minimum, ((3, 2), (2,))),
    OpSpec(
        "WhereBackward0",
        lambda t, x, y: t.where(x > 0, x, y),
        lambda x, y: np.where(x > 0, x, y),
        ((2, 3), (2, 3)),
    ),
    OpSpec("ZeroBackward0", _zero, np.zeros_like, ((3,),)),
    OpSpec("FillBackward2", _fill, lambda x: np.full_like(x, 2.0), ((3,),)),
    OpSpec("FillBackward3", _fill_tensor, lambda x, v: np.full_like(x, v), ((3,), ())),
    OpSpec("SumBackward0", lambda t, x: x.sum(), np.sum, ((2, 3),), id="Sum_all"),
    OpSpec(
        "SumBackward1",
        lambda t, x: x.sum(1, keepdim=True),
        lambda x: x.sum(1, keepdims=True),
        ((2, 3),),
        id="Sum_dim",
    ),
    OpSpec("MeanBackward1", lambda t, x: x.mean(0), lambda x: x.mean(0), ((2, 3),)),
    OpSpec("MeanBackward0", lambda t, x: x.mean(), np.mean, ((2, 3),)),
    OpSpec("VarBackward0", lambda t, x: x.var(1), lambda x: x.var(1, ddof=1), ((2, 4),)),
    OpSpec("StdBackward0", lambda t, x: x.std(), lambda x: x.std(ddof=1), ((2, 4),)),
    OpSpec(
        "LinalgVectorNormBackward0", lambda t, x: x.norm(), np.linalg.norm, ((2, 3),), id="Norm_2"
    ),
    OpSpec(
        "LinalgVectorNormBackward0",
        lambda t, x: x.norm(dim=1),
        lambda x: np.linalg.norm(x, axis=1),
        ((3, 4),),
        id="Norm_2_dim",
    ),
    OpSpec(
        "LinalgVectorNormBackward0",
        lambda t, x: x.norm(p=1, dim=0, keepdim=True),
        lambda x: np.abs(x).sum(0, keepdims=True),
        ((3, 4),),
        id="Norm_1_dim",
    ),
    OpSpec(
        "LinalgVectorNormBackward0",
        lambda t, x: x.norm(p=3, dim=(0, 1)),
        lambda x: (np.abs(x) ** 3).sum((0, 1)) ** (1 / 3),
        ((3, 4, 2),),
        id="Norm_3",
    ),
    OpSpec(
        "LinalgVectorNormBackward0",
        lambda t, x: x.norm(p=0.5, dim=1),
        lambda x: (np.abs(x) ** 0.5).sum(1) ** 2,
        ((3, 4),),
        low=0.5,
        id="Norm_half",
    ),
    OpSpec(
        "LinalgVectorNormBackward0",
        lambda t, x: x.norm(p=float("inf"), dim=1),
        lambda x: np.abs(x).max(1),
        ((3, 4),),
        id="Norm_inf",
    ),
    OpSpec("ProdBackward0", lambda t, x: x.prod(), np.prod, ((2, 3),), low=0.5, id="Prod_all"),
    OpSpec(
        "ProdBackward1",
        lambda t, x: x.prod(1),
        lambda x: x.prod(1),
        ((3, 4),),
        low=0.5,
        id="Prod_dim",
    ),
    OpSpec(
        "ProdBackward1",
        lambda t, x: x.prod(0, keepdim=True),
        lambda x: x.prod(0, keepdims=True),
        ((3, 2),),
        low=-1.5,
        high=-0.5,
        id="Prod_dim_keepdim",
    ),
    OpSpec(
        "LogsumexpBackward0",
        lambda t, x: x.logsumexp(1),
        lambda x: np.log(np.exp(x).sum(1)),
        ((3, 4),),
        id="Logsumexp_dim",
    ),
    OpSpec(
        "LogsumexpBackward0",
        lambda t, x: x.logsumexp((0, 1), keepdim=True),
        lambda x: np.log(np.exp(x).sum((0, 1), keepdims=True)),
        ((3, 2),),
        id="Logsumexp_dims",
    ),
    OpSpec("MaxBackward1", lambda t, x: x.max(), np.max, ((2, 3),), id="Max_all"),
    OpSpec("MinBackward1", lambda t, x: x.min(), np.min, ((2, 3),)),
    OpSpec("MaxBackward0", lambda t, x: x.max(1)[0], lambda x: x.max(1), ((2, 3),), id="Max_dim"),
    OpSpec(
        "MinBackward0",
        lambda t, x: x.min(0, keepdim=True)[0],
        lambda x: x.min(0, keepdims=True),
        ((2, 3),),
    ),
    OpSpec("ViewBackward0", lambda t, x: x.view(3, 2), lambda x: x.reshape(3, 2), ((2, 3),)),
    OpSpec("UnsafeViewBackward0", lambda t, x: x.T.reshape(6), lambda x: x.T.reshape(6), ((2, 3),)),
    OpSpec(
        "ReshapeAliasBackward0",
        lambda t, x: x.t().reshape(1, 3, 2),
        lambda x: x.T.reshape(1, 3, 2),
        ((2, 3),),
    ),
    OpSpec(
        "PermuteBackward0",
        lambda t, x: x.permute(2, 0, 1),
        lambda x: x.transpose(2, 0, 1),
        ((2, 3, 4),),
    ),
    OpSpec(
        "TransposeBackward0",
        lambda t, x: x.transpose(0, 2),
        lambda x: x.swapaxes(0, 2),
        ((2, 3, 4),),
    ),
    OpSpec("TBackward0", lambda t, x: x.t(), np.transpose, ((2, 3),)),
    OpSpec(
        "ExpandBackward0",
        lambda t, x: x.expand(2, 3, 4),
        lambda x: np.broadcast_to(x, (2, 3, 4)),
        ((3, 1),),
    ),
    OpSpec("SqueezeBackward1", lambda t, x: x.squeeze(1), lambda x: x.squeeze(1), ((3, 1, 2),)),
    OpSpec("SqueezeBackward0", lambda t, x: x.squeeze(), lambda x: x.squeeze(), ((3, 1, 2),)),
    OpSpec(
        "SqueezeBackward2",
        lambda t, x: x.squeeze((1, 3)),
        lambda x: x.squeeze((1, 3)),
        ((3, 1, 2, 1),),
    ),
    OpSpec("SqueezeBackward4", lambda t, x, y: x @ y, np.matmul, ((3,), (3, 4))),
    OpSpec("UnsqueezeBackward0", lambda t, x: x.unsqueeze(-1), lambda x: x[..., None], ((3, 2),)),
    OpSpec("IndexBackward0", lambda t, x: x[[0, 2, 0]], lambda x: x[[0, 2, 0]], ((4, 3),)),
    OpSpec("SelectBackward0", lambda t, x: x[1], lambda x: x[1], ((4, 3),)),
    OpSpec("SliceBackward0", lambda t, x: x[:, 1::2], lambda x: x[:, 1::2], ((4, 5),)),
    OpSpec("IndexPutBackward0", _index_put, None, ((3, 3),), torch=False),
    OpSpec("IndexPutBackward0", _setitem_advanced, None, ((3, 2), (2,)), id="IndexPut_setitem"),
    OpSpec(
        "AsStridedBackward0", _inplace_on_view, lambda x: (3 * x[1]) ** 2, ((3, 2),), torch=False
    ),
    OpSpec("CopyBackwards", _setitem, None, ((3, 2), (2,)), id="CopySlices_setitem"),
    OpSpec("CopyBackwards", _copy, None, ((3, 2), (2,))),
    OpSpec("CloneBackward0", lambda t, x: x.clone(), np.copy, ((3,),)),
    OpSpec(
        "ToCopyBackward0",
        lambda t, x: x.float() * 2,
        lambda x: x.astype(np.float32) * 2,
        ((3,),),
        rtol=0.1,
    ),  # the float32 copy makes differences with eps=1e-6 coarse
    OpSpec(
        "CatBackward0",
        lambda t, x, y: t.cat([x, y], 1),
        lambda x, y: np.concatenate([x, y], 1),
        ((2, 3), (2, 1)),
    ),
    OpSpec(
        "StackBackward0",
        lambda t, x, y: t.stack([x, y], 1),
        lambda x, y: np.stack([x, y], 1),
        ((2, 3), (2, 3)),
    ),
    OpSpec(
        "SplitBackward0",
        lambda t, x: t.cat([p * (i + 1) for i, p in enumerate(x.split(2))]),
        lambda x: np.concatenate([x[:2], 2 * x[2:4], 3 * x[4:]]),
        ((5, 2),),
    ),
    OpSpec(
        "SplitWithSizesBackward0",
        lambda t, x: x.split([1, 2], 1)[1] * 3,
        lambda x: 3 * x[:, 1:],
        ((2, 3),),
    ),  # the unused first piece gets a zero gradient
    OpSpec(
        "UnbindBackward0",
        lambda t, x: t.stack([r * (i + 1) for i, r in enumerate(x.unbind(1))]),
        lambda x: np.stack([x[:, 0], 2 * x[:, 1]]),
        ((3, 2),),
    ),
    OpSpec("MmBackward0", lambda t, x, y: x @ y, np.matmul, ((2, 3), (3, 4))),
    OpSpec("MvBackward0", lambda t, x, y: x @ y, np.matmul, ((2, 3), (3,))),
    OpSpec("DotBackward0", lambda t, x, y: x @ y, np.dot, ((3,), (3,))),
    OpSpec("BmmBackward0", lambda t, x, y: x @ y, np.matmul, ((2, 2, 3), (2, 3, 4))),
    OpSpec(
        "LogSoftmaxBackward0",
        lambda t, x: x.log_softmax(1),
        lambda x: np.log(_softmax_ref(x, 1)),
        ((2, 4),),
    ),
    OpSpec("SoftmaxBackward0", lambda t, x: x.softmax(0), lambda x: _softmax_ref(x, 0), ((3, 2),)),
]
