"""The course round trip, through the grading engineer's own entry point (``cli.main``):

- a fresh ``release`` of ``notebooks/source`` equals the committed ``notebooks/release``, in
  every edition (``release/zh-CN`` and ``release/zh-TW`` too);
- grading the instructor notebooks (the solutions) gives full marks;
- grading the fresh student versions (nothing answered) gives zero, without any crash;
- a translated edition is graded the same, and its feedback is in its language;
- releasing again, or after building afresh, changes no byte of a release copy (a timing, a
  rate or a machine's font warning in a stored output would).

Every notebook is executed three times in all (release, grade solution, grade blank); the
notebooks whose outputs once varied (03 times its graph, 07 trains under tqdm's bar, every
Chinese figure draws Chinese) are released once more, in every edition. The zh-TW edition is
graded on a sample of its notebooks (conftest.SAMPLED). The editions are released, and the
assignments graded (``-j 2`` each), a few at a time (``_each_at_once``): a run spends much
of its time waiting for a kernel to start or a cell to finish, and one run after the other
would leave the cores idle.
"""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autogradkit._i18n import catalog
from autogradkit_instructor import cli, translate

from ..optional import skip_unless
from .conftest import (
    ASSIGNMENTS,
    COURSE,
    EDITIONS,
    TRANSLATED,
    comparable,
    read,
    release_path,
    sampled,
    source_path,
)

pytestmark = [pytest.mark.notebook, pytest.mark.slow(100)]

TIMED, TRAINED = "03_nonscalar_leaves_jacobians", "07_capstone"
AT_ONCE = 3  # commands run together: each one mostly waits, for a kernel or a cell


def _each_at_once(commands: list[list[str]]) -> list[int]:
    """``cli.main`` on each of ``commands`` (each one writes folders of its own), up to
    ``AT_ONCE`` at a time; their exit codes, in order."""
    with ThreadPoolExecutor(AT_ONCE, thread_name_prefix="round-trip") as runs:
        return list(runs.map(cli.main, commands))


@pytest.fixture(scope="module")
def fresh_course(tmp_path_factory):
    """A copy of the course with a release made now, from the committed sources."""
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(COURSE / "source", root / "source")
    release = ["release", "--course", str(root)]
    editions = [release] + [[*release, "--lang", language] for language in TRANSLATED]
    assert _each_at_once(editions) == [0] * len(editions)
    return root


def _course_copy(root: Path) -> Path:
    shutil.copytree(COURSE / "source", root / "source")
    return root


def _release_bytes(root: Path, names: list[str], languages: list[str]) -> dict[str, bytes]:
    """Release ``names`` in ``languages`` into ``root``; then the bytes of each file of the
    release folders of ``names``, by path."""
    release = ["release", "--course", str(root), *names]
    assert _each_at_once([[*release, "--lang", lang] for lang in languages]) == [0] * len(languages)
    files = [p for p in (root / "release").rglob("*") if p.is_file()]
    found = {str(p.relative_to(root)): p.read_bytes() for p in files}
    return {path: data for path, data in found.items() if Path(path).parent.name in names}


@pytest.fixture(scope="module")
def gradebook(fresh_course):
    """{(assignment, student): row} for the students "solutions" and "blank"."""
    skip_unless("bubblewrap")  # grade's default sandbox
    submitted = fresh_course / "submitted"
    for name in ASSIGNMENTS:  # every hand-in first: a run fails if its folder changes
        fresh = release_path(name, course=fresh_course)
        for student, notebook in (("solutions", source_path(name)), ("blank", fresh)):
            folder = submitted / student / name
            folder.mkdir(parents=True)
            shutil.copy(notebook, folder / notebook.name)
        for language in (lang for lang in TRANSLATED if name in sampled(lang)):
            _hand_in_edition(submitted, name, language, fresh_course)
    reports = {name: fresh_course / f"report-{name}.json" for name in ASSIGNMENTS}
    grade = ["grade", str(submitted), "--course", str(fresh_course), "-j", "2", "--no-progress"]
    runs = [[*grade, "--assignment", name, "--report", str(reports[name])] for name in ASSIGNMENTS]
    assert _each_at_once(runs) == [0] * len(runs)
    rows = {}
    for name, report in reports.items():
        for row in json.loads(report.read_text(encoding="utf-8"))["rows"]:
            rows[name, row["student"]] = row
    return rows


def _hand_in_edition(submitted, name: str, language: str, fresh_course) -> None:
    """The students ``solutions-<language>`` (the instructor's notebook, translated) and
    ``blank-<language>`` (the fresh release of that edition)."""
    import nbformat

    text_source = COURSE / "source" / name / f"{name}.py"
    sections = translate.read_sections(translate.translation_path(text_source, language))
    solved = translate.translate_notebook(read(source_path(name)), sections, language)
    for student in (f"solutions-{language}", f"blank-{language}"):
        (submitted / student / name).mkdir(parents=True)
    nbformat.write(solved, submitted / f"solutions-{language}" / name / f"{name}.ipynb")
    blank = release_path(name, language, course=fresh_course)
    shutil.copy(blank, submitted / f"blank-{language}" / name / blank.name)


