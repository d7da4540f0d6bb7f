"""What comes from a submission, made safe to keep: bounded, valid text, never verbatim.

A submission's kernel only produces data, and so does its notebook file and its folder name.
The grader checks the type and the size of each piece before using it; these helpers are the
checks every part of the grader shares:

* ``clean`` makes any JSON-like value safe to write as UTF-8 (a lone surrogate such as
  ``"\\ud800"`` is valid in a Python ``str`` and in JSON's ``\\u`` escapes, but no file can
  hold it);
* ``text`` turns one untrusted value into one short line that shows as it is (a character
  that does not print, such as a right-to-left override, is written as its escape);
* ``name`` shows a file name (a student's) with every character that does not print as its
  escape (``b"ann\\xff"`` as ``ann\\xff``): two names never show alike, none is a path;
* ``bounded`` keeps at most ``MAX_NOTES`` notes of at most ``MAX_NOTE_CHARS`` characters.

Example:
    >>> text("a\\ud800b\\n=1+1" * 40, limit=12)
    'a\\\\ud800b =1…'
    >>> name("ann\\udcff")
    'ann\\\\xff'
    >>> len(bounded([f"note {i}" for i in range(100)]))
    20
"""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "MAX_NOTES",
    "MAX_NOTE_CHARS",
    "MAX_DEPTH",
    "clean",
    "text",
    "name",
    "student_name",
    "bounded",
]

MAX_NOTES = 20  # review notes or issues kept per row
MAX_NOTE_CHARS = 300  # characters kept per note
MAX_DEPTH = 64  # lists and dicts one inside the other that a kernel's output may hold
_BREAKS = re.compile(r"[^\S ]+")  # whitespace but the plain space: newlines, tabs...
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean(value, max_depth: int | None = None):
    """``value`` (JSON-like: dicts, lists, str, numbers) with every string made valid UTF-8;
    keys that are not strings are dropped, anything that is not JSON becomes its type's name,
    and so does a list or dict nested deeper than ``max_depth`` (a kernel's output nested 900
    deep is no output anyone reads, and every later walk of it would recurse)."""
    if isinstance(value, str):
        return _valid(value)
    if isinstance(value, dict | list | tuple) and max_depth is not None and max_depth <= 0:
        return type(value).__name__
    deeper = None if max_depth is None else max_depth - 1
    if isinstance(value, dict):
        return {_valid(k): clean(v, deeper) for k, v in value.items() if isinstance(k, str)}
    if isinstance(value, list | tuple):
        return [clean(v, deeper) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return type(value).__name__


def text(value, limit: int = MAX_NOTE_CHARS) -> str:
    """One line of at most ``limit`` characters, shown as it is: whitespace (a newline, a
    tab) becomes a space, and every other character that does not print (a control
    character, a terminal's escape, a right-to-left override, a zero-width space, a lone
    surrogate) is written as its escape, so the line reorders and hides nothing around it. A
    value that is not a string is named by its type only."""
    if not isinstance(value, str):
        value = f"<{type(value).__name__}>"
    line = _BREAKS.sub(" ", value[: 64 * limit]).strip()
    line = "".join(char if char.isprintable() else _escape(char) for char in line)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def name(file_name: str) -> str:
    """A file or folder name as printable text that is also a safe folder name of its own.

    Every character that does not print (a control character, a right-to-left override, a
    byte that is not UTF-8, which Python keeps as a lone surrogate) is written as its escape,
    and a backslash is doubled, so two different names never show alike; ``.`` and ``..``
    (the folder itself, its parent) are written ``\\x2e``.

    Example:
        >>> name("ann\\udcff"), name("ann\\\\xff"), name("\\u202eann"), name("..")
        ('ann\\\\xff', 'ann\\\\\\\\xff', '\\\\u202eann', '\\\\x2e\\\\x2e')
    """
    shown = "".join(_escape(char) for char in file_name)
    return shown.replace(".", "\\x2e") if shown in (".", "..") else shown


def student_name(file_name: str, max_bytes: int = 255) -> str:
    """``name(file_name)``, which the grader also makes folders of: one whose escapes take it
    past a folder name's ``max_bytes`` is cut, and ends with a hash of the whole name.

    Example:
        >>> len(student_name("\\udcff" * 100).encode()), student_name("ann")
        (255, 'ann')
    """
    shown = name(file_name)
    if len(shown.encode()) <= max_bytes:
        return shown
    whole = hashlib.sha256(file_name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return shown.encode()[: max_bytes - 17].decode("utf-8", "ignore") + "~" + whole


def _escape(char: str) -> str:
    if char == "\\":
        return "\\\\"
    if "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8 (os.fsdecode's surrogate)
        return f"\\x{ord(char) - 0xDC00:02x}"
    if char.isprintable():
        return char
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def bounded(notes: list[str], limit: int = MAX_NOTES) -> list[str]:
    """The first ``limit`` notes, each one line of text; one more note says how many were left
    out."""
    kept = [text(note) for note in notes[:limit]]
    if len(notes) > limit:
        kept[-1] = f"... and {len(notes) - limit + 1} more notes"
    return kept


def _valid(value: str) -> str:
    """``value`` with each lone surrogate replaced by ``\\ufffd``."""
    return _SURROGATE.sub("\ufffd", value)
