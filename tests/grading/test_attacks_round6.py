"""Round 6 of the attack suite: processes, folder names, the guard, files, two runs at once.

One grading run (default bubblewrap sandbox, with no cgroup: a cgroup-v2-only machine, or a
grader that is not root) of two controls and the attackers, shared by the tests. Each attack
was written here first and seen succeeding on the grader before it was closed (the docstrings
say what it did); the ones that held stay as regression tests.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
import re
import unicodedata
from pathlib import Path

import pytest

from autogradkit_instructor import sandbox as sandbox_module
from autogradkit_instructor.cli import main

from . import builders
from .test_attacks_round5 import _released, _write

pytestmark = pytest.mark.slow(14)  # one grading run of the attackers
FLAGS = ["--timeout", "10", "-j", "2", "--no-progress", "--disk-limit", "32"]
MARKER = "3617.25"  # the argument of every process the attackers leave sleeping
FORKS = (  # right answers, after 300 processes that sleep for an hour (bounded: a real bomb
    # without a cap would take the shared machine down with it)
    "import os\n_kids = 0\nfor _ in range(300):\n    try:\n        if os.fork() == 0:\n"
    "            try:\n"
    f"                os.execvp('sleep', ['sleep', '{MARKER}'])\n"
    "            finally:\n                os._exit(0)\n"
    "        _kids += 1\n    except OSError:\n        break\nprint('FORKED', _kids)\n"
)
BOMB = (  # a fork bomb that stops by itself at 128 processes, each spinning for 20 s
    "import os, time\n_end = time.monotonic() + 20\nfor _ in range(7):\n    try:\n"
    "        os.fork()\n    except OSError:\n        pass\n"
    "while time.monotonic() < _end:\n    pass\n"
)


THREADS = (  # right answers, after 200 threads that sleep for an hour
    "import threading, time\nfor _ in range(200):\n"
    "    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
)
CLOSES_ITS_OUTPUT = "import os\nos.close(1)\nos.close(2)\nprint('after')\n"  # then right


FLOODS = (  # right answers, after a thread that writes to the kernel's stdout without end
    "import os, threading\ndef _flood():\n    while True:\n        os.write(1, b'x' * 65536)\n"
    "threading.Thread(target=_flood, daemon=True).start()\n"
)


GUARDS = {  # the guard's reset, replaced or removed, then numpy's comparison made to pass
    "guard_removed": "sys.modules.pop('autogradkit.grading.guard')",
    "guard_malformed": "sys.modules['autogradkit.grading.guard'].reset = lambda: 5",
    "guard_raises": "sys.modules['autogradkit.grading.guard'].reset = lambda: 1 / 0",
    "guard_forged": "sys.modules['autogradkit.grading.guard'].reset = lambda: []",
}
PASSES = "import sys\nimport numpy as np\n{}\nnp.isclose = lambda *args, **kwargs: True\n"


NAMES = {  # folder names a student chose -> the kind of submission in it
    "CON": "correct",  # a device on Windows, as are the next two
    "aux.txt": "correct",
    "com\u00b9": "correct",
    "a:b": "correct",  # an NTFS stream of a file "a"
    "ann": "correct",
    "ann.": "wrong",  # "ann" on Windows
    "bob": "correct",
    "bob ": "wrong",  # "bob" on Windows
    "Zoe": "correct",
    "zoe": "wrong",  # "Zoe" on macOS and Windows
    "jos\u00e9": "correct",
    "jose\u0301": "wrong",  # the same name decomposed: one folder on macOS
}
DIGITS = "0-9\u00b9\u00b2\u00b3"  # Windows takes COM¹ for a device too
WINDOWS_DEVICE = re.compile(f"(con|prn|aux|nul|com[{DIGITS}]|lpt[{DIGITS}])(\\..*)?")


def _portable(name: str) -> bool:
    """Whether a folder called ``name`` is itself on Windows and macOS too (the instructor
    zips the feedback folder, or syncs it to a laptop)."""
    bad = any(c in '<>:"/\\|?*' or ord(c) < 32 for c in name)
    device = WINDOWS_DEVICE.fullmatch(name.casefold())
    return not bad and not device and not name.endswith((".", " ")) and len(name.encode()) < 256


def _one(name: str) -> str:
    """What a case-folding, normalising file system takes ``name`` for."""
    return unicodedata.normalize("NFKC", name).casefold().rstrip(". ")


def _attackers(course: Path) -> None:
    forks = builders.correct(_released())
    builders._answer(forks, "answer_mse", FORKS + builders.ANSWERS["answer_mse"])
    _write(course, "forks_many", forks)
    bomb = builders.correct(_released())
    builders._answer(bomb, "answer_mse", BOMB + builders.ANSWERS["answer_mse"])
    _write(course, "fork_bomb", bomb)
    for student, code in (("threads_many", THREADS), ("closes_output", CLOSES_ITS_OUTPUT)):
        nb = builders.correct(_released())
        builders._answer(nb, "answer_mse", code + builders.ANSWERS["answer_mse"])
        _write(course, student, nb)
    text = json.dumps(builders.correct(_released()))
    for student, data in (
        ("latin1_notebook", text.replace("Squares", "Squares \u00e9").encode("latin-1")),
        ("utf16_notebook", text.encode("utf-16")),  # with its byte-order mark
    ):
        _write(course, student, {}).write_bytes(data)
    for student, code in GUARDS.items():
        unguarded = builders.wrong(_released())
        wrong_mse = builders.WRONG["answer_mse"]
        builders._answer(unguarded, "answer_mse", PASSES.format(code) + wrong_mse)
        _write(course, student, unguarded)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox):
    course = tmp_path_factory.mktemp("round6-attacks")
    builders.write_course(course)
    submitted = course / "submitted"
    builders.write_submission(submitted, "honest", "correct")
    builders.write_submission(submitted, "wrong", "wrong")
    for name, kind in NAMES.items():
        builders.write_submission(submitted, name, kind)
    _attackers(course)
    errors = io.StringIO()
    args = ["grade", str(submitted), "--assignment", "hw1", "--course", str(course)]
    with pytest.MonkeyPatch.context() as patched, contextlib.redirect_stderr(errors):
        patched.setattr(sandbox_module, "_own_cgroup", lambda controller: None)
        code = main([*args, *FLAGS])
    book = course / "grades" / "hw1" / "gradebook.json"
    rows = {r["student"]: r for r in json.loads(book.read_text())["rows"]} if book.exists() else {}
    return course, code, rows, errors.getvalue()


def _sleepers() -> list[int]:
    """Host processes the attackers left sleeping (found by their argument)."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            argv = Path(entry.path, "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", MARKER.encode()]:
            found.append(int(entry.name))
    return found


