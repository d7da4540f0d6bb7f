"""The Chinese editions in a real JupyterLab, in headless Chromium on a desktop set to their
language: the release notebooks that hold the kit's widgets and drawings run (zh-CN's all, and
zh-TW's stepper, 05: its other widgets are zh-CN's, in other characters), their widgets render
and speak Chinese, and no character of the notebook (prose, outputs, widgets, SVG drawings)
fell back to a box.

``tools/browser_check.py --glyphs --locale zh-CN`` asks Chromium which font drew each text
and reads those fonts' character maps. Figures are PNGs, whose labels the browser cannot
read: tests/notebooks/test_edition_fonts.py checks them on matplotlib's side. The screenshot
of each run is kept in the test's temporary folder (its path is in the failure message).

Needs /usr/bin/chromium and playwright (tools/install_browser.sh) and Noto Sans CJK as a
system font (tools/install_fonts.sh); skipped, with the reason, without them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from autogradkit._i18n import FONTS, catalog
from autogradkit_instructor.translate import kit_messages

from .conftest import ROOT, TRANSLATED, release_path

CHECK = ROOT / "tools" / "browser_check.py"
HAN = re.compile(r"[\u4e00-\u9fff]")
NO_FONT_HAS_IT = "\U00010600"  # LINEAR A SIGN AB001: no font the kit installs has it
# the viz messages whose Chinese replaces the English words (not those that keep an
# identifier, "AccumulateGrad（梯度累加器）", nor punctuation), as the English reads
VIZ_ENGLISH = sorted(
    {
        msgid
        for msgid, path, _ in kit_messages()
        if path.startswith("viz/")
        and "{" not in msgid
        and re.search("[A-Za-z]", msgid)
        and msgid not in catalog("zh-CN")(msgid)
    }
)

# Chromium draws Chinese with a font of the system's (fontconfig's), which a fresh machine lacks
pytestmark = [pytest.mark.browser, pytest.mark.slow(64), pytest.mark.needs("chromium", "cjk_font")]


def glyph_check(notebook: Path, shot: Path, language: str = "zh-CN") -> list[str]:
    """browser_check.py's options for ``notebook`` in a ``language`` desktop, with the glyphs
    checked."""
    args = [str(notebook), str(shot), "--glyphs", "--locale", language]
    return [*args, "--fail-on-console-error"]


def browser_check_command(args: list[str]) -> dict:
    """The JSON report of ``tools/browser_check.py ARGS --json``, run as a command (its own
    server and browser), its exit code added."""
    command = [sys.executable, str(CHECK), *args, "--json"]
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=400, env=env, cwd=ROOT)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"browser_check printed no JSON (exit {done.returncode}):\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    return {**report, "exit_code": done.returncode}


# every kit widget and drawing once (a browser run costs about 20 s): the tangent explorer,
# the training explorer, the function plotter, the stepper with its drawing, tqdm's bar and
# graph figures. The other notebooks' figures are checked by test_edition_fonts.py, and their
# prose uses the same fonts.
BROWSED = ["00_start_here", "01_backprop_by_hand", "03_nonscalar_leaves_jacobians"]
BROWSED += ["05_inside_grad_fn", "07_capstone"]
EDITIONS = [("zh-CN", name) for name in BROWSED] + [("zh-TW", "05_inside_grad_fn")]


def test_the_browsed_notebooks_hold_every_kit_widget():
    imported = set()
    for name in TRANSLATED["zh-CN"]:
        text = (ROOT / "notebooks/source" / name / f"{name}.py").read_text(encoding="utf-8")
        found = set(re.findall(r"from autogradkit\.viz import ([\w, ]+)", text))
        names = {n.strip() for group in found for n in group.split(",")}
        imported |= {(n, name in BROWSED) for n in names}
    assert {n for n, browsed in imported} == {n for n, browsed in imported if browsed}
    assert set(BROWSED) <= set(TRANSLATED["zh-CN"])


@pytest.fixture(scope="module")
def reports(tmp_path_factory, jupyterlab) -> dict[tuple[str, str], dict]:
    """Each edition's check, two at a time (a check mostly waits for its kernel and page)."""
    shots = tmp_path_factory.mktemp("edition")

    def check(edition: tuple[str, str]) -> dict:
        language, name = edition
        shot = shots / f"{name}.{language}.png"
        found = jupyterlab.check(glyph_check(release_path(name, language), shot, language))
        return {**found, "language": language, "screenshot": shot}

    with ThreadPoolExecutor(2, thread_name_prefix="edition") as checks:
        return dict(zip(EDITIONS, checks.map(check, EDITIONS)))


@pytest.fixture(scope="module", params=EDITIONS, ids="-".join)
def report(request, reports):
    return reports[request.param]


def test_every_cell_runs_and_every_widget_renders(report):
    assert report["problems"] == [] and report["ok"] and report["exit_code"] == 0, report
    assert report["cells_ran"] == report["cells"] and report["errors"] == []
    assert report["widgets_rendered"] == report["widgets_expected"]
    assert report["console_errors"] == [] and report["page_errors"] == []


def untranslated(text: str) -> list[str]:
    """The kit's viz messages (those Chinese words replace) left in English in ``text``."""
    return [m for m in VIZ_ENGLISH if re.search(rf"(?<![\w.]){re.escape(m)}(?![\w(])", text)]


def test_the_widgets_speak_chinese(report):
    texts = report["widget_texts"] + report["widget_labels"]
    worded = [t for t in texts if HAN.search(t) or re.search(r"[A-Za-z]{3,}", t)]
    if worded:  # a widget that says something (not only "x" or "f") says it in Chinese
        assert any(HAN.search(text) for text in worded), worded
    assert [u for t in texts for u in untranslated(t)] == []
    assert HAN.search(report["text_characters"])  # the prose, at least


def test_no_character_fell_back_to_a_box(report):
    assert report["missing_glyphs"] == "", f"screenshot: {report['screenshot']}"
    assert report["font_warnings"] == []


def test_chinese_is_drawn_with_the_editions_noto_sans_cjk(report):
    region = FONTS[report["language"]].source.split()[-1]  # SC, TC
    cjk = {font for font in report["fonts"] if "CJK" in font}
    assert cjk and all(font.endswith(f" {region}") for font in cjk), report["fonts"]


def test_the_screenshot_is_kept(report):
    assert report["screenshot"].stat().st_size > 10_000


def test_the_glyph_check_fails_on_a_character_no_font_has(tmp_path):
    nb = nbformat.v4.new_notebook()
    # a kernel named, so JupyterLab asks nothing (a late "Select Kernel" dialog on a busy
    # machine would outlast the wait for the kernel)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_markdown_cell(f"# 张量与 Linear A {NO_FONT_HAS_IT}")]
    nbformat.write(nb, tmp_path / "boxes.ipynb")
    # the command a person runs, end to end: its own server and browser, its exit code
    found = browser_check_command(glyph_check(tmp_path / "boxes.ipynb", tmp_path / "boxes.png"))
    assert not found["ok"] and found["exit_code"] == 1
    assert found.get("missing_glyphs") == NO_FONT_HAS_IT, found
    assert "张" in found["text_characters"] and "张" not in found["missing_glyphs"]
