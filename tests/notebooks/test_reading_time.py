"""Each Chinese notebook states the time it takes, measured from its own Chinese text.

The English edition's **Time:** line is a house rule (autogradkit_instructor/house_style.py); the
same formula, reading a Chinese text's characters (house_style.reading_minutes), gives the
**用时** line of each zh-CN notebook. A failure prints the line to paste into NN.zh-CN.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from autogradkit_instructor import house_style, translate

from .conftest import HOUSE_STYLE

SOURCE = Path(__file__).resolve().parents[2] / "notebooks" / "source"
TIME = re.compile(
    r"\*\*用时\*\*：约\s*(?P<total>(?:\d+\s*小时\s*)?(?:\d+\s*分钟)?)："
    r"阅读并运行单元格\s*(?P<reading>\d+)\s*分钟，做练习\s*(?P<exercises>\d+)\s*分钟"
)
# the **用时** line is the house style's **Time:** line: a new assignment need not have one
TRANSLATED = [name for name in HOUSE_STYLE if (SOURCE / name / f"{name}.zh-CN.md").is_file()]


def chinese(assignment: str):
    source = SOURCE / assignment / f"{assignment}.ipynb"
    sections = translate.read_sections(source.with_suffix(".zh-CN.md"))
    nb = nbformat.read(source, as_version=4)
    return nbformat.from_dict(translate.translate_notebook(nb, sections, "zh-CN"))


def line(reading: int, exercises: int) -> str:
    hours, minutes = divmod(reading + exercises, 60)
    total = " ".join(
        ([f"{hours} 小时"] if hours else []) + ([f"{minutes} 分钟"] if minutes else [])
    )
    return f"**用时**：约 {total}：阅读并运行单元格 {reading} 分钟，做练习 {exercises} 分钟"


def test_chinese_text_is_read_by_its_characters():
    english = house_style.reading_minutes("the gradient of the loss " * 30)
    chinese_text = house_style.reading_minutes(
        "损失的梯度" * 50
    )  # the same sentence, 250 characters
    assert english == 1.0 and chinese_text == 1.0


@pytest.mark.parametrize("assignment", TRANSLATED)
def test_the_chinese_time_is_measured_from_the_chinese_text(assignment):
    nb = chinese(assignment)
    want = house_style.estimate(nb)
    found = TIME.search(nb.cells[0].source)
    assert found, f"{assignment}: no 用时 line in the first cell; paste: {line(*want)}"
    stated = int(found["reading"]), int(found["exercises"])
    hours = re.search(r"(\d+) 小时", found["total"])
    minutes = re.search(r"(\d+) 分钟", found["total"])
    total = 60 * int(hours[1] if hours else 0) + int(minutes[1] if minutes else 0)
    assert total == sum(stated), f"{assignment}: the total is not the sum of its parts"
    for have, need in zip(stated, want):
        assert abs(have - need) <= max(5, 0.2 * need), f"{assignment}: paste: {line(*want)}"
