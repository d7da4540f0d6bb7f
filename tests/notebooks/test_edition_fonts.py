"""The Chinese editions' figures draw their Chinese with the kit's own font, on any machine.

Each zh-CN release notebook (and a sample of zh-TW's, conftest.SAMPLED) runs in a copy of its
folder (so the kernel reads the folder's language, as the student's kernel does, and registers
the font the package ships: ``_i18n.use_fonts``), with one cell first that records every text
matplotlib draws (titles, axis labels, legends, the kit's widget figures alike) and, for each
Chinese character, the font matplotlib found for it (``font_manager``, glyph by glyph through
``font.family``). Every Chinese character must come from the shipped subset of Noto Sans CJK,
whatever the machine's fonts, and no cell may print a font warning. The same run with the kit's
fonts taken away must fail both checks, so the check is known to catch boxes. That the subset
holds every character of the edition's texts is tests/test_fonts.py.

The browser side (widgets and pages) is tests/notebooks/test_edition_browser.py.
"""

from __future__ import annotations

import json
import re
import shutil

import nbformat
import pytest

from autogradkit._i18n import FONTS
from autogradkit_instructor.build import execute

from .conftest import COURSE, EDITIONS, HOUSE_STYLE, TRANSLATED, read, release_path, sampled

pytestmark = [pytest.mark.notebook, pytest.mark.slow(25)]

HAN = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")  # ideographs, CJK punctuation
RECORD = """\
import json as _agk_json
import matplotlib.text as _agk_text
from matplotlib import font_manager as _agk_fm

_agk_drawn = []
_agk_draw = _agk_text.Text.draw


def _agk_font_of(character, fonts):
    for path in fonts:
        font = _agk_fm.get_font(path)
        if ord(character) in font.get_charmap():
            return font.family_name
    return None


def _agk_recording_draw(self, renderer):
    text = self.get_text()
    if self.get_visible() and text.strip():
        fonts = _agk_fm.fontManager._find_fonts_by_props(self.get_fontproperties())
        found = {c: _agk_font_of(c, fonts) for c in set(text) if ord(c) > 0x2e7f}
        _agk_drawn.append([text, found])
    return _agk_draw(self, renderer)


_agk_text.Text.draw = _agk_recording_draw
"""
REPORT = "print(_agk_json.dumps(_agk_drawn))"
WITHOUT_THE_KITS_FONTS = "import autogradkit._i18n as _agk_i18n\n_agk_i18n.FONTS.clear()\n"
FONT_WARNING = re.compile(r"findfont|missing from font")


def font_warnings(cells) -> list[str]:
    """What the cells printed on stderr about fonts."""
    outputs = [o for cell in cells for o in cell.get("outputs", [])]
    texts = [o["text"] for o in outputs if o["output_type"] == "stream" and o["name"] == "stderr"]
    return [text for text in texts if FONT_WARNING.search(text)]


def draw_and_record(name: str, folder, language: str, kits_fonts: bool = True) -> dict:
    """Run the ``language`` release of ``name`` in a copy of its folder (without the kit's
    fonts if ``kits_fonts`` is false): the texts drawn, each Chinese character's font, and the
    font warnings."""
    release = release_path(name, language)
    shutil.copytree(release.parent, folder)
    nb = nbformat.read(release, as_version=4)
    first = RECORD if kits_fonts else RECORD + WITHOUT_THE_KITS_FONTS
    nb.cells = [nbformat.v4.new_code_cell(first), *nb.cells, nbformat.v4.new_code_cell(REPORT)]
    execute(nb, folder, timeout=120)  # kernel_env(): inline figures, as in JupyterLab
    drawn = json.loads(nb.cells[-1].outputs[0]["text"])
    fonts = {c: font for _, found in drawn for c, font in found.items() if HAN.match(c)}
    return {
        "chinese_texts": [text for text, _ in drawn if HAN.search(text)],
        "fonts": fonts,
        "warnings": font_warnings(nb.cells),
    }


@pytest.fixture(  # the house style's notebooks, which have figures (a reading of yours may not)
    scope="module",
    params=[(lang, name) for lang in FONTS for name in sampled(lang) if name in HOUSE_STYLE],
    ids="-".join,
)
def release_fonts(request, tmp_path_factory):
    language, name = request.param
    folder = tmp_path_factory.mktemp("fonts") / name
    return {**draw_and_record(name, folder, language), "language": language}


def test_no_stored_output_of_a_release_holds_a_font_warning():
    for language, name in EDITIONS:
        assert font_warnings(read(release_path(name, language)).cells) == [], (language, name)
    assert not list((COURSE / "release").rglob("matplotlibrc"))  # the kit registers its font


def test_figures_carry_chinese_labels(release_fonts):
    assert release_fonts["chinese_texts"], "no figure of the release has Chinese text"


def test_every_chinese_character_in_a_figure_comes_from_the_kits_font(release_fonts):
    fonts = release_fonts["fonts"]
    family = FONTS[release_fonts["language"]].family
    wrong = {c: font for c, font in fonts.items() if font != family}
    assert fonts and not wrong, wrong


def test_no_figure_draws_a_glyph_its_fonts_lack(release_fonts):
    assert release_fonts["warnings"] == []


def test_without_the_kits_font_the_figures_draw_boxes_and_are_caught(tmp_path):
    name = next(n for n in TRANSLATED["zh-CN"] if n in HOUSE_STYLE)  # one with figures
    found = draw_and_record(name, tmp_path / name, "zh-CN", kits_fonts=False)
    assert found["chinese_texts"]
    assert found["warnings"], "matplotlib did not warn of the missing glyphs"
    assert None in found["fonts"].values()  # no font of font.family has them: boxes
