"""A notebook in another language, from the one source: its translation file and its catalogs.

``source/NN_name/NN_name.<language>.md`` holds the prose, one section per cell id::

    <!-- 00-running-cells en:3f2a9c1b -->
    ## 1. 运行单元格
    ...

``en:`` is the start of the sha256 of the English cell the section translates, so a section
whose English changed since is found (*stale*). A code cell's section is the whole cell in a
```` ```python ```` fence, changed only in its comments and strings (``same_code``).
``source/NN_name/checks.<language>.po`` translates the texts ``checks.py`` writes
(``check_texts`` finds them); ``autogradkit/grading/locale/<language>.po``, the kit's own
words (``kit_messages``). ``autogradkit translate`` writes and updates all three (``update``).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import io
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po
from IPython.core.inputtransformer2 import TransformerManager
from markdown_it import MarkdownIt

from autogradkit._i18n import KIT_CATALOGS, LANGUAGES, TEMPLATE_FLAG

from . import cells
from .build import read_text_source, text_sources

__all__ = [
    "SECTION",
    "UNTRANSLATED",
    "FENCE",
    "OBSERVING",
    "MARKER",
    "Section",
    "english_hash",
    "translation_path",
    "read_sections",
    "problems",
    "structural",
    "stale",
    "section_text",
    "same_code",
    "translate_notebook",
    "check_texts",
    "kit_messages",
    "update",
    "status",
    "nb_name",
    "catalog_problems",
    "placeholders",
    "update_catalog",
    "update_kit_catalog",
    "translate_assignments",
]

SECTION = re.compile(r"<!-- (?P<id>[A-Za-z0-9_-]{1,64}) en:(?P<hash>[0-9a-f]{8}) -->")
UNTRANSLATED = "UNTRANSLATED"  # first line of a section still holding the English
FENCE = re.compile(r"```python\n(?P<code>.*?)\n?```", re.S)
OBSERVING = ("require", "close", "equal", "predicted")  # Observer methods: name first, hint=
# nbgrader's region markers: a translation keeps them as they are, where they are
MARKER = re.compile(r"^\s*#+\s*(BEGIN|END) (SOLUTION|HIDDEN TESTS)\s*$", re.M)


@dataclass
class Section:
    """One cell's translation: its ``text`` (markdown, or the code of a code cell), the hash
    of the English it translates, and the line of the file it starts on."""

    cell_id: str
    english: str
    text: str
    line: int


def english_hash(source: str) -> str:
    """The first 8 hex digits of the sha256 of an English cell's source."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:8]


def translation_path(text_source: Path, language: str) -> Path:
    """``source/NN/NN.py`` -> ``source/NN/NN.<language>.md``."""
    return Path(text_source).with_suffix(f".{language}.md")


def read_sections(path: Path) -> dict[str, Section]:
    """The sections of a translation file, by cell id (an HTML comment before the first
    section is the file's own note and is ignored).

    Raises:
        ValueError: a cell id has two sections.
    """
    sections: dict[str, Section] = {}
    current: Section | None = None
    lines: list[str] = []

    def close() -> None:
        if current is not None:
            current.text = "\n".join(lines).strip("\n")

    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        found = SECTION.fullmatch(line.strip())
        if found:
            close()
            if found["id"] in sections:
                raise ValueError(f"{path}:{number}: a second section for {found['id']}")
            current, lines = Section(found["id"], found["hash"], "", number), []
            sections[current.cell_id] = current
        elif current is not None:
            lines.append(line)
    close()
    return sections


def _needs_section(cell) -> bool:
    return cell["cell_type"] == "markdown"


def problems(nb, sections: dict[str, Section], where: str = "") -> list[str]:
    """What keeps ``sections`` from translating ``nb`` exactly, one sentence each.

    Every markdown cell needs a section; a section must name a cell of ``nb``, be up to date
    with its English (``en:``, see ``stale``), not start with ``UNTRANSLATED``, and, for a code
    cell, be the same code with other comments and strings; test cells are never translated.
    """
    return structural(nb, sections, where) + stale(nb, sections, where)


