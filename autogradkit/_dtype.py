"""dtypes: PyTorch's names over NumPy's, with PyTorch's inference and promotion rules."""

from __future__ import annotations

import builtins

import numpy as np


class dtype:
    """A tensor element type, printed as PyTorch prints it (``autogradkit.float32``)."""

    __slots__ = ("name", "numpy", "is_floating_point", "is_signed", "itemsize", "_tensor_type")

    def __init__(self, name, numpy_type, tensor_type):
        self.name = name
        self.numpy = np.dtype(numpy_type)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_signed = self.numpy.kind in "fi"
        self.itemsize = self.numpy.itemsize
        self._tensor_type = tensor_type

    def __repr__(self):
        return f"autogradkit.{self.name}"

    def __reduce__(self):
        return (_from_name, (self.name,))


float16 = half = dtype("float16", np.float16, "HalfTensor")
float32 = float = dtype("float32", np.float32, "FloatTensor")
float64 = double = dtype("float64", np.float64, "DoubleTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = short = dtype("int16", np.int16, "ShortTensor")
int32 = int = dtype("int32", np.int32, "IntTensor")
int64 = long = dtype("int64", np.int64, "LongTensor")
bool = dtype("bool", np.bool_, "BoolTensor")  # noqa: A001  (PyTorch's name)

ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool)
_BY_NUMPY = {d.numpy: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
DEFAULT_FLOAT = float32


def _from_name(name):
    return _BY_NAME[name]


def from_numpy(np_dtype) -> dtype:
    """The autogradkit dtype of a NumPy dtype; TypeError for ones PyTorch would not accept."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
            "supported types are: float64, float32, float16, int64, int32, int16, int8, "
            "uint8, and bool."
        ) from None


def tensor_type(np_dtype) -> str:
    """The legacy type name of a NumPy dtype's tensors, as errors print it:
    ``autogradkit.FloatTensor``."""
    return f"autogradkit.{from_numpy(np_dtype)._tensor_type}"


def scalar_type_name(any_dtype) -> str:
    """A dtype (ours or NumPy's) as PyTorch's C++ errors name it: ``Float``, ``Int``, ``Half``."""
    kit_dtype = any_dtype if isinstance(any_dtype, dtype) else from_numpy(any_dtype)
    return kit_dtype._tensor_type.removesuffix("Tensor")


# a dtype as PyTorch's C++ type names print it (mm's dtype error, the legacy constructors')
_C_TYPES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int64": "long int"}
_C_TYPES |= {"int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char"}


def c_type_name(any_dtype) -> str:
    """A dtype (ours or NumPy's) as PyTorch's C++ type names print it: ``float``, ``c10::Half``."""
    name = (any_dtype if isinstance(any_dtype, dtype) else from_numpy(any_dtype)).name
    return _C_TYPES.get(name, name)


def to_numpy(dt) -> np.dtype:
    """NumPy dtype for an autogradkit dtype (or anything np.dtype accepts)."""
    return dt.numpy if isinstance(dt, dtype) else np.dtype(dt)


def _category(np_dtype: np.dtype) -> builtins.int:
    """bool < integer < floating: PyTorch promotes across categories, not within priority."""
    kind = np_dtype.kind
    return 0 if kind == "b" else 2 if kind == "f" else 1


def is_number(value) -> bool:
    """A Python or NumPy number: a Scalar argument of the ops that have an overload for one."""
    return isinstance(value, (builtins.int, builtins.float, builtins.bool, np.number))


def _scalar_dtype(value) -> np.dtype:
    if isinstance(value, (builtins.bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, (builtins.int, np.integer)):
        return np.dtype(np.int64)
    return DEFAULT_FLOAT.numpy


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's pairwise rule: across categories the higher one wins as it is
    (``int64 + float32 -> float32``, where NumPy would say float64)."""
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)


def result_type(operands) -> np.dtype:
    """PyTorch's type promotion over ``(array, is_tensor)`` pairs.

    Tensors with dimensions outrank zero-dim tensors, which outrank Python scalars; a
    lower tier only changes the result when it is of a higher category (bool < int < float).
    So ``float32 tensor + float64 scalar-tensor`` stays float32, and ``int tensor + 2.5`` is
    float32 (the default dtype), as in PyTorch.
    """
    tiers: list[np.dtype | None] = [None, None, None]  # dimensioned, zero-dim, python scalar
    for value, is_tensor in operands:
        if is_tensor:
            tier, dt = (0 if value.ndim else 1), value.dtype
        else:
            tier, dt = 2, _scalar_dtype(value)
        tiers[tier] = dt if tiers[tier] is None else promote_types(tiers[tier], dt)
    result = None
    for dt in tiers:
        if dt is None:
            continue
        if result is None:
            result = dt
        elif _category(dt) > _category(result):
            # a Python float joining an int tensor gives the default float, not float64
            result = DEFAULT_FLOAT.numpy if dt is tiers[2] and dt.kind == "f" else dt
    return result
