"""``torch.autograd.graph``'s names: edges, walks, and hooks on what forward saves.

The graph itself (``Node``, ``gradient_edge``, ``AccumulateGrad``) lives with the backward
pass that runs it, in ``engine.py``; this module gives PyTorch's public names for it
(``graph.Node``, ``get_gradient_edge``), the walks the viz and the checks use, and the
``saved_tensors_hooks`` blocks. Also here, as in PyTorch: ``increment_version``. The engine
never imports this file (``tools/line_count.py`` counts it beside the core).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from .engine import Node, gradient_edge, pack_hooks
from .saved_fields import pack_all
from .variable import increment_version

__all__ = [
    "GradientEdge",
    "Node",
    "get_gradient_edge",
    "increment_version",
    "saved_tensors_hooks",
    "save_on_cpu",
    "walk",
]


class GradientEdge(NamedTuple):
    """Where a gradient goes in the graph: output ``output_nr`` of ``node``."""

    node: Node
    output_nr: int


def get_gradient_edge(tensor) -> GradientEdge:
    """PyTorch's ``torch.autograd.graph.get_gradient_edge``: the same edge, with names."""
    return GradientEdge(*gradient_edge(tensor))


def walk(root: Node):
    """Every node reachable from ``root``, each once, parents before children (iterative)."""
    seen, order, stack = {id(root)}, [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for child, _ in reversed(node.next_functions):
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return order


class saved_tensors_hooks:
    """Inside this block, every tensor an operation saves for backward goes through
    ``pack_hook(tensor)``; what it returns is kept instead, and ``unpack_hook(packed)`` must
    give a tensor back when backward (or ``grad_fn._saved_self``) needs it. Nested blocks:
    the innermost pair applies.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.ones(2, requires_grad=True)
        >>> with agk.autograd.graph.saved_tensors_hooks(lambda t: t.tolist(), agk.tensor):
        ...     y = a.sin()
        >>> y.grad_fn._saved_self
        tensor([1., 1.], requires_grad=True)
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> None:
        packer = functools.partial(pack_all, pack_hook=self.pack_hook, unpack_hook=self.unpack_hook)
        pack_hooks.append(packer)  # what Function.apply runs on what each op saves

    def __exit__(self, *exc_info) -> None:
        pack_hooks.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors go to the CPU and come back to their device for backward. autogradkit
    has only the CPU, so they stay where they are (``pin_memory=True`` keeps a copy)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.detach().clone())  # a copy, as PyTorch's pinned one

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)