def _points(name: str) -> float:
    return sum(
        c.metadata["nbgrader"]["points"]
        for c in read(source_path(name)).cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )


def test_the_text_sources_with_their_solutions_never_reach_the_release(fresh_course):
    """The release gets each notebook's checks.py, without its hidden checks, and never the
    notebook's text source (it holds the solutions)."""
    assert list((fresh_course / "source").rglob("*_*.py"))  # the sources were there to copy
    released = sorted((fresh_course / "release").rglob("*.py"))
    assert {p.name for p in released} == {"checks.py"}
    assert not any("BEGIN HIDDEN TESTS" in p.read_text() for p in released)
    hidden = [
        p for p in (fresh_course / "source").rglob("checks.py") if "hidden=True" in p.read_text()
    ]
    assert hidden and not any("hidden=True" in p.read_text() for p in released)


def test_release_writes_exactly_the_committed_files(fresh_course):
    fresh = sorted(
        p.relative_to(fresh_course / "release")
        for p in (fresh_course / "release").rglob("*")
        if p.is_file()
    )
    committed = sorted(
        p.relative_to(COURSE / "release") for p in (COURSE / "release").rglob("*") if p.is_file()
    )
    assert fresh == committed


@pytest.mark.parametrize(("language", "name"), EDITIONS)
def test_release_copy_equals_a_fresh_release(fresh_course, language, name):
    fresh = release_path(name, language, course=fresh_course)
    assert comparable(fresh) == comparable(release_path(name, language)), (
        f"notebooks/release is stale: run `autogradkit release --lang {language}`"
    )


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_solutions_get_full_marks(gradebook, name):
    row = gradebook[name, "solutions"]
    assert row["status"] == "ok", row["issues"]
    assert row["max_score"] == _points(name)
    assert row["score"] == row["max_score"], row["tests"]


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_unanswered_student_version_gets_zero_without_crashing(gradebook, name):
    row = gradebook[name, "blank"]
    assert row["status"] == "ok", row["issues"]
    assert row["score"] == 0 and row["max_score"] == _points(name)
    tests = [
        c for c in read(source_path(name)).cells if c.metadata.get("nbgrader", {}).get("grade")
    ]
    # every test failed (a reading of yours, with no test, has none to fail)
    assert [test["status"] for test in row["tests"].values()] == ["failed"] * len(tests)


@pytest.mark.parametrize(
    ("language", "name"), [(lang, name) for lang in TRANSLATED for name in sampled(lang)]
)
def test_a_translated_edition_is_graded_alike_with_feedback_in_its_language(
    gradebook, fresh_course, language, name
):
    solved, blank = gradebook[name, f"solutions-{language}"], gradebook[name, f"blank-{language}"]
    assert solved["status"] == blank["status"] == "ok", (solved["issues"], blank["issues"])
    assert solved["score"] == solved["max_score"] == _points(name), solved["tests"]
    assert blank["score"] == 0 and not blank["issues"]  # no locked cell counts as changed
    page = fresh_course / "feedback" / f"blank-{language}" / name / f"{name}.html"
    text = page.read_text(encoding="utf-8")
    assert f'<html lang="{language}">' in text
    not_answered = catalog(language)("not answered yet")  # 还没有作答, 還沒有作答
    assert text.count(not_answered) == len(blank["tests"]), "each exercise: not answered yet"


def test_releasing_again_changes_no_byte(fresh_course, tmp_path):
    names, languages = [TIMED, TRAINED], ["en", *TRANSLATED]
    again = _release_bytes(_course_copy(tmp_path), names, languages)
    first = _release_bytes(fresh_course, names, [])  # released by the fixture
    assert len(first) >= len(names) * len(languages) * 2  # each notebook and its checks.py
    assert _differences(first, again) == []


def test_a_release_after_a_fresh_build_changes_no_byte(fresh_course, tmp_path):
    root = _course_copy(tmp_path)
    (root / "source" / TIMED / f"{TIMED}.ipynb").unlink()
    assert cli.main(["build", "--course", str(root), TIMED]) == 0
    rebuilt = _release_bytes(root, [TIMED], ["en"])
    first = _release_bytes(fresh_course, [TIMED], [])
    english = {path: data for path, data in first.items() if path.startswith(f"release/{TIMED}")}
    assert rebuilt and _differences(english, rebuilt) == []


def _differences(first: dict[str, bytes], second: dict[str, bytes]) -> list[str]:
    """The files in one release only, or whose bytes differ."""
    return sorted(
        path for path in first.keys() | second.keys() if first.get(path) != second.get(path)
    )
