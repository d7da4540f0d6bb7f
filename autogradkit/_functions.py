"""Module-level functions (``agk.exp(x)``, ``agk.cat([...])``): each calls the Tensor method
of the same name, so there is one implementation of every operation."""

from __future__ import annotations

from ._shape import normalize_dim
from .ops import elementwise, movement, rounding
from .tensor import Tensor, _is_number, _pow, where

_SAME_AS_METHOD = (
    "add sub mul div neg reciprocal square exp log sin cos tan tanh sigmoid relu sqrt abs sign sgn "
    "exp_ log_ sin_ cos_ tan_ tanh_ sigmoid_ relu_ sqrt_ abs_ neg_ reciprocal_ square_ "
    "clamp clip clamp_min clamp_max maximum minimum sum mean prod var std max min argmax argmin "
    "norm logsumexp softmax log_softmax allclose equal eq ne lt le gt ge isnan mm mv dot matmul "
    "reshape flatten squeeze unsqueeze permute transpose t clone detach numel masked_fill split "
    "chunk unbind is_inference flip floor_divide"
).split()


def _call_method(name: str):
    def function(input, *args, **kwargs):  # noqa: A002  (PyTorch's argument name)
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Same as ``input.{name}(...)``."
    return function


globals().update({name: _call_method(name) for name in _SAME_AS_METHOD})
true_divide = globals()["div"]


def pow(input, exponent) -> Tensor:  # noqa: A001, A002
    """``input ** exponent``; ``input`` may be a number (``pow(2, x)`` is PowBackward2)."""
    return _pow(input, exponent)


def remainder(input, other) -> Tensor:  # noqa: A002
    """``input % other``; ``input`` may be a number (that has no derivative, as in PyTorch)."""
    if isinstance(input, Tensor):
        return input.remainder(other)
    return rounding.RemainderOfNumberNotImplemented.apply(input, other)


def rsub(input, other) -> Tensor:  # noqa: A002
    """``other - input``."""
    rsub = elementwise.RsubBackward1 if _is_number(other) else elementwise.RsubBackward0
    return rsub.apply(input, other)


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim."""
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    d = normalize_dim(dim, tensors[0].ndim)
    for i, t in enumerate(tensors[1:], start=1):
        if t.ndim != tensors[0].ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {tensors[0].ndim} and {t.ndim}"
            )
        if any(a != b for k, (a, b) in enumerate(zip(t.shape, tensors[0].shape)) if k != d):
            k = next(k for k in range(t.ndim) if k != d and t.shape[k] != tensors[0].shape[k])
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {d}. Expected size "
                f"{tensors[0].shape[k]} but got size {t.shape[k]} for tensor number {i} "
                "in the list."
            )
    return movement.CatBackward0.apply(*tensors, dim=dim)


concat = concatenate = cat


def stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors along a new dim."""
    tensors = list(tensors)
    normalize_dim(dim, tensors[0].ndim + 1)  # PyTorch's error before any other
    return movement.StackBackward0.apply(*tensors, dim=dim)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:  # noqa: A002
    return input.is_floating_point()


__all__ = [
    *_SAME_AS_METHOD,
    "true_divide",
    "pow",
    "remainder",
    "rsub",
    "cat",
    "concat",
    "concatenate",
    "stack",
    "is_tensor",
    "is_floating_point",
    "where",
]
