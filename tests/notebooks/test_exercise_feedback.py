"""What every exercise's check says to an untouched copy: "not answered yet"."""

from __future__ import annotations

import pytest

from autogradkit._i18n import ENGLISH
from autogradkit.grading import checks
from autogradkit.grading.checks import Check, CheckFailed

from .conftest import ASSIGNMENTS
from .exercises import checks_of

EVERY_CHECK = [
    (assignment, name)
    for assignment in ASSIGNMENTS
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


def test_every_notebook_has_checks():
    assert {assignment for assignment, _ in EVERY_CHECK} == set(ASSIGNMENTS)
