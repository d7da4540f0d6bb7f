"""Grading kernels: forked from a warm server, watched for death, killed without mercy.

``KernelPool`` keeps a few kernels started ahead of time, so a submission never waits for a
kernel to boot. Every kernel serves exactly one submission and is then killed: each student's
code runs in a fresh process. A kernel's death is seen at once (a pidfd becomes readable),
not after a timeout.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def kernel_env() -> dict[str, str]:
    """The environment for kernels we start: inline figures, quiet debugger, one BLAS thread."""
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # an exported Agg backend would suppress inline figures
    env.update(
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    return env


class KernelDied(RuntimeError):
    """The kernel process exited (crash, ``os._exit``, out of memory, killed)."""


class ForkServer:
    """The client side of ``forkserver.py``; restarts the server if it died."""

    def __init__(self, memory_limit_mb: int = 0):
        self.memory_limit_mb = memory_limit_mb
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        cmd = [
            sys.executable,
            "-m",
            "autogradkit.grading.forkserver",
            "--memory-limit",
            str(self.memory_limit_mb),
        ]
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=kernel_env(),
            cwd=tempfile.gettempdir(),
        )
        if not proc.stdout.readline():
            raise RuntimeError("the kernel fork server did not start (see the error above)")
        return proc

    def fork(self, connection_file: str) -> int:
        """A new kernel process for ``connection_file``; returns its pid."""
        with self._lock:
            for _attempt in range(2):
                if self._proc is None or self._proc.poll() is not None:
                    self._proc = self._start()
                try:
                    self._proc.stdin.write(json.dumps({"connection_file": connection_file}) + "\n")
                    self._proc.stdin.flush()
                    answer = self._proc.stdout.readline()
                except BrokenPipeError:
                    answer = ""
                if answer:
                    return int(json.loads(answer)["pid"])
                self._proc.kill()  # the server died (a student may have killed it): restart
            raise RuntimeError("the kernel fork server keeps dying")

    def close(self) -> None:
        with self._lock:
            if self._proc is not None:
                self._proc.stdin.close()
                try:
                    self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                self._proc = None


class Kernel:
    """One running kernel: its pid, a blocking client, and a way to wait on both."""

    def __init__(self, pid: int, client, connection_file: str):
        self.pid, self.client, self.connection_file = pid, client, connection_file
        self._exit_fd = _pidfd(pid)

    @classmethod
    def start(cls, server: ForkServer, folder: str, timeout: float = 60.0) -> Kernel:
        """Fork a kernel and return it once it answers ``kernel_info`` on both channels."""
        from jupyter_client.blocking import BlockingKernelClient
        from jupyter_client.connect import write_connection_file

        handle, name = tempfile.mkstemp(suffix=".json", dir=folder)
        os.close(handle)
        write_connection_file(name, ip="127.0.0.1", transport="tcp")
        pid = server.fork(name)
        client = BlockingKernelClient()
        client.load_connection_file(name)
        client.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=False)
        kernel = cls(pid, client, name)
        try:
            kernel._handshake(timeout)
        except BaseException:
            kernel.close()
            raise
        return kernel

    def _handshake(self, timeout: float) -> None:
        """Wait for the kernel, then until IOPub delivers (ZeroMQ subscribes lazily)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.client.kernel_info()
            event = self.wait(1.0, self.client.shell_channel.socket)
            if event == "died":
                raise KernelDied(f"kernel {self.pid} died while starting")
            if event == "message":
                self.client.get_shell_msg(timeout=0)
                if self.wait(0.5) == "message":
                    while self.wait(0.05) == "message":
                        self.drain()
                    return
        raise TimeoutError(f"kernel {self.pid} did not answer within {timeout:g} s")

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return self._exit_fd is None or not _readable(self._exit_fd)

    def wait(self, timeout: float, socket=None) -> str:
        """Block until a message arrives (``"message"``), the kernel dies (``"died"``) or
        ``timeout`` seconds pass (``"timeout"``)."""
        import zmq

        socket = socket if socket is not None else self.client.iopub_channel.socket
        poller = zmq.Poller()
        poller.register(socket, zmq.POLLIN)
        if self._exit_fd is not None:
            poller.register(self._exit_fd, zmq.POLLIN)
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            step = deadline - time.monotonic()
            # without a pidfd, look at the process ten times a second
            wait_ms = max(0, int(1000 * (step if self._exit_fd is not None else min(step, 0.1))))
            events = dict(poller.poll(wait_ms))
            if socket in events:
                return "message"
            if self._exit_fd in events or not self.alive():
                return "died"
            if time.monotonic() >= deadline:
                return "timeout"

    def drain(self) -> list[dict]:
        """Every IOPub message that has already arrived."""
        messages = []
        while self.client.iopub_channel.msg_ready():
            messages.append(self.client.get_iopub_msg(timeout=0))
        return messages

    def lower_priority(self) -> None:
        """Nice the kernel and its children to 19: the other kernels run first."""
        try:
            os.setpriority(os.PRIO_PGRP, self.pid, 19)
        except OSError:
            pass  # the kernel already exited; the next wait() reports it

    def interrupt(self) -> None:
        _signal(self.pid, signal.SIGINT, group=False)

    def close(self) -> None:
        """Kill the kernel and everything it started; free its sockets and files."""
        _signal(self.pid, signal.SIGKILL, group=True)
        self.client.stop_channels()
        if self._exit_fd is not None:
            os.close(self._exit_fd)
            self._exit_fd = None
        Path(self.connection_file).unlink(missing_ok=True)


