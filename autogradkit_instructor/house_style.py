"""The kit's house style for a course notebook, as named rules: ``autogradkit check-course``.

The shipped course follows every rule here (its tests call ``check``); an instructor's own
course may follow them too, by choice. A rule reads one assignment: its built notebook
(``DIR/source/NAME/NAME.ipynb``), its release copy when there is one, its ``checks.py`` and
its shortcut tests (``test_exercises_NN.py``), and says what is wrong and how to fix it.
docs/instructor_guide.md ("House style") explains each rule.

The assignments that follow the house style are the names in ``DIR/house_style.txt``, one a
line; without that file, every assignment of ``DIR/source``. A new assignment is not in the
list until its author adds it, so none fails for being new, and the list lives beside the
notebooks rather than in them: an assignment copied from a neighbour to start a new one does
not inherit the neighbour's promise.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autogradkit.grading.checks import Check

from . import pyast

__all__ = [
    "HOUSE_STYLE_FILE",
    "RULES",
    "Rule",
    "Lesson",
    "Violation",
    "house_style_assignments",
    "load_lesson",
    "check",
    "estimate",
    "round5",
    "time_line",
    "named_notebooks",
    "checks_called",
    "check_course",
]

HOUSE_STYLE_FILE = "house_style.txt"
WIDGET = "application/vnd.jupyter.widget-view+json"
PROGRESS_CELL = "checks.check.progress()"
DOCS = "https://docs.pytorch.org/docs/stable/"
CHECK_CALL = re.compile(r"^checks\.(\w+)\(\)$", re.M)


# ----- what a rule reads ---------------------------------------------------------------------
@dataclass
class Lesson:
    """One assignment as the rules read it."""

    name: str
    notebook: nbformat.NotebookNode  # DIR/source/NAME/NAME.ipynb, built (outputs stored)
    release: nbformat.NotebookNode | None  # DIR/release/NAME/NAME.ipynb, None if not released
    checks: dict[str, Check]  # checks.py's checks by name, hidden ones included
    tests: Path  # the folder of its shortcut tests, test_exercises_NN.py


def house_style_assignments(course: Path) -> list[str]:
    """The assignments of ``course`` that follow the house style (see the module docstring)."""
    listed = Path(course) / HOUSE_STYLE_FILE
    if not listed.is_file():
        return sorted(p.name for p in (Path(course) / "source").iterdir() if p.is_dir())
    lines = (line.split("#", 1)[0].strip() for line in listed.read_text("utf-8").splitlines())
    return [line for line in lines if line]


def load_lesson(course: Path, name: str, tests: Path | None = None) -> Lesson:
    """Read assignment ``name`` of ``course``; ``tests`` defaults to ``tests/notebooks`` beside
    the course folder (where the kit keeps the shipped course's)."""
    folder = Path(course) / "source" / name
    built = folder / f"{name}.ipynb"
    if not built.is_file():
        raise FileNotFoundError(f"{built} does not exist: run `autogradkit build {name}` first")
    release = Path(course) / "release" / name / f"{name}.ipynb"
    return Lesson(
        name,
        nbformat.read(built, as_version=4),
        nbformat.read(release, as_version=4) if release.is_file() else None,
        _checks_in(folder / "checks.py", name),
        Path(tests) if tests else Path(course).resolve().parent / "tests" / "notebooks",
    )


def _checks_in(path: Path, name: str) -> dict[str, Check]:
    if not path.is_file():
        return {}
    spec = importlib.util.spec_from_file_location(f"checks_of_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {key: value for key, value in vars(module).items() if isinstance(value, Check)}


# ----- the rules -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """A named rule: ``test(lesson)`` lists what is wrong, ``fix`` says what to do."""

    name: str
    fix: str
    test: Callable[[Lesson], list[str]]

    @property
    def summary(self) -> str:
        return (self.test.__doc__ or "").strip().splitlines()[0]


@dataclass(frozen=True)
class Violation:
    assignment: str
    rule: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.assignment}: [{self.rule}] {self.problem}. Fix: {self.fix}"


RULES: dict[str, Rule] = {}


def rule(name: str, fix: str):
    """Register ``fn(lesson) -> [problem, ...]`` as the rule ``name``."""

    def register(fn):
        RULES[name] = Rule(name, fix, fn)
        return fn

    return register


def check(lesson: Lesson, names=None) -> list[Violation]:
    """What ``lesson`` breaks of the rules ``names`` (all of them by default)."""
    found = []
    for name in names or RULES:
        found += [
            Violation(lesson.name, name, problem, RULES[name].fix)
            for problem in RULES[name].test(lesson)
        ]
    return found


def _code(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def _markdown(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "markdown"]


def _outputs(nb) -> list:
    return [o for c in _code(nb) for o in c.get("outputs", [])]


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _solutions(nb) -> list:
    return [c for c in nb.cells if _nbgrader(c).get("solution")]


def _tests(nb) -> list:
    return [c for c in nb.cells if _nbgrader(c).get("grade") and not _nbgrader(c).get("solution")]


@rule("three-exercises", "give the notebook at least three answer cells, each with its test cell")
def _three_exercises(lesson: Lesson) -> list[str]:
    """At least three graded exercises (answer cells and test cells)."""
    answers, tests = len(_solutions(lesson.notebook)), len(_tests(lesson.notebook))
    return [] if min(answers, tests) >= 3 else [f"{answers} answer cells, {tests} test cells"]


@rule("figure", "draw a matplotlib figure in a cell that ends with plt.show(), then build")
def _figure(lesson: Lesson) -> list[str]:
    """A matplotlib figure among the stored outputs, as a PNG."""
    figures = [
        o
        for o in _outputs(lesson.notebook)
        if "image/png" in o.get("data", {})
        and o["data"].get("text/plain", "").startswith("<Figure size")
    ]
    return [] if figures else ["no matplotlib figure"]


@rule("widget", "show a widget (autogradkit.viz has several), then build")
def _widget(lesson: Lesson) -> list[str]:
    """An interactive widget among the stored outputs."""
    found = any(WIDGET in o.get("data", {}) for o in _outputs(lesson.notebook))
    return [] if found else ["no widget"]


@rule(
    "nbgrader-cells",
    "copy the nbgrader header of a neighbour's cell and give it a new grade_id; an answer "
    "cell holds ### BEGIN SOLUTION / ### END SOLUTION, a test cell calls checks.NAME()",
)
def _nbgrader_cells(lesson: Lesson) -> list[str]:
    """Answer and test cells have nbgrader's headers; a test cell calls ``checks.NAME()``."""
    ids = [_nbgrader(c)["grade_id"] for c in lesson.notebook.cells if _nbgrader(c)]
    problems = [f"grade_id {i} is used twice" for i in sorted(set(ids)) if ids.count(i) > 1]
    for cell in _solutions(lesson.notebook):
        meta = cell.metadata["nbgrader"]
        if (meta.get("grade"), meta.get("locked"), meta.get("schema_version")) != (False, False, 3):
            problems.append(f"{meta['grade_id']}: an answer cell is grade false, locked false")
        if "### BEGIN SOLUTION" not in cell.source or "### END SOLUTION" not in cell.source:
            problems.append(f"{meta['grade_id']}: no ### BEGIN SOLUTION ... ### END SOLUTION")
    for cell in _tests(lesson.notebook):
        meta = cell.metadata["nbgrader"]
        if (meta.get("locked"), meta.get("schema_version")) != (True, 3):
            problems.append(f"{meta['grade_id']}: a test cell is locked")
        points = meta.get("points")
        if not isinstance(points, (int, float)) or points < 0:  # a prediction's are 0
            problems.append(f"{meta['grade_id']}: a test cell has points, 0 or more")
        if not CHECK_CALL.search(cell.source):
            problems.append(f"{meta['grade_id']}: the test cell calls no checks.NAME()")
    return problems


@rule(
    "checks-called-once",
    "call each check of checks.py from one test cell, a hidden one (hidden=True) inside that "
    "cell's ### BEGIN HIDDEN TESTS / ### END HIDDEN TESTS",
)
def _checks_called_once(lesson: Lesson) -> list[str]:
    """Each check is called by exactly one test cell; hidden ones only from its hidden region."""
    called, problems = [], []
    for cell in _tests(lesson.notebook):
        public, hidden = _split_hidden(cell.source)
        for region, is_hidden in ((public, False), (hidden, True)):
            for name in CHECK_CALL.findall(region):
                called.append(name)
                if name not in lesson.checks:
                    problems.append(f"checks.py has no check {name}")
                elif lesson.checks[name].hidden != is_hidden:
                    where = "inside" if is_hidden else "outside"
                    problems.append(f"{name} is called {where} the hidden region")
    for name in sorted(lesson.checks):
        if called.count(name) != 1:
            problems.append(f"{name} is called {called.count(name)} times")
    return problems


def _split_hidden(source: str) -> tuple[str, str]:
    if "### BEGIN HIDDEN TESTS" not in source:
        return source, ""
    before, rest = source.split("### BEGIN HIDDEN TESTS", 1)
    hidden, after = rest.split("### END HIDDEN TESTS", 1)
    return before + after, hidden


@rule("answer-then-check", "move each test cell right below its answer cell")
def _answer_then_check(lesson: Lesson) -> list[str]:
    """Each answer cell is followed by its test cell."""
    cells = lesson.notebook.cells
    return [
        f"{_nbgrader(cell)['grade_id']} is not followed by a test cell"
        for index, cell in enumerate(cells)
        if _nbgrader(cell).get("solution")
        and not (index + 1 < len(cells) and _nbgrader(cells[index + 1]).get("grade"))
    ]


@rule("points-announced", "write the total as **N points** in the first markdown cell")
def _points_announced(lesson: Lesson) -> list[str]:
    """The first cell is markdown and states the total points, ``**N points**``."""
    total = sum(_nbgrader(c)["points"] for c in _tests(lesson.notebook))
    total = int(total) if float(total).is_integer() else total
    first = lesson.notebook.cells[0]
    if first.cell_type == "markdown" and f"**{total} points**" in first.source:
        return []
    return [f"the first cell does not say **{total} points**"]


@rule(
    "learning-goals",
    "open the first cell with **Learning goals.** and at least three '- ' lines, each a thing "
    "the student can do; name only exercises that exist (### Exercise N headings)",
)
def _learning_goals(lesson: Lesson) -> list[str]:
    """The first cell lists at least three learning goals; the exercises they name exist."""
    first = lesson.notebook.cells[0].source
    if "**Learning goals.**" not in first:
        return ["no **Learning goals.** in the first cell"]
    goals = first.split("**Learning goals.**", 1)[1].split("\n\n**", 1)[0]
    problems = [] if len(re.findall(r"^- ", goals, re.M)) >= 3 else ["fewer than three goals"]
    markdown = "\n".join(c.source for c in _markdown(lesson.notebook))
    headings = {int(n) for n in re.findall(r"^### Exercise (\d+)", markdown, re.M)}
    for number in re.findall(r"exercises? (\d+)", goals):
        if int(number) not in headings:
            problems.append(f"a goal names exercise {number}, which does not exist")
    return problems


# ----- the time estimate ---------------------------------------------------------------------
# Reading and running: the words of the text at 150 a minute (a study pace; a Chinese text's
# characters at 250 a minute, the same pace: an English word is about 1.7 characters), the
# lines of code students read (no answer, check or hidden-source cell, no comment) at 6 a
# minute, 3 minutes a widget. Exercises: 3 minutes a point plus a minute for each line of the
# model answer. Each part is rounded to 5 minutes.
PROSE_WORDS_PER_MINUTE = 150
HAN_CHARACTERS_PER_MINUTE = 250
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
CODE_LINES_PER_MINUTE = 6
MINUTES_PER_WIDGET = 3
MINUTES_PER_POINT = 3
MINUTES_PER_ANSWER_LINE = 1


def _read_lines(cell) -> int:
    lines = cell.source.splitlines()
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def _answer_lines(cell) -> int:
    blocks = re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", cell.source, re.S)
    return sum(1 for block in blocks for line in block.splitlines() if line.strip())


def round5(minutes: float) -> int:
    return max(5, 5 * round(minutes / 5))


def reading_minutes(text: str) -> float:
    """Minutes to read ``text``: its Chinese characters, then the words left between them.

    Example:
        >>> reading_minutes("one two three"), reading_minutes("张量" * 125 + " grad_fn")
        (0.02, 1.0066666666666666)
    """
    characters = len(HAN.findall(text))
    words = len(HAN.sub(" ", text).split())
    return characters / HAN_CHARACTERS_PER_MINUTE + words / PROSE_WORDS_PER_MINUTE


def estimate(nb) -> tuple[int, int]:
    """(minutes to read and run the cells, minutes for the exercises), by the rule above."""
    prose = sum(reading_minutes(c.source) for c in _markdown(nb))
    code = widgets = 0
    exercises = 0.0
    for cell in _code(nb):
        meta = _nbgrader(cell)
        if meta.get("solution"):
            exercises += MINUTES_PER_ANSWER_LINE * _answer_lines(cell)
        elif meta.get("grade"):
            exercises += MINUTES_PER_POINT * meta["points"]
        elif not cell.metadata.get("jupyter", {}).get("source_hidden") and (
            cell.source.strip() != PROGRESS_CELL
        ):
            code += _read_lines(cell)
        if any(WIDGET in out.get("data", {}) for out in cell.get("outputs", [])):
            widgets += 1
    reading = prose + code / CODE_LINES_PER_MINUTE
    return round5(reading + MINUTES_PER_WIDGET * widgets), round5(exercises)


def _duration(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if hours and rest else f"{hours} h" if hours else f"{rest} min"


def time_line(nb) -> str:
    """The estimate as the first cell states it."""
    reading, exercises = estimate(nb)
    return (
        f"**Time:** about {_duration(reading + exercises)}: {reading} min to read and run the "
        f"cells, {exercises} min for the exercises"
    )


TIME = re.compile(
    r"\*\*Time:\*\* about (?P<total>(?:\d+ h)?\s?(?:\d+ min)?): (?P<reading>\d+) min to read "
    r"and run the cells, (?P<exercises>\d+) min for the exercises"
)


def _minutes(duration: str) -> int:
    hours = re.search(r"(\d+) h", duration)
    minutes = re.search(r"(\d+) min", duration)
    return 60 * int(hours.group(1) if hours else 0) + int(minutes.group(1) if minutes else 0)


@rule(
    "time-estimate",
    "write the line the formula gives into the first cell, and build",
)
def _time_estimate(lesson: Lesson) -> list[str]:
    """The first cell states the time the notebook takes, as the formula measures it (within
    5 minutes or a fifth)."""
    nb = lesson.notebook
    found = TIME.search(nb.cells[0].source)
    gives = f"the formula gives: {time_line(nb)}"
    if not found:
        return [f"no '**Time:** about ...' line in the first cell; {gives}"]
    reading, exercises = int(found["reading"]), int(found["exercises"])
    if _minutes(found["total"]) != reading + exercises:
        return ["the total is not the sum of its parts"]
    for stated, want in zip((reading, exercises), estimate(nb)):
        if abs(stated - want) > max(5, 0.2 * want):
            return [f"the notebook changed since its time was measured; {gives}"]
    return []


def named_notebooks(text: str) -> list[int]:
    """The numbers in "notebook 01", "notebooks 02 and 03", "notebooks 02, 04, 05 and 06"."""
    lists = re.findall(r"notebooks? (\d\d(?:(?:, | and )\d\d)*)", text, re.I)
    return [int(n) for found in lists for n in re.findall(r"\d\d", found)]


@rule(
    "before-you-start",
    "add a paragraph '**Before you start:** notebooks 01 and 02 (...)' to the first cell, "
    "naming earlier notebooks only ('nothing from this course' in the first one)",
)
def _before_you_start(lesson: Lesson) -> list[str]:
    """The first cell says what to know first, naming earlier notebooks by number."""
    first = lesson.notebook.cells[0].source
    found = re.search(r"^\*\*Before you start:\*\* (.+?)(?:\n\n|$)", first, re.M | re.S)
    if not found:
        return ["no '**Before you start:**' paragraph in the first cell"]
    named = named_notebooks(found[1])
    number = int(lesson.name[:2]) if lesson.name[:2].isdigit() else None
    if number is None:
        return []
    if not named and number != 0:
        return ["it names no notebook this one builds on"]
    return [f"notebook {n:02d} does not come earlier" for n in named if n >= number]


@rule(
    "recap-last",
    "end with a markdown cell that starts '## Recap', followed only by the progress cell",
)
def _recap_last(lesson: Lesson) -> list[str]:
    """The last markdown cell is the recap, and the only cell after it is the progress cell."""
    cells = lesson.notebook.cells
    recap = _markdown(lesson.notebook)[-1]
    if not recap.source.lstrip().startswith("## Recap"):
        return ["the last markdown cell does not start with '## Recap'"]
    if len(cells) < 2 or cells[-2] is not recap:
        return ["a cell other than the progress cell follows the recap"]
    return []


@rule(
    "further-reading",
    "end the recap with **Further reading** and at least two links to PyTorch's documentation "
    f"({DOCS}...)",
)
def _further_reading(lesson: Lesson) -> list[str]:
    """The recap ends with further reading: two or more pages of PyTorch's documentation."""
    recap = _markdown(lesson.notebook)[-1].source
    if "**Further reading**" not in recap:
        return ["no **Further reading** in the recap"]
    links = re.findall(r"\]\((https?://[^)]+)\)", recap.split("**Further reading**", 1)[1])
    problems = [f"{link} is not in PyTorch's documentation" for link in links if DOCS not in link]
    return problems + ([] if len(links) >= 2 else ["fewer than two links"])


@rule(
    "progress-cell",
    f"make the last cell a code cell holding only {PROGRESS_CELL}, then build and release",
)
def _progress_cell(lesson: Lesson) -> list[str]:
    """The last cell shows the progress: every check passed in the built notebook; in an
    untouched release copy, none, and no error."""
    last = lesson.notebook.cells[-1]
    if last.cell_type != "code" or last.source.strip() != PROGRESS_CELL:
        return [f"the last cell is not {PROGRESS_CELL}"]
    titles = [c.title for c in lesson.checks.values()]
    done = f"{len(titles)} of {len(titles)} checks passed in this session"
    problems = []
    if _printed(last) != [f"✓ {title}" for title in titles] + [done]:
        problems.append("the built notebook's progress cell does not show every check passed")
    if lesson.release is not None:
        public = [c for c in lesson.checks.values() if not c.hidden]
        cell = lesson.release.cells[-1]
        lines = _printed(cell)
        if lines[-1:] != [f"0 of {len(public)} checks passed in this session"] or any(
            o.output_type == "error" for o in cell.get("outputs", [])
        ):
            problems.append("the release copy's progress cell does not show 0 checks passed")
        elif len(lines) != len(public) + 1:
            problems.append("the release copy's progress cell does not list every public check")
    return problems


def _printed(cell) -> list[str]:
    text = "".join(o.text for o in cell.get("outputs", []) if o.output_type == "stream")
    return text.splitlines()


@rule(
    "seeded",
    "start with a code cell that imports and calls agk.manual_seed(0) and np.random.seed(0)",
)
def _seeded(lesson: Lesson) -> list[str]:
    """The first code cells seed autogradkit's and NumPy's random numbers."""
    opening = "\n".join(c.source for c in _code(lesson.notebook)[:2])
    return [
        f"no {call} in the first two code cells"
        for call in ("agk.manual_seed(0)", "np.random.seed(0)")
        if call not in opening
    ]


@rule("no-torch", "use autogradkit (import autogradkit as agk), never torch")
def _no_torch(lesson: Lesson) -> list[str]:
    """No code cell imports torch: the course runs without PyTorch."""
    torch = re.compile(r"^\s*(import|from)\s+torch\b", re.M)
    return [c.source.splitlines()[0] for c in _code(lesson.notebook) if torch.search(c.source)]


# ----- the exercise coverage -----------------------------------------------------------------
def _calls(tree, names: set[str]) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) in names and n.args
    ]


def checks_called(path: Path, helper: str) -> set[str]:
    """Names ``N`` in every ``helper(checks.N, ...)`` call of the test file, or of a wrapper
    the file defines around ``helper`` (``refused(check, ...)``, which also reads the lines
    in Chinese)."""
    tree = pyast.parse(Path(path).read_text(encoding="utf-8"))
    wrappers = {
        f.name
        for f in tree.body
        if isinstance(f, ast.FunctionDef) and not f.name.startswith("test_") and _calls(f, {helper})
    }
    return {
        node.args[0].attr
        for node in _calls(tree, {helper} | wrappers)
        if isinstance(node.args[0], ast.Attribute)
        and getattr(node.args[0].value, "id", None) == "checks"
    }


def tests_file(lesson: Lesson) -> Path:
    """``test_exercises_NN.py`` (NN: the number the name starts with, else the whole name)."""
    number = re.match(r"\d+", lesson.name)
    return lesson.tests / f"test_exercises_{number[0] if number else lesson.name}.py"


@rule(
    "shortcut-tests",
    "in test_exercises_NN.py, call assert_refused(checks.NAME, ...) with a shortcut and "
    "assert_passes(checks.NAME, ...) with a correct answer, for every check, hidden ones too",
)
def _shortcut_tests(lesson: Lesson) -> list[str]:
    """Every check, hidden ones too, has a test that refuses a shortcut and one that passes a
    correct answer (``assert_refused`` and ``assert_passes`` of tests/notebooks/exercises.py)."""
    path = tests_file(lesson)
    if not path.is_file():
        return [f"no {path.name} in {lesson.tests}"]
    problems = []
    for helper, what in (("assert_refused", "shortcut"), ("assert_passes", "correct-answer")):
        missing = sorted(set(lesson.checks) - checks_called(path, helper))
        if missing:
            problems.append(f"no {what} test ({helper}) for {', '.join(missing)}")
    return problems


# ----- the command ---------------------------------------------------------------------------
def _count(items: list, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def check_course(cfg) -> dict:
    """``autogradkit check-course``: print every violation; exit code 1 when there is one."""
    names = [cfg.assignment] if cfg.assignment else house_style_assignments(cfg.course)
    violations = []
    for name in names:
        violations += check(load_lesson(cfg.course, name, cfg.tests))
    for violation in violations:
        print(violation)
    print(f"check-course: {_count(names, 'assignment')}, {_count(violations, 'problem')}")
    return {
        "command": "check-course",
        "assignments": names,
        "violations": [vars(v) for v in violations],
        "exit_code": 1 if violations else 0,
    }
