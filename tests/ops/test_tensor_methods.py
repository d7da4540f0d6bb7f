"""The Tensor methods ``_tensor_math._records`` makes (``exp = _records(ExpBackward0)``): each
reads as a method written out would, in ``help()``, in Python's TypeError for a wrong argument
and in the node it records."""

from __future__ import annotations

import pytest

import autogradkit as agk
from autogradkit._tensor_math import MathMethods

MADE = {  # attribute -> method, for each method _records made: a function closing over its op
    name: value
    for name, value in vars(MathMethods).items()
    if getattr(getattr(value, "__code__", None), "co_freevars", None) == ("op",)
}
ALIASES = {"__abs__": "abs"}  # bound under a second name, as PyTorch's __abs__


def test_records_made_the_one_line_methods():
    assert {"exp", "relu", "reciprocal", "mm", "maximum", "dot"} <= set(MADE)


@pytest.mark.parametrize("attribute", sorted(MADE))
def test_a_made_method_is_named_after_its_attribute(attribute):
    method = MADE[attribute]
    name = ALIASES.get(attribute, attribute)
    assert (method.__name__, method.__qualname__) == (name, f"MathMethods.{name}")
    assert method.__code__.co_name == name  # what a traceback through it prints
    assert getattr(agk.Tensor, attribute) is method


@pytest.mark.parametrize("attribute", sorted(set(MADE) - set(ALIASES)))
def test_a_made_method_records_the_node_of_its_name(attribute):
    """``t.exp()`` records ExpBackward0: the name the method has is the op's."""
    t = agk.tensor([[0.5, 0.25], [0.75, 0.5]], requires_grad=True)
    arguments = (t,) if MADE[attribute].__code__.co_argcount == 2 else ()
    if attribute == "dot":
        t, arguments = t[0], (t[1],)
    node = getattr(t, attribute)(*arguments).grad_fn.name()
    assert node.removesuffix("Backward0").lower() == attribute


def test_a_wrong_argument_names_the_method():
    t = agk.ones(2)
    with pytest.raises(TypeError, match=r"^MathMethods\.exp\(\) takes 1 positional argument"):
        t.exp(1)
    with pytest.raises(TypeError, match=r"^MathMethods\.mm\(\) missing 1 required positional"):
        t.mm()


def test_a_traceback_through_a_made_method_names_it():
    a, b = agk.ones(2, 3), agk.ones(2, 3)
    with pytest.raises(RuntimeError, match="cannot be multiplied") as error:
        a.mm(b)
    assert [entry.name for entry in error.traceback][:2] == [
        "test_a_traceback_through_a_made_method_names_it",
        "mm",
    ]
