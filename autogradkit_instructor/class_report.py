"""``autogradkit report``: what the class got wrong, on one page for the instructor.

Reads what ``grade`` wrote for one assignment (the gradebook, the feedback pages, the graded
notebooks and the instructor's reference run) and writes ``grades/<assignment>/report.html``,
one page with its figures inline, and ``report.json``, the same data for other tools:

* the score distribution (median, quartiles) and each exercise's pass rate, as figures;
* for each exercise, what its failing students hit, most frequent first. A cell judged from
  check records: each line of the student's feedback that is not a ``✓``, matched to the
  reference run's checks as the grader words them in the page's language (its catalog): the
  check and its hint, an observation without hint, or why the check stopped. The match is
  kept in English (the catalogs' id), so every edition counts together. An ``assert`` cell:
  the exception's name and the first line of its message, from the graded notebook;
* the statuses (and ``review``: rows a person must look at), each with its students;
* the grading run: how fast, the slowest submissions, the sandbox (and the scheduler, when
  the gradebook says which).

The feedback pages, not the graded notebooks, say which check failed: a row kept from an
earlier run was judged against that run's fresh inputs, which today's reference run does not
have. Names appear only in the status lists, and ``--anonymous`` drops them, with every text a
kernel made (exception messages). That text is cut to ``MAX_TEXT`` characters and escaped.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import json
import os
import re
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np

from autogradkit import _i18n as i18n
from autogradkit._i18n import N_
from autogradkit.grading.observations import BUILTIN_ERRORS, Record, failed_line, records_in

from . import cells, course, report, untrusted
from .config import GradingConfig
from .context import STATUSES
from .notebooks import UnreadableNotebook, read_notebook
from .steps.strip_hidden_tests import BEGIN

__all__ = [
    "MAX_TEXT",
    "SLOWEST",
    "NO_EXCEPTION",
    "NOT_RUN",
    "class_report",
    "Graded",
    "summarise",
    "render",
    "feedback_lines",
]

MAX_TEXT = 160  # characters kept of a text a kernel made (an exception's message)
SLOWEST = 5  # submissions listed as the slowest of the run
REVIEW = "review"  # rows whose review notes ask for a person: listed with the statuses
NO_EXCEPTION = N_("no exception: the cell's value gave its points")
NOT_RUN = N_("the test cell did not run (a timeout or a crash before it)")
_ORDER = (*STATUSES, REVIEW)  # the statuses' order on the page
_PAGE_LANGUAGE = re.compile(r'<html lang="([^"]*)"')
_TEST_ROW = re.compile(r'<tr class="[^"]*"><td>(.*?)</td><td>.*?</td><td>(.*?)</td></tr>')


def class_report(cfg: GradingConfig) -> dict:
    """Write the report of ``cfg.assignment``; returns the command's JSON report.

    Raises:
        FileNotFoundError: no gradebook yet (run ``grade`` first), or no such assignment.
    """
    folder = Path(cfg.course) / "grades" / cfg.assignment
    gradebook = folder / "gradebook.json"
    if not gradebook.is_file():
        raise FileNotFoundError(f"no gradebook at {gradebook}: run `autogradkit grade` first")
    book = json.loads(gradebook.read_text(encoding="utf-8"))
    assignment = course.load_assignment(cfg.course, cfg.assignment)
    data = summarise(book, Path(cfg.course), assignment, cfg.language, cfg.anonymous)
    page = Path(cfg.output) if cfg.output else folder / "report.html"
    _, words = _catalogs(data["language"], assignment.folder)
    report.write_atomic(
        page, render(data, words, page.parent.resolve(), Path(cfg.course).resolve())
    )
    data_path = page.with_suffix(".json")
    report.write_atomic(data_path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"report of {data['submissions']} submissions: {page}")
    return {"command": "report", "page": str(page), "json": str(data_path), "exit_code": 0}


# ----- the data ---------------------------------------------------------------------------------
@dataclass
class Graded:
    """What ``grade`` wrote for one assignment, as the report reads it."""

    root: Path  # the course folder
    assignment: course.Assignment
    rows: list[dict]  # the gradebook's
    pages: dict  # (student, notebook) -> the feedback page's language and lines by grade_id
    checks: dict  # notebook -> grade_id -> the reference run's records of that test cell


def summarise(book: dict, root: Path, assignment, language=None, anonymous=False) -> dict:
    """Everything the page shows, as JSON-ready data (English keys; names unless
    ``anonymous``). ``language``: the page's (None: the one most feedback pages speak)."""
    rows, folder = book["rows"], root / "grades" / assignment.name
    pages = {_key(row): _read_page(root, row) for row in rows}
    graded = Graded(root, assignment, rows, pages, _reference_checks(folder))
    spoken = Counter(lang for lang, _ in pages.values() if lang)
    return {
        "assignment": assignment.name,
        "language": language or max(i18n.LANGUAGES, key=lambda lang: spoken[lang]),
        "students": len({row["student"] for row in rows}),
        "submissions": len(rows),
        "scores": _scores(rows),
        "exercises": [_exercise(graded, *ids, anonymous) for ids in _exercise_ids(rows)],
        "statuses": _statuses(rows, anonymous),
        "run": _run(book, rows, folder),
    }


