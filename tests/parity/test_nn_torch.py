"""nn against PyTorch 2.13: the article's hook examples (T47-T51) print the same text, and
module reprs, state_dict keys, hook arguments, losses and gradients agree.

Snippets run twice through ``harness.run``: once with ``torch`` bound to PyTorch, once to
autogradkit; printed text and warnings must be identical after ``torch.`` -> ``autogradkit.``.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk

from ..optional import import_or_skip
from .harness import run

torch = import_or_skip("torch")

# ----- the article's examples -------------------------------------------------------------------
T48_LINEAR_HOOK = """
nn = torch.nn
class MyMean(nn.Module):
    def forward(self, input):
        return input / 4
def tensor_hook(grad):
    print('tensor hook')
    print('grad:', grad)
    return grad
class MyNet(nn.Module):
    def __init__(self, order):
        super().__init__()
        self.f1 = nn.Linear(4, 1, bias=True)
        self.f2 = MyMean()
        self.order = order
        self.weight_init()
    def forward(self, input):
        self.input = input
        if self.order == 0:
            output = self.f2(self.f1(input))
        elif self.order == 1:
            output = self.f1(self.f2(input))
        else:
            output = self.f1(self.f2(input)) / 4
        return output
    def weight_init(self):
        self.f1.weight.data.fill_(8.0)
        self.f1.bias.data.fill_(2.0)
    def my_hook(self, module, grad_input, grad_output):
        print('doing my_hook')
        print('original grad:', grad_input)
        print('original outgrad:', grad_output)
        return grad_input
for order in range(3):
    print("order", order)
    input = torch.tensor([1, 2, 3, 4], dtype=torch.float32, requires_grad=True).to("cpu")
    net = MyNet(order)
    net.to("cpu")
    net.register_backward_hook(net.my_hook)
    input.register_hook(tensor_hook)
    result = net(input)
    print('result =', result)
    result.backward()
    print('input.grad:', input.grad)
    for param in net.parameters():
        print('{}:grad->{}'.format(param, param.grad))
    print(result.grad_fn, [n for n, _ in result.grad_fn.next_functions])
print(net)
"""

SNIPPETS = {
    "T47_forward_and_full_backward_hooks": """
nn = torch.nn
net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
with torch.no_grad():
    net[0].weight.copy_(torch.tensor([[1., -1., 0.5], [0.25, 2., -1.]]))
    net[0].bias.copy_(torch.tensor([0.1, -0.2]))
    net[2].weight.copy_(torch.tensor([[1.5, -0.5]]))
    net[2].bias.fill_(0.3)
def show_forward(module, inputs, output):
    print("forward", type(module).__name__, inputs, output)
def show_backward(module, grad_input, grad_output):
    print("backward", type(module).__name__, grad_input, grad_output)
handles = []
for layer in net:
    handles.append(layer.register_forward_hook(show_forward))
    handles.append(layer.register_full_backward_hook(show_backward))
x = torch.tensor([[1., 2., 3.], [-1., 0., 2.]], requires_grad=True)
out = net(x)
print(out)
out.sum().backward()
print(x.grad)
for h in handles:
    h.remove()
print(net(x))
""",
    "T48_linear_4_1_legacy_hook_three_orders": T48_LINEAR_HOOK,
    "T49_a_copy_is_not_a_leaf": """
x = torch.tensor([1., 2., 3., 4.], requires_grad=True).to(torch.float64)
print(x.is_leaf, x.grad_fn)
(x * 2).sum().backward()
print(x.grad)
y = torch.tensor([1., 2., 3., 4.], requires_grad=True).to("cpu")
print(y.is_leaf)
(y * 2).sum().backward()
print(y.grad)
""",
    "T50_legacy_vs_full_vs_tensor_hook": """
nn = torch.nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)
        with torch.no_grad():
            self.fc.weight.copy_(torch.tensor([[3., -2.]]))
            self.fc.bias.fill_(1.)
    def forward(self, x):
        return (self.fc(x) * 2).relu()
