"""The one-weight model ``y_hat = w * x`` from the backpropagation lesson, trained two ways.

``train_by_hand`` writes the gradient out in NumPy, ``dloss/dw = mean(2 * x * (y_hat - y))``;
``train_with_autograd`` lets ``backward()`` find it. Both return the same per-epoch table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import autogradkit as agk
from autogradkit._i18n import here
from autogradkit.nn import MSELoss
from autogradkit.optim import SGD

from .draw import new_figure

__all__ = [
    "Epoch",
    "dataset",
    "train_by_hand",
    "train_with_autograd",
    "max_difference",
    "training_figure",
]


@dataclass(frozen=True)
class Epoch:
    """One row of the training table: the loss and gradient at the start of the epoch,
    and ``w`` after the update."""

    epoch: int
    loss: float
    w: float
    dw: float

    def __str__(self) -> str:
        return f"epoch: {self.epoch}, loss: {self.loss:.8f}, w: {self.w:.3f}, dw: {self.dw:.3f}"


def dataset(size: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``x = 2, 4, ..., 2 * size`` and targets ``y = 2 * x`` (float32): the lesson's data.

    With four points the table's ``dw`` and ``w`` columns match the article's printed run
    (-120, 1.200, 1.680, ... 2.000), but its loss column (30, 4.8, ...) is a quarter of this
    mean loss: that run used x = 1, 2, 3, 4 with a summed gradient, which moves ``w`` the same.

    Example:
        >>> dataset(4)
        (array([2., 4., 6., 8.], dtype=float32), array([ 4.,  8., 12., 16.], dtype=float32))
    """
    x = np.arange(1, size + 1, dtype=np.float32) * 2
    return x, 2 * x


def train_by_hand(x, y, w: float = 0.0, lr: float = 0.01, epochs: int = 10) -> list[Epoch]:
    """Gradient descent on ``mean((w * x - y) ** 2)`` with the derivative written out.

    Example:
        >>> rows = train_by_hand(*dataset(1))
        >>> print(rows[0]); print(rows[-1])
        epoch: 1, loss: 16.00000000, w: 0.160, dw: -16.000
        epoch: 10, loss: 3.56698155, w: 1.131, dw: -7.555
    """
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    w, lr32 = np.float32(w), np.float32(lr)
    rows = []
    for epoch in range(1, epochs + 1):
        y_hat = w * x  # forward pass
        loss = ((y_hat - y) ** 2).mean()
        dw = (2 * x * (y_hat - y)).mean()  # chain rule: 2s * 1 * x, averaged over the data
        w = w - lr32 * dw  # update
        rows.append(Epoch(epoch, float(loss), float(w), float(dw)))
    return rows


def train_with_autograd(x, y, w: float = 0.0, lr: float = 0.01, epochs: int = 10):
    """The same loop with autograd: ``(rows, how)``, where ``how`` says which tools ran.

    It uses ``nn.MSELoss`` and ``optim.SGD`` when the kit has them, and otherwise the plain
    autograd loop they stand for (``backward()``, ``w -= lr * w.grad`` under ``no_grad``).

    Example:
        >>> rows, how = train_with_autograd(*dataset(1), epochs=1)
        >>> print(rows[0])
        epoch: 1, loss: 16.00000000, w: 0.160, dw: -16.000
    """
    xt, yt = agk.tensor(x, dtype=agk.float32), agk.tensor(y, dtype=agk.float32)
    wt = agk.tensor(float(w), requires_grad=True)
    loss_fn, step, how = _tools(wt, lr)
    rows = []
    for epoch in range(1, epochs + 1):
        loss = loss_fn(wt * xt, yt)
        loss.backward()
        dw = wt.grad.item()
        step()
        rows.append(Epoch(epoch, loss.item(), wt.item(), dw))
    return rows, how


def _tools(w, lr: float):
    """(loss function, update-and-zero step, description) for ``train_with_autograd``."""
    optimizer = SGD([w], lr=lr)

    def sgd_step():
        optimizer.step()
        optimizer.zero_grad()

    return MSELoss(), sgd_step, "nn.MSELoss + optim.SGD"


def max_difference(a: list[Epoch], b: list[Epoch]) -> float:
    """The largest difference in ``w``, ``loss`` or ``dw`` between two tables."""
    pairs = list(zip(a, b, strict=True))
    diffs = [abs(p.w - q.w) for p, q in pairs] + [abs(p.dw - q.dw) for p, q in pairs]
    diffs += [abs(p.loss - q.loss) for p, q in pairs]
    return max(diffs, default=0.0)


def training_figure(rows: list[Epoch], w0: float = 0.0, title: str = ""):
    """Loss per epoch (log scale when it spans decades) and the path of ``w`` from ``w0``
    towards the answer 2."""
    tr = here()
    fig = new_figure(figsize=(8, 3), dpi=80)
    loss_ax, w_ax = fig.subplots(1, 2)
    epochs = [r.epoch for r in rows]
    losses = [r.loss for r in rows]
    loss_ax.plot(epochs, losses, "o-", color="#3e6db3", markersize=3)
    finite = np.isfinite(losses).all()
    if losses and finite and min(losses) > 0 and max(losses) >= 100 * min(losses):
        loss_ax.set_yscale("log")  # a loss that falls (or grows) by decades
    loss_ax.set(xlabel=tr("epoch"), ylabel=tr("loss"), title=tr("loss"))
    w_ax.plot([0, *epochs], [w0, *[r.w for r in rows]], "o-", color="#e65100", markersize=3)
    w_ax.axhline(2.0, color="#4e8a4a", linestyle="--", label=tr("w = 2 (the answer)"))
    w_ax.set(xlabel=tr("epoch"), ylabel="w", title=tr("w after each update"))
    w_ax.legend(loc="best", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.16, top=0.8, wspace=0.32)  # fixed:
    return fig  # tight_layout would measure every label again on each slider move
