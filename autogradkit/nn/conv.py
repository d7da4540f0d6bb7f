"""``Conv2d``: a learned 2-D convolution (its math is ``functional.conv2d``)."""

from __future__ import annotations

import math

from ..creation import empty
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Conv2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class Conv2d(Module):
    """``out = conv2d(x, weight) + bias`` with ``weight`` of shape
    ``(out_channels, in_channels // groups, kh, kw)``, started as PyTorch starts it
    (``kaiming_uniform_(a=sqrt(5))``: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), bias alike).

    Example:
        >>> import autogradkit as agk
        >>> agk.nn.Conv2d(1, 6, 5)
        Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ):
        super().__init__()
        empty(0, device=device)  # only the CPU exists: PyTorch's error before any other
        _check_options(in_channels, out_channels, groups, padding, stride, padding_mode)
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = F._pair(kernel_size), F._pair(stride)
        self.dilation = F._pair(dilation)
        self.padding = padding if isinstance(padding, str) else F._pair(padding)
        self.padding_mode, self.output_padding, self.transposed = padding_mode, (0, 0), False
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default initialisation (see the class docstring)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if self.padding_mode != "zeros":
            raise NotImplementedError(
                f"autogradkit pads convolutions with zeros only (padding_mode='zeros'), not "
                f"'{self.padding_mode}'"
            )
        return F.conv2d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )

    def extra_repr(self) -> str:
        """As PyTorch prints it: only the options that differ from their defaults."""
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
        text += f", stride={self.stride}"
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


def _check_options(in_channels, out_channels, groups, padding, stride, padding_mode) -> None:
    """PyTorch's checks, with its ValueError texts."""
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups:
        raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(
                f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
            )
        if padding == "same" and F._pair(stride) != (1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            "padding_mode must be one of {'reflect', 'replicate', 'zeros', 'circular'}, but got "
            f"padding_mode='{padding_mode}'"
        )
