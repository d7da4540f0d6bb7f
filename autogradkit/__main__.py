"""``python -m autogradkit`` is not a command: the instructor's commands are a program of their own.

The library a student imports holds no instructor tool, so this only says where they are.
"""

import sys

if __name__ == "__main__":
    sys.exit(
        "python -m autogradkit: the instructor's commands (build, release, grade, validate, "
        "report…) are the `autogradkit` program, installed with the kit: run "
        f"`autogradkit {' '.join(sys.argv[1:]) or '--help'}`"
    )
