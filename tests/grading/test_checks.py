"""The check API: checks observe; practice compares with recorded answers; grading only reports.

Judging (``observations.judge``) runs in the grader's process, so it is tested here as plain
data in, words out; its words never quote the student's value.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.grading import checks
from autogradkit.grading.checks import (
    CheckFailed,
    Checks,
    expected_text,
    public_expected,
    read_expected,
)
from autogradkit.grading.observations import (
    Observation,
    Record,
    encode,
    judge,
    judge_record,
    records_in,
    show,
)

check = Checks(__file__)


@check.exercise("double")
def doubling(obs, double):
    """doubling a random vector"""
    x = agk.tensor(obs.rng.normal(size=3))
    obs.close("double(x)", obs.call(double, x), hint="multiply by two")


@check.exercise("answer")
def prediction(obs, answer):
    """a prediction"""
    obs.predicted("the answer", answer, hint="look at the sign")


def twice(x):
    return x * 2


def _verdict(check_, seed, **answers):
    """What grading decides: the check on the answers vs on the solution, same seed."""
    solution = {"double": twice, "answer": -3.0}
    reference = check_.observe(seed=seed, **{n: solution[n] for n in check_.answers})
    return judge_record(reference, check_.observe(seed=seed, **answers))


# ----- judging, in the grader --------------------------------------------------------------
def test_values_travel_as_json_with_their_shape():
    encoded = encode({"w": agk.tensor([[1.0, 2.0]]), "n": np.int64(3), "none": None})
    assert json.loads(json.dumps(encoded)) == encoded
    assert encoded["dict"]["w"] == {"array": [[1.0, 2.0]], "shape": [1, 2]}
    assert show(encoded["dict"]["w"]) == "[[1., 2.]]" and show(encode(7.0)) == "7"
    assert show(encode((16, 2))) == "[16, 2]" and show(encode([True, None])) == "[True, None]"


def test_close_names_shape_sign_nan_zeros_and_a_multiple_without_the_students_value():
    want = Observation("g", encode(np.array([[1.5, -2.5, 4.25]])), kind="close")
    cases = [
        (np.array([[1.5], [-2.5], [4.25]]), "expected shape (1, 3) (transposed?)"),
        (np.array([[-1.5, 2.5, -4.25]]), "the sign is wrong"),
        (np.array([[np.nan, 0, 0]]), "the result contains NaN"),
        (np.zeros((1, 3)), "the result is all zeros"),
        (np.array([[4.5, -7.5, 12.75]]), "it is 3 times the right value"),
        ("text", "expected a number or a tensor of numbers"),
    ]
    for value, words in cases:
        reason = judge(want, Observation("g", encode(value)))
        assert words in reason, (value, reason)
        assert "12.75" not in reason and "text" not in reason


def test_equal_tells_bools_from_numbers_and_compares_dicts_and_lists():
    assert judge(Observation("b", False), Observation("b", 0)) == "this is not right"
    assert judge(Observation("b", encode([1, None])), Observation("b", encode((1, None)))) == ""
    a, b = encode({"a": True}), encode({"a": True, "b": False})
    assert judge(Observation("d", a), Observation("d", b)) == "this is not right"


def test_a_prediction_reveals_the_real_value_only_once_it_was_wrong():
    assert _verdict(prediction, 1, answer=-3.0).passed
    verdict = _verdict(prediction, 1, answer=3.0)
    assert verdict.lines == ["✗ the answer: the sign is wrong; it is -3 (look at the sign)"]
    verdict = _verdict(prediction, 1, answer=2.0)
    assert verdict.lines == ["✗ the answer: it is -3, not your prediction (look at the sign)"]


def test_a_check_passes_only_on_the_solutions_inputs_not_on_typed_in_numbers():
    practice_answer = twice(
        agk.tensor(np.random.default_rng(checks.seed_for("doubling")).normal(size=3))
    )
    typed_in = lambda x: practice_answer  # noqa: E731 - the practice inputs' answer, typed in
    assert _verdict(doubling, checks.seed_for("doubling"), double=typed_in).passed
    assert not _verdict(doubling, 12345, double=typed_in).passed
    assert _verdict(doubling, 12345, double=lambda x: x + x).passed


def test_a_missing_or_raising_answer_is_named_without_its_message():
    unanswered = ["✗ doubling a random vector: not answered yet"]
    assert _verdict(doubling, 1, double=...).lines == unanswered

    def stub(x):
        raise NotImplementedError

    assert _verdict(doubling, 1, double=stub).lines == unanswered

    def broken(x):
        raise ZeroDivisionError("secret words")

    assert _verdict(doubling, 1, double=broken).lines == [
        "✗ doubling a random vector: your code raised ZeroDivisionError"
    ]

    class Base64Name(Exception):
        pass

    def sneaky(x):
        raise Base64Name

    assert "raised an exception" in _verdict(doubling, 1, double=sneaky).lines[0]


def test_a_check_the_student_did_not_run_or_ran_twice_fails():
    reference = doubling.observe(seed=1, double=twice)
    assert judge_record(reference, None).lines == [
        "✗ doubling a random vector: this check did not run"
    ]
    cell = {"outputs": [{"output_type": "display_data", "data": {checks.MIME: "nonsense"}}]}
    assert records_in(cell) == ([], 1)


def test_a_check_leaves_the_notebooks_random_state_as_it_was():
    @Checks(__file__).exercise("double")
    def draws_globally(obs, double):
        obs.close("a random layer", agk.nn.Linear(3, 2).weight)  # nn.init draws globally

    agk.manual_seed(5)
    draws_globally.observe(double=twice)
    after_check = agk.rand(2)
    agk.manual_seed(5)
    assert after_check.allclose(agk.rand(2))


def test_observation_names_are_unique():
    duplicate = Checks(__file__).exercise("double")(
        lambda obs, double: [obs.equal("n", 1), obs.equal("n", 2)]
    )
    assert duplicate.observe(double=twice).stopped["reason"] == "unexpected"


# ----- practice mode, in the student's kernel ----------------------------------------------
@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """A checks folder whose recorded answers are the solution's, as ``build`` writes them."""
    entries = {"doubling": {o.name: o.value for o in doubling.observe(double=twice).observations}}
    (tmp_path / ".expected.json").write_text(expected_text(entries))
    monkeypatch.setattr(check, "folder", tmp_path)
    monkeypatch.setattr(check, "_expected", None)
    monkeypatch.setattr(check, "outcomes", {})
    return tmp_path


