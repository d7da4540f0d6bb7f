"""``autogradkit.optim``: optimizers (each a class plus a pure update function) and
learning-rate schedulers."""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad, adagrad_update
from .adam import Adam, AdamW, adam_update
from .optimizer import Optimizer
from .rmsprop import RMSprop, rmsprop_update
from .sgd import SGD, sgd_update

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "lr_scheduler",
    "sgd_update",
    "adam_update",
    "rmsprop_update",
    "adagrad_update",
]
