"""Fix the two rendering traps ``autogradkit translate --check`` reports in Chinese prose.

    python tools/fix_zh_prose.py notebooks/source/*/*.zh-CN.md

- A line break between two Chinese characters, or before full-width punctuation, renders as
  a space: the lines are joined.
- ``**用时：**约`` renders its asterisks (CommonMark closes ``**`` after punctuation only
  before a space or punctuation): the punctuation moves outside, ``**用时**：约``.
Code fences are left alone. Run the check again afterwards: what it still reports is for a
person to fix.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from autogradkit_instructor.translate import breaks_badly

# a short label with no punctuation of its own (**用时：**), so that two bold spans never pair up
BOLD_PUNCTUATION = re.compile(
    r"\*\*([^*\n：，。；！？、（）]{1,20})([：，。；！？、])\*\*(?=[^\s*])"
)
# a line that opens a block of its own (a list item, a heading, a table row) is no soft break
BLOCK_START = re.compile(r"([-*+]|\d+[.)])\s|#|\||<!--")


def fix(text: str) -> str:
    lines, out, fenced = text.split("\n"), [], False
    for line in lines:
        fence = line.lstrip().startswith("```")  # a fence line stays a line of its own
        previous = out[-1] if out else ""
        joinable = (
            not (fenced or fence) and previous and not previous.lstrip().startswith(("```", "<!--"))
        )
        fenced = fenced != fence
        quoted = previous.startswith(">") and line.startswith(">")  # a quote's next line
        rest = line[1:].lstrip() if quoted else line.lstrip()
        opens_block = BLOCK_START.match(rest) and not quoted
        if (
            joinable
            and rest
            and not opens_block
            and previous.strip()
            and breaks_badly(previous[-1], rest[0])
        ):
            out[-1] = previous + rest
        else:
            out.append(line)
    return BOLD_PUNCTUATION.sub(r"**\1**\2", "\n".join(out))


def main(paths: list[str]) -> None:
    for path in map(Path, paths):
        text = fixed = path.read_text(encoding="utf-8")
        while (again := fix(fixed)) != fixed:  # moving punctuation out of ** may free a join
            fixed = again
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")
            print(f"fixed {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
