"""Every differentiable primitive, one ``Function`` subclass each, grouped by kind.

Importing this package fills ``REGISTRY`` (op name -> class); the tests use it to check
that every op has a spec, a gradient check and a PyTorch comparison. Once every op is made,
each gets PyTorch's ``grad_fn._saved_<name>`` fields (``autograd/saved_fields.py``).
"""

from ..autograd import saved_fields
from ..autograd.function import REGISTRY

# importing the op modules fills REGISTRY
from . import (
    arithmetic,
    conv,
    indexing,
    joining,
    linalg,
    movement,
    nn,
    power,
    reduce,
    rounding,
    selection,
    statistics,
    unary,
)  # noqa: F401

for _op in REGISTRY.values():  # parents first: an op's class comes after its parent's
    saved_fields.add_fields(_op)

__all__ = ["REGISTRY"]
