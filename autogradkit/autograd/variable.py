"""``TensorBase``: what autograd keeps on every tensor, and the methods that use it.

PyTorch's ``torch._C.TensorBase`` and MiniTorch's ``Variable`` are the models: the array
(``_data``), ``requires_grad``, ``grad``, ``grad_fn`` (with ``output_nr``), the version
counter (and ``increment_version``, the one function that moves it), hooks and ``detach``
live here, in autograd's layer. ``Tensor`` (``tensor.py``) builds on this class with the
ops; it registers itself (``class Tensor(TensorBase, wraps_outputs=True)``) as the class
autograd makes its outputs of, so autograd never looks the Tensor class up.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from .. import _dtype
from ..utils.hooks import HookDict, add_hook
from . import grad_mode

__all__ = ["TensorBase", "increment_version"]

_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


class VersionCounter:
    """How many times a tensor's memory was changed in place (shared by views and detach,
    not by ``.data``).

    A leaf has one from the start. An op's output gets one when something needs it (it is
    saved for backward, viewed, detached or changed in place: ``version_counter``); until
    then its ``_version_counter`` is None and its version 0. Most outputs of a long chain
    never need one, and each object a tensor carries is work for Python's garbage collector.
    """

    value = 0  # read from the class until the first in-place change (cheap to create)


class InferenceVersion(VersionCounter):
    """The mark of an inference tensor (made in ``inference_mode``): PyTorch tracks no
    version for these, so reading ``_version`` or saving one for backward is an error."""


INFERENCE = InferenceVersion()  # one for all inference tensors: it never moves


def version_counter(tensor) -> VersionCounter:
    """``tensor``'s version counter, made now if it had none (to be shared or saved)."""
    if tensor._version_counter is None:
        tensor._version_counter = VersionCounter()
    return tensor._version_counter


def increment_version(tensor) -> None:
    """Note that ``tensor``'s memory was changed in place (a tensor or several).

    Every in-place op, optimizer step and ``nn.init`` function calls this: it is the one
    place versions move. Backward compares the version of each saved tensor with the one
    it had when saved, and refuses to use a changed one.
    """
    for t in tensor if isinstance(tensor, (tuple, list)) else (tensor,):
        counter = version_counter(t)
        if counter is not INFERENCE:
            counter.value += 1


class TensorBase:
    """An array with the state autograd needs; ``Tensor`` adds the ops."""

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

    def __init_subclass__(cls, wraps_outputs: bool = False, **kwargs):
        """``class Tensor(TensorBase, wraps_outputs=True)``: the higher layer registers the
        class of every tensor autograd makes (op outputs, gradients, what hooks see)."""
        super().__init_subclass__(**kwargs)
        if wraps_outputs:
            TensorBase._output_class = cls

    @staticmethod
    def _wrap(data, grad_fn=None, output_nr=0) -> TensorBase:
        """Wrap an array without copying (internal; ``grad_fn`` set means requires grad)."""
        t = object.__new__(TensorBase._output_class)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t._grad_fn, t._output_nr, t._requires_grad = grad_fn, output_nr, grad_fn is not None
        if grad_mode._inference:
            t._version_counter = INFERENCE
        else:  # a leaf's counter now, an op's output's when it needs one (VersionCounter)
            t._version_counter = VersionCounter() if grad_fn is None else None
        t._grad = t._base = t._hooks = t._post_accumulate_hooks = t._accumulator_ref = None
        return t

    @staticmethod
    def _make_subclass(cls, data: TensorBase, requires_grad: bool = False) -> TensorBase:
        """A ``cls`` instance sharing ``data``'s memory and version counter, a new leaf (how
        ``nn.Parameter`` is made, as in PyTorch)."""
        t = object.__new__(cls)
        t._data, t._version_counter = data._data, version_counter(data)
        t._grad_fn, t._output_nr, t._requires_grad = None, 0, False
        t._grad = t._base = t._hooks = t._post_accumulate_hooks = t._accumulator_ref = None
        if requires_grad:
            if t._data.dtype.kind != "f":
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            t._requires_grad = True
        return t

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

    def requires_grad_(self, requires_grad: bool = True) -> TensorBase:
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
            if not isinstance(value, TensorBase):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError("assigned grad has data of a different size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value

    @property
    def grad_dtype(self):
        """The dtype ``.grad`` is kept in (this tensor's dtype unless you set another, or None)."""
        return self.__dict__.get("_grad_dtype", _dtype.from_numpy(self._data.dtype))

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
        self._grad_fn._retain(self._output_nr, weakref.ref(self))

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
        return add_hook(self._grad_fn._tensor_hook_dict(self._output_nr), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = HookDict()
        return add_hook(self._post_accumulate_hooks, hook)

    def detach(self) -> TensorBase:
        """A tensor sharing this one's memory and version counter, cut from the graph."""
        t = TensorBase._wrap(self._data)
        t._version_counter = version_counter(self)
        return t

    @property
    def data(self) -> TensorBase:
        """The same memory as a new leaf: no history and a version counter of its own."""
        return TensorBase._wrap(self._data)

    @data.setter
    def data(self, value: TensorBase) -> None:
        self._data = value._data

    @property
    def _version(self) -> int:
        if self.is_inference():
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if self._version_counter is None else self._version_counter.value

    def is_inference(self) -> bool:
        """True for a tensor made in ``inference_mode`` (or a view of one)."""
        return isinstance(self._version_counter, InferenceVersion)

    @property
    def output_nr(self) -> int:
        return self._output_nr


TensorBase._output_class = TensorBase  # until Tensor registers itself
