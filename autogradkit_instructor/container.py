"""The container backend: each kernel in its own Docker or Podman container.

The confinement is bubblewrap's (``sandbox.py``), given by a container runtime instead: no
network, uid 1000 without capabilities, a read-only root, the host's ``/usr``, Python, the
virtualenv and the kit bound read-only at their own paths (so the kernel is the grader's own
Python), a private home, ``/tmp`` and ``/dev/shm`` capped at the disk limit, and memory, swap
and pid limits for the whole container. The grader measures the container's own process tree
too (``tree_root``), and ends the container when it reaches a limit, rather than let it sit at
the runtime's cap until its submission ends.

The image is nothing but a root: ``/etc/passwd``, the host's top-level links (``/bin`` ->
``usr/bin`` ...) and empty folders. It is made on this machine with ``<runtime> import`` from a
tar of a few hundred bytes, so grading needs no registry. The runtime's client process is the
one the launcher starts and watches; attached, it exits when the container does. Stopping the
client does not stop the container, so ``stop`` removes it by name.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import uuid

from .sandbox import (
    INSIDE_HOME,
    INSIDE_SOCKETS,
    INSIDE_STAGING,
    Box,
    Limits,
    SandboxUnavailable,
    kernel_environment,
    readable_paths,
)

__all__ = ["IMAGE", "ROOT_FOLDERS", "ACCOUNTS", "Container", "root_tar"]

IMAGE = "localhost/autogradkit-root"
ROOT_FOLDERS = ("etc", "tmp", "home", "run", "proc", "dev", "sys", "usr", "var/tmp")
ACCOUNTS = {
    "etc/passwd": "root:x:0:0:root:/root:/bin/sh\nstudent:x:1000:1000::/home/student:/bin/sh\n",
    "etc/group": "root:x:0:\nstudent:x:1000:\n",
}


class Container:
    """``--sandbox docker`` or ``--sandbox podman``: one container per kernel."""

    def __init__(self, runtime: str, limits: Limits):
        self.name, self.limits = runtime, limits
        self.client = shutil.which(runtime)
        self.image = f"{IMAGE}:{_root_tag()}"

    def check(self) -> None:
        """Fail with one clear sentence unless the runtime answers; make the image if needed."""
        if self.client is None:
            raise SandboxUnavailable(f"--sandbox {self.name}: {self.name} is not installed")
        info = self._run("info")
        if info.returncode != 0:
            last = (info.stderr.decode(errors="replace").strip().splitlines() or ["no answer"])[-1]
            raise SandboxUnavailable(f"--sandbox {self.name}: no {self.name} runtime here ({last})")
        if self._run("image", "inspect", self.image).returncode != 0:
            made = self._run("import", "-", self.image, stdin=root_tar())
            if made.returncode != 0:
                raise SandboxUnavailable(
                    f"--sandbox {self.name}: could not make the image {self.image}: "
                    f"{made.stderr.decode(errors='replace').strip()[-300:]}"
                )

    def spawn_options(self, box: Box) -> dict:
        """Name the container and let its user create the kernel's sockets; nothing runs
        before exec (the runtime applies the limits).

        The container's uid 1000 is a real uid of the host, not one mapped onto the grader's:
        the socket folder is opened to it (its parent stays the grader's own, mode 0700, so no
        other local user reaches it) until ``Box.seal`` closes it again.
        """
        box.container = f"autogradkit-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        os.chmod(box.sockets, 0o777)
        return {}

    def interrupt(self, kernel) -> None:
        self._run("kill", "--signal", "INT", kernel.box.container)

    def stop(self, box: Box) -> None:
        """SIGKILL everything in the container, then remove it (``rm --force`` alone may wait
        out a stop timeout first)."""
        self._run("kill", box.container)
        self._run("rm", "--force", box.container)

    def tree_root(self, box: Box, pid: int) -> int:
        """The container's own init, as the host sees it: its processes are the runtime's
        children, not the client's (``pid``), which is all there is if it cannot be found."""
        found = self._run("inspect", "--format", "{{.State.Pid}}", box.container)
        answer = found.stdout.decode(errors="replace").strip()
        return int(answer) if found.returncode == 0 and answer.isdigit() and answer != "0" else pid

    def command(self, box: Box, argv: list[str]) -> list[str]:
        """The ``run`` command line that starts ``argv`` in ``box``'s container."""
        memory, disk = f"{self.limits.memory_mb}m", f"{self.limits.disk_mb}m"
        cmd = [self.client, "run", "--rm", "--name", box.container, "--network", "none"]
        cmd += ["--user", "1000:1000", "--read-only", "--cap-drop", "ALL", "--hostname", "sandbox"]
        cmd += ["--security-opt", "no-new-privileges", "--memory", memory, "--memory-swap", memory]
        cmd += ["--pids-limit", str(self.limits.processes)]
        # open files as bwrap's; processes are counted by --pids-limit, for this container only
        cmd += ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"]
        cmd += ["--tmpfs", f"{INSIDE_HOME}:rw,size={disk},mode=1777"]
        # every folder it may write to is capped at the disk limit, as bubblewrap's are
        cmd += ["--tmpfs", f"/tmp:rw,size={disk},mode=1777", "--shm-size", disk]
        binds, _links = readable_paths()  # the image holds the links
        for path in binds:
            cmd += ["--mount", f"type=bind,source={path},target={path},readonly"]
        cmd += ["--mount", f"type=bind,source={box.sockets},target={INSIDE_SOCKETS}"]
        cmd += ["--mount", f"type=bind,source={box.staging},target={INSIDE_STAGING},readonly"]
        for key, value in kernel_environment().items():
            cmd += ["--env", f"{key}={value}"]
        return [*cmd, "--workdir", INSIDE_HOME, self.image, *argv]

    def _run(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([self.client, *args], input=stdin, capture_output=True, timeout=120)


def root_tar() -> bytes:
    """The image's whole content: folders, two account files, the host's top-level links."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for folder in ROOT_FOLDERS:
            entry = tarfile.TarInfo(folder)
            entry.type, entry.mode = tarfile.DIRTYPE, 0o1777 if "tmp" in folder else 0o755
            tar.addfile(entry)
        for path, text in ACCOUNTS.items():
            entry = tarfile.TarInfo(path)
            entry.size, entry.mode = len(text.encode()), 0o644
            tar.addfile(entry, io.BytesIO(text.encode()))
        for link, target in sorted(readable_paths()[1].items()):
            entry = tarfile.TarInfo(link.lstrip("/"))
            entry.type, entry.linkname = tarfile.SYMTYPE, target
            tar.addfile(entry)
    return buffer.getvalue()


def _root_tag() -> str:
    """The image's tag: its content's hash, so a host with other links gets its own image."""
    return hashlib.sha256(root_tar()).hexdigest()[:12]
