"""``autogradkit release``: instructor notebooks -> the student versions, outputs included.

``--lang zh-CN`` releases the edition in that language: each notebook that has a translation
(``source/NN/NN.zh-CN.md``, see ``translate.py``) is translated from the source notebook, then
released exactly as the English one, into ``release/zh-CN/NN/``. Its folder also gets the
language (``.autogradkit-language``, which the checks and widgets read: then the kernel
registers the kit's font for the language's glyphs, ``_i18n.use_fonts``) and the checks'
catalog (``checks.zh-CN.po``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import nbformat

from autogradkit._i18n import LANGUAGE_FILE, LANGUAGES
from autogradkit.grading.checks import EXPECTED_FILE, public_expected

from . import cells, course, files, pipeline, translate
from .build import KERNELSPEC
from .config import GradingConfig
from .context import Context
from .steps.strip_hidden_tests import BEGIN, END

__all__ = [
    "release_assignments",
    "release_folder",
    "release_files",
    "released_text",
    "release_notebook",
]


def release_assignments(cfg: GradingConfig) -> dict:
    """Release ``cfg.assignments`` (all of ``DIR/source`` when empty; in another language, all
    that have a translation) into ``DIR/release`` or ``DIR/release/<language>``. Each notebook
    is named "released" when its release folder changed, "unchanged" when no byte of it did."""
    language = cfg.language
    sources = Path(cfg.course) / "source"
    names = list(cfg.assignments) or sorted(
        p.name for p in sources.iterdir() if p.is_dir() and _translated(p, language)
    )
    written = []
    for name in names:
        folder = course.source_folder(cfg.course, name)
        if not _translated(folder, language):
            raise FileNotFoundError(f"{name} has no {language} translation ({name}.{language}.md)")
        target = course.release_root(cfg.course, language) / name
        before = _contents(target)
        notebooks = release_folder(folder, target, cfg)
        said = "released" if _contents(target) != before else "unchanged"
        for notebook in notebooks:
            written.append(str(notebook))
            print(f"{said} {notebook}", file=sys.stderr)
    return {"command": "release", "notebooks": written, "exit_code": 0}


def release_folder(folder: Path, target: Path, cfg: GradingConfig) -> list[Path]:
    """Release the assignment ``folder`` into ``target``; its released notebooks.

    The release is made in a scratch folder, where the student versions run; ``target`` then
    gets what changed (``files.mirror``): an unchanged file keeps its bytes and its
    modification time, a helper file gone from ``folder`` leaves, and what a kernel wrote as
    it ran never arrives. A file you put in ``target`` yourself stays, and is named.
    """
    notebooks = [p.name for p in sorted(folder.glob("*.ipynb"))]
    with tempfile.TemporaryDirectory(prefix="autogradkit-release-") as scratch:
        staged = Path(scratch) / target.name
        release_files(folder, staged, cfg.language)
        helpers = sorted(str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file())
        for notebook in notebooks:
            release_notebook(folder / notebook, staged / notebook, cfg)
        for yours in files.mirror(staged, target, helpers + notebooks):
            print(f"release: {target / yours} is not from {folder}: left as it is", file=sys.stderr)
    return [target / notebook for notebook in notebooks]


def release_files(folder: Path, target: Path, language: str = "en") -> None:
    """The student's copy of the assignment's files (not its notebooks): what ``folder``
    holds but the translator's files, with no hidden check, and the language's settings."""
    target.mkdir(parents=True, exist_ok=True)
    files.copy_files(folder, target, skip=_not_released(folder, language))
    _hide_what_students_may_not_see(target)
    _write_language(target, language)


def released_text(source_file: Path) -> str:
    """What ``release`` makes of a helper ``.py`` file: its text without the hidden regions."""
    text = source_file.read_text(encoding="utf-8")
    return cells.replace_regions(text, BEGIN, END, None)[0]


def _contents(folder: Path) -> dict[str, bytes]:
    """Every file of ``folder`` by its path inside it: what a release may change."""
    paths = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    return {str(p.relative_to(folder)): p.read_bytes() for p in paths}


def _translated(folder: Path, language: str) -> bool:
    return language == "en" or any(folder.glob(f"*.{language}.md"))


def _not_released(folder: Path, language: str) -> tuple[str, ...]:
    """The translator's files students do not need: every translation of the prose (it is in
    the notebook), and the catalogs of the other languages."""
    others = [lang for lang in LANGUAGES if lang not in ("en", language)]
    skipped = [p.name for lang in LANGUAGES[1:] for p in folder.glob(f"*.{lang}.md")]
    skipped += [p.name for lang in others for p in folder.glob(f"*.{lang}.po")]
    if language == "en":
        skipped += [p.name for lang in LANGUAGES[1:] for p in folder.glob(f"*.{lang}.po")]
    return tuple(sorted(set(skipped)))


def _write_language(target: Path, language: str) -> None:
    """What a kernel in ``target`` reads to speak ``language`` (nothing for English)."""
    if language != "en":
        (target / LANGUAGE_FILE).write_text(f"{language}\n", encoding="utf-8")


def release_notebook(source: Path, target: Path, cfg: GradingConfig) -> None:
    """Write the student version of ``source`` to ``target`` (same bytes on every run), in
    ``cfg.language`` (translated first, when that is not English)."""
    nb = nbformat.read(source, as_version=4)
    problems = cells.metadata_problems(nb)
    if problems:
        raise ValueError(f"{source}: nbgrader metadata: " + "; ".join(problems))
    text_source = source.with_suffix(".py")
    if cfg.language != "en":
        sections = translate.read_sections(translate.translation_path(text_source, cfg.language))
        for stale in translate.stale(nb, sections, f"{source.stem}.{cfg.language}.md: "):
            print(f"release: warning: {stale}", file=sys.stderr)
        nb = nbformat.from_dict(translate.translate_notebook(nb, sections, cfg.language))
    nb.metadata.setdefault("autogradkit", {})["language"] = cfg.language
    ctx = Context(cfg, target, target.parent.resolve())
    nb = pipeline.release()(nb, ctx)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)  # as built: nothing of the machine that ran it
    nb.metadata["language_info"] = {"name": "python"}  # (the kernel adds its Python's version)
    nbformat.write(nb, target)


def _hide_what_students_may_not_see(target: Path) -> None:
    """In the released helper files: no hidden-test region of any ``.py`` (the hidden checks
    of ``checks.py``), and no recorded answer of a hidden check."""
    for path in sorted(target.rglob("*.py")):
        public = released_text(path)
        if public != path.read_text(encoding="utf-8"):
            path.write_text(public, encoding="utf-8")
    expected = target / EXPECTED_FILE
    if expected.is_file():
        expected.write_text(public_expected(expected), encoding="utf-8")
