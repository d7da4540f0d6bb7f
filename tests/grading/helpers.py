"""Small notebook builders shared by the per-step tests."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def meta(grade_id, *, grade=False, solution=False, locked=False, points=None, **extra) -> dict:
    m = {
        "schema_version": 3,
        "grade": grade,
        "solution": solution,
        "locked": locked,
        "grade_id": grade_id,
        **extra,
    }
    if points is not None:
        m["points"] = points
    return {"nbgrader": m}


def code(source, **kw):
    return new_code_cell(source, metadata=meta(**kw) if kw else {})


def markdown(source, **kw):
    return new_markdown_cell(source, metadata=meta(**kw) if kw else {})


def notebook(*cells):
    return new_notebook(
        cells=list(cells), metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    )


def by_id(nb, grade_id):
    return next(
        c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id
    )
