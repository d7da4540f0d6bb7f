"""Random numbers: seeded NumPy generators (reproducible; not PyTorch's stream of numbers).

``default_generator`` is the kit's global random state; a ``Generator`` of your own, passed
as ``generator=``, draws independently of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from ._device import CPU, use

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "fork_rng"]


class Generator:
    """A random number generator: ``g = Generator().manual_seed(0); rand(2, generator=g)``."""

    __module__ = "autogradkit._C"  # prints as PyTorch's torch._C.Generator

    def __init__(self, device="cpu"):
        use(device)
        self.manual_seed(int(np.random.SeedSequence().entropy % (2**63)))

    def manual_seed(self, seed: int) -> Generator:
        """Restart this generator's stream from ``seed``; returns the generator."""
        self._initial_seed = int(seed)
        self._rng = np.random.default_rng(self._initial_seed)
        return self

    def initial_seed(self) -> int:
        return self._initial_seed

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the new seed."""
        value = int(np.random.SeedSequence().entropy % (2**63))
        self.manual_seed(value)
        return value

    @property
    def device(self):
        return CPU


default_generator = Generator().manual_seed(0)  # the kit's global random state


def manual_seed(seed: int) -> Generator:
    """Seed every random function in autogradkit (``rand``, ``randn``, ``nn.init``...)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Reseed from the operating system's entropy and return the new seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


@contextmanager
def fork_rng(devices=None, enabled: bool = True) -> Iterator[None]:
    """Inside the block draw as you like; afterwards the global random state is as before.

    Example:
        >>> import autogradkit as agk
        >>> _ = agk.manual_seed(0)
        >>> with agk.random.fork_rng():
        ...     _ = agk.rand(3)
        >>> float(agk.rand(1)) == float(agk.manual_seed(0) and agk.rand(1))
        True
    """
    if not enabled:
        yield
        return
    state = default_generator._rng.bit_generator.state
    try:
        yield
    finally:
        default_generator._rng.bit_generator.state = state


def _generator(generator: Generator | None = None) -> np.random.Generator:
    """The NumPy generator to draw from: ``generator``'s, else the global one."""
    if generator is None:
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TypeError(
            f"expected a autogradkit.Generator, but got {type(generator).__name__} instead"
        )
    return generator._rng
