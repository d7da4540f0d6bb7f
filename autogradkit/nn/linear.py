"""``Linear`` (``y = x W^T + b``) and ``Identity``."""

from __future__ import annotations

import math

from ..creation import empty
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """Returns its input unchanged (the very same tensor); ignores any arguments.

    Example:
        >>> import autogradkit as agk
        >>> x = agk.ones(2)
        >>> agk.nn.Identity()(x) is x
        True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input


class Linear(Module):
    """A fully connected layer: ``y = x @ weight.T + bias``.

    ``weight`` has shape ``(out_features, in_features)``. It starts as PyTorch's does:
    ``kaiming_uniform_(a=sqrt(5))``, which is U(-1/sqrt(in), 1/sqrt(in)), and the bias
    is drawn from the same range.

    Example:
        >>> import autogradkit as agk
        >>> layer = agk.nn.Linear(4, 1)
        >>> layer
        Linear(in_features=4, out_features=1, bias=True)
        >>> layer(agk.ones(2, 4)).grad_fn.name()
        'AddmmBackward0'
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default initialisation (see the class docstring)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )
