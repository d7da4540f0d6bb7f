"""Whole derivatives of a function: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``.

Each calls the function on fresh copies of the inputs and asks ``autograd.grad`` for what it
needs, as ``torch.autograd.functional`` does: one backward per output element for a
Jacobian, and the "double backward" trick for ``jvp`` and ``hvp`` (reverse mode only).
Built on the public API, which the engine never calls back: beside the core.
"""

from __future__ import annotations

import numpy as np

from .. import autograd  # its grad() is looked up at each call: a check may refuse it
from .._functions import stack
from ..tensor import Tensor
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp"]


def _as_tuple(value, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the value at index {i} has type {type(v)}."
            )
    return is_tuple, values


def _preprocess(values: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh tensors to differentiate with respect to (views keep an outer graph)."""
    return tuple(
        v.view_as(v) if create_graph and v.requires_grad else v.detach().requires_grad_(need_graph)
        for v in values
    )


def _postprocess(values, create_graph: bool):
    if isinstance(values, tuple):
        return tuple(_postprocess(v, create_graph) for v in values)
    return values if create_graph or values is None else values.detach()


def _untuple(values, flags):
    """Undo the tuple wrapping for arguments the caller did not pass as tuples."""
    if not isinstance(flags, tuple):
        return values if flags else values[0]
    outer, inner = flags
    if not inner:
        values = tuple(v[0] for v in values)
    return values if outer else values[0]


def _check_requires_grad(values: tuple, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, v in enumerate(values):
        if v is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode."
            )
        if not v.requires_grad and kind == "outputs":
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other, strict=True)):
        if a.shape != b.shape:
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {b.shape!r} but got {a.shape!r}."
            )


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None) -> tuple:
    """``autograd.grad`` over the outputs that need grad; None for unused inputs."""
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [
        (o, g)
        for o, g in zip(outputs, grad_outputs, strict=True)
        if o is not None and o.requires_grad
    ]
    if not pairs:
        return (None,) * len(inputs)
    return autograd.grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool) -> tuple:
    if strict and any(g is None for g in grads):
        i = next(i for i, g in enumerate(grads) if g is None)
        raise RuntimeError(
            f"The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode."
        )
    return tuple(
        Tensor._wrap(np.zeros_like(r._data)) if g is None else g
        for g, r in zip(grads, refs, strict=True)
    )


def _check_v_or_single(v, refs: tuple, is_tuple: bool, create_graph: bool, fn_name: str, what: str):
    """Normalise ``v``; without one, ``refs`` must be a single one-element tensor."""
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _preprocess(v, create_graph, need_graph=False)
        _validate_v(v, refs, is_tuple)
        return v
    if len(refs) != 1 or refs[0].numel() != 1:
        raise RuntimeError(
            f"The vector v can only be None if the {what} a single Tensor with a single element."
        )
    return None


def jacobian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``: ``J[out_index + in_index] = d out / d in``.

    One backward pass per output element. With several inputs or outputs the result is a
    tuple (of tuples), as in PyTorch.

    Example:
        >>> import autogradkit as agk
        >>> agk.autograd.functional.jacobian(lambda x: x ** 2, agk.tensor([1., 3.]))
        tensor([[2., 0.],
                [0., 6.]])
    """
    if strategy != "reverse-mode":
        raise NotImplementedError("autogradkit computes Jacobians in reverse mode only")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        result = tuple(
            _jacobian_of(out, i, inputs, create_graph, strict) for i, out in enumerate(outputs)
        )
    return _untuple(_postprocess(result, create_graph), (is_outputs_tuple, is_inputs_tuple))


def _jacobian_of(out, i: int, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
    """Rows d out[k] / d input for every element k of one output, stacked and reshaped."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(out.numel()):
        grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (g, x) in enumerate(zip(grads, inputs, strict=True)):
            if g is None and strict:
                raise RuntimeError(
                    f"Output {i} of the user-provided function is independent of input {j}. "
                    "This is not allowed in strict mode."
                )
            rows[j].append(Tensor._wrap(np.zeros_like(x._data)) if g is None else g)
    return tuple(
        stack(r, 0).view(*out.shape, *x.shape)
        if r
        else Tensor._wrap(np.zeros((*out.shape, *x.shape), x._data.dtype))
        for r, x in zip(rows, inputs, strict=True)
    )


def hessian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The matrix of second derivatives of a scalar function: the Jacobian of its gradient.

    Example:
        >>> import autogradkit as agk
        >>> agk.autograd.functional.hessian(lambda x: (x ** 3).sum(), agk.tensor([1., 2.]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def single_output(*xs):
        out = func(*xs)
        is_out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def gradient(*xs):
        return jacobian(single_output, xs, create_graph=True)

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict)
    return _untuple(result, (is_inputs_tuple, is_inputs_tuple))


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: what backward computes, with ``v`` as the upstream gradient.

    Example:
        >>> import autogradkit as agk
        >>> f = lambda x: x ** 2
        >>> agk.autograd.functional.vjp(f, agk.tensor([1., 3.]), agk.tensor([1., 0.5]))
        (tensor([1., 9.]), tensor([2., 3.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        v = _check_v_or_single(
            v, outputs, is_outputs_tuple, create_graph, "vjp", "user-provided function returns"
        )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict)
    return (
        _untuple(_postprocess(outputs, create_graph), is_outputs_tuple),
        _untuple(_postprocess(result, create_graph), is_inputs_tuple),
    )


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the change of the outputs along direction ``v``.

    Reverse mode twice (the "double backward" trick): ``u -> J^T u`` is linear in ``u``, so
    differentiating it with respect to ``u`` in direction ``v`` gives ``J v``.

    Example:
        >>> import autogradkit as agk
        >>> f = lambda x: x ** 2
        >>> agk.autograd.functional.jvp(f, agk.tensor([1., 3.]), agk.tensor([1., 0.5]))
        (tensor([1., 9.]), tensor([2., 3.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        v = _check_v_or_single(
            v,
            inputs,
            is_inputs_tuple,
            create_graph,
            "jvp",
            "input to the user-provided function is",
        )
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        # any finite u works: J^T u is linear in u, so its derivative does not depend on it
        u = tuple(Tensor._wrap(np.zeros_like(o._data)).requires_grad_() for o in outputs)
        grad_inputs = _grad(outputs, inputs, u, create_graph=True)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(grad_inputs, u, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict)
    return (
        _untuple(_postprocess(outputs, create_graph), is_outputs_tuple),
        _untuple(_postprocess(result, create_graph), is_outputs_tuple),
    )


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)`` for a scalar function: its Hessian times ``v``.

    Example:
        >>> import autogradkit as agk
        >>> f = lambda x: (x ** 3).sum()
        >>> agk.autograd.functional.hvp(f, agk.tensor([1., 2.]), agk.tensor([1., 1.]))
        (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        v = _check_v_or_single(
            v,
            inputs,
            is_inputs_tuple,
            create_graph,
            "hvp",
            "input to the user-provided function is",
        )
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "hvp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if is_outputs_tuple:
            raise RuntimeError("The function given to hvp should return a single Tensor")
        if outputs[0].numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hvp should contain a single element"
            )
        gradient = _grad(outputs, inputs, create_graph=True)
        u = tuple(Tensor._wrap(np.zeros_like(x._data)).requires_grad_() for x in inputs)
        double_back = _grad(gradient, inputs, u, create_graph=True)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(double_back, u, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict)
    return (
        _untuple(_postprocess(outputs, create_graph), is_outputs_tuple),
        _untuple(_postprocess(result, create_graph), is_inputs_tuple),
    )
