"""Round 5 of the attack suite: folders the grader walks, text it shows, values it is shown.

One grading run (default bubblewrap sandbox) of two controls and the attackers, shared by the
tests. A submission folder nested deeper than Python recurses, or whose paths are longer
than the system takes, a name that speaks to the instructor's terminal, a file name or a
grade_id that reorders the text around it, and a kernel that prints its test cell's value as
another number. Each attack was written here first and seen succeeding on the grader before
it was closed (the docstrings say what it did); the ones that held stay as regression tests.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

from autogradkit_instructor import course as course_module
from autogradkit_instructor.cli import main
from autogradkit_instructor.files import copy_files

from . import builders, helpers

pytestmark = pytest.mark.slow(13)  # one grading run of the attackers
FLAGS = ["--timeout", "10", "-j", "2", "--no-progress", "--disk-limit", str(DISK_MB := 32)]
BIDI = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069]")  # reorders or hides text
ESCAPE = "\x1b]0;owned\x07\x1b[2J"  # sets the terminal's title, then clears the screen
DEPTH, LONG = 1100, 20  # folders: deeper than Python's recursion limit; paths past PATH_MAX
WRONG_MSE = "def mse(pred, target):\n    return ((pred - target) ** 2).sum()\n"
SHOWS_FIVE = {  # a wrong mse, and the test cell's value 0.0 shown as 5.0, five ways
    "prints_floats": (
        "get_ipython().display_formatter.formatters['text/plain'].for_type(\n"
        "    float, lambda value, printer, cycle: printer.text('5.0'))"
    ),
    "formats_floats": (
        "get_ipython().display_formatter.formatters['text/plain'].float_format = '5.0%.0s'"
    ),
    "hooks_its_result": (
        "hook = get_ipython().displayhook\nwrite = hook.write_format_data\n"
        "hook.write_format_data = lambda data, md=None: write({'text/plain': '5.0'}, md)"
    ),
    "patches_the_class": (
        "from ipykernel.displayhook import ZMQShellDisplayHook as Hook\n"
        "write = Hook.write_format_data\n"
        "Hook.write_format_data = lambda self, data, md=None: (\n"
        "    write(self, {'text/plain': '5.0'}, md))"
    ),
    "rewrites_messages": (
        "from jupyter_client.session import Session\nsend = Session.send\n"
        "def forged(self, stream, msg, *args, **kwargs):\n"
        "    if isinstance(msg, dict) and msg.get('msg_type') == 'execute_result':\n"
        "        msg['content']['data']['text/plain'] = '5.0'\n"
        "    return send(self, stream, msg, *args, **kwargs)\n"
        "Session.send = forged"
    ),
}
IGNORES_ITS_END = (  # wrong answers, and a kernel that will not stop when asked
    "import atexit, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "atexit.register(time.sleep, 3600)\n"
)


ODD_IDS = [5, 5, {"id": 1}, "<b>x</b>", "test_square_sum", "y" * 100]  # none an nbformat id
NBFORMAT_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")


NESTS = (  # right answers, then outputs nested as deep as the grader's JSON reader goes
    "import sys\nfrom IPython.display import display\nsys.setrecursionlimit(10_000)\n"
    "for depth in (500, 900, 950, 990):\n    value = 0\n    for _ in range(depth):\n"
    "        value = [value]\n    display({'application/json': value}, raw=True)\n"
)


NOT_TEXT = (  # a wrong mse; the guard's reset replaced; every value's text/plain a list
    "import sys\nfrom IPython.core.formatters import DisplayFormatter\n"
    "sys.modules['autogradkit.grading.guard'].reset = lambda: []\n"
    "_format = DisplayFormatter.format\n"
    "def _as_list(self, obj, include=None, exclude=None):\n"
    "    data, metadata = _format(self, obj, include, exclude)\n"
    "    return {**data, 'text/plain': [[5.0]]}, metadata\n"
    "DisplayFormatter.format = _as_list\n"
)


WRITES_THE_HOST = (  # right answers; then 64 MiB into the one host file a kernel holds open
    "import os, signal, stat\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
    "def _host_file():\n"
    "    for fd in range(64):\n"
    "        try:\n"
    "            found = os.fstat(fd)\n"
    "            if stat.S_ISREG(found.st_mode) and found.st_dev != os.stat('.').st_dev:\n"
    "                return fd  # a file, not on the sandbox's own tmpfs\n"
    "        except OSError:\n"
    "            pass\n"
    "_fd = _host_file()\n"
    "try:\n"
    "    for _ in range(64 if _fd is not None else 0):  # a container gives none\n"
    "        os.write(_fd, b'x' * 2**20)\n"
    "except OSError:\n"
    "    pass\n"
    "print('HOST FILE', _fd, os.fstat(_fd).st_size if _fd is not None else -1)\n"
)


FORGES_ITS_END = (  # a wrong mse that ends its test cell itself: "idle", then an ok reply
    "def mse(pred, target):\n"
    "    kernel = get_ipython().kernel\n"
    "    parent = kernel.get_parent('shell')\n"
    "    kernel.session.send(kernel.iopub_socket, 'status', {'execution_state': 'idle'},\n"
    "                        parent, ident=kernel._topic('status'))\n"
    "    kernel.session.send(kernel.shell_stream, 'execute_reply', {'status': 'ok',\n"
    "                        'execution_count': 1, 'user_expressions': {}, 'payload': []},\n"
    "                        parent, ident=kernel._get_shell_context_var(\n"
    "                            kernel._shell_parent_ident))\n"
    "    return ((pred - target) ** 2).sum()\n"
)


SPEAKS = "print('x' * 100_000)"  # one cell's whole output budget
SENDS_RECORDS = (  # 64 check records of 50,000 characters each, from a cell that is no test
    "from IPython.display import display\nfor _ in range(64):\n"
    "    display({'application/vnd.autogradkit.observations+json': {'check': 'c', 'title': 't',"
    " 'observations': [{'name': 'n', 'value': 'y' * 50_000}]}}, raw=True)"
)


def _released() -> dict:
    return json.loads(json.dumps(builders.student_version()))


def _write(course: Path, student: str, nb: dict) -> Path:
    path = course / "submitted" / student / "hw1" / "squares.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    return path


def _nest(folder: Path, name: str, levels: int) -> None:
    """``levels`` folders called ``name``, each in the one before, made without full paths
    (which the system refuses past PATH_MAX); a file at the bottom."""
    handle = os.open(folder, os.O_RDONLY)
    for _ in range(levels):
        os.mkdir(name, dir_fd=handle)
        inner = os.open(name, os.O_RDONLY, dir_fd=handle)
        os.close(handle)
        handle = inner
    os.close(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, dir_fd=handle))
    os.close(handle)


def _unnest(folder: Path) -> None:
    """Remove what ``_nest`` made, one level at a time (``shutil.rmtree`` recurses)."""
    for top in [p for p in folder.iterdir() if p.is_dir()]:
        while True:
            inner = [p for p in top.iterdir() if p.is_dir()]
            for path in (p for p in top.iterdir() if not p.is_dir()):
                path.unlink()
            if not inner:
                top.rmdir()
                break
            os.rename(inner[0], folder / ".pulled")
            top.rmdir()
            os.rename(folder / ".pulled", top)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox):
    course = tmp_path_factory.mktemp("round5-attacks")
    builders.write_course(course)
    submitted = course / "submitted"
    builders.write_submission(submitted, "honest", "correct")
    builders.write_submission(submitted, "wrong", "wrong")
    deep = builders.write_submission(submitted, "deep", "correct").parent / "nest"
    deep.mkdir()
    _nest(deep, "d", DEPTH)
    long = builders.write_submission(submitted, "long", "correct").parent / "nest"
    long.mkdir()
    _nest(long, "x" * 250, LONG)
    (submitted / ESCAPE).mkdir()  # no hw1/ inside: listed as skipped
    other = builders.write_submission(submitted, "speaks", "correct").parent
    (other / f"{ESCAPE}.ipynb").write_text("{}")  # not a notebook of hw1: listed as skipped
    folder = builders.write_submission(submitted, "rtl_file", "correct").parent
    (folder / "\u202egnp.exe").symlink_to("/etc/passwd")  # refused, named in the notes
    claims = builders.wrong(_released())
    claims["cells"].insert(3, builders._code("x = 1", grade_id="\u202e=1+1", grade=True, points=99))
    _write(course, "claims_points", claims)
    for student, code in SHOWS_FIVE.items():
        shown = builders.wrong(_released())
        builders._answer(shown, "answer_mse", f"{code}\n{WRONG_MSE}")
        _write(course, student, shown)
    stubborn = builders.wrong(_released())
    stubborn_answer = IGNORES_ITS_END + builders.WRONG["answer_square_sum"]
    builders._answer(stubborn, "answer_square_sum", stubborn_answer)
    _write(course, "ignores_its_end", stubborn)
    odd = builders.correct(_released())
    for number, cell_id in enumerate(ODD_IDS):  # the student's own cells, before the tests
        odd["cells"].insert(2, {**builders._code(f"x{number} = 1"), "id": cell_id})
    _write(course, "odd_ids", odd)
    nested = builders.correct(_released())
    builders._answer(nested, "answer_mse", NESTS + builders.ANSWERS["answer_mse"])
    _write(course, "nests_outputs", nested)
    not_text = builders.wrong(_released())
    builders._answer(not_text, "answer_mse", NOT_TEXT + WRONG_MSE)
    _write(course, "value_not_text", not_text)
    writer = builders.correct(_released())
    builders._answer(writer, "answer_mse", WRITES_THE_HOST + builders.ANSWERS["answer_mse"])
    _write(course, "writes_the_host", writer)
    forger = builders.wrong(_released())
    builders._answer(forger, "answer_mse", FORGES_ITS_END)
    _write(course, "forges_its_end", forger)
    many = builders.correct(_released())
    for code in [SPEAKS] * 100 + [SENDS_RECORDS] * 20:  # the student's own cells
        many["cells"].insert(2, builders._code(code))
    _write(course, "many_cells", many)
    errors = io.StringIO()
    args = ["grade", str(submitted), "--assignment", "hw1", "--course", str(course)]
    with contextlib.redirect_stderr(errors):
        code = main([*args, *FLAGS])
    book = course / "grades" / "hw1" / "gradebook.json"
    rows = {r["student"]: r for r in json.loads(book.read_text())["rows"]} if book.exists() else {}
    yield course, code, rows, errors.getvalue()
    for top in (deep, long):
        _unnest(top.parent)


def test_the_run_finishes_and_the_controls_score_right(graded):
    _course, code, rows, errors = graded
    assert code == 0, errors
    assert (rows["honest"]["status"], rows["honest"]["score"]) == ("ok", 10.0)
    assert (rows["wrong"]["status"], rows["wrong"]["score"]) == ("ok", 0.0)


@pytest.mark.parametrize("student", ["deep", "long"])
def test_a_folder_too_deep_to_walk_costs_only_its_own_files(graded, student):
    """Was: the grader's walks of the submissions folder recursed (``os.walk``, ``rglob``) and
    used whole paths: 1,100 nested folders (RecursionError) or 20 of 250-character names
    (ENAMETOOLONG) in one student's folder ended the run with no gradebook for anyone."""
    course, _code, rows, _errors = graded
    row = rows[student]
    assert (row["status"], row["score"]) == ("bad_files", 10.0), row
    assert any("nest" in issue and "deep" in issue for issue in row["issues"]), row
    workdir = course / "autograded" / student / "hw1"
    assert (workdir / "squares.ipynb").is_file()


