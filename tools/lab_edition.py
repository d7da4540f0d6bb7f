"""Which edition of the course ``make lab`` opens: the one in the system's language.

The locale's language is read as the C library reads it for messages (``LC_ALL``, then
``LC_MESSAGES``, then ``LANG``; an empty value counts as unset): a language starting with
``zh`` opens the Simplified Chinese edition, ``notebooks/release/zh-CN/``, anything else the
English one, ``notebooks/release/``. JupyterLab serves the whole course folder, so the other
edition is beside it in the file browser (``release/`` holds the English notebooks and the
``zh-CN`` folder). JupyterLab's own menus follow the server's locale when its language pack is
installed (``make lab`` installs ``jupyterlab-language-pack-zh-CN``) and the system has that
locale (``locale -a`` lists ``zh_CN.utf8``), as a Chinese desktop has.

Usage: ``python tools/lab_edition.py [--course DIR]`` prints the path, under the course
folder, of the notebook to open first (for ``--LabApp.default_url=/lab/tree/PATH``), and says
on stderr which edition that is and where the other one lives.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # the first one set wins, as in POSIX
FIRST_NOTEBOOK = "00_start_here"
EDITIONS = {"en": "release", "zh-CN": "release/zh-CN"}  # folders under the course


def system_language(environ: Mapping[str, str]) -> str:
    """The edition for the locale in ``environ``: ``zh-CN`` for any Chinese locale (the one
    Chinese edition there is: zh_TW readers get Simplified Chinese), else ``en``."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            return "zh-CN" if value.lower().startswith("zh") else "en"
    return "en"


def start_notebook(language: str, course: Path) -> str:
    """The first notebook of ``language``'s edition, as a path under ``course``; English when
    that edition has not been released there."""
    for edition in (language, "en"):
        path = f"{EDITIONS[edition]}/{FIRST_NOTEBOOK}/{FIRST_NOTEBOOK}.ipynb"
        if (course / path).is_file():
            return path
    raise FileNotFoundError(f"no {FIRST_NOTEBOOK} release in {course}: run `make release`")


def main(argv: list[str], environ: Mapping[str, str] = os.environ) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--course", type=Path, default=ROOT / "notebooks")
    args = parser.parse_args(argv)
    path = start_notebook(system_language(environ), args.course)
    opened = "zh-CN" if path.startswith(EDITIONS["zh-CN"]) else "en"
    other = "en" if opened == "zh-CN" else "zh-CN"
    names = {"en": "English", "zh-CN": "简体中文"}
    print(
        f"lab: the {names[opened]} edition, {args.course.name}/{EDITIONS[opened]}/; "
        f"the {names[other]} one is beside it, {args.course.name}/{EDITIONS[other]}/",
        file=sys.stderr,
    )
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
