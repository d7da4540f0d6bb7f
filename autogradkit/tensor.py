"""``Tensor``: a NumPy array plus what autograd needs (requires_grad, grad, grad_fn).

Methods are one-liners over the ops in ``autogradkit.ops``; composites (``sub``, ``mean``,
``softmax``...) are written in terms of them. In-place methods follow PyTorch's rules.
"""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from . import _device, _dtype, _inplace, _matmul
from ._device import device
from ._indexing import getitem
from ._legacy import BY_NAME, new
from ._numpy_dispatch import array_function, array_ufunc
from ._shape import Size, check_expandable, normalize_dim
from ._tensor_str import tensor_repr
from .autograd import grad_mode
from .autograd.engine import TensorBase
from .ops import (
    arithmetic,
    indexing,
    joining,
    linalg,
    movement,
    power,
    reduce,
    rounding,
    selection,
    statistics,
    unary,
)
from .ops import nn as nn_ops
from .random import _generator

__all__ = ["Tensor", "where"]

_T_WARNING = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*autogradkit.arange(x.ndim - 1, -1, -1))` to reverse "
    "the dimensions of a tensor."
)


class Tensor(TensorBase, wraps_outputs=True):
    """A multi-dimensional array that can record the operations that made it.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(2., requires_grad=True)
        >>> c = a * 3
        >>> c
        tensor(6., grad_fn=<MulBackward0>)
        >>> c.backward()
        >>> a.grad
        tensor(3.)
    """

    __slots__ = ()  # TensorBase holds the slots; vars(t) stays {} as in PyTorch
    __array_priority__ = 1000  # NumPy defers to Tensor in mixed expressions

    def __new__(cls, *args, **kwargs):
        """``Tensor(data)`` or ``Tensor(2, 3)``: PyTorch's legacy float32 constructor (prefer
        ``tensor()``). A subclass (``Parameter``) makes itself in ``__init__``."""
        if cls is not Tensor:
            return object.__new__(cls)
        return new(None, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass  # __new__ made the tensor

    # ----- autograd (the state, backward and the rest: TensorBase, autograd/engine.py) -----
    def detach_(self) -> Tensor:
        """Cut this tensor from the graph in place: it becomes a leaf that needs no grad."""
        return _inplace.detach_(self)

    # ----- shape, dtype, conversion ---------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        return self.shape if dim is None else self._data.shape[normalize_dim(dim, self.ndim)]

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.from_numpy(self._data.dtype)

    @property
    def device(self) -> device:
        return _device.CPU

    is_cuda = False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_contiguous(self) -> bool:
        return self._data.flags.c_contiguous

    def contiguous(self) -> Tensor:
        return (
            self if self.is_contiguous() else movement.CloneBackward0.apply(self, contiguous=True)
        )

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array behind this tensor (shared memory, as in PyTorch)."""
        if self._requires_grad and grad_mode._enabled and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def to(self, *args, dtype=None, device=None, copy=False, **kwargs) -> Tensor:
        """Convert dtype (a ``ToCopyBackward0`` node) or device (only ``"cpu"`` exists)."""
        for arg in args:
            if isinstance(arg, _dtype.dtype):
                dtype = arg
            elif isinstance(arg, Tensor):
                dtype = arg.dtype
            else:
                _device.use(arg)
        _device.use(device)
        if dtype is None or _dtype.to_numpy(dtype) == self._data.dtype:
            return self.clone() if copy else self
        return movement.ToCopyBackward0.apply(self, dtype=_dtype.to_numpy(dtype))

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def float(self) -> Tensor:
        return self.to(_dtype.float32)

    def double(self) -> Tensor:
        return self.to(_dtype.float64)

    def half(self) -> Tensor:
        return self.to(_dtype.float16)

    def long(self) -> Tensor:
        return self.to(_dtype.int64)

    def int(self) -> Tensor:
        return self.to(_dtype.int32)

    def bool(self) -> Tensor:
        return self.to(_dtype.bool)

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device=None, non_blocking=False, **kwargs) -> Tensor:
        _device.use("cuda" if device is None else device)
        return self

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """``"autogradkit.FloatTensor"``, or a copy converted to a legacy type (or its name)."""
        if dtype is None:
            return f"autogradkit.{self.dtype._tensor_type}"
        if isinstance(dtype, str):
            dtype = BY_NAME[dtype.rpartition(".")[2]]
        return self.to(getattr(dtype, "dtype", dtype))

    def clone(self) -> Tensor:
        return movement.CloneBackward0.apply(self)

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)  # f"{loss:.3f}" works, as in PyTorch
        return object.__format__(self, spec)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data)

    def __float__(self) -> float:
        value = self._only_element()  # PyTorch checks the size before it warns
        if self._requires_grad:
            warnings.warn(
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first.",
                UserWarning,
                stacklevel=2,
            )
        return builtins.float(value)

    def __int__(self) -> int:
        return builtins.int(self._only_element())

    def _only_element(self):
        """What float() and int() convert: PyTorch's ValueError (item() raises its own)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    __hash__ = object.__hash__

    # ----- arithmetic -------------------------------------------------------------------------
    def add(self, other, *, alpha=1) -> Tensor:
        return arithmetic.AddBackward0.apply(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1) -> Tensor:
        return arithmetic.SubBackward0.apply(self, other, alpha=alpha)

    def mul(self, other) -> Tensor:
        return arithmetic.MulBackward0.apply(self, other)

    def div(self, other) -> Tensor:
        return arithmetic.DivBackward0.apply(self, other)

    def __rtruediv__(self, other) -> Tensor:
        return self.reciprocal() * other  # 2 / x records MulBackward0 over ReciprocalBackward0

    def pow(self, exponent) -> Tensor:
        return _pow(self, exponent)

    def __rpow__(self, base) -> Tensor:
        return _pow(base, self)

    def __rsub__(self, other) -> Tensor:
        rsub = arithmetic.RsubBackward1 if _is_number(other) else arithmetic.RsubBackward0
        return rsub.apply(self, other)

    def remainder(self, other) -> Tensor:
        if _is_number(other):
            return rounding.RemainderBackward0.apply(self, other)
        return rounding.RemainderBackward1.apply(self, other)

    def __rmod__(self, other) -> Tensor:
        return rounding.RemainderOfNumberNotImplemented.apply(other, self)

    def floor_divide(self, other) -> Tensor:
        return rounding.FloorDivideNotImplemented.apply(self, other)

    def __rfloordiv__(self, other) -> Tensor:
        return rounding.FloorDivideNotImplemented.apply(other, self)

    def neg(self) -> Tensor:
        return arithmetic.NegBackward0.apply(self)

    def reciprocal(self) -> Tensor:
        return power.ReciprocalBackward0.apply(self)

    def square(self) -> Tensor:
        return power.PowBackward0.apply(self, 2)

    def exp(self) -> Tensor:
        return unary.ExpBackward0.apply(self)

    def log(self) -> Tensor:
        return unary.LogBackward0.apply(self)

    def sin(self) -> Tensor:
        return unary.SinBackward0.apply(self)

    def cos(self) -> Tensor:
        return unary.CosBackward0.apply(self)

    def tan(self) -> Tensor:
        return unary.TanBackward0.apply(self)

    def tanh(self) -> Tensor:
        return unary.TanhBackward0.apply(self)

    def sigmoid(self) -> Tensor:
        return unary.SigmoidBackward0.apply(self)

    def relu(self) -> Tensor:
        return unary.ReluBackward0.apply(self)

    def sqrt(self) -> Tensor:
        return unary.SqrtBackward0.apply(self)

    def abs(self) -> Tensor:
        return unary.AbsBackward0.apply(self)

    def sign(self) -> Tensor:
        return unary.SignBackward0.apply(self)

    def sgn(self) -> Tensor:
        return unary.SgnBackward0.apply(self)

    def clamp(self, min=None, max=None) -> Tensor:  # noqa: A002
        if min is None and max is None:
            raise RuntimeError("autogradkit.clamp: At least one of 'min' or 'max' must not be None")
        return unary.ClampBackward1.apply(self, min=min, max=max)

    clip = clamp

    def clamp_min(self, min) -> Tensor:  # noqa: A002
        return self.clamp(min=min)

    def clamp_max(self, max) -> Tensor:  # noqa: A002
        return self.clamp(max=max)

    def maximum(self, other: Tensor) -> Tensor:
        return selection.MaximumBackward0.apply(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return selection.MinimumBackward0.apply(self, other)

    def where(self, condition, other) -> Tensor:
        return where(condition, self, other)

    def masked_fill(self, mask, value) -> Tensor:
        mask = np.asarray(_array(mask), dtype=bool)
        if _is_number(value):
            return selection.MaskedFillBackward0.apply(self, value, mask=mask)
        return selection.MaskedFillBackward1.apply(self, value, mask=mask)

    def __add__(self, other) -> Tensor:
        return arithmetic.AddBackward0.apply(self, other)

    def __mul__(self, other) -> Tensor:
        return arithmetic.MulBackward0.apply(self, other)

    __radd__ = __add__
    __rmul__ = __mul__
    __sub__ = sub
    __truediv__ = div
    __pow__ = pow
    __mod__ = remainder
    __floordiv__ = floor_divide
    __neg__ = neg
    __abs__ = abs

    def __pos__(self) -> Tensor:
        return self

    # ----- reductions ---------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return arithmetic.SumBackward0.apply(self)
        return arithmetic.SumBackward1.apply(self, dim=dim, keepdim=keepdim)

    def mean(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return arithmetic.MeanBackward0.apply(self)
        return arithmetic.MeanBackward1.apply(self, dim=dim, keepdim=keepdim)

    def var(self, *args, **kwargs) -> Tensor:
        """The variance over ``dim`` (all elements by default), with ``n - correction``
        degrees of freedom: ``var(dim=None, unbiased=True, keepdim=False, *, correction)``."""
        return statistics.VarBackward0.apply(self, **_spread_arguments(*args, **kwargs))

    def std(self, *args, **kwargs) -> Tensor:
        """The standard deviation: the square root of ``var`` (same arguments)."""
        return statistics.StdBackward0.apply(self, **_spread_arguments(*args, **kwargs))

    def max(self, dim=None, keepdim=False):
        """``max()``: a tensor; ``max(dim)``: ``(values, indices)``; ``max(other)``: elementwise."""
        if isinstance(dim, Tensor):
            return self.maximum(dim)
        if dim is None:
            return reduce.MaxBackward1.apply(self)
        return _MinMax(*reduce.MaxBackward0.apply(self, dim=dim, keepdim=keepdim), name="max")

    def min(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return self.minimum(dim)
        if dim is None:
            return reduce.MinBackward1.apply(self)
        return _MinMax(*reduce.MinBackward0.apply(self, dim=dim, keepdim=keepdim), name="min")

    def argmax(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return Tensor._wrap(np.asarray(np.argmax(self._data)))
        return Tensor._wrap(_keep(np.argmax(self._data, axis=dim), dim, keepdim))

    def argmin(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return Tensor._wrap(np.asarray(np.argmin(self._data)))
        return Tensor._wrap(_keep(np.argmin(self._data, axis=dim), dim, keepdim))

    def norm(self, p="fro", dim=None, keepdim=False) -> Tensor:
        """The vector p-norm over ``dim`` (all elements by default); "fro" is p = 2."""
        p = 2 if p == "fro" else p
        return statistics.LinalgVectorNormBackward0.apply(self, p=p, dim=dim, keepdim=keepdim)

    def logsumexp(self, dim, keepdim=False) -> Tensor:
        return reduce.LogsumexpBackward0.apply(self, dim=dim, keepdim=keepdim)

    def prod(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return reduce.ProdBackward0.apply(self)
        return reduce.ProdBackward1.apply(self, dim=dim, keepdim=keepdim)

    def softmax(self, dim) -> Tensor:
        return nn_ops.SoftmaxBackward0.apply(self, dim=dim)

    def log_softmax(self, dim) -> Tensor:
        return nn_ops.LogSoftmaxBackward0.apply(self, dim=dim)

    def all(self) -> Tensor:
        return Tensor._wrap(np.asarray(np.all(self._data)))

    def any(self) -> Tensor:
        return Tensor._wrap(np.asarray(np.any(self._data)))

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        return builtins.bool(np.allclose(self._data, _array(other), rtol, atol, equal_nan))

    def equal(self, other) -> bool:
        return self.shape == other.shape and builtins.bool(np.all(self._data == other._data))

    # ----- comparisons (no gradient, bool results) --------------------------------------------
    def _compare(self, other, op) -> Tensor:
        return Tensor._wrap(np.asarray(op(self._data, _array(other))))

    def eq(self, other):
        return self._compare(other, np.equal)

    def ne(self, other):
        return self._compare(other, np.not_equal)

    def lt(self, other):
        return self._compare(other, np.less)

    def le(self, other):
        return self._compare(other, np.less_equal)

    def gt(self, other):
        return self._compare(other, np.greater)

    def ge(self, other):
        return self._compare(other, np.greater_equal)

    __eq__, __ne__, __lt__, __le__, __gt__, __ge__ = eq, ne, lt, le, gt, ge

    def __invert__(self) -> Tensor:
        return Tensor._wrap(~self._data)

    def __and__(self, other) -> Tensor:
        return Tensor._wrap(self._data & _array(other))

    def __or__(self, other) -> Tensor:
        return Tensor._wrap(self._data | _array(other))

    def isnan(self) -> Tensor:
        return Tensor._wrap(np.isnan(self._data))

    # ----- matrix products ----------------------------------------------------------------------
    def mm(self, other: Tensor) -> Tensor:
        return linalg.MmBackward0.apply(self, other)

    def mv(self, other: Tensor) -> Tensor:
        return linalg.MvBackward0.apply(self, other)

    def dot(self, other: Tensor) -> Tensor:
        return linalg.DotBackward0.apply(self, other)

    def matmul(self, other: Tensor) -> Tensor:
        """``@``: dot, mv, mm or a batched product, picked as PyTorch's matmul picks them (so
        the graph shows the same nodes: see ``_matmul.py``)."""
        return _matmul.matmul(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, other) -> Tensor:
        return _as_tensor(other, self).matmul(self)

    # ----- shape and movement -----------------------------------------------------------------
    def view(self, *shape) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
            raise NotImplementedError("view(dtype) is not supported by autogradkit")
        return movement.ViewBackward0.apply(self, shape=self._infer_shape(shape))

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other.shape)

    def reshape(self, *shape) -> Tensor:
        shape = self._infer_shape(shape)
        try:
            np.reshape(self._data, shape, copy=False)
        except ValueError:  # not as a view: a contiguous copy, viewed (as PyTorch records it)
            copy = movement.CloneBackward0.apply(self, contiguous=True)
            return movement.UnsafeViewBackward0.apply(copy, shape=shape)
        if self.is_contiguous():
            return movement.ViewBackward0.apply(self, shape=shape)
        return movement.ReshapeAliasBackward0.apply(self, shape=shape)  # a view of strided memory

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(other.shape)

    def _infer_shape(self, shape) -> tuple:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        shape = tuple(builtins.int(s) for s in shape)
        known = 1
        for s in shape:
            known *= s if s != -1 else 1
        if shape.count(-1) == 1 and known and self._data.size % known == 0:
            shape = tuple(self._data.size // known if s == -1 else s for s in shape)
        if np.prod(shape, dtype=np.int64) != self._data.size or shape.count(-1):
            raise RuntimeError(
                f"shape '{list(shape)}' is invalid for input of size {self._data.size}"
            )
        return shape

    def flatten(self, start_dim=0, end_dim=-1) -> Tensor:
        if self.ndim == 0:
            return self.reshape(1)
        start, end = normalize_dim(start_dim, self.ndim), normalize_dim(end_dim, self.ndim)
        if start == end:
            return self
        shape = self.shape
        return self.reshape(*shape[:start], -1, *shape[end + 1 :])

    def squeeze(self, dim=None) -> Tensor:
        if dim is None:
            return movement.SqueezeBackward0.apply(self)
        if isinstance(dim, builtins.int):  # squeeze(dim) and squeeze(dims) are two overloads
            return movement.SqueezeBackward1.apply(self, dims=dim)
        return movement.SqueezeBackward2.apply(self, dims=tuple(dim))

    def flip(self, *dims) -> Tensor:
        """The elements in reverse order along ``dims`` (a copy, as in PyTorch)."""
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        return movement.FlipBackward0.apply(self, dims=dims)

    def unsqueeze(self, dim: int) -> Tensor:
        return movement.UnsqueezeBackward0.apply(self, dim=dim)

    def expand(self, *sizes) -> Tensor:
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        lead = len(sizes) - self.ndim
        shape = tuple(self._data.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        check_expandable(self._data.shape, shape, self._data.dtype)  # PyTorch's words
        return movement.ExpandBackward0.apply(self, shape=shape)

    def expand_as(self, other: Tensor) -> Tensor:
        return self.expand(other.shape)

    def permute(self, *dims) -> Tensor:
        if not dims:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        return movement.PermuteBackward0.apply(self, dims=tuple(dims))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return movement.TransposeBackward0.apply(self, dim0=dim0, dim1=dim1)

    def t(self) -> Tensor:
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
            )
        return movement.TBackward0.apply(self)

    @property
    def T(self) -> Tensor:
        """All dims reversed (``PermuteBackward0``), as ``x.T`` is in PyTorch."""
        if self.ndim != 2:
            warnings.warn(_T_WARNING, UserWarning, stacklevel=2)
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self) -> Tensor:
        return self.transpose(-2, -1)

    def split(self, split_size_or_sections, dim: int = 0) -> tuple:
        """Pieces of ``split_size`` along ``dim`` (the last may be shorter), or of given sizes."""
        d = normalize_dim(dim, self.ndim)
        if isinstance(split_size_or_sections, (list, tuple)):
            sizes = tuple(split_size_or_sections)
            return joining.SplitWithSizesBackward0.apply(self, sizes=sizes, dim=dim)
        size, length = split_size_or_sections, self._data.shape[d]
        sizes = [size] * (length // size) + ([length % size] if length % size else [])
        return joining.SplitBackward0.apply(self, sizes=tuple(sizes), dim=dim, split_size=size)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        """At most ``chunks`` pieces of equal size along ``dim`` (the last may be smaller)."""
        length = self._data.shape[normalize_dim(dim, self.ndim)]
        return self.split(max(1, -(-length // chunks)), dim)

    def unbind(self, dim: int = 0) -> tuple:
        """Every slice along ``dim``, that dim removed."""
        return joining.UnbindBackward0.apply(self, dim=dim)

    def __getitem__(self, index) -> Tensor:
        return getitem(self, index)

    # ----- in-place operations (the machinery: _inplace.py) ----------------------------------
    def add_(self, other, *, alpha=1) -> Tensor:
        return _inplace.inplace(self, Tensor.add, other, alpha=alpha)

    def sub_(self, other, *, alpha=1) -> Tensor:
        return _inplace.inplace(self, Tensor.sub, other, alpha=alpha)

    def mul_(self, other) -> Tensor:
        return _inplace.inplace(self, Tensor.mul, other)

    def div_(self, other) -> Tensor:
        return _inplace.inplace(self, Tensor.div, other)

    def pow_(self, exponent) -> Tensor:
        return _inplace.inplace(self, Tensor.pow, exponent)

    def remainder_(self, other) -> Tensor:
        return _inplace.inplace(self, Tensor.remainder, other)

    def floor_divide_(self, other) -> Tensor:
        return _inplace.inplace(self, Tensor.floor_divide, other)

    def exp_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.exp)

    def log_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.log)

    def sin_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.sin)

    def cos_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.cos)

    def tan_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.tan)

    def tanh_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.tanh)

    def sqrt_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.sqrt)

    def abs_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.abs)

    def neg_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.neg)

    def reciprocal_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.reciprocal)

    def square_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.square)

    def relu_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.relu)

    def sigmoid_(self) -> Tensor:
        return _inplace.inplace(self, Tensor.sigmoid)

    def clamp_(self, min=None, max=None) -> Tensor:  # noqa: A002
        return _inplace.inplace(self, Tensor.clamp, min, max)

    def zero_(self) -> Tensor:
        return _inplace.inplace(self, indexing.ZeroBackward0.apply)

    def fill_(self, value) -> Tensor:
        fill = indexing.FillBackward2 if _is_number(value) else indexing.FillBackward3
        return _inplace.inplace(self, fill.apply, value)

    def copy_(self, src) -> Tensor:
        return _inplace.copy_into(self, src)

    def uniform_(self, a=0.0, b=1.0, *, generator=None) -> Tensor:
        return _inplace.fill_from(self, _generator(generator).uniform(a, b, self.shape))

    def normal_(self, mean=0.0, std=1.0, *, generator=None) -> Tensor:
        return _inplace.fill_from(self, _generator(generator).normal(mean, std, self.shape))

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __imod__(self, other):
        return self.remainder_(other)

    def __ifloordiv__(self, other):
        return self.floor_divide_(other)

    def __setitem__(self, index, value) -> None:
        _inplace.setitem(self, index, value)

    # ----- NumPy interoperability (so op backward code also runs on Tensors) ------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``np.exp(t)`` runs ``t.exp()``: how an op's backward, written with NumPy, records a
        graph when ``create_graph=True`` hands it Tensors (see ``_numpy_dispatch.py``)."""
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """``np.sum(t)``, ``np.where(c, t, 0)``...: the same, for NumPy's functions."""
        return array_function(func, args, kwargs)


class _MinMax(tuple):
    """``(values, indices)`` of ``max(dim)``/``min(dim)``, printed as PyTorch prints it."""

    def __new__(cls, values, indices, name):
        obj = super().__new__(cls, (values, indices))
        obj.name = name
        return obj

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self) -> str:
        return f"autogradkit.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _spread_arguments(dim=..., unbiased=..., keepdim=False, *, correction=None) -> dict:
    """var/std's arguments; PyTorch keeps ``correction`` None only when none was given."""
    if isinstance(dim, builtins.bool):  # var(False): the (unbiased) overload
        dim, unbiased = ..., dim
    if correction is None and (dim is not ... or unbiased is not ...):
        correction = 0 if unbiased is False else 1
    return {"dim": None if dim is ... else dim, "correction": correction, "keepdim": keepdim}


def _is_number(value) -> bool:
    """A Python or NumPy number: a Scalar argument of the ops that have an overload for one."""
    return isinstance(value, (builtins.int, builtins.float, builtins.bool, np.number))


def _pow(base, exponent) -> Tensor:
    """tensor ** number (PowBackward0), tensor ** tensor (1), number ** tensor (2)."""
    if _is_number(exponent):
        return power.PowBackward0.apply(base, exponent)
    if _is_number(base):
        return power.PowBackward2.apply(base, exponent)
    return power.PowBackward1.apply(base, exponent)


def _keep(array: np.ndarray, dim: int, keepdim: bool) -> np.ndarray:
    return np.expand_dims(array, dim) if keepdim else array


def _array(value):
    return value._data if isinstance(value, Tensor) else value


def _as_tensor(value, like: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return Tensor._wrap(
        np.asarray(value, dtype=like._data.dtype if not isinstance(value, np.ndarray) else None)
    )


Tensor.__module__ = "autogradkit"  # type(t) prints <class 'autogradkit.Tensor'>, like torch's


def where(condition, input, other) -> Tensor:  # noqa: A002
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed for either)."""
    return selection.WhereBackward0.apply(
        input, other, condition=np.asarray(_array(condition), dtype=bool)
    )
