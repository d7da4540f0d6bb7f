"""Gradebook rows (CSV + JSON) and per-student feedback pages.

Feedback shows what the student may see: points, the ✓/✗ lines of the checks and the name and
message of each error. It never shows test source or tracebacks. A test cell that ran hidden
tests shows only its verdict and the exercise's title (student code can put hidden code into
an error message in any encoding). As a last guard every line of hidden-test code is blanked
out of the rest even if an error message happened to quote it.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import secrets
from pathlib import Path

from autogradkit._i18n import ENGLISH, N_

from . import untrusted
from .context import Context

__all__ = [
    "STATUS_TEXT",
    "HIDDEN",
    "VERDICTS",
    "make_row",
    "FIRST_COLUMNS",
    "write_gradebook",
    "csv_line",
    "write_atomic",
    "write_result",
    "read_result",
    "scrub",
    "feedback_html",
]

STATUS_TEXT = {
    "ok": N_("Your notebook ran to the end."),
    "timeout": N_("A cell ran for too long and was stopped; see the notes."),
    "kernel_died": N_(
        "Your notebook stopped its Python kernel (a crash, os._exit() or too much memory); "
        "see the notes."
    ),
    "unreadable": N_("Your file could not be read as a notebook."),
    "missing": N_("This notebook was not handed in."),
    "unmatched": N_("The file name does not say which notebook of the assignment this is."),
    "bad_files": N_("Some files handed in with the notebook were not used; see the notes."),
    "error": N_("The grader could not finish; your instructor will look at it."),
}
HIDDEN = N_("[hidden test]")
VERDICTS = {"passed": N_("✓ passed"), "partial": N_("partly passed"), "failed": N_("✗ failed")}


def make_row(
    ctx: Context,
    *,
    student: str,
    assignment: str,
    notebook: str,
    seconds: float,
    digest: str,
    max_score: float,
) -> dict:
    """One gradebook row; ``max_score`` is used when no test ran (unreadable, missing)."""
    return {
        "student": student,
        "assignment": assignment,
        "notebook": notebook,
        "status": ctx.status,
        "score": round(ctx.score, 4),
        "max_score": round(ctx.max_score or max_score, 4),
        "tests": {
            gid: {"points": r.points, "max_points": r.max_points, "status": r.status}
            for gid, r in ctx.results.items()
        },
        "issues": untrusted.bounded(ctx.issues),
        "seconds": round(seconds, 3),
        "digest": digest,
        "submission": untrusted.name(str(ctx.path)),
        "sandbox": ctx.cfg.sandbox,
        "review": untrusted.bounded(ctx.review),
    }


FIRST_COLUMNS = ("student", "assignment", "notebook", "status", "score", "max_score")


def write_gradebook(rows: list[dict], folder: Path, meta: dict) -> tuple[Path, Path]:
    """Write ``gradebook.json`` (everything) and ``gradebook.csv`` (one column per test).

    Both are rebuilt from ``rows`` alone (never merged with what is on disk) and replace the
    old files atomically: a reader, or a grader killed meanwhile, never sees half a gradebook.
    """
    rows = sorted(rows, key=lambda r: (r["student"], r["notebook"]))
    json_path, csv_path = folder / "gradebook.json", folder / "gradebook.csv"
    body = json.dumps({**meta, "rows": rows}, indent=1, ensure_ascii=False)
    write_atomic(json_path, body + "\n")
    write_atomic(csv_path, _csv(rows))
    return json_path, csv_path


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file next to ``path``, then rename it over ``path``. The
    file is made as ``open`` makes one, its mode from the umask (``mkstemp``'s is always
    0600: a page the graded notebook beside it let a web server read, it did not)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".{path.name}.{secrets.token_hex(6)}"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _csv(rows: list[dict]) -> str:
    """One row per submission; test columns are ``grade_id`` (``notebook/grade_id`` when the
    assignment has several notebooks); a test that does not apply to a row stays empty."""
    several = len({r["notebook"] for r in rows}) > 1
    tests = sorted({(r["notebook"], gid) for r in rows for gid in r["tests"]})
    names = [f"{nb}/{gid}" if several else gid for nb, gid in tests]
    lines = [[*FIRST_COLUMNS, *names, "issues", "seconds", "sandbox", "review"]]
    for r in rows:
        points = [
            r["tests"].get(gid, {}).get("points", "") if nb == r["notebook"] else ""
            for nb, gid in tests
        ]
        first = [r[key] for key in FIRST_COLUMNS]
        review = "; ".join(r.get("review", []))
        lines.append(
            [*first, *points, "; ".join(r["issues"]), r["seconds"], r.get("sandbox", ""), review]
        )
    return "".join(csv_line(line) for line in lines)


_PLAIN = re.compile(r"[\w .:'-]*")  # what a cell may hold unquoted, for any reader


def csv_line(cells: list) -> str:
    """One CSV line that every spreadsheet reads as these cells, whatever separator its
    locale splits on (``,``, ``;``, a tab): a text cell made of anything but letters,
    digits, spaces and ``_.:'-`` is quoted (quotes doubled), and no text cell starts as a
    formula (``_inert``). Numbers are written as they are.

    Example:
        >>> csv_line(["ann", "x;=1+1", 2.5, 'a "b" c'])
        'ann,"x;\\'=1+1",2.5,"a ""b"" c"\\r\\n'
    """
    return ",".join(_cell(cell) for cell in cells) + "\r\n"


def _cell(value) -> str:
    if not isinstance(value, str):
        return str(value)
    value = _inert(value)
    return value if _PLAIN.fullmatch(value) else '"' + value.replace('"', '""') + '"'


def _inert(value):
    """A CSV cell a spreadsheet shows as text, never runs as a formula, whatever separator
    it splits on: the cell and each part after a ``;``, tab or ``|`` (where a reader of
    another locale starts a cell) must start with a letter, a digit, a space or ``'``, or it
    gets a leading ``'`` (``=``, ``+``, ``-``, ``@``, a full-width ``＝``...: an allow-list,
    so no spreadsheet's formula sign is missed).

    Example:
        >>> _inert("=HYPERLINK(1)"), _inert("-1"), _inert(-1.5), _inert("ann"), _inert("")
        ("'=HYPERLINK(1)", "'-1", -1.5, 'ann', '')
        >>> _inert("x;=1+1"), _inert("a: missing; b: timeout")
        ("x;'=1+1", 'a: missing; b: timeout')
    """
    return _FORMULA.sub(r"\1'", value) if isinstance(value, str) else value


_FORMULA = re.compile(r"((?:^|[;\t|])\s*)(?=[^\w\s'])")  # a part starting with a sign


def _result_path(folder: Path, student: str, notebook: str) -> Path:
    key = hashlib.sha256(f"{student}\0{notebook}".encode()).hexdigest()[:24]
    return folder / "results" / f"{key}.json"


def write_result(folder: Path, row: dict) -> None:
    """Keep one finished row, so that a re-run (after a kill, too) does not grade it again."""
    text = json.dumps(row, indent=1, ensure_ascii=False)
    write_atomic(_result_path(folder, row["student"], row["notebook"]), text)


def read_result(folder: Path, student: str, notebook: str) -> dict | None:
    """The row an earlier run kept for this submission, or None."""
    try:
        row = json.loads(_result_path(folder, student, notebook).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # none, or damaged: graded again
    same = isinstance(row, dict) and (row.get("student"), row.get("notebook")) == (
        student,
        notebook,
    )
    return row if same else None


def scrub(text: str, hidden: list[str], tr=ENGLISH) -> str:
    """``text`` with every line of hidden-test code replaced by ``[hidden test]`` (in ``tr``'s
    language).

    Example:
        >>> scrub("AssertionError: assert f(3) == 27", ["assert f(3) == 27"])
        'AssertionError: [hidden test]'
    """
    for block in hidden:
        for line in sorted(block.splitlines(), key=len, reverse=True):
            line = line.strip()
            if len(line) >= 4 and line in text:
                text = text.replace(line, tr(HIDDEN))
    return text


def feedback_html(row: dict, ctx: Context) -> str:
    """A self-contained HTML page for the student: score, notes and one line per test, in the
    language of the student's notebook (``ctx.tr``)."""
    e, tr = html.escape, getattr(ctx, "tr", ENGLISH)
    where = (
        row["assignment"]
        if row["notebook"] == row["assignment"]
        else (f"{row['assignment']} / {row['notebook']}")
    )
    title = tr("{where}: feedback for {student}", where=where, student=row["student"])
    score = tr("Score: {score:g} / {max_score:g}", score=row["score"], max_score=row["max_score"])
    # the notes (bounded), in the page's language where the kit's catalog has their template
    items = [f"<li>{e(scrub(tr.message(issue), ctx.hidden, tr))}</li>" for issue in row["issues"]]
    rows = [_test_row(gid, r, ctx.hidden, tr) for gid, r in ctx.results.items()]
    headers = "".join(
        f"<th>{e(tr(word))}</th>" for word in (N_("Exercise"), N_("Points"), N_("Result"))
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            f'<html lang="{e(tr.language)}"><head><meta charset="utf-8">',
            f"<title>{e(title)}</title>",
            f"<style>{_CSS}</style></head><body>",
            f"<h1>{e(title)}</h1>",
            f'<p class="score">{e(score)}</p>',
            f'<p class="status {e(row["status"])}">{e(tr(STATUS_TEXT[row["status"]]))}</p>',
            f"<ul>{''.join(items)}</ul>" if items else "",
            f"<table><tr>{headers}</tr>",
            *rows,
            "</table>",
            "</body></html>",
            "",
        ]
    )


