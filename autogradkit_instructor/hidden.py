"""Hidden checks reach a grading kernel only when the test cell that calls them runs.

A submission's sandbox holds the released files, whose ``checks.py`` has no hidden checks
(``release`` deletes each ``### BEGIN HIDDEN TESTS`` .. ``### END HIDDEN TESTS`` region). Just
before a test cell runs, the grader sends the kernel the definitions from those regions that
this cell calls (and what they use), and they are run inside the module they came from. Before
that cell, no file and no object of the kernel holds them.

Example:
    >>> code = "@check.exercise('f', hidden=True)\\ndef twice(obs, f):\\n    helper()\\n"
    >>> code += "def helper():\\n    pass\\ndef other(obs, f):\\n    pass\\n"
    >>> print(needed(code, "checks.twice()"))
    @check.exercise('f', hidden=True)
    def twice(obs, f):
        helper()
    def helper():
        pass
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from . import cells, pyast

__all__ = ["SHIP", "hidden_code", "needed", "ship_code"]

# run in the module the code came from, its source kept in linecache as IPython keeps a
# cell's: the by-hand interpreter rebuilds a check's trial from its lines (``obs.without``)
SHIP = (
    "import importlib as _i, linecache as _l; _c, _n = {code!r}, '<hidden checks of {module}>'; "
    "_l.cache[_n] = (len(_c), None, _c.splitlines(True), _n); "
    "exec(compile(_c, _n, 'exec'), _i.import_module({module!r}).__dict__); del _i, _l, _c, _n"
)


def hidden_code(folder: Path) -> dict[str, str]:
    """``{module name: the code of its hidden regions}`` for the ``.py`` files of ``folder``
    (the assignment's source folder) that have some."""
    found = {}
    for path in sorted(Path(folder).glob("*.py")):
        text = path.read_text(encoding="utf-8")
        regions = cells.regions(text, *cells.HIDDEN_TESTS)
        if regions and not path.with_suffix(".ipynb").exists():  # not a notebook's text source
            found[path.stem] = "\n".join(textwrap.dedent(region) for region in regions)
    return found


def needed(code: str, cell_source: str) -> str:
    """The top-level statements of ``code`` that define a name ``cell_source`` uses, and,
    in turn, the names those use; statements that define nothing are kept too."""
    statements = pyast.parse(code).body
    wanted, kept = _used(cell_source), set()
    while True:
        more = {
            i
            for i, node in enumerate(statements)
            if i not in kept and (not _defined(node) or _defined(node) & wanted)
        }
        if not more:
            break
        kept |= more
        for i in more:
            wanted |= _used(statements[i])
    return "\n".join(ast.unparse(statements[i]) for i in sorted(kept))


def ship_code(hidden: dict[str, str], cell_source: str) -> str | None:
    """The code that defines, in their modules, the hidden checks ``cell_source`` calls (None
    when it calls none)."""
    parts = []
    for module, code in sorted(hidden.items()):
        try:
            chosen = needed(code, cell_source)
        except SyntaxError:  # the instructor's region does not parse alone: send it whole
            chosen = code
        if chosen.strip():
            parts.append(SHIP.format(code=chosen, module=module))
    return "\n".join(parts) or None


def _defined(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    found = set()
    for target in ast.walk(node):
        if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
            found.add(target.id)
        elif isinstance(target, ast.alias):
            found.add((target.asname or target.name).split(".")[0])
    return found


def _used(tree: ast.AST | str) -> set[str]:
    """Every name and attribute name that ``tree`` (or the code in a string) mentions."""
    if isinstance(tree, str):
        try:
            tree = pyast.parse(tree)
        except SyntaxError:
            return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
    return found
