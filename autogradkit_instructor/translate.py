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
import functools
import hashlib
import inspect
import io
import keyword
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat
from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po
from IPython.core.inputtransformer2 import TransformerManager
from markdown_it import MarkdownIt

from autogradkit._i18n import KIT_CATALOGS, LANGUAGES, TEMPLATE_FLAG
from autogradkit.grading.checks import Observer

from . import cells, pyast
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


def _observing() -> frozenset[str]:
    """The methods of a check's ``obs`` whose first parameter is the ``name`` a student reads
    (each with a ``hint=``): read from the class, so a new one is never missed (``holds`` was)."""
    return frozenset(
        method
        for method, function in inspect.getmembers(Observer, inspect.isfunction)
        if not method.startswith("_")
        and list(inspect.signature(function).parameters)[1:2] == ["name"]
    )


OBSERVING = _observing()
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
            found += [f"{place}: {p}" for p in fence_problems(section.text)]
    return found


HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
WIDE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff01-\uff60]")  # Han, CJK punctuation


PUNCTUATION = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff1f\uff5b-\uff60“”‘’]")


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
    between full-width punctuation and a letter closes nothing), emphasis that starts with
    punctuation (a ``**`` typed after the comma it should follow), and a line break between two
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
        for opening, inside in zip(children, children[1:]):  # **，偏置**: the comma is bold
            if opening.type in ("strong_open", "em_open") and PUNCTUATION.match(inside.content):
                found.append(
                    f"emphasis that starts with punctuation ('{inside.content[:6]}'): put the "
                    "punctuation before the ** (，**偏置的梯度**)"
                )
        parts = [c for c in children if c.type == "text"]
        for token in parts:
            if "**" in token.content or "__" in token.content:
                found.append(
                    f"'{token.content.strip()[:30]}' shows its asterisks: put full-width "
                    "punctuation outside the ** (**用时**：)"
                )
    return found


# ----- English a reader of a Chinese edition would see ------------------------------------------
# the names a Chinese text keeps as they are besides code: products, libraries, people, acronyms
KEPT_NAMES = frozenset(
    "Python NumPy PyTorch Jupyter JupyterLab autogradkit autograd Adam SGD MSE logit tanh "
    "sigmoid relu softmax Xavier Kaiming True False None nan inf Markdown CPU GPU Song bug "
    "JSON UTF FIFO".split()
)
LATIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")
OPERATORS = ("*", "+", "-", "/", "@", "=", "<", ">", "%")  # x + alpha * w: alpha is code
DERIVATIVE = re.compile(r"\bd[\w²³()]*/d[\w²³()]*")  # dloss/dw, d²y/da², d(root)/d(self)
HALF_WIDTH_STOP = re.compile(r"[\u3400-\u9fff][:;,?!]|(?<=[0-9A-Za-z\u3400-\u9fff])\.(?=\s*$)")


def _code_shaped(text: str, found: re.Match) -> bool:
    """An identifier, not a word: ``requires_grad``, ``x.grad``, ``backward()``, ``MSELoss``,
    ``x1``, a single letter, a name called, indexed or assigned (``f(``, ``d[``, ``w =``), or a
    keyword between code (``f1 is c.grad_fn``)."""
    word = found.group()
    before = text[: found.start()].rstrip(" ")[-1:]
    after = text[found.end() :].lstrip(" ")[:1]
    return (
        len(word) == 1
        or bool(re.search(r"[_.()0-9]|.[A-Z](?=.*[a-z])|[a-z].*[A-Z]", word))
        or after in ("(", "[", "=")
        or (before in OPERATORS and (after in OPERATORS or after in ("", ")", "]", ",", "）")))
        or (after in OPERATORS and before in ("", "(", "[", "（"))
        or text[found.start() - 1 : found.start()] == "."
        or (keyword.iskeyword(word) and bool(re.match(r"[\w)\]]", before or "_")))
        and bool(re.match(r"[\w(\[]", after + " "))
    )