def test_walks_of_a_folder_neither_recurse_nor_use_whole_paths(tmp_path):
    for name, levels in (("d", DEPTH), ("x" * 250, LONG)):
        folder = tmp_path / name[:8]
        folder.mkdir()
        _nest(folder, name, levels)
        course_module.folder_identity(folder)
        course_module.fingerprint([folder])
        refused = copy_files(folder, tmp_path / "copy" / name[:8])
        assert len(refused) == 1 and "deep" in refused[0], refused
        _unnest(folder)


def test_no_name_speaks_to_the_instructors_terminal(graded):
    """Was: the names of skipped folders and files were printed as they are: an escape
    sequence in a folder's name set the terminal's title and cleared its screen."""
    _course, _code, _rows, errors = graded
    assert "skipped" in errors and "owned" in errors, errors
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", errors), repr(errors)


def test_names_in_notes_never_reorder_the_gradebook(graded):
    """Was: a refused file's name and an extra cell's grade_id went into the row's notes
    with their right-to-left override: the gradebook, its CSV and the page showed it."""
    course, _code, rows, _errors = graded
    for student in ("rtl_file", "claims_points"):
        assert any("\\u202e" in issue for issue in rows[student]["issues"]), rows[student]
    folder = course / "grades" / "hw1"
    assert main(["export", "--assignment", "hw1", "--course", str(course)]) == 0
    assert main(["report", "--assignment", "hw1", "--course", str(course)]) == 0
    shown = ["gradebook.json", "gradebook.csv", "hw1_csv.csv", "report.html", "report.json"]
    pages = [
        course / "feedback" / s / "hw1" / "squares.html" for s in ("rtl_file", "claims_points")
    ]
    for path in [*(folder / name for name in shown), *pages]:
        assert not BIDI.search(path.read_text(encoding="utf-8")), path


