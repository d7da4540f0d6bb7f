"""``autogradkit export``: each file read back the way its LMS reads it, and nothing in it runs
as a spreadsheet formula.

``read_canvas`` follows Canvas's gradebook importer (``app/models/gradebook_importer.rb`` of
canvas-lms: the header's first cells contain ``Student`` and ``ID``, ``SIS User ID`` and
``SIS Login ID`` follow, the last student column is ``Section``, a row whose first cell
contains ``Points Possible`` sets each new assignment's points, an empty cell is no change).
``read_moodle`` follows Moodle's CSV grade import (``grade/import/csv/classes/load_data.php``:
a header row, one user column mapped to username, idnumber or email, a grade that is ``-`` or
empty is no grade, anything else must be a number, at most 100 unless the site allows more).
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from autogradkit_instructor.cli import main
from autogradkit_instructor.config import GradingConfig
from autogradkit_instructor.export import export_gradebook

FORMULA = ("=", "+", "-", "@", "\t", "\r")
EVIL = '=HYPERLINK("http://x","click")'


def _row(student, notebook, status, tests, review=()):
    return {
        "student": student,
        "assignment": "hw1",
        "notebook": notebook,
        "status": status,
        "score": sum(t["points"] for t in tests.values()),
        "max_score": 10.0,
        "tests": tests,
        "issues": [],
        "seconds": 1.0,
        "digest": "x",
        "submission": "s",
        "sandbox": "bwrap",
        "review": list(review),
    }


def _tests(a, b, c):
    return {
        "t_sum": {"points": a, "max_points": 2.0, "status": "passed"},
        "t_grad": {"points": b, "max_points": 3.0, "status": "passed"},
        "t_mse": {"points": c, "max_points": 5.0, "status": "passed"},
    }


ROWS = [
    _row("ann", "squares", "ok", _tests(2.0, 3.0, 2.5)),
    _row("ann", "cubes", "ok", {"t_cube": {"points": 1.5, "max_points": 4.0, "status": "partial"}}),
    _row("bob", "squares", "timeout", _tests(0.0, 3.0, 5.0), review=["before t_sum: a hook"]),
    _row("bob", "cubes", "missing", {}),
    _row(EVIL, "squares", "ok", _tests(2.0, 0.0, 0.0)),
    _row(EVIL, "cubes", "unreadable", {}),
    _row("-2+3", "squares", "error", {}),
    _row("-2+3", "cubes", "ok", {"t_cube": {"points": 4.0, "max_points": 4.0, "status": "passed"}}),
]
# what each student should get in the LMS, per exercise column: never an empty cell, an error
# row exports as 0 (its status goes to the notes column)
EXPECTED = {
    "ann": {
        "cubes: exercise 1": 1.5,
        "squares: exercise 1": 2.0,
        "squares: exercise 2": 3.0,
        "squares: exercise 3": 2.5,
    },
    "bob": {
        "cubes: exercise 1": 0.0,
        "squares: exercise 1": 0.0,
        "squares: exercise 2": 3.0,
        "squares: exercise 3": 5.0,
    },
    EVIL: {
        "cubes: exercise 1": 0.0,
        "squares: exercise 1": 2.0,
        "squares: exercise 2": 0.0,
        "squares: exercise 3": 0.0,
    },
    "-2+3": {
        "cubes: exercise 1": 4.0,
        "squares: exercise 1": 0.0,
        "squares: exercise 2": 0.0,
        "squares: exercise 3": 0.0,
    },
}
POSSIBLE = {
    "cubes: exercise 1": 4.0,
    "squares: exercise 1": 2.0,
    "squares: exercise 2": 3.0,
    "squares: exercise 3": 5.0,
}
TOTALS = {  # the default: one column per notebook, its total
    student: {
        notebook: sum(v for k, v in grades.items() if k.startswith(f"{notebook}:"))
        for notebook in ("cubes", "squares")
    }
    for student, grades in EXPECTED.items()
}
TOTALS_POSSIBLE = {"cubes": 4.0, "squares": 10.0}
NOTES = {  # what the notes column says: the statuses that are not ok, never the issues' text
    "ann": "",
    "bob": "cubes: missing; squares: timeout; squares: needs review",
    EVIL: "cubes: unreadable",
    "-2+3": "squares: error",
}
ROSTER = {
    "ann": ("Lovelace, Ada", "S001", "ada@example.org"),
    "bob": ('Bob "the builder"', "@SUM(A1:A9)", "bob@example.org"),
    EVIL: ("+cmd|' /C calc'!A0", "S003", "-evil@example.org"),
    "-2+3": ("Zoë Ü", "S004", "zoe@example.org"),
}


@pytest.fixture
def course(tmp_path):
    folder = tmp_path / "grades" / "hw1"
    folder.mkdir(parents=True)
    (folder / "gradebook.json").write_text(json.dumps({"assignment": "hw1", "rows": ROWS}))
    roster = tmp_path / "roster.csv"
    with roster.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "name", "id", "email", "section"])
        for student, (name, number, email) in ROSTER.items():
            writer.writerow([student, name, number, email, "A"])
    return tmp_path


def _export(course, fmt, roster=True, per_exercise=True):
    cfg = GradingConfig(
        command="export",
        course=course,
        assignment="hw1",
        format=fmt,
        roster=course / "roster.csv" if roster else None,
        per_exercise=per_exercise,
    )
    report = export_gradebook(cfg)
    return (course / "grades" / "hw1" / f"hw1_{fmt}.csv").read_bytes().decode("utf-8"), report


def _uninert(text: str) -> str:
    """What a spreadsheet shows for a cell that ``report._inert`` protected."""
    return text[1:] if text[:1] == "'" and text[1:2] in FORMULA else text


def _column(name: str) -> str:
    """A column title without its assignment: ``hw1 squares: exercise 1`` -> ``squares: ...``."""
    assert name.startswith("hw1 "), name
    return name[len("hw1 ") :]


def read_canvas(text: str) -> tuple[dict, dict]:
    """Canvas's importer, as far as our files go: (points possible, grades by SIS Login ID)."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    # SIS User ID then SIS Login ID after the name columns: 5 student columns
    assert header[2] == "SIS User ID" and header[3] == "SIS Login ID"
    student_columns = 5
    assert "Section" in header[student_columns - 1]
    assert header[-1] == "Notes"  # Canvas's custom column of notes, not an assignment
    assignments = [_column(h) for h in header[student_columns:-1]]
    assert all(not h.rstrip().endswith(")") for h in assignments)  # no "(id)": new assignments
    possible, grades = {}, {}
    for row in rows[1:]:
        assert len(row) == len(header)
        if "Points Possible" in row[0]:
            possible = {a: float(v) for a, v in zip(assignments, row[student_columns:-1])}
            continue
        login = _uninert(row[3])
        assert login not in grades
        cells = row[student_columns:-1]
        assert all(v.strip() for v in cells)  # in Canvas an empty cell changes nothing
        grades[login] = {a: float(v) for a, v in zip(assignments, cells)}
        grades[login]["_sis_user_id"] = _uninert(row[2])
        grades[login]["_name"] = _uninert(row[0])
        grades[login]["_notes"] = row[-1]
    return possible, grades