def test_the_run_finishes_and_the_controls_score_right(graded):
    _course, code, rows, errors = graded
    assert code == 0, errors
    assert (rows["honest"]["status"], rows["honest"]["score"]) == ("ok", 10.0)
    assert (rows["wrong"]["status"], rows["wrong"]["score"]) == ("ok", 0.0)
    assert rows["honest"]["review"] == [] and rows["wrong"]["review"] == []


@pytest.mark.parametrize("student", ["forks_many", "fork_bomb", "threads_many"])
def test_a_sandbox_starting_too_many_processes_is_stopped_with_its_own_status(graded, student):
    """Was: without a cgroup (cgroup v2, or a grader that is not root) nothing capped a
    sandbox's processes: a kernel started 300 sleeping processes (a fork bomb would have
    filled the machine's process table), with status ok and 10 of 10."""
    row = graded[2][student]
    assert row["status"] == "kernel_died", (row["issues"], row["tests"], row.get("review"))
    assert any("started 64 processes" in issue for issue in row["issues"]), row
    assert row["tests"]["test_square_sum"]["points"] == 2.0, row  # the cells before it count


def test_no_process_of_a_sandbox_outlives_its_submission(graded):
    assert _sleepers() == []


@pytest.mark.parametrize("kind", ["feedback", "autograded"])
def test_every_folder_named_by_a_student_is_portable_and_its_own(graded, kind):
    """Was: a student's folders were named as the student named theirs: ``CON``, ``aux.txt``
    and ``a:b`` cannot be made on Windows, ``ann.`` and ``bob `` are ``ann`` and ``bob``
    there, ``Zoe`` and ``zoe`` or ``josé`` composed and decomposed one folder on macOS: the
    instructor's copy of the feedback folder lost or overwrote pages."""
    course = graded[0]
    folders = [p.name for p in (course / kind).iterdir()]
    assert [name for name in folders if not _portable(name)] == []
    assert len({_one(name) for name in folders}) == len(folders), sorted(folders)


def test_every_row_has_a_page_of_its_own(graded):
    course, _code, rows, _errors = graded
    pages = list((course / "feedback").glob("*/hw1/squares.html"))
    assert len({_one(p.parent.parent.name) for p in pages}) == len(rows)
    texts = [page.read_text(encoding="utf-8") for page in pages]
    for student in rows:
        shown = f"feedback for {html.escape(student)}<"
        assert sum(shown in text for text in texts) == 1, student


@pytest.mark.parametrize("student", sorted(GUARDS))
def test_no_points_of_the_kits_checks_depend_on_the_guard(graded, student):
    """The guard runs in the student's interpreter and can be replaced there: the kit's
    checks are judged by the grader from their records, whatever the guard says."""
    row = graded[2][student]
    assert row["tests"]["test_square_sum"]["points"] == 0.0, row
    assert row["tests"]["test_gradient"]["points"] == 0.0, row
    assert not any("grader failed" in issue for issue in row["issues"]), row