def _key(row: dict) -> tuple[str, str]:
    return row["student"], row["notebook"]


def _exercise_ids(rows: list[dict]) -> list[tuple[str, str]]:
    """(notebook, grade_id) of every automatically graded exercise, in the order they ran."""
    found: dict[tuple[str, str], None] = {}
    for row in sorted(rows, key=lambda row: row["notebook"]):
        for gid, test in row["tests"].items():
            if test["status"] != "manual":
                found.setdefault((row["notebook"], gid))
    return list(found)


def _scores(rows: list[dict]) -> dict:
    """Each student's total (no names, ascending), its median and quartiles, the maximum."""
    totals: Counter = Counter()
    maxima: Counter = Counter()
    for row in rows:
        totals[row["student"]] += row["score"]
        maxima[row["student"]] += row["max_score"]
    points = sorted(totals.values())
    q1, median, q3 = np.percentile(points, [25, 50, 75]) if points else (0.0, 0.0, 0.0)
    return {
        "totals": [round(float(p), 4) for p in points],
        "max": round(max(maxima.values(), default=0.0), 4),
        "median": round(float(median), 4),
        "quartiles": [round(float(q1), 4), round(float(q3), 4)],
    }


def _exercise(graded: Graded, nb: str, gid: str, anonymous: bool) -> dict:
    """One exercise: how many passed, and its misses ranked by how many students hit each."""
    mine = [row for row in graded.rows if row["notebook"] == nb]
    tests = [row["tests"].get(gid, {}) for row in mine]
    misses: Counter = Counter()
    for row, test in zip(mine, tests, strict=True):
        if test.get("status") in ("failed", "partial", "not_run"):
            misses.update(_misses(graded, row, gid, anonymous))
    return {
        "notebook": nb,
        "id": gid,
        "judged": "checks" if gid in graded.checks.get(nb, {}) else "asserts",
        "max_points": max((t.get("max_points", 0.0) for t in tests), default=0.0),
        "submissions": len(mine),
        "passed": sum(t.get("status") == "passed" for t in tests),
        "partial": sum(t.get("status") == "partial" for t in tests),
        "misses": [
            {"what": what, "why": why, "students": n, "share": round(n / len(mine), 4)}
            for (what, why), n in sorted(misses.items(), key=lambda item: (-item[1], item[0]))
        ],
    }


def _misses(graded: Graded, row: dict, gid: str, anonymous: bool) -> set[tuple[str, str]]:
    """What one row's failed exercise hit: from its feedback page for a cell judged from check
    records, from its graded notebook for an ``assert`` cell (only a built-in exception's
    name if the page is ``anonymous`` or the cell has hidden tests)."""
    if row["tests"][gid]["status"] == "not_run":
        return {(NOT_RUN, "")}
    checks = graded.checks.get(row["notebook"], {})
    if gid in checks:
        return _check_misses(graded.pages[_key(row)], gid, checks[gid], graded.assignment.folder)
    hidden = BEGIN in _test_source(graded.assignment, row["notebook"], gid)
    return _exception(graded.root, row, gid, name_only=anonymous or hidden)