def test_an_extra_cell_that_claims_points_earns_none(graded):
    row = graded[2]["claims_points"]
    assert (row["score"], row["max_score"]) == (0.0, 10.0), row
    assert set(row["tests"]) == set(builders.POINTS), row


@pytest.mark.parametrize("student", sorted(SHOWS_FIVE))
def test_a_test_cells_value_shown_as_another_number_earns_nothing(graded, student):
    """Was: an answer cell made the kernel show the partial-credit cell's 0.0 as 5.0 (a float
    printer, a float format, the display hook replaced on the object or on its class, the
    session rewriting the message): 5 of 5 with nothing to review."""
    row = graded[2][student]
    assert row["tests"]["test_mse"]["points"] == 0.0, row
    assert any(note.startswith("before test_mse") for note in row["review"]), row


def test_honest_students_are_not_flagged_for_review(graded):
    rows = graded[2]
    assert rows["honest"]["review"] == [] and rows["wrong"]["review"] == [], rows["honest"]


def test_a_kernel_that_will_not_end_costs_only_its_own_points(graded):
    row = graded[2]["ignores_its_end"]
    assert row["score"] == 0.0, row


def test_cell_ids_of_any_type_or_shape_cost_nothing(graded):
    """Was: a student's own cells with ids ``5`` twice, or a dict, made the step that keeps ids
    unique raise (TypeError): "the grader failed", 0 points, for a notebook that ran."""
    course, _code, rows, _errors = graded
    row = rows["odd_ids"]
    assert (row["status"], row["score"]) == ("ok", 10.0), row
    graded_copy = course / "autograded" / "odd_ids" / "hw1" / "squares.ipynb"
    ids = [cell.get("id") for cell in json.loads(graded_copy.read_text())["cells"]]
    assert all(isinstance(i, str) and NBFORMAT_ID.fullmatch(i) for i in ids), ids
    assert len(set(ids)) == len(ids), ids


