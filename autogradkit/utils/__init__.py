"""Small helpers shared by the tensor, autograd and nn layers."""

from . import hooks

__all__ = ["hooks"]
