"""The ``autogradkit`` command: ``build``, ``release``, ``validate``, ``grade`` and ``export``
a course's notebooks; ``report`` on what a class got wrong; ``check-course`` against the
kit's house style; ``ids`` and ``translate`` for their text sources and translations.

This file only turns arguments into a frozen ``GradingConfig``, calls the command and writes
its JSON report. Exit codes: 0 done, 1 the work failed (or, for validate, a test failed),
2 the command line was wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from autogradkit._i18n import LANGUAGES

from .build import build_assignments, give_ids
from .class_report import class_report
from .config import GradingConfig, default_jobs
from .export import export_gradebook
from .grade import grade_assignment
from .house_style import check_course
from .release import release_assignments
from .translate import translate_assignments
from .validate import validate_notebook

__all__ = ["DESCRIPTION", "build_parser", "parse_config", "main"]

DESCRIPTION = (
    "The instructor's toolchain of autogradkit: build, release, validate, grade and export "
    "a course's notebooks, report on what a class got wrong, check a course against the kit's "
    "house style, and give ids to and translate their text sources."
)
ASSIGNMENTS = "Assignment folders (default: all)."
COURSE = "The course folder (default: notebooks)."
REPORT = "Also write the command's JSON report to this file."


def _command(commands, name: str, text: str) -> argparse.ArgumentParser:
    """A subcommand whose one-line help and description are the sentence ``text``."""
    return commands.add_parser(name, help=text, description=text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autogradkit", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True, help="The command to run.")
    bld = _command(commands, "build", "Execute each source/NN/NN.py into source/NN/NN.ipynb.")
    bld.add_argument("assignments", nargs="*", help=ASSIGNMENTS)
    ids = _command(commands, "ids", "Give the new cells of source/NN/NN.py a stable id.")
    ids.add_argument("assignments", nargs="*", help=ASSIGNMENTS)
    ids.add_argument("--course", type=Path, default=Path("notebooks"), help=COURSE)
    rel = _command(commands, "release", "Write the student versions into DIR/release.")
    rel.add_argument("assignments", nargs="*", help=ASSIGNMENTS)
    rel.add_argument(
        "--lang",
        dest="language",
        choices=LANGUAGES,
        default="en",
        help="The edition: en (DIR/release), or another (DIR/release/LANG) for the "
        "assignments translated into it (default: en).",
    )
    _add_translate_command(commands)
    val = _command(commands, "validate", "Run a notebook and report its tests.")
    val.add_argument("notebook", type=Path, help="The notebook to run.")
    grd = _add_grade_command(commands)
    _add_sandbox_options(val, default="auto")
    for sub, timeout in ((bld, 120.0), (rel, 120.0), (val, 30.0), (grd, 30.0)):
        _add_common_options(sub, timeout, grades=sub in (val, grd))
    _add_export_command(commands)
    _add_check_course_command(commands)
    _add_report_command(commands)
    return parser


def _add_grade_command(commands) -> argparse.ArgumentParser:
    """``grade``: every submission of an assignment, in sandboxes, into a gradebook."""
    grd = _command(commands, "grade", "Grade every submission of an assignment.")
    grd.add_argument(
        "submissions", type=Path, help="The submitted/ folder, or a folder of .ipynb files."
    )
    grd.add_argument("--assignment", required=True, help="The assignment to grade.")
    grd.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=default_jobs(),
        help="How many kernels run at once (default: %(default)s, the cores this process may use).",
    )
    grd.add_argument(
        "--total-timeout", type=float, help="Seconds per submission (default: 10x --timeout)."
    )
    grd.add_argument(
        "--max-output",
        type=int,
        default=GradingConfig.max_output_chars,
        help="Output characters kept per cell (default: %(default)s).",
    )
    _add_sandbox_options(grd, default=GradingConfig.sandbox)
    grd.add_argument("--force", action="store_true", help="Regrade unchanged submissions too.")
    grd.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Show a progress bar (default: on a terminal only).",
    )
    grd.add_argument("--scheduler", help="Grade on this dask cluster (tcp://HOST:PORT).")
    return grd


def _add_translate_command(commands) -> None:
    """``translate``: write or check a notebook's translation files (docs/translating.md)."""
    trn = _command(
        commands,
        "translate",
        "Write or update the translation files of source/NN (see docs/translating.md).",
    )
    trn.add_argument(
        "assignments", nargs="*", help="Assignment folders (default: the translated ones)."
    )
    trn.add_argument(
        "--lang",
        dest="language",
        choices=LANGUAGES[1:],
        required=True,
        help="The language to translate into.",
    )
    trn.add_argument("--check", action="store_true", help="Only say what is left to translate.")
    trn.add_argument("--course", type=Path, default=Path("notebooks"), help=COURSE)


