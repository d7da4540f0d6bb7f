"""What every exercise's check says to an untouched copy: "not answered yet"."""

from __future__ import annotations

import pytest

from autogradkit._i18n import ENGLISH
from autogradkit.grading import checks
from autogradkit.grading.checks import Check, CheckFailed

from .conftest import CHECKED, HOUSE_STYLE
from .exercises import checks_of

EVERY_CHECK = [
    (assignment, name)
    for assignment in CHECKED
    for name, value in vars(checks_of(assignment)).items()
    if isinstance(value, Check)
]


@pytest.mark.parametrize(("assignment", "name"), EVERY_CHECK)
def test_a_stub_answer_is_not_answered_yet(assignment, name):
    check = getattr(checks_of(assignment), name)
    record = check.observe(**{answer: ... for answer in check.answers})
    assert record.stopped == {"reason": "not_answered"} and not record.observations
    with pytest.raises(CheckFailed) as shown:  # what the student sees in practice
        checks._show(record, {}, None, ENGLISH)
    assert str(shown.value) == f"✗ {check.title}: not answered yet"


def test_every_notebook_of_the_house_style_has_checks():
    """A house rule: a new assignment of yours may be a reading, with no check."""
    assert set(HOUSE_STYLE) <= {assignment for assignment, _ in EVERY_CHECK}
