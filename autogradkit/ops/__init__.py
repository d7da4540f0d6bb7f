"""The tensor's differentiable primitives, one ``Function`` subclass each, grouped by kind.

Each op class enters ``REGISTRY`` (op name -> class) as its module loads, and every module
here loads with ``autogradkit`` (a Tensor method, the engine or another op uses each of them:
``tests/ops/test_core_rule.py``); nn adds the ops only it records (``nn/ops/``). The tests use
it to check that every op has a spec, a gradient check and a PyTorch comparison. PyTorch's
``grad_fn._saved_<name>`` fields are not the ops' own: the package root gives each op its
fields once every op is made (``autograd/saved_fields.py``, beside the core).
"""

from ..autograd.engine import REGISTRY

__all__ = ["REGISTRY"]