def _add_export_command(commands) -> None:
    """``export``: the gradebook in the import format of an LMS, one column per exercise."""
    exp = _command(commands, "export", "Write the gradebook for Canvas, for Moodle or as CSV.")
    exp.add_argument("--assignment", required=True, help="The assignment to export.")
    exp.add_argument(
        "--format",
        choices=("canvas", "moodle", "csv"),
        default="csv",
        help="The import format of the LMS, or a plain CSV (the default).",
    )
    exp.add_argument(
        "--per-exercise",
        action="store_true",
        help="Write one column per exercise (test cell), not one per notebook with its total.",
    )
    exp.add_argument("--course", type=Path, default=Path("notebooks"), help=COURSE)
    exp.add_argument(
        "--output", type=Path, help="The file to write (default: beside the gradebook)."
    )
    exp.add_argument(
        "--roster", type=Path, help="A CSV of student,name,id,email for the LMS's columns."
    )
    exp.add_argument("--report", type=Path, help=REPORT)


def _add_check_course_command(commands) -> None:
    """``check-course``: the kit's house style, as named rules (docs/instructor_guide.md)."""
    chk = _command(
        commands,
        "check-course",
        "Check assignments against the kit's house style (an opt-in lint).",
    )
    chk.add_argument("--course", type=Path, default=Path("notebooks"), help=COURSE)
    chk.add_argument(
        "--assignment",
        help="Check this assignment (default: those in DIR/house_style.txt, else all of them).",
    )
    chk.add_argument(
        "--tests",
        type=Path,
        help="The folder of the test_exercises_NN.py files (default: tests/notebooks).",
    )
    chk.add_argument("--report", type=Path, help=REPORT)


def _add_report_command(commands) -> None:
    """``report``: one page on what the class got wrong, from the gradebook."""
    rep = _command(
        commands, "report", "Write grades/NAME/report.html and its .json: what the class got wrong."
    )
    rep.add_argument("--assignment", required=True, help="The graded assignment.")
    rep.add_argument("--course", type=Path, default=Path("notebooks"), help=COURSE)
    rep.add_argument("--output", type=Path, help="The page to write (its .json goes beside it).")
    rep.add_argument(
        "--anonymous", action="store_true", help="Name no student: a page to show the class."
    )
    rep.add_argument(
        "--lang",
        dest="language",
        choices=LANGUAGES,
        help="The page's language (default: the one most submissions are written in).",
    )


def _add_common_options(sub: argparse.ArgumentParser, timeout: float, grades: bool) -> None:
    """The options every command takes; a command that runs students' code takes limits."""
    sub.add_argument("--course", type=Path, default=Path("notebooks"), help=COURSE)
    sub.add_argument(
        "--timeout", type=float, default=timeout, help="Seconds per cell (default: %(default)g)."
    )
    sub.add_argument("--report", type=Path, help=REPORT)
    if grades:
        sub.add_argument(
            "--memory-limit",
            type=int,
            default=GradingConfig.memory_limit_mb,
            help="MiB of memory per kernel (default: %(default)s; 0: no limit).",
        )
        sub.add_argument(
            "--interrupt-grace",
            type=float,
            default=GradingConfig.interrupt_grace,
            help="Seconds from the interrupt to the kill of a slow cell (default: %(default)g).",
        )


def _add_sandbox_options(grd: argparse.ArgumentParser, default: str) -> None:
    choices = ("bwrap", "docker", "podman", "none") + (("auto",) if default == "auto" else ())
    grd.add_argument(
        "--sandbox",
        choices=choices,
        default=default,
        help=f"Where student code runs (default: {default}); none runs it as you, unconfined.",
    )
    grd.add_argument(
        "--disk-limit",
        type=int,
        default=GradingConfig.disk_limit_mb,
        help="MiB of working directory per sandbox (default: %(default)s).",
    )


def parse_config(argv: Sequence[str] | None = None) -> GradingConfig:
    """Arguments -> ``GradingConfig`` (argparse exits with code 2 on a bad command line).

    Example:
        >>> cfg = parse_config(["grade", "subs", "--assignment", "hw1", "-j", "2"])
        >>> cfg.command, cfg.assignment, cfg.jobs, cfg.timeout
        ('grade', 'hw1', 2, 30.0)
    """
    args = vars(build_parser().parse_args(argv))
    renamed = {
        "memory_limit": "memory_limit_mb",
        "max_output": "max_output_chars",
        "disk_limit": "disk_limit_mb",
    }
    fields = {renamed.get(k, k): v for k, v in args.items()}
    fields["assignments"] = tuple(fields.get("assignments") or ())
    return GradingConfig(**fields)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (the ``autogradkit`` command exits with it)."""
    try:
        cfg = parse_config(argv)
    except ValueError as error:
        print(f"autogradkit: error: {error}", file=sys.stderr)
        return 2

    run = {
        "build": build_assignments,
        "ids": give_ids,
        "release": release_assignments,
        "validate": validate_notebook,
        "grade": grade_assignment,
        "export": export_gradebook,
        "report": class_report,
        "translate": translate_assignments,
        "check-course": check_course,
    }[cfg.command]
    try:
        report = run(cfg)
    except (OSError, ValueError, RuntimeError) as error:  # e.g. no such assignment, a bad cell
        print(f"autogradkit {cfg.command}: error: {error}", file=sys.stderr)
        return 1
    if cfg.report is not None:
        cfg.report.parent.mkdir(parents=True, exist_ok=True)
        cfg.report.write_text(json.dumps(report, indent=1, ensure_ascii=False, default=str) + "\n")
    return int(report["exit_code"])
