"""``autogradkit.nn``: modules, parameters, layers, losses, ``functional`` and ``init``."""

from __future__ import annotations

from . import functional, init, utils
from .activation import Dropout, Flatten, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv2d
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter
from .pooling import MaxPool2d

__all__ = [
    "Module",
    "Parameter",
    "Linear",
    "Identity",
    "ReLU",
    "LeakyReLU",
    "Sigmoid",
    "Tanh",
    "Softmax",
    "LogSoftmax",
    "Flatten",
    "Dropout",
    "Conv2d",
    "MaxPool2d",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "MSELoss",
    "L1Loss",
    "NLLLoss",
    "CrossEntropyLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "functional",
    "init",
    "utils",
]
