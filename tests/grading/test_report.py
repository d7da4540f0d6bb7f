"""report.py: gradebook files and feedback pages."""

from __future__ import annotations

from pathlib import Path

from autogradkit_instructor.config import GradingConfig
from autogradkit_instructor.context import CellResult, Context
from autogradkit_instructor.report import feedback_html, make_row, scrub


def _ctx() -> Context:
    ctx = Context(GradingConfig(command="grade"), Path("alice.ipynb"), Path("."))
    ctx.results["t1"] = CellResult(
        "t1", 2.0, 0.0, "failed", ["✗ f: <hint>"], "NameError: name 'secret_helper' is not defined"
    )
    ctx.hidden = ["check(secret_helper(3))"]
    ctx.fail("timeout", "t1: this cell ran longer than 3 s and was interrupted")
    return ctx


def test_scrub_hides_any_hidden_line():
    assert scrub("x check(secret_helper(3)) y", ["a = 1\ncheck(secret_helper(3))"]) == (
        "x [hidden test] y"
    )


def test_feedback_is_escaped_and_shows_score_status_and_hints():
    ctx = _ctx()
    row = make_row(
        ctx, student="alice", assignment="hw1", notebook="n", seconds=1.0, digest="d", max_score=2.0
    )
    page = feedback_html(row, ctx)
    assert "Score: 0 / 2" in page and "✗ f: &lt;hint&gt;" in page
    assert "ran for too long" in page and "<hint>" not in page
