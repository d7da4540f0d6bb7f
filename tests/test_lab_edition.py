"""`make lab` opens the edition in the system's language (tools/lab_edition.py), the other
one beside it; no server is started here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import lab_edition  # noqa: E402

ZH_START = "release/zh-CN/00_start_here/00_start_here.ipynb"
TW_START = "release/zh-TW/00_start_here/00_start_here.ipynb"
EN_START = "release/00_start_here/00_start_here.ipynb"


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LANG": "zh_TW.UTF-8"}, "zh-TW"),
        ({"LANG": "zh_HK.UTF-8"}, "zh-TW"),
        ({"LANG": "zh_MO"}, "zh-TW"),
        ({"LC_ALL": "zh_Hant_TW.UTF-8"}, "zh-TW"),
        ({"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "zh_CN.UTF-8"}, "zh-TW"),
        ({"LANG": "zh_SG.UTF-8"}, "zh-CN"),
        ({"LANG": "zh_twx"}, "zh-CN"),  # not a region: a language starting with zh
        ({"LANG": "zh"}, "zh-CN"),
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh-CN"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_GB.UTF-8"}, "zh-CN"),
        ({"LC_ALL": "C.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "en"),  # LC_ALL wins
        ({"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}, "zh-CN"),  # empty: unset
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({}, "en"),
    ],
)
def test_the_locale_chooses_the_edition(environ, language):
    assert lab_edition.system_language(environ) == language


def test_a_chinese_locale_opens_the_zh_cn_edition_and_english_the_english_one():
    course = ROOT / "notebooks"
    assert lab_edition.start_notebook("zh-CN", course) == ZH_START
    assert lab_edition.start_notebook("zh-TW", course) == TW_START
    assert lab_edition.start_notebook("en", course) == EN_START
    assert all((course / start).is_file() for start in (ZH_START, TW_START, EN_START))


def test_a_course_without_the_zh_cn_release_opens_english(tmp_path):
    (tmp_path / "release" / "00_start_here").mkdir(parents=True)
    (tmp_path / EN_START).write_text("{}", encoding="utf-8")
    assert lab_edition.start_notebook("zh-CN", tmp_path) == EN_START
    with pytest.raises(FileNotFoundError, match="make release"):
        lab_edition.start_notebook("en", tmp_path / "release")


def test_the_command_prints_the_notebook_to_open_and_names_both_editions(capsys):
    course = ROOT / "notebooks"
    assert lab_edition.main(["--course", str(course)], {"LANG": "zh_CN.UTF-8"}) == 0
    out, err = capsys.readouterr()
    assert out == ZH_START + "\n"
    assert "简体中文 edition, notebooks/release/zh-CN/" in err and "notebooks/release/" in err
    assert "繁體中文: notebooks/release/zh-TW/" in err


def test_a_taiwanese_desktop_opens_the_zh_tw_edition(capsys):
    course = ROOT / "notebooks"
    assert lab_edition.main(["--course", str(course)], {"LANG": "zh_TW.UTF-8"}) == 0
    out, err = capsys.readouterr()
    assert out == TW_START + "\n"
    assert "繁體中文 edition, notebooks/release/zh-TW/" in err


def test_make_lab_opens_the_chosen_notebook_with_the_whole_course_in_the_file_browser():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nlab: ", 1)[1].split("\n\n", 1)[0]
    assert "jupyter lab notebooks/" in recipe  # both editions under the served folder
    assert "--LabApp.default_url=/lab/tree/$$($(PY) tools/lab_edition.py" in recipe
