"""Every op: forward against NumPy, backward against float64 central differences and,
when torch is installed, against PyTorch's gradients. All generic over ``SPECS``."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.ops import REGISTRY

from ..optional import import_or_skip
from .specs import SPECS as CORE_SPECS
from .specs_nn import NN_SPECS

SPECS = CORE_SPECS + NN_SPECS  # every op: the core's and nn's primitives alike
DIFFERENTIABLE = [s for s in SPECS if not s.no_derivative]  # the others: backward raises

EPS, ATOL = 1e-6, 1e-5


def _inputs(spec, rng):
    return [rng.uniform(spec.low, spec.high, size=shape) for shape in spec.shapes]


def _leaves(arrays):
    return [agk.tensor(a, dtype=agk.float64, requires_grad=True) for a in arrays]


def numerical_vjp(spec, arrays, upstream):
    """<upstream, f(x)> differentiated by central differences, element by element."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            values = []
            for step in (EPS, -EPS):
                shifted = [b.copy() for b in arrays]
                shifted[i][j] += step
                with agk.no_grad():
                    out = spec.fn(agk, *[agk.tensor(s, dtype=agk.float64) for s in shifted])
                values.append(float(np.sum(upstream * out.numpy())))
            g[j] = (values[0] - values[1]) / (2 * EPS)
        grads.append(g)
    return grads


def test_every_registered_op_has_a_spec():
    assert set(REGISTRY) - {spec.op for spec in SPECS} == set()


def test_every_spec_is_of_a_registered_op():
    """nn's own ops (``nn/ops/``) register as the core's do: the engine counts a class made
    there as built-in, so its nodes are named and printed as PyTorch's."""
    assert {spec.op for spec in SPECS} - set(REGISTRY) == set()


def test_no_op_is_another_ops_subclass():
    """PyTorch's node classes are unrelated: ``isinstance((x - 1).grad_fn, AddBackward0)`` is
    False there. Ops that share code share a private base (``_Addition``), never a parent op."""
    related = [
        (a, b)
        for a in REGISTRY.values()
        for b in REGISTRY.values()
        if a is not b and issubclass(a, b)
    ]
    assert related == []


@pytest.mark.parametrize("spec", [s for s in SPECS if s.ref is not None], ids=lambda s: s.name)
def test_forward_matches_numpy(spec):
    """(IndexPut, CopySlices and Copy have no NumPy one-liner: gradcheck covers them.)"""
    arrays = _inputs(spec, np.random.default_rng(1))
    out = spec.fn(agk, *[agk.tensor(a, dtype=agk.float64) for a in arrays])
    np.testing.assert_allclose(out.numpy(), spec.ref(*arrays), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("spec", DIFFERENTIABLE, ids=lambda s: s.name)
def test_backward_matches_central_differences(spec):
    rng = np.random.default_rng(2)
    arrays = _inputs(spec, rng)
    leaves = _leaves(arrays)
    out = spec.fn(agk, *leaves)
    upstream = rng.normal(size=out.shape)  # non-uniform, never all-ones
    out.backward(agk.tensor(upstream))
    for leaf, expected in zip(leaves, numerical_vjp(spec, arrays, upstream)):
        assert leaf.grad is not None and leaf.grad.shape == leaf.shape
        np.testing.assert_allclose(leaf.grad.numpy(), expected, atol=ATOL, rtol=spec.rtol)


@pytest.mark.parametrize("spec", [s for s in DIFFERENTIABLE if s.torch], ids=lambda s: s.name)
def test_gradients_and_node_name_match_pytorch(spec):
    torch = import_or_skip("torch")
    rng = np.random.default_rng(3)
    arrays = _inputs(spec, rng)
    ours = _leaves(arrays)
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, expected = spec.fn(agk, *ours), spec.fn(torch, *theirs)
    assert out.grad_fn.name() == expected.grad_fn.name().replace("torch::", "autogradkit::")
    upstream = rng.normal(size=tuple(out.shape))
    out.backward(agk.tensor(upstream))
    expected.backward(torch.tensor(upstream))
    for a, b in zip(ours, theirs):
        # force: torch hands back a lazy ZeroTensor for some flat gradients (sgn)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(force=True), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "spec", [s for s in DIFFERENTIABLE if s.ref is not None], ids=lambda s: s.name
)
def test_second_order_gradients_match_differences_of_first_order(spec):
    """create_graph=True runs each op's backward on Tensors: check d(<v, J^T u>)/dx."""
    rng = np.random.default_rng(4)
    arrays = _inputs(spec, rng)
    leaves = _leaves(arrays)
    out = spec.fn(agk, *leaves)
    upstream = agk.tensor(rng.normal(size=out.shape))
    firsts = agk.autograd.grad(out, leaves, upstream, create_graph=True, allow_unused=True)
    pairs = [(leaf, g) for leaf, g in zip(leaves, firsts) if g is not None]
    direction = [rng.normal(size=g.shape) for _, g in pairs]
    if any(g.requires_grad for _, g in pairs):
        scalar = sum((g * agk.tensor(d)).sum() for (_, g), d in zip(pairs, direction))
        seconds = agk.autograd.grad(scalar, leaves, allow_unused=True, materialize_grads=True)
    else:  # no graph of the gradient: the op is (piecewise) linear, so check it really is
        seconds = [agk.zeros_like(leaf) for leaf in leaves]

    positions = [next(k for k, leaf in enumerate(leaves) if leaf is p) for p, _ in pairs]

    def first_order_dot(xs):
        ts = _leaves(xs)
        gs = agk.autograd.grad(spec.fn(agk, *ts), ts, upstream, allow_unused=True)
        return sum(
            float(np.sum(gs[k].numpy() * d))
            for k, d in zip(positions, direction)
            if gs[k] is not None
        )

    for i, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i][j] += EPS
            minus[i][j] -= EPS
            numeric[j] = (first_order_dot(plus) - first_order_dot(minus)) / (2 * EPS)
        np.testing.assert_allclose(seconds[i].numpy(), numeric, atol=1e-4, rtol=spec.rtol)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.no_derivative], ids=lambda s: s.name)
