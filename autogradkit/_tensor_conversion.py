"""A tensor's sizes, dtype and device, and its conversions: ``t.to(float64)``, ``t.long()``,
``float(t)``, ``len(t)``, ``for row in t``, ``f"{t:.3f}"``.

``Tensor`` (``tensor.py``) builds on ``ConversionMethods``; ``to()`` records ``ToCopyBackward0``.
"""

from __future__ import annotations

import builtins
import warnings

from . import _device, _dtype
from ._device import device
from ._shape import normalize_dim
from .autograd.engine import TensorBase
from .ops import movement

__all__ = ["ConversionMethods"]


class ConversionMethods:
    """What a tensor's size, dtype and device are, and how it becomes another (``Tensor``'s)."""

    __slots__ = ()  # the slots are TensorBase's

    def size(self, dim: int | None = None):
        return self.shape if dim is None else self._data.shape[normalize_dim(dim, self.ndim)]

    @property
    def device(self) -> device:
        return _device.CPU

    is_cuda = False

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

    def tolist(self):
        return self._data.tolist()

    def to(self, *args, dtype=None, device=None, copy=False, **kwargs) -> TensorBase:
        """Convert dtype (a ``ToCopyBackward0`` node) or device (only ``"cpu"`` exists)."""
        for arg in args:
            if isinstance(arg, _dtype.dtype):
                dtype = arg
            elif isinstance(arg, TensorBase):
                dtype = arg.dtype
            else:
                _device.use(arg)
        _device.use(device)
        target = None if dtype is None else _dtype.to_numpy(dtype)
        if target is None or target == self._data.dtype:
            return self.clone() if copy else self
        if target.kind != "f":  # an int or bool tensor cannot require grad: no node, as PyTorch
            return self._wrap(self._data.astype(target))
        return movement.ToCopyBackward0.apply(self, dtype=target)

    def type_as(self, other: TensorBase) -> TensorBase:
        return self.to(other.dtype)

    def float(self) -> TensorBase:
        return self.to(_dtype.float32)

    def double(self) -> TensorBase:
        return self.to(_dtype.float64)

    def half(self) -> TensorBase:
        return self.to(_dtype.float16)

    def long(self) -> TensorBase:
        return self.to(_dtype.int64)

    def int(self) -> TensorBase:
        return self.to(_dtype.int32)

    def bool(self) -> TensorBase:
        return self.to(_dtype.bool)

    def cpu(self) -> TensorBase:
        return self

    def cuda(self, device=None, non_blocking=False, **kwargs) -> TensorBase:
        _device.use("cuda" if device is None else device)
        return self

    # (``t.type()``, PyTorch's legacy type names, is ``_legacy.py``'s ``legacy_type``, beside
    # the core: that file puts it on ``Tensor`` when it loads, with the legacy constructor)

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
