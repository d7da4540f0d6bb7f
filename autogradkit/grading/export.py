"""``autogradkit export``: a gradebook in the import format of Canvas or Moodle, or a plain CSV.

One line per student, one column per exercise (``<assignment>/<notebook>/<grade_id>``), read
from ``grades/<assignment>/gradebook.json``. What each LMS reads (``docs/deploy.md`` cites the
pages):

* **Canvas** (Grades > Import): a header ``Student, ID, SIS User ID, SIS Login ID, Section``
  and then one column per assignment, which Canvas creates when no assignment has that name; a
  second row ``Points Possible`` gives each column's points. A student is found by ``ID``
  (Canvas's own number, left empty here), then ``SIS User ID``, then ``SIS Login ID``, then
  the name. An empty cell changes nothing.
* **Moodle** (Grade administration > Import > CSV file): a header row, then one row per user;
  at import the teacher maps one column to a user field (``Username`` to username, ``ID
  number`` to idnumber or ``Email address`` to email) and each exercise column to a grade item
  or a new one. ``-`` means no grade.
* **csv**: ``student, name, id, email``, the exercise columns, ``total`` and ``possible``.

Names, ids and emails come from ``--roster`` (``student,name,id,email``; the submission
folder's name is the student, and is also the name when there is no roster; Canvas's
``SIS Login ID`` and Moodle's ``Username`` are that folder name, as JupyterHub names users by
their login). Every text cell is made inert for
spreadsheets (``report._inert``): one starting with ``=``, ``+``, ``-``, ``@``, a tab or a CR
gets a leading ``'``. A notebook that was missing or unreadable scores 0; a row the grader
could not finish (``error``) leaves its cells empty, and is named on stderr with the rows that
ask for a person (``review``).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

from .config import GradingConfig
from .report import _inert, write_atomic

__all__ = [
    "ZERO_WHEN",
    "ROSTER_FIELDS",
    "export_gradebook",
    "read_roster",
    "Table",
    "canvas",
    "moodle",
    "plain",
    "WRITERS",
]

ZERO_WHEN = ("missing", "unreadable")  # nothing to run: the points are 0, not unknown
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
    table = Table(cfg.assignment, rows, people)
    text = WRITERS[cfg.format](table)
    path = cfg.output or folder / f"{cfg.assignment}_{cfg.format}.csv"
    write_atomic(Path(path), text)
    for note in table.notes():
        print(f"autogradkit export: warning: {note}", file=sys.stderr)
    count = len(table.students)
    print(f"exported {count} students, {len(table.columns)} exercises: {path}")
    return {"command": "export", "file": str(path), "students": count, "exit_code": 0}


def read_roster(path: Path) -> dict[str, dict[str, str]]:
    """``student -> {name, id, email}`` from a CSV with a header (extra columns ignored)."""
    with Path(path).open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        if "student" not in (reader.fieldnames or []):
            wanted = ", ".join(ROSTER_FIELDS)
            raise ValueError(f"{path}: the roster needs a 'student' column ({wanted})")
        return {row["student"]: {k: row.get(k) or "" for k in ROSTER_FIELDS[1:]} for row in reader}


class Table:
    """The gradebook turned around: one line per student, one column per exercise.

    Example:
        >>> row = {"student": "ann", "notebook": "nb", "status": "ok", "review": [],
        ...        "tests": {"t1": {"points": 2.0, "max_points": 3.0}}}
        >>> table = Table("hw1", [row], {})
        >>> table.columns, table.possible, table.points("ann"), table.person("ann")
        (['hw1/nb/t1'], [3.0], [2.0], ('ann', '', ''))
    """

    def __init__(self, assignment: str, rows: list[dict], people: dict[str, dict[str, str]]):
        self.rows = sorted(rows, key=lambda r: (r["student"], r["notebook"]))
        self.students = sorted({r["student"] for r in self.rows})
        self.people = people
        found: dict[tuple[str, str], float] = {}  # in the order the tests ran
        for row in self.rows:
            for gid, test in row.get("tests", {}).items():
                found.setdefault((row["notebook"], gid), test["max_points"])
        self.exercises = sorted(found, key=lambda exercise: exercise[0])  # stable: run order
        self.columns = [f"{assignment}/{nb}/{gid}" for nb, gid in self.exercises]
        self.possible = [found[e] for e in self.exercises]

    def person(self, student: str) -> tuple[str, str, str]:
        """(name, id, email) from the roster; the folder's name is the name otherwise."""
        known = self.people.get(student, {})
        return known.get("name") or student, known.get("id", ""), known.get("email", "")

    def points(self, student: str) -> list[float | None]:
        """The student's points per exercise; None where the grade is not known."""
        mine = {r["notebook"]: r for r in self.rows if r["student"] == student}
        found: list[float | None] = []
        for notebook, gid in self.exercises:
            row = mine.get(notebook)
            test = row["tests"].get(gid) if row else None
            if test is not None:
                found.append(test["points"])
            else:  # not handed in at all, or nothing to run: 0; a grader failure: unknown
                found.append(0.0 if row is None or row["status"] in ZERO_WHEN else None)
        return found

    def notes(self) -> list[str]:
        """What a person should look at before uploading."""
        notes = [
            f"{r['student']}/{r['notebook'] or '?'}: {r['status']}, its cells are left empty"
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


def _number(value: float | None, empty: str = "") -> str:
    """``2.0 -> '2'``, ``2.5 -> '2.5'``; ``empty`` for an unknown grade."""
    return empty if value is None else format(value, "g")


def _write(header: list[str], lines: list[list[str]]) -> str:
    """RFC 4180 CSV (CRLF, quotes doubled), as both LMSs export; the header and the first
    ``len(header) - len(numbers)`` cells are text and made inert, numbers are written as is."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([_inert(cell) for cell in header])
    for text, numbers in lines:
        writer.writerow([*(_inert(cell) for cell in text), *numbers])
    return out.getvalue()


def canvas(table: Table) -> str:
    """Canvas's gradebook import: header, ``Points Possible``, then one row per student."""
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *table.columns]
    lines = [(["Points Possible", "", "", "", ""], [_number(p) for p in table.possible])]
    for student in table.students:
        name, number, _email = table.person(student)
        lines.append(([name, "", number, student, ""], [_number(p) for p in table.points(student)]))
    return _write(header, lines)


def moodle(table: Table) -> str:
    """Moodle's CSV grade import: a user column to map (username, ID number or email)."""
    header = ["Full name", "Username", "ID number", "Email address", *table.columns]
    lines = []
    for student in table.students:
        name, number, email = table.person(student)
        scores = [_number(p, empty="-") for p in table.points(student)]
        lines.append(([name, student, number, email], scores))
    return _write(header, lines)


def plain(table: Table) -> str:
    """One row per student: who, each exercise, the total and what was possible."""
    header = ["student", "name", "id", "email", *table.columns, "total", "possible"]
    lines = []
    for student in table.students:
        points = table.points(student)
        total = sum(p for p in points if p is not None)
        numbers = [*map(_number, points), _number(total), _number(sum(table.possible))]
        lines.append(([student, *table.person(student)], numbers))
    return _write(header, lines)


WRITERS: dict[str, Callable[[Table], str]] = {"canvas": canvas, "moodle": moodle, "csv": plain}
