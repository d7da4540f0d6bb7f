"""Sandboxes for grading kernels: each submission's kernel sees only what it needs.

A sandbox backend turns "start this kernel" into a command that starts it confined. The
default on Linux is bubblewrap (``bwrap``, Debian package ``bubblewrap``): unprivileged user,
pid, network, mount, IPC and UTS namespaces, without a daemon and without root. Inside:

* uid 1000 in a user namespace, no capabilities outside it, a scrubbed environment;
* a root made of read-only binds of Python, the virtualenv and the kit, and nothing else of
  the host (no course tree, no other submissions, no gradebook, no feedback);
* ``/home/student``: a size-capped tmpfs, the working directory, that receives a copy of the
  submission's own files from a read-only staging folder (``/run/submission``); ``/tmp`` and
  ``/dev/shm`` are tmpfs of the same size, and ``/dev`` is read-only, so no file a sandbox
  writes holds more of the grader's memory than the disk limit allows;
* ``/run/kernel``: the only writable host folder, where the kernel binds its ZeroMQ ``ipc``
  sockets (TCP cannot cross a network namespace; Unix sockets in a bound folder can);
* no network at all, not even the host's loopback, so other kernels' ports are out of reach;
* the whole process tree dies with the sandbox (pid namespace + ``--die-with-parent``), and
  memory and processes are capped for the whole tree by a cgroup when one can be created,
  per process by rlimits otherwise; either way the grader measures each sandbox's tree from
  outside (``too_many_tasks``, ``too_much_memory``: resident memory summed) and ends
  a sandbox that passes a limit, so the limits hold for the whole submission everywhere.

``Container`` (``--sandbox docker`` or ``podman``) gives the same confinement where a container
runtime runs: one container per kernel, the same read-only binds over a small image (only its
``/etc`` matters), the runtime's own memory and pid limits, no network, and the container
removed by name when the submission ends. Every backend offers ``check``, ``command``,
``spawn_options`` (what the launcher does before exec), ``interrupt``, ``stop`` and
``tree_root`` (the process whose tree the grader measures: a container's own init, as its
processes are the runtime's children, not the client's).
``--sandbox none`` runs kernels as the grader's own user (as nbgrader does).
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import autogradkit

__all__ = [
    "INSIDE_HOME",
    "INSIDE_SOCKETS",
    "INSIDE_STAGING",
    "NOBODY",
    "SYSTEM_DIRS",
    "KERNEL_ENV",
    "HOST_ENV_KEPT",
    "NO_BWRAP",
    "SandboxUnavailable",
    "Limits",
    "Bubblewrap",
    "kernel_environment",
    "readable_paths",
    "Box",
    "remove_stale_cgroups",
    "descendants",
    "too_many_tasks",
    "too_much_memory",
    "process_name",
    "send_signal",
]

NOBODY = 65534
PAGE = os.sysconf("SC_PAGE_SIZE")
INSIDE_HOME, INSIDE_SOCKETS, INSIDE_STAGING = "/home/student", "/run/kernel", "/run/submission"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache")
SYSTEM_DIRS += ("/etc/fonts", "/etc/localtime", "/etc/mime.types", "/etc/alternatives")
KERNEL_ENV = {
    "HOME": INSIDE_HOME,
    "USER": "student",
    "LANG": "C.UTF-8",
    "TMPDIR": "/tmp",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    # glibc reserves a 64 MiB malloc arena per thread, up to 8 per core: address space that
    # RLIMIT_AS counts though nothing uses it, so a kernel with threads met "can't start new
    # thread" (or a MemoryError) long before the memory or process limit it is judged by
    "MALLOC_ARENA_MAX": "2",
}
# the machine's BLAS settings (some CPUs need a forced OpenBLAS kernel): kept, never secrets
HOST_ENV_KEPT = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
NO_BWRAP = (
    "bubblewrap (bwrap) is not installed, and grading runs every kernel in a bubblewrap "
    "sandbox: install it (Debian/Ubuntu: apt-get install bubblewrap) or pass --sandbox none "
    "to grade without a sandbox (student code then runs as you, with your files)"
)


class SandboxUnavailable(RuntimeError):
    """The chosen sandbox cannot run here; the message says what to install or pass."""


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use: memory (MiB, whole tree), processes+threads, disk (MiB)."""

    memory_mb: int = 2048
    processes: int = 64
    disk_mb: int = 256