def structural(nb, sections: dict[str, Section], where: str = "") -> list[str]:
    """The problems that make a translation unusable (all of ``problems`` but staleness)."""
    found = []
    by_id = {cell["id"]: cell for cell in nb["cells"]}
    for cell in nb["cells"]:
        if _needs_section(cell) and cell["id"] not in sections:
            found.append(f"{where}cell {cell['id']} has no translation")
    for cell_id, section in sections.items():
        place = f"{where}line {section.line}: {cell_id}"
        cell = by_id.get(cell_id)
        if cell is None:
            found.append(f"{place}: the source has no such cell (translated prose it lost?)")
            continue
        if section.text.startswith(UNTRANSLATED):
            found.append(f"{place}: still marked {UNTRANSLATED}")
        elif cell["cell_type"] == "code":
            found += [f"{place}: {p}" for p in _code_problems(cell, section.text)]
        elif not section.text.strip():
            found.append(f"{place}: the translation is empty")
        else:
            found += [f"{place}: {p}" for p in prose_problems(section.text)]
    return found


HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
WIDE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff01-\uff60]")  # Han, CJK punctuation


PUNCTUATION = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff1f\uff5b-\uff60]")


def breaks_badly(last: str, first: str) -> bool:
    """A line break between these characters shows as a space a reader sees: after a Chinese
    character before another, and on either side of full-width punctuation (``。\n下`` reads
    "。 下")."""
    return bool(
        PUNCTUATION.match(first)
        or PUNCTUATION.match(last)
        or (HAN.match(last) and WIDE.match(first))
    )


def prose_problems(markdown: str) -> list[str]:
    """What a Chinese reader would see wrong in the rendered ``markdown`` (JupyterLab renders
    CommonMark, as markdown-it does): emphasis markers left as text (``**用时：**约``: a ``**``
    between full-width punctuation and a letter closes nothing), and a line break between two
    Chinese characters, which the browser draws as a space (``用\n时`` -> "用 时")."""
    found = []
    for block in MarkdownIt("commonmark").parse(markdown):
        children = block.children or ()
        for before, token, after in zip(children, children[1:], children[2:]):
            if token.type == "softbreak" and before.content and after.content:
                if breaks_badly(before.content[-1], after.content[0]):
                    found.append(
                        f"a line break between '{before.content[-4:]}' and "
                        f"'{after.content[:4]}' shows as a space: join the lines"
                    )
        depth = 0
        for token in children:  # **a（b）**c: the closer fails, and the next ** nests instead
            depth += {"strong_open": 1, "strong_close": -1}.get(token.type, 0)
            if token.type == "strong_open" and depth > 1:
                found.append(
                    "bold inside bold: a ** before full-width punctuation and a letter closes "
                    "nothing (**随机梯度下降**（SGD）)"
                )
        parts = [c for c in children if c.type == "text"]
        for token in parts:
            if "**" in token.content or "__" in token.content:
                found.append(
                    f"'{token.content.strip()[:30]}' shows its asterisks: put full-width "
                    "punctuation outside the ** (**用时**：)"
                )
    return found


def stale(nb, sections: dict[str, Section], where: str = "") -> list[str]:
    """Sections whose English cell changed since they were translated (their ``en:`` hash)."""
    found = []
    for cell in nb["cells"]:
        section = sections.get(cell["id"])
        now = english_hash(cells.text(cell["source"]))
        if section is not None and section.english != now:
            found.append(
                f"{where}line {section.line}: {cell['id']}: the English changed since it was "
                f"translated: update the translation, then write en:{now}"
            )
    return found


