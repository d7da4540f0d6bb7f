"""Random programs run through autogradkit and PyTorch: same values, graph, gradients, errors.

Each program draws two float64 leaves and chains up to five ops (unary, binary, in-place, on
views and views of views, Python numbers on either side, grad-mode contexts and decorators,
inference tensors, saved-tensor hooks, % and //, non-contiguous operands, bad shapes, dtypes
and indexes) picked from the tables below. Whatever PyTorch does,
autogradkit must do too: raise the same error type and message, or give the same output
values, the same nodes along the graph (name and which edges are None) and the same ``.grad``
on every leaf. A failure prints the program, so it can be replayed by hand.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import autogradkit as agk

from ..optional import import_or_skip
from .harness import normalise

torch = import_or_skip("torch")

SHAPES = [(), (3,), (2, 3), (3, 1), (1, 3), (2, 1, 3), (4,), (3, 3)]


def _set_first_row(lib, x):
    y = x * 2
    if x.ndim and x.shape[0]:
        y[0] = x[0] * 3
    return y


def _set_where_positive(lib, x):
    y = x * 1
    if x.ndim:  # a 0-d tensor indexed by a 0-d mask is PyTorch's own special case: left out
        y[x > 0] = 0.25
    return y


def _mul_first_row_in_place(lib, x):
    y = x * 1
    if x.ndim and x.shape[0]:
        y[0].mul_(3)
    return y


def _in_grad_mode(context):
    """x * 2 inside a grad-mode context (its output may not require grad: then no backward).

    The result is cloned outside, so later ops may save it (an inference tensor could not be:
    ``inference_product`` below tries that on purpose)."""

    def run(lib, x):
        with context(lib):
            y = x * 2
        return y.clone()

    return run


def _decorated(decorate):
    """x * 3 in a function, and x + 1 in a generator, under a grad-mode decorator."""

    def run(lib, x):
        def times_three():
            return x * 3

        def plus_one():
            yield lib.is_grad_enabled()
            yield x + 1

        steps = decorate(lib)(plus_one)()
        enabled_inside = next(steps)
        shifted = next(steps).clone()
        return decorate(lib)(times_three)().clone() + shifted * (2 if enabled_inside else 1)

    return run


def _inference_product(lib, x):
    """x times a tensor made in inference_mode: an error once x requires grad (it is saved)."""
    with lib.inference_mode():
        y = x * 2
    return x * y if x.requires_grad else x + y


def _under_saved_tensor_hooks(lib, x):
    """exp(x) * x with every saved tensor packed as a copy and handed back by the unpack hook."""
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda p: p):
        return x.exp() * x


def _view_of_view_in_place(lib, x):
    y = x * 1
    if x.ndim and x.shape[-1] > 1:
        y[..., 1:][..., :1].mul_(3)  # a slice of a slice, changed in place
    return y


def _inplace(method, *args):
    def run(lib, x):
        y = x * 1
        getattr(y, method)(*args)
        return y

    return run


UNARY = {
    "exp": lambda lib, x: x.exp(),
    "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: x.sigmoid(),
    "relu": lambda lib, x: x.relu(),
    "abs": lambda lib, x: x.abs(),
    "sin": lambda lib, x: x.sin(),
    "neg": lambda lib, x: -x,
    "square": lambda lib, x: x.square(),
    "pow3": lambda lib, x: x**3,
    "rpow": lambda lib, x: 2**x,
    "rsub": lambda lib, x: 1 - x,
    "rdiv": lambda lib, x: 1 / (x.abs() + 0.5),
    "log": lambda lib, x: (x.abs() + 0.1).log(),
    "sqrt": lambda lib, x: (x.abs() + 0.1).sqrt(),
    "clamp": lambda lib, x: x.clamp(-0.5, 0.7),
    "t": lambda lib, x: x.t() if x.ndim <= 2 else x,
    "T": lambda lib, x: x.T if x.ndim == 2 else x,
    "sum": lambda lib, x: x.sum(),
    "sum0": lambda lib, x: x.sum(0) if x.ndim else x,
    "sum_keep": lambda lib, x: x.sum(-1, keepdim=True) if x.ndim else x,
    "mean": lambda lib, x: x.mean(),
    "mean1": lambda lib, x: x.mean(-1) if x.ndim else x,
    "std": lambda lib, x: x.std() if x.numel() > 1 else x,
    "var1": lambda lib, x: x.var(-1) if x.ndim and x.shape[-1] > 1 else x,
    "max": lambda lib, x: x.max(),
    "max1": lambda lib, x: x.max(-1)[0] if x.ndim else x,
    "norm": lambda lib, x: x.norm(),
    "norm1": lambda lib, x: x.norm(dim=-1) if x.ndim else x,
    "prod1": lambda lib, x: x.prod(-1) if x.ndim else x,
    "logsumexp": lambda lib, x: x.logsumexp(-1) if x.ndim else x,
    "softmax": lambda lib, x: x.softmax(-1) if x.ndim else x,
    "log_softmax": lambda lib, x: x.log_softmax(0) if x.ndim else x,
    "unsqueeze": lambda lib, x: x.unsqueeze(0),
    "reshape": lambda lib, x: x.reshape(-1),
    "flatten": lambda lib, x: x.flatten(),
    "squeeze": lambda lib, x: x.squeeze(),
    "expand": lambda lib, x: x.expand(2, *x.shape),
    "transpose": lambda lib, x: x.transpose(0, -1) if x.ndim >= 2 else x,
    "permute": lambda lib, x: x.permute(*reversed(range(x.ndim))) if x.ndim else x,
    "select": lambda lib, x: x[0] if x.ndim and x.shape[0] else x,
    "slice": lambda lib, x: x[..., 1:] if x.ndim and x.shape[-1] > 1 else x,
    "index_list": lambda lib, x: x[[0, 0]] if x.ndim and x.shape[0] else x,
    "index_mask": lambda lib, x: x[x > 0] if x.ndim else x,
    "none": lambda lib, x: x[None, ..., None],
    "clone": lambda lib, x: x.clone(),
    "detach_mul": lambda lib, x: x * x.detach(),
    "add_": _inplace("add_", 1.5),
    "clamp_": _inplace("clamp_", -0.3, 0.4),
    "zero_": lambda lib, x: _inplace("zero_")(lib, x) * x,
    "set_row": _set_first_row,
    "set_mask": _set_where_positive,
    "mul_row_": _mul_first_row_in_place,
    "view_of_view_": _view_of_view_in_place,
    "sin_": _inplace("sin_"),
    "cos_": _inplace("cos_"),
    "tanh_": _inplace("tanh_"),
    "tan_": lambda lib, x: (x * 0.5).tan_(),
    "mod": lambda lib, x: x % 0.7,
    "rmod": lambda lib, x: 2.5 % (x.abs() + 0.5),
    "floordiv": lambda lib, x: x // 0.3,
    "flip": lambda lib, x: x.flip(-1) if x.ndim else x,
    "inference_product": _inference_product,
    "saved_hooks": _under_saved_tensor_hooks,
    # Python numbers on either side of an op (the graph records them as PyTorch does)
    "radd": lambda lib, x: 2.5 + x,
    "rmul": lambda lib, x: 3 * x,
    "sub_number": lambda lib, x: x - 0.5,
    "div_number": lambda lib, x: x / 4,
    "pow2": lambda lib, x: x**2,
    "pow_float": lambda lib, x: (x.abs() + 0.5) ** 1.5,
    "rpow_float": lambda lib, x: 1.5**x,
    "rsub_float": lambda lib, x: 0.5 - x,
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 0.5),
    # grad-mode contexts and decorators (bare and called, on functions and generators)
    "no_grad": _in_grad_mode(lambda lib: lib.no_grad()),
    "enable_grad": _in_grad_mode(lambda lib: lib.enable_grad()),
    "set_grad_false": _in_grad_mode(lambda lib: lib.set_grad_enabled(False)),
    "inference_mode": _in_grad_mode(lambda lib: lib.inference_mode()),
    "at_no_grad": _decorated(lambda lib: lib.no_grad),
    "at_enable_grad": _decorated(lambda lib: lib.enable_grad()),
    "at_set_grad_false": _decorated(lambda lib: lib.set_grad_enabled(False)),
    "at_inference_mode": _decorated(lambda lib: lib.inference_mode),
    # non-contiguous operands: stepped slices, transposes, expands
    "step_slice": lambda lib, x: x[..., ::2] * 2,
    "transpose_mul": lambda lib, x: x.transpose(0, -1) * x.transpose(0, -1) if x.ndim else x,
    "expand_sum": lambda lib, x: x.expand(3, *x.shape).sum(0) * 0.5,
    # error paths: bad shapes, dtypes and indexes give PyTorch's error type and message
    # (detached: PyTorch warns only once per process on float() of a tensor requiring grad)
    "float_of": lambda lib, x: x * float(x.detach().sum() if x.ndim > 2 else x.detach()),
    "int_pow_negative": lambda lib, x: x * (x > 0).long() ** -1,
    "bool_neg": lambda lib, x: x * -(x > 0),
    # a 0-d tensor squeezed out of a view (max(-1)'s values) makes PyTorch read a stale size
    # (undefined behaviour): a product is a fresh 0-d tensor, whose error names size 0
    "index_2": lambda lib, x: (x * 1 if x.ndim == 0 else x)[2],
    "index_row_3": lambda lib, x: x[:, 3] if x.ndim > 1 else x[None, 0, 3],
}

BINARY = {
    "add": lambda lib, x, y: x + y,
    "sub": lambda lib, x, y: x - y,
    "mul": lambda lib, x, y: x * y,
    "div": lambda lib, x, y: x / (y.abs() + 0.5),
    "pow": lambda lib, x, y: (x.abs() + 0.5) ** y,
    "matmul": lambda lib, x, y: x @ y,
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "where": lambda lib, x, y: lib.where(x > 0, x, y),
    "cat": lambda lib, x, y: lib.cat([x, y], -1) if x.ndim and x.ndim == y.ndim else x + y,
    "stack": lambda lib, x, y: lib.stack([x, y]) if x.shape == y.shape else x * y,
    "mm": lambda lib, x, y: x.mm(y),
    "stack_any": lambda lib, x, y: lib.stack([x, y]),
    "cat_any": lambda lib, x, y: lib.cat([x, y]),
    "mul_t": lambda lib, x, y: x.t() * y if x.ndim <= 2 else x * y,
    "pow_scalar_tensor": lambda lib, x, y: lib.pow(2, x) * y,
    "mod_tensor": lambda lib, x, y: x % (y.abs() + 0.5),
    "floordiv_tensor": lambda lib, x, y: x // (y.abs() + 0.5),
    "add_alpha": lambda lib, x, y: x.add(y, alpha=0.5),
    "sub_alpha": lambda lib, x, y: lib.sub(x, y, alpha=2),
}


def _program(rng: random.Random):
    leaves = [rng.choice(SHAPES) for _ in range(2)]
    steps = []
    for _ in range(rng.randint(1, 5)):
        if rng.random() < 0.5:
            steps.append((rng.choice(sorted(UNARY)), rng.randint(0, 10)))
        else:
            steps.append((rng.choice(sorted(BINARY)), rng.randint(0, 10), rng.randint(0, 10)))
    return leaves, steps


def _names(root) -> list:
    names, stack, seen = [], [root.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        edges = tuple(child is None for child, _ in node.next_functions)  # count, None edges
        names.append((node.name().replace("torch::", "autogradkit::"), edges))
        stack.extend(child for child, _ in node.next_functions)
    return names


def _run(lib, leaves, steps, seed):
    """What the program gives, and the warnings it raised (PyTorch raises none here)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _outcome(lib, leaves, steps, seed)
    return result, sorted(normalise(f"{w.category.__name__}: {w.message}") for w in caught)


