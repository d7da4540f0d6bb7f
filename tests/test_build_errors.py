"""An instructor's mistake gets one clear error from the command, never a Python traceback:
a cell of the notebook that raises as ``build`` runs it, a notebook ``validate`` cannot find.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autogradkit_instructor import cli

TEXT = """# %% [markdown]
# # A notebook whose second cell raises

# %%
half = 1 / 2

# %%
print(undefined_name)
"""


@pytest.mark.notebook
def test_a_cell_that_raises_as_build_runs_it_is_named_with_its_error(tmp_path, capsys):
    folder = tmp_path / "source" / "01_broken"
    folder.mkdir(parents=True)
    (folder / "01_broken.py").write_text(TEXT, encoding="utf-8")
    assert cli.main(["build", "--course", str(tmp_path)]) == 1
    printed = capsys.readouterr().err
    assert "Traceback (most recent call last)" not in printed
    assert f"autogradkit build: error: {folder / '01_broken.py'}" in printed
    assert "print(undefined_name)" in printed  # the cell
    assert "NameError: name 'undefined_name' is not defined" in printed
    assert "raises-exception" in printed  # what to do if the error is the lesson
    assert "\x1b[" not in printed  # no terminal colour codes
    assert not (folder / "01_broken.ipynb").exists()


def test_validate_names_the_notebook_it_cannot_find(tmp_path, capsys):
    missing = tmp_path / "week3" / "week3.ipynb"
    assert cli.main(["validate", str(missing)]) == 1
    assert str(missing) in capsys.readouterr().err


def test_build_of_an_assignment_that_is_not_there_names_it(tmp_path, capsys):
    (tmp_path / "source").mkdir()
    assert cli.main(["build", "--course", str(tmp_path), "week3"]) == 1
    printed = capsys.readouterr().err
    assert "week3" in printed and "Traceback" not in printed
    assert not Path(tmp_path / "source" / "week3").exists()


CHECKED = """# %% id="w1-setup"
import checks

# %% nbgrader={"grade": false, "grade_id": "w1_answer", "locked": false, "solution": true}
def double(x):
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "w1_test", "locked": true, "points": 1}
checks.doubles()
"""
BUGGY_CHECKS = '''from autogradkit.grading.checks import Checks

check = Checks(__file__)


@check.exercise("double")
def doubles(obs, double):
    """Exercise 1: double"""
    x = float(obs.rng.uniform(1, 2)).round(2)  # the check's own mistake
    obs.close("double(x)", obs.call(double, x))
'''


@pytest.mark.notebook
def test_a_check_that_fails_on_the_solution_as_build_runs_it_says_whose_mistake(tmp_path, capsys):
    folder = tmp_path / "source" / "w1"
    folder.mkdir(parents=True)
    (folder / "w1.py").write_text(CHECKED, encoding="utf-8")
    (folder / "checks.py").write_text(BUGGY_CHECKS, encoding="utf-8")
    assert cli.main(["build", "--course", str(tmp_path)]) == 1
    printed = capsys.readouterr().err
    assert "the cell w1_test raised CheckFailed" in printed
    assert "'float' object has no attribute 'round'" in printed
    assert "in checks.py or in the solution" in printed  # not the student's answer
