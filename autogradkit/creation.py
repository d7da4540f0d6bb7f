"""Functions that make tensors, with PyTorch's dtype inference (``tensor(2)`` is int64,
``tensor(2.)`` float32, NumPy arrays keep their dtype)."""

from __future__ import annotations

import builtins

import numpy as np

from . import _device, _dtype
from .random import _generator
from .tensor import Tensor

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "arange",
    "linspace",
    "eye",
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "randint",
    "randperm",
    "normal",
]


def _shape(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _make(array: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(array)
    if requires_grad:
        if array.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


def _infer(data) -> np.ndarray:
    """PyTorch's inference: Python floats become float32, ints int64, bools bool."""
    if isinstance(data, Tensor):
        return np.array(data._data)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy(data.dtype)
        return np.array(data)
    array = np.array(_unwrap(data))
    if array.dtype.kind == "f":
        array = array.astype(_dtype.DEFAULT_FLOAT.numpy)
    elif array.dtype.kind in "iu":
        array = array.astype(np.int64)
    elif array.dtype.kind not in "b":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return array


def _unwrap(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def tensor(data, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A new tensor holding a copy of ``data``.

    Example:
        >>> import autogradkit as agk
        >>> agk.tensor([1., 2.]), agk.tensor(2), agk.tensor(2., requires_grad=True)
        (tensor([1., 2.]), tensor(2), tensor(2., requires_grad=True))
    """
    _device.use(device)
    try:
        array = (
            _infer(data) if dtype is None else np.array(_unwrap(data), dtype=_dtype.to_numpy(dtype))
        )
    except ValueError:
        error = _uneven(data, _first_lengths(data))
        if error is None:
            raise
        raise error from None
    return _make(array, requires_grad)


def _first_lengths(data) -> list:
    """The shape nested lists promise: the length of the first list at each depth."""
    shape = []
    while isinstance(data, (list, tuple)) and data:
        shape.append(len(data))
        data = data[0]
    return shape


def _uneven(data, shape: list, dim: int = 0) -> ValueError | None:
    """PyTorch's error for the first list (depth first) whose length breaks ``shape``."""
    if not isinstance(data, (list, tuple)) or dim == len(shape):
        return None
    if len(data) != shape[dim]:
        return ValueError(
            f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})"
        )
    return next((e for item in data if (e := _uneven(item, shape, dim + 1))), None)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    _device.use(device)
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype):
        return data
    return tensor(data, dtype, device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array."""
    _dtype.from_numpy(array.dtype)
    return Tensor._wrap(array)


def _filled(value, size, dtype, requires_grad) -> Tensor:
    np_dtype = _dtype.to_numpy(dtype or _dtype.DEFAULT_FLOAT)
    return _make(np.full(_shape(size), value, np_dtype), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    _device.use(device)
    return _filled(0, size, dtype, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    _device.use(device)
    return _filled(1, size, dtype, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    _device.use(device)
    return _filled(0, size, dtype, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    _device.use(device)
    if dtype is None:
        dtype = _dtype.from_numpy(_infer(fill_value).dtype)
    return _filled(fill_value, (size,), dtype, requires_grad)


def _like(value):
    def make(input, dtype=None, device=None, requires_grad=False) -> Tensor:  # noqa: A002
        _device.use(device)
        return _filled(value, (input.shape,), dtype or input.dtype, requires_grad)

    return make


zeros_like = _like(0)
ones_like = _like(1)
empty_like = _like(0)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:  # noqa: A002
    _device.use(device)
    return _filled(fill_value, (input.shape,), dtype or input.dtype, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``arange(5)`` is int64; a float anywhere in the arguments makes it float32."""
    _device.use(device)
    if end is None:
        start, end = 0, start
    values = [start, end, step]
    if dtype is None:
        floats = any(
            isinstance(v, builtins.float) or (isinstance(v, Tensor) and v.is_floating_point())
            for v in values
        )
        dtype = _dtype.DEFAULT_FLOAT if floats else _dtype.int64
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in values)
    return _make(np.arange(start, end, step).astype(_dtype.to_numpy(dtype)), requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``steps`` values from ``start`` to ``end``, computed as PyTorch computes them: the
    first half as start + i * step, the second as end - (steps - 1 - i) * step, each rounded
    once (a fused multiply-add), with step in the result's own precision."""
    _device.use(device)
    np_dtype = _dtype.to_numpy(dtype or _dtype.DEFAULT_FLOAT)
    first, last = np_dtype.type(start), np_dtype.type(end)  # an integer dtype truncates them
    kind = np_dtype if np_dtype.kind == "f" else np.dtype(np.float64)  # integers: a double step
    exact = np.float64 if kind == np.float32 else np.longdouble  # wide enough to round once
    step = (kind.type(last) - kind.type(first)) / kind.type(max(steps - 1, 1))
    i = np.arange(steps)
    rising = exact(first) + exact(step) * i
    falling = exact(last) - exact(step) * (steps - 1 - i)
    values = np.where(i < steps // 2, rising, falling).astype(kind)
    if steps == 1:
        values = np.full(1, first, kind)
    return _make(values.astype(np_dtype), requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    _device.use(device)
    return _make(np.eye(n, m, dtype=_dtype.to_numpy(dtype or _dtype.DEFAULT_FLOAT)), requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:
    """Uniform on [0, 1). Reproducible after ``manual_seed``."""
    _device.use(device)
    values = _generator(generator).random(_shape(size))
    return _make(values.astype(_dtype.to_numpy(dtype or _dtype.DEFAULT_FLOAT)), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:
    """Standard normal. Reproducible after ``manual_seed``."""
    _device.use(device)
    values = _generator(generator).standard_normal(_shape(size))
    return _make(values.astype(_dtype.to_numpy(dtype or _dtype.DEFAULT_FLOAT)), requires_grad)


def rand_like(input, dtype=None, device=None, requires_grad=False) -> Tensor:  # noqa: A002
    _device.use(device)
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False) -> Tensor:  # noqa: A002
    _device.use(device)
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint(
    low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """Integers drawn uniformly from ``[low, high)`` (``randint(high, size)`` from 0)."""
    _device.use(device)
    if size is None:
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    values = _generator(generator).integers(low, high, size=tuple(size))
    return _make(values.astype(_dtype.to_numpy(dtype or _dtype.int64)), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None) -> Tensor:
    _device.use(device)
    values = _generator(generator).permutation(n)
    return _make(values.astype(_dtype.to_numpy(dtype or _dtype.int64)), False)


def normal(mean, std, size, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Draws from N(mean, std**2) (numbers for mean and std)."""
    _device.use(device)
    values = _generator(generator).normal(mean, std, size=tuple(size))
    return _make(values.astype(_dtype.to_numpy(dtype or _dtype.DEFAULT_FLOAT)), requires_grad)
