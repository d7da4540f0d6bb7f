"""nbgrader cell metadata (schema v3): finding cells by role, checksums, and the schema rules.

Cells are always found by their ``metadata.nbgrader`` (never by position), so a course written
for autogradkit can also be graded by nbgrader itself, and vice versa.
"""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "SCHEMA_VERSION",
    "ALLOWED_KEYS",
    "REQUIRED_KEYS",
    "GRADE_ID",
    "HIDDEN_TESTS",
    "text",
    "is_text",
    "meta",
    "grade_id",
    "is_grade",
    "is_solution",
    "is_locked",
    "is_test",
    "is_manual",
    "points",
    "compute_checksum",
    "replace_regions",
    "replace_cell_regions",
    "regions",
    "cell_problems",
    "metadata_problems",
]

SCHEMA_VERSION = 3
ALLOWED_KEYS = frozenset(
    {
        "schema_version",
        "grade",
        "locked",
        "solution",
        "task",
        "grade_id",
        "points",
        "checksum",
        "cell_type",
    }
)
REQUIRED_KEYS = ("schema_version", "grade", "locked", "solution")
GRADE_ID = re.compile(r"^[a-zA-Z0-9_\-]*$")
HIDDEN_TESTS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")  # the markers of a hidden region


def text(value) -> str:
    """A cell source or output text as one string (notebook files may store a list of lines)."""
    return "".join(value) if isinstance(value, list) else (value or "")


def is_text(value) -> bool:
    """nbformat's text: a string, or a list of strings (its lines)."""
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(line, str) for line in value)
    )


def meta(cell: dict) -> dict:
    """The cell's ``metadata.nbgrader`` dict ({} for an ordinary cell, and for one whose
    ``nbgrader`` is not a dict: a submission's metadata is data, of any type)."""
    found = cell.get("metadata", {}).get("nbgrader")
    return found if isinstance(found, dict) else {}


def grade_id(cell: dict) -> str | None:
    """The cell's nbgrader ``grade_id``, or None when it has none (or one that is not text)."""
    found = meta(cell).get("grade_id")
    return found if isinstance(found, str) and found else None


def is_grade(cell: dict) -> bool:
    return bool(meta(cell).get("grade", False))


def is_solution(cell: dict) -> bool:
    return bool(meta(cell).get("solution", False))


def is_locked(cell: dict) -> bool:
    """nbgrader's rule: answer cells are never locked, test (grade) cells always are."""
    if is_solution(cell):
        return False
    return is_grade(cell) or bool(meta(cell).get("locked", False))


def is_test(cell: dict) -> bool:
    """An autograded test cell: a code cell with ``grade`` and without ``solution``.

    Example:
        >>> is_test({"cell_type": "code", "metadata": {"nbgrader": {"grade": True}}})
        True
    """
    return cell.get("cell_type") == "code" and is_grade(cell) and not is_solution(cell)


def is_manual(cell: dict) -> bool:
    """A graded answer cell (grade and solution): a person gives its points."""
    return is_grade(cell) and is_solution(cell)


def points(cell: dict) -> float:
    return float(meta(cell).get("points", 0) or 0)


def compute_checksum(cell: dict) -> str:
    """nbgrader's checksum of a cell: md5 over source, type, role flags, id and points.

    Example:
        >>> cell = {"cell_type": "code", "source": "x = 1", "metadata": {"nbgrader": {
        ...     "grade": False, "solution": True, "locked": False, "grade_id": "a"}}}
        >>> len(compute_checksum(cell))
        32
    """
    m = hashlib.md5()
    for part in (
        text(cell.get("source")),
        cell["cell_type"],
        str(is_grade(cell)),
        str(is_solution(cell)),
        str(is_locked(cell)),
        meta(cell)["grade_id"],
    ):
        m.update(part.encode("utf-8"))
    if is_grade(cell):
        m.update(str(float(meta(cell)["points"])).encode("utf-8"))
    return m.hexdigest()


