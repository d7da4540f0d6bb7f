"""The toolchain parses Python one thread at a time (``autogradkit_instructor/pyast.py``):
CPython 3.11 shares the syntax tree's depth counter between threads, and a release run
beside another (the round trip's editions, ``grade -j``) failed with "SystemError: AST
constructor recursion depth mismatch"."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from autogradkit_instructor import pyast

TOOLCHAIN = Path(pyast.__file__).parent


def test_the_toolchain_parses_only_through_pyast():
    offenders = [
        f"{path.relative_to(TOOLCHAIN)}:{number}"
        for path in sorted(TOOLCHAIN.rglob("*.py"))
        if path.name != "pyast.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "ast.parse(" in line.replace("pyast.parse(", "")
    ]
    assert offenders == []


def test_a_child_forked_while_a_thread_parses_can_parse():
    """The lock is fresh in a forked child: the thread that held it was not forked with it."""
    held, release = threading.Event(), threading.Event()

    def hold():
        with pyast._ONE_AT_A_TIME:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # the child: parse, and say so by its exit status
            code = 0
            try:
                if not isinstance(pyast.parse("x = 1"), pyast.ast.Module):
                    code = 2
            finally:
                os._exit(code)
        waited, status = 0.0, None
        while status is None and waited < 20:
            done, raw = os.waitpid(pid, os.WNOHANG)
            status = os.waitstatus_to_exitcode(raw) if done else None
            threading.Event().wait(0.05)
            waited += 0.05
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        assert status == 0
    finally:
        release.set()
        holder.join()
