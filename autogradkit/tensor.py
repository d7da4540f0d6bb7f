"""``Tensor``: a NumPy array plus what autograd needs (requires_grad, grad, grad_fn).

Methods are one-liners over the ops in ``autogradkit.ops``; composites (``sub``, ``mean``,
``softmax``...) are written in terms of them. In-place methods follow PyTorch's rules.
"""

from __future__ import annotations

import builtins
import warnings
import weakref

import numpy as np

from . import _device, _dtype
from ._device import device
from ._shape import Size, broadcast_shape, check_expandable, normalize_dim
from ._tensor_str import tensor_repr
from .autograd import grad_mode
from .autograd.function import CopySlices
from .autograd.graph import AccumulateGrad
from .ops import elementwise as ew
from .ops import indexing, linalg, movement, reduce, rounding, selection, statistics, unary
from .ops import nn as nn_ops
from .utils.hooks import HookDict, add_hook

_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)
_T_WARNING = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*autogradkit.arange(x.ndim - 1, -1, -1))` to reverse "
    "the dimensions of a tensor."
)
_INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
_NO_GRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)


class _VersionCounter:
    """How many times a tensor's memory was changed in place (shared by views and detach)."""

    value = 0  # read from the class until the first in-place change (cheap to create)


class _InferenceVersion(_VersionCounter):
    """The counter of an inference tensor (made in ``inference_mode``): PyTorch tracks no
    version for these, so reading ``_version`` or saving one for backward is an error."""


def _should_fold(x: Tensor, y: Tensor) -> bool:
    """PyTorch's rule for a product of 3+ dims with 1 or 2 dims: fold the larger operand into
    rows (one mm or mv) when the smaller one needs grad, or when folding copies nothing."""
    x_larger = x.ndim >= y.ndim
    big = x._data if x_larger else np.swapaxes(y._data, -1, -2)
    small = y if x_larger else x
    if big.ndim < 3 or small.ndim > 2:
        return False
    if small.requires_grad:
        return True
    if x.ndim == 2:
        return False
    if big.size == 0:
        return True
    strides = big.strides  # bytes, not elements: the same test either way
    return all(strides[i] == strides[i + 1] * big.shape[i + 1] for i in range(big.ndim - 2))


class Tensor:
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

    # slots, not a __dict__ entry: vars(t) stays {} as in PyTorch (the articles look at it)
    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad_fn",
        "_version_counter",
        "_output_nr",
        "_grad",
        "_base",
        "_hooks",
        "_post_accumulate_hooks",
        "_accumulator_ref",
        "__dict__",
        "__weakref__",
    )
    __array_priority__ = 1000  # NumPy defers to Tensor in mixed expressions

    def __new__(cls, *args, **kwargs):
        """``Tensor(data)`` or ``Tensor(2, 3)``: PyTorch's legacy float32 constructor (prefer
        ``tensor()``). A subclass (``Parameter``) makes itself in ``__init__``."""
        if cls is not Tensor:
            return object.__new__(cls)
        from ._legacy import new

        return new(None, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass  # __new__ made the tensor

    def _init(self, data, grad_fn, output_nr, requires_grad) -> None:
        self._data, self._grad_fn, self._output_nr = data, grad_fn, output_nr
        self._requires_grad = requires_grad
        self._version_counter = _InferenceVersion() if grad_mode._inference else _VersionCounter()
        self._grad = self._base = self._hooks = None
        self._post_accumulate_hooks = self._accumulator_ref = None

    @classmethod
    def _wrap(cls, data, grad_fn=None, output_nr=0) -> Tensor:
        """Wrap an array without copying (internal; ``grad_fn`` set means requires grad)."""
        t = object.__new__(cls)
        t._init(
            data if type(data) is np.ndarray else np.asarray(data),
            grad_fn,
            output_nr,
            grad_fn is not None,
        )
        return t

    # ----- autograd attributes -------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        if value and self.is_inference() and not grad_mode._inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place and return the tensor."""
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        """The node that made this tensor (None for leaves)."""
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors you created, and for any tensor that does not require grad."""
        return self._grad_fn is None

    @property
    def grad(self):
        """Gradient accumulated by backward (leaves, and non-leaves that ``retain_grad()``)."""
        if self._grad_fn is not None and not self.retains_grad and self._grad is None:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value.shape != self.shape:
                raise RuntimeError("assigned grad has data of a different size")
            if value.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value

    @property
    def grad_dtype(self):
        """The dtype ``.grad`` is kept in (this tensor's dtype unless you set another, or None)."""
        return self.__dict__.get("_grad_dtype", self.dtype)

    @grad_dtype.setter
    def grad_dtype(self, value) -> None:
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        self.__dict__["_grad_dtype"] = value

    @property
    def retains_grad(self) -> bool:
        fn = self._grad_fn
        return fn is not None and bool(fn._retained) and self._output_nr in fn._retained

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None:
            return  # leaves keep their gradient anyway
        fn = self._grad_fn
        if fn._retained is None:
            fn._retained = {}
        fn._retained[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one.

        Returns a handle whose ``remove()`` takes the hook away.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            if self._hooks is None:
                self._hooks = HookDict()
            return add_hook(self._hooks, hook)
        fn = self._grad_fn
        if fn._tensor_hooks is None:
            fn._tensor_hooks = HookDict()
        return add_hook(fn._tensor_hooks.setdefault(self._output_nr, HookDict()), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = HookDict()
        return add_hook(self._post_accumulate_hooks, hook)

    def _accumulator(self) -> AccumulateGrad:
        """This leaf's AccumulateGrad node: one per leaf while any graph holds it."""
        node = self._accumulator_ref() if self._accumulator_ref is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._accumulator_ref = weakref.ref(node)
        return node

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph's leaves."""
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self) -> Tensor:
        """A tensor sharing this one's memory and version counter, cut from the graph."""
        t = Tensor._wrap(self._data)
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph in place: it becomes a leaf that needs no grad."""
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the Optimizer."
                "zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    @property
    def data(self) -> Tensor:
        """The same memory as a new leaf: no history and a version counter of its own."""
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data

    @property
    def _version(self) -> int:
        if self.is_inference():
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.value

    def is_inference(self) -> bool:
        """True for a tensor made in ``inference_mode`` (or a view of one)."""
        return isinstance(self._version_counter, _InferenceVersion)

    @property
    def output_nr(self) -> int:
        return self._output_nr

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
        from ._legacy import BY_NAME

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
        return ew.AddBackward0.apply(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1) -> Tensor:
        return ew.SubBackward0.apply(self, other, alpha=alpha)

    def mul(self, other) -> Tensor:
        return ew.MulBackward0.apply(self, other)

    def div(self, other) -> Tensor:
        return ew.DivBackward0.apply(self, other)

    def __rtruediv__(self, other) -> Tensor:
        return self.reciprocal() * other  # 2 / x records MulBackward0 over ReciprocalBackward0

    def pow(self, exponent) -> Tensor:
        return _pow(self, exponent)

    def __rpow__(self, base) -> Tensor:
        return _pow(base, self)

    def __rsub__(self, other) -> Tensor:
        rsub = ew.RsubBackward1 if _is_number(other) else ew.RsubBackward0
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
        return ew.NegBackward0.apply(self)

    def reciprocal(self) -> Tensor:
        return ew.ReciprocalBackward0.apply(self)

    def square(self) -> Tensor:
        return ew.PowBackward0.apply(self, 2)

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
        return ew.AddBackward0.apply(self, other)

    def __mul__(self, other) -> Tensor:
        return ew.MulBackward0.apply(self, other)

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
            return reduce.SumBackward0.apply(self)
        return reduce.SumBackward1.apply(self, dim=dim, keepdim=keepdim)

    def mean(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return reduce.MeanBackward0.apply(self)
        return reduce.MeanBackward1.apply(self, dim=dim, keepdim=keepdim)

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
        the graph shows the same nodes: see ``_should_fold``)."""
        a, b = self.ndim, other.ndim
        if a == 0 or b == 0:
            raise RuntimeError(
                f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D"
            )
        if a == 1 and b == 1:
            return self.dot(other)
        if a == 2 and b == 1:
            return self.mv(other)
        if a == 1 and b == 2:
            rows = self.unsqueeze(0).mm(other)  # PyTorch squeezes its own result in place
            return movement.SqueezeBackward4.apply(rows, dims=0)
        if a == 2 and b == 2:
            return self.mm(other)
        if _should_fold(self, other):
            return self._matmul_folded(other)
        return self._matmul_batched(other)

    def _matmul_folded(self, other: Tensor) -> Tensor:
        """The larger operand's leading dims folded into rows: one mm (or mv), unfolded after."""
        transpose = other.ndim > self.ndim  # then fold other.mT and transpose the result back
        big = other.mT if transpose else self
        small = (self.t() if self.ndim == 2 else self) if transpose else other
        rows = big.reshape(int(np.prod(big.shape[:-1], dtype=np.int64)), big.shape[-1])
        if small.ndim == 1:
            return movement.UnsafeViewBackward0.apply(rows.mv(small), shape=tuple(big.shape[:-1]))
        out = movement.UnsafeViewBackward0.apply(
            rows.mm(small), shape=(*big.shape[:-1], small.shape[1])
        )
        return out.mT.contiguous() if transpose else out

    def _matmul_batched(self, other: Tensor) -> Tensor:
        """Both operands expanded to one broadcast batch of matrices, then one bmm."""
        a, b = self.ndim, other.ndim
        n, m1 = (self.shape[-2] if a > 1 else 1), self.shape[-1]
        m2, p = (other.shape[-2], other.shape[-1]) if b > 1 else (other.shape[0], 1)
        batch1, batch2 = tuple(self.shape[:-2]), tuple(other.shape[:-2])
        if a == 3 and b == 3 and batch1[0] != batch2[0]:  # a batch of one that needs grad
            if batch1[0] == 1 and self.requires_grad:
                return self.squeeze(0).matmul(other)
            if batch2[0] == 1 and other.requires_grad:
                return self.matmul(other.squeeze(0))
        batch = broadcast_shape(batch1, batch2)
        count = int(np.prod(batch, dtype=np.int64))
        x = self.expand(*batch, n, m1).reshape(count, n, m1)
        if b == 1:
            y = other.expand(*batch, m2).reshape(count, m2).unsqueeze(2)
        else:
            y = other.expand(*batch, m2, p).reshape(count, m2, p)
        out = linalg.BmmBackward0.apply(x, y)
        shape = batch + ((n,) if a > 1 else ()) + ((p,) if b > 1 else ())
        return movement.UnsafeViewBackward0.apply(out.squeeze(-1) if b == 1 else out, shape=shape)

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
            return movement.SplitWithSizesBackward0.apply(self, sizes=sizes, dim=dim)
        size, length = split_size_or_sections, self._data.shape[d]
        sizes = [size] * (length // size) + ([length % size] if length % size else [])
        return movement.SplitBackward0.apply(self, sizes=tuple(sizes), dim=dim, split_size=size)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        """At most ``chunks`` pieces of equal size along ``dim`` (the last may be smaller)."""
        length = self._data.shape[normalize_dim(dim, self.ndim)]
        return self.split(max(1, -(-length // chunks)), dim)

    def unbind(self, dim: int = 0) -> tuple:
        """Every slice along ``dim``, that dim removed."""
        return movement.UnbindBackward0.apply(self, dim=dim)

    def __getitem__(self, index) -> Tensor:
        from ._indexing import getitem

        return getitem(self, index)

    # ----- in-place operations ---------------------------------------------------------------
    def _check_inplace(self, what: str = "a leaf Variable") -> None:
        if not grad_mode._inference and self.is_inference():
            raise RuntimeError(_INFERENCE_INPLACE)
        if self._requires_grad and self._grad_fn is None and grad_mode._enabled:
            if self._base is not None:  # only a view made under no_grad has no grad_fn
                raise RuntimeError(_NO_GRAD_VIEW_INPLACE)
            raise RuntimeError(_LEAF_INPLACE.replace("a leaf Variable", what))

    def _inplace(self, compute, *args, **kwargs) -> Tensor:
        """Run ``compute(self, ...)`` and store the result in this tensor's own memory.

        Outside a graph this is plain NumPy assignment. Inside one, the op is recorded on a
        private copy of the old value, and this tensor takes the new node as its grad_fn.
        """
        self._check_inplace()
        _check_no_overlap(self._data)
        others = [a for a in args if isinstance(a, Tensor)]
        records = grad_mode._enabled and (
            self._requires_grad or any(o._requires_grad for o in others)
        )
        if records and self._base is not None:
            return self._inplace_on_view(compute, args, kwargs)
        old = self
        if records:
            old = Tensor._wrap(self._data.copy(), self._grad_fn, self._output_nr)
            old._requires_grad = self._requires_grad
        with grad_mode.set_grad_enabled(records):
            result = compute(old, *args, **kwargs)
        new = result._data
        if new.dtype != self._data.dtype and not np.can_cast(
            new.dtype, self._data.dtype, "same_kind"
        ):
            raise RuntimeError(
                f"result type {_type_word(new.dtype)} can't be cast to the desired output type "
                f"{_type_word(self._data.dtype)}"
            )
        self._data[...] = new
        self._version_counter.value += 1
        if records:
            self._grad_fn, self._output_nr, self._requires_grad = result._grad_fn, 0, True
        return self

    def _inplace_on_view(self, compute, args, kwargs) -> Tensor:
        """``y[0].mul_(3)``, as PyTorch records it: the op runs on a stand-in for the view's
        old value, one CopySlices node on the base holds the op's node, and the view is made
        again from the new base (AsStridedBackward0). Any view works (``y[0][1:]``, ``y.T``):
        its place in the base is found from the memory both share."""
        base = self._base
        base._check_inplace("a view of a leaf Variable")
        index, geometry = _place_in_base(self._data, base._data)
        stand_in = Tensor._wrap(self._data.copy())
        stand_in._requires_grad = True  # the op's first input: CopySlices routes its gradient
        result = compute(stand_in, *args, **kwargs)
        node = CopySlices(base, index, result._grad_fn)
        self._data[...] = result._data  # through the view, into the base's memory
        base._version_counter.value += 1  # shared with the view: it moves once for both
        base._grad_fn, base._output_nr, base._requires_grad = node, 0, True
        view = indexing.AsStridedBackward0.apply(base, index=index, **geometry)
        self._grad_fn, self._output_nr, self._requires_grad = view._grad_fn, 0, True
        return self

    def add_(self, other, *, alpha=1) -> Tensor:
        return self._inplace(Tensor.add, other, alpha=alpha)

    def sub_(self, other, *, alpha=1) -> Tensor:
        return self._inplace(Tensor.sub, other, alpha=alpha)

    def mul_(self, other) -> Tensor:
        return self._inplace(Tensor.mul, other)

    def div_(self, other) -> Tensor:
        return self._inplace(Tensor.div, other)

    def pow_(self, exponent) -> Tensor:
        return self._inplace(Tensor.pow, exponent)

    def remainder_(self, other) -> Tensor:
        return self._inplace(Tensor.remainder, other)

    def floor_divide_(self, other) -> Tensor:
        return self._inplace(Tensor.floor_divide, other)

    def exp_(self) -> Tensor:
        return self._inplace(Tensor.exp)

    def log_(self) -> Tensor:
        return self._inplace(Tensor.log)

    def sin_(self) -> Tensor:
        return self._inplace(Tensor.sin)

    def cos_(self) -> Tensor:
        return self._inplace(Tensor.cos)

    def tan_(self) -> Tensor:
        return self._inplace(Tensor.tan)

    def tanh_(self) -> Tensor:
        return self._inplace(Tensor.tanh)

    def sqrt_(self) -> Tensor:
        return self._inplace(Tensor.sqrt)

    def abs_(self) -> Tensor:
        return self._inplace(Tensor.abs)

    def neg_(self) -> Tensor:
        return self._inplace(Tensor.neg)

    def reciprocal_(self) -> Tensor:
        return self._inplace(Tensor.reciprocal)

    def square_(self) -> Tensor:
        return self._inplace(Tensor.square)

    def relu_(self) -> Tensor:
        return self._inplace(Tensor.relu)

    def sigmoid_(self) -> Tensor:
        return self._inplace(Tensor.sigmoid)

    def clamp_(self, min=None, max=None) -> Tensor:  # noqa: A002
        return self._inplace(Tensor.clamp, min, max)

    def zero_(self) -> Tensor:
        return self._inplace(ew.ZeroBackward0.apply)

    def fill_(self, value) -> Tensor:
        fill = ew.FillBackward2 if _is_number(value) else ew.FillBackward3
        return self._inplace(fill.apply, value)

    def copy_(self, src) -> Tensor:
        return self._inplace(lambda t, s: movement.CopyBackwards.apply(t, s), _as_tensor(src, self))

    def uniform_(self, a=0.0, b=1.0, *, generator=None) -> Tensor:
        from .random import _generator

        return self._fill_from(_generator(generator).uniform(a, b, self.shape))

    def normal_(self, mean=0.0, std=1.0, *, generator=None) -> Tensor:
        from .random import _generator

        return self._fill_from(_generator(generator).normal(mean, std, self.shape))

    def _fill_from(self, values: np.ndarray) -> Tensor:
        self._check_inplace()
        self._data[...] = values
        self._version_counter.value += 1
        return self

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
        from ._indexing import _is_advanced, getitem, normalize_index, selects_everything

        index = normalize_index(self, index)
        value = _as_tensor(value, self)
        if any(_is_advanced(i) for i in index):  # index_put_ on the tensor itself
            self._inplace(lambda t, v: indexing.IndexPutBackward0.apply(t, v, index=index), value)
            return
        if selects_everything(self, index):  # x[:] = v writes into x itself, as in PyTorch
            if value.ndim == 0:
                self.fill_(value)
            else:
                self.copy_(value)
            return
        getitem(self, index).copy_(value)  # x[i] = v copies into the view x[i], as in PyTorch

    # ----- NumPy interoperability (so op backward code also runs on Tensors) ------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ._numpy_dispatch import array_ufunc

        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from ._numpy_dispatch import array_function

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


def _check_no_overlap(data: np.ndarray) -> None:
    """PyTorch refuses to write into an expanded view (several elements, one memory cell)."""
    if any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def _addresses(a: np.ndarray) -> np.ndarray:
    """The memory address of every element of ``a``, in ``a``'s shape."""
    addresses = np.full(a.shape, a.__array_interface__["data"][0], dtype=np.intp)
    for d, (n, stride) in enumerate(zip(a.shape, a.strides)):
        addresses = addresses + np.arange(n).reshape((n,) + (1,) * (a.ndim - d - 1)) * stride
    return addresses


def _place_in_base(view: np.ndarray, base: np.ndarray):
    """Where a view's elements sit in its base: an index into the base (one array per dim),
    and the view's size, strides and offset as PyTorch's AsStridedBackward0 keeps them."""
    cells = _addresses(base).reshape(-1)
    order = np.argsort(cells, kind="stable")
    found = order[np.searchsorted(cells[order], _addresses(view))]
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    geometry = {
        "size": view.shape,
        "stride": tuple(st // view.itemsize for st in view.strides),
        "storage_offset": start // view.itemsize,
    }
    return np.unravel_index(found, base.shape), geometry


def _is_number(value) -> bool:
    """A Python or NumPy number: a Scalar argument of the ops that have an overload for one."""
    return isinstance(value, (builtins.int, builtins.float, builtins.bool, np.number))


def _pow(base, exponent) -> Tensor:
    """tensor ** number (PowBackward0), tensor ** tensor (1), number ** tensor (2)."""
    if _is_number(exponent):
        return ew.PowBackward0.apply(base, exponent)
    if _is_number(base):
        return ew.PowBackward2.apply(base, exponent)
    return ew.PowBackward1.apply(base, exponent)


def _keep(array: np.ndarray, dim: int, keepdim: bool) -> np.ndarray:
    return np.expand_dims(array, dim) if keepdim else array


def _type_word(np_dtype) -> str:
    return {"f": "Float", "i": "Long", "b": "Bool", "u": "Byte"}[np.dtype(np_dtype).kind]


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
