"""The runners of the hooks you register: a tensor's (``register_hook``), a node's
(``register_prehook``, ``register_hook``) and ``retain_grad``, and what each hook sees.

The engine calls these only for a tensor or node that has hooks (a node with hooks is not
*plain*: ``run_node`` runs it). A hook sees Tensors where the engine has arrays; what it
returns replaces the gradient, checked as PyTorch checks it.
"""

from __future__ import annotations

import numpy as np

from .._dtype import tensor_type
from .variable import AutogradMethods, wrap

__all__ = ["as_tensors", "run_node_hooks", "run_output_hooks", "run_tensor_hooks"]


def run_tensor_hooks(hooks: dict, g):
    """Call a tensor's hooks in order; each may return a replacement gradient."""
    as_tensor = g if isinstance(g, AutogradMethods) else wrap(g)
    for hook in tuple(hooks.values()):
        result = hook(as_tensor)
        if result is None:
            continue
        name = getattr(hook, "__name__", type(hook).__name__)
        before, after = as_tensor._data, result._data
        if after.shape != before.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if after.dtype != before.dtype:
            raise RuntimeError(
                f"hook '{name}' has changed the type of value (was "
                f"{tensor_type(before.dtype)} got {tensor_type(after.dtype)})"
            )
        as_tensor = result
    return as_tensor if isinstance(g, AutogradMethods) else as_tensor._data


def as_tensors(values) -> tuple:
    """Arrays as Tensors (None and Tensors as they are): what hooks and custom backwards see."""
    return tuple(v if v is None or isinstance(v, AutogradMethods) else wrap(v) for v in values)


def _as_arrays(values, like):
    if any(isinstance(v, AutogradMethods) and v._requires_grad for v in like if v is not None):
        return list(values)  # create_graph: keep Tensors
    return [v._data if isinstance(v, AutogradMethods) else v for v in values]


def run_node_hooks(hooks, grads, *seen) -> tuple:
    """A node's hooks, each ``hook(grads, *seen)``; a returned tuple replaces ``grads``. Its
    pre-hooks see the gradients it will get (``grad_outputs``); its post hooks the ones it
    passes on (``grad_inputs``) and, after them, the ones it got."""
    for hook in tuple(hooks.values()):
        result = hook(as_tensors(grads), *map(as_tensors, seen))
        if result is not None:
            grads = tuple(_as_arrays(result, grads))
    return grads


def run_output_hooks(node, grads):
    """Hooks registered on the node's output tensors, then retain_grad, as in PyTorch."""
    grads = list(grads)
    for nr, hooks in (node._tensor_hooks or {}).items():
        if grads[nr] is not None and hooks:
            grads[nr] = run_tensor_hooks(hooks, grads[nr])
    for nr, ref in (node._retained or {}).items():
        t, g = ref(), grads[nr]
        if t is not None and g is not None:
            g = g.detach().clone() if isinstance(g, AutogradMethods) else wrap(np.array(g))
            t._grad = g if t._grad is None else t._grad + g
    return grads
