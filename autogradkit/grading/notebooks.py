"""Reading and writing notebook files as plain dicts: fast (no nbformat import) and forgiving.

A submission may be anything a student could upload, so reading never crashes: a file that is
not a version-4 notebook raises ``UnreadableNotebook`` with a reason a person can act on.
"""

from __future__ import annotations

import json
from pathlib import Path

from .cells import text


class UnreadableNotebook(ValueError):
    """The file is not a notebook we can grade (bad JSON, wrong format, missing cells)."""


def read_notebook(path: str | Path) -> dict:
    """Load ``path`` as a version-4 notebook dict with string sources.

    Raises:
        UnreadableNotebook: with the reason, e.g. ``not valid JSON (line 3, column 1)``.

    Example:
        >>> import tempfile, os
        >>> bad = os.path.join(tempfile.mkdtemp(), "bad.ipynb")
        >>> _ = open(bad, "w").write("{")
        >>> read_notebook(bad)
        Traceback (most recent call last):
        ...
        autogradkit.grading.notebooks.UnreadableNotebook: not valid JSON (line 1, column 2)
    """
    try:
        raw = Path(path).read_bytes().decode("utf-8")
        nb = json.loads(raw)
    except UnicodeDecodeError:
        raise UnreadableNotebook("not a UTF-8 text file") from None
    except json.JSONDecodeError as error:
        raise UnreadableNotebook(
            f"not valid JSON (line {error.lineno}, column {error.colno})"
        ) from None
    except OSError as error:
        raise UnreadableNotebook(f"cannot be read ({error.strerror})") from None
    return normalise(nb)


def normalise(nb) -> dict:
    """Check the notebook's outline and join list-of-lines sources into strings."""
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise UnreadableNotebook("not a notebook (no list of cells)")
    if nb.get("nbformat") != 4:
        raise UnreadableNotebook(f"notebook format {nb.get('nbformat')!r} is not 4")
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise UnreadableNotebook(f"cell {index} is not a code, markdown or raw cell")
        if not isinstance(cell.get("metadata", {}), dict):
            raise UnreadableNotebook(f"cell {index} has invalid metadata")
        cell["source"] = text(cell.get("source", ""))
        cell.setdefault("metadata", {})
        if cell["cell_type"] == "code":
            cell.setdefault("outputs", [])
            cell.setdefault("execution_count", None)
    nb.setdefault("metadata", {})
    nb.setdefault("nbformat_minor", 4)
    return nb


def write_notebook(nb: dict, path: str | Path) -> None:
    """Write ``nb`` as JSON the way nbformat does (sorted keys, one-space indent)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False)
    path.write_text(body + "\n", encoding="utf-8")
