"""``grade --scheduler tcp://HOST:PORT``: each submission is one task on a dask.distributed cluster.

The grader (this process, the *driver*) does everything that touches the course folder: it
reads the submissions, copies their files into ``autograded/`` as a local run does, runs the
instructor's notebook for this run's seeds and references, and writes every result. A worker
only computes: it receives a ``submission.Task`` (the notebook, its files as bytes, seeds and
references), writes the files into a scratch folder of its own, runs the notebook in its own
sandboxed kernels (the same ``--sandbox``, with the same limits) and sends back a
``submission.Outcome`` (the row, the feedback page's text, the graded notebook). The scratch folder
lies in the worker's dask folder and is removed when the task ends; a worker killed mid-task
leaves its folder to the next worker started there, which removes it (dask's ``WorkSpace``).

A worker that dies mid-task (killed, out of memory, its machine gone) costs nothing but time:
the scheduler gives its tasks to another worker (dask's ``allowed-failures``, 3 by default),
and only the outcome that comes back is written. A task that raises on its worker (one that
cannot start a sandbox) or outlives more workers than that becomes an ``error`` row that is
not kept, so the next run grades it again.

Only this module imports dask, and only ``grade --scheduler`` imports it (the ``[cluster]``
extra). Every worker needs the kit installed as the driver has it, and the sandbox (bubblewrap
by default); the scheduler runs whatever its clients send, so keep it on a private network or
behind TLS (``tls://``), as dask's documentation says.
"""

from __future__ import annotations

import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from distributed import Client, WorkerPlugin, as_completed, get_worker

from . import submission
from .config import GradingConfig
from .kernels import KernelPool, sandbox_backend

__all__ = ["GradingKernels", "grade_task", "unpack", "grade_on_cluster"]


class GradingKernels(WorkerPlugin):
    """Installed on every worker for one run: its sandboxed kernel pool, booting at once.

    As ``grade -j N`` on one machine: a worker with ``2N`` threads (``dask worker --nthreads``)
    has ``N`` submissions computing at a time and ``N`` kernels booted ahead, while as many
    more submissions may sit in a slow cell (a loop waiting for its timeout).
    """

    def __init__(self, cfg: GradingConfig, name: str):
        self.cfg, self.name = cfg, name

    def setup(self, worker) -> None:
        """Start booting kernels while the driver runs the references (nothing waits here)."""
        self.slots = max(1, worker.state.nthreads // 2)
        self.cpu = threading.Semaphore(self.slots)
        self.lock, self.checked = threading.Lock(), False
        self.pool: KernelPool | None = None
        self.error: Exception | None = None
        try:
            backend = sandbox_backend(self.cfg.sandbox, self.cfg.limits())
            if backend is not None:
                backend.check()  # e.g. no bubblewrap on this worker: one clear error
            limits = self.cfg.limits()
            self.pool = KernelPool(self.slots, limits.memory_mb, sandbox=backend, limits=limits)
        except RuntimeError as error:  # SandboxUnavailable: raised to every task it gets
            self.error = error

    def kernels(self) -> KernelPool:
        """The worker's pool; raises ``RuntimeError`` if no sandboxed kernel starts here."""
        if self.error is not None:
            raise RuntimeError(f"this worker cannot grade: {self.error}")
        with self.lock:
            if not self.checked:
                self.pool.check()
                self.checked = True
        return self.pool

    def teardown(self, worker) -> None:
        if self.pool is not None:
            self.pool.close()


def grade_task(task: submission.Task, judged: dict, plugin: str) -> submission.Outcome:
    """Run on a worker: ``task`` graded in a scratch folder that is gone when it returns."""
    worker = get_worker()
    kernels = worker.plugins[plugin]
    pool = kernels.kernels()
    # in the worker's own dask folder: what a killed worker leaves, the next one removes
    with tempfile.TemporaryDirectory(
        prefix="autogradkit-task-", dir=worker.local_directory
    ) as scratch:
        workdir = Path(scratch) / "work"
        unpack(task.files, workdir)
        return submission.evaluate(task, judged, kernels.cfg, pool, kernels.cpu, workdir)


def unpack(files: dict[str, bytes], folder: Path) -> None:
    """Write ``files`` (relative path -> bytes) under ``folder``, refusing any path that would
    leave it (the driver made them, but a worker checks what it is sent)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            raise ValueError(f"refused to write {name!r}: not a path inside the task's folder")
        path = folder.joinpath(*relative.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def grade_on_cluster(
    cfg: GradingConfig,
    start: Callable[[], tuple[dict, Iterable[submission.Task]]],
    done: Callable[..., None],
) -> list[str]:
    """Grade on the cluster at ``cfg.scheduler``; ``done(task, outcome)`` for each task as it
    comes back. ``start()`` (called once the workers boot their kernels) runs the references
    and gives the tasks. Returns one sentence per task that no worker could grade (its row is
    an error, ``done(..., keep=False)``)."""
    name = f"autogradkit-grading-{uuid.uuid4().hex[:12]}"
    lost: list[str] = []
    with Client(cfg.scheduler, set_as_default=False) as client:
        client.register_plugin(GradingKernels(cfg, name), name=name)
        try:
            judged, tasks = start()
            # the references go to every worker once, not with each task
            shared = client.scatter(judged, broadcast=True, hash=False)
            pending = {
                client.submit(grade_task, task, shared, name, key=_key(task)): task
                for task in tasks
            }
            for future in as_completed(pending, loop=client.loop):
                task = pending.pop(future)
                if future.status == "finished":
                    done(task, future.result())
                else:
                    reason = _why(future)
                    lost.append(f"{task.label}: no worker could grade it ({reason})")
                    outcome = submission.lost(
                        task, cfg, f"the cluster could not grade it: {reason}"
                    )
                    done(task, outcome, keep=False)
        finally:
            client.unregister_worker_plugin(name)
    return lost


def _key(task: submission.Task) -> str:
    """A task's name on the dashboard: whose, which notebook, and unique."""
    return f"grade-{task.student}-{task.notebook}-{uuid.uuid4().hex[:8]}"


def _why(future) -> str:
    """The error a failed task ended with, in one line (e.g. ``KilledWorker: ...``)."""
    error = future.exception()
    return f"{type(error).__name__}: {error}".splitlines()[0][:300]
