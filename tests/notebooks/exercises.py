"""Helpers for the exercise tests: a notebook's checks, its solutions, and grading's verdict.

A test judges an answer exactly as ``autogradkit grade`` does: the check runs on the answer and
on the instructor's solution (taken from the notebook's text source, never copied into a test)
with the same seed, and ``observations.judge_record`` compares the two records. Each answer is
judged on the practice seed and on a few grading-like seeds, so a typed-in number cannot pass.

A translated notebook (``checks.<language>.po`` beside its checks) is judged in each of its
languages too: the same verdicts, and every failing line in the student's language. The
reference is the English solution: each other edition's solutions give the very same records
(``assert_observed_alike``), so judging against them too would repeat every verdict.

The assignments are those of ``notebooks/``, or of the course folder ``AUTOGRADKIT_COURSE``
names (as ``COURSE=DIR`` does for make). A check runs in its notebook's folder, as it does in
the notebook, so it finds the assignment's data files by their names.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import json
import linecache
import os
import re
from pathlib import Path

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import _i18n as i18n
from autogradkit.grading.observations import judge_record
from autogradkit_instructor import cells, translate
from autogradkit_instructor.build import read_text_source

COURSE = Path(os.environ.get("AUTOGRADKIT_COURSE", Path(__file__).parents[2] / "notebooks"))
COURSE = COURSE.resolve() / "source"
SEEDS = (None, 11, 2024, 987654321)  # None: the practice seed; the others as grading draws them


BY_HAND = {  # exercises answered by hand: notebook, its solution cells, the check that judges it
    "00 ex2": ("00_start_here", ["nb00_ex2_by_hand"], "slope_by_hand"),
    "01 ex1": ("01_backprop_by_hand", ["nb01_ex1_chain_rule"], "chain_rule"),
    "01 ex2": ("01_backprop_by_hand", ["nb01_ex2_fit_line"], "line_with_bias"),
    "01 ex3": ("01_backprop_by_hand", ["nb01_ex3_find_the_bug"], "mean_gradient"),
    "03 ex3": ("03_nonscalar_leaves_jacobians", ["nb03_ex3_vjp_by_hand"], "vjp_written_by_hand"),
    "05 ex4": ("05_inside_grad_fn", ["nb05_ex4_by_hand"], "by_hand"),
    "06 ex4": ("06_hooks", ["nb06_ex4_by_hand"], "by_hand"),
}


@functools.cache
def checks_of(assignment: str):
    """``notebooks/source/<assignment>/checks.py``, hidden checks included, as a module."""
    path = COURSE / assignment / "checks.py"
    spec = importlib.util.spec_from_file_location(f"checks_{assignment}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def editions(assignment: str) -> list[str]:
    """The languages a notebook is written in: English, and each it is translated into."""
    text_source = COURSE / assignment / f"{assignment}.py"
    return ["en"] + [
        language
        for language in i18n.LANGUAGES[1:]
        if translate.translation_path(text_source, language).is_file()
    ]


@functools.cache
def edition(assignment: str, language: str = "en"):
    """The notebook's text source in ``language``'s edition, read (and translated) once: the
    tests only read it."""
    text_source = COURSE / assignment / f"{assignment}.py"
    nb = read_text_source(text_source)
    if language != "en":
        sections = translate.read_sections(translate.translation_path(text_source, language))
        nb = translate.translate_notebook(nb, sections, language)
    return nb


def solution(assignment: str, grade_id: str, language: str = "en", **namespace) -> dict:
    """Run the solution cell ``grade_id`` of the notebook's text source (in ``language``'s
    edition) in a namespace holding ``agk``, ``np``, ``nn`` and ``namespace`` (whatever
    notebook globals it uses); return it."""
    cell = next(c for c in edition(assignment, language).cells if cells.grade_id(c) == grade_id)
    assert cells.is_solution(cell), f"{grade_id} is not an answer cell"
    scope = {"agk": agk, "np": np, "nn": agk.nn, **namespace}
    exec(compiled_cell(cells.text(cell.source), f"<{grade_id}>"), scope)
    return scope


# the solutions judged against, by notebook, cell, edition and the ids of the globals given
REFERENCES: dict = {}


def reference_solution(assignment: str, grade_id: str, language: str = "en", **namespace) -> dict:
    """``solution``, run once in the run for these arguments: every test that judges against
    it gets the same objects, so each check observes the solution once per seed
    (``SOLUTION_RECORDS``), as the grader does. Only to judge against: a test that changes the
    solution's objects (``value_class``) takes a fresh ``solution``."""
    key = (assignment, grade_id, language, tuple(sorted((k, id(v)) for k, v in namespace.items())))
    if key not in REFERENCES:  # the entry holds the globals given, so their ids stay theirs
        REFERENCES[key] = (namespace, solution(assignment, grade_id, language, **namespace))
    return dict(REFERENCES[key][1])


def compiled_cell(text: str, filename: str):
    """``text`` compiled as a notebook cell is: its lines kept under ``filename`` in
    ``linecache``, as IPython keeps each cell's (a by-hand answer is rebuilt from them)."""
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    return compile(text, filename, "exec")


def shown(assignment: str, *cell_ids: str, **namespace) -> dict:
    """Run the notebook's own cells ``cell_ids`` (by their id, in order, quietly) in a
    namespace holding ``agk``, ``np``, ``nn`` and ``namespace``; return it. A shortcut test
    submits what the notebook already shows with it, never a copy typed into the test."""
    scope = {"agk": agk, "np": np, "nn": agk.nn, **namespace}
    for cell_id in cell_ids:
        cell = next(c for c in edition(assignment).cells if c.get("id") == cell_id)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compiled_cell(cells.text(cell.source), f"<{cell_id}>"), scope)
    return scope


