"""A process that imports a kernel's heavy modules once, then forks a fresh kernel per request.

Starting an IPython kernel from scratch costs about a second of CPU, nearly all of it imports.
This server pays that once: each request (one JSON line on stdin naming a connection file)
forks a child that becomes a brand-new kernel in about 0.1 s. The child gets its own session
(so a kill reaches everything it started), a memory cap and new random seeds; student code in
one kernel can never touch another. Run as
``python -m autogradkit_instructor.forkserver [--memory-limit MB]``; answers ``{"pid": N}``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import signal
import sys
import threading

from ipykernel.kernelapp import IPKernelApp
from jupyter_client import localinterfaces

__all__ = ["PRELOAD", "preload", "become_kernel", "serve", "main"]

PRELOAD = (
    "numpy",
    "autogradkit",
    "autogradkit.nn",
    "autogradkit.optim",
    "autogradkit.grading.checks",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.zmqshell",
    "ipykernel.debugger",
)


def preload() -> None:
    """Import what every kernel needs; warn if that started a thread (fork copies only one)."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            continue  # an optional part of the kit that is not installed

    localinterfaces.localhost()  # cached now, so no child pays for the interface scan
    if threading.active_count() > 1:
        print("forkserver: warning: threads running before fork", file=sys.stderr)


def become_kernel(connection_file: str, memory_limit_mb: int, parent: int) -> None:
    """In the forked child: isolate, cap memory, reseed, then run an IPython kernel."""
    try:
        os.setsid()
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if memory_limit_mb > 0:
            limit = memory_limit_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # never write into the server's request/answer pipes
            os.dup2(null, fd)
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()  # a fresh process would not share the server's
        sys.argv = ["ipykernel_launcher"]

        IPKernelApp.launch_instance(
            argv=[
                # plain tracebacks: the default "Context" mode costs ~0.15 s per error
                "-f",
                connection_file,
                "--HistoryManager.enabled=False",
                "--InteractiveShell.xmode=Plain",
                f"--IPKernelApp.parent_handle={parent}",
            ]
        )
    finally:
        os._exit(0)


def serve(memory_limit_mb: int) -> None:
    """Answer fork requests until stdin closes (the grader ended), then exit."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped automatically
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            become_kernel(request["connection_file"], memory_limit_mb, os.getppid())
        print(json.dumps({"pid": pid}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m autogradkit_instructor.forkserver")
    parser.add_argument("--memory-limit", type=int, default=0, help="MiB per kernel (0: none)")
    args = parser.parse_args(argv)
    preload()
    print(json.dumps({"ready": True}), flush=True)
    serve(args.memory_limit)


if __name__ == "__main__":
    main()
