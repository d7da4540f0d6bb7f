"""Run pytest and turn "no tests collected" (exit 5) into a loud failure.

An empty selection must never pass CI silently, so this wrapper prints why and exits 1.
"""

from __future__ import annotations

import sys

import pytest

NO_TESTS_COLLECTED = 5


def main(argv: list[str]) -> int:
    code = int(pytest.main(argv))
    if code == NO_TESTS_COLLECTED:
        print(f"error: pytest collected no tests for: {' '.join(argv)}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
