"""The tensor's differentiable primitives, one ``Function`` subclass each, grouped by kind.

Importing this package fills ``REGISTRY`` (op name -> class) with them, and nn adds the ops
only it records (``nn/ops/``); the tests use it to check that every op has a spec, a
gradient check and a PyTorch comparison. PyTorch's
``grad_fn._saved_<name>`` fields are not the ops' own: the package root gives each op its
fields once every op is made (``autograd/saved_fields.py``, beside the core).
"""

from ..autograd.engine import REGISTRY

# importing the op modules fills REGISTRY
from . import (
    arithmetic,
    indexing,
    joining,
    linalg,
    movement,
    power,
    reduce,
    rounding,
    scalar,
    selection,
    softmax,
    statistics,
    unary,
)  # noqa: F401

__all__ = ["REGISTRY"]