@pytest.mark.parametrize("student", ["guard_removed", "guard_malformed", "guard_raises"])
def test_a_missing_or_malformed_guard_report_costs_the_student(graded, student):
    """Was: a submission that removed or replaced the guard, then made ``np.isclose`` pass,
    got the ``assert``-style cell's 5 points for a wrong mse; the malformed report was only
    a review note. Now an ``assert``-style cell after a report that is not the guard's
    scores nothing, for review. (A forged report of the right shape, ``[]``, cannot be told
    from an honest one: the guide says so.)"""
    row = graded[2][student]
    assert row["tests"]["test_mse"]["points"] == 0.0, row
    assert any("test_mse" in note for note in row["review"]), row


def test_a_second_grade_of_an_assignment_being_graded_stops_and_changes_nothing(
    tmp_path, sandbox, capsys
):
    """Was: two ``grade`` runs of one assignment at once (two terminals, a cron job) graded
    the same submissions side by side: each emptied the kernel folders in ``autograded/``
    that the other was copying from, and the last to finish wrote its gradebook over the
    other's. A run holds a lock on the assignment's source folder (released by the system
    when its process ends, killed too); a second one stops at once."""
    import fcntl

    builders.write_course(tmp_path)
    builders.write_submission(tmp_path / "submitted", "ann", "correct")
    with _opened(tmp_path / "source" / "hw1") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the first run, still grading
        args = ["grade", str(tmp_path / "submitted"), "--assignment", "hw1"]
        code = main([*args, "--course", str(tmp_path), *FLAGS])
    assert code == 1
    assert "is being graded" in capsys.readouterr().err
    assert not (tmp_path / "grades").exists()
    assert not (tmp_path / "autograded").exists() and not (tmp_path / "feedback").exists()


@contextlib.contextmanager
def _opened(folder: Path):
    handle = os.open(folder, os.O_RDONLY)
    try:
        yield handle
    finally:
        os.close(handle)


def test_a_kernel_that_closes_its_own_output_is_graded(graded):
    """Held (not tried before): a cell that closes the kernel's file descriptors 1 and 2."""
    row = graded[2]["closes_output"]
    assert (row["status"], row["score"]) == ("ok", 10.0), row


@pytest.mark.parametrize("student", ["latin1_notebook", "utf16_notebook"])
def test_a_notebook_in_another_encoding_is_its_own_rows_status(graded, student):
    """Held: a notebook saved as Latin-1 or UTF-16 is unreadable, with the reason."""
    row = graded[2][student]
    assert (row["status"], row["score"]) == ("unreadable", 0), row
    assert any("UTF-8" in issue for issue in row["issues"]), row


def test_a_fork_bomb_held_by_a_cgroup_is_stopped_too(tmp_path, sandbox):
    """Was: where a cgroup caps a sandbox at 64 processes (root on cgroup v1), a fork bomb's
    processes stayed at the cap, spinning beside the other submissions' kernels until its own
    submission ended (its later cells and their time limits). Reaching the cap now stops it."""
    builders.write_course(tmp_path)
    builders.write_submission(tmp_path / "submitted", "honest", "correct")
    bomb = builders.correct(_released())
    builders._answer(bomb, "answer_mse", BOMB + builders.ANSWERS["answer_mse"])
    _write(tmp_path, "fork_bomb", bomb)
    args = ["grade", str(tmp_path / "submitted"), "--assignment", "hw1"]
    assert main([*args, "--course", str(tmp_path), *FLAGS]) == 0
    book = json.loads((tmp_path / "grades" / "hw1" / "gradebook.json").read_text())
    rows = {row["student"]: row for row in book["rows"]}
    assert (rows["honest"]["status"], rows["honest"]["score"]) == ("ok", 10.0)
    assert rows["fork_bomb"]["status"] == "kernel_died", rows["fork_bomb"]
    assert any("64 processes" in issue for issue in rows["fork_bomb"]["issues"])


def test_a_kernel_flooding_its_output_is_graded_without_waiting_out_every_limit(tmp_path, sandbox):
    """Was: the grader's set-up requests (the seed, the guard, a test cell's confirmation)
    ended on the kernel's "idle" on IOPub, which a flood of output makes ZeroMQ drop (its
    queue holds 16 messages): each such request waited out its limit (10 s, 30 s), for each
    test cell, outside the submission's own time limit; the guard then "could not run" and the
    test cell went unconfirmed. They end on their shell reply, which no output delays."""
    builders.write_course(tmp_path)
    flood = builders.correct(_released())
    builders._answer(flood, "answer_mse", FLOODS + builders.ANSWERS["answer_mse"])
    _write(tmp_path, "floods_output", flood)
    args = ["grade", str(tmp_path / "submitted"), "--assignment", "hw1"]
    assert main([*args, "--course", str(tmp_path), *FLAGS]) == 0
    book = json.loads((tmp_path / "grades" / "hw1" / "gradebook.json").read_text())
    row = book["rows"][0]
    assert (row["status"], row["score"], row["review"]) == ("ok", 10.0, []), row["issues"]
    graded_copy = tmp_path / "autograded" / "floods_output" / "hw1" / "squares.ipynb"
    assert graded_copy.stat().st_size < 4 * 2**20
