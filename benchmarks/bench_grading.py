"""Grading benchmark: 40 generated submissions, graded by ``autogradkit grade`` and nbgrader.

    python benchmarks/bench_grading.py [--nbgrader PATH] [--jobs N] [--timeout 30] [--keep DIR]
    python benchmarks/bench_grading.py --throughput   # -j 1, -j N, a 2-worker dask cluster

The assignment is the three-exercise notebook of ``tests/grading/builders.py``. The 40
submissions: 22 correct, 8 wrong, 3 unanswered, and one each of an endless loop, a raising
answer, corrupt JSON, a tampered test, a deleted test cell, a loop that swallows
KeyboardInterrupt and a kernel that dies. Both graders get the same per-cell limit (30 s) and
the same kernel (this Python). nbgrader 0.9.6 runs from its own virtualenv (found with
``--nbgrader``, ``$NBGRADER``, ``PATH`` or ``.venv/nbgrader``, which
``tools/install_nbgrader.sh`` makes) and is skipped with
a clear line when absent. Nothing here passes or fails: the figures are printed next to their
targets, then one summary line. The grader's own peak RSS is printed for the 40, and for a
course where one submission floods 3 x 150 MB of output.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.grading import builders  # noqa: E402  (the course is generated in code)

ORDINARY = ["correct"] * 22 + ["wrong"] * 8 + ["unanswered"] * 3
SPECIAL = [
    "infinite_loop",
    "raising",
    "corrupt",
    "tampered_test",
    "deleted_test",
    "swallows_interrupt",
    "kernel_dies",
]
NBGRADER_REFERENCE_S = 132.0  # nbgrader 0.9.6 on these 40, measured on the 2-core CI box
TARGET_THROUGHPUT, TARGET_WALL = 5.0, 0.4


def submissions() -> dict[str, str]:
    """student name -> kind; the special cases are spread through the alphabet."""
    kinds = list(ORDINARY)
    for i, kind in enumerate(SPECIAL):
        kinds.insert(2 + 5 * i, kind)
    return {f"student{i:02d}": kind for i, kind in enumerate(kinds)}


def make_course(folder: Path, students: dict[str, str]) -> Path:
    builders.write_course(folder)
    for student, kind in students.items():
        builders.write_submission(folder / "submitted", student, kind)
    return folder


def kernel_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)
    return env


PEAK_RSS = (  # the grader's own peak resident memory, kernels excluded (they are other processes)
    "import resource, sys\n"
    "from autogradkit_instructor.cli import main\n"
    "code = main(sys.argv[2:])\n"
    "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "open(sys.argv[1], 'w').write(str(peak))\n"
    "sys.exit(code)\n"
)


def run_ours(
    course: Path, jobs: int, timeout: float, scheduler: str | None = None
) -> tuple[float, list[dict]]:
    """Wall time of the whole ``autogradkit grade`` command, and its gradebook rows
    (``scheduler``: graded on that dask cluster instead of ``jobs`` local kernels). The
    grader's peak RSS (MiB) is left in ``course/peak_rss_mib``."""
    peak = course / "peak_rss_kib"
    cmd = [
        sys.executable,
        "-c",
        PEAK_RSS,
        str(peak),
        "grade",
        str(course / "submitted"),
        "--assignment",
        builders.ASSIGNMENT,
        "--course",
        str(course),
        "-j",
        str(jobs),
        "--timeout",
        str(timeout),
        "--no-progress",
    ]
    cmd += ["--scheduler", scheduler] if scheduler else []
    started = time.perf_counter()
    subprocess.run(cmd, check=True, env=kernel_env(), cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    book = course / "grades" / builders.ASSIGNMENT / "gradebook.json"
    (course / "peak_rss_mib").write_text(f"{int(peak.read_text()) / 1024:.0f}")
    return wall, json.loads(book.read_text())["rows"]


def peak_rss(course: Path) -> str:
    return (course / "peak_rss_mib").read_text()


FLOOD = (  # one cell that displays three 150 MB outputs
    "from IPython.display import display\nfor _ in range(3):\n"
    "    display({'text/plain': 'x' * 150_000_000}, raw=True)\n"
)


def bench_flood(work: Path, args) -> None:
    """The grader's peak RSS when one submission floods its output (and one does not)."""
    course = make_course(work / "flood", {"honest": "correct"})
    nb = builders.correct(json.loads(json.dumps(builders.student_version())))
    nb["cells"][2]["source"] += "\n" + FLOOD
    path = course / "submitted" / "flood" / builders.ASSIGNMENT / f"{builders.NOTEBOOK}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb))
    wall, rows = run_ours(course, args.jobs, args.timeout)
    scores = {r["student"]: (r["status"], r["score"]) for r in rows}
    print(
        f"autogradkit, one submission flooding 3 x 150 MB of output: grader peak RSS "
        f"{peak_rss(course)} MiB, wall {wall:.1f} s, rows {scores}"
    )


def find_nbgrader(given: str | None) -> str | None:
    for candidate in (
        given,
        os.environ.get("NBGRADER"),
        shutil.which("nbgrader"),
        ROOT / ".venv" / "nbgrader" / "bin" / "nbgrader",  # tools/install_nbgrader.sh
    ):
        if candidate and Path(candidate).is_file():
            return str(Path(candidate).resolve())  # nbgrader runs from the course folder
    return None


def nbgrader_course(course: Path, timeout: float) -> dict[str, str]:
    """nbgrader's config, and a kernelspec named python3 that runs *this* Python."""
    spec = course / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3",
                "language": "python",
            }
        )
    )
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.course_id = 'bench'\nc.Execute.timeout = {int(timeout)}\n"
    )
    return {**kernel_env(), "JUPYTER_PATH": str(course / "jupyter")}


