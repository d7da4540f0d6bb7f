"""Which edition of the course ``make lab`` opens: the one in the system's language.

The locale's language is read as the C library reads it for messages (``LC_ALL``, then
``LC_MESSAGES``, then ``LANG``; an empty value counts as unset): Taiwan's, Hong Kong's and
Macau's Chinese (``zh_TW``, ``zh_HK``, ``zh_MO``, or a ``zh_Hant`` script) open the Traditional
Chinese edition, ``notebooks/release/zh-TW/``; any other language starting with ``zh`` the
Simplified one, ``notebooks/release/zh-CN/``; anything else the English one,
``notebooks/release/``. JupyterLab serves the whole course folder, so the other editions are
beside it in the file browser (``release/`` holds the English notebooks and the ``zh-CN`` and
``zh-TW`` folders). JupyterLab's own menus follow the server's locale when its language pack is
installed (``make lab`` installs ``jupyterlab-language-pack-zh-CN`` and ``-zh-TW``) and the
system has that locale (``locale -a`` lists ``zh_CN.utf8`` or ``zh_TW.utf8``), as a Chinese
desktop has.

Usage: ``python tools/lab_edition.py [--course DIR]`` prints the path, under the course
folder, of the notebook to open first (for ``--LabApp.default_url=/lab/tree/PATH``), and says
on stderr which edition that is and where the other one lives.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # the first one set wins, as in POSIX
FIRST_NOTEBOOK = "00_start_here"
EDITIONS = {"en": "release", "zh-CN": "release/zh-CN", "zh-TW": "release/zh-TW"}
NAMES = {"en": "English", "zh-CN": "简体中文", "zh-TW": "繁體中文"}
TRADITIONAL = re.compile(r"zh[_-](tw|hk|mo|hant)(?![a-z])")  # zh_TW.UTF-8, zh_HK, zh_Hant_TW


def system_language(environ: Mapping[str, str]) -> str:
    """The edition for the locale in ``environ``: ``zh-TW`` for Traditional Chinese (Taiwan,
    Hong Kong, Macau), ``zh-CN`` for any other Chinese locale, else ``en``."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "").lower()
        if value:
            if TRADITIONAL.match(value):
                return "zh-TW"
            return "zh-CN" if value.startswith("zh") else "en"
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
    opened = next(lang for lang in ("zh-CN", "zh-TW", "en") if path.startswith(EDITIONS[lang]))
    others = "; ".join(
        f"{NAMES[lang]}: {args.course.name}/{EDITIONS[lang]}/"
        for lang in EDITIONS
        if lang != opened
    )
    print(
        f"lab: the {NAMES[opened]} edition, {args.course.name}/{EDITIONS[opened]}/; "
        f"the others are beside it ({others})",
        file=sys.stderr,
    )
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
