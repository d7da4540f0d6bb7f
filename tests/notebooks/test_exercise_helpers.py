"""The shortcut-test helpers (``exercises.py``) work for a course in another folder, and run
a check where its notebook runs: a check may read the assignment's data file, as the notebook
does, by its name alone.

A course of one assignment is written to a scratch folder; a child Python with
``AUTOGRADKIT_COURSE`` naming it imports the helpers (they read the variable once) and judges
a correct answer and a shortcut.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT = """# %% id="w1-import-checks"
import checks

# %% nbgrader={answer}
def total(values):
    ### BEGIN SOLUTION
    return sum(values)
    ### END SOLUTION

# %% nbgrader={test}
checks.total_of_the_data()
"""
HEADERS = {
    "answer": {"grade": False, "grade_id": "w1_total", "locked": False, "solution": True},
    "test": {"grade": True, "grade_id": "w1_total_test", "locked": True, "points": 1},
}
CHECKS = '''import numpy as np

from autogradkit.grading.checks import Checks

check = Checks(__file__)


@check.exercise("total")
def total_of_the_data(obs, total):
    """Exercise 1: the total of the data file"""
    values = np.loadtxt("data.csv", delimiter=",").ravel() * obs.rng.uniform(1, 2)
    obs.close("the total", obs.call(total, values.tolist()), hint="add them all")
'''
JUDGE = """
from tests.notebooks.exercises import assert_passes, assert_refused, checks_of, solution

checks = checks_of("week-1")
answers = solution("week-1", "w1_total")
assert_passes(checks.total_of_the_data, answers, total=lambda values: float(np.sum(values)))
assert_refused(checks.total_of_the_data, answers, "add them all", total=lambda values: 6.0)
print("judged")
"""


def test_the_helpers_find_a_course_in_another_folder_and_run_checks_beside_it(tmp_path):
    folder = tmp_path / "mycourse" / "source" / "week-1"
    folder.mkdir(parents=True)
    headers = {k: json.dumps({**v, "schema_version": 3}) for k, v in HEADERS.items()}
    (folder / "week-1.py").write_text(TEXT.format(**headers), encoding="utf-8")
    (folder / "checks.py").write_text(CHECKS, encoding="utf-8")
    (folder / "data.csv").write_text("1,2\n3,4\n", encoding="utf-8")
    env = {**os.environ, "AUTOGRADKIT_COURSE": str(tmp_path / "mycourse")}
    command = [sys.executable, "-c", "import numpy as np\n" + JUDGE]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "judged"
