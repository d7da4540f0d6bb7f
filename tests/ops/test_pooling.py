"""Max pooling where a window holds nan, and on one image (C, H, W), against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk

from ..optional import import_or_skip


def _pool(lib, x, seed, **options):
    t = lib.tensor(x, requires_grad=True)
    out, indices = lib.nn.functional.max_pool2d(t, return_indices=True, **options)
    upstream = np.random.default_rng(seed).normal(size=tuple(out.shape)).astype(np.float32)
    out.backward(lib.tensor(upstream))  # non-uniform, the same for both libraries
    return out.detach().numpy(), indices.numpy(), t.grad.numpy()


@pytest.mark.parametrize(
    "options",
    [{"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "padding": 1}],
    ids=["2x2", "3x3_padded"],
)
@pytest.mark.parametrize("batch", [(), (2,)], ids=["one_image", "batch"])
def test_a_nan_wins_its_window_as_in_pytorch(options, batch):
    torch = import_or_skip("torch")
    rng = np.random.default_rng(5)
    x = rng.normal(size=batch + (3, 6, 6)).astype(np.float32)
    x[..., 0, 1, 1] = x[..., 0, 0, 0] = x[..., 2, 4, 5] = np.nan  # two in one window
    ours, theirs = _pool(agk, x, 6, **options), _pool(torch, x, 6, **options)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)  # (nan equals nan here)
