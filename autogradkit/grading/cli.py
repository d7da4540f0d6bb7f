"""The ``autogradkit`` command: ``build``, ``release``, ``validate``, ``grade``, ``export``,
``report``, and ``ids`` and ``translate`` for the notebooks' text sources and their translations.

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

from .._i18n import LANGUAGES
from .build import build_assignments, give_ids
from .class_report import class_report
from .config import GradingConfig, default_jobs
from .export import export_gradebook
from .grade import grade_assignment
from .house_style import check_course
from .release import release_assignments
from .translate import translate_assignments
from .validate import validate_notebook

__all__ = ["build_parser", "parse_config", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autogradkit", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    bld = commands.add_parser("build", help="source/NN/NN.py -> executed source/NN/NN.ipynb")
    bld.add_argument("assignments", nargs="*", help="assignment folders (default: all)")
    ids = commands.add_parser("ids", help="give new cells of source/NN/NN.py a stable id")
    ids.add_argument("assignments", nargs="*", help="assignment folders (default: all)")
    ids.add_argument("--course", type=Path, default=Path("notebooks"), help="course folder")
    rel = commands.add_parser("release", help="write student versions into DIR/release")
    rel.add_argument("assignments", nargs="*", help="assignment folders (default: all)")
    rel.add_argument(
        "--lang",
        dest="language",
        choices=LANGUAGES,
        default="en",
        help="the edition: en (DIR/release) or another (DIR/release/LANG; translated ones)",
    )
    _add_translate_command(commands)
    val = commands.add_parser("validate", help="run a notebook and report its tests")
    val.add_argument("notebook", type=Path)
    grd = commands.add_parser("grade", help="grade every submission of an assignment")
    grd.add_argument("submissions", type=Path, help="submitted/ folder or a folder of .ipynb")
    grd.add_argument("--assignment", required=True)
    grd.add_argument("-j", "--jobs", type=int, default=default_jobs(), help="parallel kernels")
    grd.add_argument("--total-timeout", type=float, help="seconds per submission (10x --timeout)")
    grd.add_argument(
        "--max-output",
        type=int,
        default=GradingConfig.max_output_chars,
        help="output characters kept per cell",
    )
    _add_sandbox_options(grd, default=GradingConfig.sandbox)
    _add_sandbox_options(val, default="auto")
    grd.add_argument("--force", action="store_true", help="regrade unchanged submissions too")
    grd.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    grd.add_argument("--scheduler", help="grade on this dask cluster (tcp://HOST:PORT)")
    for sub, timeout in ((bld, 120.0), (rel, 120.0), (val, 30.0), (grd, 30.0)):
        _add_common_options(sub, timeout, grades=sub in (val, grd))
    _add_export_command(commands)
    _add_check_course_command(commands)
    _add_report_command(commands)
    return parser


def _add_translate_command(commands) -> None:
    """``translate``: write or check a notebook's translation files (docs/translating.md)."""
    trn = commands.add_parser(
        "translate", help="write or update the translation files of source/NN (docs/translating.md)"
    )
    trn.add_argument("assignments", nargs="*", help="assignment folders (default: translated)")
    trn.add_argument("--lang", dest="language", choices=LANGUAGES[1:], required=True)
    trn.add_argument("--check", action="store_true", help="only say what is left to translate")
    trn.add_argument("--course", type=Path, default=Path("notebooks"), help="course folder")


def _add_export_command(commands) -> None:
    """``export``: the gradebook in the import format of an LMS, one column per exercise."""
    exp = commands.add_parser("export", help="write the gradebook for Canvas, Moodle or as CSV")
    exp.add_argument("--assignment", required=True)
    exp.add_argument("--format", choices=("canvas", "moodle", "csv"), default="csv")
    exp.add_argument("--course", type=Path, default=Path("notebooks"), help="course folder")
    exp.add_argument("--output", type=Path, help="file to write (default: beside the gradebook)")
    exp.add_argument("--roster", type=Path, help="CSV of student,name,id,email for the LMS")
    exp.add_argument("--report", type=Path, help="also write the JSON report here")


def _add_check_course_command(commands) -> None:
    """``check-course``: the kit's house style, as named rules (docs/instructor_guide.md)."""
    chk = commands.add_parser(
        "check-course", help="check assignments against the kit's house style (opt-in lint)"
    )
    chk.add_argument("--course", type=Path, default=Path("notebooks"), help="course folder")
    chk.add_argument(
        "--assignment", help="check this one (default: those in DIR/house_style.txt, else all)"
    )
    chk.add_argument(
        "--tests", type=Path, help="folder of test_exercises_NN.py (default: tests/notebooks)"
    )
    chk.add_argument("--report", type=Path, help="also write the JSON report here")


def _add_report_command(commands) -> None:
    """``report``: one page on what the class got wrong, from the gradebook."""
    rep = commands.add_parser("report", help="write grades/NAME/report.html (and .json)")
    rep.add_argument("--assignment", required=True)
    rep.add_argument("--course", type=Path, default=Path("notebooks"), help="course folder")
    rep.add_argument("--output", type=Path, help="the page to write (the .json goes beside it)")
    rep.add_argument("--anonymous", action="store_true", help="no names: a page for the class")
    rep.add_argument(
        "--lang",
        dest="language",
        choices=LANGUAGES,
        help="the page's language (default: the one most submissions are written in)",
    )


def _add_common_options(sub: argparse.ArgumentParser, timeout: float, grades: bool) -> None:
    """The options every command takes; a command that runs students' code takes limits."""
    sub.add_argument("--course", type=Path, default=Path("notebooks"), help="course folder")
    sub.add_argument("--timeout", type=float, default=timeout, help="seconds per cell")
    sub.add_argument("--report", type=Path, help="also write the JSON report here")
    if grades:
        sub.add_argument(
            "--memory-limit",
            type=int,
            default=GradingConfig.memory_limit_mb,
            help="MiB of address space per kernel (0: no limit)",
        )
        sub.add_argument(
            "--interrupt-grace",
            type=float,
            default=GradingConfig.interrupt_grace,
            help="seconds between the interrupt and the kill of a slow cell",
        )


def _add_sandbox_options(grd: argparse.ArgumentParser, default: str) -> None:
    choices = ("bwrap", "docker", "podman", "none") + (("auto",) if default == "auto" else ())
    grd.add_argument(
        "--sandbox",
        choices=choices,
        default=default,
        help=f"where student code runs (default {default}); none runs it as you, unconfined",
    )
    grd.add_argument(
        "--disk-limit",
        type=int,
        default=GradingConfig.disk_limit_mb,
        help="MiB of working directory per sandbox",
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
    """Run one command; returns the exit code (``python -m autogradkit`` exits with it)."""
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
