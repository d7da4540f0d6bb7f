"""Hypothesis strategies: shapes, broadcastable shape pairs, arrays inside an op's domain."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)


@st.composite
def broadcastable_pair(draw):
    """Two shapes that broadcast together (either side may have fewer dims or 1s)."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    other = [s if draw(st.booleans()) else 1 for s in shape]
    other = other[draw(st.integers(0, len(other) - 1)) :]
    return (shape, tuple(other)) if draw(st.booleans()) else (tuple(other), shape)


def arrays(shape, low=-2.0, high=2.0):
    return hnp.arrays(np.float64, shape, elements=st.floats(low, high, allow_nan=False))
