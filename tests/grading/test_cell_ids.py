"""Stable cell ids: written in each text source's cell headers, never derived from positions."""

from __future__ import annotations

import pytest

from autogradkit_instructor.build import read_text_source
from autogradkit_instructor.cell_ids import assign_ids

SOURCE = """# %% [markdown]
# # 01 · Title
#
# Welcome.

# %%
import numpy as np

# %% [markdown]
# ## 1. Running cells

# %% nbgrader={"grade": false, "grade_id": "nb01_ex1", "solution": true}
answer = 1

# %% [markdown]
# ## 2. Running cells
"""


def _write(tmp_path, text: str):
    path = tmp_path / "01_demo.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_new_cells_get_readable_ids_written_into_their_headers(tmp_path):
    path = _write(tmp_path, SOURCE)
    assert assign_ids(path) == [
        "01-title",
        "01-import-numpy-as-np",
        "01-running-cells",
        "01-running-cells-2",
    ]
    text = path.read_text(encoding="utf-8")
    assert '# %% [markdown] id="01-running-cells"\n# ## 1. Running cells' in text
    assert [c.id for c in read_text_source(path).cells] == [
        "01-title",
        "01-import-numpy-as-np",
        "01-running-cells",
        "nb01_ex1",  # a graded or answer cell keeps its grade_id
        "01-running-cells-2",
    ]


def test_ids_survive_a_cell_inserted_before_them_and_are_written_once(tmp_path):
    path = _write(tmp_path, SOURCE)
    assign_ids(path)
    before = [c.id for c in read_text_source(path).cells]
    text = path.read_text(encoding="utf-8")
    path.write_text("# %% [markdown]\n# A new first cell.\n\n" + text, encoding="utf-8")
    assert assign_ids(path) == ["01-a-new-first-cell"]
    assert [c.id for c in read_text_source(path).cells] == ["01-a-new-first-cell", *before]
    assert assign_ids(path) == []


def test_the_id_leaves_the_metadata_for_the_cell_id(tmp_path):
    path = _write(tmp_path, SOURCE)
    assign_ids(path)
    cell = read_text_source(path).cells[2]
    assert cell.id == "01-running-cells" and "id" not in cell.metadata


def test_a_cell_without_an_id_cannot_be_read(tmp_path):
    with pytest.raises(ValueError, match="cell 0 has no id: run `autogradkit ids`"):
        read_text_source(_write(tmp_path, SOURCE))


def test_an_id_used_twice_or_on_a_graded_cell_is_refused(tmp_path):
    twice = SOURCE.replace("# %%\nimport", '# %% id="x"\nimport').replace(
        "# %% [markdown]\n# ## 1.", '# %% [markdown] id="x"\n# ## 1.'
    )
    with pytest.raises(ValueError, match="'x' is used twice"):
        assign_ids(_write(tmp_path, twice))
    graded = SOURCE.replace("# %% nbgrader=", '# %% id="y" nbgrader=')
    with pytest.raises(ValueError, match="has a grade_id; drop its id='y'"):
        assign_ids(_write(tmp_path, graded))


def test_the_ids_command_writes_the_ids_of_the_named_assignment(tmp_path):
    from autogradkit_instructor import cli

    folder = tmp_path / "source" / "01_demo"
    folder.mkdir(parents=True)
    path = _write(folder, SOURCE)
    assert cli.main(["ids", "--course", str(tmp_path), "01_demo"]) == 0
    assert 'id="01-import-numpy-as-np"' in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "prefix"),
    [("08_my_quiz", "08"), ("week3_chain-rule", "week3"), ("作业一", "nb"), ("第3周", "3")],
)
def test_an_assignment_of_any_name_gets_ids_its_notebook_can_hold(tmp_path, name, prefix):
    """nbformat's ids are ASCII: a Chinese title or assignment name must not leak into them."""
    text = tmp_path / f"{name}.py"
    text.write_text("# %% [markdown]\n# # 第一课：梯度\n\n# %%\nx = 1\n", encoding="utf-8")
    given = assign_ids(text)
    assert [i.split("-")[0] for i in given] == [prefix, prefix]
    assert [cell.id for cell in read_text_source(text).cells] == given
