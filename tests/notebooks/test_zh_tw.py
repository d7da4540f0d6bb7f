"""The Traditional Chinese (zh-TW) edition is zh-CN converted by tools/make_zh_tw.py (OpenCC's
``s2twp`` and a hand-written override list): its texts are committed exactly as the tool makes
them, its terms are the glossary's 繁體中文 column, its programming words Taiwan's, and no
Simplified character is left. Its notebooks go through every other test zh-CN goes through
(the tests parametrised over conftest.TRANSLATED)."""

from __future__ import annotations

import shutil
import sys

import opencc
import pytest

from autogradkit import _i18n as i18n

from .conftest import COURSE, ROOT

sys.path.insert(0, str(ROOT / "tools"))

import make_zh_tw  # noqa: E402


def glossary() -> list[tuple[str, str, str]]:
    """``(English, 简体中文, 繁體中文)`` of every term of notebooks/GLOSSARY.md."""
    found = []
    for line in (COURSE / "GLOSSARY.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) > 3 and not set(cells[0]) <= set("-: "):
            found.append(tuple(cells[:3]))
    return [row for row in found if row[0] != "English"]  # each table's header


def made_texts() -> list:
    return [make_zh_tw.target(source) for source in make_zh_tw.sources(COURSE)]


def test_every_glossary_term_converts_to_its_traditional_column():
    terms = glossary()
    assert len(terms) > 80
    wrong = [
        (sc, tc, make_zh_tw.convert(sc)) for _, sc, tc in terms if make_zh_tw.convert(sc) != tc
    ]
    assert wrong == [], "add the term to OVERRIDES in tools/make_zh_tw.py"


@pytest.mark.parametrize(
    ("mainland", "taiwan"),
    [("程序", "程式"), ("函数", "函式"), ("默认", "預設"), ("变量", "變數"), ("对象", "物件")]
    + [("内存", "記憶體"), ("数据", "資料"), ("单元格", "儲存格"), ("返回", "回傳")]
    + [("随机数", "亂數"), ("编写", "撰寫"), ("遍历", "走訪"), ("进度条", "進度列")],
)
def test_programming_words_are_taiwans(mainland, taiwan):
    assert make_zh_tw.convert(f"这个{mainland}") == f"這個{taiwan}"


def test_the_committed_zh_tw_texts_are_what_the_tool_makes():
    twins = [*(COURSE / "source").glob("*/*.zh-CN.md"), *(COURSE / "source").glob("*/*.zh-CN.po")]
    assert len(made_texts()) == len(twins) + 2  # and the error index and the kit's catalog
    assert make_zh_tw.main(["--check"]) == 0, (
        "zh-TW is stale: run `.venv/bin/python tools/make_zh_tw.py` (make release does); never "
        "edit a zh-TW file by hand"
    )


def test_a_hand_edit_is_found_and_regenerating_undoes_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(make_zh_tw, "KIT_CATALOGS", tmp_path / "locale")
    shutil.copytree(i18n.KIT_CATALOGS, tmp_path / "locale")
    folder = tmp_path / "source" / "00_start_here"
    shutil.copytree(COURSE / "source" / "00_start_here", folder)
    twin = folder / "00_start_here.zh-TW.md"
    committed = twin.read_bytes()
    course = ["--course", str(tmp_path)]
    assert make_zh_tw.main(["--check", *course]) == 0
    twin.write_text(twin.read_text(encoding="utf-8").replace("程式", "程序"), encoding="utf-8")
    orphan = tmp_path / "source" / "00_start_here" / "checks.zh-TW.po"
    (tmp_path / "source" / "00_start_here" / "checks.zh-CN.po").unlink()  # its zh-CN is gone
    assert make_zh_tw.main(["--check", *course]) == 1
    assert f"{twin}: stale" in capsys.readouterr().err
    assert make_zh_tw.main(course) == 0
    assert twin.read_bytes() == committed and not orphan.exists()


def test_no_simplified_character_is_left():
    """Every character is the one Taiwan writes (s2tw, character by character, changes none)
    but those both scripts write: 游 (游標, 上游), 划 (划算) and 干 (若干, 干擾; s2tw's 幹 is
    another word)."""
    s2tw, both = opencc.OpenCC("s2tw"), set("游划干")
    left = {}
    for path in made_texts():
        for character in set(path.read_text(encoding="utf-8")) - both:
            if "\u3400" <= character <= "\u9fff" and s2tw.convert(character) != character:
                left.setdefault(character, path.name)
    assert left == {}, "add the phrase to OVERRIDES in tools/make_zh_tw.py"


def test_quotation_marks_are_taiwans():
    for path in made_texts():
        assert not set("“”‘’") & set(path.read_text(encoding="utf-8")), path


def test_the_kits_words_are_all_converted():
    zh_cn = {m.id for m in i18n.read_po(i18n.KIT_CATALOGS / "zh-CN.po")}
    zh_tw = {m.id: m.string for m in i18n.read_po(i18n.KIT_CATALOGS / "zh-TW.po")}
    assert set(zh_tw) == zh_cn
    assert i18n.catalog("zh-TW")("not answered yet") == "還沒有作答"
    assert i18n.catalog("zh-TW")("# YOUR CODE HERE") == "# 在此撰寫程式碼"
