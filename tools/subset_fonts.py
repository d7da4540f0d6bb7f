"""Cut the font a translated edition ships: the glyphs its texts use, plus common characters.

A zh-CN or zh-TW figure draws Chinese, which matplotlib's own font (DejaVu Sans) lacks. So that
every machine draws it alike, with no system font, the package ships a subset of Noto Sans CJK
(SIL Open Font License 1.1, whose text ships beside it as ``autogradkit/fonts/OFL.txt``), and a
kernel registers it with matplotlib (``autogradkit._i18n.use_fonts``). ``_i18n.FONTS`` says,
per language, the family the subset is known by, its file in ``autogradkit/fonts/``, and the
full font it is cut from.

The subset holds every character of the edition's texts that DejaVu Sans lacks: the prose and
code twins ``source/*/*.<language>.md``, the checks' catalogs ``checks.<language>.po`` and the
kit's catalog ``autogradkit/grading/locale/<language>.po``. Then a margin, so that a few new
words need no new subset: ``COMMON[language]``: for zh-CN the 3,755 characters of GB2312 level
1 (the common hanzi, computed from Python's ``gb2312`` codec) with GB2312's punctuation and
full-width forms, and printable ASCII; for zh-TW, Big5's symbols and its 5,401 frequent hanzi
(Python's ``big5`` codec), and printable ASCII. The zh-CN subset is 963 KB, 4,134 characters
(the course's 901 alone would take 200 KB); the zh-TW one 1,601 KB, 5,898. tests/test_fonts.py
fails when an edition uses a character its subset lacks: run this tool again then.

The full font is read from ``--source FILE`` or, by default, from the file fontconfig knows
the family by (``fc-match``; Debian's fonts-noto-cjk, which tools/install_fonts.sh installs,
puts Noto Sans CJK in one collection, ``NotoSansCJK-Regular.ttc``), and the tool says which
file it read. Within a collection (``.ttc``) the face of that family is taken. The output is
the same bytes for the same input (no timestamp is written).

Usage: ``.venv/bin/python tools/subset_fonts.py [--lang zh-CN] [--source FILE] [--course DIR]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont
from matplotlib import font_manager

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autogradkit._i18n import FONTS, KIT_CATALOGS  # noqa: E402

ASCII = {chr(code) for code in range(0x20, 0x7F)}
OTHER_FORMS = {"locl", "vert", "vrt2", "vkna", "vchw", "vpal", "vhal", "vkrn", "valt"}


def encoded(codec: str, leads: range, trails: range = range(0xA1, 0xFF)) -> set[str]:
    """The characters a double-byte ``codec`` has for the lead bytes ``leads``."""
    found = set()
    for lead in leads:
        for trail in trails:
            try:
                found.add(bytes([lead, trail]).decode(codec))
            except UnicodeDecodeError:
                continue  # a code point the codec leaves empty
    return found


# GB2312: rows 0xA1 to 0xA3 (punctuation, numerals, full-width ASCII), then level 1's hanzi
# (0xB0 to 0xD7). Big5: its symbols (0xA140 to 0xA3BF), then its 5,401 frequent hanzi (常用字,
# 0xA440 to 0xC67E)
BIG5_TRAILS = [*range(0x40, 0x7F), *range(0xA1, 0xFF)]
COMMON = {
    "zh-CN": encoded("gb2312", range(0xA1, 0xA4)) | encoded("gb2312", range(0xB0, 0xD8)),
    "zh-TW": encoded("big5", range(0xA1, 0xC6), BIG5_TRAILS)
    | encoded("big5", range(0xC6, 0xC7), range(0x40, 0x7F)),
}


def edition_texts(language: str, course: Path) -> list[Path]:
    """Every file whose words an edition in ``language`` shows."""
    return [*sorted((course / "source").glob(f"*/*.{language}.*")), KIT_CATALOGS / f"{language}.po"]


def needed(language: str, course: Path) -> set[str]:
    """The characters of the edition's texts that matplotlib's DejaVu Sans cannot draw."""
    default = TTFont(font_manager.findfont("DejaVu Sans")).getBestCmap()
    used = set().union(
        *(set(path.read_text(encoding="utf-8")) for path in edition_texts(language, course))
    )
    return {c for c in used if c.isprintable() and not c.isspace() and ord(c) not in default}


def missing(language: str, course: Path) -> set[str]:
    """The characters of the edition's texts that neither DejaVu Sans nor the shipped subset
    has: a figure would draw each as a box (run this tool again)."""
    shipped = TTFont(FONTS[language].path).getBestCmap()
    return {c for c in needed(language, course) if ord(c) not in shipped}


def system_font(family: str) -> Path:
    """The file fontconfig draws ``family`` from (a collection, often)."""
    command = ["fc-match", "--format=%{file}", f"{family}:style=Regular"]
    try:
        found = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        found = ""
    if not found.strip():
        raise SystemExit("subset_fonts: no fontconfig: run tools/install_fonts.sh, or --source")
    return Path(found.strip())


def open_face(path: Path, family: str) -> TTFont:
    """The face of ``path`` (a font, or a collection of them) whose family is ``family``."""
    faces = TTCollection(path, lazy=True).fonts if path.suffix.lower() == ".ttc" else [None]
    for index in range(len(faces)):
        face = TTFont(path, fontNumber=index if faces[0] is not None else -1, recalcTimestamp=False)
        if face["name"].getBestFamilyName() == family:
            return face
    raise SystemExit(f"subset_fonts: {path} has no face of {family}: run tools/install_fonts.sh")


def rename(font: TTFont, family: str) -> None:
    """Give the subset its own family name, so that a machine's full font never stands in."""
    postscript = family.replace(" ", "") + "-Regular"
    names = {1: family, 2: "Regular", 3: postscript, 4: family, 6: postscript}
    table = font["name"]
    table.names = [n for n in table.names if n.nameID not in (3, 16, 17)]
    for name_id, text in names.items():
        table.setName(text, name_id, 3, 1, 0x409)
        table.setName(text, name_id, 1, 0, 0)
    if "CFF " in font:
        font["CFF "].cff.fontNames = [postscript]


