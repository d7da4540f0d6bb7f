"""Layers and containers: Linear's init and recorded graph, activations, Dropout, Flatten,
Sequential / ModuleList / ModuleDict."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import nn
from autogradkit.nn import functional as F

from ..optional import import_or_skip


def _names(node, depth=2):
    """The names of a node and its inputs' nodes, depth levels down."""
    names = [node.name()]
    if depth:
        names.append([None if n is None else _names(n, depth - 1) for n, _ in node.next_functions])
    return names


# ----- Linear -----------------------------------------------------------------------------------
def test_linear_shapes_and_default_init_range():
    lin = nn.Linear(50, 40)
    assert lin.weight.shape == (40, 50) and lin.bias.shape == (40,)
    bound = 1 / math.sqrt(50)  # kaiming_uniform_(a=sqrt(5)) gives U(-1/sqrt(in), 1/sqrt(in))
    w = lin.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01  # the std of U(-b, b) is b / sqrt(3)
    assert np.abs(lin.bias.detach().numpy()).max() <= bound
    assert lin.weight._version == 1  # initialised in place once


def test_linear_init_is_reproducible_from_the_seed():
    agk.manual_seed(3)
    a = nn.Linear(3, 2).weight.tolist()
    agk.manual_seed(3)
    assert nn.Linear(3, 2).weight.tolist() == a


def test_linear_computes_x_w_transpose_plus_b():
    lin = nn.Linear(3, 2)
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    expected = x @ lin.weight.detach().numpy().T + lin.bias.detach().numpy()
    np.testing.assert_allclose(lin(agk.tensor(x)).detach().numpy(), expected, rtol=1e-6)


def test_linear_on_a_matrix_records_addmm_over_bias_input_and_t():
    lin = nn.Linear(3, 2)
    out = lin(agk.ones(4, 3, requires_grad=True))
    assert _names(out.grad_fn, 1) == [
        "AddmmBackward0",
        [
            ["autogradkit::autograd::AccumulateGrad"],
            ["autogradkit::autograd::AccumulateGrad"],
            ["TBackward0"],
        ],
    ]
    assert out.grad_fn.next_functions[0][0].variable is lin.bias


def test_linear_on_a_vector_ends_in_view_over_addmm():
    lin = nn.Linear(4, 1)
    out = lin(agk.ones(4, requires_grad=True))
    assert out.shape == (1,)
    assert _names(out.grad_fn, 2) == [
        "ViewBackward0",
        [
            [
                "AddmmBackward0",
                [["autogradkit::autograd::AccumulateGrad"], ["ViewBackward0"], ["TBackward0"]],
            ]
        ],
    ]


def test_linear_on_three_dims_and_without_bias():
    lin = nn.Linear(3, 2)
    out = lin(agk.ones(5, 4, 3))
    assert out.shape == (5, 4, 2) and out.grad_fn.name() == "ViewBackward0"
    no_bias = nn.Linear(3, 2, bias=False)
    assert no_bias.bias is None and repr(no_bias) == (
        "Linear(in_features=3, out_features=2, bias=False)"
    )
    assert no_bias(agk.ones(4, 3)).grad_fn.name() == "MmBackward0"


def test_linear_gradients_match_the_formula():
    lin = nn.Linear(3, 2).double()
    x = agk.tensor(np.random.default_rng(1).normal(size=(4, 3)), requires_grad=True)
    g = np.random.default_rng(2).normal(size=(4, 2))
    lin(x).backward(agk.tensor(g))
    w = lin.weight.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), g @ w)
    np.testing.assert_allclose(lin.weight.grad.numpy(), g.T @ x.detach().numpy())
    np.testing.assert_allclose(lin.bias.grad.numpy(), g.sum(0))


def test_linear_gradcheck_in_float64():
    lin = nn.Linear(3, 2).double()
    x = agk.tensor(np.random.default_rng(4).normal(size=(2, 3)), requires_grad=True)
    assert agk.autograd.gradcheck(lambda t, w, b: F.linear(t, w, b), (x, lin.weight, lin.bias))
    v = agk.tensor(np.random.default_rng(5).normal(size=3), requires_grad=True)
    assert agk.autograd.gradcheck(lambda t, w, b: F.linear(t, w, b), (v, lin.weight, lin.bias))


