"""One bad submission never costs another, and nothing fails silently.

Each test grades a small course end to end through ``cli.main``. Every test here failed on
the grader before this suite (a hang, an abort, a silent zero or a kept forgery).
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from autogradkit_instructor.cli import main

from . import builders

pytestmark = pytest.mark.slow(22)  # a dozen grading runs, one killed and run again

FAST = ["--timeout", "10", "-j", "2", "--no-progress"]


def _grade(course, *extra):
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    return main([*args, *FAST, *extra])


def _rows(course):
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())
    return {r["student"]: r for r in book["rows"]}


def test_symlinks_fifos_and_huge_files_are_refused_and_reported(course, sandbox):
    folder = builders.write_submission(course / "submitted", "odd", "correct").parent
    builders.write_submission(course / "submitted", "plain", "correct")
    (folder / "passwd").symlink_to("/etc/passwd")
    os.mkfifo(folder / "pipe")  # copying it would block the grader forever
    with (folder / "huge.bin").open("wb") as f:  # sparse: 4 GiB on paper
        f.truncate(4 * 2**30)
    assert _grade(course) == 0
    rows = _rows(course)
    assert (rows["odd"]["status"], rows["odd"]["score"]) == ("bad_files", 10.0)
    notes = " ".join(rows["odd"]["issues"])
    assert "passwd" in notes and "symlink" in notes and "pipe" in notes and "FIFO" in notes
    assert "huge.bin" in notes and "too large" in notes
    kept = sorted(p.name for p in (course / "autograded" / "odd" / "hw1").iterdir())
    assert kept == ["checks.py", "data.txt", "squares.ipynb"]
    assert (rows["plain"]["status"], rows["plain"]["score"]) == ("ok", 10.0)


def test_files_that_would_replace_a_module_the_notebook_imports_are_refused(course, sandbox):
    """The notebook's folder comes first on ``sys.path``: a student's ``numpy/`` or
    ``checks/`` would be imported in place of the real ones. A student's copy of the
    instructor's own ``checks.py`` (handed back with the release) is simply replaced."""
    folder = builders.write_submission(course / "submitted", "shadow", "wrong").parent
    fake = "def __getattr__(name):\n    return lambda *args, **kwargs: print('✓')\n"
    for package in ("numpy", "checks", "autogradkit"):
        (folder / package).mkdir()
        (folder / package / "__init__.py").write_text(fake)
    builders.write_submission(course / "submitted", "copy", "correct")
    (course / "submitted" / "copy" / "hw1" / "checks.py").write_text(fake)
    assert _grade(course) == 0
    rows = _rows(course)
    assert (rows["shadow"]["status"], rows["shadow"]["score"]) == ("bad_files", 0.0)
    notes = " ".join(rows["shadow"]["issues"])
    assert all(f"{name} was not copied: it would hide" in notes for name in ("numpy", "checks"))
    assert (rows["copy"]["status"], rows["copy"]["score"]) == ("ok", 10.0)


def test_a_feedback_path_that_is_a_folder_costs_only_that_submission(course, sandbox):
    for student in ("blocked", "fine"):
        builders.write_submission(course / "submitted", student, "correct")
    (course / "feedback" / "blocked" / "hw1" / "squares.html").mkdir(parents=True)
    assert _grade(course) == 0
    rows = _rows(course)
    assert rows["blocked"]["status"] == "error" and rows["blocked"]["score"] == 10.0
    assert "feedback page" in " ".join(rows["blocked"]["issues"])
    assert (rows["fine"]["status"], rows["fine"]["score"]) == ("ok", 10.0)


def test_a_fifo_or_version_3_notebook_gets_its_own_status(course, sandbox):
    import nbformat

    builders.write_submission(course / "submitted", "modern", "correct")
    old = builders.write_submission(course / "submitted", "old", "correct")
    old.write_text(nbformat.writes(nbformat.convert(nbformat.read(old, 4), 3)))
    fifo = course / "submitted" / "piper" / "hw1" / "squares.ipynb"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    assert _grade(course) == 0
    rows = _rows(course)
    assert (rows["old"]["status"], rows["old"]["score"]) == ("ok", 10.0)
    assert rows["piper"]["status"] == "unreadable" and "FIFO" in rows["piper"]["issues"][0]
    assert (rows["modern"]["status"], rows["modern"]["score"]) == ("ok", 10.0)


def test_no_kernel_at_all_is_one_clear_error_and_no_gradebook(course, monkeypatch, capsys, sandbox):
    from jupyter_client.blocking import BlockingKernelClient

    def refuses(*args, **kwargs):
        raise RuntimeError("cannot reach the kernel")

    monkeypatch.setattr(BlockingKernelClient, "start_channels", refuses)
    builders.write_submission(course / "submitted", "ann", "correct")
    assert _grade(course) == 1
    assert "no grading kernel could start" in capsys.readouterr().err
    assert not (course / "grades" / "hw1" / "gradebook.json").exists()


def test_zero_submissions_is_an_error_and_skipped_entries_are_named(course, capsys):
    (course / "submitted" / "bob" / "hw2").mkdir(parents=True)
    (course / "submitted" / "README.txt").write_text("not a submission")
    assert _grade(course) == 1
    err = capsys.readouterr().err
    assert "no submissions of 'hw1'" in err
    assert "skipped README.txt: not a .ipynb file" in err and "skipped bob" in err


