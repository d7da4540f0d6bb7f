"""``grade --scheduler``: the benchmark course's kinds of submission (each special case once,
two of each ordinary kind: 13 of its 40) graded on a local dask cluster of two worker
processes, one of them killed mid-run, gives what a local run gives.

"What a local run gives" is every file ``grade`` writes (``autograded/``, ``feedback/``,
``grades/``), byte for byte, apart from timings (``same_apart_from_timings``): each row's
``seconds``, in ``gradebook.json``, ``gradebook.csv`` and ``results/*.json``.
Both runs use the same seeds (``draw_seeds`` is fixed here): a real run draws fresh ones.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autogradkit_instructor import cells, reference
from autogradkit_instructor.cli import main
from benchmarks.bench_grading import check_rows, make_course, submissions

from . import builders

pytestmark = pytest.mark.slow(28)  # two grading runs, one on a dask cluster

distributed = pytest.importorskip("distributed", reason="the [cluster] extra is not installed")
OUTPUTS = ("autograded", "feedback", "grades")
ARGS = ["--assignment", builders.ASSIGNMENT, "--timeout", "3", "--interrupt-grace", "1"]
SECONDS = re.compile(r'"seconds": [0-9.e+-]+')
SCHEDULER = re.compile(r'"scheduler": "[^"]*"')  # where it ran: compared on its own


def of_each_kind(per_kind: int = 2) -> dict[str, str]:
    """The benchmark's students, at most ``per_kind`` of each kind: every case the 40 hold,
    graded twice here (locally, then on the cluster) at a third of the cost."""
    picked, counts = {}, {}
    for student, kind in submissions().items():
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] <= per_kind:
            picked[student] = kind
    return picked


def fixed_seeds(source: dict) -> dict[str, int]:
    """The same seeds in both runs, so that both can be compared byte for byte."""
    test_ids = [cells.grade_id(c) for c in source["cells"] if cells.is_test(c)]
    return {gid: 1000 + i for i, gid in enumerate(test_ids) if gid}


def same_apart_from_timings(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, with the timings (module docstring) blanked out."""
    found = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "gradebook.csv":
            data = _csv_without_seconds(data.decode("utf-8")).encode()
        elif path.suffix == ".json" and path.parent.name in ("results", "hw1"):
            data = SECONDS.sub('"seconds": 0', data.decode("utf-8"))
            data = SCHEDULER.sub('"scheduler": ""', data).encode()
        found[str(path.relative_to(folder))] = data
    return found


def _csv_without_seconds(text: str) -> str:
    rows = list(csv.reader(io.StringIO(text)))
    at = rows[0].index("seconds")
    out = io.StringIO()
    csv.writer(out).writerows([*r[:at], "", *r[at + 1 :]] for r in rows)
    return out.getvalue()


def _snapshot_and_clear(course: Path) -> dict[str, bytes]:
    found = {}
    for name in OUTPUTS:
        found.update({f"{name}/{k}": v for k, v in same_apart_from_timings(course / name).items()})
        shutil.rmtree(course / name)
    return found


class WorkerKiller(threading.Thread):
    """Once ``after`` rows are kept, SIGKILL a worker that is grading (its nanny restarts it)."""

    def __init__(self, client, results: Path, after: int = 6):
        super().__init__(daemon=True)
        self.client, self.results, self.after = client, results, after
        self.killed: dict = {}

    def run(self) -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not self.killed:
            kept = len(list(self.results.glob("*.json"))) if self.results.is_dir() else 0
            busy = {w: keys for w, keys in self.client.processing().items() if keys}
            if kept >= self.after and busy:
                worker, keys = next(iter(busy.items()))
                pid = self.client.run(os.getpid, workers=[worker])[worker]
                os.kill(pid, signal.SIGKILL)
                self.killed = {"worker": worker, "pid": pid, "tasks": list(keys)}
            time.sleep(0.05)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, sandbox):
    """The benchmark course graded locally (-j 2), then on 2 workers with one killed. The
    cluster starts while the local run grades (its workers' start is mostly imports)."""
    course = make_course(tmp_path_factory.mktemp("cluster"), students := of_each_kind())
    with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(1) as starting:
        patch.setattr(reference, "draw_seeds", fixed_seeds)
        booting = starting.submit(
            distributed.LocalCluster,
            n_workers=2,
            threads_per_worker=2,
            processes=True,
            dashboard_address=None,
        )
        try:
            local_code = main(
                ["grade", str(course / "submitted"), "-j", "2", *ARGS, "--course", str(course)]
            )
            local_book = json.loads(
                (course / "grades" / builders.ASSIGNMENT / "gradebook.json").read_text()
            )
            local = _snapshot_and_clear(course)
        except BaseException:
            booting.result().close()
            raise
        with booting.result() as cluster, distributed.Client(cluster) as client:
            address = cluster.scheduler_address
            killer = WorkerKiller(client, course / "grades" / builders.ASSIGNMENT / "results")
            killer.start()
            started = time.monotonic()
            cluster_code = main(
                ["grade", str(course / "submitted"), "--scheduler", cluster.scheduler_address]
                + [*ARGS, "--course", str(course)]
            )
            seconds = time.monotonic() - started
            killer.join(timeout=5)
            folders = client.run(lambda dask_worker: dask_worker.local_directory)
            scratch = [
                f for f in map(Path, folders.values()) for f in f.parent.glob("*/autogradkit-*")
            ]
    gradebook = course / "grades" / builders.ASSIGNMENT / "gradebook.json"
    book = json.loads(gradebook.read_text())
    rows, where = book["rows"], (local_book["scheduler"], book["scheduler"])
    on_cluster = _snapshot_and_clear(course)
    return {
        "students": students,
        "codes": (local_code, cluster_code),
        "local": local,
        "cluster": on_cluster,
        "rows": rows,
        "where": where,
        "address": address,
        "killed": killer.killed,
        "seconds": seconds,
        "scratch_left": scratch,
        "workspace": [Path(f).parent for f in folders.values()],
    }


