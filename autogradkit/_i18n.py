"""The student's language: which one a notebook speaks, and the catalogs that translate into it.

Used by ``grading`` (checks, grader, feedback page) and ``viz`` (widgets and figures) alike,
and importing neither. Two kinds of words reach a student:

* **the kit's own** (the reasons a check gives, the feedback page, widget labels, figure
  titles and legends), written in the code as ``tr("it is {real}, not your prediction",
  real=...)`` and translated by the kit's catalog ``grading/locale/<language>.po`` (written
  and checked by ``autogradkit translate``);
* **a course's** (a check's title, observation names and hints, written in English in its
  ``checks.py``), translated by the catalog beside it, ``checks.<language>.po``, keyed by the
  English text. An entry whose ``msgid`` has ``{placeholders}`` (flag ``python-brace-format``)
  matches every text it makes: ``"{call} returns a tensor"`` matches
  ``"first_tensor([1, 2]) returns a tensor"``.

Catalogs are gettext ``.po`` files, read with Babel (a dependency of JupyterLab); fuzzy and
empty entries are not used. English needs no catalog. A notebook's language is its metadata
field ``autogradkit.language``; a kernel, which cannot see that, reads the file
``.autogradkit-language`` that the release writes into the notebook's folder.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

# zh-TW (Traditional Chinese, Taiwan's words) is generated from zh-CN by tools/make_zh_tw.py
LANGUAGES = ("en", "zh-CN", "zh-TW")
LANGUAGE_FILE = ".autogradkit-language"
KIT_CATALOGS = Path(__file__).resolve().parent / "grading" / "locale"
FONT_FOLDER = Path(__file__).resolve().parent / "fonts"
TEMPLATE_FLAG = "python-brace-format"
_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_]\w*)(?:![rsa])?(?::[^{}]*)?\}")


@dataclass(frozen=True)
class Catalog:
    """Translations into one language: the kit's messages and one course folder's texts.

    Example:
        >>> ENGLISH("it is {real}, not your prediction", real=7)
        'it is 7, not your prediction'
        >>> zh = Catalog("zh-CN", texts={"the printout": "打印结果"},
        ...              templates=(template("{call} returns a tensor", "{call} 返回一个张量"),))
        >>> zh.text("the printout"), zh.text("f([1]) returns a tensor"), zh.text("other")
        ('打印结果', 'f([1]) 返回一个张量', 'other')
    """

    language: str = "en"
    kit: dict[str, str] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    templates: tuple[tuple[re.Pattern, str], ...] = ()

    def __call__(self, msgid: str, **fields) -> str:
        """One of the kit's messages, translated, then filled in with ``fields``."""
        return self.kit.get(msgid, msgid).format(**fields)

    def text(self, english: str) -> str:
        """A course's text (a title, a name, a hint) in this language; itself if the catalog
        has no translation of it."""
        if not english or self.language == "en":
            return english
        if english in self.texts:
            return self.texts[english]
        for pattern, translated in self.templates:
            found = pattern.fullmatch(english)
            if found:  # a value that is a text of its own is translated too ("training")
                values = {k: self.text(v) for k, v in found.groupdict().items()}
                return _fill(translated, values)
        return english

    def message(self, english: str) -> str:
        """One of the kit's messages already filled in, in English (a grader's note written
        as ``N_("answer cell {gid} raised {error}").format(...)``), in this language: the
        entry whose template it fills, the most fixed text first; itself if none does.

        Example:
            >>> zh = Catalog("zh-CN", kit={"cell {n}": "第 {n} 个单元格"})
            >>> zh.message("cell 7"), zh.message("cell")
            ('第 7 个单元格', 'cell')
        """
        if english in self.kit or self.language == "en":
            return self.kit.get(english, english)
        for msgid in sorted(self.kit, key=lambda m: -len(_FIELD.sub("", m))):
            pattern, translated = template(msgid, self.kit[msgid])
            found = _FIELD.search(msgid) and pattern.fullmatch(english)
            if found:
                return _fill(translated, {k: self.message(v) for k, v in found.groupdict().items()})
        return english

    def knows(self, english: str) -> bool:
        """Whether the catalog translates ``english`` (an entry may keep the English as is)."""
        return english in self.texts or any(p.fullmatch(english) for p, _ in self.templates)


ENGLISH = Catalog()


@dataclass(frozen=True)
class EditionFont:
    """The font a language's figures draw their glyphs with, the same on every machine: a
    subset of the full font ``source``, cut by ``tools/subset_fonts.py``, shipped in
    ``autogradkit/fonts/`` as ``file`` and known to matplotlib as ``family``."""

    family: str
    file: str
    source: str

    @property
    def path(self) -> Path:
        return FONT_FOLDER / self.file


