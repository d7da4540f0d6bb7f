"""``Parameter``: a tensor that a ``Module`` registers as something training changes."""

from __future__ import annotations

from ..creation import empty
from ..tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf tensor that requires grad (by default) and that modules collect.

    Assigning a ``Parameter`` to a module attribute registers it, so it shows up in
    ``module.parameters()`` and ``state_dict()``. It shares memory and version counter with
    the tensor it was made from, and it is always a leaf, even when made from a result.

    Args:
        data: the initial values (an empty tensor when omitted).
        requires_grad: whether training should compute its gradient.

    Example:
        >>> import autogradkit as agk
        >>> agk.nn.Parameter(agk.ones(2))
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        return Tensor._make_subclass(cls, empty(0) if data is None else data, requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (Parameter, (self.data, self.requires_grad))