def test_practice_prints_one_tick_per_observation(recorded, capsys):
    doubling(double=twice)
    assert capsys.readouterr().out == "✓ double(x)\n"


def test_practice_fails_with_one_line_and_no_traceback_of_the_checks(recorded):
    with pytest.raises(CheckFailed) as failed:
        doubling(double=lambda x: x * 3)
    assert str(failed.value) == "✗ double(x): the value is not right (multiply by two)"
    assert failed.value._render_traceback_() == [str(failed.value)]  # how IPython shows it


def test_practice_shows_only_the_students_own_frames_when_their_code_raised(recorded):
    namespace = {}
    exec(
        compile("def mine(x):\n    return x / undefined_name\n", "/tmp/cell-7.py", "exec"),
        namespace,
    )
    with pytest.raises(CheckFailed) as failed:
        doubling(double=namespace["mine"])
    text = str(failed.value)
    first = "✗ doubling a random vector: your code raised NameError: name 'undefined_name' is"
    assert text.startswith(first)
    assert "line 2 in mine" in text and "checks.py" not in text and "observe" not in text


def test_progress_lists_each_check_once_with_its_latest_outcome(recorded, capsys):
    doubling(double=twice)
    with pytest.raises(CheckFailed):
        prediction(answer=...)
    capsys.readouterr()
    check.progress()
    assert capsys.readouterr().out.splitlines() == [
        "✓ doubling a random vector",
        "✗ a prediction",
        "1 of 2 checks passed in this session",
    ]
    with pytest.raises(CheckFailed):
        doubling(double=lambda x: x)  # the latest outcome counts
    check.progress()
    assert "✗ doubling a random vector" in capsys.readouterr().out


