"""``python -m autogradkit`` (and the ``autogradkit`` script): release, validate, grade."""

from __future__ import annotations

import sys

from .grading.cli import main as cli_main


def main(argv: list[str] | None = None) -> int:
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
