"""The attack suite: submissions that try to read, write, reach or outlive what they must not.

One grading run (the slow part, shared) over a course where three honest students sit next to
one attacker per category. Each attacker's answer cell tries its attack and prints what it got;
the tests read those outputs in the graded copies and look at the machine afterwards. Every
test here failed on the grader before kernels ran in a sandbox.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import autogradkit
from autogradkit.grading.observations import MIME, judge_record
from autogradkit_instructor.cli import main

from . import builders

pytestmark = pytest.mark.slow(23)  # one grading run of the whole class per sandbox backend, at once

SECRET = "agk-grader-secret-4f1d"  # a grader environment variable no output may contain
DAEMON = "agk-attack-daemon-9c2e"  # marks the detached process a student leaves behind
FLAGS = ["--timeout", "10", "-j", "2", "--no-progress", "--disk-limit", "16"]
HONEST = ["honest1", "honest2", "honest3"]
BACKENDS = {"bwrap": "sandbox", "podman": "podman"}  # --sandbox NAME: its fixture (or skip)
SQUARE_SUM = "\ndef square_sum(x):\n    return (x * x).sum()\n"

ATTACKS = {
    "reader": """
import os
for path in {targets!r}:
    try:
        with open(path, 'rb') as f:
            print('READ', path, len(f.read()))
    except OSError:
        print('DENIED', path)
print('ENV', os.environ.get('AGK_GRADER_SECRET'), len(os.environ))
""",
    "writer": """
for path in {targets!r}:
    try:
        open(path, 'a').close()
        print('WROTE', path)
    except OSError:
        print('DENIED', path)
""",
    "network": """
import socket
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=2).close()
    print('CONNECTED')
except OSError:
    print('REFUSED')
""",
    "peeker": """
import glob, os, tempfile
found = glob.glob(os.path.join(tempfile.gettempdir(), 'autogradkit-*', '**', '*.json'),
                  recursive=True)
print('CONNECTION FILES', len(found))
""",
    "daemon": """
import subprocess, sys
subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {daemon!r}],
                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print('DAEMON STARTED')
""",
    "forkbomb": """
import os, time
started = 0
try:
    for _ in range(300):
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        started += 1
except OSError:
    pass
print('FORKED', started)
""",
    "disk": """
written = 0
try:
    with open('big.bin', 'wb') as f:
        for _ in range(64):
            f.write(b'x' * 2**20)
            f.flush()
            written += 1
except OSError:
    pass
print('MIB WRITTEN', written)
""",
    "leaker": """
import base64, glob, sys
def square_sum(x):  # puts the course's checks, hidden ones included, into all it can reach
    text = ''.join(open(path).read() for path in glob.glob('*.py'))  # the released ones
    text += ''.join(str(v.__doc__) for v in vars(sys.modules['checks']).values())  # all, now
    secret = base64.b64encode(text.encode()).decode()
    print(secret)
    raise ValueError(secret)
""",
    "socketfiller": """
import os
try:
    with open('/run/kernel/filler.bin', 'wb') as f:  # the one host folder in the sandbox
        f.write(b'x' * 2**20)
    print('FILLED')
except OSError:
    print('SOCKET FOLDER SEALED')
try:
    os.rename('/run/kernel/kernel-1', '/run/kernel/moved')
    print('MOVED')
except OSError:
    print('SOCKETS STAY')
""",
    "signaller": """
import os
try:
    os.kill({grader}, 0)  # signal 0: only asks whether the grader could be signalled
    print('GRADER REACHABLE')
except OSError:
    print('GRADER OUT OF REACH')
os.kill(os.getppid(), 9)  # the fork server, today; the sandbox's own init, once sandboxed
""",
}


CHEATS = {  # wrong answers, plus a trick that made the tests pass anyway
    "hides_tracebacks": "get_ipython().showtraceback = lambda *args, **kwargs: None",
    "custom_exception": "get_ipython().set_custom_exc((BaseException,), lambda *args: None)",
    "clears_outputs": (
        "from IPython.display import clear_output\n"
        "get_ipython().events.register('post_run_cell', lambda *args: clear_output())"
    ),
    "rewrites_tests": (
        "get_ipython().input_transformers_post.append(\n"
        "    lambda lines: ['pass\\n'] if 'checks.' in ''.join(lines)"
        " or 'points' in ''.join(lines) else lines)"
    ),
    "rebinds_checks": "checks.square_sum_values = lambda *args, **kwargs: print('✓ square_sum(x)')",
    "patches_numpy": (
        "import numpy\nnumpy.allclose = lambda *args, **kwargs: True\n"
        "numpy.isclose = lambda *args, **kwargs: True"
    ),
    "forges_records": (  # a record of its own for each check, before the real one
        "from IPython.display import display\n"
        "def square_sum(x):\n"
        "    for name in ('square_sum_values', 'square_sum_of_negatives'):\n"
        "        fake = {'check': name, 'title': name, 'observations': [\n"
        "            {'name': n, 'value': float((x * x).sum())}\n"
        "            for n in ('square_sum(x)', 'square_sum of negatives')]}\n"
        f"        display({{'{MIME}': fake}}, raw=True)\n"
        "    return x.sum() ** 2\n"
    ),
}


FAKE_CHECKS = (  # a cell of the student's own, above the setup cell that imports the checks
    "import sys, types\nfake = types.ModuleType('checks')\n"
    "fake.__getattr__ = lambda name: (lambda *args, **kwargs: print('✓'))\n"
    "sys.modules['checks'] = fake"
)


def _typed_in_practice_answer(course: Path) -> str:
    """An answer that returns what the check's practice inputs give, typed in: it passes the
    student's own practice check, and must not pass grading (fresh inputs)."""
    checks = builders.load_checks(course / "source" / "hw1")
    answers = builders.solution_answers()
    record = checks.square_sum_values.observe(square_sum=answers["square_sum"])
    value = record.observations[0].value["array"]
    typed = f"def square_sum(x):\n    return agk.tensor({value!r})\n"
    namespace = {"agk": autogradkit}
    exec(typed, namespace)
    fooled = checks.square_sum_values.observe(square_sum=namespace["square_sum"])
    assert judge_record(record, fooled).passed  # the practice check is fooled
    return typed