def _test_source(assignment, notebook: str, gid: str) -> str:
    source = assignment.sources.get(notebook, {"cells": []})
    found = (c for c in source["cells"] if cells.is_test(c) and cells.grade_id(c) == gid)
    return cells.text(next(found, {}).get("source", ""))


def _statuses(rows: list[dict], anonymous: bool) -> dict:
    """status -> its count and (unless ``anonymous``) who has it, with their feedback page."""
    several = len({row["notebook"] for row in rows}) > 1
    found: dict[str, list[dict]] = {}
    for row in sorted(rows, key=_key):
        name = f"{row['student']} ({row['notebook'] or '?'})" if several else row["student"]
        who = {"name": name, "page": _page_path(row)}
        found.setdefault(row["status"], []).append(who)
        if row.get("review"):
            found.setdefault(REVIEW, []).append(who)
    order = sorted(found, key=lambda s: _ORDER.index(s) if s in _ORDER else len(_ORDER))
    return {
        status: {"count": len(found[status]), **({} if anonymous else {"who": found[status]})}
        for status in order
    }


def _run(book: dict, rows: list[dict], folder: Path) -> dict:
    """The last grading run: its pace (from the times its results were written: the reference
    run is written first), the slowest submissions, the sandbox and scheduler."""
    references = [p.stat().st_mtime for p in (folder / "reference").glob("*.ipynb")]
    started = max(references, default=0.0)
    done = [p.stat().st_mtime for p in (folder / "results").glob("*.json")]
    latest = [t for t in done if t >= started]
    minutes = (max(latest) - started) / 60 if latest and references else 0.0
    slowest = sorted(rows, key=lambda row: -row["seconds"])[:SLOWEST]
    return {
        "graded": len(latest),
        "per_minute": round(len(latest) / minutes, 2) if minutes > 0 else None,
        "median_seconds": round(statistics.median(r["seconds"] for r in rows), 3) if rows else 0,
        "slowest": [
            {"seconds": r["seconds"], "status": r["status"], "notebook": r["notebook"]}
            for r in slowest
        ],
        "sandbox": dict(Counter(str(row.get("sandbox", "?")) for row in rows)),
        "scheduler": book.get("scheduler"),
    }


# ----- what a failing student hit ---------------------------------------------------------------
def _read_page(root: Path, row: dict) -> tuple[str, dict[str, list[str]]]:
    """The language of a row's feedback page and each exercise's lines on it ("", {} if none)."""
    try:
        page = (root / _page_path(row)).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return "", {}
    found = _PAGE_LANGUAGE.search(page)
    language = found.group(1) if found and found.group(1) in i18n.LANGUAGES else ""
    return language, feedback_lines(page)


def _page_path(row: dict) -> str:
    """Where ``grade`` wrote the row's feedback page, from the course folder."""
    where = (row["student"], row["assignment"], row["notebook"], row["submission"])
    return f"feedback/{course.page_path(*where)}"


def feedback_lines(page: str) -> dict[str, list[str]]:
    """grade_id -> the lines of its row on a feedback page (``report.feedback_html``).

    Example:
        >>> feedback_lines('<tr class="failed"><td>Sums<br><small>t1</small></td>'
        ...                '<td>0 / 2</td><td>✗ f: 1 &lt; 2<br>✓ g</td></tr>')
        {'t1': ['✗ f: 1 < 2', '✓ g']}
    """
    found = {}
    for name, lines in _TEST_ROW.findall(page):
        gid = name.rsplit("<small>", 1)[-1].removesuffix("</small>")
        found[html.unescape(gid)] = [html.unescape(line) for line in lines.split("<br>")]
    return found


def _reference_checks(folder: Path) -> dict[str, dict[str, list[Record]]]:
    """notebook -> grade_id -> the records its checks emitted in the instructor's reference
    run (written by ``grade``): a cell listed here was judged from check records."""
    found = {}
    for path in sorted((folder / "reference").glob("*.ipynb")):
        try:
            nb = read_notebook(path)
        except UnreadableNotebook:
            continue
        tests = (c for c in nb["cells"] if cells.is_test(c) and cells.grade_id(c))
        found[path.stem] = {cells.grade_id(c): records_in(c)[0] for c in tests}
        found[path.stem] = {gid: records for gid, records in found[path.stem].items() if records}
    return found