def read_moodle(text: str, map_from: str) -> dict:
    """Moodle's CSV import with ``map_from`` mapped to the user field; new grade items."""
    rows = list(csv.reader(io.StringIO(text)))
    header = [h.strip() for h in rows[0]]
    key = header.index(map_from)
    items = {i: _column(h) for i, h in enumerate(header) if h.startswith("hw1 ")}
    assert header[-1] == "Feedback"  # mapped at import to a grade item's feedback
    grades = {}
    for row in rows[1:]:
        assert len(row) == len(header)
        user = _uninert(row[key])
        assert user and user not in grades
        grades[user] = {"_notes": row[-1]}
        for i, item in items.items():
            value = row[i].strip()
            assert value not in ("", "-")  # "no grade" would drop it
            grades[user][item] = float(value)  # a non-number is Moodle's "badgrade"
            assert grades[user][item] <= 100  # Moodle's default gradepointmax
    return grades


def _grades_only(found: dict) -> dict:
    return {k: v for k, v in found.items() if not k.startswith("_")}


def test_canvas_file_reads_back_as_canvas_imports_it(course):
    text, report = _export(course, "canvas")
    possible, grades = read_canvas(text)
    assert possible == POSSIBLE
    assert {login: _grades_only(g) for login, g in grades.items()} == EXPECTED
    assert {login: grades[login]["_notes"] for login in grades} == NOTES
    assert {login: grades[login]["_sis_user_id"] for login in grades} == {
        s: number for s, (_name, number, _email) in ROSTER.items()
    }
    assert {login: grades[login]["_name"] for login in grades} == {
        s: name for s, (name, _n, _e) in ROSTER.items()
    }
    assert report["students"] == 4 and text.endswith("\r\n")


