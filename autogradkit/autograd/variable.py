"""The autograd methods of a tensor that the lesson never calls; version counters, and
PyTorch's errors when a saved tensor's version moved or it is an inference tensor.

``TensorBase`` (``engine.py``) holds what ``a * b`` and ``backward()`` use: the array,
``requires_grad``, ``grad``, ``grad_fn``, ``_wrap`` and ``backward``. It builds on
``AutogradMethods`` here: hooks, ``retain_grad``, ``grad_dtype``, ``detach`` and ``.data``,
the version (``_version``, and ``increment_version``, the one function that moves it) and
inference tensors. PyTorch keeps the same split between its C++ ``TensorBase`` and the
``VariableHooks`` behind it. (``Node`` keeps its own such methods: a class between a node
and ``object`` costs every op it records, where a tensor's costs little.)
"""

from __future__ import annotations

import re
import weakref

import numpy as np

from .. import _dtype
from ..utils.hooks import HookDict, add_hook, next_id
from . import grad_mode

__all__ = [
    "FREED_MESSAGE",
    "INFERENCE_SAVED",
    "NO_GRAD_VIEW",
    "AutogradMethods",
    "VersionCounter",
    "check_no_grad_view",
    "increment_version",
    "op_name",
    "version_counter",
    "version_message",
    "wrap",
]


class VersionCounter:
    """How many times a tensor's memory was changed in place (shared by views and detach,
    not by ``.data``).

    A leaf has one from the start. An op's output gets one when something needs it (it is
    saved for backward, viewed, detached or changed in place: ``version_counter``); until
    then its ``_version_counter`` is None and its version 0. Most outputs of a long chain
    never need one, and each object a tensor carries is work for Python's garbage collector.
    """

    value = 0  # read from the class until the first in-place change (cheap to create)
    changed_at = -1  # when it last moved, on the clock of next_id (check_no_grad_view)


class InferenceVersion(VersionCounter):
    """The mark of an inference tensor (made in ``inference_mode``): PyTorch tracks no
    version for these, so reading ``_version`` or saving one for backward is an error."""


INFERENCE = InferenceVersion()  # one for all inference tensors: it never moves
# PyTorch's error for a saved value that backward freed (engine.FREED stands in its store)
FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

NO_GRAD_VIEW = (
    "A view was created in no_grad mode and {} with grad mode enabled. Given that this use case "
    "is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the "
    "view and the inplace either both inside the no_grad block (if you don't want the inplace to "
    "be tracked) or both outside (if you want the inplace to be tracked)."
)

INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `autogradkit.no_grad()` "
    "instead of `autogradkit.inference_mode()`."
)


def wrap(data, grad_fn=None, output_nr=0) -> AutogradMethods:
    """A new Tensor of the class ``Tensor`` registered (``TensorBase._wrap``), for the files
    below the engine (hooks, views, several outputs). One made in no_grad mode notes when."""
    t = AutogradMethods._output_class._wrap(data, grad_fn, output_nr)
    if not grad_mode._enabled:
        t._made_at = next_id()
    return t


def check_no_grad_view(t) -> None:
    """PyTorch's refusal to give the ``grad_fn`` of a view made in no_grad mode (of a tensor
    that requires grad) once its base changed in place: which history would it have?"""
    made_at = getattr(t, "_made_at", None)
    if made_at is not None and t._version_counter.changed_at > made_at:
        raise RuntimeError(
            NO_GRAD_VIEW.format("its base or another view of its base has been modified inplace")
        )


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
            counter.changed_at = next_id()


class AutogradMethods:
    """The autograd methods of a tensor beyond the lesson's (``TensorBase`` adds the rest)."""

    __slots__ = ()  # the slots are TensorBase's
    # the class of every tensor autograd makes (op outputs, gradients, what hooks see):
    # ``class Tensor(TensorBase, wraps_outputs=True)`` registers it (TensorBase.__init_subclass__),
    # here, so that the files below the engine make Tensors too (``wrap``)
    _output_class: type

    @staticmethod
    def _make_subclass(cls, data: AutogradMethods, requires_grad: bool = False) -> AutogradMethods:
        """A ``cls`` instance sharing ``data``'s memory and version counter, a new leaf (how
        ``nn.Parameter`` is made, as in PyTorch)."""
        if requires_grad and data._data.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t = object.__new__(cls)
        t._data, t._version_counter = data._data, version_counter(data)
        t._grad_fn, t._output_nr, t._requires_grad = None, 0, bool(requires_grad)
        t._grad = t._base = t._hooks = t._post_accumulate_hooks = t._accumulator_ref = None
        return t

    def requires_grad_(self, requires_grad: bool = True) -> AutogradMethods:
        """Set ``requires_grad`` in place and return the tensor."""
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

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

    def detach(self) -> AutogradMethods:
        """A tensor sharing this one's memory and version counter, cut from the graph."""
        t = self._wrap(self._data)
        t._version_counter = version_counter(self)
        return t

    @property
    def data(self) -> AutogradMethods:
        """The same memory as a new leaf: no history and a version counter of its own."""
        return self._wrap(self._data)

    @data.setter
    def data(self, value: AutogradMethods) -> None:
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


def op_name(node) -> str:
    """The op a node records, as PyTorch's messages name it: ``Exp`` for ExpBackward0."""
    return re.sub(r"Backward\d*$", "", node.name())


def version_message(value, meta, node) -> str:
    """PyTorch's error for a saved value whose tensor changed in place since it was saved
    (``meta``, its ``SavedOrigin``, holds the version it had then)."""
    t, counter, expected, is_output, nr = meta
    data = value._data if isinstance(value, AutogradMethods) else np.asarray(value)
    where = ""
    fn = node if is_output else (t._grad_fn if t is not None else None)
    if fn is not None:
        nr = nr if is_output else t._output_nr
        where = f", which is output {nr} of {op_name(fn)},"
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{_dtype.tensor_type(data.dtype)} [{', '.join(map(str, data.shape))}]]"
        f"{where} is at version {counter.value}; expected version {expected} instead. Hint: "
        + (_ENABLE_ANOMALY_HINT if grad_mode.anomaly is None else grad_mode.anomaly.version_hint)
    )


# (while anomaly mode is on, its own hint: anomaly_mode.Checks.version_hint, beside the core)
_ENABLE_ANOMALY_HINT = (
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "autogradkit.autograd.set_detect_anomaly(True, check_nan=False)."
)
