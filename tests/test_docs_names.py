"""The course and the docs cite only names that exist where they say.

A reader told "read `_send` in `autogradkit/autograd/engine.py`" opens the file and greps. So,
in the course's text (the markdown cells and comments of ``notebooks/source/*/*.py``, the
``.zh-CN.md`` and ``.zh-TW.md`` twins, ``notebooks/*.md``), ``docs/*.md``, the README,
CONTRIBUTING and the module docstrings of the kit and its tools, every *citation* must hold.
What counts as citing is an allow-list of shapes, in code font (`x` or ``x``):

- **a name beside a kit file**: in the same sentence as the path of a kit file
  (`autogradkit/autograd/engine.py`, or a shorter `autograd/engine.py`, `engine.py`, which
  must then name one kit file; a module docstring may name a file beside it), or in a list
  item under a sentence or item that names it: a name whose underscore joins two words or
  leads it (`run_backward`, `_seeds`; not PyTorch's in-place `fill_`), or one written as a
  call (`name()`). One of the files cited must bind it. Plain words (`backward`, `walk`) and
  CamelCase classes alone are not read as citations: they are English or PyTorch's as often
  as the file's. A sentence, not a paragraph: a paragraph often cites several files, each
  for its own names.
- **a qualified name**, with or without a path: `module.name` whose module is a kit module no
  other file of the repository is named like and the kit never names a value like
  (`engine.run_backward`, `utils.hooks.next_id`; not `loss.backward()`), and `Class.name`
  whose class the kit defines in one file (`TensorBase._wrap`, `Function.apply`): the
  module, or the class or one of its bases, must bind the name.

"Bound" is read from the syntax tree: a def, class, method, assignment, attribute set on
``self`` or on the class, parameter, ``__slots__`` entry or import. Every `autogradkit/...`
path written anywhere in these texts must exist.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
from pathlib import Path

import pytest

from .optional import skip_module_unless

ROOT = Path(__file__).resolve().parents[1]
KIT = ("autogradkit", "autogradkit_instructor")
KIT_DIRS = tuple(f"{package}/" for package in KIT)
CODE = re.compile(r"(`+)(.+?)\1")
PATH = re.compile(r"^(?:[\w.-]+/)*[\w-]+\.py$")
FILE = re.compile(r"\.(?:py|ipynb|md|json|ya?ml|toml|csv|po|txt|cfg|sh)$")  # a file, not a name
NAME = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(\(\))?$")
WORDS_JOINED = re.compile(r"^_|[^\W_]_[^\W_]")  # `_seeds`, `run_backward`; not `fill_`
KIT_PATH = re.compile(r"(?<![\w/.-])autogradkit(?:_instructor)?(?:/[\w.-]+)+")  # not in a URL
# docs/translating.md's stand-in for the code of the language a reader adds: files it makes
STAND_IN = re.compile(r"/ja\.\w+$")
# a unit of prose: a sentence, a list item or a table row (Chinese sentences end without a space)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`(\[])|(?<=;)\s|(?<=[。！？；])")
ITEM = re.compile(r"\n(?=[ \t]*(?:[-*|]|\d+\.)\s)")  # a list item or a table row


@functools.cache
def repository_files() -> tuple[str, ...]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return tuple(out.stdout.split())


@functools.cache
def resolve(path: str, here: str = "") -> str | None:
    """The kit file ``path`` names: beside the text (``here``, a module docstring's folder),
    else the one file of the repository whose path ends with it."""
    if here and f"{here}/{path}" in repository_files():
        return f"{here}/{path}"
    hits = [f for f in repository_files() if f == path or f.endswith("/" + path)]
    return hits[0] if len(hits) == 1 and hits[0].startswith(KIT_DIRS) else None


@functools.cache
def kit_files_ending(path: str) -> list[str]:
    """The kit files whose path ends with ``path``."""
    return [
        f for f in repository_files() if f.startswith(KIT_DIRS) and f"/{f}".endswith(f"/{path}")
    ]


@functools.cache
def bindings(path: str) -> tuple[frozenset[str], dict[str, tuple[frozenset[str], tuple]]]:
    """The names ``path`` binds anywhere, and for each class its own names and its bases."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    classes = {
        node.name: (frozenset(_bound(node)), tuple(ast.unparse(b) for b in node.bases))
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    return frozenset(_bound(tree)), classes


def _bound(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            names.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant))
    return names


