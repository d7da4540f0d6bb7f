"""nbgrader ``assert`` test cells judged by the grader, on the values the kernel sends as data.

Each attack below passed when the kernel judged its own ``assert`` cell (seen passing before
``asserts.py``): a patched ``np.isclose`` behind a forged guard report, patched builtins, a
float or list whose ``__eq__`` says yes, a value whose ``tolist`` lies, a tensor subclass.
Every test grades a small notebook with the grading steps in a sandboxed kernel.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autogradkit_instructor import asserts
from autogradkit_instructor.cli import main
from autogradkit_instructor.steps import CollectResults, Execute, Score

from . import builders
from .helpers import code, notebook

SETUP = "import numpy as np\nimport autogradkit as agk"
FORGED_GUARD = (  # the guard's reset replaced by one that reports nothing, as round 6 did
    "import sys\nsys.modules['autogradkit.grading.guard'].reset = lambda: []\n"
)


def _grade(ctx, answer: str, test: str):
    """Grade a notebook of a setup cell, one answer cell and one test cell (2 points)."""
    nb = notebook(
        code(SETUP, grade_id="setup", locked=True),
        code(answer, grade_id="answer", solution=True),
        code(test, grade_id="test", grade=True, locked=True, points=2),
    )
    ctx.source = json.loads(json.dumps(nb))
    for step in (Execute(), CollectResults(), Score()):
        nb = step(nb, ctx)
    return ctx.results["test"]


ATTACKS = {
    "isclose_patched_guard_forged": (
        FORGED_GUARD + "np.isclose = lambda *args, **kwargs: True\nanswer = 2.0",
        "assert np.isclose(answer, 3.0)",
    ),
    "testing_patched_guard_forged": (  # a cell of numpy.testing calls, without an assert
        FORGED_GUARD + "np.testing.assert_allclose = lambda *args, **kwargs: None\n"
        "answer = np.zeros(2)",
        "np.testing.assert_allclose(answer, [2.0, 4.0])",
    ),
    "builtins_patched_guard_forged": (
        FORGED_GUARD + "import builtins\nbuiltins.abs = lambda x: 0.0\nanswer = 2.0",
        "assert abs(answer - 3.0) < 1e-6",
    ),
    "assertion_error_caught": (  # an exception handler that swallows the test's failure
        FORGED_GUARD
        + "get_ipython().set_custom_exc((AssertionError,), lambda *args, **kwargs: None)\n"
        + "answer = 2.0",
        "assert answer == 3.0",
    ),
    "float_subclass_eq": (
        "class Yes(float):\n    def __eq__(self, other):\n        return True\n"
        "    __hash__ = float.__hash__\nanswer = Yes(2.0)",
        "assert answer == 3.0",
    ),
    "list_subclass_eq": (
        "class Yes(list):\n    def __eq__(self, other):\n        return True\ngrads = Yes([0.0])",
        "assert grads == [2.0, 4.0]",
    ),
    "tolist_lies": (
        "class Yes(list):\n    def __eq__(self, other):\n        return True\n"
        "class Liar:\n    def tolist(self):\n        return Yes()\nanswer = Liar()",
        "assert answer.tolist() == [2.0, 4.0]",
    ),
    "tensor_subclass": (
        "class Fake(type(agk.tensor(0.0))):\n    def tolist(self):\n        return [2.0, 4.0]\n"
        "answer = agk.tensor([0.0, 0.0])\nanswer.__class__ = Fake",
        "assert answer.tolist() == [2.0, 4.0]",
    ),
    "grad_subclass": (
        "x = agk.tensor([1.0, 2.0], requires_grad=True)\n(x * 0).sum().backward()\n"
        "class Fake(type(x)):\n    def tolist(self):\n        return [2.0, 4.0]\n"
        "x.grad.__class__ = Fake",
        "assert x.grad.tolist() == [2.0, 4.0]",
    ),
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_attack_on_an_assert_cell_earns_nothing(ctx, attack):
    answer, test = ATTACKS[attack]
    result = _grade(ctx, answer, test)
    assert (result.status, result.points) == ("failed", 0.0), result


HONEST = {
    "float": ("answer = 1.5 * 2", "assert np.isclose(answer, 3.0)"),
    "int": ("count = 3", "assert count == 3 and isinstance(count, int)"),
    "list": ("values = [1.0, 2.0]", "expected = [1.0, 2.0]\nassert values == expected"),
    "ndarray": (
        "answer = np.arange(6, dtype=np.float32).reshape(2, 3)",
        "assert answer.shape == (2, 3) and answer.dtype == np.float32\n"
        "np.testing.assert_allclose(answer.sum(axis=0), [3.0, 5.0, 7.0])",
    ),
    "tensor": (
        "answer = agk.tensor([[1.0, 2.0]])",
        "assert answer.shape == (1, 2)\nassert answer.tolist() == [[1.0, 2.0]]",
    ),
    "tensor_grad": (
        "x = agk.tensor([1.0, 2.0], requires_grad=True)\n(x * x).sum().backward()",
        "assert x.requires_grad\nassert x.grad.tolist() == [2.0, 4.0]\n"
        "assert np.allclose(x.grad.numpy(), [2.0, 4.0])",
    ),
    "nested": (
        "result = {'loss': np.float64(0.25), 'shapes': [(2, 3), (3,)], 'ok': True}",
        "import math\nassert result['ok'] is True\nassert result['shapes'][1] == (3,)\n"
        "assert math.isclose(result['loss'], 0.25)",
    ),
    "nan": ("answer = float('nan')", "assert np.isnan(answer)"),
    "imported_functions": (
        "answer = [2.0, 4.0]",
        "from math import isclose\nfrom numpy.testing import assert_allclose\n"
        "assert isclose(answer[0], 2.0)\nassert_allclose(answer, [2.0, 4.0])",
    ),
    "set": ("answer = {3, 1, 2}", "assert answer == {1, 2, 3}\nassert sorted(answer) == [1, 2, 3]"),
}


@pytest.mark.parametrize("kind", HONEST)
def test_an_honest_answer_passes_an_assert_cell_judged_here(ctx, kind):
    answer, test = HONEST[kind]
    result = _grade(ctx, answer, test)
    assert (result.status, result.points) == ("passed", 2.0), result
    assert "test" in ctx.judged_here


def test_a_wrong_answer_fails_with_the_asserts_message(ctx):
    result = _grade(ctx, "answer = 2.0", 'assert np.isclose(answer, 3.0), "answer should be 3"')
    assert (result.status, result.error) == ("failed", "AssertionError: answer should be 3")
    assert not ctx.review


def test_a_value_that_is_not_data_fails_without_its_chosen_name(ctx):
    answer = "class NotAnAnswer:\n    pass\nanswer = NotAnAnswer()"
    result = _grade(ctx, answer, "assert answer == 3.0")
    assert result.status == "failed" and result.error.startswith("TypeError: the grader")
    assert "NotAnAnswer" not in result.error


def test_a_large_array_crosses_in_parts(ctx):
    answer = "weights = np.full((400, 300), 0.5)"  # 960,000 bytes: seven records' worth
    test = "assert weights.shape == (400, 300)\nassert np.allclose(weights, 0.5)"
    result = _grade(ctx, answer, test)
    assert (result.status, result.points) == ("passed", 2.0), result


def test_an_array_larger_than_the_grader_takes_fails_and_says_so(ctx):
    result = _grade(ctx, "weights = np.zeros((1000, 1000))", "assert weights.shape == (1000, 1000)")
    assert result.status == "failed" and "(a too large)" in result.error, result


def test_a_range_as_long_as_an_answer_says_is_refused_not_run(ctx):
    result = _grade(ctx, "n = 10**15", "assert sum(range(n)) > 0")
    assert result.status == "failed" and "too long for the grader" in result.error, result


def test_a_power_as_large_as_an_answer_says_fails_its_cell_not_the_run(ctx, monkeypatch):
    """Was: ``3 ** n`` with the answer ``n = 10**300`` ran in the grader's own process,
    holding the GIL (every other submission's thread waited) until someone killed grade."""
    monkeypatch.setattr(asserts, "JUDGE_CPU_SECONDS", 1)
    result = _grade(ctx, "n = 10**300", "assert 3 ** n != 0")
    assert result.status == "failed" and "JudgeLimitError" in result.error, result


def test_memory_as_large_as_an_answer_says_fails_its_cell(ctx, monkeypatch):
    """``"x" * n`` with ``n`` at 8 GiB: held to ``JUDGE_MEMORY`` more than the grader's own."""
    monkeypatch.setattr(asserts, "JUDGE_MEMORY", 64 << 20)
    result = _grade(ctx, "n = 8 * 2**30", 'assert len("x" * n) == n')
    assert result.status == "failed" and "MemoryError" in result.error, result


def test_the_graders_other_threads_run_while_a_cell_is_judged(monkeypatch):
    """The statements run in a fork: this process's threads (other submissions) go on."""
    monkeypatch.setattr(asserts, "JUDGE_CPU_SECONDS", 1)
    the_plan = asserts.plan("assert 3 ** n != 0", {})
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.wait(0.01):
            ticks.append(1)

    ticker = threading.Thread(target=tick)
    ticker.start()
    sent = {"part": 0, "parts": 1, "json": json.dumps({"int": str(10**300)})}
    record = {"check": asserts.VALUES_CHECK, "observations": [{"name": "n", "value": sent}]}
    records = [asserts.Record.from_json(record)]
    try:
        outputs = asserts.judge(the_plan, records)
    finally:
        stop.set()
        ticker.join()
    assert outputs[0]["ename"] == "JudgeLimitError" and len(ticks) > 20, (outputs, len(ticks))


def test_a_missing_answer_fails_as_in_the_kernel(ctx):
    result = _grade(ctx, "pass", "assert answer == 3.0")
    assert (result.status, result.error) == ("failed", "NameError: name 'answer' is not defined")


def test_partial_credit_is_computed_here(ctx):
    test = "points = np.float64(0.0)\nassert answer > 0\npoints += 1.5\npoints"
    result = _grade(ctx, "answer = 2.0", test)
    assert (result.status, result.points) == ("partial", 1.5)
    assert "test" in ctx.judged_here


def test_a_cell_of_numpy_testing_calls_is_judged_here(ctx):
    result = _grade(ctx, "answer = np.zeros(2)", "np.testing.assert_allclose(answer, [2.0, 4.0])")
    assert (result.status, result.error.split(":")[0]) == ("failed", "AssertionError")
    assert "test" in ctx.judged_here


def test_a_cell_that_calls_a_student_function_stays_with_the_kernel(ctx):
    result = _grade(ctx, "def square(x):\n    return x * x", "assert square(3) == 9")
    assert (result.status, result.points) == ("passed", 2.0)
    assert "test" not in ctx.judged_here


def test_values_sent_twice_fail_the_cell_for_review(ctx):
    forged = (  # the student's answer sends a record of the grader's kind at every display
        "from IPython.display import display\nfrom autogradkit.grading.observations import MIME\n"
        "_shown = display.__globals__['publish_display_data']\n"
        f"_record = {{'check': {asserts.VALUES_CHECK!r}, 'title': '', "
        "'observations': [{'name': 'answer', 'value': "
        "{'part': 0, 'parts': 1, 'json': '{\"float\": \"3.0\"}'}}]}\n"
        "def _twice(data, *args, **kwargs):\n"
        "    _shown({MIME: _record})\n    return _shown(data, *args, **kwargs)\n"
        "display.__globals__['publish_display_data'] = _twice\n" + FORGED_GUARD + "answer = 2.0"
    )
    result = _grade(ctx, forged, "assert answer == 3.0")
    assert (result.status, result.points) == ("failed", 0.0), result
    assert any("sent answer twice" in note for note in ctx.review), ctx.review


def test_plan_refuses_what_is_not_data():
    np_names = {"np": "numpy"}
    assert asserts.plan("assert x.grad_fn is not None", np_names) is None
    assert asserts.plan("assert np.load(path) == 1", np_names) is None
    assert asserts.plan("for i in range(3):\n    assert i < 3", np_names) is None
    assert asserts.plan("assert (lambda: True)()", np_names) is None
    assert asserts.plan("assert checks.ok", {"checks": "checks"}) is None
    assert asserts.plan("assert rand() < 1", {"rand": "numpy.random.rand"}) is None
    assert asserts.plan("assert np.random.rand() < 1", np_names) is None


@pytest.mark.parametrize(
    "value",
    [
        {"int": "1" * 1000},
        {"float": "1e5; import os"},
        {"ndarray": {"dtype": "|O8", "shape": [1], "bytes": ""}},
        {"ndarray": {"dtype": "<f8", "shape": [10**9, 10**9], "bytes": ""}},
        {"ndarray": {"dtype": "<f8", "shape": [2], "bytes": "AAAA"}},
        {"ndarray": {"dtype": "<i3", "shape": [1], "bytes": "AAAA"}},
        {"tensor": {"data": None, "requires_grad": True, "grad": None}},
        {"dict": [[{"list": []}, 1]]},
        {"pickle": "gASVAAAA"},
        {"opaque": ["a list, which no set can hold"]},
        {"set": [{"list": []}]},
        [1, 2],
    ],
)
def test_decode_refuses_what_the_kernel_should_not_send(value):
    with pytest.raises(ValueError):
        asserts.decode(value)


def test_grade_names_each_cell_judged_by_the_kernel_once(tmp_path, sandbox):
    """The squares course's partial-credit cell calls the student's ``mse``: only the
    kernel can judge it, and ``grade`` says so once, whatever the number of submissions."""
    builders.write_course(tmp_path)
    submitted = tmp_path / "submitted"
    for student in ("ann", "bob"):
        builders.write_submission(submitted, student, "correct")
    errors = io.StringIO()
    args = ["grade", str(submitted), "--assignment", "hw1", "--course", str(tmp_path)]
    with contextlib.redirect_stderr(errors):
        assert main([*args, "--no-progress", "-j", "2"]) == 0
    warnings = [line for line in errors.getvalue().splitlines() if "judged by" in line]
    assert len(warnings) == 1 and "test_mse" in warnings[0], errors.getvalue()


LOSS_TEST = (
    'assert np.isclose(loss_value, 2.0), "loss_value should be the mse of the example"\n'
    "### BEGIN HIDDEN TESTS\nassert loss_value > 1.5\n### END HIDDEN TESTS"
)


def _course_with_an_assert_cell():
    """The squares notebook plus an answer stored in a name and a plain assert cell of 4
    points about it (with a hidden assert)."""
    nb = _squares()
    nb.cells += [
        builders._code(
            "### BEGIN SOLUTION\nloss_value = 2.0\n### END SOLUTION",
            grade_id="answer_loss",
            solution=True,
        ),
        builders._code(LOSS_TEST, grade_id="test_loss", grade=True, locked=True, points=4),
    ]
    return nb


_squares = builders.source_notebook


def test_grade_judges_an_assert_cell_end_to_end(tmp_path, sandbox, monkeypatch):
    """``grade`` (references, restored and hidden tests, the sandbox) of an honest answer,
    a wrong one, and a wrong one behind a patched np.isclose and a forged guard report."""
    monkeypatch.setattr(builders, "source_notebook", _course_with_an_assert_cell)
    builders.write_course(tmp_path)
    answers = {
        "honest": "loss_value = ((np.array([1.0, 2.0]) - np.array([1.0, 4.0])) ** 2).mean()",
        "wrong": "loss_value = 4.0",
        "attacker": FORGED_GUARD + "np.isclose = lambda *args, **kwargs: True\nloss_value = 4.0",
    }
    for student, answer in answers.items():
        nb = builders.correct(json.loads(json.dumps(builders.student_version())))
        builders._answer(nb, "answer_loss", answer)
        path = tmp_path / "submitted" / student / "hw1" / "squares.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(nb))
    args = ["grade", str(tmp_path / "submitted"), "--assignment", "hw1"]
    with contextlib.redirect_stderr(io.StringIO()):
        assert main([*args, "--course", str(tmp_path), "--no-progress", "-j", "2"]) == 0
    book = json.loads((tmp_path / "grades" / "hw1" / "gradebook.json").read_text())
    scores = {row["student"]: row["tests"]["test_loss"]["points"] for row in book["rows"]}
    assert scores == {"honest": 4.0, "wrong": 0.0, "attacker": 0.0}, book["rows"]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["int", "float", "list", "tuple", "set", "dict", "ndarray", "scalar"])
            | st.sampled_from(["tensor", "opaque", "dtype", "shape", "bytes", "data", "grad"])
            | st.text(max_size=4),
            inner,
            max_size=3,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_decode_raises_only_value_error_whatever_the_kernel_sends(value):
    try:
        asserts.decode(value)
    except ValueError:
        pass