def english_left(text: str, names: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The English a Chinese ``text`` shows a reader: words that are neither code-shaped
    (``_code_shaped``), nor kept names (``KEPT_NAMES``), nor in ``names`` (the identifiers the
    text refers to); and half-width punctuation after a Chinese character (``迭代周期: 100%``,
    ``设为 1.``). ``{placeholders}``, ``code spans`` and derivatives (``dy/dx``) are not words.

    Example:
        >>> english_left("训练 7 个迭代周期（epochs）"), english_left("x.grad 为 None")
        (["'epochs'"], [])
    """
    text = DERIVATIVE.sub(" ", re.sub(r"`[^`]*`|\{[^{}]*\}|https?://\S+", " ", text))
    found = [
        repr(word.group())
        for word in LATIN.finditer(text)
        if not _code_shaped(text, word) and word.group() not in KEPT_NAMES | set(names)
    ]
    found += [f"half-width {stop.group()[-1]!r}" for stop in HALF_WIDTH_STOP.finditer(text)]
    if re.search(r"[\u3400-\u9fff][^\u3000-\u303f\uff01-\uff60{}|]*:\s*$", text):  # "只追踪 a:"
        found.append("half-width ':' ending a Chinese label")
    return found


def chinese_text_problems(text: str, names=frozenset(), where: str = "") -> list[str]:
    """``english_left`` as sentences, for a text a Chinese edition shows (a check line, a
    widget label, a figure text, a placeholder, a progress bar)."""
    left = english_left(text, names)
    if not left:
        return []
    return [f"{where}English left in {text.strip()[:60]!r}: {', '.join(left)}"]


# what Chinese prose may keep in English: code and math, addresses, an article's or an error's
# own words (「」“”『』, a title in 《》), a term's English after it (计算图（computation
# graph）), a menu path or a key given in English (**Kernel → Restart Kernel**, Ctrl + S)
NOT_PROSE = re.compile(
    r"```.*?```|`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|<[^>\n]*>|\b(?:Ctrl|Shift) \+ \w+"
    r"|「[^」]*」|“[^”]*”|『[^』]*』|《[^》]*》|\*\*[^*\n]*→[^*\n]*\*\*"
    r"|(?<=[\u3400-\u9fff*\]])（[^（）\u3400-\u9fff]*）",
    re.S,
)
STRAY_SPACE = re.compile(
    r"(?<=[^\s|]) +(?=[“”「」（）：，。；！？、])|(?<=[“「（：，。；！？、]) +(?=[^\s|])"
)


def prose_text_problems(markdown: str, names=frozenset()) -> list[str]:
    """English a reader of a Chinese Markdown text sees outside what it may keep
    (``NOT_PROSE``; words as ``english_left`` judges them, ``names`` being the notebook's),
    and a space beside full-width punctuation, which is already as wide as a character
    (``读懂 “modified…”``)."""
    text = re.sub(r"```.*?```|`[^`]*`", "c", markdown, flags=re.S)  # code keeps its spaces
    found = [
        f"a space beside full-width punctuation: {m.string[max(0, m.start() - 6) : m.end() + 6]!r}"
        for m in STRAY_SPACE.finditer(text)
    ]
    for line in NOT_PROSE.sub(" ", markdown).splitlines():
        found += chinese_text_problems(line, set(names) | kit_names())
    return found


@functools.cache
def kit_names(parameters: bool = False) -> frozenset[str]:
    """The public names of autogradkit's modules and of ``Tensor`` (``Linear``, ``grad``...)
    and, with ``parameters``, the parameters of their functions (``gradient``, ``alpha``)."""
    import autogradkit as agk

    spaces = (agk, agk.Tensor, agk.nn, agk.nn.Module, agk.nn.functional, agk.optim, agk.autograd)
    found = set()
    for space in spaces:
        for name in (n for n in dir(space) if not n.startswith("__")):
            found.add(name)
            try:
                found |= (
                    set(inspect.signature(getattr(space, name)).parameters) if parameters else set()
                )
            except (TypeError, ValueError):
                pass
    return frozenset(found)


def is_chinese(language: str) -> bool:
    return language.startswith("zh")


def code_names(code: str, keywords: bool = False) -> set[str]:
    """The names a piece of code uses (variables, functions, parameters, attributes, imports)
    and, with ``keywords``, the keywords of its calls (a legend's ``momentum`` is a word, a
    comment's is the ``momentum=`` of the call beside it)."""
    try:
        tree = pyast.parse(code)
    except SyntaxError:
        tree = pyast.parse(TransformerManager().transform_cell(code))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.keyword) and keywords and node.arg:
            found.add(node.arg)
    return found


# texts a code cell shows: what it prints, its figures' titles, labels and legends, its widgets'
SHOWN_BY = {
    "print",
    "set_title",
    "set_xlabel",
    "set_ylabel",
    "suptitle",
    "title",
    "xlabel",
    "ylabel",
    "text",
    "annotate",
    "report",
}
SHOWN_AS = {"label", "title", "description", "tooltip", "xlabel", "ylabel"}


def shown_texts(code: str) -> tuple[list[str], list[str]]:
    """The strings a code cell shows a reader, and its comments: the texts of ``SHOWN_BY``
    calls and ``SHOWN_AS`` keywords (an f-string's fixed parts), every string with a Chinese
    character, and every f-string of two words or more (a text made for a reader, such as a
    title passed to a helper that draws it); other strings may be data (a key, a style, a
    PyTorch message matched)."""
    found = []
    for node in ast.walk(pyast.parse(code)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            shown = list(node.args) if name in SHOWN_BY else []
            shown += [k.value for k in node.keywords if k.arg in SHOWN_AS]
            found += [_constant_text(value) for value in shown]
        elif isinstance(node, ast.Constant | ast.JoinedStr):
            text = _constant_text(node)
            words = LATIN.findall(DERIVATIVE.sub(" ", text))
            formatted = isinstance(node, ast.JoinedStr) and len(words) > 1
            found += [text] if HAN.search(text) or formatted else []
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    comments = [t.string.lstrip("#") for t in tokens if t.type == tokenize.COMMENT]
    comments = [text for text in comments if not MARKER.fullmatch(f"#{text}")]
    return [text for text in found if text], comments


def _constant_text(node) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "{}".join(_constant_text(v) for v in node.values if isinstance(v, ast.Constant))
    return ""


def code_text_problems(code: str, names: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """English left in what a translated code cell shows (``shown_texts``). Its names, those
    of ``names`` (the notebook's code) and the kit's may stay, as code; in a comment, calls'
    keywords and the kit's parameters too."""
    names = set(names) | code_names(code) | kit_names()
    strings, comments = shown_texts(code)
    found = []
    for text in dict.fromkeys(strings):
        found += chinese_text_problems(text, names)
    keywords = names | code_names(code, keywords=True) | kit_names(parameters=True)
    for text in dict.fromkeys(comments):
        found += chinese_text_problems(text, keywords)
    return found


def notebook_names(nb, checks: Path | None = None) -> set[str]:
    """The names of a notebook's code cells and of its ``checks.py``."""
    found = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            found |= code_names(cells.text(cell["source"]))
    if checks is not None and checks.is_file():
        found |= code_names(checks.read_text(encoding="utf-8"))
    return found


def edition_problems(nb, sections, language: str, names=frozenset(), glossary=None) -> list[str]:
    """What a reader of ``language``'s edition would see wrong: in Chinese, English left in
    its translated code cells and prose (``code_text_problems``, ``prose_text_problems``); in
    any section, a word the ``glossary`` says the edition does not use (``variant_problems``)."""
    found = []
    by_id = {cell["id"]: cell for cell in nb["cells"]}
    variants, terms = glossary_words(glossary, language)
    for cell_id, section in sections.items():
        cell, place = by_id.get(cell_id), f"line {section.line}: {cell_id}: "
        if cell is None or _section_unusable(cell, section):
            continue
        text = section_text(cell, section)
        if cell["cell_type"] == "code" and is_chinese(language):
            found += [place + p for p in code_text_problems(text, names)]
        elif is_chinese(language):
            found += [place + p for p in prose_text_problems(text, names)]
        found += [place + p for p in variant_problems(text, variants, terms)]
    return found


def _section_unusable(cell, section: Section) -> bool:
    if cell["cell_type"] == "code":
        return bool(_code_problems(cell, section.text))
    return section.text.startswith(UNTRANSLATED)


# ----- the glossary's words ---------------------------------------------------------------------
VARIANT = re.compile(r"^- (?P<language>[\w-]+): (?P<variant>\S+) → (?P<term>\S+)\s*$", re.M)
QUOTED = re.compile(r"「[^」]*」|`[^`]*`")  # an article's words, and code


def glossary_variants(glossary: Path, language: str) -> dict[str, str]:
    """``{variant: term}`` for ``language`` from the glossary's list of words the editions do
    not use (``- zh-CN: 跟踪 → 追踪``)."""
    if not Path(glossary).is_file():
        return {}
    text = Path(glossary).read_text(encoding="utf-8")
    return {m["variant"]: m["term"] for m in VARIANT.finditer(text) if m["language"] == language}


def glossary_words(glossary: Path | None, language: str) -> tuple[dict[str, str], set[str]]:
    """``language``'s variants (``glossary_variants``) and its terms, from its column of the
    glossary's tables (``叶子节点（叶子张量）``: both); nothing without a glossary."""
    column = GLOSSARY_COLUMNS.get(language)
    if glossary is None or column is None or not Path(glossary).is_file():
        return {}, set()
    terms = set()
    for line in Path(glossary).read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) > column:
            terms |= {t for t in re.split(r"[（）()\s]+", cells[column]) if HAN.search(t)}
    return glossary_variants(glossary, language), terms


def variant_problems(text: str, variants: dict[str, str], terms=frozenset()) -> list[str]:
    """Each ``variants`` word in ``text`` (outside quotes and code, ``QUOTED``) that is not
    part of a glossary term (``terms``: 操作 in 原地操作), with the word to write instead."""
    text = QUOTED.sub(" ", text).replace("*", "")  # *原地*操作 is 原地操作
    covered = [m.span() for term in terms for m in re.finditer(re.escape(term), text)]
    found = []
    for variant, term in variants.items():
        for match in re.finditer(re.escape(variant), text):
            if not any(a <= match.start() and match.end() <= b for a, b in covered):
                around = text[max(0, match.start() - 6) : match.end() + 6].replace("\n", " ")
                found.append(f"{variant} where the glossary writes {term} (…{around}…)")
    return found


# ----- a released edition, as JupyterLab shows it -----------------------------------------------
GLOSSARY_COLUMNS = {"zh-CN": 1, "zh-TW": 2}  # the column of each edition's terms
INTRAWORD_STAR = re.compile(r"(?<=[A-Za-z0-9)\]])\*+(?=[A-Za-z0-9(\[])")  # c*d, 2*x
WIDGET_REFERENCE = re.compile(
    r"\*\*(?P<bold>[^*\n]+)\*\*|“(?P<quoted>[^”\n]+)”|\"(?P<plain>[^\"\n]+)\""
)
PRESS = re.compile(
    r"(?:(?<![\u3400-\u9fff])点|[每再先请就后]点|点击|单击|按下|press|click)\s*(?:一次|once)?\s*$",
    re.I,
)
KEYS = re.compile(r"(?:Shift|Ctrl|Alt|Cmd|Enter|Esc|Tab)\b")  # a key on the keyboard
CONTROL = re.compile(r"\s*(?:按钮|滑块|button|slider)", re.I)


def _emphasis(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    inline = [t for block in tokens for t in (block.children or ())]
    return [t.type for t in inline if t.type in ("em_open", "strong_open")]


def emphasis_problems(markdown: str) -> list[str]:
    """A ``*`` between letters or digits (``d(c*d)/dc``, ``2*x``) that CommonMark takes as
    emphasis, as JupyterLab does: the star vanishes and the text after it turns italic. Such a
    formula belongs in code font."""
    found = []
    for star in INTRAWORD_STAR.finditer(markdown):
        kept = markdown[: star.start()] + "∗" * len(star.group()) + markdown[star.end() :]
        if _emphasis(kept) != _emphasis(markdown):
            around = markdown[max(0, star.start() - 12) : star.end() + 12].replace("\n", " ")
            found.append(f"the * in '…{around}…' turns into emphasis: put the formula in `code`")
    return found


def fence_problems(markdown: str) -> list[str]:
    """A code fence that never closes (its closing ``` joined to the line before): the rest
    of the cell renders as code."""
    lines = markdown.rstrip("\n").split("\n")
    found = []
    for token in MarkdownIt("commonmark").parse(markdown):
        if token.type == "fence" and token.map and token.map[1] >= len(lines):
            if not lines[-1].strip().startswith(token.markup) or token.map[1] - token.map[0] < 2:
                found.append(f"the code fence on line {token.map[0] + 1} is never closed")
    return found


def widget_labels(nb) -> set[str]:
    """The labels a released notebook's widgets show: their descriptions, options and
    tooltips, from the widget state the notebook keeps."""
    state = (nb["metadata"].get("widgets") or {}).get(
        "application/vnd.jupyter.widget-state+json", {}
    )
    found = set()
    for model in state.get("state", {}).values():
        values = model.get("state", {})
        found |= {values[key].strip() for key in ("description", "tooltip") if values.get(key)}
        found |= {str(label).strip() for label in values.get("_options_labels") or ()}
    return found


def label_problems(markdown: str, labels: set[str]) -> list[str]:
    """A bold or quoted span the prose tells the reader to press or move (after 点/按/press/
    click, before 按钮/滑块/button/slider, or with a ▶ ◀ in it) that no widget of the
    notebook shows (``labels``)."""
    found = []
    for match in WIDGET_REFERENCE.finditer(markdown):
        span = next(g for g in match.groups() if g is not None).strip()
        before, after = markdown[: match.start()], markdown[match.end() :]
        pointed = PRESS.search(before[-12:]) or CONTROL.match(after) or re.search("[▶◀]", span)
        if pointed and span not in labels and not KEYS.match(span):
            found.append(f"the prose says to use '{span}', but no widget shows it")
    return found


def release_problems(nb, language: str, names=frozenset()) -> list[str]:
    """What a reader of a released edition would see wrong: emphasis that eats a formula
    (``emphasis_problems``), a widget the prose names by a label it does not have
    (``label_problems``) and, in Chinese, English left in what the code cells show
    (placeholders included, ``code_text_problems``) and in the widgets' labels."""
    labels, found = widget_labels(nb), []
    for number, cell in enumerate(nb["cells"], 1):
        source, place = cells.text(cell["source"]), f"cell {number} ({cell.get('id')}): "
        if cell["cell_type"] == "markdown":
            found += [place + p for p in emphasis_problems(source) + fence_problems(source)]
            found += [place + p for p in label_problems(source, labels)]
        elif cell["cell_type"] == "code" and is_chinese(language):
            found += [place + p for p in code_text_problems(source, names)]
    if is_chinese(language):
        for label in sorted(labels):
            found += chinese_text_problems(label, kit_names(), where="a widget: ")
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
        tree = pyast.parse(code)
    except SyntaxError:  # IPython syntax (a magic): compare what IPython would run
        tree = pyast.parse(TransformerManager().transform_cell(code))
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
    tree = pyast.parse(Path(path).read_text(encoding="utf-8"))
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
    """Everything left to do for one notebook's translation: its prose (``problems``), what a
    reader of the edition would see wrong in it (``edition_problems``), its checks' catalog
    (texts not yet translated, fuzzy, or with English left), and its release copy
    (``release_problems``) when there is one."""
    nb = read_text_source(Path(text_source))
    path = translation_path(text_source, language)
    if not path.is_file():
        return [f"{path} does not exist: `autogradkit translate {nb_name(text_source)}` makes it"]
    sections, checks = read_sections(path), Path(text_source).with_name("checks.py")
    names, glossary = notebook_names(nb, checks), course_of(text_source) / "GLOSSARY.md"
    left = problems(nb, sections, f"{path.name}: ")
    left += [f"{path.name}: {p}" for p in edition_problems(nb, sections, language, names, glossary)]
    if checks.is_file():
        po = checks.with_name(f"checks.{language}.po")
        left += catalog_problems(po, names, glossary)
    release = course_of(text_source) / "release" / language / nb_name(text_source)
    if (release / f"{nb_name(text_source)}.ipynb").is_file():
        released = nbformat.read(release / f"{nb_name(text_source)}.ipynb", as_version=4)
        found = release_problems(released, language, names)
        left += [f"release/{language}/{nb_name(text_source)}: {p}" for p in found]
    return left


def course_of(text_source: Path) -> Path:
    """``course/source/NN_name/NN_name.py`` -> ``course``."""
    return Path(text_source).resolve().parents[2]


def nb_name(text_source: Path) -> str:
    return Path(text_source).stem


def catalog_problems(po: Path, names=frozenset(), glossary: Path | None = None) -> list[str]:
    """Entries of a ``.po`` file a student would see in English: empty or fuzzy ones,
    translations whose ``{placeholders}`` are not the English ones, and, in Chinese, English
    words left (``english_left``) but for identifiers of the kit or of ``names`` (the
    notebook's code), and words the ``glossary`` says the edition does not use."""
    if not po.is_file():
        return [f"{po} does not exist: `autogradkit translate` makes it"]
    with po.open("rb") as handle:
        catalog = read_po(handle)
    found = []
    variants, terms = glossary_words(glossary, po.stem.rsplit(".", 1)[-1])
    for message in catalog:
        if not message.id:
            continue
        if message.string and not message.fuzzy:
            found += [f"{po.name}: {p}" for p in variant_problems(message.string, variants, terms)]
        if not message.string:
            found.append(f"{po.name}: not translated yet: {message.id!r}")
        elif message.fuzzy:
            found.append(f"{po.name}: fuzzy (its English changed): {message.id!r}")
        elif placeholders(message.id) != placeholders(message.string):
            found.append(f"{po.name}: the placeholders differ from the English: {message.id!r}")
        elif is_chinese(po.stem.rsplit(".", 1)[-1]):
            kept = set(names) | kit_names(parameters=True)
            found += chinese_text_problems(message.string, kept, f"{po.name}: ")
    return found


def placeholders(text: str) -> set[str]:
    """The ``{fields}`` of a message, without their format specs."""
    return set(re.findall(r"(?<!\{)\{([A-Za-z_]\w*)(?:![rsa])?(?::[^{}]*)?\}", text))


def update_catalog(po: Path, texts: list[tuple[str, bool, tuple]], language: str) -> None:
    """Write ``po`` with an entry for each ``(text, is_template, (file, line))`` (Babel merges:
    translations kept, changed English marked fuzzy, vanished untranslated entries dropped,
    translated ones kept as written by hand). A catalog whose entries stay as they are is
    not written at all, and one that changes keeps its entries' order, new ones at the end:
    the translator's diff shows only what they have to do."""

    template = Catalog(locale=Locale.parse(language, sep="-"))
    for text, is_template, location in texts:
        flags = {TEMPLATE_FLAG} if is_template else set()
        template.add(text, locations=[location], flags=flags)
    if po.is_file():
        with po.open("rb") as handle:
            old = read_po(handle, locale=Locale.parse(language, sep="-"))
        catalog = copy.deepcopy(old)
        catalog.update(template, no_fuzzy_matching=False)
        _keep_written_by_hand(catalog)
        if _entries(catalog) == _entries(old):
            return
        catalog = _in_order(catalog, old)
    else:
        catalog = template
    out = io.BytesIO()
    write_po(out, catalog, width=100, omit_header=True, sort_output=False, include_previous=True)
    po.write_bytes(out.getvalue())


def _entries(catalog) -> set[tuple]:
    """What a catalog translates, and how (fuzzy, a template): not where nor in what order."""
    return {(m.id, m.string, tuple(sorted(m.flags))) for m in catalog if m.id}


def _in_order(catalog, old):
    """``catalog``'s entries in ``old``'s order, new ones after them."""
    ordered = Catalog(locale=catalog.locale)
    for message in [*old, *catalog]:
        if message.id and message.id in catalog and message.id not in ordered:
            ordered[message.id] = catalog[message.id]
    return ordered


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


def update_kit_catalog(language: str, folder: Path = KIT_CATALOGS) -> list[str]:
    """Write the kit's catalog for ``language`` (in ``folder``) from the messages in the code;
    say what is left to translate."""
    found: dict[str, tuple] = {}
    for msgid, filename, _ in kit_messages():
        if msgid is not None:
            found.setdefault(msgid, (msgid, bool(placeholders(msgid)), (filename, None)))
    po = Path(folder) / f"{language}.po"
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
        glossary = Path(cfg.course) / "GLOSSARY.md"
        left += (
            catalog_problems(po, glossary=glossary)
            if cfg.check
            else update_kit_catalog(cfg.language)
        )
    for text_source in sources:
        found = (
            status(text_source, cfg.language) if cfg.check else update(text_source, cfg.language)
        )
        left += [f"{text_source.parent.name}: {item}" for item in found]
    for item in left:
        print(item, file=sys.stderr)
    print(f"left to translate: {len(left)}", file=sys.stderr)
    return {"command": "translate", "left": left, "exit_code": 1 if left else 0}