def test_outputs_nested_deeper_than_the_grader_recurses_cost_nothing(graded):
    """Was: a display of a list nested 900 deep was read, then cleaned by a recursive walk:
    RecursionError, "the grader failed", 0 points for right answers."""
    course, _code, rows, _errors = graded
    row = rows["nests_outputs"]
    assert (row["status"], row["score"]) == ("ok", 10.0), row
    graded_copy = course / "autograded" / "nests_outputs" / "hw1" / "squares.ipynb"
    json.loads(graded_copy.read_text())


def test_a_value_that_is_not_text_fails_its_cell_for_review(graded):
    """Was: with the guard's reset replaced, every value's ``text/plain`` was made a list: the
    partial-credit cell's value and the tamper report's. Joining it as text raised TypeError:
    "the grader failed", and the other cells' points were lost with it."""
    row = graded[2]["value_not_text"]
    assert not any("grader failed" in issue for issue in row["issues"]), row
    assert row["status"] == "ok" and row["tests"]["test_mse"]["points"] == 0.0, row
    assert any("test_mse" in note for note in row["review"]), row


def test_a_kernel_writes_no_more_to_the_host_than_its_disk_limit(graded):
    """Was: a kernel's stderr is a file in the grader's temporary folder (read when a kernel
    dies starting), outside the sandbox's size-capped tmpfs: a kernel wrote 64 MiB to it,
    past a 32 MiB disk limit, and could have filled the grader's disk."""
    course, _code, rows, _errors = graded
    graded_copy = course / "autograded" / "writes_the_host" / "hw1" / "squares.ipynb"
    cell = helpers.by_id(json.loads(graded_copy.read_text()), "answer_mse")
    said = "".join(o.get("text", "") for o in cell["outputs"])
    size = int(said.split("HOST FILE")[1].split()[1])
    assert size <= DISK_MB * 2**20, said  # -1: no host file was open
    assert rows["honest"]["score"] == 10.0


def test_a_test_cell_the_kernel_ends_itself_earns_nothing(graded):
    """Was: the wrong mse, called by its test cell, sent the cell's "idle" and an ok reply
    itself (the kernel holds the session key): the grader took the cell as done before its
    value was shown, and a partial-credit cell with no value earns full points: 5 of 5,
    nothing to review. Nothing was patched, so the guard had nothing to see."""
    row = graded[2]["forges_its_end"]
    assert row["tests"]["test_mse"]["points"] == 0.0, row
    assert any("test_mse" in note for note in row["review"]), row