def test_linear_shape_error_is_pytorchs():
    with pytest.raises(
        RuntimeError,
        match=r"mat1 and mat2 shapes cannot be multiplied "
        r"\(3x5 and 4x2\)",
    ):
        nn.Linear(4, 2)(agk.ones(3, 5))


# ----- activations -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "module, ref, node",
    [
        (nn.ReLU(), lambda x: np.maximum(x, 0), "ReluBackward0"),
        (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x), "LeakyReluBackward0"),
        (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x)), "SigmoidBackward0"),
        (nn.Tanh(), np.tanh, "TanhBackward0"),
        (
            nn.Softmax(dim=1),
            lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True),
            "SoftmaxBackward0",
        ),
        (
            nn.LogSoftmax(dim=1),
            lambda x: x - np.log(np.exp(x).sum(1, keepdims=True)),
            "LogSoftmaxBackward0",
        ),
    ],
)
def test_activation_values_and_nodes(module, ref, node):
    x = np.random.default_rng(0).normal(size=(3, 4))
    out = module(agk.tensor(x, requires_grad=True))
    np.testing.assert_allclose(out.detach().numpy(), ref(x), rtol=1e-12)
    assert out.grad_fn.name() == node


def test_activations_gradcheck():
    x = agk.tensor(np.random.default_rng(3).normal(size=(2, 3)), requires_grad=True)
    for module in (nn.LeakyReLU(0.3), nn.Softmax(1), nn.LogSoftmax(0), nn.Sigmoid(), nn.Tanh()):
        assert agk.autograd.gradcheck(module, (x,)), module


def test_activation_reprs():
    assert [
        repr(m)
        for m in (
            nn.ReLU(),
            nn.ReLU(inplace=True),
            nn.LeakyReLU(),
            nn.Softmax(),
            nn.LogSoftmax(1),
            nn.Flatten(0),
            nn.Identity(),
            nn.Dropout(),
            nn.Sigmoid(),
            nn.Tanh(),
        )
    ] == [
        "ReLU()",
        "ReLU(inplace=True)",
        "LeakyReLU(negative_slope=0.01)",
        "Softmax(dim=None)",
        "LogSoftmax(dim=1)",
        "Flatten(start_dim=0, end_dim=-1)",
        "Identity()",
        "Dropout(p=0.5, inplace=False)",
        "Sigmoid()",
        "Tanh()",
    ]


def test_softmax_without_dim_warns_and_picks_pytorchs_dim():
    x = agk.tensor([[1.0, 2.0], [3.0, 5.0]])
    with pytest.warns(
        UserWarning,
        match="Implicit dimension choice for softmax has been "
        "deprecated. Change the call to include dim=X as an argument.",
    ):
        out = F.softmax(x)
    np.testing.assert_allclose(out.sum(1).numpy(), [1.0, 1.0], rtol=1e-6)


def test_relu_inplace_changes_the_input():
    x = agk.tensor([-1.0, 2.0])
    assert nn.ReLU(inplace=True)(x) is x and x.tolist() == [0.0, 2.0] and x._version == 1


def test_identity_and_flatten():
    x = agk.ones(2, 3, 4, requires_grad=True)
    assert nn.Identity(54, unused=True)(x) is x
    out = nn.Flatten()(x)
    assert out.shape == (2, 12) and out.grad_fn.name() == "ViewBackward0"
    assert nn.Flatten(0, 1)(x).shape == (6, 4)


# ----- Dropout ----------------------------------------------------------------------------------
def test_dropout_in_training_zeroes_and_rescales():
    drop = nn.Dropout(0.25)
    x = agk.ones(20000, requires_grad=True)
    out = drop(x)
    values = out.detach().numpy()
    assert set(np.unique(values)) == {0.0, np.float32(1 / 0.75)}
    assert abs((values == 0).mean() - 0.25) < 0.02
    assert out.grad_fn.name() == "MulBackward0"
    assert out.grad_fn.next_functions[1] == (None, 0)  # the mask gets no gradient
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the gradient is the mask


