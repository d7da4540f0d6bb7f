"""Your own ``Function``: forward and backward on Tensors, as ``torch.autograd.Function``.

``Function.apply`` (``engine.py``) sends a subclass you wrote here: its forward runs on
Tensors with grad mode off, then one ``<YourClass>Backward`` node links its Tensor inputs
to its outputs (what forward said with ``ctx.mark_dirty``, ``ctx.mark_non_differentiable``
and ``ctx.set_materialize_grads`` honoured); its backward gets and returns Tensors. Built-in
ops never come here. The ``Function`` you subclass is the one at the end of this file: it
builds on the engine's, whose ``apply`` runs a class you wrote through ``_run_custom``,
which this one sets to ``run`` (a class attribute it overrides, as any subclass may: the
engine never imports this file). What only your own Functions use lives here too, as
PyTorch keeps it in ``torch/autograd/function.py``: the ctx's ``mark_dirty`` and
``set_materialize_grads``, ``setup_context``, and the errors of a missing ``forward`` or
``backward``.
"""

from __future__ import annotations

import functools

from . import engine, grad_mode
from .engine import FunctionCtx, TensorBase, gradient_count_error, link
from .hooks import as_tensors
from .saved_fields import STORE
from .variable import increment_version

__all__ = ["Function", "once_differentiable"]


class CustomFunctionBackward(FunctionCtx):
    """The node of your own Function (``<YourClass>Backward`` builds on it)."""

    __slots__ = ()
    __module__ = "autogradkit.autograd.function"  # as torch.autograd.function's nodes print
    _custom = True
    _function: type  # your Function class, whose backward this node runs (node_class sets it)

    def __repr__(self) -> str:
        cls = type(self)  # <autogradkit.autograd.function.SquareBackward object at ...>
        return f"<{cls.__module__}.{cls.__name__} object at {hex(id(self))}>"

    def __dir__(self):
        """All your node's names, as PyTorch shows them, but the engine's store."""
        return sorted(n for n in object.__dir__(self) if n not in STORE)

    def mark_dirty(self, *tensors) -> None:
        """Say forward changed these inputs in place (they become its outputs)."""
        self.__dict__["_dirty"] = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        """False: backward gets None, not zeros, for an output no gradient reached."""
        self.__dict__["_materialize_grads"] = value

    def _custom_backward(self, grads) -> tuple:
        """Your backward gets and returns Tensors, as in PyTorch."""
        result = self._function.backward(self, *as_tensors(grads))
        result = _one_gradient_per_tensor_input(self, result)
        if grad_mode._enabled:
            return result
        return tuple(r._data if isinstance(r, TensorBase) else r for r in result)


def node_class(cls) -> type:
    """``<YourClass>Backward``: the ``grad_fn`` class of your Function, made at its first use
    (kept on your class itself: a subclass of it gets its own)."""
    if "_node_class" not in cls.__dict__:
        attrs = {"_function": cls, "__slots__": (), "__module__": CustomFunctionBackward.__module__}
        cls._node_class = type(f"{cls.__name__}Backward", (CustomFunctionBackward,), attrs)
    return cls._node_class


def once_differentiable(backward):
    """Decorate a custom Function's ``backward`` to run with grad mode off: its gradients
    record no graph, so they cannot be differentiated again (``create_graph`` gets plain
    gradients)."""

    @functools.wraps(backward)
    def backward_without_graph(ctx, *grad_outputs):
        with grad_mode.no_grad():
            return backward(ctx, *grad_outputs)

    return backward_without_graph


def _one_gradient_per_tensor_input(node, result) -> tuple:
    """Check backward gave one gradient per forward argument (extra trailing Nones are
    dropped, as PyTorch does), None for each non-Tensor one; keep the Tensor inputs' ones."""
    result = result if isinstance(result, tuple) else (result,)
    is_tensor = node._input_is_tensor
    expected = len(is_tensor)
    if len(result) > expected and all(g is None for g in result[expected:]):
        result = result[:expected]
    if len(result) != expected:
        raise gradient_count_error(node, expected, len(result))
    for position, (g, tensor_input) in enumerate(zip(result, is_tensor), 1):
        if g is not None and not tensor_input:
            raise RuntimeError(
                f"function {node.name()} returned a gradient different than None at position "
                f"{position}, but the corresponding forward input was not a Variable"
            )
    return tuple(g for g, tensor_input in zip(result, is_tensor) if tensor_input)


def _forward(cls, ctx, inputs, static):
    """``forward(ctx, *inputs)``, or (PyTorch 2's way, when your class has a
    ``setup_context``) ``forward(*inputs)`` then ``setup_context``; grad mode off."""
    with grad_mode.no_grad():
        if cls.setup_context is Function.setup_context:
            return cls.forward(ctx, *inputs, **static)
        out = cls.forward(*inputs, **static)
        cls.setup_context(ctx, inputs, out)
        return out


def run(cls, inputs, static):
    """A user's Function: forward runs on Tensors with grad mode off, then one node links it.
    Returns ``(node or None, what apply returns, the outputs)``; apply notes what was saved."""
    needs = tuple(isinstance(x, TensorBase) and x._requires_grad for x in inputs)
    record = grad_mode._enabled and True in needs
    ctx = node_class(cls)()
    ctx.needs_input_grad = needs
    if record and grad_mode.anomaly is not None:  # anomaly mode: where it was made
        grad_mode.anomaly.record_forward(ctx)
    out = _forward(cls, ctx, inputs, static)
    outputs = out if isinstance(out, tuple) else (out,)
    if not record:
        return None, out, ()
    # only Tensor arguments are inputs of the node: numbers, strings... get no edge
    ctx._input_is_tensor = tuple(isinstance(x, TensorBase) for x in inputs)
    link(ctx, [x for x in inputs if isinstance(x, TensorBase)])
    if ctx.__dict__.get("_materialize_grads", True):  # zeros for an output no gradient reached
        ctx._outputs_meta = tuple(
            (o.shape, o._data.dtype) if isinstance(o, TensorBase) else None for o in outputs
        )
    ctx._num_outputs = len(outputs)
    results = tuple(
        _attach_output(ctx, i, o, inputs) if isinstance(o, TensorBase) else o  # numbers pass
        for i, o in enumerate(outputs)
    )
    return ctx, (results if isinstance(out, tuple) else results[0]), results


def _attach_output(ctx, index: int, out, inputs):
    """Make ``out`` the node's output ``index``, honouring mark_dirty/mark_non_differentiable."""
    dirty = id(out) in ctx.__dict__.get("_dirty", ())
    differentiable = id(out) not in ctx.__dict__.get("_non_differentiable", ())
    if dirty and out._requires_grad and out._grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad has been used in an in-place operation."
        )
    if dirty:
        increment_version(out)
    elif any(out is x for x in inputs):
        with grad_mode.no_grad():
            out = out.view_as(out)  # returning an input unchanged still gets a new node
    if differentiable:
        out._grad_fn, out._output_nr, out._requires_grad = ctx, index, True
    return out


class Function(engine.Function):
    """``autograd.Function``: subclass it to write your own op, with ``forward`` and
    ``backward`` on Tensors (``engine.Function`` says how; the built-in ops subclass it too).
    ``apply`` (the engine's) runs a class you wrote through ``run``, above."""

    __module__ = "autogradkit.autograd.function"  # torch.autograd.function.Function
    _run_custom = staticmethod(run)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Save for backward here, and write ``forward(*inputs)`` without ctx (optional)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )
