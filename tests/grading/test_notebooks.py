"""notebooks.py: anything a student uploads is either a notebook or a clear reason."""

from __future__ import annotations

import json

import pytest

from autogradkit.grading.notebooks import UnreadableNotebook, read_notebook, write_notebook


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"cells": [', "not valid JSON (line 1, column 12)"),
        (b"\xff\xfe\x00", "not a UTF-8 text file"),
        (b"[1, 2]", "not a notebook (no list of cells)"),
        (b'{"cells": [], "nbformat": 3}', "notebook format 3 is not 4"),
        (b'{"cells": [{"cell_type": "picture"}], "nbformat": 4}', "cell 0 is not a code, markdown"),
    ],
)
def test_unreadable_files_say_why(tmp_path, content, reason):
    path = tmp_path / "x.ipynb"
    path.write_bytes(content)
    with pytest.raises(UnreadableNotebook, match=reason.replace("(", r"\(").replace(")", r"\)")):
        read_notebook(path)


def test_list_sources_are_joined_and_round_trip(tmp_path):
    path = tmp_path / "n.ipynb"
    path.write_text(
        json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [{"cell_type": "code", "source": ["a = 1\n", "b = 2"], "metadata": {}}],
            }
        )
    )
    nb = read_notebook(path)
    assert nb["cells"][0]["source"] == "a = 1\nb = 2" and nb["cells"][0]["outputs"] == []
    write_notebook(nb, tmp_path / "out" / "n.ipynb")
    assert read_notebook(tmp_path / "out" / "n.ipynb") == nb
