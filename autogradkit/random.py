"""Random numbers: one seeded NumPy generator (reproducible; not PyTorch's stream)."""

from __future__ import annotations

import numpy as np

_state = {"generator": np.random.default_rng(0)}  # the kit's global random state


def manual_seed(seed: int):
    """Seed every random function in autogradkit (``rand``, ``randn``, ``nn.init``...)."""
    _state["generator"] = np.random.default_rng(int(seed))
    return _state["generator"]


def _generator() -> np.random.Generator:
    return _state["generator"]


def seed() -> int:
    """Reseed from the operating system's entropy and return the new seed."""
    value = int(np.random.SeedSequence().entropy % (2**63))
    manual_seed(value)
    return value