def test_cluster_run_writes_what_the_local_run_writes(runs):
    assert runs["codes"] == (0, 0)
    local, on_cluster = runs["local"], runs["cluster"]
    assert sorted(on_cluster) == sorted(local)
    count = len(runs["students"])
    assert len([k for k in local if k.startswith("feedback/")]) == count
    assert len([k for k in local if k.startswith("autograded/")]) > count  # notebooks + files
    different = [name for name in local if local[name] != on_cluster[name]]
    assert different == [], _how_they_differ(different, local, on_cluster)
    assert runs["where"] == ("local", runs["address"])  # each gradebook says where it ran


def test_every_row_is_there_with_its_status_and_points(runs):
    assert len(runs["rows"]) == len(runs["students"]) == 13
    assert set(runs["students"].values()) == set(builders.EXPECTED)  # every kind there is
    assert check_rows(runs["rows"], runs["students"]) == []


def test_a_killed_worker_costs_only_time(runs):
    """The killed worker was grading; its tasks went to the other worker (or to its restarted
    self) and every row came back (the comparison above)."""
    killed = runs["killed"]
    assert killed and killed["tasks"], "the worker was killed while it graded"
    with pytest.raises(ProcessLookupError):
        os.kill(killed["pid"], 0)


def test_workers_leave_no_scratch_folder(runs):
    """Not even the killed worker's: its successor's dask workspace removed it."""
    assert runs["workspace"] and runs["scratch_left"] == []


def test_without_scheduler_dask_is_never_imported():
    code = (
        "import sys; from autogradkit_instructor import cli, grade, export; "
        "cli.parse_config(['grade', 'subs', '--assignment', 'hw1']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_worker_refuses_to_write_outside_its_task_folder(tmp_path):
    from autogradkit_instructor.cluster import unpack

    unpack({"checks.py": b"x", "data/a.txt": b"y"}, tmp_path / "ok")
    assert (tmp_path / "ok" / "data" / "a.txt").read_bytes() == b"y"
    for name in ("../escape.txt", "/etc/passwd", "data/../../escape.txt"):
        with pytest.raises(ValueError, match="not a path inside"):
            unpack({name: b"x"}, tmp_path / "task")
    assert not (tmp_path / "escape.txt").exists()


def test_a_submission_no_worker_can_grade_is_an_error_row_that_is_not_kept(
    tmp_path, sandbox, monkeypatch, capsys
):
    """A task that fails on the cluster still gets its row, says why, and is graded again by
    the next run (nothing is kept in results/); the command exits with 1."""
    from autogradkit_instructor import cluster

    def broken(self):
        raise RuntimeError("this worker cannot grade: no bubblewrap here")

    monkeypatch.setattr(cluster.GradingKernels, "kernels", broken)
    builders.write_course(tmp_path)
    for student in ("ann", "bob"):
        builders.write_submission(tmp_path / "submitted", student, "correct")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as local:
        code = main(
            ["grade", str(tmp_path / "submitted"), "--scheduler", local.scheduler_address]
            + [*ARGS, "--course", str(tmp_path)]
        )
    assert code == 1
    folder = tmp_path / "grades" / builders.ASSIGNMENT
    rows = json.loads((folder / "gradebook.json").read_text())["rows"]
    assert [(r["student"], r["status"]) for r in rows] == [("ann", "error"), ("bob", "error")]
    assert all("no bubblewrap here" in r["issues"][0] for r in rows)
    assert not list((folder / "results").glob("*.json"))
    assert "no worker could grade it" in capsys.readouterr().err
    assert (tmp_path / "feedback" / "ann" / builders.ASSIGNMENT / "squares.html").is_file()


def _how_they_differ(names: list, local: dict, on_cluster: dict) -> str:
    """The first lines that differ in each file the two runs wrote otherwise (a failure on a
    busy machine once showed only the files' names)."""

    def lines(content) -> list[str]:
        text = content if isinstance(content, str) else content.decode(errors="replace")
        return text.splitlines()

    found = []
    for name in names:
        diff = difflib.unified_diff(lines(local[name]), lines(on_cluster[name]), n=0, lineterm="")
        found.append("\n".join([name, *[line[:200] for line in list(diff)[2:12]]]))
    return "\n".join(found)
