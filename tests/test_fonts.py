"""The translated editions' figures draw their glyphs with the font the package ships.

``autogradkit/fonts/`` holds a subset of Noto Sans CJK (cut by ``tools/subset_fonts.py``,
with its license); a kernel whose folder speaks a language with a font of its own registers
it with matplotlib (``_i18n.use_fonts``) when its checks load or a widget asks for its words.
No system font is needed, so every machine draws the same figures. The notebooks themselves,
run as students run them, are tests/notebooks/test_edition_fonts.py.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from autogradkit._i18n import FONTS, LANGUAGE_FILE, folder_language

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import subset_fonts  # noqa: E402

COURSE = ROOT / "notebooks"


@pytest.mark.parametrize("language", sorted(FONTS))
def test_the_shipped_font_has_every_character_of_the_edition(language):
    assert subset_fonts.edition_texts(language, COURSE)[0].is_file()
    lacking = "".join(sorted(subset_fonts.missing(language, COURSE)))
    assert not lacking, f"{FONTS[language].file} lacks {lacking}: run tools/subset_fonts.py"


def test_a_character_added_without_a_new_subset_is_found(tmp_path):
    folder = tmp_path / "source" / "08_new"
    folder.mkdir(parents=True)
    (folder / "08_new.zh-CN.md").write_text("龘，一个罕用字\n", encoding="utf-8")
    assert subset_fonts.missing("zh-CN", tmp_path) == {"龘"}  # the others are in the subset


@pytest.mark.parametrize("language", sorted(FONTS))
def test_the_font_ships_with_its_license_and_is_known_by_its_own_family(language):
    font = FONTS[language]
    names = TTFont(font.path)["name"]
    assert names.getBestFamilyName() == font.family != font.source  # no system font stands in
    assert "SIL Open Font License" in names.getDebugName(13)
    assert "SIL OPEN FONT LICENSE Version 1.1" in (font.path.parent / "OFL.txt").read_text()


DRAW = textwrap.dedent(
    """
    import sys, warnings
    import matplotlib
    matplotlib.use("Agg")
    {load}
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.set_title({title!r})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fig.canvas.draw()
    print([str(w.message) for w in seen])
    """
)


TITLES = {"zh-CN": "损失：第 1 步", "zh-TW": "損失：第 1 步"}


def draw_chinese(folder: Path, load: str) -> str:
    """What drawing a Chinese title (in the folder's language; zh-CN's in an English folder)
    prints in a fresh process whose folder is ``folder``, after ``load`` (how the kernel
    learns its language)."""
    language = folder_language(folder)
    script = DRAW.format(load=load, title=TITLES.get(language, TITLES["zh-CN"]))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture(params=sorted(FONTS))
def zh_folder(tmp_path, request):
    """A notebook's folder in a Chinese edition (zh-CN, zh-TW)."""
    (tmp_path / "checks.py").write_text(
        "from autogradkit.grading.checks import Checks\ncheck = Checks(__file__)\n"
    )
    (tmp_path / LANGUAGE_FILE).write_text(f"{request.param}\n", encoding="utf-8")
    return tmp_path


def test_a_zh_cn_notebooks_checks_give_its_figures_the_chinese_font(zh_folder):
    assert draw_chinese(zh_folder, "sys.path.insert(0, '.'); import checks") == "[]"


def test_a_zh_cn_folders_widget_words_give_figures_the_chinese_font(zh_folder):
    assert draw_chinese(zh_folder, "from autogradkit._i18n import here; here()") == "[]"


def test_without_the_kits_font_the_same_figure_draws_boxes(zh_folder):
    (zh_folder / LANGUAGE_FILE).unlink()  # an English folder: no font is registered
    printed = draw_chinese(zh_folder, "sys.path.insert(0, '.'); import checks")
    assert "missing from font" in printed