def run_nbgrader(nbgrader: str, course: Path, timeout: float) -> tuple[float, dict[str, float]]:
    """Wall time of ``nbgrader autograde`` and seconds per student (from its log, live)."""
    env = nbgrader_course(course, timeout)
    for _attempt in range(2):  # the very first run only creates the database on some set-ups
        made = subprocess.run(
            [nbgrader, "generate_assignment", builders.ASSIGNMENT, "--create", "--force"],
            cwd=course,
            env=env,
            capture_output=True,
            text=True,
        )
        if (course / "release" / builders.ASSIGNMENT).is_dir():
            break
    else:
        raise RuntimeError(f"nbgrader generate_assignment failed:\n{made.stderr[-2000:]}")
    cmd = [nbgrader, "autograde", builders.ASSIGNMENT, "--create", "--force"]
    starts: list[tuple[str, float]] = []
    started = time.perf_counter()
    with subprocess.Popen(
        cmd, cwd=course, env=env, stderr=subprocess.PIPE, text=True, stdout=subprocess.DEVNULL
    ) as proc:
        for line in proc.stderr:
            if "Creating/updating student with ID" in line:
                starts.append((line.split("'")[1], time.perf_counter()))
    wall = time.perf_counter() - started
    ends = [t for _, t in starts[1:]] + [started + wall]
    return wall, {student: end - begin for (student, begin), end in zip(starts, ends, strict=True)}


def check_rows(rows: list[dict], students: dict[str, str]) -> list[str]:
    """Differences from the expected status and points (empty when all is right)."""
    by_student = {r["student"]: r for r in rows}
    wrong = [f"{s}: no row" for s in students if s not in by_student]
    for student, kind in students.items():
        row = by_student.get(student)
        status, points = builders.EXPECTED[kind]
        got = {gid: t["points"] for gid, t in row["tests"].items()} if row else None
        if row and (row["status"], got) != (status, points):
            wrong.append(f"{student} ({kind}): {row['status']} {got}")
    return wrong


def bench_ours(work: Path, students: dict, ordinary: dict, args) -> dict:
    """Grade all 40, then the ordinary ones alone (their throughput); print the figures."""
    wall, rows = run_ours(make_course(work / "ours", students), args.jobs, args.timeout)
    problems = check_rows(rows, students)
    right = len(students) - len(problems)
    print(
        f"autogradkit, all {len(students)}: wall {wall:.1f} s, {len(rows)} rows, "
        f"{right}/{len(students)} with the right status and points, grader peak RSS "
        f"{peak_rss(work / 'ours')} MiB"
    )
    for problem in problems:
        print(f"  wrong: {problem}")
    ord_wall, ord_rows = run_ours(make_course(work / "ordinary", ordinary), args.jobs, args.timeout)
    rate = len(ord_rows) / ord_wall * 60
    median = statistics.median(r["seconds"] for r in ord_rows)
    print(
        f"autogradkit, {len(ordinary)} ordinary alone: wall {ord_wall:.1f} s -> {rate:.0f} "
        f"submissions/min; median {median:.2f} s per submission (per kernel)"
    )
    return {"wall": wall, "rows": len(rows), "problems": problems, "rate": rate}