def _test_row(gid: str, result, hidden: list[str], tr=ENGLISH) -> str:
    """One table row, named by the exercise's title, each message once.

    A cell judged from check records shows the grader's own lines. An ``assert`` cell that ran
    hidden tests shows its verdict and the exercise's title only: no check line, no error
    message, since either could carry (encode) hidden code.
    """
    e = html.escape
    verdict = tr(VERDICTS[result.status]) if result.status in VERDICTS else result.status
    detail = list(result.lines)
    if result.error and not any(result.error in line for line in detail):
        detail.append(result.error)
    if result.status == "manual":
        detail = [tr("graded by hand")]
    elif result.status == "not_run":
        detail = [tr("not run (see the notes above)")]
    elif getattr(result, "hidden", False):
        detail = [verdict]
    cells = "<br>".join(e(scrub(line, hidden, tr)) for line in detail if line) or e(verdict)
    name = f"{e(result.title)}<br><small>{e(gid)}</small>" if result.title else e(gid)
    return (
        f'<tr class="{e(result.status)}"><td>{name}</td>'
        f"<td>{result.points:g} / {result.max_points:g}</td><td>{cells}</td></tr>"
    )


_CSS = (
    "body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.4}"
    "table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3em .6em;"
    "text-align:left;vertical-align:top}tr.passed td:first-child{border-left:4px solid #2a2}"
    "tr.failed td:first-child,tr.not_run td:first-child{border-left:4px solid #c22}"
    ".score{font-size:1.3em;font-weight:bold}.status{color:#555}"
)
