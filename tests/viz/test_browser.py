"""The viz demo notebook in a real JupyterLab, in headless Chromium: every cell runs, every
widget and figure renders, the stepper answers clicks, and the page logs no JS errors.

It runs on this test process's shared JupyterLab server and Chromium (tests/browser.py). Needs
/usr/bin/chromium and the playwright package (tools/install_browser.sh installs both); skipped,
with the reason, when either is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "notebooks" / "demos" / "viz_demo.ipynb"

pytestmark = [pytest.mark.browser, pytest.mark.slow(17), pytest.mark.needs("chromium")]

COUNTS = {
    ".jp-RenderedSVG": "draw_graph(e) shown through _repr_svg_",
    ".widget-html svg.agk-graph": "the stepper's drawing, inline in its HTML widget",
    ".widget-output img": "explorer and plotter figures written into Output widgets",
    ".jp-OutputArea-output img": "those, the SVG drawing and the bare matplotlib figure",
    ".widget-hprogress": "the progress bar",
}


@pytest.fixture(scope="module")
def report(tmp_path_factory, jupyterlab):
    shot = tmp_path_factory.mktemp("browser") / "viz_demo.png"
    args = [str(DEMO), str(shot), "--fail-on-console-error"]
    args += ["--click", "Step ▶", "--click", "Step ▶"]
    for css in COUNTS:
        args += ["--count", css]
    return {**jupyterlab.check(args), "screenshot": shot}


def test_every_cell_ran_without_error(report):
    assert report["problems"] == [] and report["ok"] and report["exit_code"] == 0
    assert report["cells_ran"] == report["cells"] == 6
    assert report["errors"] == []


def test_every_widget_rendered_live(report):
    assert report["widgets_rendered"] == report["widgets_expected"] == 4


def test_drawings_and_figures_rendered(report):
    counts = report["counts"]
    assert counts[".jp-RenderedSVG"] == 1
    assert counts[".widget-html svg.agk-graph"] == 1
    assert counts[".widget-output img"] == 2
    assert counts[".jp-OutputArea-output img"] == 4
    assert counts[".widget-hprogress"] == 1
    assert report["screenshot"].stat().st_size > 10_000


def test_stepper_buttons_round_trip_through_the_kernel(report):
    assert any(t.startswith("Step 2 of 14: PowBackward0 received") for t in report["widget_texts"])


def test_stepper_shows_the_engines_queue_and_counts_in_the_page(report):
    texts = report["widget_texts"]
    assert any(t.startswith("Ready queue (runs left to right): ") for t in texts)
    drawing = next(t for t in texts if "ran at step 2" in t)  # the SVG's text, as rendered
    assert "ran at step 1" in drawing and "ready #1" in drawing and "waits for" in drawing


def test_no_javascript_errors(report):
    assert report["console_errors"] == [] and report["page_errors"] == []