@functools.cache
def kit_modules() -> dict[str, str]:
    """Each kit module's dotted names (``autograd.engine``, ``engine``) -> its file, when no
    other Python file of the repository has that name (``checks`` is each notebook's too) and
    the kit's code never names a value so (``loss.backward()`` is a tensor's)."""
    found: dict[str, list[str]] = {}
    for path in repository_files():
        if path.endswith(".py"):
            parts = path[: -len(".py")].split("/")
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            for start in range(len(parts)):
                found.setdefault(".".join(parts[start:]), []).append(path)
    values = set().union(*(values_bound(p) for paths in found.values() for p in paths[:1]))
    return {
        dotted: paths[0]
        for dotted, paths in found.items()
        if len(paths) == 1 and paths[0].startswith(KIT_DIRS) and dotted not in {*KIT, *values}
    }


@functools.cache
def values_bound(path: str) -> frozenset[str]:
    """The names ``path`` binds to values (not by import): `loss`, `tensor`, but not `engine`."""
    if not path.startswith(KIT_DIRS):
        return frozenset()
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    kinds = (ast.arg, ast.Name, ast.FunctionDef, ast.ClassDef)
    nodes = [n for n in ast.walk(tree) if isinstance(n, kinds)]
    return frozenset(
        getattr(n, "arg", None) or getattr(n, "name", None) or n.id
        for n in nodes
        if not isinstance(n, ast.Name) or isinstance(n.ctx, ast.Store)
    )


@functools.cache
def kit_classes() -> dict[str, str]:
    """Each class the kit defines in just one file -> that file."""
    found: dict[str, list[str]] = {}
    for path in set(kit_modules().values()):
        for name in bindings(path)[1]:
            found.setdefault(name, []).append(path)
    return {name: paths[0] for name, paths in found.items() if len(paths) == 1}


def class_binds(cls: str, name: str) -> bool:
    """Whether the kit's ``cls``, or a base class of it the kit defines, binds ``name``."""
    seen, todo = set(), [cls]
    while todo:
        current = todo.pop()
        if current in seen or current not in kit_classes():
            continue
        seen.add(current)
        own, bases = bindings(kit_classes()[current])[1][current]
        if name in own:
            return True
        todo.extend(base.rsplit(".", 1)[-1] for base in bases)
    return False


def cited_files(text: str, here: str = "") -> list[str]:
    """The kit files ``text`` (written in the folder ``here``) names in code font."""
    spans = [m.group(2).strip() for m in CODE.finditer(text)]
    return [f for f in (resolve(s, here) for s in spans if PATH.match(s)) if f]


def wrong_citations(unit: str, context: str = "", here: str = "") -> list[str]:
    """What ``unit`` (one sentence, in a list item under ``context``, of a text in the folder
    ``here``) cites that is not where it says."""
    spans = [m.group(2).strip() for m in CODE.finditer(unit)]
    files = cited_files(unit, here) + cited_files(context, here)
    bound = set().union(*(bindings(f)[0] for f in files))
    wrong = []
    for span in spans:
        match = NAME.match(span)
        if not match or FILE.search(span):
            continue
        name, called = match.groups()
        head, _, rest = name.rpartition(".")
        if head in kit_modules():
            if rest not in bindings(kit_modules()[head])[0] and name not in kit_modules():
                wrong.append(f"`{span}`: {kit_modules()[head]} binds no `{rest}`")
        elif head in kit_classes():
            if not class_binds(head, rest):
                wrong.append(f"`{span}`: {kit_classes()[head]}'s {head} has no `{rest}`")
        elif not head and files and (WORDS_JOINED.search(name) or called) and name not in bound:
            wrong.append(f"`{span}`: not in {', '.join(files)}")
    return wrong


def units(text: str) -> list[tuple[str, str]]:
    """The sentences of ``text``'s paragraphs, list items and table rows, each with the text
    that introduces it: a list item's parent item, or the sentence before a list."""
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        parents: list[tuple[int, str]] = [(-1, "")]  # (indent, text) of the enclosing items
        for item in ITEM.split(paragraph):
            indent = len(item) - len(item.lstrip(" \t"))
            while parents[-1][0] >= indent:
                parents.pop()
            context = parents[-1][1]
            found += [(s, context) for s in SENTENCE_END.split(item) if s.strip()]
            parents.append((indent, context + item))
    return found


