"""Grading kernels: forked from a warm server, watched for death, killed without mercy.

``KernelPool`` keeps a few kernels started ahead of time, so a submission never waits for a
kernel to boot. Every kernel serves exactly one submission and is then killed: each student's
code runs in a fresh process. A kernel's death is seen at once (a pidfd becomes readable),
not after a timeout.

Two launchers start kernels. ``SandboxLauncher`` (the default for ``grade``) starts each kernel
in its own sandbox (``sandbox.py``) and talks to it over ZeroMQ ``ipc`` sockets in a folder
bound into the sandbox. ``ForkLauncher`` forks kernels from a warm server, as the grader's own
user (``--sandbox none`` and ``validate``, where students run their own notebook).
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import json
import os
import queue
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import zmq
from jupyter_client.blocking import BlockingKernelClient
from jupyter_client.manager import KernelManager
from jupyter_core.paths import jupyter_runtime_dir

from .container import Container
from .files import copy_files
from .sandbox import (
    INSIDE_HOME,
    INSIDE_SOCKETS,
    INSIDE_STAGING,
    Box,
    Bubblewrap,
    Limits,
    descendants,
    remove_stale_cgroups,
    send_signal,
    too_many_tasks,
    too_much_memory,
)

__all__ = [
    "kernel_env",
    "ignore_user_settings",
    "socket_folder",
    "KernelDied",
    "ForkServer",
    "Kernel",
    "KERNEL_ARGV",
    "sandbox_backend",
    "get_reply",
    "ready_reply",
    "replies_to",
    "run_silent",
    "local_kernel_manager",
    "ForkLauncher",
    "SandboxLauncher",
    "KernelPool",
]


def kernel_env() -> dict[str, str]:
    """The environment for kernels we start: inline figures, quiet debugger, one BLAS thread,
    and none of the user's own settings."""
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # an exported Agg backend would suppress inline figures
    env.update(
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    ignore_user_settings(env)
    return env


def ignore_user_settings(env) -> None:
    """Make a kernel started with ``env`` read and write nothing of its user's home: a
    matplotlibrc there (``figure.dpi: 150`` would change every stored figure), an IPython
    profile's kernel config and startup files (``figure_formats = {'svg'}``), nor
    ``PYTHONSTARTUP``; and IPython and matplotlib keep their files in folders of this
    process's own, so a home that does not exist or is read-only changes no output (matplotlib
    warned in the first figure's cell, naming a random folder). Stored outputs are the
    course's, the same on every machine."""
    env.pop("PYTHONSTARTUP", None)
    env["IPYTHONDIR"] = _own_folder("ipython")
    env["MPLCONFIGDIR"] = _own_folder("matplotlib")  # its font cache: built once per process
    matplotlib = importlib.util.find_spec("matplotlib")
    if matplotlib is not None:  # its defaults; a course's own ./matplotlibrc still comes first
        env["MATPLOTLIBRC"] = str(Path(matplotlib.origin).parent / "mpl-data" / "matplotlibrc")


@functools.cache
def _own_folder(tool: str) -> str:
    """An empty settings folder for ``tool``, this process's own, removed when it exits."""
    folder = tempfile.mkdtemp(prefix=f"autogradkit-{tool}-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


# ZeroMQ's ipc sockets are files whose path must fit in 107 bytes (sun_path): a deep home or
# TMPDIR (a CI runner's, a clone far down a user's folders) makes "File name too long". What
# the launchers add below the folder (/autogradkit-boxes-…/box-…/sockets/kernel-1) fits in 67
IPC_FOLDER_MAX = 40


def socket_folder(folder: str | None = None) -> str:
    """``folder`` (the temporary folder when None) if the kernels' socket paths fit in it,
    else ``/tmp``."""
    folder = folder or tempfile.gettempdir()
    return folder if len(os.fsencode(folder)) <= IPC_FOLDER_MAX else "/tmp"


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
            "autogradkit_instructor.forkserver",
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
    """One running kernel: its pid, a blocking client, and a way to wait on both.

    ``pid`` is the process whose exit means the kernel is gone: the kernel itself when forked,
    the outer ``bwrap`` when sandboxed (``box`` and ``process`` are then set).
    """

    def __init__(self, pid: int, client, connection_file: str, box=None, process=None):
        self.pid, self.client, self.connection_file = pid, client, connection_file
        self.box, self.process = box, process
        self._exit_fd = _pidfd(pid)
        self._drops = None  # ZeroMQ's events of IOPub's connection: a drop refused a message
        self.answered_again: set[str] = set()  # requests a second shell reply came for
        self.unclaimed: list[dict] = []  # shell replies the handshake read, kept for theirs
        self.limit_reached = ""  # "processes" or "memory": the grader ended its sandbox for it
        self.tree = pid  # the process whose tree is the sandbox (a container's own init)
        self.closing = threading.Lock()  # held by close, and by whoever may still signal it
        self.closed = False

    @classmethod
    def connect(cls, pid: int, info: dict, connection_file: str, timeout: float, **extra) -> Kernel:
        """A client for the kernel ``pid`` that listens at ``info``, once it answers."""
        client = BlockingKernelClient(context=_client_context())
        client.load_connection_info(info)
        kernel = cls(pid, client, connection_file, **extra)
        try:
            client.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=False)
            kernel._handshake(timeout)
            kernel._watch_iopub()
        except BaseException:
            kernel.close()
            raise
        return kernel

    def _handshake(self, timeout: float) -> None:
        """Wait for the kernel, then until IOPub delivers (ZeroMQ subscribes lazily)."""
        deadline, asked = time.monotonic() + timeout, set()
        while time.monotonic() < deadline:
            asked.add(self.client.kernel_info())
            event = self.wait(1.0, self.client.shell_channel.socket)
            if event == "died":
                raise KernelDied(f"kernel {self.pid} died while starting{self._last_words()}")
            if event == "message" and self._answered(asked):
                if self.wait(0.5) == "message":
                    while self.wait(0.05) == "message":
                        self.drain()
                    return
        raise TimeoutError(f"kernel {self.pid} did not answer within {timeout:g} s")

    def _answered(self, asked: set[str]) -> bool:
        """Whether a shell reply to one of the ``asked`` requests has arrived. Another reply
        met on the way is kept in ``unclaimed`` for whoever waits for it: a reconnection's
        handshake (``refused_messages``) can come while a cell's reply is still unread."""
        answered = False
        for msg in shell_messages(self):
            if any(replies_to(msg, msg_id) for msg_id in asked):
                answered = True
            elif len(self.unclaimed) < QUEUED_MESSAGES:  # bounded: the kernel is untrusted
                self.unclaimed.append(msg)
        return answered

    def _last_words(self) -> str:
        """The end of what a sandboxed kernel wrote to stderr, to say why it died."""
        try:
            text = (self.box.folder / "stderr").read_text(errors="replace").strip()
        except (AttributeError, OSError):
            return ""
        return f": {text[-400:]}" if text else ""

    def refused_messages(self) -> bool:
        """Whether IOPub's connection dropped since the last call; if so it is opened again.

        ZeroMQ refuses a message over ``MAX_MESSAGE_BYTES`` by dropping the connection, which
        does not come back by itself: a new socket is connected, and waited for.
        """
        dropped = False
        while self._drops is not None and self._drops.poll(0):
            self._drops.recv_multipart()
            dropped = True
        if dropped and self.alive():
            self._unwatch_iopub()
            self.client.iopub_channel.close()
            self.client._iopub_channel = None  # jupyter_client connects a new one on use
            self.client.iopub_channel.start()
            self._watch_iopub()
            try:
                self._handshake(10.0)
            except (KernelDied, TimeoutError):
                pass  # the next cell meets the dead or deaf kernel and reports it
        return dropped

    def _watch_iopub(self) -> None:
        self._drops = self.client.iopub_channel.socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)

    def _unwatch_iopub(self) -> None:
        if self._drops is not None:
            self.client.iopub_channel.socket.disable_monitor()
            self._drops.close(linger=0)
            self._drops = None

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return self._exit_fd is None or not _readable(self._exit_fd)

    def wait(self, timeout: float, socket=None, also=None) -> str:
        """Block until a message arrives (``"message"``, on IOPub or ``socket``, or on
        ``also``), the kernel dies (``"died"``) or ``timeout`` seconds pass (``"timeout"``)."""
        socket = socket if socket is not None else self.client.iopub_channel.socket
        poller = zmq.Poller()
        poller.register(socket, zmq.POLLIN)
        if also is not None:
            poller.register(also, zmq.POLLIN)
        if self._exit_fd is not None:
            poller.register(self._exit_fd, zmq.POLLIN)
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            step = deadline - time.monotonic()
            # without a pidfd, look at the process ten times a second
            wait_ms = max(0, int(1000 * (step if self._exit_fd is not None else min(step, 0.1))))
            events = dict(poller.poll(wait_ms))
            if socket in events or (also is not None and also in events):
                return "message"
            if self._exit_fd in events or not self.alive():
                return "died"
            if time.monotonic() >= deadline:
                return "timeout"

    def drain(self) -> list[dict]:
        """Every IOPub message that has already arrived; one that cannot be read (not JSON,
        a wrong signature: the kernel is the submission's) is dropped."""
        messages = []
        while self.client.iopub_channel.msg_ready():
            try:
                messages.append(self.client.get_iopub_msg(timeout=0))
            except Exception:  # noqa: BLE001 (whatever the kernel sent: it is not a message)
                continue
        return messages

    def lower_priority(self) -> None:
        """Nice the kernel and its children to 19: the other kernels run first."""
        for pid in [self.pid, *descendants(self.pid)]:
            try:
                os.setpriority(os.PRIO_PROCESS, pid, 19)
            except OSError:
                pass  # the process already exited; the next wait() reports it

    def interrupt(self) -> None:
        """SIGINT to the kernel process (a sandboxed one through its backend)."""
        if self.box is None:
            return send_signal(self.pid, signal.SIGINT, group=False)
        self.box.backend.interrupt(self)

    def close(self) -> None:
        """Kill the kernel and everything it started; free its sockets and files.

        A sandbox's tree dies with its outer ``bwrap`` (pid namespace, ``--die-with-parent``),
        even the processes a student detached with ``setsid``.
        """
        with self.closing:  # a watchdog never signals its pid once another may have it
            self.closed = True
        send_signal(self.pid, signal.SIGKILL, group=True)
        if self.process is not None:
            self.process.wait()
        self._unwatch_iopub()
        self.client.stop_channels()
        if self._exit_fd is not None:
            os.close(self._exit_fd)
            self._exit_fd = None
        Path(self.connection_file).unlink(missing_ok=True)
        if self.box is not None:
            self.box.backend.stop(self.box)
            self.box.remove()


