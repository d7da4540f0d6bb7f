"""``device``: where a tensor lives. autogradkit computes on the CPU only: naming another
device works (``device("cuda")``), using one raises PyTorch's error for a build without it."""

from __future__ import annotations

_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()


class device:  # noqa: N801  (PyTorch's name)
    """A device name, as PyTorch parses it: ``device("cuda:1")``, ``device("cpu", 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):  # noqa: A002  (PyTorch's names)
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        else:
            name, _, number = str(type).partition(":")
            if name not in _TYPES:
                raise RuntimeError(
                    f"Expected one of {', '.join(_TYPES)} device type at start of device "
                    f"string: {type}"
                )
            type, index = name, int(number) if number else index
        self.type, self.index = type, index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:  # a string is never equal to a device, as in PyTorch
        return isinstance(other, device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def use(where) -> None:
    """Refuse any device but the CPU with PyTorch's error (None and the CPU pass)."""
    if where is None:
        return
    where = device(where)
    if where.type == "cpu":
        return
    if where.type in ("cuda", "xpu"):
        raise AssertionError(f"Torch not compiled with {where.type.upper()} enabled")
    raise RuntimeError(f"autogradkit runs on the CPU only: it has no '{where.type}' device")
