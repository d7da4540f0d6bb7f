"""``autogradkit export``: a gradebook in the import format of Canvas or Moodle, or a plain CSV.

One line per student. By default one column per notebook, holding its total (``hw1 squares``,
or ``08_my_quiz`` when the notebook is named as its assignment); with ``--per-exercise`` one
column per test cell (``08_my_quiz: exercise 1``). Read from
``grades/<assignment>/gradebook.json``. **No grade is ever left out**: a notebook that was not
handed in, could not be read or could not be graded exports as 0, and its status goes into
the notes column of the format. What each LMS reads (``docs/deploy.md`` cites the pages):

* **Canvas** (Grades > Import): a header ``Student, ID, SIS User ID, SIS Login ID, Section``
  and then one column per assignment, which Canvas creates when no assignment has that name; a
  second row ``Points Possible`` gives each column's points. A student is found by ``ID``
  (Canvas's own number, left empty here), then ``SIS User ID``, then ``SIS Login ID``, then
  the name. An empty cell changes nothing, so no cell is empty. The last column is ``Notes``,
  Canvas's teacher-only notes column.
* **Moodle** (Grade administration > Import > CSV file): a header row, then one row per user;
  at import the teacher maps one column to a user field (``Username`` to username, ``ID
  number`` to idnumber or ``Email address`` to email), each grade column to a grade item or a
  new one, and ``Feedback`` to an item's feedback.
* **csv**: ``student, name, id, email``, the grade columns, ``total``, ``possible`` and
  ``notes``.

Names, ids and emails come from ``--roster`` (``student,name,id,email``; the submission
folder's name is the student, and is also the name when there is no roster; Canvas's
``SIS Login ID`` and Moodle's ``Username`` are that folder name, as JupyterHub names users by
their login). Every text cell is made inert for spreadsheets (``report._inert``): one starting
with ``=``, ``+``, ``-``, ``@``, a tab or a CR gets a leading ``'``. The notes are the grader's
own words (a status, "needs review"), never text a submission wrote. Rows that could not be
graded or ask for a person (``review``) are also named on stderr.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from pathlib import Path

from .config import GradingConfig
from .report import csv_line, write_atomic

__all__ = [
    "ROSTER_FIELDS",
    "export_gradebook",
    "read_roster",
    "Table",
    "canvas",
    "moodle",
    "plain",
    "WRITERS",
]

ROSTER_FIELDS = ("student", "name", "id", "email")


def export_gradebook(cfg: GradingConfig) -> dict:
    """Write ``cfg.assignment``'s gradebook as ``cfg.format``; returns the JSON report.

    Raises:
        FileNotFoundError: there is no gradebook yet (run ``grade`` first), or no roster file.
        ValueError: the roster has no ``student`` column.
    """
    folder = Path(cfg.course) / "grades" / cfg.assignment
    gradebook = folder / "gradebook.json"
    if not gradebook.is_file():
        raise FileNotFoundError(f"no gradebook at {gradebook}: run `autogradkit grade` first")
    rows = json.loads(gradebook.read_text(encoding="utf-8"))["rows"]
    people = read_roster(cfg.roster) if cfg.roster else {}
    table = Table(cfg.assignment, rows, people, per_exercise=cfg.per_exercise)
    text = WRITERS[cfg.format](table)
    path = cfg.output or folder / f"{cfg.assignment}_{cfg.format}.csv"
    write_atomic(Path(path), text)
    for note in table.warnings():
        print(f"autogradkit export: warning: {note}", file=sys.stderr)
    count, shape = (
        len(table.students),
        "one per exercise" if cfg.per_exercise else "one per notebook",
    )
    print(f"exported {count} students, {len(table.columns)} columns ({shape}): {path}")
    return {
        "command": "export",
        "file": str(path),
        "students": count,
        "columns": len(table.columns),
        "exit_code": 0,
    }


def read_roster(path: Path) -> dict[str, dict[str, str]]:
    """``student -> {name, id, email}`` from a CSV with a header (extra columns ignored)."""
    with Path(path).open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        if "student" not in (reader.fieldnames or []):
            wanted = ", ".join(ROSTER_FIELDS)
            raise ValueError(f"{path}: the roster needs a 'student' column ({wanted})")
        return {row["student"]: {k: row.get(k) or "" for k in ROSTER_FIELDS[1:]} for row in reader}


class Table:
    """The gradebook turned around: one line per student, one column per notebook (its total)
    or, with ``per_exercise``, per test cell. Every cell holds a number: a submission that
    was not handed in, could not be read or could not be graded scores 0, and its status is
    in the student's ``notes``.

    Example:
        >>> row = {"student": "ann", "notebook": "nb", "status": "ok", "review": [],
        ...        "max_score": 3.0, "tests": {"t1": {"points": 2.0, "max_points": 3.0}}}
        >>> table = Table("hw1", [row], {})
        >>> table.columns, table.possible, table.points("ann"), table.person("ann")
        (['hw1 nb'], [3.0], [2.0], ('ann', '', ''))
        >>> Table("hw1", [row], {}, per_exercise=True).columns
        ['hw1 nb: exercise 1']
    """

    def __init__(self, assignment: str, rows: list[dict], people: dict, per_exercise=False):
        self.assignment = assignment
        self.rows = sorted(rows, key=lambda r: (r["student"], r["notebook"]))
        self.students = sorted({r["student"] for r in self.rows})
        self.people = people
        found: dict[tuple[str, str], float] = {}  # in the order the tests ran
        for row in self.rows:
            for gid, test in row.get("tests", {}).items():
                found.setdefault((row["notebook"], gid), test["max_points"])
        exercises = sorted(found, key=lambda exercise: exercise[0])  # stable: run order
        notebooks = sorted({r["notebook"] for r in self.rows if r["notebook"]})
        if per_exercise:
            self.keys = list(exercises)
            numbers = [
                [e for e in exercises if e[0] == nb].index((nb, gid)) + 1 for nb, gid in exercises
            ]
            self.columns = [
                f"{self.title(nb)}: exercise {n}" for (nb, _gid), n in zip(exercises, numbers)
            ]
            self.possible = [found[e] for e in exercises]
        else:
            self.keys = [(nb, None) for nb in notebooks]
            self.columns = [self.title(nb) for nb in notebooks]
            self.possible = [self._possible(nb, found) for nb in notebooks]

    def title(self, notebook: str) -> str:
        """A notebook's column title: ``hw1 squares``, or ``08_my_quiz`` when the assignment
        and its notebook share the name."""
        return notebook if notebook == self.assignment else f"{self.assignment} {notebook}"

    def _possible(self, notebook: str, found: dict) -> float:
        tests = [points for (nb, _gid), points in found.items() if nb == notebook]
        given = [r.get("max_score", 0.0) for r in self.rows if r["notebook"] == notebook]
        return sum(tests) if tests else max(given, default=0.0)

    def person(self, student: str) -> tuple[str, str, str]:
        """(name, id, email) from the roster; the folder's name is the name otherwise."""
        known = self.people.get(student, {})
        return known.get("name") or student, known.get("id", ""), known.get("email", "")

    def points(self, student: str) -> list[float]:
        """The student's points per column: 0 for what was not handed in, not readable, or
        not graded (its status is in ``notes``), never an unknown."""
        mine = {r["notebook"]: r for r in self.rows if r["student"] == student}
        found = []
        for notebook, gid in self.keys:
            tests = mine.get(notebook, {}).get("tests", {})
            chosen = [t for g, t in tests.items() if gid is None or g == gid]
            found.append(float(sum(t["points"] for t in chosen)))
        return found

    def notes(self, student: str) -> str:
        """What the numbers do not say, in the grader's own words: each notebook whose status
        is not ``ok``, and each that asks for review (never the text of an issue)."""
        notes = []
        for row in (r for r in self.rows if r["student"] == student):
            title = row["notebook"] or "?"
            if row["status"] != "ok":
                notes.append(f"{title}: {row['status']}")
            if row.get("review"):
                notes.append(f"{title}: needs review")
        return "; ".join(notes)

    def warnings(self) -> list[str]:
        """What a person should look at before uploading."""
        notes = [
            f"{r['student']}/{r['notebook'] or '?'}: {r['status']}, exported as 0"
            for r in self.rows
            if r["status"] == "error" or not r["notebook"]
        ]
        notes += [
            f"{r['student']}/{r['notebook']} asks for review: {r['review'][0]}"
            for r in self.rows
            if r.get("review")
        ]
        if self.people:
            notes += [f"{s} is not in the roster" for s in self.students if s not in self.people]
        return notes


