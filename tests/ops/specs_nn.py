"""Specs for the loss and activation primitives in ``autogradkit/ops/nn.py`` that are not in
``specs.py`` (owned with the nn package: add one entry for every new op there)."""

from __future__ import annotations

NN_SPECS: list = []