def test_unanswered_in_the_notebook_says_not_answered_yet(recorded):
    with pytest.raises(CheckFailed, match="^✗ doubling a random vector: not answered yet$"):
        doubling()  # no IPython here: the name cannot be found


def test_recorded_answers_are_out_of_plain_sight_and_hidden_ones_are_not_released(tmp_path):
    path = tmp_path / ".expected.json"
    path.write_text(expected_text({"a": {"x": 12.5}, "b": {"y": 1}}, hidden={"b"}))
    assert "12.5" not in path.read_text() and read_expected(path) == {
        "a": {"x": 12.5},
        "b": {"y": 1},
    }
    path.write_text(public_expected(path))
    assert read_expected(path) == {"a": {"x": 12.5}}


def test_a_prediction_is_recorded_as_a_salted_hash_and_practice_still_judges_it(
    tmp_path, monkeypatch, capsys
):
    # Issue 29: predictions' practice answers were plain base64 in .expected.json.
    lines = tmp_path / "recorded.jsonl"
    monkeypatch.setenv(checks.RECORD_ENV, str(lines))
    prediction(answer=-3.0)
    recorded = json.loads(lines.read_text())["values"]
    assert "-3" not in json.dumps(recorded) and set(recorded["the answer"]) == {"salted"}
    monkeypatch.delenv(checks.RECORD_ENV)
    (tmp_path / ".expected.json").write_text(expected_text({"prediction": recorded}))
    monkeypatch.setattr(check, "folder", tmp_path)
    monkeypatch.setattr(check, "_expected", None)
    capsys.readouterr()
    prediction(answer=-3)  # the same number, typed another way
    assert capsys.readouterr().out == "✓ the answer\n"
    with pytest.raises(CheckFailed) as failed:
        prediction(answer=3.0)
    assert str(failed.value) == (
        "✗ the answer: that is not what happens: run the cells below to see why (look at the sign)"
    )


# ----- grading mode: the kernel only reports -----------------------------------------------
def test_grading_mode_emits_one_record_and_prints_nothing(monkeypatch, capsys):
    shown = []
    monkeypatch.setattr(checks, "_emit", shown.append)
    monkeypatch.setattr(checks, "_armed", {"seed": 99})
    doubling(double=lambda x: x * 3)  # wrong, and still no exception in the kernel
    assert capsys.readouterr().out == "" and len(shown) == 1
    assert isinstance(shown[0], Record) and shown[0].check == "doubling"


def test_the_grading_seed_decides_the_inputs(monkeypatch):
    monkeypatch.setattr(checks, "_armed", {"seed": 1})
    first = checks.seed_for("doubling")
    monkeypatch.setattr(checks, "_armed", {"seed": 2})
    assert checks.seed_for("doubling") != first
    monkeypatch.setattr(checks, "_armed", {})
    assert checks.seed_for("doubling") == checks.seed_for("doubling") != first


def test_records_survive_json_and_keep_only_known_fields():
    record = doubling.observe(seed=3, double=twice)
    data = json.loads(json.dumps(record.as_json()))
    data["observations"][0]["extra"] = "ignored"
    again = Record.from_json(data)
    assert judge_record(record, again).passed
    with pytest.raises(ValueError):
        Record.from_json({"check": "x", "observations": "not a list"})


# ----- helpers for build-it-yourself exercises ---------------------------------------------
def test_refuse_library_blocks_and_always_restores():
    import autogradkit.autograd.functional as functional

    original = functional.vjp
    with pytest.raises(checks.BuildItYourself, match="build the Jacobian yourself"):
        with checks.refuse_library(functional, "vjp", exercise="the Jacobian"):
            functional.vjp(lambda t: t, agk.ones(2), agk.ones(2))
    assert functional.vjp is original


def test_count_calls_and_time_limit():
    with checks.count_calls(agk.Tensor, "backward") as calls:
        (agk.ones(2, requires_grad=True) * 2).sum().backward()
    assert len(calls) == 1
    with pytest.raises(checks.CheckTimeout):
        with checks.time_limit(0.05):
            while True:
                pass
