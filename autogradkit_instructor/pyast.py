"""Python's ``ast.parse`` and ``compile`` of a tree, one thread at a time.

CPython 3.11 keeps the depth of the syntax tree it is building or checking in one counter that
every thread shares (python/cpython#106905): two threads parsing at once can fail with
"SystemError: AST constructor recursion depth mismatch". The grader reads submissions in
threads (``grade -j``) and releases may run side by side, so the toolchain parses through here.
"""

from __future__ import annotations

import ast
import os
import threading

__all__ = ["compile_tree", "parse"]

_ONE_AT_A_TIME = threading.RLock()


def _fresh_lock() -> None:
    """A forked child starts with the lock free (a thread holding it was not forked with it)."""
    global _ONE_AT_A_TIME
    _ONE_AT_A_TIME = threading.RLock()


os.register_at_fork(after_in_child=_fresh_lock)


def parse(source, *args, **kwargs) -> ast.AST:
    """``ast.parse``, while no other thread of this process parses or compiles a tree."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, *args, **kwargs)


def compile_tree(tree: ast.AST, filename: str, mode: str):
    """``compile`` of a syntax tree (which checks it, with the same shared counter)."""
    with _ONE_AT_A_TIME:
        return compile(tree, filename, mode)
