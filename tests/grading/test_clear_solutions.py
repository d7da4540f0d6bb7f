"""ClearSolutions: stubs instead of answers."""

from __future__ import annotations

import pytest

from autogradkit_instructor.steps import ClearSolutions

from .helpers import code, markdown, notebook


def test_region_is_replaced_and_indent_kept():
    src = "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\nprint(f)"
    nb = ClearSolutions()(notebook(code(src, grade_id="a", solution=True)), None)
    assert nb.cells[0].source == (
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\nprint(f)"
    )


def test_answer_cell_without_markers_is_replaced_whole():
    nb = notebook(
        code("x = 42", grade_id="a", solution=True),
        markdown("It is 42.", grade_id="m", grade=True, solution=True, points=1),
    )
    nb = ClearSolutions()(nb, None)
    assert nb.cells[0].source == "# YOUR CODE HERE\nraise NotImplementedError()"
    assert nb.cells[1].source == "YOUR ANSWER HERE"


def test_ordinary_cells_are_untouched():
    nb = ClearSolutions()(notebook(code("y = 1")), None)
    assert nb.cells[0].source == "y = 1"


def test_solution_region_outside_answer_cell_is_an_error():
    nb = notebook(code("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", grade_id="t", locked=True))
    with pytest.raises(ValueError, match="cell t has a solution region but is not marked"):
        ClearSolutions()(nb, None)


def test_unclosed_region_is_an_error():
    nb = notebook(code("### BEGIN SOLUTION\nx = 1", grade_id="a", solution=True))
    with pytest.raises(ValueError, match="cell a: 'BEGIN SOLUTION' without a matching"):
        ClearSolutions()(nb, None)


def test_the_stubs_speak_the_notebooks_language():
    nb = notebook(
        code(
            "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
            grade_id="a",
            solution=True,
        ),
        code("### BEGIN SOLUTION\nslope = 7.0\n### END SOLUTION", grade_id="b", solution=True),
        markdown("It is 42.", grade_id="m", grade=True, solution=True, points=1),
    )
    nb.metadata["autogradkit"] = {"language": "zh-CN"}
    nb = ClearSolutions()(nb, None)
    assert nb.cells[0].source == "def f(x):\n    # 在此编写代码\n    raise NotImplementedError()"
    # what the check reads as unanswered is the same in every edition: the error, the ...
    assert nb.cells[1].source == "# 在此作答\nslope = ..."
    assert nb.cells[2].source == "在此作答"