def _check_misses(page, gid: str, checks: list[Record], folder: Path) -> set[tuple[str, str]]:
    """The misses of one exercise on one feedback page: each line that is not a ``✓``, in the
    page's language, matched with the words the grader wrote it in (its catalog)."""
    language, lines = page
    tr = i18n.catalog(language or "en", folder)
    back, _ = _catalogs(tr.language, folder)
    return {
        _miss(line, checks, tr, back)
        for line in lines.get(gid, [])
        if line and not line.startswith("✓")
    }


def _miss(line: str, checks: list[Record], tr, back) -> tuple[str, str]:
    """What a feedback line in ``tr``'s language is about, in English: (a check's title, the
    hint of the observation that failed), (an observation's name, ""), (a check's title, why
    it stopped) or, for a line about no single check, (the line, ""). ``back`` translates the
    words of the kit and the course back into English."""
    for check in (c for c in checks if not c.hidden):
        for seen in check.observations:
            name, hint = tr.text(seen.name), tr.text(seen.hint)
            head, tail = failed_line(tr, name, "\0", hint).split("\0")
            if seen.hint and line.endswith(tail):
                return check.title, seen.hint
            if not seen.hint and line.startswith(head):
                return seen.name, ""
        head, _ = failed_line(tr, tr.text(check.title), "\0").split("\0")
        if line.startswith(head):
            return check.title, back.text(line[len(head) :])
    return back.text(line), ""


def _exception(root: Path, row: dict, gid: str, name_only: bool) -> set[tuple[str, str]]:
    """An ``assert`` cell's miss: ``Name: first line of the message`` of its first error in
    the graded notebook (``name_only``: a built-in exception's name, nothing a kernel wrote);
    none when there is no graded notebook."""
    own = course.student_folder(row["student"])
    path = root / "autograded" / own / row["assignment"] / f"{row['notebook']}.ipynb"
    try:
        nb = read_notebook(path)
    except UnreadableNotebook:
        return set()
    cell = next((c for c in nb["cells"] if cells.grade_id(c) == gid), {})
    error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
    if error is None:
        return {(NO_EXCEPTION, "")}
    name = _bounded(error.get("ename"))
    if name_only:
        return {(name if name in BUILTIN_ERRORS else "an exception", "")}
    message = _bounded(str(error.get("evalue", "")).strip().split("\n")[0])
    return {(f"{name}: {message}" if message else name, "")}


def _bounded(value) -> str:
    """A kernel's text made safe to keep: one line of at most ``MAX_TEXT`` characters that
    shows as it is (``untrusted.text``: no lone surrogate, no right-to-left override);
    escaping is the page's job."""
    return untrusted.text(str(value if value is not None else ""), limit=MAX_TEXT)


@functools.lru_cache(maxsize=8)
def _catalogs(language: str, folder: Path) -> tuple[i18n.Catalog, i18n.Catalog]:
    """(``language`` -> English, English -> ``language``) for whole lines: the kit's messages
    and the course's texts (``checks.<language>.po`` in ``folder``) as catalog texts."""
    if language == "en":
        return i18n.ENGLISH, i18n.ENGLISH
    pairs = list(i18n.catalog(language).kit.items())
    course_po = Path(folder) / f"checks.{language}.po"
    if course_po.is_file():
        pairs += [(message.id, message.string) for message in i18n.read_po(course_po)]
    return _texts(language, [(b, a) for a, b in pairs]), _texts(language, pairs)


def _texts(language: str, pairs: list[tuple[str, str]]) -> i18n.Catalog:
    """``(from, to)`` pairs as a catalog whose ``text`` translates; a pair with ``{fields}`` is
    a template, the one with the most fixed text tried first."""
    plain = {a: b for a, b in pairs if "{" not in a}
    shaped = sorted(
        (p for p in pairs if "{" in p[0]), key=lambda p: -len(re.sub(r"{.*?}", "", p[0]))
    )
    return i18n.Catalog(
        language, texts=plain, templates=tuple(i18n.template(a, b) for a, b in shaped)
    )


