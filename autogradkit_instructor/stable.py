"""Text that differs between two runs of the same notebook, made the same (for ``release``).

Each function keeps what the output means and replaces only what is accidental: memory
addresses (renumbered in order of appearance, so one object keeps one address), kernel
process ids in warning paths, machine-specific folders and random widget ids. Every result
still matches the project's nbval sanitize rules (``tests/nbval_sanitize.cfg``).
"""

from __future__ import annotations

import json
import re
import sysconfig
import uuid
from pathlib import Path

__all__ = [
    "ADDRESS",
    "KERNEL_TMP",
    "renumber_addresses",
    "kernel_paths",
    "strip_paths",
    "stable_widget_ids",
]

ADDRESS = re.compile(r"\b0x[0-9a-f]{9,16}\b")  # 9+ digits: an address, not a constant like 0xff
# ipykernel names a cell's file in the temporary folder, which TMPDIR may put anywhere
KERNEL_TMP = re.compile(r"(?:/[^/\n:\"']+)*/ipykernel_\d+(?=/)")


def renumber_addresses(text: str, seen: dict[str, str]) -> str:
    """Replace each memory address by ``0x7f00000000NN``, the same one for the same address.

    Example:
        >>> a, b = "<A at 0x7f3a9c1d2e50>", "<B at 0x7f3a9c1d2f10>"
        >>> renumber_addresses(f"{a} {b} {a}", {})
        '<A at 0x7f0000000010> <B at 0x7f0000000020> <A at 0x7f0000000010>'
    """

    def stable(match: re.Match) -> str:
        return seen.setdefault(match.group(0), f"0x{0x7F0000000000 + 0x10 * (len(seen) + 1):x}")

    return ADDRESS.sub(stable, text)


def kernel_paths(text: str) -> str:
    """``/tmp/ipykernel_12345/678.py`` -> ``/tmp/ipykernel_0/678.py`` (678 hashes the code),
    whatever the temporary folder (TMPDIR) of the machine that ran it.

    Example:
        >>> kernel_paths("/tmp/ipykernel_4312/1862252472.py:3: UserWarning")
        '/tmp/ipykernel_0/1862252472.py:3: UserWarning'
        >>> import os, tempfile
        >>> deep = os.path.join(tempfile.gettempdir(), "my tmp", "ipykernel_77")  # any TMPDIR
        >>> kernel_paths(f"{deep}/1862252472.py:3: UserWarning")
        '/tmp/ipykernel_0/1862252472.py:3: UserWarning'
    """
    return KERNEL_TMP.sub("/tmp/ipykernel_0", text)


def strip_paths(line: str, workdir: Path) -> str:
    """Remove the prefixes of the folders a run's files are in: Python's libraries (the
    standard one and site-packages), the notebook's folder and this checkout, the longest
    first (site-packages may be inside the standard library's folder).

    Example:
        >>> import sysconfig, tempfile
        >>> work = Path(tempfile.gettempdir(), "autogradkit-build-x1y2", "08_quiz")
        >>> strip_paths(f"{work}/loader.py:5: UserWarning", work)
        'loader.py:5: UserWarning'
        >>> strip_paths(sysconfig.get_paths()["stdlib"] + "/json/decoder.py:3: Warn", work)
        'json/decoder.py:3: Warn'
    """
    paths = sysconfig.get_paths()
    checkout = Path(__file__).resolve().parents[1]
    prefixes = {paths[kind] for kind in ("stdlib", "platstdlib", "purelib", "platlib")}
    prefixes |= {str(workdir.resolve()), str(checkout)}
    for prefix in sorted(prefixes, key=len, reverse=True):
        line = line.replace(prefix + "/", "")
    return line


def stable_widget_ids(nb, name: str, state: dict):
    """Rename widget model ids (random UUIDs) after ``name`` and their order of creation."""
    body = json.dumps(nb)
    for index, model_id in enumerate(list(state)):
        body = body.replace(model_id, uuid.uuid5(uuid.NAMESPACE_URL, f"{name}/{index}").hex)
    return _rebuild(json.loads(body), type(nb))


def _rebuild(value, node_type):
    """Turn plain dicts back into the notebook's node type (nbformat's NotebookNode)."""
    if isinstance(value, dict):
        return node_type({k: _rebuild(v, node_type) for k, v in value.items()})
    if isinstance(value, list):
        return [_rebuild(v, node_type) for v in value]
    return value
