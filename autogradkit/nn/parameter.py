"""``Parameter``: a tensor that a ``Module`` registers as something training changes."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor


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

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = Tensor._wrap(np.zeros(0, np.float32))
        self._init(data._data, None, 0, False)
        self._version_counter = data._version_counter  # shared, as detach() shares it
        if requires_grad:
            if self._data.dtype.kind != "f":
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            self._requires_grad = True

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(Tensor._wrap(self._data.copy()), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (Parameter, (Tensor._wrap(self._data), self._requires_grad))