def test_moodle_file_reads_back_by_username_idnumber_and_email(course):
    text, _ = _export(course, "moodle")
    by_username = read_moodle(text, "Username")
    assert {user: g.pop("_notes") for user, g in by_username.items()} == NOTES
    assert by_username == EXPECTED
    by_number = _grades_all(read_moodle(text, "ID number"))
    assert by_number == {ROSTER[s][1]: g for s, g in EXPECTED.items()}
    by_email = _grades_all(read_moodle(text, "Email address"))
    assert by_email == {ROSTER[s][2]: g for s, g in EXPECTED.items()}


def _grades_all(found: dict) -> dict:
    return {user: _grades_only(g) for user, g in found.items()}


def test_plain_csv_has_totals_and_what_was_possible(course):
    text, _ = _export(course, "csv", roster=False)
    rows = list(csv.DictReader(io.StringIO(text)))
    by_student = {_uninert(r["student"]): r for r in rows}
    assert set(by_student) == set(EXPECTED)
    for student, expected in EXPECTED.items():
        row = by_student[student]
        assert float(row["total"]) == pytest.approx(sum(v or 0 for v in expected.values()))
        assert float(row["possible"]) == pytest.approx(sum(POSSIBLE.values()))
        assert _uninert(row["name"]) == student and row["id"] == "" and row["email"] == ""
        assert row["notes"] == NOTES[student]
        for column, value in expected.items():
            assert float(row[f"hw1 {column}"]) == value  # never empty


@pytest.mark.parametrize("fmt", ["canvas", "moodle", "csv"])
def test_by_default_one_column_per_notebook_holds_its_total(course, fmt):
    text, report = _export(course, fmt, per_exercise=False)
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    titles = [h for h in header if h.startswith("hw1 ")]
    assert titles == ["hw1 cubes", "hw1 squares"], header  # readable, not a path
    at = {title: header.index(title) for title in titles}
    key = {"canvas": "SIS Login ID", "moodle": "Username", "csv": "student"}[fmt]
    for row in rows[1:]:
        if row[0] == "Points Possible":
            assert {t: float(row[i]) for t, i in at.items()} == {
                f"hw1 {nb}": p for nb, p in TOTALS_POSSIBLE.items()
            }
            continue
        student = _uninert(row[header.index(key)])
        assert {t: float(row[i]) for t, i in at.items()} == {
            f"hw1 {nb}": p for nb, p in TOTALS[student].items()
        }
    assert report["columns"] == 2


def test_a_notebook_named_as_its_assignment_is_titled_once(tmp_path):
    folder = tmp_path / "grades" / "08_my_quiz"
    folder.mkdir(parents=True)
    row = {**_row("ann", "08_my_quiz", "ok", _tests(2.0, 3.0, 2.5)), "assignment": "08_my_quiz"}
    (folder / "gradebook.json").write_text(json.dumps({"rows": [row]}))
    for per_exercise, titles in ((False, ["08_my_quiz"]), (True, ["08_my_quiz: exercise 1"])):
        cfg = GradingConfig(
            command="export", course=tmp_path, assignment="08_my_quiz", per_exercise=per_exercise
        )
        export_gradebook(cfg)
        header = (folder / "08_my_quiz_csv.csv").read_text(encoding="utf-8").split("\r\n")[0]
        assert header.split(",")[4 : 4 + len(titles)] == titles, header


@pytest.mark.parametrize("fmt", ["canvas", "moodle", "csv"])
def test_no_text_cell_can_run_as_a_formula(course, fmt):
    text, _ = _export(course, fmt)
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert any(cell.startswith("'=HYPERLINK") for cell in cells)  # the evil name, escaped
    assert any(cell == "'@SUM(A1:A9)" for cell in cells)
    for cell in cells:
        risky = cell[:1] in FORMULA and cell != "-"  # Moodle's "no grade"
        assert not risky, f"{cell!r} would run as a formula"


def test_rows_that_need_a_person_are_named(course, capsys):
    _export(course, "canvas")
    err = capsys.readouterr().err
    assert "-2+3/squares: error, exported as 0" in err
    assert "bob/squares asks for review: before t_sum: a hook" in err


def test_export_command_line(course, capsys):
    out = course / "to_lms.csv"
    code = main(
        ["export", "--assignment", "hw1", "--course", str(course), "--format", "moodle"]
        + ["--output", str(out)]
    )
    assert code == 0 and out.read_text(encoding="utf-8").startswith("Full name,Username,")
    assert "exported 4 students, 2 columns (one per notebook)" in capsys.readouterr().out
    assert main(["export", "--assignment", "nope", "--course", str(course)]) == 1
    assert "run `autogradkit grade` first" in capsys.readouterr().err
