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

from autogradkit.grading.cli import main
from autogradkit.grading.config import GradingConfig
from autogradkit.grading.export import export_gradebook

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
# what each student should get in the LMS, per exercise column (None: no grade, an error row)
EXPECTED = {
    "ann": {"cubes/t_cube": 1.5, "squares/t_sum": 2.0, "squares/t_grad": 3.0, "squares/t_mse": 2.5},
    "bob": {"cubes/t_cube": 0.0, "squares/t_sum": 0.0, "squares/t_grad": 3.0, "squares/t_mse": 5.0},
    EVIL: {"cubes/t_cube": 0.0, "squares/t_sum": 2.0, "squares/t_grad": 0.0, "squares/t_mse": 0.0},
    "-2+3": {
        "cubes/t_cube": 4.0,
        "squares/t_sum": None,
        "squares/t_grad": None,
        "squares/t_mse": None,
    },
}
POSSIBLE = {"cubes/t_cube": 4.0, "squares/t_sum": 2.0, "squares/t_grad": 3.0, "squares/t_mse": 5.0}
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


def _export(course, fmt, roster=True):
    cfg = GradingConfig(
        command="export",
        course=course,
        assignment="hw1",
        format=fmt,
        roster=course / "roster.csv" if roster else None,
    )
    report = export_gradebook(cfg)
    return (course / "grades" / "hw1" / f"hw1_{fmt}.csv").read_bytes().decode("utf-8"), report


def _uninert(text: str) -> str:
    """What a spreadsheet shows for a cell that ``report._inert`` protected."""
    return text[1:] if text[:1] == "'" and text[1:2] in FORMULA else text


def _column(name: str) -> str:
    assert name.startswith("hw1/"), name
    return name[len("hw1/") :]


def read_canvas(text: str) -> tuple[dict, dict]:
    """Canvas's importer, as far as our files go: (points possible, grades by SIS Login ID)."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    # SIS User ID then SIS Login ID after the name columns: 5 student columns
    assert header[2] == "SIS User ID" and header[3] == "SIS Login ID"
    student_columns = 5
    assert "Section" in header[student_columns - 1]
    assignments = [_column(h) for h in header[student_columns:]]
    assert all(not h.rstrip().endswith(")") for h in assignments)  # no "(id)": new assignments
    possible, grades = {}, {}
    for row in rows[1:]:
        assert len(row) == len(header)
        if "Points Possible" in row[0]:
            possible = {a: float(v) for a, v in zip(assignments, row[student_columns:])}
            continue
        login = _uninert(row[3])
        assert login not in grades
        cells = row[student_columns:]
        grades[login] = {a: (float(v) if v.strip() else None) for a, v in zip(assignments, cells)}
        grades[login]["_sis_user_id"] = _uninert(row[2])
        grades[login]["_name"] = _uninert(row[0])
    return possible, grades


def read_moodle(text: str, map_from: str) -> dict:
    """Moodle's CSV import with ``map_from`` mapped to the user field; new grade items."""
    rows = list(csv.reader(io.StringIO(text)))
    header = [h.strip() for h in rows[0]]
    key = header.index(map_from)
    items = {i: _column(h) for i, h in enumerate(header) if h.startswith("hw1/")}
    grades = {}
    for row in rows[1:]:
        assert len(row) == len(header)
        user = _uninert(row[key])
        assert user and user not in grades
        grades[user] = {}
        for i, item in items.items():
            value = row[i].strip()
            if value in ("", "-"):
                grades[user][item] = None
            else:
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
    assert by_username == EXPECTED
    by_number = read_moodle(text, "ID number")
    assert by_number == {ROSTER[s][1]: g for s, g in EXPECTED.items()}
    by_email = read_moodle(text, "Email address")
    assert by_email == {ROSTER[s][2]: g for s, g in EXPECTED.items()}


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
        for column, value in expected.items():
            cell = row[f"hw1/{column}"]
            assert (float(cell) if cell else None) == value


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
    assert "-2+3/squares: error" in err
    assert "bob/squares asks for review: before t_sum: a hook" in err


def test_export_command_line(course, capsys):
    out = course / "to_lms.csv"
    code = main(
        ["export", "--assignment", "hw1", "--course", str(course), "--format", "moodle"]
        + ["--output", str(out)]
    )
    assert code == 0 and out.read_text(encoding="utf-8").startswith("Full name,Username,")
    assert "exported 4 students, 4 exercises" in capsys.readouterr().out
    assert main(["export", "--assignment", "nope", "--course", str(course)]) == 1
    assert "run `autogradkit grade` first" in capsys.readouterr().err