def _write_cell_before_setup(course: Path, student: str, code: str) -> None:
    nb = builders.wrong(json.loads(json.dumps(builders.student_version())))
    nb["cells"].insert(1, {"cell_type": "code", "metadata": {}, "source": code, "outputs": []})
    nb["cells"][1]["execution_count"], nb["cells"][1]["id"] = None, "fake"
    path = course / "submitted" / student / "hw1" / "squares.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))


def _targets(course: Path) -> dict[str, list[str]]:
    """Host paths an attacker must neither read nor write."""
    source = str(course / "source" / "hw1" / "squares.ipynb")
    other = str(course / "submitted" / "honest1" / "hw1" / "squares.ipynb")
    kit = str(Path(autogradkit.__file__))
    return {
        "reader": [source, other, "/etc/shadow"],
        "writer": [source, other, kit, str(course / "grades" / "planted.txt")],
    }


def _write_attacker(course: Path, student: str, code: str, answers=builders.correct) -> None:
    nb = answers(json.loads(json.dumps(builders.student_version())))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "answer_square_sum":
            wrong = "\n" + builders.WRONG["answer_square_sum"]
            answer = SQUARE_SUM if answers is builders.correct else wrong
            cell["source"] = code if "def square_sum" in code else code + answer
    path = course / "submitted" / student / "hw1" / "squares.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))


def _daemons() -> list[int]:
    """Pids of the processes the daemon attacker left behind, seen from the host."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and DAEMON.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def graded(request, tmp_path_factory):
    """The course graded once per sandbox backend usable here (bubblewrap, a Podman
    container), both runs at once (each mostly waits for its attackers' time limits):
    {backend: (course, exit code, what its listener saw)}."""
    usable = []
    for backend, fixture in BACKENDS.items():
        try:
            request.getfixturevalue(fixture)
        except pytest.skip.Exception:  # ``attacked`` skips this backend's tests, saying why
            continue
        usable.append(backend)
    courses = {b: _attacked_course(tmp_path_factory.mktemp(f"attacked-{b}")) for b in usable}
    os.environ["AGK_GRADER_SECRET"] = SECRET
    try:
        with ThreadPoolExecutor(max(1, len(usable)), thread_name_prefix="attacked") as runs:
            codes = list(runs.map(_grade, [course for course, _ in courses.values()], usable))
    finally:
        del os.environ["AGK_GRADER_SECRET"]
    found = {}
    for (backend, (course, listener)), code in zip(courses.items(), codes):
        try:
            accepted = listener.accept()[0] is not None
        except BlockingIOError:
            accepted = False
        listener.close()
        found[backend] = course, code, accepted
    yield found
    for pid in _daemons():  # only if the sandbox failed: never leave them running
        os.kill(pid, 9)


@pytest.fixture(scope="module", params=list(BACKENDS))
def attacked(request, graded):
    """(course, exit code, what the listener saw) of one backend's run."""
    request.getfixturevalue(BACKENDS[request.param])  # or skip, saying what to install
    return graded[request.param]


def _attacked_course(course: Path) -> tuple[Path, socket.socket]:
    """Three honest students and the attackers in ``course``; the listener they try to reach."""
    builders.write_course(course)
    (course / "grades").mkdir()
    for student in HONEST:
        builders.write_submission(course / "submitted", student, "correct")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0)
    targets = _targets(course)
    for name, code in ATTACKS.items():
        fields = {"targets": targets.get(name), "port": listener.getsockname()[1], "daemon": DAEMON}
        fields["grader"] = os.getpid()
        _write_attacker(course, name, code.format(**fields))
    for name, code in CHEATS.items():
        _write_attacker(course, name, code, answers=builders.wrong)
    _write_cell_before_setup(course, "fakes_checks_module", FAKE_CHECKS)
    _write_attacker(course, "typed_in", _typed_in_practice_answer(course))
    return course, listener


def _grade(course: Path, backend: str) -> int:
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    return main([*args, *FLAGS, "--sandbox", backend])


