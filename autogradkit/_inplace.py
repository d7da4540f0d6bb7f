"""In-place operations and views: ``x.add_(1)``, ``x[0] = v``, ``x.detach_()``, as PyTorch
records them.

An in-place op writes into the tensor's own memory and moves its version counter (shared
with its views and ``detach()``), so that backward can refuse a value it saved before the
change. Outside a graph that is all. Inside one, the op is recorded on a private copy of the
old value and the tensor takes the new node as its ``grad_fn``. On a view of a tensor that
requires grad, the base gets a ``CopySlices`` node and the view is made again from it
(``_inplace_views.py``, beside the core).
(A view is made by ``Function.apply`` for the ops marked ``is_view``: it shares its base's
memory and version counter, and remembers the base in ``_base``.) ``Tensor`` builds on
``InplaceMethods``, at the end: ``add_``, ``x += 1``, ``zero_``, ``x[0] = v``...
"""

from __future__ import annotations

import functools

import numpy as np

from ._dtype import is_number, scalar_type_name
from ._indexing import indexed, is_advanced, normalize_index
from ._tensor_math import MathMethods
from .autograd import grad_mode
from .autograd.engine import TensorBase
from .autograd.variable import NO_GRAD_VIEW, increment_version, op_name
from .ops import indexing
from .ops.indexing import IndexPutBackward0
from .ops.movement import CopyBackwards
from .random import _generator

__all__ = ["InplaceMethods", "as_tensor", "check_inplace", "inplace"]

# an in-place op on a view (``y[0].mul_(3)``: a CopySlices node on its base), and the views of
# a tensor changed in place, made again from it: ``_inplace_views.py`` (beside the core; it
# imports this file) puts its two functions here when it loads
inplace_on_view = remake_views = None

_INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
_MULTI_VIEW_INPLACE = (
    "Output {} of {} is a view and is being modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to be "
    "modified inplace. You should replace the inplace operation by an out-of-place one."
)
_DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
    "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
    "called on these gradients. To fix this error, please refer to the Optimizer."
    "zero_grad() function in torch/optim/optimizer.py as the solution."
)


def check_inplace(t, what: str = "a leaf Variable") -> None:
    """PyTorch's refusals: an inference tensor outside inference mode, a leaf that requires
    grad (with grad mode on), a view made under no_grad, a piece of ``split`` or ``unbind``."""
    if not grad_mode._inference and t.is_inference():
        raise RuntimeError(_INFERENCE_INPLACE)
    fn = t._grad_fn
    if fn is not None and fn._num_outputs > 1 and getattr(fn, "is_view", False):
        if grad_mode._enabled:
            raise RuntimeError(_MULTI_VIEW_INPLACE.format(t._output_nr, op_name(fn)))
    if t._requires_grad and t._grad_fn is None and grad_mode._enabled:
        if t._base is not None:  # only a view made under no_grad has no grad_fn
            raise RuntimeError(NO_GRAD_VIEW.format("is being modified inplace"))
        raise RuntimeError(_LEAF_INPLACE.replace("a leaf Variable", what))


def inplace(t, compute, *args, **kwargs):
    """Run ``compute(t, ...)`` (an out-of-place op) and store the result in ``t``'s memory.

    Outside a graph this is plain NumPy assignment. Inside one, the op is recorded on a
    private copy of the old value, and ``t`` takes the new node as its grad_fn.
    """
    check_inplace(t)
    _check_no_overlap(t._data)
    others = [a for a in args if isinstance(a, TensorBase)]
    records = grad_mode._enabled and (t._requires_grad or any(o._requires_grad for o in others))
    if records and t._base is not None:  # a view: a CopySlices node on its base
        return inplace_on_view(t, compute, args, kwargs)
    old = t
    if records:
        old = TensorBase._wrap(t._data.copy(), t._grad_fn, t._output_nr)
        old._requires_grad = t._requires_grad
    with grad_mode.set_grad_enabled(records):
        result = compute(old, *args, **kwargs)
    new = result._data
    if new.dtype != t._data.dtype and not np.can_cast(new.dtype, t._data.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {scalar_type_name(new.dtype)} can't be cast to the desired output type "
            f"{scalar_type_name(t._data.dtype)}"
        )
    t._data[...] = new
    increment_version(t)
    if records:
        t._grad_fn, t._output_nr, t._requires_grad = result._grad_fn, 0, True
        if getattr(t._version_counter, "views", None):  # t's views see the op from now on
            remake_views(t)
    return t


def _fill_from(t, values: np.ndarray):
    """``uniform_``, ``normal_``: new values drawn into ``t``'s memory (no graph)."""
    check_inplace(t)
    t._data[...] = values
    increment_version(t)
    return t


