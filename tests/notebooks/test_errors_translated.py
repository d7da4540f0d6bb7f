"""The error index in Chinese (notebooks/ERRORS.zh-CN.md, and ERRORS.zh-TW.md made from it)
says what the English one says.

Each row keeps the message verbatim (it is what the student's screen shows) and the same
places; only the explanation is written in Chinese. Each edition's 00 links its own.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from autogradkit._i18n import LANGUAGES
from autogradkit_instructor import translate

COURSE = Path(__file__).resolve().parents[2] / "notebooks"
ENGLISH = COURSE / "ERRORS.md"
CHINESE = LANGUAGES[1:]  # zh-CN, zh-TW
# each edition's link from its 00 (a release copy is three folders below notebooks/)
LINKS = {"zh-CN": "](../../../ERRORS.zh-CN.md)", "zh-TW": "](../../../ERRORS.zh-TW.md)"}
HAN = re.compile(r"[\u4e00-\u9fff]")
# Latin words an explanation may keep: identifiers in code font are stripped before this check
PROSE_WORD = re.compile(r"\b[A-Za-z]{3,}\b")


def rows(path: Path) -> list[list[str]]:
    """The table's body rows, each a list of its three cells."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not set(line) <= set("|-: "):
            found.append([cell.strip() for cell in line.strip()[1:-1].split("|")])
    return found[1:]  # the header row


@pytest.mark.parametrize("language", CHINESE)
def test_every_row_keeps_the_message_and_the_places(language):
    english, chinese = rows(ENGLISH), rows(COURSE / f"ERRORS.{language}.md")
    assert [row[:2] for row in chinese] == [row[:2] for row in english]


@pytest.mark.parametrize("language", CHINESE)
def test_every_explanation_is_written_in_chinese(language):
    for message, _, meaning in rows(COURSE / f"ERRORS.{language}.md"):
        prose = re.sub(r"`[^`]*`", "", meaning)
        assert HAN.search(prose), message
        assert not PROSE_WORD.findall(prose.replace("Variable", "")), (message, prose)


@pytest.mark.parametrize("language", CHINESE)
def test_the_chinese_start_notebook_links_it(language):
    source = COURSE / "source" / "00_start_here" / f"00_start_here.{language}.md"
    assert LINKS[language] in source.read_text(encoding="utf-8")


@pytest.mark.needs("git")  # the tracked pages
def test_every_markdown_page_in_chinese_renders_as_written():
    """The checks translate --check runs on the notebooks' prose, on every tracked .md page."""
    root = COURSE.parent
    tracked = subprocess.run(
        ["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    pages = [root / name for name in tracked]
    chinese = [page for page in pages if HAN.search(page.read_text(encoding="utf-8"))]
    assert len(chinese) >= 10  # README, the glossary, the error index, every prose twin
    for page in chinese:
        assert translate.prose_problems(page.read_text(encoding="utf-8")) == [], page


@pytest.mark.parametrize("language", CHINESE)
def test_the_whole_page_keeps_english_only_as_code_and_quotes(language):
    """Its introduction too, not only the rows' explanations (translate --check's prose rule)."""
    page = COURSE / f"ERRORS.{language}.md"
    assert translate.prose_text_problems(page.read_text(encoding="utf-8")) == []