legacy = Net()
legacy.register_backward_hook(lambda m, gi, go: print("legacy", gi, go))
full = Net()
full.register_full_backward_hook(lambda m, gi, go: print("full", gi, go))
for net in (legacy, full):
    x = torch.tensor([[1., 0.5]], requires_grad=True)
    x.register_hook(lambda g: print("tensor hook", g))
    net(x).sum().backward()
    print(x.grad, net.fc.weight.grad)
""",
    "T51_parameters_require_grad": """
nn = torch.nn
model = nn.Sequential(nn.Flatten(), nn.Linear(8, 4), nn.ReLU(), nn.Dropout(0.1),
                      nn.Linear(4, 2), nn.Softmax(dim=1))
print(model)
for name, param in model.named_parameters():
    print(name, param.requires_grad, param.is_leaf, param.grad, tuple(param.shape))
print(list(model.state_dict()))
print(sum(p.numel() for p in model.parameters()))
model.eval()
print(model.training, model[3].training)
with torch.no_grad():
    out = model(torch.ones(2, 2, 4))
print(out.requires_grad, out.shape)
""",
    "full_hook_with_an_input_that_needs_no_grad": """
class Two(torch.nn.Module):
    def forward(self, a, b):
        return a * b * 3
m = Two()
m.register_full_backward_hook(lambda mod, gi, go: print("hook", gi, go))
a = torch.tensor([1., 2.], requires_grad=True)
out = m(a, torch.tensor([3., 4.]))
print(out, out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
out.sum().backward()
print(a.grad)
""",
    "legacy_hook_on_a_batch_linear": """
lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.fill_(0.5)
    lin.bias.fill_(1.)
lin.register_backward_hook(lambda m, gi, go: print("legacy", gi, go))
lin(torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)).sum().backward()
""",
    "forward_hooks_with_kwargs_prepend_and_pre_hooks": """
class Scale(torch.nn.Module):
    def forward(self, x, factor=2.0):
        return x * factor
m = Scale()
m.register_forward_pre_hook(lambda mod, a, k: ((a[0] + 1,), {"factor": 3.0}), with_kwargs=True)
m.register_forward_hook(lambda mod, a, k, out: print("kw", a, k, out), with_kwargs=True)
m.register_forward_hook(lambda mod, a, out: print("first"), prepend=True)
print(m(torch.tensor([1., 2.]), factor=5.0))
""",
    "module_errors": """
lin = torch.nn.Linear(2, 2)
for bad in (lambda: lin.foo, lambda: lin.register_parameter("x", torch.ones(2)),
            lambda: setattr(lin, "weight", torch.ones(2, 2)), lambda: lin.add_module("a.b", lin),
            lambda: lin.load_state_dict({"weight": torch.zeros(2, 2), "extra": torch.ones(1)}),
            lambda: lin.load_state_dict({"weight": torch.zeros(3, 2), "bias": torch.zeros(2)}),
            lambda: lin.train("no"), lambda: torch.nn.Linear(4, 2)(torch.ones(3, 5)),
            lambda: torch.nn.Dropout(2.0), lambda: lin.to(torch.int64),
            lambda: lin(torch.ones(1, 2, dtype=torch.float64)), lambda: lin(torch.tensor([1, 2]))):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
print(lin.load_state_dict(lin.state_dict()))
print(lin.load_state_dict({"weight": torch.zeros(2, 2)}, strict=False))
""",
    "loss_errors_and_warnings": """
F = torch.nn.functional
x = torch.tensor([[0.5, 1.0, -1.0], [2.0, 0.0, 1.0]], requires_grad=True)
print(F.mse_loss(x[:, :1], torch.tensor([1., 2., 3.])))
for bad in (lambda: F.nll_loss(x, torch.tensor([0, 5])),
            lambda: F.nll_loss(x, torch.tensor([0, 1, 2])),
            lambda: F.nll_loss(x, torch.tensor([0., 1.])),
            lambda: F.cross_entropy(x, torch.tensor([0, 1]), reduction="avg"),
            lambda: F.cross_entropy(x, torch.tensor([0, 1]), label_smoothing=1.5),
            lambda: F.binary_cross_entropy(x, torch.zeros(2, 3)),
            lambda: F.binary_cross_entropy(x.sigmoid(), torch.zeros(3)),
            lambda: F.binary_cross_entropy_with_logits(x, torch.zeros(3))):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