def test_ops_without_a_derivative_record_pytorchs_node_and_error(spec):
    """``//`` and ``number % tensor``: PyTorch records a NotImplemented node (its edges as
    for any op) and raises at backward; autogradkit does the same, word for word."""
    torch = import_or_skip("torch")
    arrays = _inputs(spec, np.random.default_rng(6))
    outs = [spec.fn(agk, *_leaves(arrays))]
    outs.append(spec.fn(torch, *[torch.tensor(a, requires_grad=True) for a in arrays]))
    names = [o.grad_fn.name().replace("torch::", "autogradkit::") for o in outs]
    edges = [[f is None for f, _ in o.grad_fn.next_functions] for o in outs]
    assert names[0] == names[1] == "autogradkit::autograd::NotImplemented"
    assert edges[0] == edges[1]
    errors = []
    for out in outs:
        with pytest.raises(RuntimeError) as caught:
            out.sum().backward()
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def _describe_saved(value, leaves):
    """A saved value as comparable data: a tensor by what it is (which leaf, if it is one),
    its graph position and values; numbers, sizes and errors as they print."""
    if isinstance(value, tuple):
        return tuple(_describe_saved(v, leaves) for v in value)
    if hasattr(value, "grad_fn") and hasattr(value, "shape"):
        leaf = next((i for i, t in enumerate(leaves) if value is t), None)
        fn = value.grad_fn.name() if value.grad_fn is not None else None
        data = np.round(value.detach().numpy().astype(float), 8).tolist()
        kind = str(value.dtype).split(".")[-1]
        return ("tensor", tuple(value.shape), kind, value.requires_grad, leaf, fn, data)
    return repr(value)


def _saved_fields(node, leaves) -> dict:
    """Every ``_saved_*`` attribute of a node (``_raw_saved_*`` by name only)."""
    fields = {}
    for name in dir(node):
        if name.startswith("_raw_saved_"):
            fields[name] = "raw"
        elif name.startswith("_saved_"):
            try:
                fields[name] = _describe_saved(getattr(node, name), leaves)
            except RuntimeError as error:
                fields[name] = f"RuntimeError: {error}".replace("torch.", "autogradkit.")
    return fields


@pytest.mark.parametrize("spec", [s for s in DIFFERENTIABLE if s.torch], ids=lambda s: s.name)
def test_saved_tensors_match_pytorch_before_and_after_backward(spec):
    """grad_fn._saved_<name>: the same names, values, identities (an input is the input
    itself) and, once backward freed them, the same error for tensors (sizes stay)."""
    torch = import_or_skip("torch")
    arrays = _inputs(spec, np.random.default_rng(5))
    ours = _leaves(arrays)
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, expected = spec.fn(agk, *ours), spec.fn(torch, *theirs)
    assert _saved_fields(out.grad_fn, ours) == _saved_fields(expected.grad_fn, theirs)
    out.sum().backward()
    expected.sum().backward()
    assert _saved_fields(out.grad_fn, ours) == _saved_fields(expected.grad_fn, theirs)
