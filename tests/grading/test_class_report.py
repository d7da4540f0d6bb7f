"""class_report.py: the instructor's page on what the class got wrong.

A synthetic course whose answers are known, written as ``grade`` writes its files: the
gradebook, each student's feedback page (its lines judged by the grader's own
``judge_record``, in the student's language), the graded notebooks and the reference run.
No kernel runs here, except in the last test (a real grading run, twice, with bubblewrap).
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from autogradkit import _i18n as i18n
from autogradkit.grading.observations import MIME, Observation, Record, judge_record
from autogradkit_instructor import class_report
from autogradkit_instructor.cli import main
from autogradkit_instructor.config import GradingConfig
from autogradkit_instructor.context import CellResult, Context
from autogradkit_instructor.notebooks import write_notebook
from autogradkit_instructor.report import feedback_html, make_row, write_gradebook

from .helpers import code, notebook

ZH_CHECKS = """
msgid "square_sum on a random vector"
msgstr "随机向量上的 square_sum"

msgid "square each entry, then add"
msgstr "把每一项平方后相加"

msgid "the gradient"
msgstr "梯度"
"""
SUM = Record(
    "sums",
    "square_sum on a random vector",
    observations=[Observation("square_sum(x)", 14.0, "close", hint="square each entry, then add")],
)
GRADIENT = Record("grads", "the gradient", observations=[Observation("x.grad", [2.0, 4.0])])
SECRET = "<script>alert('kernel')</script>"
LINES = "off by one\nand more"
EVE = {"hidden": "not_run"}  # eve's kernel was gone before her hidden test cell
# student -> (language, status, what each exercise got): a value for a check, an error for an
# assert cell ((ename, evalue), None for no error, "not_run"), "pass" for full points
CLASS = {
    "ann": ("en", "ok", {"sum": "pass", "grad": "pass", "asserts": "pass"}),
    "bob": ("en", "ok", {"sum": 9.0, "grad": "pass", "asserts": ("AssertionError", "off by one")}),
    "cy": ("zh-CN", "ok", {"sum": 9.0, "grad": [1.0, 2.0], "asserts": ("AssertionError", LINES)}),
    "dee": ("zh-CN", "ok", {"sum": 10.0, "grad": [1.0, 2.0], "asserts": (SECRET, SECRET)}),
    "eve": ("zh-CN", "timeout", {"sum": "unanswered", "grad": "pass", "asserts": None, **EVE}),
    "fay": ("zh-CN", "ok", {"sum": "pass", "grad": [0.0, 0.0], "asserts": "pass"}),
}  # fmt: skip
HIDDEN_POINTS = "hidden_check(mse)"


def _source() -> dict:
    return notebook(
        code("import checks", grade_id="setup", locked=True),
        code("checks.sums()", grade_id="test_sum", grade=True, locked=True, points=2),
        code("checks.grads()", grade_id="test_grad", grade=True, locked=True, points=3),
        code("assert f(1) == 2", grade_id="test_asserts", grade=True, locked=True, points=1),
        code(
            f"### BEGIN HIDDEN TESTS\nassert {HIDDEN_POINTS}\n### END HIDDEN TESTS",
            grade_id="test_hidden",
            grade=True,
            locked=True,
            points=1,
        ),
    )


def _reference() -> dict:
    nb = _source()
    for cell, record in zip(nb.cells[1:3], (SUM, GRADIENT), strict=True):
        cell.outputs = [{"output_type": "display_data", "data": {MIME: record.as_json()}}]
    return nb


def _judged(gid: str, record: Record, answer, tr) -> CellResult:
    """The cell's result as CollectResults makes it: the grader's own judgement."""
    result = CellResult(gid, 2.0, title="Squares")
    if answer == "pass":
        seen = record
    elif answer == "unanswered":
        seen = Record(record.check, record.title, stopped={"reason": "not_answered"})
    else:
        name = record.observations[0].name
        seen = Record(record.check, record.title, observations=[Observation(name, answer)])
    verdict = judge_record(record, seen, tr)
    result.lines, result.status = verdict.lines, "passed" if verdict.passed else "failed"
    result.points = result.max_points if verdict.passed else 0.0
    return result


def _assert_cell(gid: str, answer, nb: dict) -> CellResult:
    """An assert cell's result, and its error written into the graded notebook ``nb``."""
    result = CellResult(gid, 1.0, status="passed", points=1.0)
    if answer != "pass":
        result.status, result.points = "not_run" if answer == "not_run" else "failed", 0.0
    if isinstance(answer, tuple):
        cell = next(c for c in nb["cells"] if c["metadata"]["nbgrader"]["grade_id"] == gid)
        cell["outputs"] = [{"output_type": "error", "ename": answer[0], "evalue": answer[1]}]
    return result


