"""Round 6 of issue 29's principle: routes around the mechanism that rounds 1-5 left open.

Each attack below is a whole answer a student who wants the marks without the lesson could
hand in. Each was seen passing first, judged as ``grade`` judges, then closed by a principle,
never by a list of its names:

* **The record of what ran, emptied by the answer that ran it**: an answer that runs in the
  kernel runs beside the check's own record of it. 04 ex4's step made with a kept ``SGD``,
  then ``builtins.sorted`` swapped for a function that puts itself back on its first call (the
  one ``kit_calls`` makes to write its list), or the profiler's set of seen functions cleared,
  passed on every seed. Whatever the kernel computes after the answer ran can be changed by
  it. So the step does not run there: it runs, with the check's trial around it, in an
  interpreter that has the kit but never imported its optimizers (``obs.without``), and what
  comes back is data.
"""

from __future__ import annotations

import builtins
import sys

import pytest

import autogradkit as agk

from .exercises import assert_passes, assert_refused, checks_of, solution

KEPT_SGD = agk.optim.SGD  # kept before the check, as a notebook cell may


def _reference(notebook: str, *grade_ids: str, **namespace) -> dict:
    found = {}
    for grade_id in grade_ids:
        found.update(solution(notebook, grade_id, **namespace))
    return found


# ----- the record of what ran, emptied by the answer ------------------------------------------
def step_then_sorted_once_empty(w, lr):  # 04 ex4
    KEPT_SGD([w], lr=lr).step()
    w.grad = None
    real = builtins.sorted

    def sorted_once(*args, **kwargs):  # kit_calls' first sorted() after the answer
        builtins.sorted = real
        return []

    builtins.sorted = sorted_once


def step_then_profile_cleared(w, lr):
    KEPT_SGD([w], lr=lr).step()
    w.grad = None
    for cell in sys.getprofile().__closure__ or ():
        if isinstance(cell.cell_contents, set):
            cell.cell_contents.clear()  # what kit_calls saw so far


@pytest.mark.parametrize("shortcut", [step_then_sorted_once_empty, step_then_profile_cleared])
@pytest.mark.parametrize("check_name", ["step_in_place", "steps_train"])
def test_04_a_kept_optimizer_that_empties_the_record_is_refused(shortcut, check_name):
    notebook = "04_inplace_data_detach"
    check = getattr(checks_of(notebook), check_name)
    reference = _reference(notebook, "nb04_ex4_sgd_step")
    kept = builtins.sorted
    try:
        assert_refused(check, reference, "", sgd_step=shortcut)
    finally:
        builtins.sorted = kept
    assert_passes(check, reference)


def step_with_an_import_inside(w, lr):
    from autogradkit.optim import SGD

    SGD([w], lr=lr).step()
    w.grad = None


def step_with_the_optimizers_source(w, lr):
    import importlib.util
    import os

    folder = os.path.join(os.path.dirname(agk.__file__), "optim")
    spec = importlib.util.spec_from_file_location("copied", os.path.join(folder, "sgd.py"))
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def step_with_a_found_subclass(w, lr):
    found = [c for c in object.__subclasses__() if c.__name__ == "Optimizer"]
    sgd = next(c for c in found[0].__subclasses__() if c.__name__ == "SGD")
    sgd([w], lr=lr).step()
    w.grad = None


@pytest.mark.parametrize(
    "shortcut",
    [step_with_an_import_inside, step_with_the_optimizers_source, step_with_a_found_subclass],
)
def test_04_the_optimizers_are_not_there_by_any_route(shortcut):
    notebook = "04_inplace_data_detach"
    check = checks_of(notebook).step_in_place
    reference = _reference(notebook, "nb04_ex4_sgd_step")
    assert_refused(check, reference, "", sgd_step=shortcut)
