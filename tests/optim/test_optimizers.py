"""Optimizers: each pure update rule against its pseudocode computed by hand, the classes'
bookkeeping (groups, state, zero_grad, state_dict, versions) and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import optim
from autogradkit.optim import adagrad_update, adam_update, rmsprop_update, sgd_update

F32 = np.float32


def _arr(*values):
    return np.array(values, F32)


# ----- the pure update rules ----------------------------------------------------------------
def test_plain_sgd_is_p_minus_lr_g():
    p = _arr(1.0, 2.0)
    assert sgd_update(p, _arr(10.0, -10.0), None, lr=0.1) is None
    np.testing.assert_allclose(p, [0.0, 3.0], atol=1e-7)  # float32(0.1) * 10 is not exactly 1


def test_sgd_rounds_once_like_pytorchs_fused_add():
    p = _arr(0.16)
    sgd_update(p, _arr(-14.72), None, lr=0.01)
    assert p[0] == np.float32(0.30719998478889465)  # two roundings would give 0.30720001


def test_sgd_momentum_dampening_weight_decay_over_two_steps():
    p, g1, g2 = _arr(1.0), _arr(2.0), _arr(4.0)
    buf = sgd_update(p, g1, None, lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1)
    d1 = 2.0 + 0.1 * 1.0  # the first buffer is the gradient itself (no dampening)
    np.testing.assert_allclose(buf, [d1])
    np.testing.assert_allclose(p, [1.0 - 0.1 * d1], rtol=1e-6)
    p1 = p[0]
    sgd_update(p, g2, buf, lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1)
    d2 = 4.0 + 0.1 * p1
    np.testing.assert_allclose(buf, [0.9 * d1 + 0.5 * d2], rtol=1e-6)
    np.testing.assert_allclose(p, [p1 - 0.1 * (0.9 * d1 + 0.5 * d2)], rtol=1e-6)


def test_sgd_nesterov_and_maximize():
    p = _arr(0.0)
    buf = sgd_update(p, _arr(1.0), None, lr=0.1, momentum=0.5, nesterov=True)
    np.testing.assert_allclose(p, [-0.1 * (1.0 + 0.5 * 1.0)])
    q = _arr(0.0)
    sgd_update(q, _arr(1.0), None, lr=0.1, maximize=True)
    np.testing.assert_allclose(q, [0.1])
    assert buf is not None


def test_adam_two_steps_by_hand():
    p, m, v = _arr(1.0), _arr(0.0), _arr(0.0)
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    expected_p, em, ev = 1.0, 0.0, 0.0
    for step, g in enumerate((3.0, -1.0), start=1):
        adam_update(p, _arr(g), m, v, step, lr=lr, beta1=b1, beta2=b2, eps=eps)
        em, ev = b1 * em + (1 - b1) * g, b2 * ev + (1 - b2) * g * g
        m_hat, v_hat = em / (1 - b1**step), ev / (1 - b2**step)
        expected_p -= lr * m_hat / (math.sqrt(v_hat) + eps)
        np.testing.assert_allclose([m[0], v[0], p[0]], [em, ev, expected_p], rtol=1e-5)


def test_adam_weight_decay_coupled_vs_decoupled():
    g = _arr(0.5)
    coupled = _arr(2.0)
    adam_update(
        coupled,
        g,
        _arr(0.0),
        _arr(0.0),
        1,
        lr=0.1,
        beta1=0.9,
        beta2=0.999,
        eps=0.0,
        weight_decay=0.5,
    )
    np.testing.assert_allclose(coupled, [2.0 - 0.1], rtol=1e-6)  # the first step is lr * sign
    decoupled = _arr(2.0)
    adam_update(
        decoupled,
        g,
        _arr(0.0),
        _arr(0.0),
        1,
        lr=0.1,
        beta1=0.9,
        beta2=0.999,
        eps=0.0,
        weight_decay=0.5,
        decoupled_weight_decay=True,
    )
    np.testing.assert_allclose(decoupled, [2.0 * (1 - 0.1 * 0.5) - 0.1], rtol=1e-6)


def test_adam_amsgrad_keeps_the_largest_second_moment():
    p, m, v, v_max = _arr(0.0), _arr(0.0), _arr(0.0), _arr(0.0)
    for step, g in enumerate((10.0, 0.1), start=1):
        adam_update(
            p,
            _arr(g),
            m,
            v,
            step,
            lr=0.1,
            beta1=0.9,
            beta2=0.9,
            eps=1e-8,
            amsgrad=True,
            v_max=v_max,
        )
    assert v_max[0] == pytest.approx(10.0, rel=1e-5) and v[0] < v_max[0]


def test_rmsprop_by_hand_plain_centered_momentum():
    p, sq = _arr(1.0), _arr(0.0)
    rmsprop_update(p, _arr(2.0), sq, lr=0.01, alpha=0.9, eps=1e-8)
    np.testing.assert_allclose(sq, [0.1 * 4.0])
    np.testing.assert_allclose(p, [1.0 - 0.01 * 2.0 / (math.sqrt(0.4) + 1e-8)], rtol=1e-6)
    p, sq, ga, buf = _arr(1.0), _arr(0.0), _arr(0.0), _arr(0.0)
    rmsprop_update(
        p,
        _arr(2.0),
        sq,
        lr=0.01,
        alpha=0.9,
        eps=1e-8,
        centered=True,
        grad_avg=ga,
        momentum=0.5,
        buf=buf,
    )
    avg = math.sqrt(0.4 - 0.2**2) + 1e-8
    np.testing.assert_allclose(buf, [2.0 / avg], rtol=1e-6)
    np.testing.assert_allclose(p, [1.0 - 0.01 * 2.0 / avg], rtol=1e-6)


def test_adagrad_by_hand_with_lr_decay():
    p, s = _arr(1.0), _arr(0.5)
    adagrad_update(p, _arr(2.0), s, 1, lr=0.1, lr_decay=0.5)
    np.testing.assert_allclose(s, [4.5])
    np.testing.assert_allclose(p, [1.0 - 0.1 * 2.0 / (math.sqrt(4.5) + 1e-10)], rtol=1e-6)
    before = p[0]
    adagrad_update(p, _arr(1.0), s, 2, lr=0.1, lr_decay=0.5)
    np.testing.assert_allclose(p, [before - 0.1 / 1.5 * 1.0 / math.sqrt(5.5)], rtol=1e-6)


# ----- the classes ------------------------------------------------------------------------------
ALL = [
    (optim.SGD, dict(lr=0.1, momentum=0.9)),
    (optim.Adam, dict(lr=0.1)),
    (optim.AdamW, dict(lr=0.1)),
    (optim.RMSprop, dict(lr=0.1, momentum=0.5, centered=True)),
    (optim.Adagrad, dict(lr=0.1)),
]


def _quadratic_step(cls, kwargs, steps=1):
    w = agk.tensor([1.0, -2.0], requires_grad=True)
    opt = cls([w], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w, opt


@pytest.mark.parametrize("cls, kwargs", ALL, ids=lambda x: getattr(x, "__name__", ""))
def test_step_updates_in_place_without_recording(cls, kwargs):
    w = agk.tensor([1.0, -2.0], requires_grad=True)
    data = w._data
    opt = cls([w], **kwargs)
    (w * w).sum().backward()
    opt.step()
    assert w._data is data and w.is_leaf and w.grad_fn is None and w.requires_grad
    assert w._version == (2 if cls is optim.AdamW else 1)  # AdamW decays, then steps
    assert not np.allclose(w.detach().numpy(), [1.0, -2.0])


@pytest.mark.parametrize("cls, kwargs", ALL, ids=lambda x: getattr(x, "__name__", ""))
def test_every_optimizer_descends_a_quadratic(cls, kwargs):
    w, _ = _quadratic_step(cls, kwargs, steps=100)
    assert (w * w).sum().item() < 0.5


def test_parameters_without_grad_are_skipped():
    a = agk.tensor([1.0], requires_grad=True)
    b = agk.tensor([1.0], requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    opt.step()
    assert b.tolist() == [1.0] and b not in opt.state and "exp_avg" in opt.state[a]


def test_zero_grad_none_or_zeros():
    w, opt = _quadratic_step(optim.SGD, dict(lr=0.1))
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_param_groups_get_defaults_and_their_own_options():
    a, b = agk.zeros(1, requires_grad=True), agk.zeros(1, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["momentum"] == 0.9
    c = agk.zeros(1, requires_grad=True)
    opt.add_param_group({"params": [c], "lr": 0.01})
    assert len(opt.param_groups) == 3
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})


@pytest.mark.parametrize(
    "make, error, text",
    [
        (lambda w: optim.SGD(w, lr=-1), ValueError, "Invalid learning rate: -1"),
        (lambda w: optim.SGD(w, lr=0.1, momentum=-1), ValueError, "Invalid momentum value: -1"),
        (
            lambda w: optim.SGD(w, lr=0.1, weight_decay=-1),
            ValueError,
            "Invalid weight_decay value: -1",
        ),
        (
            lambda w: optim.SGD(w, lr=0.1, nesterov=True),
            ValueError,
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (lambda w: optim.Adam(w, eps=-1), ValueError, "Invalid epsilon value: -1"),
        (
            lambda w: optim.Adam(w, betas=(1.0, 0.9)),
            ValueError,
            "Invalid beta parameter at index 0: 1.0",
        ),
        (
            lambda w: optim.AdamW(w, betas=(0.9, -0.1)),
            ValueError,
            "Invalid beta parameter at index 1: -0.1",
        ),
        (lambda w: optim.RMSprop(w, alpha=-1), ValueError, "Invalid alpha value: -1"),
        (lambda w: optim.Adagrad(w, lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
        (
            lambda w: optim.Adagrad(w, initial_accumulator_value=-1),
            ValueError,
            "Invalid initial_accumulator_value value: -1",
        ),
        (lambda w: optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
        (
            lambda w: optim.SGD(w[0], lr=0.1),
            TypeError,
            "params argument given to the optimizer "
            "should be an iterable of Tensors or dicts, but got autogradkit.FloatTensor",
        ),
        (
            lambda w: optim.SGD([1.0], lr=0.1),
            TypeError,
            "optimizer can only optimize Tensors, but one of the params is float",
        ),
        (lambda w: optim.SGD([w[0] * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
    ],
)
def test_constructor_errors(make, error, text):
    with pytest.raises(error, match=text):
        make([agk.zeros(1, requires_grad=True)])


def test_duplicate_parameters_warn():
    w = agk.zeros(1, requires_grad=True)
    with pytest.warns(
        UserWarning, match="optimizer contains a parameter group with duplicate parameters"
    ):
        optim.SGD([w, w], lr=0.1)


def test_closure_is_evaluated_with_grad_enabled_and_returned():
    w = agk.tensor([3.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with agk.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 9.0 and w.tolist() == pytest.approx([3.0 - 0.1 * 6.0])


def test_adagrad_state_exists_before_the_first_step():
    w = agk.zeros(2, requires_grad=True)
    opt = optim.Adagrad([w], initial_accumulator_value=0.3)
    assert opt.state[w]["step"].item() == 0.0 and opt.state[w]["sum"].tolist() == pytest.approx(
        [0.3, 0.3]
    )


def test_state_dict_round_trip_continues_identically():
    w1, opt1 = _quadratic_step(optim.Adam, dict(lr=0.1), steps=3)
    sd = opt1.state_dict()
    assert list(sd) == ["state", "param_groups"] and sd["param_groups"][0]["params"] == [0]
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    assert sd["state"][0]["step"].item() == 3.0
    w2 = agk.tensor(w1.tolist(), requires_grad=True)
    opt2 = optim.Adam([w2], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1 and opt2.param_groups[0]["params"][0] is w2
    assert opt2.state[w2]["exp_avg"] is not opt1.state[w1]["exp_avg"]
    for w, opt in ((w1, opt1), (w2, opt2)):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    assert w1.tolist() == w2.tolist()


def test_load_state_dict_checks_group_sizes():
    _, opt = _quadratic_step(optim.SGD, dict(lr=0.1))
    other = optim.SGD([agk.zeros(1, requires_grad=True), agk.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(
        ValueError,
        match="loaded state dict contains a parameter group that "
        "doesn't match the size of optimizer's group",
    ):
        other.load_state_dict(opt.state_dict())


def test_sgd_momentum_buffer_appears_only_with_momentum():
    _, plain = _quadratic_step(optim.SGD, dict(lr=0.1))
    assert dict(plain.state) == {}
    w, heavy = _quadratic_step(optim.SGD, dict(lr=0.1, momentum=0.9))
    assert list(heavy.state[w]) == ["momentum_buffer"]


def test_repr_lists_group_options_sorted():
    opt = optim.Adam([agk.zeros(1, requires_grad=True)], lr=0.01)
    assert repr(opt) == (
        "Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n"
        "    capturable: False\n    decoupled_weight_decay: False\n    differentiable: False\n"
        "    eps: 1e-08\n    foreach: None\n    fused: None\n    lr: 0.01\n"
        "    maximize: False\n    weight_decay: 0\n)"
    )