# the running test's observations, {(check, seed, answers): (what they hold, the record)}:
# tests/notebooks/conftest.py empties it before each test
RECORDS: dict = {}
# the solutions' observations, kept for the whole run: the grader too observes the solution
# once per seed and judges every submission against that record
SOLUTION_RECORDS: dict = {}


def observed(check, seed, answers: dict, records: dict = RECORDS):
    """``check.observe`` of ``answers`` on ``seed``, once in a test (once in the run for a
    solution: ``records=SOLUTION_RECORDS``): the English verdict and each translation's judge
    the same record, as the grader does (it observes once, then judges in the student's
    language). Seconds saved where an answer must run out of time."""
    values = tuple(answers[name] for name in check.answers)
    key = (id(check), seed, tuple(map(id, values)))
    if key not in records:  # the entry holds check and values, so their ids stay theirs
        with _in_folder(check.owner.folder):  # where the notebook runs it
            record = check.observe(seed=seed, **dict(zip(check.answers, values)))
        records[key] = ((check, values), record)
    return records[key][1]


@contextlib.contextmanager
def _in_folder(folder: Path):
    """Run the block in ``folder`` (``contextlib.chdir`` is Python 3.11's)."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def verdicts(check, reference: dict, answers: dict, seeds=SEEDS, tr=i18n.ENGLISH) -> list:
    """The grader's verdict on ``answers`` for each seed, against ``reference`` (the solution's
    answers) on the same seed, in ``tr``'s language."""
    found = []
    for seed in seeds:
        want = observed(check, seed, reference, SOLUTION_RECORDS)
        assert not want.stopped, f"the solution stops {check.name}: {want.stopped}"
        got = observed(check, seed, answers)
        found.append(judge_record(want, got, tr))
    return found


def assert_observed_alike(checks, english: dict, translated: dict) -> None:
    """Every check of ``checks`` (a notebook's module) observes ``translated``, another
    edition's solutions, as it observes ``english``, on every seed: one record. The exercise
    tests then judge other answers against the English solutions alone (every verdict in each
    language all the same): the other editions' would give the very same verdicts."""
    for check in checks.check.checks:
        missing = sorted(set(check.answers) - english.keys())
        assert not missing, f"the solutions do not answer {check.name}: {missing}"
        for seed in SEEDS:
            want = observed(check, seed, english, SOLUTION_RECORDS)
            got = observed(check, seed, translated, SOLUTION_RECORDS)
            assert not want.stopped, f"the solution stops {check.name}: {want.stopped}"
            assert _as_text(got) == _as_text(want), f"{check.name}, seed {seed}"


def english_reference(assignment: str, checks, solutions):
    """An exercise test module's ``answers`` fixture (the English solutions: every verdict is
    judged against them, in each language) and its test that each other edition's solutions
    (``solutions(edition)``) are observed as the English ones, so they would give the very
    same verdicts."""

    @pytest.fixture(scope="module")
    def answers() -> dict:
        return solutions("en")

    @pytest.mark.parametrize("edition", editions(assignment)[1:])
    def test_each_editions_solutions_are_observed_as_the_english(answers, edition):
        assert_observed_alike(checks, answers, solutions(edition))

    return answers, test_each_editions_solutions_are_observed_as_the_english


def _as_text(record) -> str:
    return json.dumps(record.as_json(), sort_keys=True, default=repr)


def translations(check) -> list[i18n.Catalog]:
    """The catalogs of the languages the check's notebook is translated into."""
    folder = check.owner.folder
    return [
        i18n.catalog(language, folder)
        for language in i18n.LANGUAGES[1:]
        if (folder / f"checks.{language}.po").is_file()
    ]


def _in_every_language(check, reference: dict, answers: dict, english: list) -> None:
    """The verdicts in each translation are the English ones, every ✗ line translated."""
    for tr in translations(check):
        for verdict, original in zip(verdicts(check, reference, answers, tr=tr), english):
            assert verdict.passed == original.passed
            failing = [line for line in verdict.lines if line.startswith("✗")]
            for line, was in zip(
                failing, [line for line in original.lines if line.startswith("✗")]
            ):
                assert line != was and re.search("[\u4e00-\u9fff]", line), (
                    f"not in {tr.language}: {line!r}"
                )


def assert_passes(check, reference: dict, **answers) -> None:
    """``answers`` pass on every seed (a correct answer, other than the solution's own)."""
    found = verdicts(check, reference, {**reference, **answers})
    for verdict in found:
        assert verdict.passed, verdict.lines
    _in_every_language(check, reference, {**reference, **answers}, found)


def assert_refused(check, reference: dict, words: str = "", **answers) -> list[str]:
    """``answers`` fail on every grading seed (a typed-in answer may pass the practice seed),
    and the last line of each failure contains ``words``; returns the first failure's lines."""
    found = verdicts(check, reference, {**reference, **answers})
    for seed, verdict in zip(SEEDS, found):
        if seed is not None:
            assert not verdict.passed, f"{check.name} accepted a shortcut with seed {seed}"
    failing = [v for v in found if not v.passed]
    for verdict in failing:
        assert words in verdict.lines[-1], verdict.lines
    _in_every_language(check, reference, {**reference, **answers}, found)
    return failing[0].lines