def _write_student(root: Path, student: str, language: str, status: str, answers: dict) -> dict:
    tr = i18n.catalog(language, root / "source" / "hw1")
    ctx = Context(GradingConfig(command="grade"), Path(f"{student}.ipynb"), root)
    ctx.tr, graded = tr, _source()
    ctx.results["test_sum"] = _judged("test_sum", SUM, answers["sum"], tr)
    ctx.results["test_grad"] = _judged("test_grad", GRADIENT, answers["grad"], tr)
    ctx.results["test_asserts"] = _assert_cell("test_asserts", answers["asserts"], graded)
    hidden = answers.get("hidden", answers["asserts"])
    ctx.results["test_hidden"] = _assert_cell("test_hidden", hidden, graded)
    if status != "ok":
        ctx.fail(status, "test_sum: this cell ran longer than 3 s and was interrupted")
    if student == "fay":
        ctx.review.append("before test_grad: checks.grads was replaced")
    row = make_row(
        ctx, student=student, assignment="hw1", notebook="squares", seconds=len(student),
        digest="d", max_score=7.0,
    )  # fmt: skip
    page = root / "feedback" / student / "hw1" / "squares.html"
    page.parent.mkdir(parents=True)
    page.write_text(feedback_html(row, ctx), encoding="utf-8")
    write_notebook(graded, root / "autograded" / student / "hw1" / "squares.ipynb")
    return row


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory) -> Path:
    """The course after ``grade``: CLASS's six students, two editions."""
    root = tmp_path_factory.mktemp("course")
    (root / "source" / "hw1").mkdir(parents=True)
    write_notebook(_source(), root / "source" / "hw1" / "squares.ipynb")
    (root / "source" / "hw1" / "checks.zh-CN.po").write_text(ZH_CHECKS, encoding="utf-8")
    write_notebook(_reference(), root / "grades" / "hw1" / "reference" / "squares.ipynb")
    rows = [_write_student(root, name, *entry) for name, entry in CLASS.items()]
    write_gradebook(rows, root / "grades" / "hw1", {"assignment": "hw1"})
    return root


def _report(root: Path, *options: str) -> tuple[str, dict]:
    assert main(["report", "--assignment", "hw1", "--course", str(root), *options]) == 0
    page = Path(options[options.index("--output") + 1]) if "--output" in options else None
    page = page or root / "grades" / "hw1" / "report.html"
    data = json.loads(page.with_suffix(".json").read_text(encoding="utf-8"))
    return page.read_text(encoding="utf-8"), data


def _misses(data: dict, gid: str) -> dict[tuple[str, str], int]:
    exercise = next(e for e in data["exercises"] if e["id"] == gid)
    return {(m["what"], m["why"]): m["students"] for m in exercise["misses"]}


