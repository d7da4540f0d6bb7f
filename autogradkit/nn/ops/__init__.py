"""nn's own ops: the ``Function`` subclasses that only ``nn.functional`` records.

Written as the core's ops are (``autogradkit/ops/``: NumPy in, NumPy out, each class named
after the node PyTorch records), and kept here because no Tensor method needs them: the core
is what Tensor and the engine need to record and differentiate the tensor's own operations.
Importing them adds them to ``ops.REGISTRY``.
"""

from . import activation, conv, linear, loss

__all__ = ["activation", "conv", "linear", "loss"]