def _check_no_overlap(data: np.ndarray) -> None:
    """PyTorch refuses to write into an expanded view (several elements, one memory cell)."""
    if any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def as_tensor(value, like):
    """``value`` as a Tensor (a number or array takes ``like``'s dtype)."""
    if isinstance(value, TensorBase):
        return value
    dtype = None if isinstance(value, np.ndarray) else like._data.dtype
    return TensorBase._wrap(np.asarray(value, dtype))


def _in_place(method):
    """``exp_ = _in_place(exp)``: ``exp``'s op, its result written into the tensor itself."""

    @functools.wraps(method)
    def method_(self, *args, **kwargs):
        return inplace(self, method, *args, **kwargs)

    method_.__name__ = method_.__qualname__ = f"{method.__name__}_"
    return method_


class InplaceMethods:
    """A tensor's in-place variants (``Tensor``'s): each runs its out-of-place method through
    ``inplace`` above, which writes the result into the tensor's own memory."""

    __slots__ = ()  # the slots are TensorBase's

    def detach_(self) -> TensorBase:
        """Cut this tensor from the graph in place: it becomes a leaf that needs no grad."""
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError(_DETACH_VIEW)
        self._grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    def add_(self, other, *, alpha=1) -> TensorBase:
        return inplace(self, type(self).add, other, alpha=alpha)

    def sub_(self, other, *, alpha=1) -> TensorBase:
        return inplace(self, type(self).sub, other, alpha=alpha)

    def mul_(self, other) -> TensorBase:
        return inplace(self, type(self).mul, other)

    def div_(self, other) -> TensorBase:
        return inplace(self, type(self).div, other)

    def pow_(self, exponent) -> TensorBase:
        return inplace(self, type(self).pow, exponent)

    def remainder_(self, other) -> TensorBase:
        return inplace(self, type(self).remainder, other)

    def floor_divide_(self, other) -> TensorBase:
        return inplace(self, type(self).floor_divide, other)

    def neg_(self) -> TensorBase:
        return inplace(self, type(self).neg)

    exp_ = _in_place(MathMethods.exp)
    log_ = _in_place(MathMethods.log)
    sin_ = _in_place(MathMethods.sin)
    cos_ = _in_place(MathMethods.cos)
    tan_ = _in_place(MathMethods.tan)
    tanh_ = _in_place(MathMethods.tanh)
    sqrt_ = _in_place(MathMethods.sqrt)
    abs_ = _in_place(MathMethods.abs)
    reciprocal_ = _in_place(MathMethods.reciprocal)
    square_ = _in_place(MathMethods.square)
    relu_ = _in_place(MathMethods.relu)
    sigmoid_ = _in_place(MathMethods.sigmoid)
    clamp_ = _in_place(MathMethods.clamp)
    clamp_min_ = _in_place(MathMethods.clamp_min)
    clamp_max_ = _in_place(MathMethods.clamp_max)

    def zero_(self) -> TensorBase:
        return inplace(self, indexing.ZeroBackward0.apply)

    def fill_(self, value) -> TensorBase:
        fill = indexing.FillBackward2 if is_number(value) else indexing.FillBackward3
        return inplace(self, fill.apply, value)

    def copy_(self, src) -> TensorBase:
        """``src`` broadcast into this tensor's shape and dtype (CopyBackwards)."""
        return inplace(self, CopyBackwards.apply, as_tensor(src, self))

    def uniform_(self, a=0.0, b=1.0, *, generator=None) -> TensorBase:
        return _fill_from(self, _generator(generator).uniform(a, b, self.shape))

    def normal_(self, mean=0.0, std=1.0, *, generator=None) -> TensorBase:
        return _fill_from(self, _generator(generator).normal(mean, std, self.shape))

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_
    __imod__ = remainder_
    __ifloordiv__ = floor_divide_

    def __setitem__(self, index, value) -> None:
        """``t[index] = value``: into ``t`` itself for ``t[:]`` and advanced indexes, else into
        the view ``t[index]`` (a CopySlices node on ``t``), as PyTorch does."""
        index = normalize_index(index)
        value = as_tensor(value, self)
        if any(is_advanced(i) for i in index):  # index_put_ on the tensor itself
            inplace(self, lambda x, v: IndexPutBackward0.apply(x, v, index=index), value)
            return
        target = indexed(self, index)  # the view x[i], or x itself for x[:]
        if value.shape == target.shape:
            target.copy_(value)
        elif value.ndim == 0:
            target.fill_(value)
        else:  # as PyTorch's copy_to: the value without its leading 1s, expanded to the target
            leading_ones = next((d for d, n in enumerate(value.shape) if n != 1), value.ndim)
            value = value.view(value.shape[leading_ones:])
            target.copy_(value if value.shape == target.shape else value.expand(target.shape))
