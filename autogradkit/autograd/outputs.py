"""What ``Function.apply`` makes beyond one plain output: several outputs (each Tensor knows
its index in its node), and views (sharing their base's memory and version counter, and
remembering the base in ``_base``); and zeros for an output no gradient came to.

``apply`` (``engine.py``) calls these only for an op that returns a tuple or is marked
``is_view``; ``a * b`` never comes here.
"""

from __future__ import annotations

import weakref

import numpy as np

from . import grad_mode
from .variable import AutogradMethods, version_counter, wrap

__all__: list[str] = []


def _wrap_outputs(cls, out, inputs, ctx):
    """Several outputs, or a view: Tensors that know their node (``apply`` wraps the rest)."""
    if isinstance(out, tuple):
        if ctx is None:  # nothing recorded
            return tuple(wrap(o, None, i) for i, o in enumerate(out))
        non_diff = ctx.__dict__.get("_non_differentiable", ())
        ctx._outputs_meta = tuple((np.shape(o), np.asarray(o).dtype) for o in out)
        ctx._num_outputs = len(out)
        ctx._plain = False  # an unused output's gradient may have to be zeros
        return tuple(wrap(o, None if id(o) in non_diff else ctx, i) for i, o in enumerate(out))
    result, base = wrap(out, ctx), inputs[0]
    if cls.is_view and isinstance(base, AutogradMethods) and np.may_share_memory(out, base._data):
        result._version_counter = version_counter(base)
        result._base = base if base._base is None else base._base
        if grad_mode._enabled:  # an in-place op on the base will make it again (_inplace.py)
            _note_view(result._version_counter, result)
        # made under no_grad, a view still requires grad (PyTorch forbids changing it in place)
        if ctx is None and base._requires_grad:
            result._requires_grad = True
    return result


def _note_view(counter, view) -> None:
    """Remember ``view`` weakly on the version counter it shares with its base (``views``,
    set at the first view); the dead ones go now and then (a base whose ``.T`` is taken
    every step would otherwise keep a growing list)."""
    refs = getattr(counter, "views", None)
    if refs is None:
        refs = counter.views = []
    elif len(refs) >= 16 and len(refs) & (len(refs) - 1) == 0:  # at 16, 32, 64...
        refs[:] = [r for r in refs if r() is not None]
    refs.append(weakref.ref(view))


def zeros_where_missing(node, grads: list) -> list:
    """The gradients of a node with several outputs, with zeros for each output no gradient
    came to (a custom Function's number output stays None)."""
    return [
        np.zeros(*meta) if g is None and meta is not None else g
        for g, meta in zip(grads, node._outputs_meta)
    ]