def test_dropout_in_eval_passes_the_input_through():
    x = agk.ones(5)
    assert nn.Dropout(0.5).eval()(x) is x
    assert F.dropout(x, 0.5, training=False) is x


def test_dropout_probability_is_checked():
    with pytest.raises(
        ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"
    ):
        nn.Dropout(1.5)
    assert F.dropout(agk.ones(3), 1.0).tolist() == [0.0, 0.0, 0.0]


# ----- containers -------------------------------------------------------------------------------
def test_sequential_runs_in_order_and_indexes():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    x = agk.ones(4, 2)
    assert seq(x).tolist() == seq[2](seq[1](seq[0](x))).tolist()
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    with pytest.raises(TypeError):
        seq["a"]


def test_sequential_slices_keep_names_and_edits_renumber():
    seq = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    tail = seq[1:]
    assert isinstance(tail, nn.Sequential) and list(tail._modules) == ["1", "2"]
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and isinstance(seq[0], nn.Tanh)
    seq.append(nn.ReLU())
    seq.insert(0, nn.Identity())
    assert [type(m).__name__ for m in seq] == ["Identity", "Tanh", "Sigmoid", "ReLU"]
    seq[1] = nn.LeakyReLU()
    assert isinstance(seq[1], nn.LeakyReLU)


def test_sequential_from_an_ordered_dict():
    from collections import OrderedDict

    seq = nn.Sequential(OrderedDict([("hidden", nn.Linear(1, 2)), ("act", nn.ReLU())]))
    assert repr(seq) == (
        "Sequential(\n  (hidden): Linear(in_features=1, out_features=2, bias=True)\n"
        "  (act): ReLU()\n)"
    )
    assert seq.hidden is seq[0]


def test_module_list_registers_its_items():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
    layers.append(nn.ReLU())
    layers += [nn.Tanh()]
    assert len(layers) == 4 and len(list(layers.parameters())) == 4
    assert [n for n, _ in layers.named_parameters()][:2] == ["0.weight", "0.bias"]
    del layers[0]
    assert list(layers._modules) == ["0", "1", "2"]
    layers.insert(1, nn.Sigmoid())
    assert [type(m).__name__ for m in layers] == ["Linear", "Sigmoid", "ReLU", "Tanh"]
    assert isinstance(layers[1:], nn.ModuleList) and len(layers[1:]) == 3


def test_module_list_repr_groups_repeats():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU()])
    assert repr(layers) == (
        "ModuleList(\n  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (3-4): 2 x ReLU()\n)"
    )
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict():
    d = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 1)})
    d["c"] = nn.Tanh()
    assert list(d) == ["a", "b", "c"] and "b" in d and len(d) == 3
    assert [n for n, _ in d.named_parameters()] == ["b.weight", "b.bias"]
    assert isinstance(d.pop("a"), nn.ReLU) and list(d.keys()) == ["b", "c"]
    with pytest.raises(KeyError):
        d["zzz"]


@pytest.mark.parametrize("groups, kernel", [(1, 5), (2, (3, 2))])
def test_conv2d_default_init_follows_pytorchs_distribution(groups, kernel):
    """kaiming_uniform_(a=sqrt(5)) is U(-b, b), b = 1/sqrt(fan_in), fan_in = in/groups * kh * kw;
    the bias is drawn from the same range. Compared with torch's own draws (mean and spread)."""
    torch = import_or_skip("torch")
    agk.manual_seed(0)
    ours = nn.Conv2d(8, 64, kernel, groups=groups)
    theirs = torch.nn.Conv2d(8, 64, kernel, groups=groups)
    kh, kw = ours.kernel_size
    bound = 1 / math.sqrt(8 // groups * kh * kw)
    for mine, reference in ((ours.weight, theirs.weight), (ours.bias, theirs.bias)):
        values, expected = mine.detach().numpy(), reference.detach().numpy()
        assert mine.shape == tuple(reference.shape) and mine.requires_grad
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.9 * bound
        assert abs(values.std() - bound / math.sqrt(3)) < 0.15 * bound
        assert abs(values.std() - expected.std()) < 0.15 * bound
        assert abs(values.mean()) < 0.2 * bound
