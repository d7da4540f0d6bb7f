"""A new instructor's own assignments, dropped into ``notebooks/source/`` beside the shipped
course, break none of the course's tests: a reading with no code (its name with a space and
an accent), an exercise with no check, each translated into zh-CN (and zh-TW, made). The
tests of what every assignment has (its translation, its release, its zh-TW twin) hold for
them; the house rules (a **用时** line, checks in every notebook, figures with Chinese
labels) are the shipped course's only. They failed 14 times before: each test took every
assignment for one of the house style's.

The course's test files run on a copy of the project with the two added, on those two only
(test_round_trip's grading and test_edition_fonts' drawing, too slow to run twice, take the
same rules: a reading has no test to fail and no figure to draw).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autogradkit_instructor import cli

pytestmark = [pytest.mark.notebook, pytest.mark.slow(12)]

ROOT = Path(__file__).resolve().parents[1]
READING = "09_só reading"
NO_CHECK = "10_no_check"
SOURCES = {
    READING: "# %% [markdown]\n# # 09 · A reading\n#\n# Nothing to run: read it, 0 points.\n",
    NO_CHECK: (
        "# %% [markdown]\n# # 10 · No check\n#\n# One answer cell, checked by hand.\n\n"
        '# %% nbgrader={"grade": false, "grade_id": "nb10_ex1_double", "locked": false, '
        '"schema_version": 3, "solution": true, "task": false}\n'
        "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n"
    ),
}
CHINESE = {  # each English cell's text -> its translation
    "# 09 · A reading\n\nNothing to run: read it, 0 points.": (
        "# 09 · 阅读\n\n没有要运行的代码：读一读，0 分。"
    ),
    "# 10 · No check\n\nOne answer cell, checked by hand.": (
        "# 10 · 没有检查\n\n一个答案单元格，由老师手工批改。"
    ),
}
FILES = [
    "tests/notebooks/test_translations.py",
    "tests/notebooks/test_zh_tw.py",
    "tests/notebooks/test_reading_time.py",
    "tests/notebooks/test_exercise_feedback.py",
    "tests/notebooks/test_structure.py",
    "tests/notebooks/test_support.py",
    "tests/notebooks/test_text_sources.py",
    "tests/notebooks/test_exercise_coverage.py",
    "tests/notebooks/test_editions_collected.py",
]


def _translate(course: Path, name: str) -> None:
    assert cli.main(["translate", "--lang", "zh-CN", "--course", str(course), name]) == 1
    md = course / "source" / name / f"{name}.zh-CN.md"
    text = md.read_text(encoding="utf-8").replace("UNTRANSLATED\n", "")
    for english, chinese in CHINESE.items():
        text = text.replace(english, chinese)
    md.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("project")
    for part in ("notebooks", "tests", "tools", "docs"):
        shutil.copytree(ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", project)
    course = project / "notebooks"
    for name, text in SOURCES.items():
        (course / "source" / name).mkdir()
        (course / "source" / name / f"{name}.py").write_text(text, encoding="utf-8")
    assert cli.main(["build", "--course", str(course), *SOURCES]) == 0
    for name in SOURCES:
        _translate(course, name)
    made = [sys.executable, "tools/make_zh_tw.py", "--course", str(course)]
    subprocess.run(made, cwd=project, check=True, capture_output=True)
    for language in ("en", "zh-CN", "zh-TW"):
        assert cli.main(["release", "--course", str(course), "--lang", language, *SOURCES]) == 0
    return project


def test_the_course_tests_pass_with_an_instructors_new_assignments(project):
    selected = " or ".join(("no_check", "reading"))
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", selected]
    ran = subprocess.run(
        [*run, *FILES], cwd=project, capture_output=True, text=True, env=dict(os.environ)
    )
    assert ran.returncode == 0, ran.stdout[-4000:]
    assert " passed" in ran.stdout and "failed" not in ran.stdout