print(F.softmax(x))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_prints_what_pytorch_prints(name):
    assert run(SNIPPETS[name], agk) == run(SNIPPETS[name], torch)


def test_linear_4_1_example_numbers_and_warnings():
    """T48: results 20.5 / 22 / 5.5; the legacy hook's grad_input changes with the order."""
    text = run(T48_LINEAR_HOOK, agk)
    assert "result = tensor([20.5000], grad_fn=<DivBackward0>)" in text
    assert "result = tensor([22.], grad_fn=<ViewBackward0>)" in text
    assert "result = tensor([5.5000], grad_fn=<DivBackward0>)" in text
    assert text.count("original grad: (tensor([0.2500]), None)") == 2
    assert "original grad: (tensor([[1.]]),)" in text
    assert "grad->tensor([[0.2500, 0.5000, 0.7500, 1.0000]])" in text
    assert "grad->tensor([[0.0625, 0.1250, 0.1875, 0.2500]])" in text
    assert (
        text.count(
            "warning FutureWarning: Using a non-full backward hook when the forward "
            "contains multiple autograd Nodes is deprecated"
        )
        == 3
    )
    assert text == run(T48_LINEAR_HOOK, torch)


# ----- the same model in both libraries ---------------------------------------------------------
def _build(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(4, 6),
        nn.LeakyReLU(0.1),
        nn.Dropout(0.3),
        nn.ModuleList([nn.Linear(6, 6), nn.Linear(6, 6)]),
        nn.ModuleDict({"out": nn.Linear(6, 3), "act": nn.Tanh()}),
        nn.Sequential(nn.Softmax(dim=1), nn.LogSoftmax(dim=-1), nn.Flatten(), nn.Identity()),
        nn.Linear(3, 2, bias=False),
        nn.Sigmoid(),
        nn.ReLU(inplace=True),
    )


def _copy_weights(theirs, ours):
    with agk.no_grad():
        pairs = zip(theirs.named_parameters(), ours.named_parameters(), strict=True)
        for (name, p), (name2, q) in pairs:
            assert name == name2
            q.copy_(agk.tensor(p.detach().numpy()))


def test_module_reprs_state_dict_keys_and_parameter_names_match():
    ours, theirs = _build(agk), _build(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]


def test_loss_module_and_optimizer_reprs_match():
    for make in (
        lambda l: l.nn.MSELoss(),
        lambda l: l.nn.CrossEntropyLoss(label_smoothing=0.1),
        lambda l: l.nn.BCEWithLogitsLoss(),
        lambda l: l.nn.NLLLoss(),
        lambda l: l.nn.L1Loss(),
        lambda l: l.nn.BCELoss(),
    ):
        assert repr(make(agk)) == repr(make(torch))


def _head(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 3))