MAX_MESSAGE_BYTES = 16 * 2**20  # one part of a message from a kernel (a figure is ~0.1 MiB)
QUEUED_MESSAGES = 16  # messages ZeroMQ keeps waiting per socket before it drops more
_context: list[zmq.Context] = []


def _client_context() -> zmq.Context:
    """The ZeroMQ context of every client socket the grader opens to a kernel: the memory a
    kernel can make the grader hold is bounded by what the socket takes, before any Python
    code sees a byte. A larger message is refused as it arrives (ZeroMQ drops the
    connection, which reconnects at once); at most ``QUEUED_MESSAGES`` wait to be read."""
    if not _context:
        context = zmq.Context()
        context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        context.setsockopt(zmq.RCVHWM, QUEUED_MESSAGES)
        _context.append(context)
    return _context[0]


def _pidfd(pid: int) -> int | None:
    """A file descriptor that becomes readable when ``pid`` exits (Linux 5.3+), or None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _readable(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


KERNEL_ARGV = [
    "-m",
    "ipykernel_launcher",
    # plain tracebacks: the default "Context" mode costs ~0.15 s per error
    "--HistoryManager.enabled=False",
    "--InteractiveShell.xmode=Plain",
]


def sandbox_backend(name: str, limits: Limits):
    """The backend called ``name``: ``bwrap``, ``docker``, ``podman`` or ``none`` (None)."""
    if name == "none":
        return None
    if name == "bwrap":
        return Bubblewrap(limits)
    if name in ("docker", "podman"):
        return Container(name, limits)
    raise ValueError(f"unknown sandbox {name!r}: choose bwrap, docker, podman or none")


def get_reply(kernel: Kernel, msg_id: str, timeout: float = 10.0) -> dict | None:
    """The content of the shell reply to ``msg_id``, or None if the kernel died first."""
    deadline = time.monotonic() + timeout
    socket = kernel.client.shell_channel.socket
    while time.monotonic() < deadline:
        reply = ready_reply(kernel, msg_id)
        if reply is not None:
            return reply
        if kernel.wait(deadline - time.monotonic(), socket) == "died":
            return None
    return None


def ready_reply(kernel: Kernel, msg_id: str) -> dict | None:
    """The content of the shell reply to ``msg_id`` if it has arrived, else None. A reply to
    an earlier request (whose reply was taken already) is noted in ``kernel.answered_again``:
    a kernel answers each request once, so one of the two was forged."""
    for msg in kernel.unclaimed:
        if replies_to(msg, msg_id):
            kernel.unclaimed.remove(msg)
            return msg["content"]
    for msg in shell_messages(kernel):
        if replies_to(msg, msg_id):
            return msg["content"]
        parent = msg.get("parent_header")
        if isinstance(parent, dict) and isinstance(parent.get("msg_id"), str):
            kernel.answered_again.add(parent["msg_id"])
    return None


def shell_messages(kernel: Kernel):
    """Each shell message that has already arrived, read as it is asked for; one that cannot
    be read (not JSON, a wrong signature: the kernel is the submission's) is dropped."""
    while kernel.client.shell_channel.msg_ready():
        try:
            yield kernel.client.get_shell_msg(timeout=0)
        except Exception:  # noqa: BLE001 (whatever the kernel sent: it is not a message)
            continue


def replies_to(msg: dict, msg_id: str) -> bool:
    """Whether ``msg`` has Jupyter's shape (a dict content) and answers request ``msg_id``."""
    parent = msg.get("parent_header")
    return (
        isinstance(parent, dict)
        and parent.get("msg_id") == msg_id
        and isinstance(msg.get("content"), dict)
    )


def run_silent(kernel: Kernel, code: str, timeout: float = 30.0, expression: str = "") -> str:
    """Run set-up code that leaves no trace: no output, no history, no execution count.

    Returns the ``text/plain`` value of ``expression`` evaluated afterwards ("" without one).
    It is done when its shell reply arrives: its "idle" on IOPub may never come, as ZeroMQ
    drops messages a kernel sends faster than they are read (a thread flooding stdout).
    """
    expressions = {"value": expression} if expression else {}
    msg_id = kernel.client.execute(
        code, silent=True, store_history=False, user_expressions=expressions
    )
    deadline = time.monotonic() + timeout
    shell = kernel.client.shell_channel.socket
    while time.monotonic() < deadline:
        event = kernel.wait(deadline - time.monotonic(), also=shell)
        if event == "died":
            raise KernelDied(f"kernel {kernel.pid} died during set-up")
        kernel.drain()  # what arrived on IOPub: nothing of it is kept
        reply = ready_reply(kernel, msg_id)
        if reply is not None:
            return _value(reply) if expression else ""
    raise TimeoutError(f"kernel {kernel.pid} did not finish its set-up in {timeout:g} s")


def _value(reply: dict | None) -> str:
    """The ``text/plain`` of the reply's expression: text, or "" (a kernel can send anything)."""
    expressions = (reply or {}).get("user_expressions")
    value = expressions.get("value") if isinstance(expressions, dict) else None
    data = value.get("data") if isinstance(value, dict) else None
    text = data.get("text/plain") if isinstance(data, dict) else None
    return text if isinstance(text, str) else ""


def local_kernel_manager():
    """A manager for one unconfined kernel of this environment, for the instructor's own
    notebooks (build, release): this Python whatever kernelspecs are installed (as nbval's
    ``--nbval-current-env``, so stored outputs match CI's), over ``ipc`` sockets in Jupyter's
    private runtime folder (an absolute path: the kernel runs in the notebook's folder)."""

    runtime = Path(jupyter_runtime_dir())
    if socket_folder(str(runtime)) != str(runtime):  # too deep: a private folder in /tmp
        runtime = Path(_private_socket_folder())
    runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
    sockets = str(runtime / f"autogradkit-{uuid.uuid4().hex[:12]}")
    manager = KernelManager(kernel_name="python3", transport="ipc", ip=sockets)
    manager.kernel_spec.argv = [
        sys.executable,
        "-m",
        "ipykernel_launcher",
        "-f",
        "{connection_file}",
    ]
    return manager


@functools.cache
def _private_socket_folder() -> str:
    """A folder in /tmp that only this user can enter, removed when this process exits."""
    folder = tempfile.mkdtemp(prefix="agk-", dir="/tmp")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


class ForkLauncher:
    """Kernels forked from a warm ``ForkServer``, unconfined, over ``ipc`` sockets in a private
    folder (TCP on 127.0.0.1 would be reachable by every local user, and ipykernel warns so)."""

    sandbox = "none"

    def __init__(self, memory_limit_mb: int = 0):
        self._server = ForkServer(memory_limit_mb)
        self._folder = tempfile.mkdtemp(prefix="autogradkit-kernels-", dir=socket_folder())

    def start(self, timeout: float) -> Kernel:
        handle, name = tempfile.mkstemp(suffix=".json", dir=self._folder)
        info = _ipc_connection(name.removesuffix(".json"))
        with os.fdopen(handle, "w") as connection_file:
            json.dump(info, connection_file)
        return Kernel.connect(self._server.fork(name), info, name, timeout)

    def prepare(self, kernel: Kernel, workdir: Path) -> None:
        """Work in ``workdir`` itself (the kernel's own cwd is elsewhere)."""
        run_silent(kernel, f"import os as _o; _o.chdir({str(workdir.resolve())!r}); del _o")

    def close(self) -> None:
        self._server.close()
        shutil.rmtree(self._folder, ignore_errors=True)


WATCH_EVERY = 0.05  # seconds between two counts of a sandbox's processes
MEASURE_EVERY = 0.25  # seconds between two sums of its memory, a costlier walk of its tree


class SandboxLauncher:
    """One sandbox per kernel, from ``backend`` (``sandbox.Bubblewrap``), over ``ipc``.

    Two watchdog threads measure each sandbox from the host: its processes and threads every
    ``WATCH_EVERY`` seconds, their resident memory summed every ``MEASURE_EVERY`` seconds
    (``sandbox.too_many_tasks``, ``sandbox.too_much_memory``). They kill a sandbox that
    reaches ``limits.processes`` or passes ``limits.memory_mb``: caps for the whole sandbox
    that need no cgroup (a cgroup-v2 machine, a grader that is not root, where ``RLIMIT_AS``
    caps each process alone) and no ``RLIMIT_NPROC`` (which exempts root, as
    the sandbox's user is when the grader is); where a cgroup or a container runtime holds the
    sandbox at the cap, a fork bomb's processes do not spin on, beside the other submissions,
    until its own submission ends. A container's processes are not the client's children:
    the tree watched is the container's own (``backend.tree_root``).
    """

    def __init__(self, backend, limits: Limits):
        self.backend, self.limits, self.sandbox = backend, limits, backend.name
        remove_stale_cgroups()
        self._folder = tempfile.mkdtemp(prefix="autogradkit-boxes-", dir=socket_folder())
        self._watched: list[Kernel] = []
        self._stopped = threading.Event()
        processes = functools.partial(too_many_tasks, stop=limits.processes)
        memory = functools.partial(too_much_memory, cap=limits.memory_mb * 2**20)
        for limit, passed, every, backs_off in (
            ("processes", processes, WATCH_EVERY, False),  # a count that stops at the cap
            ("memory", memory, MEASURE_EVERY, True),
        ):
            watch = functools.partial(self._watch, limit, passed, every, backs_off)
            threading.Thread(target=watch, name=f"{limit}-watchdog", daemon=True).start()

    def _watch(self, limit: str, passed, every: float, backs_off: bool) -> None:
        """Every ``every`` seconds, end each sandbox whose tree has ``passed`` the limit.

        Each limit has its own thread, so a slow memory sweep (many processes' ``Pss`` to
        read) never delays counting processes; one that ``backs_off`` pauses ten times as long
        as its last sweep took, so it never takes more than a tenth of a core.
        """
        pause = every
        while not self._stopped.wait(pause):
            started = time.monotonic()
            for kernel in list(self._watched):
                reached = passed(kernel.tree)  # measured outside the lock: close need not wait
                with kernel.closing:
                    if kernel.closed or kernel.limit_reached:
                        if kernel in self._watched:  # the other watchdog may have removed it
                            self._watched.remove(kernel)
                    elif reached:  # the container's init first: its whole tree dies with it
                        kernel.limit_reached = limit
                        send_signal(kernel.tree, signal.SIGKILL, group=False)
                        send_signal(kernel.pid, signal.SIGKILL, group=True)
            if backs_off:
                pause = max(every, 10 * (time.monotonic() - started))

    def start(self, timeout: float) -> Kernel:
        """Start a sandboxed kernel; the client connects to its sockets from outside."""
        box = Box(self._folder, self.backend)
        options = self.backend.spawn_options(box)
        info = _ipc_connection(f"{INSIDE_SOCKETS}/kernel")
        inside = box.sockets / "kernel.json"
        inside.write_text(json.dumps(info))
        argv = [sys.executable, *KERNEL_ARGV, "-f", f"{INSIDE_SOCKETS}/kernel.json"]
        with (box.folder / "stderr").open("wb") as stderr:  # read if it dies while starting
            process = self._spawn(box, argv, stderr, options)
        outside = {**info, "ip": str(box.sockets / "kernel")}
        extra = {"box": box, "process": process}
        kernel = Kernel.connect(process.pid, outside, str(inside), timeout, **extra)
        box.seal()  # the sockets exist: from now on the folder takes no file, loses none
        kernel.tree = self.backend.tree_root(box, process.pid)
        self._watched.append(kernel)
        return kernel

    def _spawn(self, box: Box, argv: list[str], stderr, options: dict) -> subprocess.Popen:
        return subprocess.Popen(
            self.backend.command(box, argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            **options,
        )

    def prepare(self, kernel: Kernel, workdir: Path) -> None:
        """Copy ``workdir``'s regular files into the sandbox's own tmpfs and work there."""
        copy_files(workdir, kernel.box.staging)  # the grader's own copy: nothing refused
        code = (
            f"import os as _o, shutil as _s; _s.copytree({INSIDE_STAGING!r}, {INSIDE_HOME!r}, "
            f"dirs_exist_ok=True); _o.chdir({INSIDE_HOME!r}); del _o, _s"
        )
        run_silent(kernel, code)

    def close(self) -> None:
        self._stopped.set()
        shutil.rmtree(self._folder, ignore_errors=True)


def _ipc_connection(prefix: str) -> dict:
    """Connection info for ZeroMQ ``ipc`` sockets ``<prefix>-1`` ... ``<prefix>-5``."""
    ports = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
    info = {name: number for number, name in enumerate(ports, start=1)}
    info.update(transport="ipc", ip=prefix, key=secrets.token_hex(16))
    return {**info, "signature_scheme": "hmac-sha256", "kernel_name": ""}


class KernelPool:
    """Keeps ``size`` kernels booted ahead of time; ``acquire`` hands out one, fresh.

    ``sandbox`` is a backend from ``sandbox_backend`` (each kernel sandboxed, within
    ``limits``) or None (kernels forked from a warm server, unconfined). ``expected``, when
    known, is how many kernels the run will ask for: the pool boots no more ahead than that
    (a kernel nobody asks for costs a boot), and boots one on demand for a request beyond it
    (a submission whose kernel died and is given another).

    Example (not run: it starts processes)::

        with KernelPool(2, sandbox=Bubblewrap(Limits()), limits=Limits()) as pool:
            kernel = pool.acquire("/path/to/notebook/folder")
            ...
            kernel.close()
    """

    def __init__(
        self,
        size: int,
        memory_limit_mb: int = 0,
        startup_timeout: float = 60.0,
        sandbox=None,
        limits: Limits | None = None,
        expected: int | None = None,
    ):
        self.size, self.startup_timeout = size, startup_timeout
        self._lock = threading.Lock()
        self._to_boot = expected  # boots ahead still worth making (None: no end known)
        self._booting = self._waiting = 0  # boots under way; requests waiting for a kernel
        if sandbox is None:
            self.launcher = ForkLauncher(memory_limit_mb)
        else:
            self.launcher = SandboxLauncher(sandbox, limits or Limits(memory_mb=memory_limit_mb))
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
        """Background thread: boot a kernel whenever fewer than ``size`` are waiting, while
        boots are still wanted. It lives until the pool closes: a kernel dies with the thread
        that started it (the sandbox's parent-death signal follows the thread)."""
        while True:
            self._wanted.acquire()
            with self._lock:
                if self._closed.is_set():
                    return
                if self._to_boot == 0:
                    continue  # all expected kernels are booted: wait for a request beyond
                if self._to_boot is not None:
                    self._to_boot -= 1
                self._booting += 1
            try:
                self._ready.put(self._boot())
            finally:
                with self._lock:
                    self._booting -= 1

    def _next(self):
        """The next booted kernel (or boot error). A request the kernels booted or booting
        cannot meet (beyond ``expected``) asks the booting threads for one more."""
        with self._lock:
            self._waiting += 1
            if self._to_boot is not None:
                short = self._waiting - self._ready.qsize() - self._booting - self._to_boot
                for _ in range(max(0, short)):
                    self._to_boot += 1
                    self._wanted.release()
        try:
            return self._ready.get(timeout=self.startup_timeout + 5)
        except queue.Empty:
            raise TimeoutError(f"no kernel started within {self.startup_timeout:g} s") from None
        finally:
            with self._lock:
                self._waiting -= 1

    def _boot(self, attempts: int = 3):
        """A started kernel, or the error that stopped the last attempt.

        A kernel that dies while starting is replaced, up to ``attempts`` times in all: its
        randomly chosen port can be taken between being picked and being bound, by another
        kernel booting at the same moment. That is bad luck, not the submission's fault.
        """
        for _ in range(attempts):
            try:
                return self.launcher.start(self.startup_timeout)
            except KernelDied as error:  # a fresh connection file gets fresh ports
                died = error
            except Exception as error:  # handed to the submission that asks next
                return error
        return died

    def check(self) -> None:
        """Wait for the first kernel; raise ``RuntimeError`` with the reason if none starts.

        Grading stops here, within seconds, rather than give every student a zero.
        """
        try:
            item = self._next()
        except TimeoutError:
            message = f"no grading kernel started within {self.startup_timeout:g} s"
            raise RuntimeError(message) from None
        self._ready.put(item)  # still ready for the first submission
        if isinstance(item, Exception):
            raise RuntimeError(f"no grading kernel could start: {item}")

    def acquire(self, workdir: str | Path) -> Kernel:
        """A booted kernel whose working directory is ``workdir``."""
        while True:
            item = self._next()
            self._wanted.release()
            if isinstance(item, Exception):
                raise RuntimeError(f"no kernel could be started: {item}")
            if item.alive():
                break
            item.close()
        self.launcher.prepare(item, Path(workdir))
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
        self.launcher.close()

    def __enter__(self) -> KernelPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
