"""Arrowheads in a real browser: a drawing placed below others shows its own.

A browser takes the first definition of an id on the page. When every drawing defined the
same marker ids, a drawing below another one drew its arrowheads from the first definition,
and none at all when that one sat in a hidden (scrolled-away) cell: 05's stepper once showed
arrows without heads. Here the first drawing is hidden, and the one below must still differ
from the same drawing with its arrowheads taken out.

In this test process's shared Chromium (tests/browser.py), a fresh context for each page. Needs
/usr/bin/chromium and the playwright package (tools/install_browser.sh installs both); skipped,
with the reason, when either is missing.
"""

from __future__ import annotations

import io
import re

import matplotlib.image
import numpy as np
import pytest

import autogradkit as agk
from autogradkit.viz import draw_graph

from . import examples

pytestmark = [pytest.mark.browser, pytest.mark.needs("chromium")]


def _page(*drawings: str) -> str:
    hidden, *shown = drawings
    cells = [f'<div style="display:none">{hidden}</div>'] + [f"<div>{d}</div>" for d in shown]
    return "<html><body style='margin:0;background:#fff'>" + "".join(cells) + "</body></html>"


def _pixels_of_last_drawing(browser, html: str):
    context = browser.new_context(viewport={"width": 900, "height": 1400})  # a fresh page
    try:
        page = context.new_page()
        page.set_content(html)
        png = page.locator("svg").last.screenshot()
    finally:
        context.close()
    return matplotlib.image.imread(io.BytesIO(png), format="png")


def test_a_drawing_below_a_hidden_one_draws_its_own_arrowheads(chromium):
    v = examples.article_002()
    hidden = draw_graph(v["c"], names=v).svg()
    x = agk.tensor(1.5, requires_grad=True)
    below = draw_graph(x.exp().sin(), names={"x": x}).svg()
    headless = re.sub(r' marker-end="[^"]*"', "", below)
    with_heads = chromium.run(_pixels_of_last_drawing, _page(hidden, below))
    without_heads = chromium.run(_pixels_of_last_drawing, _page(hidden, headless))
    assert with_heads.shape == without_heads.shape
    changed = np.abs(with_heads - without_heads).max(axis=-1) > 0.2
    assert changed.sum() >= 3 * 10  # three arrowheads of about 7 by 7 pixels