def test_student_ids_cannot_inject_spreadsheet_formulas(course, sandbox):
    for student in ("=HYPERLINK(1)", "+1", "-1", "@SUM(A1)"):
        builders.write_submission(course / "submitted", student, "correct", flat=True)
    assert _grade(course) == 0
    with (course / "grades" / "hw1" / "gradebook.csv").open() as f:
        students = [row[0] for row in csv.reader(f)][1:]
    assert sorted(students) == ["'+1", "'-1", "'=HYPERLINK(1)", "'@SUM(A1)"]


def test_the_gradebook_is_rebuilt_from_results_never_merged(course, sandbox):
    builders.write_submission(course / "submitted", "ann", "wrong")
    assert _grade(course) == 0
    path = course / "grades" / "hw1" / "gradebook.json"
    book = json.loads(path.read_text())
    book["rows"][0]["score"] = 10.0  # a forged score, with the right digest
    book["rows"].append({**book["rows"][0], "student": "mallory"})  # and a forged student
    path.write_text(json.dumps(book))
    assert _grade(course) == 0
    rows = _rows(course)
    assert sorted(rows) == ["ann"] and rows["ann"]["score"] == 0.0


def test_originals_changed_during_grading_are_reported(course, capsys):
    nb = builders.correct(builders.student_version())
    source = course / "source" / "hw1" / "squares.ipynb"
    nb["cells"][2]["source"] += f"\nopen({str(source)!r}, 'a').write(' ')"
    path = course / "submitted" / "vandal" / "hw1" / "squares.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb))
    assert _grade(course, "--sandbox", "none") == 1  # only unconfined code can reach it
    err = capsys.readouterr().err
    assert f"{source} changed while grading" in err and "--sandbox none" in err
    assert _rows(course)["vandal"]["sandbox"] == "none"


def test_missing_bubblewrap_is_one_clear_error(course, monkeypatch, capsys):
    builders.write_submission(course / "submitted", "ann", "correct")
    monkeypatch.setenv("PATH", str(course))  # no bwrap on it
    assert _grade(course) == 1
    err = capsys.readouterr().err
    assert "bubblewrap (bwrap) is not installed" in err and "--sandbox none" in err
    assert not (course / "grades").exists()


def test_a_container_runtime_that_does_not_answer_stops_grading_in_one_line(
    course, tmp_path, monkeypatch, capsys
):
    """A docker client without a daemon (as on our machines): one error, no gradebook."""
    client = tmp_path / "bin" / "docker"
    client.parent.mkdir()
    client.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    client.chmod(0o755)
    monkeypatch.setenv("PATH", f"{client.parent}:{os.environ['PATH']}")
    builders.write_submission(course / "submitted", "ann", "correct")
    assert _grade(course, "--sandbox", "docker") == 1
    err = capsys.readouterr().err
    assert "--sandbox docker: no docker runtime here (Cannot connect to the Docker daemon)" in err
    assert not (course / "grades" / "hw1" / "gradebook.csv").exists()


def test_a_killed_grader_can_be_rerun_and_finishes_the_job(course, sandbox, capsys):
    import signal
    import subprocess
    import sys
    import time

    builders.write_submission(course / "submitted", "a_fast", "correct")
    for student in ("b_slow", "c_slow"):
        path = builders.write_submission(course / "submitted", student, "correct")
        nb = json.loads(path.read_text())
        nb["cells"][2]["source"] += "\nimport time\ntime.sleep(5)"
        path.write_text(json.dumps(nb))
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    cmd = [sys.executable, "-m", "autogradkit_instructor", *args, *FAST]
    grader = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = course / "grades" / "hw1" / "results"
    deadline = time.monotonic() + 60  # a guard against hanging, not a timing check
    while not (results.is_dir() and any(results.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(grader.pid, signal.SIGKILL)  # mid-run: one submission finished, two not
    grader.wait()
    assert results.is_dir() and any(results.iterdir())
    assert not (course / "grades" / "hw1" / "gradebook.json").exists()
    assert _grade(course) == 0
    assert "graded 2 of 3 submissions (1 unchanged)" in capsys.readouterr().out
    rows = _rows(course)
    assert sorted(rows) == ["a_fast", "b_slow", "c_slow"]
    assert all(row["score"] == 10.0 for row in rows.values())
    leftovers = Path("/sys/fs/cgroup").glob(f"*/**/autogradkit-{grader.pid}-*")
    assert list(leftovers) == []  # the killed grader's cgroups were cleaned up by the re-run


def test_a_notebook_under_another_name_is_reported_not_lost(course, sandbox, capsys):
    path = builders.write_submission(course / "submitted", "ann", "correct")
    path.rename(path.with_name("squares (1).ipynb"))  # as a browser renames a second download
    assert _grade(course) == 0
    assert _rows(course)["ann"]["status"] == "missing"
    err = capsys.readouterr().err
    assert (
        "skipped ann/hw1/squares (1).ipynb: not a notebook of hw1 (expected squares.ipynb)" in err
    )


def test_the_sandbox_keeps_only_the_blas_settings_of_the_grader_environment(tmp_path, monkeypatch):
    """Some CPUs need a forced OpenBLAS kernel: that setting reaches the kernel, secrets do not."""
    from autogradkit_instructor.sandbox import Box, Bubblewrap, Limits

    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    monkeypatch.setenv("AGK_GRADER_TOKEN", "secret")
    cmd = Bubblewrap(Limits(), executable="bwrap").command(Box(str(tmp_path)), ["python"])
    settings = {cmd[i + 1]: cmd[i + 2] for i, word in enumerate(cmd) if word == "--setenv"}
    assert settings["OPENBLAS_CORETYPE"] == "Haswell"
    assert "AGK_GRADER_TOKEN" not in settings and "--clearenv" in cmd