# the fonts of the languages that matplotlib's own (DejaVu Sans) cannot draw (Noto Sans CJK:
# SIL Open Font License, autogradkit/fonts/OFL.txt)
FONTS = {
    "zh-CN": EditionFont("Noto Sans CJK SC Subset", "NotoSansCJKsc-Subset.otf", "Noto Sans CJK SC"),
    "zh-TW": EditionFont("Noto Sans CJK TC Subset", "NotoSansCJKtc-Subset.otf", "Noto Sans CJK TC"),
}


def N_(msgid: str) -> str:
    """Mark a message of the kit for its catalog where it is defined, not yet translated
    (gettext's convention): ``tr(STATUS[...])`` translates it where it is shown."""
    return msgid


def template(msgid: str, msgstr: str) -> tuple[re.Pattern, str]:
    """A ``{placeholder}`` msgid as a pattern with one named group per placeholder."""
    parts, last = [], 0
    for found in _FIELD.finditer(msgid):
        parts.append(re.escape(msgid[last : found.start()]))
        name = found.group(1)
        if name is None:  # {{ or }}: a literal brace
            parts.append(re.escape(found.group(0)[0]))
        elif f"(?P<{name}>" in "".join(parts):
            parts.append(f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>.*?)")  # may be empty: epoch{s} for one epoch
        last = found.end()
    parts.append(re.escape(msgid[last:]))
    return re.compile("".join(parts), re.S), msgstr


def _fill(translated: str, values: dict[str, str]) -> str:
    def replace(found):
        name = found.group(1)
        return found.group(0)[0] if name is None else values.get(name, found.group(0))

    return _FIELD.sub(replace, translated)


def read_po(path: Path) -> list:
    """The usable entries of a ``.po`` file (translated, not fuzzy), as Babel messages."""
    from babel.messages.pofile import read_po as babel_read_po

    with Path(path).open("rb") as handle:
        catalog = babel_read_po(handle)
    return [m for m in catalog if m.id and m.string and not m.fuzzy]


@functools.lru_cache(maxsize=32)
def catalog(language: str, folder: Path | None = None, name: str = "checks") -> Catalog:
    """The catalog for ``language``: the kit's messages, and the texts of ``folder``'s
    ``<name>.<language>.po`` when there is one. English: the texts as written.

    Raises:
        ValueError: ``language`` is not one of ``LANGUAGES``.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: choose from {', '.join(LANGUAGES)}")
    if language == "en":
        return ENGLISH
    kit = {m.id: m.string for m in read_po(KIT_CATALOGS / f"{language}.po")}
    texts, templates = {}, []
    course = Path(folder) / f"{name}.{language}.po" if folder is not None else None
    if course is not None and course.is_file():
        for message in read_po(course):
            if TEMPLATE_FLAG in message.flags:
                templates.append(
                    (len(_FIELD.sub("", message.id)), template(message.id, message.string))
                )
            else:
                texts[message.id] = message.string
    templates.sort(key=lambda entry: -entry[0])  # the most fixed text first: the most specific
    return Catalog(language, kit, texts, tuple(entry for _, entry in templates))


def folder_language(folder: Path) -> str:
    """The language the release wrote into a notebook's folder (``en`` when none)."""
    try:
        found = (Path(folder) / LANGUAGE_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return "en"
    return found if found in LANGUAGES else "en"


def notebook_language(nb: dict) -> str:
    """A notebook's language, from its metadata (``en`` when it names none we know)."""
    settings = (nb.get("metadata") or {}).get("autogradkit")
    found = settings.get("language") if isinstance(settings, dict) else None
    return found if isinstance(found, str) and found in LANGUAGES else "en"


def here() -> Catalog:
    """The kit's messages in the language of the running notebook's folder (the kernel's
    working directory): what widgets label themselves with. Figures get its glyphs too
    (``use_fonts``)."""
    language = folder_language(Path.cwd())
    use_fonts(language)
    return catalog(language)


def use_fonts(language: str) -> None:
    """Let matplotlib draw ``language``'s glyphs: register its shipped font and add the family
    after those of ``font.family`` (matplotlib takes a glyph the first family lacks from the
    next one). Call it before a figure is made: a text keeps the families it was made with.
    Nothing for a language with no font of its own, or where matplotlib is not installed.

    Example:
        >>> import matplotlib
        >>> with matplotlib.rc_context({"font.family": ["sans-serif"]}):
        ...     use_fonts("zh-CN")
        ...     matplotlib.rcParams["font.family"]
        ['sans-serif', 'Noto Sans CJK SC Subset']
    """
    font = FONTS.get(language)
    if font is None:
        return
    try:
        from matplotlib import font_manager, rcParams
    except ImportError:  # the base install: no figures to draw
        return
    if font.family not in {entry.name for entry in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(font.path))
    if font.family not in rcParams["font.family"]:
        rcParams["font.family"] = [*rcParams["font.family"], font.family]
