"""Each notebook is built from its Jupytext text source, and the two never drift apart."""

from __future__ import annotations

import pytest

from autogradkit_instructor.build import read_text_source

from .conftest import ASSIGNMENTS, COURSE, read, source_path


def _cells(nb) -> list[tuple]:
    return [(c.id, c.cell_type, c.source, dict(c.metadata)) for c in nb.cells]


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_the_notebook_has_exactly_the_cells_of_its_text_source(name):
    text = COURSE / "source" / name / f"{name}.py"
    assert _cells(read_text_source(text)) == _cells(read(source_path(name))), (
        f"{text} and its .ipynb differ: run `make notebooks` (autogradkit build)"
    )


def test_a_changed_text_source_is_caught(tmp_path):
    name = ASSIGNMENTS[0]
    text = (COURSE / "source" / name / f"{name}.py").read_text(encoding="utf-8")
    changed = tmp_path / f"{name}.py"
    changed.write_text(text.replace("# %% [markdown]", "# %% [markdown] tags=['x']", 1))
    assert _cells(read_text_source(changed)) != _cells(read(source_path(name)))