class Bubblewrap:
    """The bubblewrap backend: one ``bwrap`` per kernel, built by ``command``."""

    name = "bwrap"

    def __init__(self, limits: Limits, executable: str | None = None):
        self.limits = limits
        self.executable = executable or shutil.which("bwrap")

    def check(self) -> None:
        """Fail with one clear sentence unless a trivial sandbox really starts."""
        if self.executable is None:
            raise SandboxUnavailable(NO_BWRAP)
        probe = [self.executable, "--unshare-all", "--ro-bind", "/", "/", "true"]
        done = subprocess.run(probe, capture_output=True, text=True)
        if done.returncode != 0:
            raise SandboxUnavailable(
                f"bubblewrap cannot create a sandbox here ({done.stderr.strip()}); unprivileged "
                "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1), "
                "or pass --sandbox none to grade without a sandbox"
            )

    def spawn_options(self, box: Box) -> dict:
        """Before exec: the box's cgroups (the whole tree follows) and per-process rlimits."""
        box.confine(self.limits)
        return {"preexec_fn": lambda: box.enter(self.limits)}

    def interrupt(self, kernel) -> None:
        """SIGINT to the kernel: the first process below ``bwrap`` and its init."""
        python = [pid for pid in descendants(kernel.pid) if process_name(pid) != "bwrap"]
        if python:
            send_signal(python[0], signal.SIGINT, group=False)

    def stop(self, box: Box) -> None:
        """Nothing more: the tree dies with the outer ``bwrap`` (pid namespace)."""

    def tree_root(self, box: Box, pid: int) -> int:
        """The process whose tree is the sandbox: the outer ``bwrap``, the one we started."""
        return pid

    def command(self, box: Box, argv: list[str]) -> list[str]:
        """The ``bwrap`` command line that runs ``argv`` inside ``box``."""
        cmd = [self.executable, "--unshare-all", "--die-with-parent", "--new-session"]
        cmd += ["--uid", "1000", "--gid", "1000", "--hostname", "sandbox", "--clearenv"]
        # every folder it may write to is a tmpfs of at most the disk limit (unsized, each
        # would take half the machine's memory); /dev itself is read-only (its devices work)
        size = str(self.limits.disk_mb * 2**20)
        cmd += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/dev/shm"]
        cmd += ["--remount-ro", "/dev", "--size", size, "--tmpfs", "/tmp"]
        binds, links = readable_paths()
        for path in binds:
            cmd += ["--ro-bind", path, path]
        for link, target in links.items():  # merged /usr: /bin -> usr/bin, /lib64 -> ...
            cmd += ["--symlink", target, link]
        cmd += ["--size", size, "--tmpfs", INSIDE_HOME]
        cmd += ["--bind", str(box.sockets), INSIDE_SOCKETS]
        cmd += ["--ro-bind", str(box.staging), INSIDE_STAGING]
        for key, value in kernel_environment().items():
            cmd += ["--setenv", key, value]
        return [*cmd, "--chdir", INSIDE_HOME, *argv]


def kernel_environment() -> dict[str, str]:
    """All a sandboxed kernel's environment: ``KERNEL_ENV``, the machine's BLAS settings and a
    ``PATH`` to this Python; nothing else of the grader's."""
    kept = {key: os.environ[key] for key in HOST_ENV_KEPT if key in os.environ}
    path = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"
    return {**KERNEL_ENV, **kept, "PATH": path}


def readable_paths() -> tuple[list[str], dict[str, str]]:
    """Host paths a kernel needs, to bind read-only (system, Python, venv, the kit), and the
    symlinks among them (path -> target) to recreate, so that ``/lib64/ld-linux...`` works."""
    kit = Path(autogradkit.__file__).resolve().parent
    wanted = [p for p in (*SYSTEM_DIRS, sys.base_prefix, sys.prefix, str(kit)) if os.path.exists(p)]
    links = {p: os.readlink(p) for p in wanted if os.path.islink(p)}
    real = {os.path.realpath(p) for p in wanted}
    binds = [p for p in real if not any(p.startswith(f"{other}/") for other in real)]
    return sorted(binds), links


class Box:
    """The host side of one sandbox: its socket folder, its staging folder, its cgroup, and
    the ``backend`` that runs it."""

    def __init__(self, root: str, backend=None):
        self.backend = backend
        self.folder = Path(tempfile.mkdtemp(prefix="box-", dir=root))
        self.sockets, self.staging = self.folder / "sockets", self.folder / "staging"
        self.sockets.mkdir()
        self.staging.mkdir()
        self.cgroups: list[Path] = []
        self.container = ""  # the container's name, for a container backend

    def confine(self, limits: Limits) -> None:
        """Create this box's cgroups (v1 ``memory`` and ``pids``) where we may; else none."""
        name = f"autogradkit-{os.getpid()}-{uuid.uuid4().hex[:12]}"  # the grader's pid first
        for controller, setting, value in (
            ("memory", "memory.limit_in_bytes", limits.memory_mb * 2**20),
            ("pids", "pids.max", limits.processes),
        ):
            parent = _own_cgroup(controller)
            try:
                group = parent / name
                group.mkdir()
                (group / setting).write_text(str(value))
                self.cgroups.append(group)
            except (OSError, TypeError):
                continue  # no writable cgroup: the rlimits in ``enter`` still hold

    def seal(self) -> None:
        """Make the socket folder unwritable from inside, once the kernel has bound them.

        It is the one host folder a sandbox can write to: left open, a student could fill the
        host's disk past ``--disk-limit``, or swap a socket for a symlink. Owned by ``nobody``
        (when the grader is root), the sandbox's user can neither write in it nor chmod it
        back; a non-root grader can only take the write bit away.
        """
        if os.geteuid() == 0:
            os.chown(self.sockets, NOBODY, NOBODY)
        os.chmod(self.sockets, 0o555)

    def enter(self, limits: Limits) -> None:
        """In the child before exec: join the cgroups (the whole tree follows), set rlimits
        (memory per process, no core files, no file larger than the disk limit)."""
        for group in self.cgroups:
            (group / "cgroup.procs").write_text(str(os.getpid()))
        memory, disk = limits.memory_mb * 2**20, limits.disk_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))  # each process, always
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # no file a sandbox writes grows past its disk limit: its tmpfs is capped already,
        # and so is the one host file it holds open, its stderr (read if it dies starting)
        resource.setrlimit(resource.RLIMIT_FSIZE, (disk, disk))
        # no RLIMIT_NPROC: it counts every process of the grader's user (and exempts root)

    def remove(self) -> None:
        """Kill whatever is left in the cgroups, remove them, delete the host folder."""
        for group in self.cgroups:
            _empty_and_remove(group)
        shutil.rmtree(self.folder, ignore_errors=True)