def bench_nbgrader(work: Path, students: dict, ordinary: dict, args) -> dict:
    """nbgrader on the same 40: wall, and its ordinary throughput from per-student times."""
    nbgrader = None if args.skip_nbgrader else find_nbgrader(args.nbgrader)
    if nbgrader is None:
        why = "--skip-nbgrader" if args.skip_nbgrader else "not found; pass --nbgrader PATH"
        print(
            f"nbgrader: skipped ({why}); the wall ratio uses the reference "
            f"{NBGRADER_REFERENCE_S:g} s"
        )
        return {"wall": NBGRADER_REFERENCE_S, "rate": None}
    course = make_course(work / "nbgrader", students)
    wall, per_student = run_nbgrader(nbgrader, course, args.timeout)
    median = statistics.median(per_student[s] for s in ordinary if s in per_student)
    print(
        f"nbgrader ({nbgrader}), all {len(students)}: wall {wall:.1f} s; ordinary median "
        f"{median:.2f} s -> {60 / median:.0f} submissions/min"
    )
    return {"wall": wall, "rate": 60 / median}


def summarise(ours: dict, theirs: dict, total: int) -> None:
    wall_ratio = ours["wall"] / theirs["wall"]
    speedup = ours["rate"] / theirs["rate"] if theirs["rate"] else None
    speed_text = f"{speedup:.1f}x" if speedup else "n/a (no nbgrader)"
    print(f"ordinary throughput vs nbgrader: {speed_text} (target >= {TARGET_THROUGHPUT:g}x)")
    print(f"whole-set wall vs nbgrader: {wall_ratio:.2f}x (target <= {TARGET_WALL:g}x)")
    fast = speedup is None or speedup >= TARGET_THROUGHPUT
    met = not ours["problems"] and wall_ratio <= TARGET_WALL and fast
    print(
        f"summary: {ours['rows']}/{total} rows, {len(ours['problems'])} wrong; ordinary "
        f"{ours['rate']:.0f}/min ({speed_text}); wall {ours['wall']:.1f} s vs "
        f"{theirs['wall']:.0f} s ({wall_ratio:.2f}x); targets {'met' if met else 'NOT met'}"
    )


def bench_throughput(work: Path, ordinary: dict, args) -> None:
    """Submissions per second on this machine three ways (the table of docs/deploy.md): one
    kernel at a time, the local pool (``-j``), and a local dask cluster of 2 worker processes
    (``--scheduler``; 2 threads each, so one submission computes per worker while another may
    wait in a slow cell, as ``-j`` does). The cluster is started before the clock runs, as a
    course's cluster would be. Ordinary submissions only: they are what a course is made of."""
    from distributed import LocalCluster

    print(f"throughput on {len(ordinary)} ordinary submissions, {os.cpu_count()} cores:")
    print("| how | wall (s) | submissions/s | median per submission (s) |")
    print("|---|---|---|---|")
    runs = [("1 process (-j 1)", 1, None), (f"local pool (-j {args.jobs})", args.jobs, None)]
    with LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None
    ) as cluster:
        runs.append(("2-worker cluster (--scheduler)", 1, cluster.scheduler_address))
        for i, (how, jobs, scheduler) in enumerate(runs):
            course = make_course(work / f"throughput{i}", ordinary)
            wall, rows = run_ours(course, jobs, args.timeout, scheduler)
            median = statistics.median(r["seconds"] for r in rows)
            print(f"| {how} | {wall:.1f} | {len(rows) / wall:.2f} | {median:.2f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nbgrader", help="path to nbgrader 0.9.6's script")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--keep", type=Path, help="keep the generated courses here")
    parser.add_argument("--skip-nbgrader", action="store_true", help="do not run nbgrader")
    parser.add_argument(
        "--throughput", action="store_true", help="only the -j 1 / -j N / 2-worker cluster table"
    )
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-grading-"))
    students = submissions()
    ordinary = {s: k for s, k in students.items() if k in ORDINARY}
    print(
        f"grading benchmark: {len(students)} submissions ({len(ordinary)} ordinary, "
        f"{len(SPECIAL)} special), {args.timeout:g} s per cell, -j {args.jobs}, "
        f"{os.cpu_count()} cores, every kernel in a bubblewrap sandbox (grade's default)"
    )
    if args.throughput:
        bench_throughput(work, ordinary, args)
        return
    ours = bench_ours(work, students, ordinary, args)
    bench_flood(work, args)
    theirs = bench_nbgrader(work, students, ordinary, args)
    summarise(ours, theirs, len(students))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
