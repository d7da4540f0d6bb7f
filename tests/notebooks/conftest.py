"""Shared helpers for the notebook tests: where the course lives and how to read it."""

from __future__ import annotations

import base64
import functools
import json
import re
import struct
from pathlib import Path

import nbformat
import pytest

from autogradkit import _i18n as i18n
from autogradkit_instructor import house_style

from .exercises import RECORDS

ROOT = Path(__file__).resolve().parents[2]
SANITIZE_FILE = ROOT / "tests" / "nbval_sanitize.cfg"
IMAGE_TYPES = ("image/png", "image/jpeg")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # random model ids; nbval skips it
COURSE = ROOT / "notebooks"
ASSIGNMENTS = sorted(p.name for p in (COURSE / "source").iterdir() if p.is_dir())
# the assignments that follow the kit's house style (notebooks/house_style.txt): the house
# rules are tested on these only, so a new assignment in source/ fails none for being new
HOUSE_STYLE = house_style.house_style_assignments(COURSE)
# the assignments that have checks: a reading, or an exercise with no check, has none, and is
# tested for what it has (a house-style notebook has checks: test_exercise_feedback)
CHECKED = [name for name in ASSIGNMENTS if (COURSE / "source" / name / "checks.py").is_file()]
# the notebooks each other language has an edition of (a translation file beside the source)
TRANSLATED = {
    language: [
        name
        for name in ASSIGNMENTS
        if (COURSE / "source" / name / f"{name}.{language}.md").is_file()
    ]
    for language in i18n.LANGUAGES[1:]
}
# zh-TW is zh-CN converted (tools/make_zh_tw.py): the same code and figures, other characters.
# The tests that run notebooks in the sandbox or in a kernel of their own take a sample of it,
# the notebooks with the kit's drawings and widgets; nbval, the fresh release, the exercise
# tests and every check of its texts take all of it.
SAMPLED = {"zh-TW": ("00_start_here", "05_inside_grad_fn")}


def sampled(language: str) -> list[str]:
    """The notebooks of ``language``'s edition that the slowest tests run."""
    return [n for n in TRANSLATED[language] if n in SAMPLED.get(language, TRANSLATED[language])]


EDITIONS = [("en", name) for name in ASSIGNMENTS] + [
    (language, name) for language, names in TRANSLATED.items() for name in names
]


def source_path(assignment: str) -> Path:
    return COURSE / "source" / assignment / f"{assignment}.ipynb"


def release_path(assignment: str, language: str = "en", course: Path = COURSE) -> Path:
    root = course / "release" if language == "en" else course / "release" / language
    return root / assignment / f"{assignment}.ipynb"


def read(path: Path):
    return nbformat.read(path, as_version=4)


@pytest.fixture(params=ASSIGNMENTS)
def assignment(request) -> str:
    return request.param


@pytest.fixture(params=HOUSE_STYLE)
def house_assignment(request) -> str:
    return request.param


@functools.cache
def lesson(name: str) -> house_style.Lesson:
    """Assignment ``name`` as the house rules read it (built notebook, release, checks)."""
    return house_style.load_lesson(COURSE, name)


def assert_follows(name: str, *rules: str) -> None:
    """Assignment ``name`` breaks none of the house ``rules``; else each violation, with its
    rule's name and fix, is the failure message."""
    violations = house_style.check(lesson(name), rules)
    assert not violations, "\n".join(str(v) for v in violations)


@pytest.fixture(autouse=True)
def _observations_of_this_test_only():
    """Each test observes its answers afresh (exercises.observed keeps them for one test)."""
    RECORDS.clear()


def sanitize_rules(path: Path = SANITIZE_FILE) -> list[tuple[re.Pattern, str]]:
    """The ``regex:``/``replace:`` pairs of nbval's sanitize file, read as nbval reads them."""
    pairs = re.findall(r"^regex: (.*)$\n^replace: (.*)$", path.read_text(), flags=re.MULTILINE)
    return [(re.compile(regex), replace) for regex, replace in pairs]


def image_summary(mime: str, data: str) -> dict:
    """What a person compares in a figure: its type and pixel size, never its bytes."""
    summary = {"type": mime}
    if mime == "image/png":
        data = "".join(data) if isinstance(data, list) else data
        header = base64.b64decode(data[:64])  # the IHDR chunk holds width and height
        summary["size"] = struct.unpack(">II", header[16:24])
    return summary


def comparable(path: Path) -> dict:
    """The notebook as nbval compares it, so two machines agree on what must agree.

    Text outputs pass through the sanitize rules; images count by type and pixel size (their
    bytes differ with the CPU's BLAS kernel); widget views (random model ids) and tracebacks
    (their frames carry the library's line numbers) are dropped, and so are the outputs of
    cells nbval ignores (tag ``nbval-ignore-output``, or comment ``# NBVAL_IGNORE_OUTPUT``).
    Widget state in the notebook's metadata is compared, sanitized too, its figures by type
    and size.
    """
    rules = sanitize_rules()

    def clean(text):
        text = "".join(text) if isinstance(text, list) else text
        for regex, replace in rules:
            text = regex.sub(replace, text)
        return text

    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        ignored = "nbval-ignore-output" in cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "code" and (
            ignored or "# NBVAL_IGNORE_OUTPUT" in source.splitlines()
        ):
            cell["outputs"] = []
        for output in cell.get("outputs", []):
            output.pop("traceback", None)
            if "text" in output:
                output["text"] = clean(output["text"])
            output.get("data", {}).pop(WIDGET_VIEW, None)
            for mime, data in output.get("data", {}).items():
                if isinstance(data, (str, list)) and mime not in IMAGE_TYPES:
                    output["data"][mime] = clean(data)
    # figures summarised first: the sanitize rules never read their bytes (one of them takes
    # time growing with the square of a string's length, a base64 figure's 60 kB included)
    nb = _summarise_images(nb)
    nb["metadata"]["widgets"] = _clean_strings(nb["metadata"].get("widgets", {}), clean)
    return nb


def _clean_strings(value, clean):
    """``value`` with the sanitize rules applied to every string in it (a widget's state holds
    what it last showed: tqdm's bar its elapsed time and rate)."""
    if isinstance(value, dict):
        return {k: _clean_strings(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_strings(v, clean) for v in value]
    return clean(value) if isinstance(value, str) else value


def _summarise_images(value):
    """Every image in the notebook, the cells' and the Output widgets' alike, as its summary."""
    if isinstance(value, list):
        return [_summarise_images(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        key: image_summary(key, item) if key in IMAGE_TYPES else _summarise_images(item)
        for key, item in value.items()
    }
