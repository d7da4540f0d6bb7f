"""Properties that hold for any shape: gradients have the input's shape, sum() gives ones,
broadcast gradients equal explicit summation, and gradcheck holds at random points."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import autogradkit as agk
from autogradkit._shape import unbroadcast

from ..strategies import arrays, broadcastable_pair, shapes

BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "maximum": lambda x, y: agk.maximum(x, y),
}


@given(pair=broadcastable_pair(), op=st.sampled_from(sorted(BINARY)), data=st.data())
def test_binary_op_gradients_have_each_inputs_shape(pair, op, data):
    x = agk.tensor(data.draw(arrays(pair[0])), requires_grad=True)
    y = agk.tensor(data.draw(arrays(pair[1])), requires_grad=True)
    BINARY[op](x, y).sum().backward()
    assert x.grad.shape == x.shape and y.grad.shape == y.shape


@given(shape=shapes, data=st.data())
def test_sum_backward_gives_ones(shape, data):
    x = agk.tensor(data.draw(arrays(shape)), requires_grad=True)
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(shape))


@given(pair=broadcastable_pair(), data=st.data())
def test_unbroadcast_equals_explicit_summation(pair, data):
    small, big = sorted(pair, key=lambda s: (len(s), np.prod(s)))
    target = np.broadcast_shapes(small, big)
    g = data.draw(arrays(target))
    lead = len(target) - len(small)
    expected = g.sum(axis=tuple(range(lead))) if lead else g
    for axis, size in enumerate(small):
        if size == 1:
            expected = expected.sum(axis=axis, keepdims=True)
    np.testing.assert_allclose(unbroadcast(g, small), expected.reshape(small))


@given(pair=broadcastable_pair(), data=st.data())
def test_mul_gradcheck_at_random_points(pair, data):
    x0, y0 = data.draw(arrays(pair[0])), data.draw(arrays(pair[1]))
    x, y = (agk.tensor(a, requires_grad=True) for a in (x0, y0))
    out = x * y
    u = data.draw(arrays(tuple(out.shape)))
    out.backward(agk.tensor(u))
    # <u, J v> by central differences along a random direction v, against <J^T u, v>
    v = data.draw(arrays(pair[0]))
    eps = 1e-6
    numeric = np.sum(u * ((x0 + eps * v) * y0 - (x0 - eps * v) * y0)) / (2 * eps)
    np.testing.assert_allclose(np.sum(x.grad.numpy() * v), numeric, rtol=1e-6, atol=1e-6)


@given(shape=shapes, data=st.data())
def test_exp_log_roundtrip_gradient_is_one(shape, data):
    x = agk.tensor(data.draw(arrays(shape, 0.1, 3.0)), requires_grad=True)
    x.exp().log().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(shape), rtol=1e-9)
