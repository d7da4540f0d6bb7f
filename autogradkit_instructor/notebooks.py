"""Reading and writing notebook files as plain dicts: fast (no nbformat import) and forgiving.

A submission may be anything a student could upload, so reading never crashes: a file that is
not a version-4 notebook raises ``UnreadableNotebook`` with a reason a person can act on.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path

import nbformat

from autogradkit._i18n import N_

from . import untrusted
from .cells import is_text, text
from .files import ANOTHERS, reason

__all__ = [
    "MAX_BYTES",
    "MAX_VALUES",
    "UnreadableNotebook",
    "read_notebook",
    "normalise",
    "write_notebook",
]

MAX_BYTES = 64 * 2**20  # a submission larger than this is refused, not read
MAX_VALUES = 1_000_000  # JSON values (lists, numbers...) a submission may hold: ~100 MB parsed
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string, escapes included


class UnreadableNotebook(ValueError):
    """The file is not a notebook we can grade (bad JSON, wrong format, missing cells)."""


def read_notebook(path: str | Path, own: bool = False) -> dict:
    """Load ``path`` as a version-4 notebook dict with string sources; with ``own`` (a
    student's file), one with another name elsewhere (a hard link) is refused, as opened.

    Raises:
        UnreadableNotebook: with the reason, e.g. ``not valid JSON (line 3, column 1)``.

    Example:
        >>> import tempfile, os
        >>> bad = os.path.join(tempfile.mkdtemp(), "bad.ipynb")
        >>> _ = open(bad, "w").write("{")
        >>> read_notebook(bad)
        Traceback (most recent call last):
        ...
        autogradkit_instructor.notebooks.UnreadableNotebook: not valid JSON (line 1, column 2)
    """
    try:
        raw = _read_regular_file(Path(path), own).decode("utf-8-sig")  # Notepad writes a BOM
        if not raw.strip():  # an upload that failed, a notebook never saved
            raise UnreadableNotebook(N_("an empty file, not a saved notebook"))
        _count_values(raw)
        nb = json.loads(raw, parse_constant=lambda constant: None)  # NaN: no reader takes it
        return normalise(untrusted.clean(nb))  # a lone surrogate in a \u escape: no file holds it
    except UnreadableNotebook:
        raise
    except UnicodeDecodeError:
        raise UnreadableNotebook(N_("not a UTF-8 text file")) from None
    except json.JSONDecodeError as error:
        where = N_("not valid JSON (line {line}, column {column})")
        raise UnreadableNotebook(where.format(line=error.lineno, column=error.colno)) from None
    except (ValueError, RecursionError) as error:  # a 5,000-digit number, [[[[...]]]] at any depth
        deep = N_("JSON no reader can hold ({error})")
        raise UnreadableNotebook(deep.format(error=type(error).__name__)) from None
    except OSError as error:
        raise UnreadableNotebook(N_("cannot be read ({why})").format(why=reason(error))) from None


def _count_values(raw: str) -> None:
    """Refuse JSON of more than ``MAX_VALUES`` values before it is parsed: an empty list is 2
    bytes in a file and 64 once parsed, so a file's size alone does not bound the memory
    reading it takes. Counts the commas and brackets outside strings, in one pass."""
    found = raw.count(",") + raw.count("[") + raw.count("{")
    if found > MAX_VALUES:  # rare: count again without what strings hold (code has commas)
        bare = _STRING.sub("", raw)
        found = bare.count(",") + bare.count("[") + bare.count("{")
    if found > MAX_VALUES:
        many = N_(
            "JSON of more than {count} values, which no notebook needs (save it without its "
            "outputs)"
        )
        raise UnreadableNotebook(many.format(count=f"{MAX_VALUES:,}"))


def _read_regular_file(path: Path, own: bool = False) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``MAX_BYTES`` (with ``own``:
    and the file's only name), judged by what was opened, never by an earlier look.

    Never follows a symlink and never blocks on a FIFO (it is opened non-blocking, then
    refused), so one odd submission cannot hang or flood the grader.
    """
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnreadableNotebook(N_("not a plain file: it is a symlink")) from None
        unreadable = N_("not a plain file: it is unreadable ({why})")
        raise UnreadableNotebook(unreadable.format(why=reason(error))) from None
    with os.fdopen(handle, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableNotebook(N_("not a plain file (a FIFO, socket or device)"))
        if own and info.st_nlink > 1:
            raise UnreadableNotebook(N_("a hard link: {why}").format(why=ANOTHERS))
        if info.st_size > MAX_BYTES:
            too_large = N_("too large: {size} MiB, over {limit}")
            raise UnreadableNotebook(
                too_large.format(size=info.st_size >> 20, limit=MAX_BYTES >> 20)
            )
        return f.read(info.st_size + 1)  # not a buffer of MAX_BYTES for a small file


def _upgrade(nb: dict) -> dict:
    """A version-3 notebook converted to version 4 by nbformat (as Jupyter opens one)."""
    try:
        return json.loads(json.dumps(nbformat.convert(nbformat.from_dict(nb), 4)))
    except Exception as error:  # nbformat raises many kinds on a broken v3 file
        old = N_("a version-3 notebook that cannot be converted: {error}")
        raise UnreadableNotebook(old.format(error=error)) from None


def normalise(nb) -> dict:
    """Check the notebook's outline and join list-of-lines sources into strings."""
    if isinstance(nb, dict) and nb.get("nbformat") == 3:
        nb = _upgrade(nb)
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise UnreadableNotebook(N_("not a notebook (no list of cells)"))
    if nb.get("nbformat") != 4:
        format_ = N_("notebook format {version} is not 4")
        raise UnreadableNotebook(format_.format(version=repr(nb.get("nbformat"))))
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise UnreadableNotebook(
                N_("cell {index} is not a code, markdown or raw cell").format(index=index)
            )
        if not isinstance(cell.get("metadata", {}), dict):
            raise UnreadableNotebook(N_("cell {index} has invalid metadata").format(index=index))
        if not is_text(cell.get("source", "")):
            raise UnreadableNotebook(N_("cell {index}'s source is not text").format(index=index))
        cell["source"] = text(cell.get("source", ""))
        cell.setdefault("metadata", {})
        if cell["cell_type"] == "code":
            cell.setdefault("outputs", [])
            cell.setdefault("execution_count", None)
    if not isinstance(nb.setdefault("metadata", {}), dict):
        raise UnreadableNotebook(N_("its metadata is not a JSON object"))
    nb.setdefault("nbformat_minor", 4)
    return nb


def write_notebook(nb: dict, path: str | Path) -> None:
    """Write ``nb`` as JSON the way nbformat does (sorted keys, one-space indent)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False)
    path.write_text(body + "\n", encoding="utf-8")
