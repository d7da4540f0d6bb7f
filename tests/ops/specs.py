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
    from autogradkit.ops.indexing import IndexPut

    zeros = np.zeros((4, 3))
    return IndexPut.apply(zeros, x, index=(np.array([0, 2, 0]),), accumulate=True)


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


def _zero(lib, x):
    return (x * 1).zero_()


SPECS = [
    OpSpec("Add", lambda t, x, y: x + y, np.add, ((2, 3), (3,))),
    OpSpec("Sub", lambda t, x, y: x - y, np.subtract, ((2, 3), (2, 1))),
    OpSpec("Rsub", lambda t, x: 1.5 - x, lambda x: 1.5 - x, ((3,),)),
    OpSpec("Mul", lambda t, x, y: x * y, np.multiply, ((2, 3), (2, 3))),
    OpSpec("Div", lambda t, x, y: x / y, np.divide, ((2, 3), (3,)), 0.5, 2.0),
    OpSpec("Neg", lambda t, x: -x, np.negative, ((4,),)),
    OpSpec("Reciprocal", lambda t, x: 3 / x, lambda x: 3 / x, ((4,),), 0.5, 2.0),
    OpSpec("Pow", lambda t, x: x**3, lambda x: x**3, ((4,),), id="Pow_number_exponent"),
    OpSpec("Pow", lambda t, x, y: x**y, np.power, ((4,), (4,)), 0.5, 2.0, id="Pow_tensor_exponent"),
    OpSpec("Pow", lambda t, x: 2**x, lambda x: 2**x, ((4,),), id="Pow_number_base"),
    OpSpec("Remainder", lambda t, x: x % 0.7, lambda x: np.remainder(x, 0.7), ((5,),), 0.1, 0.6),
    OpSpec(
        "Remainder",
        lambda t, x, y: x % y,
        np.remainder,
        ((2, 3), (3,)),
        0.5,
        3.0,
        id="Remainder_tensor",
    ),
    OpSpec(
        "RemainderOfNumber",
        lambda t, x: 2.5 % x,
        lambda x: np.remainder(2.5, x),
        ((4,),),
        0.5,
        3.0,
        no_derivative=True,
    ),
    OpSpec(
        "FloorDivide",
        lambda t, x, y: x // y,
        np.floor_divide,
        ((2, 3), (3,)),
        0.5,
        3.0,
        no_derivative=True,
    ),
    OpSpec("Flip", lambda t, x: x.flip(0, -1), lambda x: np.flip(x, (0, -1)), ((2, 3),)),
    OpSpec("Exp", lambda t, x: x.exp(), np.exp, ((2, 2),)),
    OpSpec("Log", lambda t, x: x.log(), np.log, ((2, 2),), 0.5, 3.0),
    OpSpec("Sin", lambda t, x: x.sin(), np.sin, ((5,),)),
    OpSpec("Cos", lambda t, x: x.cos(), np.cos, ((5,),)),
    OpSpec("Tan", lambda t, x: x.tan(), np.tan, ((5,),), -1.2, 1.2),
    OpSpec("Tanh", lambda t, x: x.tanh(), np.tanh, ((5,),)),
    OpSpec("Sigmoid", lambda t, x: x.sigmoid(), lambda x: 1 / (1 + np.exp(-x)), ((5,),), -6, 6),
    OpSpec("Relu", lambda t, x: x.relu(), lambda x: np.maximum(x, 0), ((6,),)),
    OpSpec("Sqrt", lambda t, x: x.sqrt(), np.sqrt, ((4,),), 0.5, 3.0),
    OpSpec("Abs", lambda t, x: x.abs(), np.abs, ((6,),)),
    OpSpec("Sign", lambda t, x: x.sign(), np.sign, ((6,),)),
    OpSpec(
        "MaskedFill",
        lambda t, x: x.masked_fill(x > 0.5, 2.0),
        lambda x: np.where(x > 0.5, np.float64(2.0), x),
        ((3, 4),),
    ),
    OpSpec(
        "MaskedFill",
        lambda t, x, v: x.masked_fill(x > 0.5, v),
        lambda x, v: np.where(x > 0.5, v, x),
        ((3, 4), ()),
        id="MaskedFill_tensor",
    ),
    OpSpec("Sgn", lambda t, x: x.sgn(), np.sign, ((6,),)),
    OpSpec("Clamp", lambda t, x: x.clamp(-0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7), ((8,),)),
    OpSpec("Maximum", lambda t, x, y: t.maximum(x, y), np.maximum, ((3, 2), (3, 2))),
    OpSpec("Minimum", lambda t, x, y: t.minimum(x, y), np.minimum, ((3, 2), (2,))),
    OpSpec(
        "Where",
        lambda t, x, y: t.where(x > 0, x, y),
        lambda x, y: np.where(x > 0, x, y),
        ((2, 3), (2, 3)),
    ),
    OpSpec("Zero", _zero, np.zeros_like, ((3,),)),
    OpSpec("Fill", _fill, lambda x: np.full_like(x, 2.0), ((3,),)),
    OpSpec("Sum", lambda t, x: x.sum(), np.sum, ((2, 3),), id="Sum_all"),
    OpSpec(
        "Sum",
        lambda t, x: x.sum(1, keepdim=True),
        lambda x: x.sum(1, keepdims=True),
        ((2, 3),),
        id="Sum_dim",
    ),
    OpSpec("Mean", lambda t, x: x.mean(0), lambda x: x.mean(0), ((2, 3),)),
    OpSpec("Var", lambda t, x: x.var(1), lambda x: x.var(1, ddof=1), ((2, 4),)),
    OpSpec("Std", lambda t, x: x.std(), lambda x: x.std(ddof=1), ((2, 4),)),
    OpSpec("LinalgVectorNorm", lambda t, x: x.norm(), np.linalg.norm, ((2, 3),), id="Norm_2"),
    OpSpec(
        "LinalgVectorNorm",
        lambda t, x: x.norm(dim=1),
        lambda x: np.linalg.norm(x, axis=1),
        ((3, 4),),
        id="Norm_2_dim",
    ),
    OpSpec(
        "LinalgVectorNorm",
        lambda t, x: x.norm(p=1, dim=0, keepdim=True),
        lambda x: np.abs(x).sum(0, keepdims=True),
        ((3, 4),),
        id="Norm_1_dim",
    ),
    OpSpec(
        "LinalgVectorNorm",
        lambda t, x: x.norm(p=3, dim=(0, 1)),
        lambda x: (np.abs(x) ** 3).sum((0, 1)) ** (1 / 3),
        ((3, 4, 2),),
        id="Norm_3",
    ),
    OpSpec(
        "LinalgVectorNorm",
        lambda t, x: x.norm(p=0.5, dim=1),
        lambda x: (np.abs(x) ** 0.5).sum(1) ** 2,
        ((3, 4),),
        low=0.5,
        id="Norm_half",
    ),
    OpSpec(
        "LinalgVectorNorm",
        lambda t, x: x.norm(p=float("inf"), dim=1),
        lambda x: np.abs(x).max(1),
        ((3, 4),),
        id="Norm_inf",
    ),
    OpSpec("Prod", lambda t, x: x.prod(), np.prod, ((2, 3),), low=0.5, id="Prod_all"),
    OpSpec("Prod", lambda t, x: x.prod(1), lambda x: x.prod(1), ((3, 4),), low=0.5, id="Prod_dim"),
    OpSpec(
        "Prod",
        lambda t, x: x.prod(0, keepdim=True),
        lambda x: x.prod(0, keepdims=True),
        ((3, 2),),
        low=-1.5,
        high=-0.5,
        id="Prod_dim_keepdim",
    ),
    OpSpec(
        "Logsumexp",
        lambda t, x: x.logsumexp(1),
        lambda x: np.log(np.exp(x).sum(1)),
        ((3, 4),),
        id="Logsumexp_dim",
    ),
    OpSpec(
        "Logsumexp",
        lambda t, x: x.logsumexp((0, 1), keepdim=True),
        lambda x: np.log(np.exp(x).sum((0, 1), keepdims=True)),
        ((3, 2),),
        id="Logsumexp_dims",
    ),
    OpSpec("Max", lambda t, x: x.max(), np.max, ((2, 3),), id="Max_all"),
    OpSpec("Max", lambda t, x: x.max(1)[0], lambda x: x.max(1), ((2, 3),), id="Max_dim"),
    OpSpec(
        "Min", lambda t, x: x.min(0, keepdim=True)[0], lambda x: x.min(0, keepdims=True), ((2, 3),)
    ),
    OpSpec("View", lambda t, x: x.view(3, 2), lambda x: x.reshape(3, 2), ((2, 3),)),
    OpSpec("UnsafeView", lambda t, x: x.T.reshape(6), lambda x: x.T.reshape(6), ((2, 3),)),
    OpSpec(
        "ReshapeAlias",
        lambda t, x: x.t().reshape(1, 3, 2),
        lambda x: x.T.reshape(1, 3, 2),
        ((2, 3),),
    ),
    OpSpec(
        "Permute", lambda t, x: x.permute(2, 0, 1), lambda x: x.transpose(2, 0, 1), ((2, 3, 4),)
    ),
    OpSpec("Transpose", lambda t, x: x.transpose(0, 2), lambda x: x.swapaxes(0, 2), ((2, 3, 4),)),
    OpSpec("T", lambda t, x: x.t(), np.transpose, ((2, 3),)),
    OpSpec(
        "Expand", lambda t, x: x.expand(2, 3, 4), lambda x: np.broadcast_to(x, (2, 3, 4)), ((3, 1),)
    ),
    OpSpec("Squeeze", lambda t, x: x.squeeze(1), lambda x: x.squeeze(1), ((3, 1, 2),)),
    OpSpec("Unsqueeze", lambda t, x: x.unsqueeze(-1), lambda x: x[..., None], ((3, 2),)),
    OpSpec("Index", lambda t, x: x[[0, 2, 0]], lambda x: x[[0, 2, 0]], ((4, 3),)),
    OpSpec("Select", lambda t, x: x[1], lambda x: x[1], ((4, 3),)),
    OpSpec("Slice", lambda t, x: x[:, 1::2], lambda x: x[:, 1::2], ((4, 5),)),
    OpSpec("IndexPut", _index_put, None, ((3, 3),), torch=False),
    OpSpec("IndexPut", _setitem_advanced, None, ((3, 2), (2,)), id="IndexPut_setitem"),
    OpSpec("AsStrided", _inplace_on_view, lambda x: (3 * x[1]) ** 2, ((3, 2),), torch=False),
    OpSpec("Copy", _setitem, None, ((3, 2), (2,)), id="CopySlices_setitem"),
    OpSpec("Copy", _copy, None, ((3, 2), (2,))),
    OpSpec("Clone", lambda t, x: x.clone(), np.copy, ((3,),)),
    OpSpec(
        "ToCopy", lambda t, x: x.float() * 2, lambda x: x.astype(np.float32) * 2, ((3,),), rtol=0.1
    ),  # the float32 copy makes differences with eps=1e-6 coarse
    OpSpec(
        "Cat",
        lambda t, x, y: t.cat([x, y], 1),
        lambda x, y: np.concatenate([x, y], 1),
        ((2, 3), (2, 1)),
    ),
    OpSpec(
        "Stack",
        lambda t, x, y: t.stack([x, y], 1),
        lambda x, y: np.stack([x, y], 1),
        ((2, 3), (2, 3)),
    ),
    OpSpec(
        "Split",
        lambda t, x: t.cat([p * (i + 1) for i, p in enumerate(x.split(2))]),
        lambda x: np.concatenate([x[:2], 2 * x[2:4], 3 * x[4:]]),
        ((5, 2),),
    ),
    OpSpec(
        "SplitWithSizes", lambda t, x: x.split([1, 2], 1)[1] * 3, lambda x: 3 * x[:, 1:], ((2, 3),)
    ),  # the unused first piece gets a zero gradient
    OpSpec(
        "Unbind",
        lambda t, x: t.stack([r * (i + 1) for i, r in enumerate(x.unbind(1))]),
        lambda x: np.stack([x[:, 0], 2 * x[:, 1]]),
        ((3, 2),),
    ),
    OpSpec("Mm", lambda t, x, y: x @ y, np.matmul, ((2, 3), (3, 4))),
    OpSpec(
        "Addmm",
        lambda t, b, x, w: t.addmm(b, x, w) if t.__name__ == "torch" else _addmm(b, x, w),
        lambda b, x, w: b + x @ w,
        ((4,), (2, 3), (3, 4)),
    ),
    OpSpec("Mv", lambda t, x, y: x @ y, np.matmul, ((2, 3), (3,))),
    OpSpec("Dot", lambda t, x, y: x @ y, np.dot, ((3,), (3,))),
    OpSpec("Bmm", lambda t, x, y: x @ y, np.matmul, ((2, 2, 3), (2, 3, 4))),
    OpSpec(
        "LogSoftmax", lambda t, x: x.log_softmax(1), lambda x: np.log(_softmax_ref(x, 1)), ((2, 4),)
    ),
    OpSpec("Softmax", lambda t, x: x.softmax(0), lambda x: _softmax_ref(x, 0), ((3, 2),)),
]


def _addmm(b, x, w):
    from autogradkit.ops.linalg import Addmm

    return Addmm.apply(b, x, w)
