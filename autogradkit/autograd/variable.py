"""The autograd methods of a tensor and of a node that the lesson never calls; versions.

``TensorBase`` (``engine.py``) holds what ``a * b`` and ``backward()`` use: the array,
``requires_grad``, ``grad``, ``grad_fn``, ``_wrap`` and ``backward``. It builds on
``AutogradMethods`` here: hooks, ``retain_grad``, ``grad_dtype``, ``detach`` and ``.data``,
the version (``_version``, and ``increment_version``, the one function that moves it) and
inference tensors. PyTorch keeps the same split between its C++ ``TensorBase`` and the
``VariableHooks`` behind it. ``Node`` (``engine.py``) builds on ``NodeMethods`` the same way.
"""

from __future__ import annotations

import weakref

from .. import _dtype
from ..utils.hooks import HookDict, add_hook

__all__ = [
    "AutogradMethods",
    "NodeMethods",
    "VersionCounter",
    "increment_version",
    "version_counter",
]

_STORE = frozenset({"_saved", "_saved_meta"})  # what _saved_<name> reads: not in dir(node)


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


class AutogradMethods:
    """The autograd methods of a tensor beyond the lesson's (``TensorBase`` adds the rest)."""

    __slots__ = ()  # the slots are TensorBase's

    @staticmethod
    def _make_subclass(cls, data: AutogradMethods, requires_grad: bool = False) -> AutogradMethods:
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


class NodeMethods:
    """A node's methods beyond the lesson's (``Node``, ``engine.py``, adds the rest): hooks,
    ``metadata``, retained gradients, and how it prints and lists its names."""

    __slots__ = ()  # the slots are Node's

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = HookDict()
        self._plain = False
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = HookDict()
        self._plain = False
        return add_hook(self._pre_hooks, fn)

    def _tensor_hook_dict(self, output_nr: int) -> HookDict:
        """The hooks of this node's output ``output_nr`` (``tensor.register_hook``)."""
        if self._tensor_hooks is None:
            self._tensor_hooks = HookDict()
        self._plain = False
        return self._tensor_hooks.setdefault(output_nr, HookDict())

    def _retain(self, output_nr: int, tensor_ref) -> None:
        """Keep the gradient of output ``output_nr`` in that tensor's ``.grad``."""
        if self._retained is None:
            self._retained = {}
        self._plain = False
        self._retained[output_nr] = tensor_ref

    @property
    def requires_grad(self) -> bool:
        return True  # a node exists only where some input requires grad

    def __repr__(self) -> str:
        cls = type(self)
        name = f"{cls.__module__}.{cls.__name__}" if self._custom else cls.__name__
        return f"<{name} object at {hex(id(self))}>"

    def __dir__(self):
        """What PyTorch's nodes show: a node's public names only (not the op's forward,
        backward and ctx helpers), the ``_saved_<name>`` fields this node has, and no store."""
        if self._custom:
            return sorted(n for n in super().__dir__() if n not in _STORE)
        cls = type(self)
        names = set(dir(cls)) - cls._op_api
        return sorted(n for n in names if n not in _STORE and _is_field(cls, n))


def _is_field(cls, name: str) -> bool:
    """False for a ``_saved_*`` name the node's op does not have (a parent op's field)."""
    value = getattr(cls, name, None)
    return not (isinstance(value, property) and getattr(value.fget, "__name__", "") == "_not_saved")
