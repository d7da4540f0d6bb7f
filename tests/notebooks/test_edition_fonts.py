"""The zh-CN edition's figures draw their Chinese with a CJK font.

Each zh-CN release notebook runs in a copy of its folder (so matplotlib reads the release's
``matplotlibrc``, as the student's kernel does), with one cell first that records every text
matplotlib draws (titles, axis labels, legends, the kit's widget figures alike) and, for each
Chinese character, the font matplotlib found for it (``font_manager``, glyph by glyph through
the rc file's families). Every Chinese character must come from Noto Sans CJK and no cell may
print matplotlib's "missing from font" warning. The same run with a ``matplotlibrc`` that
names no CJK font must fail both checks, so the check is known to catch boxes.

The browser side (widgets and pages) is tests/notebooks/test_edition_browser.py.
"""

from __future__ import annotations

import json
import re
import shutil

import nbformat
import pytest

from autogradkit._i18n import FONTS
from autogradkit.grading.build import execute

from .conftest import TRANSLATED, release_path

pytestmark = [pytest.mark.notebook]

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
NO_CJK_RC = "font.family: DejaVu Sans\n"
CJK_FONT = re.compile(r"Noto Sans (Mono )?CJK SC")


def draw_and_record(name: str, folder, matplotlibrc: str | None = None) -> dict:
    """Run the zh-CN release of ``name`` in a copy of its folder (with ``matplotlibrc``
    instead of the release's, if given): the texts drawn, each Chinese character's font, and
    the warnings of glyphs missing from the fonts."""
    release = release_path(name, "zh-CN")
    shutil.copytree(release.parent, folder)
    if matplotlibrc is not None:
        (folder / "matplotlibrc").write_text(matplotlibrc, encoding="utf-8")
    nb = nbformat.read(release, as_version=4)
    nb.cells = [nbformat.v4.new_code_cell(RECORD), *nb.cells, nbformat.v4.new_code_cell(REPORT)]
    execute(nb, folder, timeout=120)  # kernel_env(): inline figures, as in JupyterLab
    drawn = json.loads(nb.cells[-1].outputs[0]["text"])
    streams = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "stream"]
    warnings = [o["text"] for o in streams if o["name"] == "stderr"]
    fonts = {c: font for _, found in drawn for c, font in found.items() if HAN.match(c)}
    return {
        "chinese_texts": [text for text, _ in drawn if HAN.search(text)],
        "fonts": fonts,
        "warnings": [w for w in warnings if "missing from font" in w],
    }


@pytest.fixture(scope="module", params=TRANSLATED["zh-CN"])
def release_fonts(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fonts") / request.param
    return draw_and_record(request.param, folder)


def test_the_release_names_a_cjk_font_for_matplotlib():
    for name in TRANSLATED["zh-CN"]:
        rc = (release_path(name, "zh-CN").parent / "matplotlibrc").read_text(encoding="utf-8")
        assert all(font in rc for font in FONTS["zh-CN"]), name


def test_figures_carry_chinese_labels(release_fonts):
    assert release_fonts["chinese_texts"], "no figure of the zh-CN release has Chinese text"


def test_every_chinese_character_in_a_figure_comes_from_noto_sans_cjk(release_fonts):
    fonts = release_fonts["fonts"]
    wrong = {c: font for c, font in fonts.items() if not CJK_FONT.match(font or "")}
    assert fonts and not wrong, f"{wrong} (no Noto Sans CJK? run tools/install_fonts.sh)"


def test_no_figure_draws_a_glyph_its_fonts_lack(release_fonts):
    assert release_fonts["warnings"] == []


def test_a_matplotlibrc_without_a_cjk_font_draws_boxes_and_is_caught(tmp_path):
    name = TRANSLATED["zh-CN"][0]
    found = draw_and_record(name, tmp_path / name, matplotlibrc=NO_CJK_RC)
    assert found["chinese_texts"]
    assert found["warnings"], "matplotlib did not warn of the missing glyphs"
    assert None in found["fonts"].values()  # no font of the rc file has them: boxes
