"""notebooks.py: anything a student uploads is either a notebook or a clear reason."""

from __future__ import annotations

import json
import os

import pytest

from autogradkit_instructor.notebooks import UnreadableNotebook, read_notebook, write_notebook


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"cells": [', "not valid JSON (line 1, column 12)"),
        (b"", "an empty file, not a saved notebook"),
        (b" \n", "an empty file, not a saved notebook"),
        (b"\xff\xfe\x00", "not a UTF-8 text file"),
        (b"[1, 2]", "not a notebook (no list of cells)"),
        (b'{"cells": [], "nbformat": 5}', "notebook format 5 is not 4"),
        (b'{"cells": [], "nbformat": 3}', "a version-3 notebook that cannot be converted"),
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


def test_version_3_notebooks_are_converted(tmp_path):
    from nbformat import v3

    old = v3.new_notebook(worksheets=[v3.new_worksheet(cells=[v3.new_code_cell("x = 1")])])
    path = tmp_path / "old.ipynb"
    path.write_text(v3.writes_json(old))
    nb = read_notebook(path)
    assert nb["nbformat"] == 4 and [c["source"] for c in nb["cells"]] == ["x = 1"]


def test_fifos_symlinks_and_huge_files_are_refused_without_reading(tmp_path):
    fifo, link, huge = tmp_path / "fifo.ipynb", tmp_path / "link.ipynb", tmp_path / "huge.ipynb"
    os.mkfifo(fifo)  # reading it would block the grader forever
    link.symlink_to("/etc/passwd")
    with huge.open("wb") as f:  # sparse: 300 MiB on paper, nothing on disk
        f.truncate(300 * 2**20)
    for path, reason in ((fifo, "FIFO"), (link, "symlink"), (huge, "too large")):
        with pytest.raises(UnreadableNotebook, match=reason):
            read_notebook(path)
