"""Building and releasing touch only what changed: a file whose content would stay the same
keeps its bytes *and* its modification time, so an instructor's commit (and rsync, make, a
JupyterHub's file browser) sees only the notebook they edited.

A scratch course of two assignments, each with a helper data file, is built and released
with ``cli.main``; then built and released again (nothing may move), then one notebook is
edited and a helper file renamed (only those and what is made from them may move; the old
helper leaves the release). What a notebook writes as it runs reaches neither folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autogradkit_instructor import cli, files
from autogradkit_instructor.build import KERNELSPEC

pytestmark = [pytest.mark.notebook, pytest.mark.slow(13)]

NAMES = ("01_first", "02_second")
TEXT = """# %% [markdown]
# # {name}
#
# Reads its data file.

# %%
import numpy as np

print(np.loadtxt("{data}", delimiter=",").sum())
np.savetxt("made_as_it_ran.csv", [1.0])  # a notebook's by-product, like a saved figure
"""


def _write(course: Path, name: str, data: str) -> None:
    folder = course / "source" / name
    folder.mkdir(parents=True)
    (folder / f"{name}.py").write_text(TEXT.format(name=name, data=data), encoding="utf-8")
    (folder / data).write_text("1,2\n3,4\n", encoding="utf-8")


def _edit(text_source: Path, old: str, new: str) -> None:
    text = text_source.read_text(encoding="utf-8")
    text_source.write_text(text.replace(old, new), encoding="utf-8")


def _build_and_release(course: Path) -> None:
    assert cli.main(["build", "--course", str(course)]) == 0
    assert cli.main(["release", "--course", str(course)]) == 0


def _stamps(course: Path) -> dict[str, tuple[int, bytes]]:
    """Each file of the course by path: its modification time (ns) and its bytes."""
    files = (p for p in course.rglob("*") if p.is_file())
    return {str(p.relative_to(course)): (p.stat().st_mtime_ns, p.read_bytes()) for p in files}


def _moved(before: dict, after: dict) -> set[str]:
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("course")
    for name in NAMES:
        _write(course, name, "data.csv")
    _build_and_release(course)
    return course


def test_building_and_releasing_again_rewrites_nothing(course):
    before = _stamps(course)
    assert "release/02_second/data.csv" in before
    assert not [path for path in before if "made_as_it_ran" in path]  # stays in the scratch
    _build_and_release(course)
    assert _moved(before, _stamps(course)) == set()


def test_only_the_edited_notebook_and_the_renamed_file_move(course):
    before = _stamps(course)
    source = course / "source"
    _edit(source / "02_second" / "02_second.py", "# # 02_second", "# # 02 · 第二课")
    (source / "01_first" / "data.csv").rename(source / "01_first" / "points.csv")
    _edit(source / "01_first" / "01_first.py", '"data.csv"', '"points.csv"')
    _build_and_release(course)
    assert _moved(before, _stamps(course)) == {
        "source/01_first/01_first.py",
        "source/01_first/data.csv",
        "source/01_first/points.csv",
        "source/01_first/01_first.ipynb",
        "release/01_first/01_first.ipynb",
        "release/01_first/data.csv",  # gone from the release with its source
        "release/01_first/points.csv",
        "release/01_first/.autogradkit-released",  # the list of what release wrote there
        "source/02_second/02_second.py",
        "source/02_second/02_second.ipynb",
        "release/02_second/02_second.ipynb",
    }


def test_no_notebook_names_the_machine_that_made_it(course):
    """Another machine (another Python) builds and releases the same bytes: a notebook's
    metadata holds no version of the Python that ran it, in this course or the kit's."""
    made_here = sorted(course.rglob("*.ipynb"))
    committed = sorted((Path(__file__).parent.parent / "notebooks").rglob("*.ipynb"))
    assert len(made_here) == 2 * len(NAMES) and committed
    for path in made_here + committed:
        metadata = json.loads(path.read_text(encoding="utf-8"))["metadata"]
        assert metadata["language_info"] == {"name": "python"}, path
        assert metadata["kernelspec"] == KERNELSPEC, path


def test_a_helper_folder_and_a_helper_file_may_swap_names(tmp_path):
    staged, target = tmp_path / "staged", tmp_path / "target"
    (staged / "data").mkdir(parents=True)
    (staged / "data" / "points.csv").write_text("1,2\n", encoding="utf-8")
    (staged / "notes").write_text("a file now\n", encoding="utf-8")
    (target / "notes").mkdir(parents=True)
    (target / "notes" / "old.txt").write_text("a folder before\n", encoding="utf-8")
    (target / "data").write_text("a file before\n", encoding="utf-8")
    (target / files.MIRRORED).write_text("data\nnotes/old.txt\n", encoding="utf-8")
    (target / ".ipynb_checkpoints").mkdir()
    (tmp_path / "dataset").mkdir()
    (tmp_path / "dataset" / "big.csv").write_text("kept\n", encoding="utf-8")
    (target / "linked").symlink_to(tmp_path / "dataset")  # a link is removed, never followed
    assert files.mirror(staged, target, ["data/points.csv", "notes"]) == []
    assert (tmp_path / "dataset" / "big.csv").is_file() and not (target / "linked").exists()
    found = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert found == [files.MIRRORED, "data/points.csv", "notes"]
    assert (target / ".ipynb_checkpoints").is_dir()  # JupyterLab's, not the release's


def test_a_file_you_put_in_the_release_folder_stays(course, capsys):
    """Only what a release wrote leaves: a notebook an instructor saved in the release folder
    (trying the student version) is kept, and the release names it."""
    yours = course / "release" / "02_second" / "Untitled.ipynb"
    yours.write_text("{}", encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["release", "--course", str(course), "02_second"]) == 0
    assert yours.read_text(encoding="utf-8") == "{}"
    assert f"{yours} is not from" in capsys.readouterr().err


def test_a_warning_from_a_helper_file_names_no_folder_of_the_run(tmp_path):
    """A helper module of the assignment that warns: Python names its file in the warning, and
    build and release run the notebook in a scratch folder of random name. The stored warning
    named that folder, so every build and release rewrote the notebook."""
    folder = tmp_path / "source" / "03_warns"
    folder.mkdir(parents=True)
    (folder / "loader.py").write_text(
        'import warnings\n\n\ndef load():\n    warnings.warn("load is old", UserWarning)\n'
        "    return 3\n",
        encoding="utf-8",
    )
    text = "# %% [markdown]\n# # 03 · Warns\n\n# %%\nimport loader\n\nloader.load()\n"
    (folder / "03_warns.py").write_text(text, encoding="utf-8")
    _build_and_release(tmp_path)
    before = _stamps(tmp_path)
    for notebook in ("source/03_warns/03_warns.ipynb", "release/03_warns/03_warns.ipynb"):
        outputs = json.loads(before[notebook][1])["cells"][1]["outputs"]
        warned = "".join(outputs[0]["text"])
        assert warned.startswith("loader.py:5: UserWarning: load is old\n"), warned
    _build_and_release(tmp_path)
    assert _moved(before, _stamps(tmp_path)) == set()