def _said(course: Path, student: str) -> str:
    """What the student's answer cell printed in the graded copy."""
    nb = json.loads((course / "autograded" / student / "hw1" / "squares.ipynb").read_text())
    cell = next(
        c
        for c in nb["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer_square_sum"
    )
    return "".join(o.get("text", "") for o in cell["outputs"] if o["output_type"] == "stream")


def _test_output(course: Path, student: str, grade_id: str) -> str:
    """What a test cell printed in the graded copy."""
    nb = json.loads((course / "autograded" / student / "hw1" / "squares.ipynb").read_text())
    cell = next(
        c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id
    )
    return "".join(o.get("text", "") for o in cell["outputs"] if o["output_type"] == "stream")


def _rows(course: Path) -> dict[str, dict]:
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())
    return {row["student"]: row for row in book["rows"]}


def test_attackers_cannot_cost_honest_students_anything(attacked):
    course, code, _ = attacked
    rows = _rows(course)
    assert code == 0
    for student in HONEST:
        assert (rows[student]["status"], rows[student]["score"]) == ("ok", 10.0), rows[student]


def test_course_files_and_other_submissions_cannot_be_read(attacked):
    said = _said(attacked[0], "reader")
    assert said.count("DENIED") == 3 and "READ" not in said, said


def test_grader_environment_never_reaches_the_kernel_or_any_output(attacked):
    course = attacked[0]
    assert "ENV None" in _said(course, "reader")
    for path in course.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_nothing_the_grader_owns_is_writable(attacked):
    course = attacked[0]
    said = _said(course, "writer")
    assert said.count("DENIED") == 4 and "WROTE" not in said, said
    assert not (course / "grades" / "planted.txt").exists()


def test_no_network_not_even_the_hosts_loopback(attacked):
    course, _, accepted = attacked
    assert "REFUSED" in _said(course, "network") and not accepted


def test_other_kernels_connection_files_are_out_of_sight(attacked):
    assert "CONNECTION FILES 0" in _said(attacked[0], "peeker")


def test_nothing_a_submission_starts_outlives_it(attacked):
    course = attacked[0]
    assert "DAEMON STARTED" in _said(course, "daemon")
    deadline = time.monotonic() + 5  # the sandbox is torn down as its submission ends
    while _daemons() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _daemons() == []


def test_processes_are_limited_for_the_whole_sandbox(attacked):
    """Refused past the cap, and the sandbox is stopped as it reaches it (round 6: the grader
    counts its processes; a container's too, in the container's own tree). Where a cgroup or
    the runtime refuses the fork at the cap, the loop may end and print before the grader's
    next count (within 50 ms) stops it."""
    said = _said(attacked[0], "forkbomb")
    if "FORKED" in said:
        assert int(said.split("FORKED")[1].split()[0]) < 64, said
    row = _rows(attacked[0])["forkbomb"]
    assert row["status"] == "kernel_died", row
    assert any("processes and threads" in issue for issue in row["issues"]), row


def test_disk_use_is_capped(attacked):
    said = _said(attacked[0], "disk")
    assert int(said.split("MIB WRITTEN")[1].split()[0]) < 20, said


def test_no_process_outside_the_sandbox_can_be_signalled(attacked):
    course = attacked[0]
    assert "GRADER OUT OF REACH" in _said(course, "signaller")
    assert _rows(course)["signaller"]["score"] == 10.0  # its kill reached nothing it needed


@pytest.mark.parametrize("cheat", sorted([*CHEATS, "fakes_checks_module"]))
def test_hooks_and_patches_cannot_turn_wrong_answers_into_points(attacked, cheat):
    row = _rows(attacked[0])[cheat]
    assert row["score"] == 0.0, row
    assert row["review"], row  # the tampering is flagged for a person to look at


def test_a_typed_in_practice_answer_gets_no_points_when_graded(attacked):
    row = _rows(attacked[0])["typed_in"]
    assert row["tests"]["test_square_sum"]["points"] == 0.0, row
    assert row["tests"]["test_gradient"]["points"] == 3.0, row


def test_honest_students_are_not_flagged_for_review(attacked):
    rows = _rows(attacked[0])
    assert all(rows[student]["review"] == [] for student in HONEST)


def test_hidden_tests_never_reach_feedback_in_any_encoding(attacked):
    course = attacked[0]
    page = (course / "feedback" / "leaker" / "hw1" / "squares.html").read_text()
    said = _said(course, "leaker") + _test_output(course, "leaker", "test_square_sum")
    assert base64.b64decode(said.split()[0]).decode().count(builders.HIDDEN_MARK)  # it did read it
    for chunk in (builders.CHECKS[i : i + 12] for i in range(0, len(builders.CHECKS), 12)):
        assert base64.b64encode(chunk.encode()).decode()[:12] not in page
    assert builders.HIDDEN_MARK not in page
    assert "✗ square_sum on a random vector: your code raised ValueError" in page  # grader words


def test_the_socket_folder_is_sealed_once_the_kernel_listens(attacked):
    said = _said(attacked[0], "socketfiller")
    assert "SOCKET FOLDER SEALED" in said and "SOCKETS STAY" in said, said