def cut(source: TTFont, characters: set[str], family: str) -> TTFont:
    """``source`` with only the glyphs of ``characters`` (those it has), renamed ``family``."""
    options = subset.Options()
    options.name_IDs = ["*"]  # keep the copyright and the license (name ids 0, 13, 14)
    options.name_languages = ["*"]
    options.notdef_outline = True
    # matplotlib shapes text with HarfBuzz: keep the features it applies, but not the forms
    # of other regions (locl: Japanese, Korean, Traditional glyphs) nor vertical writing
    options.layout_features = [f for f in options.layout_features if f not in OTHER_FORMS]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(c) for c in characters))
    subsetter.subset(source)
    rename(source, family)
    return source


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", choices=sorted(FONTS), default=None, help="one edition (all)")
    parser.add_argument("--source", type=Path, help="the full font (default: fontconfig's)")
    parser.add_argument("--course", type=Path, default=ROOT / "notebooks")
    args = parser.parse_args(argv)
    for language in [args.lang] if args.lang else sorted(FONTS):
        font = FONTS[language]
        path = args.source or system_font(font.source)
        print(f"subset_fonts: {language}: reading {font.source} from {path}", file=sys.stderr)
        source = open_face(path, font.source)
        has = set(map(chr, source.getBestCmap()))
        texts = needed(language, args.course)
        if texts - has:
            missing = " ".join(sorted(texts - has))
            raise SystemExit(f"subset_fonts: {font.source} has no {missing}: no figure can draw it")
        if language not in COMMON:
            raise SystemExit(
                f"subset_fonts: say which characters {language} commonly uses in COMMON"
            )
        cut(source, texts | ((COMMON[language] | ASCII) & has), font.family)
        source.save(font.path)
        kilobytes = font.path.stat().st_size / 1024
        print(
            f"subset_fonts: wrote {font.path.relative_to(ROOT)} ({len(texts)} characters of "
            f"the texts, {len(source.getBestCmap())} in all, {kilobytes:.0f} KB)",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