# ----- the page ---------------------------------------------------------------------------------
def render(data: dict, words: i18n.Catalog, where: Path, root: Path) -> str:
    """The HTML page of ``data``: the kit's words from ``data["language"]``'s catalog, the
    course's English texts through ``words``. Links to feedback pages go from the page's
    folder ``where`` to the course folder ``root``."""
    tr = i18n.catalog(data["language"])
    title = tr("{assignment}: what the class got wrong", assignment=data["assignment"])
    misses = tr("What the failing students hit")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            f'<html lang="{_e(data["language"])}"><head><meta charset="utf-8">',
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
            f"<h1>{_e(title)}</h1>",
            *_figures_html(data, tr),
            f"<h2>{_e(misses)}</h2>",
            *(_exercise_html(exercise, tr, words) for exercise in data["exercises"]),
            *_statuses_html(data["statuses"], tr, where, root),
            *_run_html(data["run"], tr),
            "</body></html>",
            "",
        ]
    )


def _e(value) -> str:
    return html.escape(str(value))


def _figures_html(data: dict, tr) -> list[str]:
    scores, exercises = data["scores"], data["exercises"]
    summary = tr(
        "{submissions} submissions from {students} students. Median {median:g} of {max:g} "
        "points; half the students scored between {q1:g} and {q3:g}.",
        submissions=data["submissions"],
        students=data["students"],
        median=scores["median"],
        max=scores["max"],
        q1=scores["quartiles"][0],
        q3=scores["quartiles"][1],
    )
    histogram = tr(
        "Students by total score (points): the solid line is the median, the dotted lines "
        "the quartiles."
    )
    rates = tr("Share of the submissions that earned each exercise's full points.")
    return [
        f"<p>{_e(summary)}</p>",
        _figure(_histogram(scores), histogram, "scores"),
        _figure(_pass_rates(exercises), rates, "pass-rates") if exercises else "",
    ]


