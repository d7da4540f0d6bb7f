"""Stable cell ids, written in each cell's Jupytext header: ``# %% [markdown] id="00-intro"``.

A translation, the error index and the tests name cells by id, so an id must survive cells
being added, moved or edited around it. A graded or answer cell's id is its nbgrader
``grade_id``; every other cell carries an ``id`` in its header, which Jupytext keeps as cell
metadata and ``build.read_text_source`` turns into the nbformat cell id. ``assign_ids`` gives
a new cell one, made from its heading or its first words, and writes it into the text source.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext

__all__ = ["ID", "HEADER", "MAX_WORDS", "slug", "id_prefix", "assign_ids", "cell_id", "check_ids"]

ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # nbformat 4.5's rule for a cell id
HEADER = re.compile(r"^# %%( \[markdown\])?(?=$| )")
MAX_WORDS = 5


def slug(cell, prefix: str) -> str:
    """A readable id for ``cell``: its heading (markdown) or first words, e.g. ``00-running-cells``.

    Example:
        >>> from types import SimpleNamespace as Cell
        >>> slug(Cell(cell_type="markdown", source="## 1. Running cells\\n\\nA notebook"), "00")
        '00-running-cells'
        >>> slug(Cell(cell_type="code", source="# the seed\\nagk.manual_seed(0)"), "00")
        '00-agk-manual-seed-0'
    """
    lines = [line.strip() for line in cell.source.splitlines() if line.strip()]
    if cell.cell_type == "markdown":
        headings = [line for line in lines if line.startswith("#")]
        text = (headings or lines or [""])[0].lstrip("#")
    else:
        text = next((line for line in lines if not line.startswith("#")), "")
    words = re.findall(r"[a-z0-9]+", text.lower())
    while words and words[0].isdigit() and cell.cell_type == "markdown":
        words.pop(0)  # a section's number is not its name
    return "-".join([prefix, *words[:MAX_WORDS]]) if words else f"{prefix}-cell"


def id_prefix(name: str) -> str:
    """What the new ids of assignment ``name``'s cells start with: its first run of ASCII
    letters and digits (``08_my_quiz``: ``08``; ``week3_chain-rule``: ``week3``), else ``nb``
    (``作业一``): nbformat's ids are ASCII."""
    found = re.search(r"[A-Za-z0-9]+", name)
    return found[0][:20] if found else "nb"


def assign_ids(path: Path) -> list[str]:
    """Give every cell of the text source ``path`` that has neither an ``id`` nor a
    ``grade_id`` a new id, written into its header; return the new ids (none: file untouched).

    Raises:
        ValueError: a header the file's cells do not match, an id used twice or not valid.
    """
    text = Path(path).read_text(encoding="utf-8")
    nb = jupytext.reads(text, fmt="py:percent")
    lines = text.splitlines(keepends=True)
    headers = [i for i, line in enumerate(lines) if HEADER.match(line)]
    if len(headers) != len(nb.cells):
        raise ValueError(f"{path}: {len(headers)} '# %%' headers for {len(nb.cells)} cells")
    taken = {cell_id(cell) for cell in nb.cells} - {None}
    check_ids(nb.cells, path)
    new = []
    for line_number, cell in zip(headers, nb.cells):
        if cell_id(cell) is not None:
            continue
        base = slug(cell, id_prefix(Path(path).stem))[:60]
        chosen, number = base, 2
        while chosen in taken:
            chosen, number = f"{base}-{number}", number + 1
        taken.add(chosen)
        new.append(chosen)
        found = HEADER.match(lines[line_number])
        lines[line_number] = f'{found.group(0)} id="{chosen}"' + lines[line_number][found.end() :]
    if new:
        Path(path).write_text("".join(lines), encoding="utf-8")
    return new


def cell_id(cell) -> str | None:
    """The stable id a text source gives ``cell``: its grade_id, else its ``id`` metadata."""
    return cell.metadata.get("nbgrader", {}).get("grade_id") or cell.metadata.get("id")


def check_ids(notebook_cells, where) -> None:
    """Raise ``ValueError`` when an id is used twice, is not valid, or a graded cell has an
    ``id`` of its own (its grade_id is its id)."""
    seen: set[str] = set()
    for index, cell in enumerate(notebook_cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id and "id" in cell.metadata:
            raise ValueError(
                f"{where}: cell {index} has a grade_id; drop its id={cell.metadata['id']!r}"
            )
        found = cell_id(cell)
        if found is None:
            continue
        if not ID.fullmatch(found):
            raise ValueError(f"{where}: cell id {found!r} is not letters, digits, - and _")
        if found in seen:
            raise ValueError(f"{where}: cell id {found!r} is used twice")
        seen.add(found)
