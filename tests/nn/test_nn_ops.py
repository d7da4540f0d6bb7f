"""The generic op checks of tests/ops, run over the nn primitives in ``specs_nn.NN_SPECS``:
forward against NumPy, backward against float64 central differences (non-uniform upstream
gradient), and second derivatives (create_graph) against differences of first derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk

from ..ops.specs_nn import NN_SPECS

EPS = 1e-6


def _inputs(spec, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(spec.low, spec.high, size=shape) for shape in spec.shapes]


def _leaves(arrays):
    return [agk.tensor(a, dtype=agk.float64, requires_grad=True) for a in arrays]


def _vjp_by_differences(spec, arrays, upstream):
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            values = []
            for step in (EPS, -EPS):
                shifted = [b.copy() for b in arrays]
                shifted[i][j] += step
                out = spec.fn(agk, *[agk.tensor(s, dtype=agk.float64) for s in shifted])
                values.append(float(np.sum(upstream * out.numpy())))
            g[j] = (values[0] - values[1]) / (2 * EPS)
        grads.append(g)
    return grads


@pytest.mark.parametrize("spec", NN_SPECS, ids=lambda s: s.name)
def test_forward_matches_numpy(spec):
    arrays = _inputs(spec, 1)
    out = spec.fn(agk, *[agk.tensor(a, dtype=agk.float64) for a in arrays])
    np.testing.assert_allclose(out.numpy(), spec.ref(*arrays), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("spec", NN_SPECS, ids=lambda s: s.name)
def test_backward_matches_central_differences(spec):
    arrays = _inputs(spec, 2)
    leaves = _leaves(arrays)
    out = spec.fn(agk, *leaves)
    upstream = np.random.default_rng(5).normal(size=out.shape)
    out.backward(agk.tensor(upstream))
    for leaf, expected in zip(leaves, _vjp_by_differences(spec, arrays, upstream), strict=True):
        assert leaf.grad.shape == leaf.shape
        np.testing.assert_allclose(leaf.grad.numpy(), expected, atol=1e-5, rtol=spec.rtol)


@pytest.mark.parametrize("spec", NN_SPECS, ids=lambda s: s.name)
def test_second_derivatives_match_differences_of_first(spec):
    arrays = _inputs(spec, 4)
    rng = np.random.default_rng(6)
    leaves = _leaves(arrays)
    out = spec.fn(agk, *leaves)
    upstream = agk.tensor(rng.normal(size=out.shape))
    firsts = agk.autograd.grad(out, leaves, upstream, create_graph=True)
    directions = [rng.normal(size=a.shape) for a in arrays]
    pairs = [(g, d) for g, d in zip(firsts, directions, strict=True) if g.requires_grad]
    if pairs:
        scalar = sum((g * agk.tensor(d)).sum() for g, d in pairs)
        seconds = agk.autograd.grad(scalar, leaves, allow_unused=True, materialize_grads=True)
    else:  # no graph of the first derivative: it claims to be constant, so check zeros
        seconds = [agk.zeros_like(leaf) for leaf in leaves]

    def first_dot(xs):
        ts = _leaves(xs)
        gs = agk.autograd.grad(spec.fn(agk, *ts), ts, upstream)
        return sum(float(np.sum(g.numpy() * d)) for g, d in zip(gs, directions, strict=True))

    for i, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            plus, minus = [b.copy() for b in arrays], [b.copy() for b in arrays]
            plus[i][j] += EPS
            minus[i][j] -= EPS
            numeric[j] = (first_dot(plus) - first_dot(minus)) / (2 * EPS)
        np.testing.assert_allclose(seconds[i].numpy(), numeric, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("spec", NN_SPECS, ids=lambda s: s.name)
def test_gradients_and_node_names_match_pytorch(spec):
    torch = pytest.importorskip("torch")
    arrays = _inputs(spec, 3)
    ours = _leaves(arrays)
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, expected = spec.fn(agk, *ours), spec.fn(torch, *theirs)
    assert out.grad_fn.name() == expected.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    upstream = np.random.default_rng(7).normal(size=tuple(out.shape))
    out.backward(agk.tensor(upstream))
    expected.backward(torch.tensor(upstream))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
