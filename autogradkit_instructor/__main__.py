"""The ``autogradkit`` command (also ``python -m autogradkit_instructor``): build, release,
validate, grade, report."""

from __future__ import annotations

import sys

from .cli import main as cli_main


def main(argv: list[str] | None = None) -> int:
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