def _code_problems(cell, text: str) -> list[str]:
    if cells.is_grade(cell):
        return ["a test cell is never translated (its code is the grader's)"]
    fenced = FENCE.fullmatch(text.strip())
    if fenced is None:
        return ["a code cell's translation is one ```python fence holding the whole cell"]
    english, translated = cells.text(cell["source"]), fenced["code"]
    try:
        same = same_code(english, translated)
    except SyntaxError as error:
        return [f"the translated code does not parse ({error.msg}, line {error.lineno})"]
    if not same:
        return ["the code differs from the English beyond comments and strings"]
    if _markers(english) != _markers(translated):
        return ["the ### BEGIN/END SOLUTION and HIDDEN TESTS lines must stay as they are"]
    return []


def _markers(code: str) -> list[str]:
    return [found.group(0).strip() for found in MARKER.finditer(code)]


def section_text(cell, section: Section) -> str:
    """The cell source a section gives (a code cell's fence removed)."""
    if cell["cell_type"] == "code":
        return FENCE.fullmatch(section.text.strip())["code"]
    return section.text


def same_code(english: str, translated: str) -> bool:
    """Whether two code cells are one program: the same syntax tree once every string is
    blanked out (an f-string keeps its expressions, in any order), comments aside."""
    return _shape(english) == _shape(translated)


