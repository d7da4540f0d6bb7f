"""The graphs the tests draw: the articles' examples and a small two-layer network."""

from __future__ import annotations

import autogradkit as agk


def article_000():
    """``c = a * b; e = c * d`` where only a and d require grad (article 000)."""
    a = agk.tensor(2.0, requires_grad=True)
    b = agk.tensor(3.0)
    c = a * b
    d = agk.tensor(4.0, requires_grad=True)
    e = c * d
    return dict(a=a, b=b, c=c, d=d, e=e)


def chain_all_leaves():
    """``e = (a * b) * d`` with all three leaves requiring grad."""
    a, b, d = (agk.tensor(v, requires_grad=True) for v in (2.0, 3.0, 4.0))
    c = a * b
    e = c * d
    return dict(a=a, b=b, c=c, d=d, e=e)


def article_002():
    """``c = a + b; e = c * d`` with a, b, d requiring grad (article 002)."""
    a = agk.tensor(2.0, requires_grad=True)
    b = agk.tensor(3.0, requires_grad=True)
    c = a + b
    d = agk.tensor(4.0, requires_grad=True)
    e = c * d
    return dict(a=a, b=b, c=c, d=d, e=e)


def two_layer():
    """A two-layer network on two samples, with a mean squared error."""
    agk.manual_seed(0)
    x = agk.tensor([[1.0, 2.0], [0.5, -1.0]])
    W1 = agk.randn(3, 2, requires_grad=True)
    b1 = agk.zeros(3, requires_grad=True)
    W2 = agk.randn(1, 3, requires_grad=True)
    b2 = agk.zeros(1, requires_grad=True)
    y = agk.tensor([[1.0], [0.0]])
    h = (x @ W1.T + b1).relu()
    out = h @ W2.T + b2
    loss = ((out - y) ** 2).mean()
    return dict(x=x, W1=W1, b1=b1, W2=W2, b2=b2, y=y, h=h, out=out, loss=loss)


def scalar_mlp(sizes=(3, 8, 8, 1)):
    """A network written with one scalar per weight: a graph of a few hundred nodes."""
    agk.manual_seed(0)
    layers = [
        [
            (
                [agk.randn((), requires_grad=True) for _ in range(n_in)],
                agk.zeros((), requires_grad=True),
            )
            for _ in range(n_out)
        ]
        for n_in, n_out in zip(sizes, sizes[1:], strict=False)
    ]
    h = [agk.tensor(0.1 * (i + 1)) for i in range(sizes[0])]
    for layer in layers:
        h = [sum((w * x for w, x in zip(ws, h, strict=True)), b).tanh() for ws, b in layer]
    return (h[0] - 1.0) ** 2


def chain(n: int):
    """``n`` operations in a row, alternating Mul and Sin."""
    x = agk.tensor(0.5, requires_grad=True)
    y = x
    for i in range(n):
        y = y.sin() if i % 2 else y * 1.0001
    return x, y