def test_the_counts_are_the_classs_and_both_editions_count_together(graded_course):
    _, data = _report(graded_course, "--lang", "en")
    assert (data["students"], data["submissions"]) == (6, 6)
    assert _misses(data, "test_sum") == {
        ("square_sum on a random vector", "square each entry, then add"): 3,  # bob en, cy+dee zh
        ("square_sum on a random vector", "not answered yet"): 1,  # eve, in Chinese
    }
    assert _misses(data, "test_grad") == {("x.grad", ""): 3}  # cy, dee and fay
    assert _misses(data, "test_asserts") == {
        ("AssertionError: off by one", ""): 2,  # the first line of the message only
        (f"{SECRET}: {SECRET}", ""): 1,  # escaped on the page (below)
        (class_report.NO_EXCEPTION, ""): 1,  # eve: failed, no error
    }
    # a hidden test's message is never shown, nor an exception name a kernel made up
    assert _misses(data, "test_hidden") == {
        ("AssertionError", ""): 2,
        ("an exception", ""): 1,
        (class_report.NOT_RUN, ""): 1,  # eve's kernel was gone: no error, and no exception
    }
    sums = next(e for e in data["exercises"] if e["id"] == "test_sum")
    assert (sums["passed"], sums["submissions"], sums["misses"][0]["share"]) == (2, 6, 0.5)
    assert data["scores"]["totals"] == [0.0, 0.0, 2.0, 2.0, 4.0, 6.0]
    assert (data["scores"]["median"], data["scores"]["quartiles"]) == (2.0, [0.5, 3.5])
    statuses = {status: entry["count"] for status, entry in data["statuses"].items()}
    assert statuses == {"ok": 5, "timeout": 1, "review": 1}
    assert [who["name"] for who in data["statuses"]["review"]["who"]] == ["fay"]
    slowest = data["run"]["slowest"]  # no names: the seconds, status and notebook
    assert len(slowest) == 5 and set(slowest[0]) == {"seconds", "status", "notebook"}


def test_the_page_links_each_status_to_its_students(graded_course):
    page, _ = _report(graded_course)
    assert '<a href="#status-timeout">timeout</a>' in page
    timeout = page.split('id="status-timeout"')[1].split("</p>")[0]
    assert '<a href="../../feedback/eve/hw1/squares.html">eve</a>' in timeout
    assert (graded_course / "grades" / "hw1" / "../../feedback/eve/hw1/squares.html").is_file()
    assert page.count("data:image/png;base64,") == 2


def test_kernel_made_text_is_escaped_and_bounded(graded_course):
    page, _ = _report(graded_course)
    assert SECRET not in page and html.escape(SECRET) in page
    long_name = "E" * 5000
    assert len(class_report._bounded(long_name)) == class_report.MAX_TEXT
    assert class_report._bounded("a\ud800b") == "a\\ud800b"  # no file holds a lone surrogate
    assert class_report._bounded("\u202eab") == "\\u202eab"  # nor reorders the page


def test_anonymous_leaves_no_name_and_no_kernel_text(graded_course, tmp_path):
    output = tmp_path / "class" / "page.html"
    page, data = _report(graded_course, "--anonymous", "--output", str(output))
    page = re.sub(r"data:image/png;base64,[^\"]*", "", page)  # base64 could spell a name
    for text in (page, json.dumps(data, ensure_ascii=False)):
        for student in CLASS:
            assert not re.search(rf"\b{student}\b", text), student
        assert "off by one" not in text and "alert" not in text
    assert data["statuses"]["timeout"] == {"count": 1}


def test_a_chinese_course_gets_a_chinese_page(graded_course, tmp_path):
    page, data = _report(graded_course, "--output", str(tmp_path / "zh.html"))
    assert data["language"] == "zh-CN"  # four of the six feedback pages are Chinese
    assert '<html lang="zh-CN">' in page and "全班错在哪里" in page
    assert "把每一项平方后相加" in page and "还没有作答" in page  # the course's and kit's words
    assert "square each entry, then add" not in page
    assert "没有抛出异常" in page and "AssertionError: off by one" in page  # a kernel's, verbatim


def test_without_a_gradebook_the_command_says_to_grade_first(tmp_path, capsys):
    assert main(["report", "--assignment", "hw1", "--course", str(tmp_path)]) == 1
    assert "run `autogradkit grade` first" in capsys.readouterr().err


