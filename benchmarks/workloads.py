"""The workloads W1-W5, each written three times: autogradkit, PyTorch, and NumPy by hand
(no graph at all: the floor any autograd on NumPy pays on top of)."""

from __future__ import annotations

import numpy as np

# ----- W1: the articles' one-weight loop ------------------------------------------------------
X1 = [2.0, 4.0, 6.0, 8.0]


def w1_library(lib, epochs: int = 100):
    """y_hat = w * x, MSE, SGD lr 0.01: what the articles train (autogradkit or torch)."""
    x, y = lib.tensor(X1), lib.tensor([2 * v for v in X1])
    w = lib.tensor(0.0, requires_grad=True)
    loss_fn, opt = lib.nn.MSELoss(), lib.optim.SGD([w], lr=0.01)
    for _ in range(epochs):
        loss = loss_fn(w * x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(w.item())


def w1_numpy(epochs: int = 100):
    x = np.array(X1, dtype=np.float32)
    y, w = 2 * x, np.float32(0.0)
    for _ in range(epochs):
        s = w * x - y
        _ = np.mean(s * s)
        w -= np.float32(0.01) * np.mean(2 * s * x)
    return float(w)


# ----- W2 and W4: chains of tiny ops -----------------------------------------------------------
def chain_library(lib, n: int, size: int = 4):
    """n alternating add/mul ops; returns (forward seconds, backward seconds)."""
    import time

    x = lib.tensor([1.0] * size, requires_grad=True)
    c = lib.tensor([1.0000001] * size)
    start = time.perf_counter()
    y = x
    for i in range(n):
        y = y + c if i % 2 == 0 else y * c
    mid = time.perf_counter()
    y.sum().backward()
    return mid - start, time.perf_counter() - mid


def chain_numpy(n: int, size: int = 4):
    """The same chain by hand: forward keeps what backward needs, backward multiplies."""
    import time

    x, c = np.ones(size), np.full(size, 1.0000001)
    start = time.perf_counter()
    y, saved = x, []
    for i in range(n):
        if i % 2 == 0:
            y = y + c
        else:
            saved.append(c)
            y = y * c
    mid = time.perf_counter()
    g = np.ones(size)
    for factor in reversed(saved):
        g = g * factor
    return mid - start, time.perf_counter() - mid


# ----- W3: MLP training -------------------------------------------------------------------------
def mlp_data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    w1 = (rng.standard_normal((256, 64)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((10, 256)) * 0.1).astype(np.float32)
    return x, y, w1, np.zeros(256, np.float32), w2, np.zeros(10, np.float32)


def w3_library(lib, steps: int = 200):
    x, y, w1, b1, w2, b2 = mlp_data()
    model = lib.nn.Sequential(lib.nn.Linear(64, 256), lib.nn.ReLU(), lib.nn.Linear(256, 10))
    with lib.no_grad():
        for p, v in zip(model.parameters(), (w1, b1, w2, b2)):
            p.copy_(lib.tensor(v))
    xs, ys = lib.tensor(x), lib.tensor(y)
    opt, loss_fn = lib.optim.SGD(model.parameters(), lr=0.1), lib.nn.CrossEntropyLoss()
    for _ in range(steps):
        loss = loss_fn(model(xs), ys)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(loss.item())


def w3_numpy(steps: int = 200):
    x, y, w1, b1, w2, b2 = mlp_data()
    onehot = np.eye(10, dtype=np.float32)[y]
    for _ in range(steps):
        h = x @ w1.T + b1
        a = np.maximum(h, 0)
        z = a @ w2.T + b2
        z = z - z.max(1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
        loss = -np.mean(np.log(p[np.arange(128), y]))
        dz = (p - onehot) / 128
        dw2, db2, da = dz.T @ a, dz.sum(0), dz @ w2
        dh = da * (h > 0)
        dw1, db1 = dh.T @ x, dh.sum(0)
        for param, grad in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2)):
            param -= 0.1 * grad
    return float(loss)


# ----- W5: memory of a deep MLP forward ------------------------------------------------------
def deep_weights(layers: int = 20, width: int = 512, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [
        (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
        for _ in range(layers)
    ]


def w5_inputs(batch: int = 256):
    return np.random.default_rng(1).standard_normal((batch, 512)).astype(np.float32)


def w5_library(lib, weights, x, grad: bool = True):
    """Weights and input wrap the same arrays as the floor's (from_numpy: no copies)."""
    ws = [lib.from_numpy(w).requires_grad_(grad) for w in weights]
    h = lib.from_numpy(x)
    for w in ws:
        h = (h @ w).relu()
    return h.sum(), ws


def w5_numpy(weights, x):
    h = x
    for w in weights:
        h = np.maximum(h @ w, 0)
    return h.sum()
