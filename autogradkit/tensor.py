"""``Tensor``: a NumPy array plus what autograd needs (requires_grad, grad, grad_fn).

Here is what the lesson reads: how a tensor is made, its arithmetic (one-liners over the ops
in ``autogradkit.ops``; composites such as ``sub`` and ``mean`` in terms of them), ``sum`` and
``@``. Autograd's state and ``backward`` come from ``TensorBase`` (``autograd/engine.py``);
the other methods from the classes ``Tensor`` builds on, one file per family:
``_tensor_math.py`` (functions, reductions, products), ``_tensor_movement.py`` (shape and
views), ``_tensor_conversion.py`` (sizes, dtypes, Python numbers), ``_tensor_comparison.py``,
``_inplace.py`` (in-place variants, PyTorch's rules) and ``_numpy_dispatch.py`` (NumPy).
"""

from __future__ import annotations

from . import _dtype, _matmul
from ._dtype import is_number
from ._inplace import InplaceMethods, as_tensor
from ._numpy_dispatch import NumpyMethods
from ._shape import Size
from ._tensor_comparison import ComparisonMethods
from ._tensor_conversion import ConversionMethods
from ._tensor_math import MathMethods, where
from ._tensor_movement import MovementMethods
from ._tensor_str import tensor_repr
from .autograd.engine import TensorBase
from .ops import arithmetic, power, rounding

__all__ = ["Tensor", "where"]


class Tensor(
    TensorBase,
    MathMethods,
    MovementMethods,
    ConversionMethods,
    ComparisonMethods,
    InplaceMethods,
    NumpyMethods,
    wraps_outputs=True,
):
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
    # PyTorch's legacy constructor: ``_legacy.py`` (beside the core, with ``FloatTensor`` and
    # the other legacy types) puts its ``new`` here when it loads
    _legacy_new = None

    def __new__(cls, *args, **kwargs):
        """``Tensor(data)`` or ``Tensor(2, 3)``: PyTorch's legacy float32 constructor (prefer
        ``tensor()``). A subclass (``Parameter``) makes itself in ``__init__``."""
        if cls is not Tensor:
            return object.__new__(cls)
        return Tensor._legacy_new(None, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass  # __new__ made the tensor

    # ----- what a tensor is: its shape, dtype and values ----------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def __repr__(self) -> str:
        return tensor_repr(self)

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
        rsub = arithmetic.RsubBackward1 if is_number(other) else arithmetic.RsubBackward0
        return rsub.apply(self, other)

    def remainder(self, other) -> Tensor:
        remainder = rounding.RemainderBackward0 if is_number(other) else rounding.RemainderBackward1
        return remainder.apply(self, other)

    def __rmod__(self, other) -> Tensor:
        return rounding.RemainderOfNumberNotImplemented.apply(other, self)

    def floor_divide(self, other) -> Tensor:
        return rounding.FloorDivideNotImplemented.apply(self, other)

    def __rfloordiv__(self, other) -> Tensor:
        return rounding.FloorDivideNotImplemented.apply(other, self)

    def neg(self) -> Tensor:
        return arithmetic.NegBackward0.apply(self)

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

    def __pos__(self) -> Tensor:
        return self

    # ----- the reductions the lesson uses, and the matrix product ---------------------------------
    def sum(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return arithmetic.SumBackward0.apply(self)
        return arithmetic.SumBackward1.apply(self, dim=dim, keepdim=keepdim)

    def mean(self, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return arithmetic.MeanBackward0.apply(self)
        return arithmetic.MeanBackward1.apply(self, dim=dim, keepdim=keepdim)

    def matmul(self, other: Tensor) -> Tensor:
        """``@``: dot, mv, mm or a batched product, picked as PyTorch's matmul picks them (so
        the graph shows the same nodes: see ``_matmul.py``)."""
        return _matmul.matmul(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, other) -> Tensor:
        return as_tensor(other, self).matmul(self)


def _pow(base, exponent) -> Tensor:
    """tensor ** number (PowBackward0), tensor ** tensor (1), number ** tensor (2)."""
    if is_number(exponent):
        return power.PowBackward0.apply(base, exponent)
    if is_number(base):
        return power.PowBackward2.apply(base, exponent)
    return power.PowBackward1.apply(base, exponent)


Tensor.__module__ = "autogradkit"  # type(t) prints <class 'autogradkit.Tensor'>, like torch's