def _figure(uri: str, caption: str, name: str) -> str:
    return (
        f'<figure id="{name}"><img src="{uri}" alt="{_e(caption)}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _exercise_html(exercise: dict, tr, words: i18n.Catalog) -> str:
    """An exercise's pass rate and misses; a kernel's text (an assert cell's exception) is
    translated only where it is one of the kit's own messages, whole."""
    show = words.text if exercise["judged"] == "checks" else lambda t: words.texts.get(t, t)
    name = f"{exercise['notebook']} / {exercise['id']}"
    passed = tr(
        "{passed} of {total} passed ({share:.0%}), {partial} in part; {points:g} points.",
        passed=exercise["passed"],
        total=exercise["submissions"],
        share=exercise["passed"] / max(1, exercise["submissions"]),
        partial=exercise["partial"],
        points=exercise["max_points"],
    )
    head = (tr("Students"), tr("Share"), tr("Check or observation"), tr("Hint or reason"))
    rows = [
        f"<tr><td>{miss['students']}</td><td>{miss['share']:.0%}</td>"
        f"<td>{_e(show(miss['what']))}</td><td>{_e(show(miss['why']))}</td></tr>"
        for miss in exercise["misses"]
    ]
    table = (
        f"<table><tr>{''.join(f'<th>{_e(h)}</th>' for h in head)}</tr>{''.join(rows)}</table>"
        if rows
        else ""
    )
    return f"<section><h3>{_e(name)}</h3><p>{_e(passed)}</p>{table}</section>"


def _statuses_html(statuses: dict, tr, where: Path, root: Path) -> list[str]:
    """The count of each status, linking to the list of its students (when there is one)."""
    heading = tr("Statuses")
    found = [f"<h2>{_e(heading)}</h2>", "<table>"]
    for status, entry in statuses.items():
        label = f'<a href="#status-{_e(status)}">{_e(status)}</a>' if "who" in entry else _e(status)
        found.append(f"<tr><td>{label}</td><td>{entry['count']}</td></tr>")
    found.append("</table>")
    for status, entry in statuses.items():
        links = [
            f'<a href="{_e(_link(root / who["page"], where))}">{_e(who["name"])}</a>'
            for who in entry.get("who", [])
        ]
        if links:
            found.append(f'<h3 id="status-{_e(status)}">{_e(status)}</h3><p>{", ".join(links)}</p>')
    return found


def _link(target: Path, where: Path) -> str:
    """A relative URL from the folder ``where`` to ``target``."""
    relative = os.path.relpath(target, where)
    return "/".join(quote(part) for part in Path(relative).parts)


def _run_html(run: dict, tr) -> list[str]:
    pace = run["per_minute"] if run["per_minute"] is not None else "?"
    sandboxes = ", ".join(f"{name} ({n})" for name, n in run["sandbox"].items())
    facts = [
        tr("{graded} submissions graded in the last run: {pace} per minute.", graded=run["graded"],
           pace=pace),
        tr("Median time per submission: {seconds:g} s.", seconds=run["median_seconds"]),
        tr("Sandbox: {sandbox}.", sandbox=sandboxes),
        tr("Scheduler: {scheduler}.", scheduler=run["scheduler"] or tr("not recorded")),
    ]  # fmt: skip
    head = (tr("Seconds"), tr("Status"), tr("Notebook"))
    rows = [
        f"<tr><td>{r['seconds']:g}</td><td>{_e(r['status'])}</td><td>{_e(r['notebook'])}</td></tr>"
        for r in run["slowest"]
    ]
    headings = tr("The grading run"), tr("The slowest submissions")
    return [
        f"<h2>{_e(headings[0])}</h2>",
        f"<ul>{''.join(f'<li>{_e(fact)}</li>' for fact in facts)}</ul>",
        f"<h3>{_e(headings[1])}</h3>",
        f"<table><tr>{''.join(f'<th>{_e(h)}</th>' for h in head)}</tr>{''.join(rows)}</table>",
    ]


# ----- the figures: numbers and ids only (their words are the page's, in its language) -------
def _histogram(scores: dict) -> str:
    """Students by total score, with the median (solid) and quartiles (dotted)."""
    figure, axes = _axes()
    top = scores["max"] or 1.0
    axes.hist(scores["totals"], bins=np.linspace(0, top, 11), color="#4c72b0", edgecolor="white")
    for x, style in zip((scores["quartiles"][0], scores["median"], scores["quartiles"][1]), ":-:"):
        axes.axvline(x, color="#c44e52", linestyle=style, linewidth=2)
    axes.set_xlim(0, top)
    axes.yaxis.get_major_locator().set_params(integer=True)
    return _png(figure)


def _pass_rates(exercises: list[dict]) -> str:
    """One horizontal bar per exercise: the share that passed, from 0 to 100 %."""
    figure, axes = _axes(height=0.6 + 0.35 * len(exercises))
    names = [_plain(f"{e['notebook']}/{e['id']}") for e in exercises]
    rates = [100 * e["passed"] / max(1, e["submissions"]) for e in exercises]
    axes.barh(range(len(rates)), rates, color="#55a868")
    axes.set_yticks(range(len(rates)), labels=names)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.xaxis.set_major_formatter("{x:.0f}%")
    return _png(figure)


def _axes(height: float = 2.6):
    try:
        from matplotlib.figure import Figure  # optional (the [lab] and [grade] extras)
    except ImportError as error:
        raise RuntimeError(
            f"the report draws with matplotlib: pip install matplotlib ({error})"
        ) from None

    figure = Figure(figsize=(6.4, height), dpi=100, layout="constrained")
    return figure, figure.add_subplot()


def _plain(text: str) -> str:
    """An id as matplotlib shows it literally (``$`` would start mathtext), cut to 40."""
    return text[:40].replace("$", r"\$")


def _png(figure) -> str:
    """The figure as a PNG data URI (no date or version in it: the same data, the same bytes)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


_CSS = (
    "body{font-family:sans-serif;max-width:52em;margin:2em auto;line-height:1.4}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
    "padding:.25em .6em;text-align:left;vertical-align:top}figure{margin:1em 0}"
    "img{max-width:100%}figcaption{color:#555;font-size:.9em}"
)