class _BlankStrings(ast.NodeTransformer):
    def visit_Constant(self, node):
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node):
        values = [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
        return ast.Constant("\n".join(sorted(ast.dump(self.visit(v)) for v in values)))


def _shape(code: str) -> str:
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython syntax (a magic): compare what IPython would run
        tree = ast.parse(TransformerManager().transform_cell(code))
    return ast.dump(_BlankStrings().visit(tree))


def translate_notebook(nb, sections: dict[str, Section], language: str):
    """A copy of ``nb`` in ``language``: each cell with a section gets its text, and the
    notebook's metadata says the language (``autogradkit.language``).

    Raises:
        ValueError: the sections do not translate ``nb`` (``structural``); a stale section is
            used as it is (``stale`` finds it).
    """
    blocking = structural(nb, sections)
    if blocking:
        raise ValueError("; ".join(blocking))
    out = copy.deepcopy(nb)
    for cell in out["cells"]:
        if cell["id"] in sections:
            cell["source"] = section_text(cell, sections[cell["id"]])
    out["metadata"].setdefault("autogradkit", {})["language"] = language
    return out


# ----- the texts of checks.py -------------------------------------------------------------------
def check_texts(path: Path) -> list[tuple[str, bool, int]]:
    """``(text, is_template, line)`` for every text ``checks.py`` shows a student: each check's
    title (its docstring's first line), and the names and hints of its observations. An
    f-string becomes a template, ``f"{call} returns a tensor"`` -> ``{call} returns a tensor``;
    a name held in a variable cannot be found here (the tests find it at run time)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    found: list[tuple[str, bool, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_is_exercise(d) for d in node.decorator_list):
            doc = ast.get_docstring(node)
            if doc:
                found.append((doc.strip().splitlines()[0].rstrip("."), False, node.lineno))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in OBSERVING:
                texts = node.args[:1] + [k.value for k in node.keywords if k.arg == "hint"]
                found += [t for t in map(_text, texts) if t is not None]
    unique: dict[str, tuple[str, bool, int]] = {}
    for entry in sorted(found, key=lambda e: e[2]):
        unique.setdefault(entry[0], entry)
    return list(unique.values())


def _is_exercise(decorator) -> bool:
    call = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(call, ast.Attribute) and call.attr == "exercise"


def _text(node) -> tuple[str, bool, int] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return node.value, False, node.lineno
    if not isinstance(node, ast.JoinedStr):
        return None
    parts, count = [], 0
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value).replace("{", "{{").replace("}", "}}"))
        else:
            count += 1
            name = value.value.id if isinstance(value.value, ast.Name) else f"value{count}"
            parts.append(f"{{{name}}}")
    return "".join(parts), True, node.lineno


def kit_messages() -> list[tuple[str, str, int]]:
    """``(msgid, file, line)`` of every message of the kit: each ``tr("...")`` and
    ``N_("...")`` in autogradkit's ``grading/`` and ``viz/`` and in this toolchain (found by
    Babel's extractor). A message that is not a plain string literal has msgid ``None``: the
    tests refuse it."""
    package = KIT_CATALOGS.parents[1]  # autogradkit/
    found = []
    for folder, label in (
        (package / "grading", "grading"),
        (package / "viz", "viz"),
        (Path(__file__).resolve().parent, "autogradkit_instructor"),
    ):
        for filename, line, message, _, _ in extract_from_dir(
            folder,
            method_map=[("**.py", "python")],
            keywords={"tr": None, "N_": None},
        ):
            msgid = message if isinstance(message, str) else None
            found.append((msgid, f"{label}/{filename}", line))
    return found


# ----- writing the files a translator edits ---------------------------------------------------
def update(text_source: Path, language: str) -> list[str]:
    """Bring the translation files of one notebook up to date with its source; say what is
    left to do. A new cell gets a section holding its English under an ``UNTRANSLATED`` line;
    sections of cells that are gone are left for the translator to delete (listed); the
    checks' catalog gets every text (new ones empty, changed ones fuzzy, Babel's ``update``)."""
    if language not in LANGUAGES or language == "en":
        raise ValueError(f"translate into one of {', '.join(LANGUAGES[1:])}, not {language!r}")
    nb = read_text_source(Path(text_source))
    path = translation_path(text_source, language)
    sections = read_sections(path) if path.is_file() else {}
    if not path.is_file():
        path.write_text(_header(Path(text_source).stem, language), encoding="utf-8")
    _add_missing_sections(path, nb, sections)
    checks = Path(text_source).parent / "checks.py"
    if checks.is_file():
        texts = [(text, flag, ("checks.py", None)) for text, flag, _ in check_texts(checks)]
        update_catalog(checks.with_name(f"checks.{language}.po"), texts, language)
    return status(text_source, language)


def _header(name: str, language: str) -> str:
    return (
        f"<!-- {name} in {language}: one section per cell id, in the notebook's order; "
        "see docs/translating.md -->\n"
    )


def _add_missing_sections(path: Path, nb, sections: dict[str, Section]) -> None:
    """Append an UNTRANSLATED section, holding the English, for each markdown cell without
    one, and for each code cell with words in its comments or strings (keeping the English
    code as it is is a translation too: delete the UNTRANSLATED line)."""
    added = []
    for cell in nb.cells:
        source = cells.text(cell.source)
        if cell.id in sections or not (_needs_section(cell) or _has_words(cell)):
            continue
        body = source if cell.cell_type == "markdown" else f"```python\n{source}\n```"
        header = f"<!-- {cell.id} en:{english_hash(source)} -->"
        added.append(f"\n{header}\n{UNTRANSLATED}\n{body}\n")
    if added:
        with Path(path).open("a", encoding="utf-8") as out:
            out.write("".join(added))


def _has_words(cell) -> bool:
    """A code cell that is not a test and has a comment or a string with a word in it."""
    if cell.cell_type != "code" or cells.is_grade(cell):
        return False
    code = MARKER.sub("", cells.text(cell.source))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    kinds = (tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1))
    return any(t.type in kinds and re.search(r"[A-Za-z]{2}", t.string) for t in tokens)


def status(text_source: Path, language: str) -> list[str]:
    """Everything left to do for one notebook's translation: its prose (``problems``) and its
    checks' catalog (texts not yet translated, or fuzzy)."""
    nb = read_text_source(Path(text_source))
    path = translation_path(text_source, language)
    if not path.is_file():
        return [f"{path} does not exist: `autogradkit translate {nb_name(text_source)}` makes it"]
    left = problems(nb, read_sections(path), f"{path.name}: ")
    po = Path(text_source).with_name(f"checks.{language}.po")
    if Path(text_source).with_name("checks.py").is_file():
        left += catalog_problems(po)
    return left


def nb_name(text_source: Path) -> str:
    return Path(text_source).stem