def _pidfd(pid: int) -> int | None:
    """A file descriptor that becomes readable when ``pid`` exits (Linux 5.3+), or None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _readable(fd: int) -> bool:
    import select

    return bool(select.select([fd], [], [], 0)[0])


def _signal(pid: int, sig: int, group: bool) -> None:
    try:
        os.killpg(pid, sig) if group else os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # already gone


class KernelPool:
    """Keeps ``size`` kernels booted ahead of time; ``acquire`` hands out one, fresh.

    Example (not run: it starts processes)::

        with KernelPool(2, memory_limit_mb=2048) as pool:
            kernel = pool.acquire("/path/to/notebook/folder")
            ...
            kernel.close()
    """

    def __init__(self, size: int, memory_limit_mb: int = 0, startup_timeout: float = 60.0):
        self.size, self.startup_timeout = size, startup_timeout
        self._server = ForkServer(memory_limit_mb)
        self._folder = tempfile.mkdtemp(prefix="autogradkit-kernels-")
        self._ready: queue.Queue = queue.Queue()
        self._wanted = threading.Semaphore(size)
        self._closed = threading.Event()
        # one booting thread per slot: a boot is mostly waiting, and one thread booting
        # kernels one after the other would be slower than the graders using them
        self._threads = [
            threading.Thread(target=self._fill, name=f"kernel-pool-{i}", daemon=True)
            for i in range(size)
        ]
        for thread in self._threads:
            thread.start()

    def _fill(self) -> None:
        """Background thread: boot a kernel whenever fewer than ``size`` are waiting."""
        while True:
            self._wanted.acquire()
            if self._closed.is_set():
                return
            self._ready.put(self._boot())

    def _boot(self, attempts: int = 3):
        """A started kernel, or the error that stopped the last attempt.

        A kernel that dies while starting is replaced, up to ``attempts`` times in all: its
        randomly chosen port can be taken between being picked and being bound, by another
        kernel booting at the same moment. That is bad luck, not the submission's fault.
        """
        for _ in range(attempts):
            try:
                return Kernel.start(self._server, self._folder, self.startup_timeout)
            except KernelDied as error:  # a fresh connection file gets fresh ports
                died = error
            except Exception as error:  # handed to the submission that asks next
                return error
        return died

    def acquire(self, workdir: str | Path) -> Kernel:
        """A booted kernel whose working directory is ``workdir``."""
        while True:
            try:
                item = self._ready.get(timeout=self.startup_timeout + 5)
            except queue.Empty:
                raise TimeoutError(f"no kernel started within {self.startup_timeout:g} s") from None
            self._wanted.release()
            if isinstance(item, Exception):
                raise RuntimeError(f"no kernel could be started: {item}")
            if item.alive():
                break
            item.close()
        from .runner import run_silent

        folder = str(Path(workdir).resolve())  # the kernel's own cwd is elsewhere
        run_silent(item, f"import os as _o; _o.chdir({folder!r}); del _o")
        return item

    def close(self) -> None:
        self._closed.set()
        for _ in self._threads:
            self._wanted.release()  # wake every booting thread so it sees "closed"
        for thread in self._threads:
            thread.join(timeout=self.startup_timeout)
        while not self._ready.empty():
            item = self._ready.get()
            if isinstance(item, Kernel):
                item.close()
        self._server.close()
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> KernelPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