def remove_stale_cgroups() -> None:
    """Remove the cgroups that graders killed before they could clean up left behind."""
    for controller in ("memory", "pids"):
        parent = _own_cgroup(controller)
        for group in parent.glob("autogradkit-*-*") if parent else ():
            grader = int(group.name.split("-")[1])
            try:
                os.kill(grader, 0)
            except ProcessLookupError:  # that grader is gone
                _empty_and_remove(group)
            except PermissionError:
                continue  # a live grader of another user


def _empty_and_remove(group: Path, attempts: int = 200) -> None:
    """SIGKILL every process of ``group`` until it is empty, then remove it (a cgroup with
    processes cannot be removed, and a killed process takes a moment to leave)."""
    for _ in range(attempts):
        try:
            for pid in (group / "cgroup.procs").read_text().split():
                os.kill(int(pid), signal.SIGKILL)
            group.rmdir()
            return
        except ProcessLookupError:
            continue
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def _own_cgroup(controller: str) -> Path | None:
    """Where this process sits in cgroup v1 hierarchy ``controller``, or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            folder = Path("/sys/fs/cgroup", controller, path.lstrip("/"))
            return folder if folder.is_dir() else None
    return None


# ----- processes of a sandbox, seen from the host ---------------------------------------------
def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, parents before children (empty once it is gone). Walked
    by a loop over every thread's children: a chain of processes deeper than Python's
    recursion limit, or a child forked by a thread, is found too."""
    found = [pid]
    for process in found:  # the list grows as it is walked
        found += _children(process)
    return found[1:]


def too_many_tasks(pid: int, stop: int) -> bool:
    """Whether ``pid`` and the processes below it hold ``stop`` processes and threads or more,
    counted until ``stop`` (a fork bomb's tree is not walked to its end)."""
    count, todo = 0, [pid]
    while todo and count < stop:
        process = todo.pop()
        try:
            count += len(os.listdir(f"/proc/{process}/task"))
        except OSError:
            continue  # gone meanwhile
        todo += _children(process)
    return count >= stop


def too_much_memory(pid: int, cap: int) -> bool:
    """Whether ``pid`` and the processes below it hold more than ``cap`` bytes of RAM together.

    A process's resident set (``statm``, quick to read) counts the pages it shares (with the
    parent it forked from, say) in full, so a kernel that forks four workers would seem to
    hold five times its size: a sum past ``cap`` is confirmed with each process's proportional
    share (``Pss``: each shared page split among its users), which the system must count page
    by page (some 35 ms per GiB), so it is read only then.
    """
    tree = [pid, *descendants(pid)]
    return sum(map(_resident, tree)) > cap and sum(map(_proportional, tree)) > cap


def _resident(pid: int) -> int:
    """Bytes of ``pid``'s memory in RAM, shared pages counted in full (0 once it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _proportional(pid: int) -> int:
    """Bytes of ``pid``'s memory in RAM, each shared page split among its users (0 once it is
    gone, or where the kernel has no ``smaps_rollup``: the resident set then)."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except FileNotFoundError:
        return _resident(pid) if os.path.exists(f"/proc/{pid}") else 0
    except OSError:
        return 0
    kib = [int(line.split()[1]) for line in lines if line.startswith("Pss:")]
    return kib[0] * 1024 if kib else 0


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid``."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    children = []
    for thread in threads:
        try:
            children += map(int, Path(f"/proc/{pid}/task/{thread}/children").read_text().split())
        except OSError:
            continue
    return children


def process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def send_signal(pid: int, sig: int, group: bool) -> None:
    try:
        os.killpg(pid, sig) if group else os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # already gone