def test_what_a_notebook_keeps_of_its_outputs_is_bounded_as_a_whole(graded):
    """Was: the output budget was a cell's, and check records were kept outside it in every
    cell: 100 cells printing 100,000 characters and 20 sending 64 records of 50,000 made a
    graded copy of 74 MB held in the grader's memory (and as many cells as the time limit
    allows: gigabytes)."""
    course, _code, rows, _errors = graded
    assert (rows["many_cells"]["status"], rows["many_cells"]["score"]) == ("ok", 10.0)
    path = course / "autograded" / "many_cells" / "hw1" / "squares.ipynb"
    assert path.stat().st_size < 4 * 2**20, path.stat().st_size


def _racing(monkeypatch, target: str, change) -> None:
    """Make ``change(path)`` happen to ``target`` just as the grader opens it: after every
    check made from its folder listing, before a byte is read (a folder that students can
    still write, as a synced share, while grading runs)."""
    real_open = os.open

    def open_after_the_change(path, flags, *args, **kwargs):
        if os.fspath(path).endswith(target):
            change(Path(os.fspath(path)))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_after_the_change)


@pytest.mark.parametrize("change", ["link", "grow"])
def test_a_file_changed_between_its_check_and_its_copy_is_not_copied(tmp_path, monkeypatch, change):
    """Was: a helper file's type, links and size were checked from the folder's listing and
    the file opened afterwards by name: one that gained a second name (another student's
    file) or grew past the disk budget in between was copied whole."""
    own = tmp_path / "own"
    own.mkdir()
    (own / "helper.txt").write_text("mine")
    changes = {
        "link": lambda path: os.link(path, tmp_path / "anothers.txt"),
        "grow": lambda path: path.write_bytes(b"x" * 2**20),
    }
    _racing(monkeypatch, "helper.txt", changes[change])
    refused = copy_files(own, tmp_path / "copy", 64 * 1024, own=True)
    assert not (tmp_path / "copy" / "helper.txt").exists()
    assert len(refused) == 1 and "helper.txt" in refused[0], refused


def test_a_notebook_that_gains_a_name_before_it_is_read_is_unreadable(tmp_path, monkeypatch):
    """Was: the hard-link check was an lstat before the notebook was opened by name."""
    from autogradkit_instructor.notebooks import UnreadableNotebook, read_notebook

    path = tmp_path / "squares.ipynb"
    path.write_text(json.dumps(builders.correct(_released())))
    _racing(monkeypatch, "squares.ipynb", lambda p: os.link(p, tmp_path / "solution.ipynb"))
    with pytest.raises(UnreadableNotebook, match="hard link"):
        read_notebook(path, own=True)


def test_a_row_the_grader_could_not_finish_is_graded_again_by_the_next_run(
    tmp_path, monkeypatch, sandbox
):
    """Was: a row whose status is ``error`` (the grader could not finish: no kernel for it, a
    disk another kernel filled, a page that could not be written) was kept with its digest,
    and every later run reused it: the student's grade stayed 0 until someone ran --force."""
    from autogradkit_instructor.kernels import KernelPool

    builders.write_course(tmp_path)
    for student in ("ann", "bob"):
        builders.write_submission(tmp_path / "submitted", student, "correct")
    acquire = KernelPool.acquire

    def no_kernel_for_bob(pool, workdir):
        if "bob" in Path(workdir).parts:
            raise RuntimeError("no kernel could be started: the machine was busy")
        return acquire(pool, workdir)

    args = ["grade", str(tmp_path / "submitted"), "--assignment", "hw1"]
    args += ["--course", str(tmp_path), *FLAGS]
    with monkeypatch.context() as patched:
        patched.setattr(KernelPool, "acquire", no_kernel_for_bob)
        assert main(args) == 0
    book = tmp_path / "grades" / "hw1" / "gradebook.json"
    first = {r["student"]: r for r in json.loads(book.read_text())["rows"]}
    assert (first["bob"]["status"], first["ann"]["score"]) == ("error", 10.0), first["bob"]
    assert main(args) == 0
    again = {r["student"]: r for r in json.loads(book.read_text())["rows"]}
    assert (again["bob"]["status"], again["bob"]["score"]) == ("ok", 10.0), again["bob"]
