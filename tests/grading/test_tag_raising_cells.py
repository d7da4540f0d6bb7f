"""TagRaisingCells: nbval accepts the errors of an unanswered student version."""

from __future__ import annotations

from nbformat.v4 import new_output

from autogradkit_instructor.steps import TagRaisingCells

from .helpers import code, notebook


def test_only_cells_with_errors_get_the_tag_once():
    bad, good = code("raise NotImplementedError()"), code("1 + 1")
    bad.outputs = [new_output("error", ename="NotImplementedError", evalue="", traceback=[])]
    bad.metadata["tags"] = ["raises-exception"]
    nb = TagRaisingCells()(notebook(bad, good), None)
    assert nb.cells[0].metadata.tags == ["raises-exception", "nbval-ignore-output"]
    assert "tags" not in nb.cells[1].metadata


def test_a_students_copy_stores_no_error_output_not_even_a_lessons():
    unanswered, lesson = code("raise NotImplementedError()"), code("1 / 0")
    unanswered.outputs = [new_output("error", ename="NotImplementedError", evalue="", traceback=[])]
    lesson.outputs = [new_output("error", ename="ZeroDivisionError", evalue="", traceback=[])]
    lesson.metadata["tags"] = ["raises-exception"]  # tagged by the instructor: the lesson
    nb = TagRaisingCells()(notebook(unanswered, lesson), None)
    assert nb.cells[0].outputs == []
    assert nb.cells[0].metadata.tags == ["raises-exception", "nbval-ignore-output"]
    assert nb.cells[1].outputs == []  # it shows when the student runs it
    assert nb.cells[1].metadata.tags == ["raises-exception", "nbval-ignore-output"]
