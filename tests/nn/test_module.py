"""nn.Module bookkeeping: registration, traversal, modes, state_dict, dtype, printing."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


# ----- registration ---------------------------------------------------------------------------
def test_assigning_a_parameter_registers_it():
    m = nn.Module()
    p = nn.Parameter(agk.ones(2))
    m.w = p
    assert m._parameters == {"w": p} and m.w is p and "w" not in m.__dict__


def test_assigning_a_module_registers_it_as_a_child():
    m = nn.Module()
    child = nn.ReLU()
    m.child = child
    assert m._modules == {"child": child} and m.child is child


def test_plain_attributes_stay_plain():
    m = nn.Module()
    m.count = 3
    assert m.count == 3 and "count" in m.__dict__ and not m._parameters


def test_reassigning_a_name_moves_it_between_kinds():
    m = nn.Module()
    m.x = nn.ReLU()
    m.x = nn.Parameter(agk.ones(1))
    assert "x" in m._parameters and "x" not in m._modules


def test_a_parameter_slot_accepts_only_parameters_or_none():
    lin = nn.Linear(2, 2)
    with pytest.raises(
        TypeError,
        match=r"cannot assign 'autogradkit.FloatTensor' as parameter "
        r"'weight' \(autogradkit.nn.Parameter or None expected\)",
    ):
        lin.weight = agk.ones(2, 2)
    lin.weight = None
    assert lin.weight is None and list(dict(lin.named_parameters())) == ["bias"]


def test_getattr_raises_attribute_error_with_pytorchs_text():
    with pytest.raises(AttributeError, match=r"^'Linear' object has no attribute 'foo'$"):
        _ = nn.Linear(2, 2).foo
    assert not hasattr(nn.Linear(2, 2), "foo")


@pytest.mark.parametrize(
    "name, error, text",
    [
        ("a.b", KeyError, 'parameter name can\'t contain "."'),
        ("", KeyError, 'parameter name can\'t be empty string ""'),
        (1, TypeError, "parameter name should be a string. Got int"),
        ("training", KeyError, "attribute 'training' already exists"),
    ],
)
def test_register_parameter_rejects_bad_names(name, error, text):
    with pytest.raises(error) as info:
        nn.Linear(2, 2).register_parameter(name, None)
    assert info.value.args[0] == text


def test_register_parameter_rejects_plain_tensors_and_non_leaves():
    m = nn.Module()
    with pytest.raises(
        TypeError, match="cannot assign 'autogradkit.FloatTensor' object to parameter 'x'"
    ):
        m.register_parameter("x", agk.ones(2))
    a = agk.ones(2, requires_grad=True)
    fake = nn.Parameter(agk.ones(2))
    fake._grad_fn = (a * 2).grad_fn  # a non-leaf that is a Parameter
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'x'"):
        m.register_parameter("x", fake)


def test_register_before_init_is_an_error():
    class Forgot(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(agk.ones(1))

    with pytest.raises(
        AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"
    ):
        Forgot()


def test_register_buffer_and_persistence():
    m = nn.Module()
    m.register_buffer("mean", agk.zeros(2))
    m.register_buffer("scratch", agk.ones(1), persistent=False)
    assert [n for n, _ in m.named_buffers()] == ["mean", "scratch"]
    assert list(m.state_dict()) == ["mean"]
    with pytest.raises(TypeError, match="cannot assign 'int' object to buffer 'y'"):
        m.register_buffer("y", 3)
    m.mean = agk.ones(2)  # assigning a tensor to a buffer name replaces the buffer
    assert m._buffers["mean"].tolist() == [1.0, 1.0]


def test_add_module_checks():
    m = nn.Linear(1, 1)
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        m.add_module("c", 3)
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.add_module("weight", nn.ReLU())
    with pytest.raises(KeyError) as info:
        m.add_module("a.b", nn.ReLU())
    assert info.value.args[0] == 'module name can\'t contain ".", got: a.b'


def test_delattr_removes_from_the_right_dict():
    m = Net()
    del m.fc1
    assert "fc1" not in m._modules
    with pytest.raises(AttributeError):
        _ = m.fc1


def test_dir_lists_parameters_and_children():
    names = dir(Net())
    assert {"fc1", "fc2", "act", "forward", "parameters"} <= set(names)


def test_forward_missing_is_pytorchs_error():
    with pytest.raises(
        NotImplementedError,
        match=r"Module \[Module\] is missing the required "
        r'"forward" function',
    ):
        nn.Module()(agk.ones(1))


# ----- traversal --------------------------------------------------------------------------------
def test_named_parameters_follow_registration_order_with_dotted_names():
    assert [n for n, _ in Net().named_parameters()] == [
        "fc1.weight",
        "fc1.bias",
        "fc2.weight",
        "fc2.bias",
    ]


def test_shared_parameters_and_modules_appear_once():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    both = [n for n, _ in seq.named_parameters(remove_duplicate=False)]
    assert both == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_state_dict_keeps_shared_modules_under_every_name_as_pytorch():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_children_and_modules_orders():
    net = nn.Sequential(nn.Sequential(nn.Linear(1, 1), nn.ReLU()), nn.Tanh())
    assert [type(m).__name__ for m in net.children()] == ["Sequential", "Tanh"]
    assert [n for n, _ in net.named_modules()] == ["", "0", "0.0", "0.1", "1"]
    assert [n for n, _ in net.named_children()] == ["0", "1"]


def test_parameters_without_recursion():
    net = Net()
    net.own = nn.Parameter(agk.zeros(1))
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["own"]


def test_apply_visits_children_before_parents():
    net = nn.Sequential(nn.Sequential(nn.Linear(1, 1)), nn.Tanh())
    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "Sequential", "Tanh", "Sequential"]


def test_deep_nesting_traverses_without_recursion_limits():
    net = nn.Linear(1, 1)
    for _ in range(3000):
        net = nn.Sequential(net)
    assert len(list(net.parameters())) == 2
    assert len(net.state_dict()) == 2


# ----- modes and gradients --------------------------------------------------------------------
def test_train_and_eval_set_the_flag_everywhere():
    net = Net()
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")


def test_zero_grad_sets_none_or_zeros():
    net = Net()
    net(agk.ones(4, 2)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_requires_grad_switches_every_parameter():
    net = Net().requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    out = net(agk.ones(1, 2))
    assert out.grad_fn is None


def test_parameters_require_grad_by_default():
    assert all(p.requires_grad and p.is_leaf for p in Net().parameters())


# ----- state_dict -------------------------------------------------------------------------------
def test_state_dict_is_detached_and_shares_memory():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert not sd["fc1.weight"].requires_grad
    with agk.no_grad():
        net.fc1.weight.fill_(3.0)
    assert sd["fc1.weight"].tolist() == [[3.0, 3.0]] * 3
    assert net.state_dict(keep_vars=True)["fc1.weight"] is net.fc1.weight


def test_load_state_dict_copies_in_place():
    src, dst = Net(), Net()
    weight = dst.fc1.weight
    result = dst.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert dst.fc1.weight is weight and weight._version == 2  # init wrote once, load once
    np.testing.assert_array_equal(weight.detach().numpy(), src.fc1.weight.detach().numpy())


def test_load_state_dict_reports_missing_and_unexpected_keys():
    lin = nn.Linear(2, 2)
    bad = {"weight": agk.zeros(2, 2), "foo": agk.ones(1)}
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict(bad)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
        '\n\tUnexpected key(s) in state_dict: "foo". '
    )
    result = lin.load_state_dict(bad, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["foo"]
    assert lin.weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_load_state_dict_size_mismatch():
    lin = nn.Linear(2, 2)
    with pytest.raises(
        RuntimeError,
        match=r"size mismatch for weight: copying a param with "
        r"shape autogradkit.Size\(\[3, 2\]\) from checkpoint, the shape in "
        r"current model is autogradkit.Size\(\[2, 2\]\).",
    ):
        lin.load_state_dict({"weight": agk.zeros(3, 2), "bias": agk.zeros(2)})


def test_deepcopy_gives_independent_parameters():
    net = Net()
    twin = copy.deepcopy(net)
    assert isinstance(twin.fc1.weight, nn.Parameter) and twin.fc1.weight is not net.fc1.weight
    with agk.no_grad():
        twin.fc1.weight.fill_(0.0)
    assert net.fc1.weight.abs().sum().item() > 0


# ----- dtype and device -------------------------------------------------------------------------
def test_double_converts_in_place_and_keeps_parameter_objects():
    net = Net()
    weight = net.fc1.weight
    assert net.double() is net
    assert net.fc1.weight is weight and weight.dtype == agk.float64
    assert net(agk.ones(1, 2, dtype=agk.float64)).dtype == agk.float64
    net.to(agk.float32)
    assert weight.dtype == agk.float32


def test_to_rejects_integer_dtypes_and_other_devices():
    with pytest.raises(
        TypeError,
        match="nn.Module.to only accepts floating point or complex "
        "dtypes, but got desired dtype=autogradkit.int64",
    ):
        Net().to(agk.int64)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        Net().to("cuda")
    net = Net()
    assert net.to("cpu") is net and net.cpu() is net


# ----- printing ---------------------------------------------------------------------------------
def test_repr_prints_the_module_tree():
    assert repr(Net()) == (
        "Net(\n"
        "  (fc1): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (act): ReLU()\n"
        "  (fc2): Linear(in_features=3, out_features=1, bias=True)\n"
        ")"
    )


def test_repr_with_multi_line_extra_repr_and_children():
    class Custom(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.Tanh())

        def extra_repr(self):
            return "a=1\nb=2"

    assert repr(Custom()) == (
        "Custom(\n  a=1\n  b=2\n  (inner): Sequential(\n    (0): Tanh()\n  )\n)"
    )


def test_parameter_repr_and_leafness():
    t = agk.ones(2, requires_grad=True) * 2
    p = nn.Parameter(t)
    assert repr(p) == "Parameter containing:\ntensor([2., 2.], requires_grad=True)"
    assert p.is_leaf and p.grad_fn is None
    assert repr(nn.Parameter(agk.ones(1), requires_grad=False)) == (
        "Parameter containing:\ntensor([1.])"
    )
    assert repr(nn.Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"
    assert type(p * 2) is agk.Tensor and type(p.detach()) is agk.Tensor


def test_parameter_shares_memory_and_version_with_its_source():
    t = agk.ones(2)
    p = nn.Parameter(t)
    t.add_(1)
    assert p.tolist() == [2.0, 2.0] and p._version == 1


def test_integer_parameter_cannot_require_grad():
    with pytest.raises(
        RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"
    ):
        nn.Parameter(agk.tensor([1, 2]))
    assert nn.Parameter(agk.tensor([1, 2]), requires_grad=False).dtype == agk.int64
