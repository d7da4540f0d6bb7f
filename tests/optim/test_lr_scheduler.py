"""Learning-rate schedulers: the lr sequence each produces, state_dict, the call-order warning."""

from __future__ import annotations

import pytest

import autogradkit as agk
from autogradkit import optim
from autogradkit.optim import lr_scheduler


def _opt(lr=0.1):
    return optim.SGD([agk.zeros(1, requires_grad=True)], lr=lr)


def _run(opt, sched, epochs):
    lrs = []
    for _ in range(epochs):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    return lrs


def test_step_lr():
    opt = _opt()
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    assert sched.get_last_lr() == [0.1]
    assert _run(opt, sched, 5) == pytest.approx([0.1, 0.05, 0.05, 0.025, 0.025])
    assert opt.param_groups[0]["lr"] == pytest.approx(0.025)
    assert opt.param_groups[0]["initial_lr"] == 0.1 and sched.last_epoch == 5


def test_exponential_lr():
    opt = _opt()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    assert _run(opt, sched, 3) == pytest.approx([0.09, 0.081, 0.0729])


def test_lambda_lr_per_group():
    a, b = agk.zeros(1, requires_grad=True), agk.zeros(1, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    sched = lr_scheduler.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.5**e])
    opt.step()
    sched.step()
    assert sched.get_last_lr() == pytest.approx([0.05, 0.5])
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0])


def test_state_dict_round_trip():
    opt = _opt()
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    _run(opt, sched, 3)
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3 and sd["_step_count"] == 4
    other = lr_scheduler.StepLR(_opt(), step_size=9)
    other.load_state_dict(sd)
    assert other.step_size == 2 and other.get_last_lr() == sched.get_last_lr()
    lam = lr_scheduler.LambdaLR(_opt(), lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None]


def test_stepping_the_scheduler_first_warns():
    opt = _opt()
    sched = lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(
        UserWarning,
        match=r"Detected call of `lr_scheduler.step\(\)` before "
        r"`optimizer.step\(\)`",
    ):
        sched.step()
