"""No input stops the class's run (issue 28, item 4): a property over notebook JSON, folder
names and the messages a kernel sends.

Each example grades a small course end to end: two controls (a correct and a wrong
submission), a notebook with a JSON value put where the grader reads, a folder whose name is
any bytes, and a submission whose kernel sends IOPub messages of any content. The run must
complete, every submission must have its row, and the controls must score as always. The
kernels are forked, unconfined (``--sandbox none``): the fuzzed part is the grader, not the
sandbox, and forked kernels keep each example to seconds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autogradkit_instructor.cli import main

from . import builders

NASTY = ["\ud800", "a\udcffb", "\x00\x1b[2J", "=1+1", "\u2028", "\U0001f600" * 3, ""]
TEXT = st.sampled_from(NASTY) | st.text(max_size=8)  # hypothesis alone rarely makes these
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
PLACES = ("notebook metadata", "cell metadata", "cell source", "cell outputs", "markdown")
MESSAGE_TYPES = st.sampled_from(
    ["stream", "display_data", "execute_result", "error", "clear_output", "status", "x"]
)
SEND = """
import json
_k = get_ipython().kernel
for _type, _content in json.loads({messages!r}):
    _k.session.send(_k.iopub_socket, _type, content=_content, parent=_k.get_parent())
"""


def _in_place(nb: dict, place: str, value) -> dict:
    """``nb`` with ``value`` where the grader reads: metadata, a source, outputs, Markdown."""
    cell = nb["cells"][2]  # the first answer cell
    if place == "notebook metadata":
        nb["metadata"]["autogradkit"] = value
    elif place == "cell metadata":
        cell["metadata"]["nbgrader"] = value
    elif place == "cell source":
        cell["source"] = value
    elif place == "cell outputs":
        cell["outputs"] = [value]
    else:
        nb["cells"][0]["source"] = value if isinstance(value, str) else json.dumps(value)
    return nb


def _submit(course: Path, folder: str, nb: dict) -> None:
    path = course / "submitted" / folder / builders.ASSIGNMENT / f"{builders.NOTEBOOK}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))  # json escapes a lone surrogate as \\ud800: any str goes


def _folder_name(raw: bytes) -> str:
    name = os.fsdecode(raw.replace(b"/", b"_").replace(b"\0", b"_"))
    return name if name not in (".", "..") else f"{name}_"


@settings(
    max_examples=4,
    deadline=None,
    derandomize=True,  # the same examples on every run: a failure is found again
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    place=st.sampled_from(PLACES),
    value=JSON,
    markdown=TEXT,
    folder=st.binary(min_size=1, max_size=12),
    messages=st.lists(st.tuples(MESSAGE_TYPES, JSON), min_size=1, max_size=4),
)
def test_no_notebook_folder_name_or_kernel_message_stops_the_run(
    tmp_path_factory, place, value, markdown, folder, messages
):
    course = tmp_path_factory.mktemp("fuzz")
    builders.write_course(course)
    for control in ("control_correct", "control_wrong"):
        builders.write_submission(course / "submitted", control, control.split("_")[1])
    fresh = json.loads(json.dumps(builders.student_version()))
    _submit(course, "fuzzed_notebook", _in_place(builders.correct(fresh), place, value))
    named = builders.correct(json.loads(json.dumps(builders.student_version())))
    named["cells"][0]["source"] = markdown
    _submit(course, _folder_name(b"z" + folder), named)
    talker = builders.correct(json.loads(json.dumps(builders.student_version())))
    talker["cells"][2]["source"] += SEND.format(messages=json.dumps(messages))
    _submit(course, "talking_kernel", talker)
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    code = main([*args, "--sandbox", "none", "--timeout", "10", "-j", "2", "--no-progress"])
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text(encoding="utf-8"))
    rows = {row["student"]: row for row in book["rows"]}
    assert code == 0 and len(rows) == 5, sorted(rows)
    assert (rows["control_correct"]["status"], rows["control_correct"]["score"]) == ("ok", 10.0)
    assert (rows["control_wrong"]["status"], rows["control_wrong"]["score"]) == ("ok", 0.0)
    assert {"fuzzed_notebook", "talking_kernel"} <= set(rows)
    assert all(row["student"].isprintable() for row in rows.values())
    (course / "grades" / "hw1" / "gradebook.csv").read_text(encoding="utf-8")  # valid UTF-8
