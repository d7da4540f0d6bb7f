"""Custom ``autograd.Function`` (T41): the node it records, what ctx offers, and PyTorch's
errors when backward gets it wrong. Texts were recorded from PyTorch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd import Function

FREED = r"Trying to backward through the graph a second time \(or directly access saved tensors"


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def _x():
    return agk.tensor([1.0, 2.0], requires_grad=True)


def test_custom_function_records_a_node_named_after_the_class():
    x = _x()
    y = Square.apply(x)
    assert repr(y) == "tensor([1., 4.], grad_fn=<SquareBackward>)"
    assert type(y.grad_fn).__name__ == y.grad_fn.name() == "SquareBackward"
    ((node, nr),) = y.grad_fn.next_functions
    assert node.variable is x and nr == 0
    y.backward(agk.tensor([1.0, 0.5]))
    assert x.grad.tolist() == [2.0, 2.0]


def test_backward_gets_tensors_and_forward_runs_without_recording():
    seen = {}

    class Spy(Function):
        @staticmethod
        def forward(ctx, x):
            seen["grad_enabled"] = agk.is_grad_enabled()
            return x * 3

        @staticmethod
        def backward(ctx, g):
            seen["g"] = g
            return g * 3

    x = _x()
    Spy.apply(x).sum().backward()
    assert seen["grad_enabled"] is False and isinstance(seen["g"], agk.Tensor)
    assert x.grad.tolist() == [3.0, 3.0]


def test_no_node_without_inputs_that_require_grad_or_under_no_grad():
    assert Square.apply(agk.tensor([1.0, 2.0])).grad_fn is None
    with agk.no_grad():
        assert not Square.apply(_x()).requires_grad


def test_too_many_gradients_is_an_error():
    class TooMany(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    with pytest.raises(
        RuntimeError,
        match=r"^function TooManyBackward returned an incorrect "
        r"number of gradients \(expected 1, got 2\)$",
    ):
        TooMany.apply(_x()).sum().backward()


def test_too_few_gradients_is_an_error():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(
        RuntimeError,
        match=r"^function TooFewBackward returned an incorrect "
        r"number of gradients \(expected 2, got 1\)$",
    ):
        TooFew.apply(_x(), _x()).sum().backward()


def test_wrong_gradient_shape_is_an_error():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return agk.ones(3)

    with pytest.raises(
        RuntimeError,
        match=r"^Function BadShapeBackward returned an invalid "
        r"gradient at index 0 - got \[3\] but expected shape compatible with "
        r"\[2\]$",
    ):
        BadShape.apply(_x()).sum().backward()


def test_a_broadcastable_gradient_is_summed_to_the_input_shape():
    class Wide(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return agk.ones(3, 2) * g

    x = _x()
    Wide.apply(x).backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_saved_tensors_after_backward_are_freed():
    y = Square.apply(_x())
    y.sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        _ = y.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match=FREED):
        y.sum().backward()


def test_retain_graph_keeps_saved_tensors():
    x = _x()
    y = Square.apply(x)
    y.sum().backward(retain_graph=True)
    (saved,) = y.grad_fn.saved_tensors
    assert saved is x
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_needs_input_grad_in_forward_and_backward():
    seen = []

    class Needs(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return g, None, None

    Needs.apply(_x(), agk.tensor([1.0, 1.0]), 3.0).sum().backward()
    assert seen == [(True, False, False), (True, False, False)]


def test_mark_dirty_returns_the_same_tensor_with_a_new_node():
    class Double(Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    z = _x()
    inner = z.clone()
    version = inner._version
    out = Double.apply(inner)
    assert out is inner and out.tolist() == [2.0, 4.0]
    assert inner._version == version + 2  # the mul_ and the mark
    assert out.grad_fn.name() == "DoubleBackward"
    out.sum().backward()
    assert z.grad.tolist() == [2.0, 2.0]


def test_mark_dirty_on_a_leaf_that_requires_grad_is_an_error():
    class Double(Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad has been used in an in-place operation.",
    ):
        Double.apply(_x())


def test_mark_non_differentiable_outputs_need_no_grad_and_get_zeros():
    seen = []

    class SortLike(Function):
        @staticmethod
        def forward(ctx, a):
            idx = agk.tensor([1, 0])
            ctx.mark_non_differentiable(idx)
            return a * 1, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            seen.append(g_idx)
            return g

    values, idx = SortLike.apply(_x())
    assert values.requires_grad and not idx.requires_grad and idx.grad_fn is None
    values.sum().backward()
    assert seen[0].tolist() == [0, 0]


def test_unused_outputs_get_zero_gradients_unless_materialize_is_off():
    seen = []

    class Two(Function):
        materialize = True

        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(Two.materialize)
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1 * 2

    first, _ = Two.apply(_x())
    first.sum().backward()
    Two.materialize = False
    first, _ = Two.apply(_x())
    first.sum().backward()
    assert seen[0].tolist() == [0.0, 0.0] and seen[1] is None


def test_returning_an_input_gives_a_new_tensor_with_the_node():
    class Same(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = _x()
    y = Same.apply(x)
    assert y is not x and y.grad_fn.name() == "SameBackward" and y._version == 0


def test_none_gradient_for_an_input_that_requires_grad():
    class Left(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return None, g

    a, b = _x(), _x()
    Left.apply(a, b).sum().backward()
    assert a.grad is None and b.grad.tolist() == [1.0, 1.0]


def test_missing_backward_is_pytorchs_error():
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

    with pytest.raises(
        NotImplementedError,
        match="You must implement either the backward or "
        "vjp method for your custom autograd.Function to use it with backward "
        "mode AD.",
    ):
        NoBackward.apply(_x()).sum().backward()


def test_saved_tensor_changed_in_place_is_caught():
    class SaveIn(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    a = _x().clone()
    out = SaveIn.apply(a)
    a.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"one of the variables needed for gradient "
        r"computation has been modified by an inplace operation: "
        r"\[autogradkit.FloatTensor \[2\]\], which is output 0 of Add, is at "
        r"version 1; expected version 0 instead.",
    ):
        out.sum().backward()


def test_keyword_arguments_are_static():
    class Scale(Function):
        @staticmethod
        def forward(ctx, a, factor=2.0):
            ctx.factor = factor
            return a * factor

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor

    x = _x()
    Scale.apply(x, factor=5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_custom_function_passes_gradcheck_and_a_wrong_one_fails():
    x = agk.tensor([0.5, -1.5], dtype=agk.float64, requires_grad=True)
    assert agk.autograd.gradcheck(Square.apply, (x,))

    class Wrong(Square):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * g

    assert not agk.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)


def test_second_derivative_through_a_custom_function():
    x = agk.tensor([3.0], dtype=agk.float64, requires_grad=True)
    (g,) = agk.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [6.0] and g.requires_grad
    (gg,) = agk.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [2.0])


def test_forward_may_return_a_python_number():
    class Count(Function):
        @staticmethod
        def forward(ctx, a):
            return 3

        @staticmethod
        def backward(ctx, g):
            return g

    assert Count.apply(_x()) == 3


def test_the_files_beside_the_engine_have_handed_it_their_parts():
    """engine.py cannot import custom_function.py or saved.py (they import it): the Function
    you subclass overrides ``_run_custom``, saved.py hands the engine its part when it loads,
    and ``import autogradkit`` loads both."""
    from autogradkit.autograd import custom_function, engine, saved

    assert engine.Function._run_custom is None  # the engine's own: nothing set it from outside
    assert Function._run_custom is custom_function.run
    assert issubclass(Function, engine.Function)
    assert engine.FunctionCtx._unpack_all is saved.unpack_all
    assert saved.unpack_all.__module__ == "autogradkit.autograd.saved"
    names_in_engine = set(vars(engine))
    assert not {"custom_function", "saved", "graph", "function"} & names_in_engine


def test_a_pack_hooks_block_hands_the_engine_its_packer_only_while_open():
    from autogradkit.autograd import engine
    from autogradkit.autograd.graph import saved_tensors_hooks

    with saved_tensors_hooks(lambda t: t, lambda t: t):
        assert len(engine.pack_hooks) == 1
    assert engine.pack_hooks == []