def replace_regions(source: str, begin: str, end: str, stub) -> tuple[str, bool]:
    """Replace each ``begin``..``end`` line region (markers included) by ``stub`` lines.

    ``stub`` is the text, a function of the region's text and its marker's indentation that
    returns it, or None to delete the region. The stub keeps the indentation of the begin
    marker. Returns the new source and whether a region was found.

    Example:
        >>> src = "def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION"
        >>> print(replace_regions(src, "BEGIN SOLUTION", "END SOLUTION", "pass")[0])
        def f():
            pass
    """
    lines, inside, found, region, indent = [], False, False, [], ""
    for line in source.split("\n") + [None]:
        if line is not None and begin in line:
            if inside:
                raise ValueError(f"nested '{begin}' markers")
            inside = found = True
            indent, region = re.match(r"\s*", line).group(0), []
        elif line is not None and end in line and inside:
            inside = False
            text = stub("\n".join(region), indent) if callable(stub) else stub
            lines += [indent + s for s in text.split("\n")] if text is not None else []
        elif inside and line is not None:
            region.append(line)
        elif line is not None and end not in line:
            lines.append(line)
    if inside:
        raise ValueError(f"'{begin}' without a matching '{end}'")
    return "\n".join(lines), found


def replace_cell_regions(cell: dict, index: int, begin: str, end: str, stub) -> tuple[str, bool]:
    """``replace_regions`` on a cell's source; a marker error names the cell (its grade_id,
    else its index), so the instructor knows which cell to mend."""
    try:
        return replace_regions(text(cell["source"]), begin, end, stub)
    except ValueError as error:
        raise ValueError(f"cell {grade_id(cell) or index}: {error}") from None


def regions(source: str, begin: str, end: str) -> list[str]:
    """The text inside each ``begin``..``end`` line region (markers excluded).

    Example:
        >>> regions("a\\n# BEGIN X\\nb\\nc\\n# END X", "BEGIN X", "END X")
        ['b\\nc']
    """
    found, current = [], None
    for line in source.split("\n"):
        if begin in line:
            current = []
        elif end in line and current is not None:
            found.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return found


def cell_problems(cell: dict) -> list[str]:
    """The schema-v3 rules one cell breaks (nbgrader's v3.json plus its validator's checks)."""
    if "nbgrader" not in cell.get("metadata", {}):
        return []
    m, kind = meta(cell), cell.get("cell_type")
    problems = [f"missing key '{k}'" for k in REQUIRED_KEYS if k not in m]
    problems += [f"unknown key '{k}'" for k in sorted(set(m) - ALLOWED_KEYS)]
    if m.get("schema_version") != SCHEMA_VERSION:
        problems.append(f"schema_version must be {SCHEMA_VERSION}")
    for key in ("grade", "locked", "solution", "task"):
        if key in m and not isinstance(m[key], bool):
            problems.append(f"'{key}' must be true or false")
    if m.get("grade") or m.get("solution") or m.get("locked"):
        gid = m.get("grade_id")
        if not isinstance(gid, str) or not gid or not GRADE_ID.match(gid):
            problems.append("grade_id must be a non-empty string of letters, digits, _ or -")
    if m.get("grade"):
        value = m.get("points")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            problems.append("a grade cell needs points >= 0")
    problems += _role_problems(m, kind)
    return problems


def _role_problems(m: dict, kind: str | None) -> list[str]:
    problems = []
    if m.get("task"):
        if kind != "markdown":
            problems.append("task cells must be markdown")
    elif kind == "markdown" and bool(m.get("grade")) != bool(m.get("solution")):
        problems.append("a markdown cell must be both grade and solution, or neither")
    checksum = m.get("checksum")
    if checksum is not None and (not isinstance(checksum, str) or len(checksum) != 32):
        problems.append("checksum must be 32 hex characters")
    if "cell_type" in m and m["cell_type"] not in ("raw", "code", "markdown"):
        problems.append("cell_type must be raw, code or markdown")
    return problems


def metadata_problems(nb: dict) -> list[str]:
    """Every schema-v3 problem in a notebook, as ``"cell <id or index>: <rule>"`` lines.

    Example:
        >>> nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {"nbgrader": {
        ...     "schema_version": 3, "grade": True, "locked": True, "solution": False,
        ...     "grade_id": "t1"}}}]}
        >>> metadata_problems(nb)
        ['cell t1: a grade cell needs points >= 0']
    """
    problems, seen = [], set()
    for index, cell in enumerate(nb.get("cells", [])):
        label = grade_id(cell) or f"#{index}"
        problems += [f"cell {label}: {p}" for p in cell_problems(cell)]
        m = meta(cell)
        if m.get("grade") or m.get("solution") or m.get("locked"):
            if label in seen:
                problems.append(f"cell {label}: duplicate grade_id")
            seen.add(label)
    return problems