LOSSES = {
    "mse": lambda F, out, t: F.mse_loss(out, t["soft"]),
    "l1_sum": lambda F, out, t: F.l1_loss(out, t["soft"], reduction="sum"),
    "cross_entropy": lambda F, out, t: F.cross_entropy(out, t["idx"]),
    "cross_entropy_weighted_ignore": lambda F, out, t: F.cross_entropy(
        out, t["idx"], weight=t["w"], ignore_index=2
    ),
    "cross_entropy_smoothing": lambda F, out, t: F.cross_entropy(
        out, t["idx"], label_smoothing=0.2
    ),
    "cross_entropy_probs": lambda F, out, t: F.cross_entropy(out, t["soft"].softmax(1)),
    "nll_none": lambda F, out, t: F.nll_loss(out.log_softmax(1), t["idx"], reduction="none"),
    "bce": lambda F, out, t: F.binary_cross_entropy(out.sigmoid(), t["unit"], weight=t["w"]),
    "bce_logits": lambda F, out, t: F.binary_cross_entropy_with_logits(
        out, t["unit"], pos_weight=t["w"]
    ),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_values_nodes_and_gradients_match(name):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 3)).astype(np.float32)
    targets = {
        "soft": rng.normal(size=(5, 3)),
        "idx": np.array([0, 2, 1, 2, 0]),
        "w": np.array([0.5, 2.0, 1.0]),
        "unit": rng.uniform(size=(5, 3)),
    }
    results = []
    theirs = _head(torch)
    for lib in (agk, torch):
        net = _head(lib)
        if lib is agk:
            _copy_weights(theirs, net)
        else:
            net = theirs
        t = {
            k: lib.tensor(v, dtype=lib.int64 if k == "idx" else lib.float32)
            for k, v in targets.items()
        }
        loss = LOSSES[name](lib.nn.functional, net(lib.tensor(x)), t)
        loss.backward(lib.ones_like(loss))
        results.append(
            (loss.detach().numpy(), loss.grad_fn.name(), [p.grad.numpy() for p in net.parameters()])
        )
    (ours, our_node, our_grads), (ref, ref_node, ref_grads) = results
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)
    if name != "cross_entropy_probs":  # PyTorch: DivBackward1 (core_requests: scalar overloads)
        assert our_node == ref_node
    for a, b in zip(our_grads, ref_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_full_backward_hook_arguments_match():
    seen = {}
    theirs = _head(torch)
    for lib in (agk, torch):
        net = theirs if lib is torch else _head(agk)
        if lib is agk:
            _copy_weights(theirs, net)
        calls = seen[lib.__name__] = []
        for layer in net:
            layer.register_full_backward_pre_hook(
                lambda m, go, calls=calls: calls.append(("pre", type(m).__name__, go))
            )
            layer.register_full_backward_hook(
                lambda m, gi, go, calls=calls: calls.append(("post", type(m).__name__, gi, go))
            )
        x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), requires_grad=True)
        (net(x) * lib.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]])).sum().backward()
    ours, ref = seen["autogradkit"], seen["torch"]
    assert [c[:2] for c in ours] == [c[:2] for c in ref]
    for a, b in zip(ours, ref, strict=True):
        for ga, gb in zip(a[2:], b[2:], strict=True):
            assert len(ga) == len(gb)
            for u, v in zip(ga, gb, strict=True):
                np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-5, atol=1e-6)


def test_recorded_nodes_of_functional_match():
    def nodes(lib):
        F = lib.nn.functional
        x = lib.ones(2, 4, requires_grad=True)
        w = lib.ones(3, 4, requires_grad=True)
        b = lib.ones(3, requires_grad=True)
        outs = [
            F.linear(x, w, b),
            F.linear(x[0], w, b),
            F.linear(x, w),
            F.relu(x),
            F.leaky_relu(x),
            F.dropout(x, 0.5),
            F.softmax(x, 1),
            F.log_softmax(x, 1),
            lib.nn.Flatten()(x.view(2, 2, 2)),
            F.cross_entropy(x, lib.tensor([0, 1])),
            F.mse_loss(x, lib.zeros(2, 4)),
            F.l1_loss(x, lib.zeros(2, 4)),
            F.binary_cross_entropy(x.sigmoid(), lib.zeros(2, 4)),
            F.binary_cross_entropy_with_logits(x, lib.zeros(2, 4)),
        ]
        return [
            (o.grad_fn.name(), [n.name() if n else None for n, _ in o.grad_fn.next_functions])
            for o in outs
        ]

    assert nodes(agk) == [
        (
            n.replace("torch::", "autogradkit::"),
            [m.replace("torch::", "autogradkit::") if m else None for m in ms],
        )
        for n, ms in nodes(torch)
    ]
