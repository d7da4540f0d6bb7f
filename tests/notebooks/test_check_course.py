"""``autogradkit check-course``: each house rule catches what it names, says its fix, and the
command exits with 1 on a violation; the guide documents every rule.

Each rule is tried on a shipped notebook that follows it, then on a copy broken the way the
rule forbids.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import shutil

import nbformat
import pytest

from autogradkit_instructor import cli, house_style

from .conftest import COURSE, ROOT, lesson

NB = "02_autograd_does_it"  # has a hidden check


def _cells(nb, kind: str):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get(kind)]


def _drop_outputs(mime: str):
    def broken(nb):
        for cell in nb.cells:
            cell["outputs"] = [o for o in cell.get("outputs", []) if mime not in o.get("data", {})]

    return broken


def _call_a_check_twice(nb):
    test = _cells(nb, "grade")[0]
    test.source += "\n" + test.source.splitlines()[0]


def _markdown_after_an_answer(nb):
    index = nb.cells.index(_cells(nb, "solution")[0])
    nb.cells.insert(index + 1, nbformat.v4.new_markdown_cell("a note"))


def _first_cell(old: str, new: str):
    def broken(nb):
        assert old in nb.cells[0].source
        nb.cells[0].source = nb.cells[0].source.replace(old, new)

    return broken


def _recap(old: str, new: str):
    def broken(nb):
        recap = [c for c in nb.cells if c.cell_type == "markdown"][-1]
        assert old in recap.source
        recap.source = recap.source.replace(old, new)

    return broken


def _two_exercises(nb):
    for kind in ("solution", "grade"):
        for cell in _cells(nb, kind)[2:]:
            nb.cells.remove(cell)


def _duplicate_grade_id(nb):
    first, second = _cells(nb, "grade")[:2]
    second.metadata["nbgrader"]["grade_id"] = first.metadata["nbgrader"]["grade_id"]


def _more_points(nb):
    _cells(nb, "grade")[0].metadata["nbgrader"]["points"] += 1


def _longer_text(nb):
    nb.cells[0].source += "\n" + "word " * 3000


def _first_code(old: str, new: str):
    def broken(nb):
        code = [c for c in nb.cells if c.cell_type == "code"]
        cell = code[0] if old in code[0].source else code[1]
        cell.source = cell.source.replace(old, new)

    return broken


def _cell_after_the_recap(nb):
    nb.cells.insert(len(nb.cells) - 1, nbformat.v4.new_code_cell("print('one more')"))


def _no_progress_cell(nb):
    nb.cells.pop()


BREAKS = {
    "three-exercises": _two_exercises,
    "figure": _drop_outputs("image/png"),
    "widget": _drop_outputs(house_style.WIDGET),
    "nbgrader-cells": _duplicate_grade_id,
    "checks-called-once": _call_a_check_twice,
    "answer-then-check": _markdown_after_an_answer,
    "points-announced": _more_points,
    "learning-goals": _first_cell("**Learning goals.**", "**Goals.**"),
    "time-estimate": _longer_text,
    "before-you-start": _first_cell("**Before you start:**", "**First:**"),
    "recap-last": _cell_after_the_recap,
    "further-reading": _recap("**Further reading**", "**More**"),
    "progress-cell": _no_progress_cell,
    "seeded": _first_code("np.random.seed(0)", "np.random.seed(1)"),
    "no-torch": _first_code("import numpy as np", "import numpy as np\nimport torch"),
}


def test_every_rule_is_tried_here():
    assert set(BREAKS) | {"shortcut-tests"} == set(house_style.RULES)


@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_a_rule_catches_the_notebook_that_breaks_it_and_says_the_fix(rule):
    followed = lesson(NB)
    assert house_style.check(followed, [rule]) == []
    nb = copy.deepcopy(followed.notebook)
    BREAKS[rule](nb)
    found = house_style.check(dataclasses.replace(followed, notebook=nb), [rule])
    assert found, f"{rule} missed its violation"
    text = str(found[0])
    assert text.startswith(f"{NB}: [{rule}] ") and f"Fix: {house_style.RULES[rule].fix}" in text


def test_a_check_without_its_shortcut_test_is_caught(tmp_path):
    followed = lesson(NB)
    hidden = next(name for name, c in followed.checks.items() if c.hidden)
    tests = (ROOT / "tests/notebooks/test_exercises_02.py").read_text(encoding="utf-8")
    refused = re.compile(rf"assert_refused\(\s*checks\.{hidden},")
    assert refused.search(tests)
    (tmp_path / "test_exercises_02.py").write_text(
        refused.sub("print(checks.x,", tests), encoding="utf-8"
    )
    found = house_style.check(dataclasses.replace(followed, tests=tmp_path), ["shortcut-tests"])
    assert [v.problem for v in found] == [f"no shortcut test (assert_refused) for {hidden}"]
    found = house_style.check(dataclasses.replace(followed, tests=tmp_path / "none"))
    assert any(v.rule == "shortcut-tests" and "no test_exercises_02.py" in v.problem for v in found)


def test_the_guide_documents_every_rule():
    guide = (ROOT / "docs" / "instructor_guide.md").read_text(encoding="utf-8")
    section = guide.split("## House style", 1)[1].split("\n## ", 1)[0]
    for name in house_style.RULES:
        assert f"`{name}`" in section, f"the guide's House style section does not explain {name}"


@pytest.fixture
def course(tmp_path):
    """A course of one shipped assignment and one that follows no house rule."""
    for name in (NB, "09_quiz"):
        shutil.copytree(COURSE / "source" / NB, tmp_path / "source" / name)
    (tmp_path / "source" / "09_quiz" / f"{NB}.ipynb").rename(
        tmp_path / "source" / "09_quiz" / "09_quiz.ipynb"
    )
    quiz = tmp_path / "source" / "09_quiz" / "09_quiz.ipynb"
    nb = nbformat.read(quiz, as_version=4)
    _two_exercises(nb)
    nbformat.write(nb, quiz)
    return tmp_path


def _check_course(course, capsys, *args) -> tuple[int, str]:
    """Run check-course on the scratch ``course``, with the shortcut tests of NB alone (an
    instructor's own test_exercises_09.py in tests/notebooks must not change what it says)."""
    tests = course / "shortcut_tests"
    tests.mkdir(exist_ok=True)
    shutil.copy2(ROOT / "tests" / "notebooks" / f"test_exercises_{NB[:2]}.py", tests)
    code = cli.main(["check-course", "--course", str(course), "--tests", str(tests), *args])
    return code, capsys.readouterr().out


def test_the_command_lists_each_violation_and_exits_with_1(course, capsys):
    code, out = _check_course(course, capsys, "--assignment", NB)
    assert code == 0 and out.strip() == "check-course: 1 assignment, 0 problems"
    code, out = _check_course(course, capsys, "--assignment", "09_quiz")
    assert code == 1
    assert "09_quiz: [three-exercises] 2 answer cells, 2 test cells. Fix: give the" in out
    assert "09_quiz: [shortcut-tests] no test_exercises_09.py in" in out


def test_the_house_style_file_says_which_assignments_are_checked(course, capsys):
    code, out = _check_course(course, capsys)
    assert code == 1 and "check-course: 2 assignments" in out  # no file: every assignment
    (course / "house_style.txt").write_text(f"# the kit's style\n{NB}\n", encoding="utf-8")
    code, out = _check_course(course, capsys)
    assert code == 0 and "check-course: 1 assignment, 0 problems" in out


def test_an_unbuilt_assignment_is_a_clear_error(course, capsys):
    (course / "source" / "09_quiz" / "09_quiz.ipynb").unlink()
    assert cli.main(["check-course", "--course", str(course), "--assignment", "09_quiz"]) == 1
    assert "run `autogradkit build 09_quiz` first" in capsys.readouterr().err
