"""The kernel pool boots ahead only the kernels a run will ask for, and still serves more.

A fake launcher stands in for kernels (no process starts): what is measured is how many
boots the pool makes for a number of requests.
"""

from __future__ import annotations

import threading
import time

import pytest

from autogradkit_instructor import kernels
from autogradkit_instructor.kernels import KernelPool


class FakeKernel:
    def __init__(self, number: int, alive: bool = True):
        self.number, self._alive, self.closed = number, alive, False

    def alive(self) -> bool:
        return self._alive and not self.closed

    def close(self) -> None:
        self.closed = True


class FakeLauncher:
    """Boots numbered fake kernels; the ones listed in ``dead`` are dead on arrival."""

    def __init__(self, dead=()):
        self.boots, self.dead, self.lock = 0, set(dead), threading.Lock()

    def start(self, timeout: float):
        time.sleep(0.01)  # a boot takes a moment: requests may come while one is under way
        with self.lock:
            self.boots += 1
            number = self.boots
        return FakeKernel(number, alive=number not in self.dead)

    def prepare(self, kernel, workdir) -> None:
        pass

    def close(self) -> None:
        pass


def pool_with(launcher, monkeypatch, size: int, expected: int | None) -> KernelPool:
    monkeypatch.setattr(kernels, "ForkLauncher", lambda memory_limit_mb: launcher)
    return KernelPool(size, startup_timeout=5, expected=expected)


def settle(pool: KernelPool) -> None:
    """Let the booting threads do what they will (they boot within a few hundredths)."""
    time.sleep(0.3)


def test_without_an_expected_count_the_pool_keeps_size_kernels_waiting(monkeypatch):
    launcher = FakeLauncher()
    with pool_with(launcher, monkeypatch, size=3, expected=None) as pool:
        for _ in range(2):
            pool.acquire("/tmp").close()
        settle(pool)
        assert launcher.boots == 5  # 2 handed out, 3 waiting for requests that never come


@pytest.mark.parametrize("size, expected", [(3, 2), (2, 5), (4, 4), (1, 1)])
def test_the_pool_boots_exactly_what_the_run_asks_for(monkeypatch, size, expected):
    launcher = FakeLauncher()
    with pool_with(launcher, monkeypatch, size, expected) as pool:
        pool.check()
        handed = [pool.acquire("/tmp") for _ in range(expected)]
        settle(pool)
        assert launcher.boots == expected
    assert sorted(k.number for k in handed) == list(range(1, expected + 1))


def test_a_request_beyond_the_expected_count_is_served(monkeypatch):
    # a submission whose kernel died gets another: one boot more than expected, on demand
    launcher = FakeLauncher()
    with pool_with(launcher, monkeypatch, size=2, expected=2) as pool:
        first = [pool.acquire("/tmp") for _ in range(2)]
        extra = pool.acquire("/tmp")
        assert extra.alive() and extra not in first
        settle(pool)
        assert launcher.boots == 3


def test_a_kernel_dead_on_arrival_is_replaced_within_the_expected_count(monkeypatch):
    launcher = FakeLauncher(dead={1})
    with pool_with(launcher, monkeypatch, size=2, expected=2) as pool:
        handed = [pool.acquire("/tmp") for _ in range(2)]
        assert all(k.alive() for k in handed)
        settle(pool)
        assert launcher.boots == 3  # the dead one, and one more in its place


def test_concurrent_requests_each_get_their_own_kernel(monkeypatch):
    launcher = FakeLauncher()
    handed, lock = [], threading.Lock()

    def take(pool):
        kernel = pool.acquire("/tmp")
        with lock:
            handed.append(kernel)

    with pool_with(launcher, monkeypatch, size=2, expected=6) as pool:
        threads = [threading.Thread(target=take, args=(pool,)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
        settle(pool)
    assert len({id(k) for k in handed}) == 8
    assert launcher.boots == 8  # 6 booted ahead, 2 on demand: none wasted


def test_the_booting_threads_outlive_the_kernels_they_started(monkeypatch):
    # a sandboxed kernel gets its parent's death signal when the *thread* that started it
    # ends: a booting thread that stopped once all expected kernels were booted killed the
    # kernels still waiting in the queue (seen as "kernel died during set-up")
    launcher = FakeLauncher()
    with pool_with(launcher, monkeypatch, size=3, expected=3) as pool:
        settle(pool)
        assert launcher.boots == 3
        assert all(thread.is_alive() for thread in pool._threads)
        [pool.acquire("/tmp") for _ in range(3)]
        settle(pool)
        assert all(thread.is_alive() for thread in pool._threads)
    assert not any(thread.is_alive() for thread in pool._threads)
