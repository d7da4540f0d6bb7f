"""autogradkit: PyTorch's autograd, rebuilt on NumPy so that you can read every line.

``import autogradkit as agk`` and use it where a tutorial says ``torch``.
"""

from __future__ import annotations

import importlib

# _inplace_views: in-place through views, beside the core; it fills _inplace.py's hooks as it loads
from . import _dtype, _inplace_views, autograd, cuda, nn, optim
from ._device import device
from ._dtype import (
    bool,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)
from ._functions import *  # noqa: F403  (agk.exp, agk.cat...: _functions.__all__)
from ._functions import __all__ as _function_names
from ._legacy import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from ._shape import Size
from ._tensor_str import set_printoptions
from .autograd import functional as _functional  # noqa: F401  (built on tensor.py: loads after)
from .autograd import saved_fields as _saved_fields
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from .ops import REGISTRY as _OPS
from .random import Generator, default_generator, initial_seed, manual_seed, seed
from .tensor import Tensor, where

# PyTorch's grad_fn._saved_<name> fields, beside the core: every op is made by now
_saved_fields.install(_OPS.values())

__version__ = "0.1.0"


def get_default_dtype():
    return _dtype.DEFAULT_FLOAT


def __getattr__(name: str):
    """``agk.viz`` and ``agk.grading`` load when first used: they bring matplotlib, widgets
    and nbformat, which a student who only computes never needs."""
    if name in ("viz", "grading"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'autogradkit' has no attribute '{name}'")
