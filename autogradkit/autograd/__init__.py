"""``autogradkit.autograd``: what ``backward()`` does before and after the engine runs.

``backward`` and ``grad`` normalise their arguments (tensors to tuples, missing gradients
to ones for scalar outputs, ``retain_graph`` defaulting to ``create_graph``), then hand the
graph to the engine in ``engine.py``.
"""

from __future__ import annotations

import warnings

import numpy as np

import autogradkit.tensor as _tensor  # Tensor, at call time (tensor.py imports this module)

from . import engine, graph
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled

__all__ = [
    "Variable",
    "Function",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "backward",
    "grad",
    "graph",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "gradcheck",
    "gradgradcheck",
    "functional",
]


_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)


def Variable(data, requires_grad: bool = False):  # noqa: N802  (PyTorch's historical name)
    """What ``Variable`` became: since PyTorch 0.4 it just returns a Tensor.

    Tensors themselves now carry ``requires_grad``, ``grad`` and ``grad_fn``.
    """
    t = data.detach()
    if requires_grad:
        t.requires_grad_()
    return t


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, _tensor.Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs: tuple, grad_outputs: tuple, create_graph: bool) -> list:
    """One gradient per output: given ones are checked, missing ones are ones for scalars."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones(out._data.shape, out._data.dtype)
        else:
            if not isinstance(g, _tensor.Tensor):
                g = _tensor.Tensor._wrap(np.asarray(g, dtype=out._data.dtype))
            if g.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and "
                    f"output[{i}] has a shape of {out.shape!r}."
                )
            g = g if create_graph else g._data
        if create_graph and not isinstance(g, _tensor.Tensor):
            g = _tensor.Tensor._wrap(g)
        grads.append(g)
    return grads


def _roots(outputs: tuple) -> list:
    roots = []
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append((out._grad_fn, out._output_nr) if out._grad_fn else (out._accumulator(), 0))
    return roots


def _target(t):
    return (t._grad_fn, t._output_nr) if t._grad_fn is not None else (t._accumulator(), 0)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of leaves (or of ``inputs``).

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(3., requires_grad=True)
        >>> agk.autograd.backward(a * a)
        >>> a.grad
        tensor(6.)
    """
    outputs = _as_tuple(tensors)
    grad_outputs = _as_tuple(grad_tensors) or (None,) * len(outputs)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    grads = _make_grads(outputs, grad_outputs, create_graph)
    roots = _roots(outputs)
    if inputs is None:
        engine.run_backward(roots, grads, retain_graph, create_graph)
        return
    targets = {_target(t): True for t in inputs}
    captured = engine.run_backward(roots, grads, retain_graph, create_graph, targets)
    for t in inputs:  # leaves accumulated through AccumulateGrad; non-leaves get theirs here
        g = captured.get(_target(t)) if t._grad_fn is not None else None
        if g is not None:
            t._grad = _wrap_grad(g) if t._grad is None else t._grad + _wrap_grad(g)


def _wrap_grad(g):
    return g if isinstance(g, _tensor.Tensor) else _tensor.Tensor._wrap(np.array(g))


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """Return the gradients of ``outputs`` with respect to ``inputs`` (``.grad`` untouched).

    Example:
        >>> import autogradkit as agk
        >>> x = agk.tensor(2., requires_grad=True)
        >>> agk.autograd.grad(x ** 3, x)
        (tensor(12.),)
    """
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grad_outputs, create_graph)
    targets = {_target(t): False for t in inputs}
    captured = engine.run_backward(_roots(outputs), grads, retain_graph, create_graph, targets)
    results = []
    for i, t in enumerate(inputs):
        g = captured.get(_target(t))
        if g is None:
            if materialize_grads:
                g = np.zeros(t._data.shape, t._data.dtype)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
        results.append(None if g is None else _wrap_grad(g))
    return tuple(results)


# after grad() exists: gradcheck and functional call it
from . import functional  # noqa: E402
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402, F401