def _number(value: float) -> str:
    """``2.0 -> '2'``, ``2.5 -> '2.5'``."""
    return format(value, "g")


def _write(header: list[str], lines: list[tuple[list[str], list[str], list[str]]]) -> str:
    """RFC 4180 CSV (CRLF, quotes doubled), as both LMSs export: each line is text cells,
    numbers, then text cells again (``report.csv_line``: text made inert and quoted for any
    reader's separator; a number such as ``2.5`` is plain text already)."""
    rows = [header, *([*text, *numbers, *after] for text, numbers, after in lines)]
    return "".join(csv_line(row) for row in rows)


def canvas(table: Table) -> str:
    """Canvas's gradebook import: header, ``Points Possible``, then one row per student; the
    last column is Canvas's ``Notes`` (a custom column, shown to teachers only)."""
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *table.columns, "Notes"]
    lines = [(["Points Possible", "", "", "", ""], [_number(p) for p in table.possible], [""])]
    for student in table.students:
        name, number, _email = table.person(student)
        scores = [_number(p) for p in table.points(student)]
        lines.append(([name, "", number, student, ""], scores, [table.notes(student)]))
    return _write(header, lines)


def moodle(table: Table) -> str:
    """Moodle's CSV grade import: a user column to map (username, ID number or email); the
    last column, ``Feedback``, is mapped to a grade item's feedback."""
    header = ["Full name", "Username", "ID number", "Email address", *table.columns, "Feedback"]
    lines = []
    for student in table.students:
        name, number, email = table.person(student)
        scores = [_number(p) for p in table.points(student)]
        lines.append(([name, student, number, email], scores, [table.notes(student)]))
    return _write(header, lines)


def plain(table: Table) -> str:
    """One row per student: who, each column, the total, what was possible, and the notes."""
    header = ["student", "name", "id", "email", *table.columns, "total", "possible", "notes"]
    lines = []
    for student in table.students:
        points = table.points(student)
        numbers = [*map(_number, points), _number(sum(points)), _number(sum(table.possible))]
        lines.append(([student, *table.person(student)], numbers, [table.notes(student)]))
    return _write(header, lines)


WRITERS: dict[str, Callable[[Table], str]] = {"canvas": canvas, "moodle": moodle, "csv": plain}