def test_without_matplotlib_the_command_says_what_to_install(graded_course, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # its import now fails
    output = graded_course / "elsewhere.html"
    assert main(["report", "--assignment", "hw1", "--course", str(graded_course), "--output",
                 str(output)]) == 1  # fmt: skip
    assert "pip install matplotlib" in capsys.readouterr().err and not output.exists()


# ----- in a browser -----------------------------------------------------------------------------
LOCAL = ("file:", "data:")  # the page loads nothing from elsewhere


def _open(browser, page_path: Path) -> tuple[list[str], list]:
    """What went wrong while ``page_path`` opened in a fresh context, and each figure's
    (loaded, width)."""
    errors: list[str] = []
    context = browser.new_context()
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda r: errors.append(r.url) if r.url[:5] not in LOCAL else None)
        page.goto(page_path.as_uri())
        figures = page.evaluate(
            "[...document.querySelectorAll('figure img')].map(i => [i.complete, i.naturalWidth])"
        )
    finally:
        context.close()
    return errors, figures


@pytest.mark.needs("chromium")
def test_the_page_opens_from_disk_with_its_figures_and_no_console_error(graded_course, chromium):
    page_path = graded_course / "grades" / "hw1" / "report.html"
    _report(graded_course)
    errors, figures = chromium.run(_open, page_path)  # this process's shared browser
    assert errors == []
    assert len(figures) == 2 and all(done and width > 100 for done, width in figures)


# ----- a real grading run, then a re-run that grades one changed submission --------------------
def test_a_rerun_keeps_the_counts_of_the_rows_it_did_not_grade_again(tmp_path, sandbox):
    from . import builders

    builders.write_course(tmp_path)
    kinds = {"s1": "correct", "s2": "wrong", "s3": "wrong", "s4": "unanswered"}
    for student, kind in kinds.items():
        builders.write_submission(tmp_path / "submitted", student, kind)
    grade = ["grade", str(tmp_path / "submitted"), "--assignment", "hw1", "--course", str(tmp_path)]
    grade += ["-j", "2", "--timeout", "10", "--no-progress"]
    assert main(grade) == 0
    _, first = _report(tmp_path)
    builders.write_submission(tmp_path / "submitted", "s4", "correct")  # s4 hands in again
    assert main(grade) == 0  # grades s4 alone, with new seeds for the checks
    _, second = _report(tmp_path)
    hint = ("square_sum on a random vector", "square each entry, then add")
    assert _misses(first, "test_square_sum")[hint] == _misses(second, "test_square_sum")[hint] == 2
    assert ("square_sum on a random vector", "not answered yet") in _misses(
        first, "test_square_sum"
    )
    assert ("square_sum on a random vector", "not answered yet") not in _misses(
        second, "test_square_sum"
    )
    assert (second["run"]["graded"], second["run"]["sandbox"]) == (1, {"bwrap": 4})
    assert second["run"]["scheduler"] == "local"  # grade writes where it ran; no --scheduler


def test_an_assignment_of_two_notebooks_sums_each_students_notebooks(tmp_path):
    def row(student, notebook, points, status="ok"):
        tests = {"t": {"points": points, "max_points": 2.0, "status": "failed"}}
        if points == 2.0:
            tests["t"]["status"] = "passed"
        return {"student": student, "assignment": "hw", "notebook": notebook, "status": status,
                "score": points, "max_score": 2.0, "tests": {} if status == "missing" else tests,
                "seconds": 1.0, "submission": f"{notebook}.ipynb", "review": []}  # fmt: skip

    rows = [row("a", "one", 2.0), row("a", "two", 1.0), row("b", "one", 0.0)]
    rows.append(row("b", "two", 0.0, "missing"))
    assignment = SimpleNamespace(name="hw", folder=tmp_path, sources={})
    data = class_report.summarise({"rows": rows}, tmp_path, assignment, "en")
    assert data["scores"]["totals"] == [0.0, 3.0] and data["scores"]["max"] == 4.0
    assert [(e["notebook"], e["id"], e["passed"], e["submissions"]) for e in data["exercises"]] == [
        ("one", "t", 1, 2),
        ("two", "t", 0, 2),
    ]
    assert [who["name"] for who in data["statuses"]["missing"]["who"]] == ["b (two)"]