def _outcome(lib, leaves, steps, seed):
    """(output values, node names, leaf grads), or the error as PyTorch would print it."""
    rng = np.random.default_rng(seed)
    values = [
        lib.tensor(rng.uniform(-2, 2, s), dtype=lib.float64, requires_grad=True) for s in leaves
    ]
    pool = list(values)
    try:
        for name, *picks in steps:
            table = UNARY if len(picks) == 1 else BINARY
            pool.append(table[name](lib, *(pool[p % len(pool)] for p in picks)))
        out = pool[-1]
        upstream = lib.tensor(rng.uniform(-1, 1, tuple(out.shape)), dtype=lib.float64)
        if out.requires_grad:
            out.backward(upstream)
    except (RuntimeError, IndexError, TypeError, ValueError) as error:
        return f"{type(error).__name__}: {error}".replace("torch.", "autogradkit.")
    grads = [None if v.grad is None else v.grad.detach().numpy() for v in values]
    return out.detach().numpy(), _names(out) if out.grad_fn else [], grads


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and np.allclose(a, b, atol=1e-9, equal_nan=True)


def _same(ours, theirs) -> bool:
    """Same warnings, and the same error or the same values, graph and gradients."""
    (ours, our_warnings), (theirs, their_warnings) = ours, theirs
    if our_warnings != their_warnings:
        return False
    if isinstance(ours, str) or isinstance(theirs, str):
        return ours == theirs
    values, names, grads = ours
    return (
        _close(values, theirs[0])
        and names == theirs[1]
        and all(_close(a, b) for a, b in zip(grads, theirs[2], strict=True))
    )


@pytest.mark.parametrize("batch", range(8))
def test_random_programs_agree_with_pytorch(batch):
    rng = random.Random(batch)
    torch.set_default_dtype(torch.float64)
    try:
        for trial in range(250):
            leaves, steps = _program(rng)
            ours = _run(agk, leaves, steps, trial)
            theirs = _run(torch, leaves, steps, trial)
            assert _same(ours, theirs), f"leaves {leaves}, steps {steps}:\n{ours}\n{theirs}"
    finally:
        torch.set_default_dtype(torch.float32)
