"""The legacy constructors tutorials still use: ``Tensor(data)``, ``Tensor(2, 3)``,
``FloatTensor``, ``LongTensor``... (``isinstance(t, FloatTensor)`` checks the dtype).

PyTorch's legacy spellings, beside the core: no core module imports this file (the package
root does). ``Tensor.__new__`` runs its ``new``, which this file puts in the hook ``Tensor``
leaves for it (``Tensor._legacy_new``) when it loads; it also gives ``Tensor`` its
``type()`` (``"autogradkit.FloatTensor"``, or a copy converted to a legacy type).
"""

from __future__ import annotations

import numpy as np

from . import _device, _dtype
from ._shape import Size
from .autograd.engine import TensorBase
from .tensor import Tensor

_SIGNATURES = (
    " * (*, autogradkit.device device = None)\n"
    "{mismatch}"
    " * (autogradkit.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, autogradkit.device device = None)\n"
    " * (object data, *, autogradkit.device device = None)\n"
)


def new(dtype: _dtype.dtype | None, args: tuple, kwargs: dict):
    """``Tensor(*args)``: no argument (empty), sizes (zeros: PyTorch leaves the memory
    uninitialised), or data (a sequence, array or tensor) converted to ``dtype`` (None:
    ``Tensor(...)``, float32, a tensor passes as it is)."""
    _check_keywords(args, kwargs)
    where = kwargs.get("device")
    if where is not None and _device.device(where).type != "cpu":
        raise RuntimeError(
            "legacy constructor expects device type: cpu but device type: "
            f"{_device.device(where).type} was passed"
        )
    if len(args) == 1 and isinstance(args[0], TensorBase):
        return _from_tensor(args[0], dtype)
    dtype = dtype or _dtype.float32
    if not args:
        return TensorBase._wrap(np.zeros(0, dtype.numpy))
    if len(args) > 1 or (isinstance(args[0], (Size, int)) and not isinstance(args[0], bool)):
        return TensorBase._wrap(np.zeros(_sizes(args), dtype.numpy))  # _sizes checks each size
    data = args[0]
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (list, tuple, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return TensorBase._wrap(np.array(_plain(data), dtype=dtype.numpy))


def _plain(data):
    if hasattr(data, "_data"):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_plain(d) for d in data]
    return data


def _sizes(args) -> tuple:
    sizes = tuple(args[0]) if isinstance(args[0], Size) else args
    for position, s in enumerate(sizes, 1):
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos {position} with "
                f'error "type must be tuple of ints,but got {type(s).__name__}"'
            )
    return sizes


def _from_tensor(t, dtype):
    if dtype is not None and t.dtype is not dtype:
        raise TypeError(
            f"expected TensorOptions(dtype={_dtype.c_type_name(dtype)}, device=cpu, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
            f"memory_format=(nullopt)) (got TensorOptions(dtype={_dtype.c_type_name(t.dtype)}, "
            "device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt)))"
        )
    return t.detach()  # an alias: the same memory and version counter


def _check_keywords(args, kwargs) -> None:
    unexpected = [k for k in kwargs if k != "device"]
    if not unexpected:
        return
    got = ", ".join(
        [type(a).__name__ for a in args] + [f"{k}={_kind(v)}" for k, v in kwargs.items()]
    )
    mismatch = (
        f"      didn't match because some of the keywords were incorrect: {', '.join(unexpected)}\n"
    )
    raise TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n" + _SIGNATURES.format(mismatch=mismatch)
    )


def _kind(value) -> str:
    if isinstance(value, _dtype.dtype):
        return "autogradkit.dtype"
    return type(value).__name__


class _LegacyType(type):
    """``isinstance(t, FloatTensor)`` is true for a float32 tensor, as in PyTorch."""

    def __instancecheck__(cls, obj) -> bool:
        return hasattr(obj, "_data") and getattr(obj, "dtype", None) is cls.dtype

    def __call__(cls, *args, **kwargs):
        return new(cls.dtype, args, kwargs)


def _legacy_class(dt: _dtype.dtype):
    return _LegacyType(dt._tensor_type, (), {"dtype": dt, "__module__": "autogradkit"})


FloatTensor = _legacy_class(_dtype.float32)
DoubleTensor = _legacy_class(_dtype.float64)
HalfTensor = _legacy_class(_dtype.float16)
LongTensor = _legacy_class(_dtype.int64)
IntTensor = _legacy_class(_dtype.int32)
ShortTensor = _legacy_class(_dtype.int16)
CharTensor = _legacy_class(_dtype.int8)
ByteTensor = _legacy_class(_dtype.uint8)
BoolTensor = _legacy_class(_dtype.bool)
BY_NAME = {cls.__name__: cls for cls in (FloatTensor, DoubleTensor, HalfTensor, LongTensor)}
BY_NAME.update({cls.__name__: cls for cls in (IntTensor, ShortTensor, CharTensor, ByteTensor)})
BY_NAME["BoolTensor"] = BoolTensor


def legacy_type(self, dtype=None, non_blocking=False, **kwargs):
    """``t.type()``: ``"autogradkit.FloatTensor"``; ``t.type(LongTensor)`` (a legacy type, its
    name, or a dtype): a copy converted to it."""
    if dtype is None:
        return _dtype.tensor_type(self._data.dtype)
    if isinstance(dtype, str):
        dtype = BY_NAME[dtype.rpartition(".")[2]]  # "autogradkit.LongTensor": LongTensor
    return self.to(getattr(dtype, "dtype", dtype))


Tensor._legacy_new = staticmethod(new)  # Tensor(data), Tensor(2, 3) (tensor.py's __new__)
Tensor.type = legacy_type  # t.type(), t.type("autogradkit.LongTensor") (_tensor_conversion.py)