def comment_blocks(source: str) -> str:
    """A Jupytext source's markdown cells and comments as Markdown, a blank line between two
    blocks of comment lines."""
    lines = []
    for line in source.splitlines():
        comment = line.strip()
        if comment.startswith("#") and not comment.startswith("# %%"):
            lines.append(comment[1:].removeprefix(" "))
        elif lines and lines[-1]:
            lines.append("")
    return "\n".join(lines)


def texts() -> dict[str, str]:
    """Every text a reader reads as the course or the docs, by path."""
    prose = [
        *sorted(ROOT.glob("notebooks/source/*/*.*.md")),
        *sorted(ROOT.glob("notebooks/*.md")),
        *sorted(ROOT.glob("docs/*.md")),
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
    ]
    found = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in prose}
    for source in sorted(ROOT.glob("notebooks/source/*/*.py")):
        found[source.relative_to(ROOT).as_posix()] = comment_blocks(source.read_text("utf-8"))
    for path in repository_files():
        if path.endswith(".py") and path.startswith((*KIT_DIRS, "tools/")):
            docstring = ast.get_docstring(ast.parse((ROOT / path).read_text(encoding="utf-8")))
            found[path] = docstring or ""
    return found


skip_module_unless("git")  # the texts are those of the tracked files
TEXTS = texts()


@pytest.mark.parametrize("path", sorted(TEXTS))
def test_every_name_cited_in_a_kit_file_is_there(path):
    here = folder(path)
    wrong = [w for u, context in units(TEXTS[path]) for w in wrong_citations(u, context, here)]
    assert not wrong, f"{path} cites names that are not where it says:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", sorted(TEXTS))
def test_a_kit_file_cited_by_a_short_path_is_one_file(path):
    """`graph.py` is autograd's and viz's: a reader must be told which (`autograd/graph.py`);
    a module's docstring may name a file beside it by its name alone."""
    spans = {m.group(2).strip() for m in CODE.finditer(TEXTS[path])}
    ambiguous = sorted(
        f"`{span}`: {', '.join(kit_files_ending(span))}"
        for span in spans
        if PATH.match(span) and not resolve(span, folder(path)) and len(kit_files_ending(span)) > 1
    )
    assert not ambiguous, f"{path} cites a file more than one path ends with:\n" + "\n".join(
        ambiguous
    )


def folder(path: str) -> str:
    """Where a text is written, for the short paths it cites: a kit module's own folder."""
    return path.rsplit("/", 1)[0] if path.startswith(KIT_DIRS) else ""


@pytest.mark.parametrize("path", sorted(TEXTS))
def test_every_kit_path_cited_exists(path):
    cited = {p.rstrip(".") for p in KIT_PATH.findall(TEXTS[path]) if not STAND_IN.search(p)}
    missing = sorted(p for p in cited if not (ROOT / p).exists())
    assert not missing, f"{path} cites paths that do not exist: {missing}"


@pytest.mark.parametrize(
    ("sentence", "wrong"),
    [
        ("Read it in `autogradkit/autograd/engine.py`: `_count_dependencies` and `_send`.", 2),
        ("这些都能在 `autogradkit/autograd/engine.py` 里读到：`_send`。", 1),
        ("`engine.py` has `run_backward`, `_seeds` and `gradient_edge()`.", 0),
        ("`engine.py` has `count_dependencies()`.", 1),
        ("`run_backward` (`autograd/engine.py`) calls PyTorch's `Tensor` and `backward`.", 0),
        ("`engine.run_backward` and `engine.count_dependencies`, no file named.", 1),
        ("`TensorBase._wrap`, `Function.apply`, `Tensor.backward` (a base's).", 0),
        ("`AccumulateGrad.run`, `torch.Tensor.foo`, `np.nothing`.", 1),
        ("`checks.py` has `no_such_name`: which checks.py is not one file.", 0),
    ],
)
def test_the_rule_reads_citations_as_a_reader_does(sentence, wrong):
    assert len(wrong_citations(sentence)) == wrong, wrong_citations(sentence)


def test_a_list_item_cites_the_file_its_parent_item_names():
    text = "1. **`autograd/engine.py`** runs it:\n   - `run_backward` then `count_dependencies`.\n"
    assert [w for u, c in units(text) for w in wrong_citations(u, c)] == [
        "`count_dependencies`: not in autogradkit/autograd/engine.py"
    ]
    text = "`engine.py` holds it.\n\n- `count_dependencies`, in no file named.\n"
    assert [w for u, c in units(text) for w in wrong_citations(u, c)] == []