def catalog_problems(po: Path) -> list[str]:
    """Entries of a ``.po`` file a student would see in English: empty or fuzzy ones, and
    translations whose ``{placeholders}`` are not the English ones."""
    if not po.is_file():
        return [f"{po} does not exist: `autogradkit translate` makes it"]
    with po.open("rb") as handle:
        catalog = read_po(handle)
    found = []
    for message in catalog:
        if not message.id:
            continue
        if not message.string:
            found.append(f"{po.name}: not translated yet: {message.id!r}")
        elif message.fuzzy:
            found.append(f"{po.name}: fuzzy (its English changed): {message.id!r}")
        elif placeholders(message.id) != placeholders(message.string):
            found.append(f"{po.name}: the placeholders differ from the English: {message.id!r}")
    return found


def placeholders(text: str) -> set[str]:
    """The ``{fields}`` of a message, without their format specs."""
    return set(re.findall(r"(?<!\{)\{([A-Za-z_]\w*)(?:![rsa])?(?::[^{}]*)?\}", text))


def update_catalog(po: Path, texts: list[tuple[str, bool, tuple]], language: str) -> None:
    """Write ``po`` with an entry for each ``(text, is_template, (file, line))`` (Babel merges:
    translations kept, changed English marked fuzzy, vanished untranslated entries dropped,
    translated ones kept as written by hand)."""

    template = Catalog(locale=Locale.parse(language, sep="-"))
    for text, is_template, location in texts:
        flags = {TEMPLATE_FLAG} if is_template else set()
        template.add(text, locations=[location], flags=flags)
    if po.is_file():
        with po.open("rb") as handle:
            catalog = read_po(handle, locale=Locale.parse(language, sep="-"))
        catalog.update(template, no_fuzzy_matching=False)
        _keep_written_by_hand(catalog)
    else:
        catalog = template
    out = io.BytesIO()
    write_po(out, catalog, width=100, omit_header=True, sort_output=False, include_previous=True)
    po.write_bytes(out.getvalue())


HAND_WRITTEN = "written by hand: a text checks.py builds at run time (kept by translate)"


def _keep_written_by_hand(catalog) -> None:
    """Entries the extractor did not find but a translator wrote (a name held in a variable,
    hints in a tuple) stay, marked as such; empty ones go. The tests still require every
    text the checks show on the solution to have a translation."""
    for key, message in list(catalog.obsolete.items()):
        if message.string:
            message.auto_comments = [HAND_WRITTEN]
            catalog[key] = message
    catalog.obsolete.clear()


def update_kit_catalog(language: str) -> list[str]:
    """Write the kit's catalog for ``language`` from the messages in the code; say what is
    left to translate."""
    found: dict[str, tuple] = {}
    for msgid, filename, _ in kit_messages():
        if msgid is not None:
            found.setdefault(msgid, (msgid, bool(placeholders(msgid)), (filename, None)))
    po = KIT_CATALOGS / f"{language}.po"
    po.parent.mkdir(exist_ok=True)
    update_catalog(po, list(found.values()), language)
    return catalog_problems(po)


def translate_assignments(cfg) -> dict:
    """``autogradkit translate``: update (or, with ``--check``, only read) the translation
    files of the named notebooks (default: every translated one) and, without names, the
    kit's catalog; print what is left to do. Exit code 1 when something is."""

    named = cfg.assignments
    sources = text_sources(Path(cfg.course), named)
    if not named:
        sources = [s for s in sources if translation_path(s, cfg.language).is_file()]
    left = []
    if not named:
        po = KIT_CATALOGS / f"{cfg.language}.po"
        left += catalog_problems(po) if cfg.check else update_kit_catalog(cfg.language)
    for text_source in sources:
        found = (
            status(text_source, cfg.language) if cfg.check else update(text_source, cfg.language)
        )
        left += [f"{text_source.parent.name}: {item}" for item in found]
    for item in left:
        print(item, file=sys.stderr)
    print(f"{len(left)} things left to translate", file=sys.stderr)
    return {"command": "translate", "left": left, "exit_code": 1 if left else 0}
