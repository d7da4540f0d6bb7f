"""``gradcheck``: compare backward's gradients with finite differences, as PyTorch does.

The numerical Jacobian nudges each input element by ``+-eps`` and takes central differences;
the analytical one runs backward once per output element. Rows are input elements, columns
output elements, exactly as PyTorch prints them when they disagree. Built on
``autograd.grad``, which the engine never calls back: beside the core, as ``functional.py``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..random import _generator
from . import targets
from .engine import TensorBase
from .grad_mode import enable_grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` and ``gradgradcheck`` when gradients disagree."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _check_inputs(inputs: tuple) -> None:
    if not any(isinstance(t, TensorBase) and t.requires_grad for t in inputs):
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )
    for i, t in enumerate(inputs):
        if isinstance(t, TensorBase) and t.requires_grad and t._data.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=3,
            )


def _outputs(func, inputs: tuple) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, TensorBase))


def _numerical(func, inputs: tuple, target, eps: float) -> list:
    """d(output)/d(target) by central differences: one (target.numel, out.numel) per output."""
    data = target._data  # nudged in place, so func sees the change through the input itself
    rows = []
    for idx in np.ndindex(data.shape):
        orig = data[idx].copy()
        # grad mode stays as it is: func may itself need it (gradgradcheck calls grad)
        data[idx] = orig + eps
        plus = [o._data.copy() for o in _outputs(func, inputs)]
        data[idx] = orig - eps
        minus = [o._data.copy() for o in _outputs(func, inputs)]
        data[idx] = orig
        rows.append([((a - b) / (2 * eps)).reshape(-1) for a, b in zip(plus, minus, strict=True)])
    n_outputs = len(rows[0]) if rows else 0
    return [np.stack([r[i] for r in rows]) for i in range(n_outputs)]


def _analytical(output, targets: list) -> list:
    """d(output)/d(target) from backward, one one-hot upstream gradient per output element."""
    jac = [np.zeros((t.numel(), output.numel()), t._data.dtype) for t in targets]
    for k in range(output.numel()):
        seed = np.zeros(output.numel(), output._data.dtype)
        seed[k] = 1
        grads = _grad(
            output,
            targets,
            TensorBase._wrap(seed.reshape(output.shape)),
            retain_graph=True,
            allow_unused=True,
        )
        for j, g in enumerate(grads):
            if g is not None:
                jac[j][:, k] = g._data.reshape(-1)
    return jac


def _grad(*args, **kwargs):
    """``autograd.grad``: every Jacobian column here comes from it (a check may refuse it)."""
    return targets.grad(*args, **kwargs)


_FAST_MODE_NOTE = (
    "\n\nThe above quantities relating the numerical and analytical jacobians are computed "
    "\nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background "
    "\nabout fast mode. Below, we recompute numerical and analytical jacobians in slow mode:"
    "\n\nNumerical:\n {numerical!r}\nAnalytical:\n{analytical!r}\n\nThe max per-element "
    "difference (slow mode) is: {difference}.\n"
)
_NOT_MODELLED = ("check_batched_grad", "check_batched_forward_grad", "check_forward_ad", "masked")


def _refuse_unmodelled(options: dict) -> None:
    """Checks of features autogradkit does not have are refused, never silently skipped."""
    for name in _NOT_MODELLED:
        if options.get(name):
            raise NotImplementedError(
                f"gradcheck({name}=True): autogradkit has no {name.replace('check_', '')} "
                "(no forward-mode AD, batched gradients or masked tensors)"
            )


def _fast_mode_mismatch(func, inputs, outputs, targets, eps, atol, rtol):
    """PyTorch's fast mode: one random direction v per input and u per output, and compare
    the number u^T J v from finite differences with v^T (J^T u) from one backward."""
    rng = np.random.default_rng(0)  # its own directions: the same every run
    for j, t in enumerate(targets):
        v = rng.standard_normal(t.shape)
        v /= max(np.linalg.norm(v), 1e-300)
        data, orig = t._data, t._data.copy()  # nudged in place, as _numerical does
        data[...] = orig + eps * v
        plus = [o._data.copy() for o in _outputs(func, inputs)]
        data[...] = orig - eps * v
        minus = [o._data.copy() for o in _outputs(func, inputs)]
        data[...] = orig
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                continue
            u = rng.standard_normal(out.shape)
            u /= max(np.linalg.norm(u), 1e-300)
            numerical = float(np.sum(u * (plus[i] - minus[i]) / (2 * eps)))
            g = _grad(out, [t], TensorBase._wrap(u.astype(out._data.dtype)),
                      retain_graph=True, allow_unused=True)[0]  # fmt: skip
            analytical = 0.0 if g is None else float(np.sum(g._data * v))
            if not np.isclose(analytical, numerical, rtol=rtol, atol=atol):
                return i, j, numerical, analytical
    return None


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
) -> bool:
    """Check ``func``'s backward against finite differences at ``inputs``.

    Pass float64 inputs that require grad. Returns True, or raises ``GradcheckError`` with
    both Jacobians (or returns False when ``raise_exception=False``). ``fast_mode=True``
    compares one random projection of each Jacobian, as PyTorch's fast mode does. Checks of
    features autogradkit lacks (forward AD, batched grads) raise NotImplementedError.

    Example:
        >>> import autogradkit as agk
        >>> x = agk.tensor([1., 2.], dtype=agk.float64, requires_grad=True)
        >>> agk.autograd.gradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """
    _refuse_unmodelled(locals())
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    with enable_grad():
        outputs = _outputs(func, inputs)
    targets = [t for t in inputs if isinstance(t, TensorBase) and t.requires_grad]
    if fast_mode:
        mismatch = _fast_mode_mismatch(func, inputs, outputs, targets, eps, atol, rtol)
        if mismatch is None:
            return True
        i, j, numerical, analytical = mismatch
        slow_n = _numerical(func, inputs, targets[j], eps)[i]
        slow_a = _analytical(outputs[i], [targets[j]])[0]
        return _fail(
            f"Jacobian mismatch for output {i} with respect to input {j},\n"
            f"numerical:{numerical!r}\nanalytical:{analytical!r}"
            + _FAST_MODE_NOTE.format(
                numerical=TensorBase._wrap(slow_n),
                analytical=TensorBase._wrap(slow_a),
                difference=float(np.max(np.abs(slow_n - slow_a))),
            ),
            raise_exception,
        )
    numerical = [_numerical(func, inputs, t, eps) for t in targets]  # [input][output]
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            if any(n[i] is not None and np.any(n[i] != 0) for n in numerical):
                return _fail("Numerical gradient for function expected to be zero", raise_exception)
            continue
        analytical = _analytical(out, targets)
        for j, (n, a) in enumerate(zip((n[i] for n in numerical), analytical, strict=True)):
            n = n.astype(out._data.dtype, copy=False)
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(
                    f"Jacobian mismatch for output {i} with respect to input {j},\n"
                    f"numerical:{TensorBase._wrap(n)!r}\nanalytical:{TensorBase._wrap(a)!r}\n",
                    raise_exception,
                )
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: ``gradcheck`` on the function ``(inputs, v) -> v^T J``.

    ``grad_outputs`` (the ``v``) default to random values in [-1, 1) that require grad.

    Example:
        >>> import autogradkit as agk
        >>> x = agk.tensor([1., 2.], dtype=agk.float64, requires_grad=True)
        >>> agk.autograd.gradgradcheck(lambda t: t ** 3, (x,))
        True
    """
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        with enable_grad():
            outs = [o for o in _outputs(func, inputs) if o.requires_grad]
        grad_outputs = tuple(
            TensorBase._wrap(
                _generator().uniform(-1, 1, o.shape).astype(o._data.dtype)
            ).requires_grad_()
            for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)

    def first_derivatives(*args):
        xs, vs = args[:n_inputs], args[n_inputs:]
        outs = [o for o in _outputs(func, xs) if o.requires_grad]
        wrt = [x for x in xs if isinstance(x, TensorBase) and x.requires_grad]
        grads = _grad(outs, wrt, vs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        fast_mode=fast_mode,
    )
