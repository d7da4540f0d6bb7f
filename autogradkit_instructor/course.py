"""The course folder (nbgrader's layout) and the submissions to grade.

``DIR/source/<assignment>/`` holds the instructor notebooks, ``DIR/release/<assignment>/`` the
student versions, ``DIR/autograded/<student>/<assignment>/`` the graded copies and
``DIR/feedback/<student>/<assignment>/`` the feedback. Submissions come either in nbgrader's
``<student>/<assignment>/*.ipynb`` layout or as a flat folder of ``.ipynb`` files.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import importlib.metadata
import os
import re
import shutil
import stat
import sys
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

from autogradkit import _i18n as i18n

from . import files, untrusted
from .files import SKIP, module_name
from .notebooks import read_notebook
from .pipeline import student_version

__all__ = [
    "PRACTICE_ONLY",
    "Assignment",
    "release_root",
    "release_folder",
    "working_folder",
    "source_folder",
    "load_assignment",
    "Submission",
    "find_submissions",
    "identity",
    "student_folder",
    "page_path",
    "shadowed_names",
    "instructor_files",
    "digest",
    "folder_identity",
    "skipped_entries",
    "fingerprint",
    "changed_since",
    "file_identity",
]

PRACTICE_ONLY = (".expected.json",)  # the recorded answers of practice mode: never graded with


@dataclass
class Assignment:
    """One assignment's instructor notebooks and the student versions derived from them."""

    name: str
    folder: Path
    sources: dict[str, dict]  # notebook name (no suffix) -> instructor version
    students: dict[str, dict]  # notebook name -> student version (not executed)
    digests: dict[str, str]  # notebook name -> sha256 of the instructor file
    files: str = ""  # identity of every file of its source and release folders


def release_root(course_folder: Path, language: str) -> Path:
    """``DIR/release`` for English, ``DIR/release/<language>`` for another edition."""
    root = Path(course_folder) / "release"
    return root if language == "en" else root / language


def release_folder(course_folder: Path, assignment: str, language: str = "en") -> Path:
    """The released files of ``assignment`` in ``language`` (the English ones when that
    edition was not released): what students got, and all a grading sandbox gets of the
    course.

    Raises:
        FileNotFoundError: the assignment was never released.
    """
    for root in (release_root(course_folder, language), release_root(course_folder, "en")):
        if (root / assignment).is_dir():
            return root / assignment
    raise FileNotFoundError(
        f"assignment '{assignment}' was not released: grading gives each submission the "
        f"released files only; run `autogradkit release --course {course_folder} {assignment}`"
    )


def working_folder(
    released: Path, own: Path | None, target: Path, max_bytes: int, practice: bool = False
) -> list[str]:
    """A fresh kernel's working folder ``target``, made of an allow-list: the student's own
    files from ``own`` (what may not be copied is refused, and said in the returned list),
    then the released files of ``released`` over them (their practice answers only with
    ``practice``). Nothing of ``source/`` enters it: no solution, translation or hidden check.
    """
    shutil.rmtree(target, ignore_errors=True)  # nothing of an earlier run is reused
    target.mkdir(parents=True)
    refused = files.copy_files(  # the released files replace the student's copies of them
        own,
        target,
        max_bytes,
        skip=instructor_files(released),
        shadowed=shadowed_names(released),
        own=True,
    )
    files.copy_files(released, target, skip=() if practice else PRACTICE_ONLY)
    return refused


def source_folder(course: Path, assignment: str) -> Path:
    folder = Path(course) / "source" / assignment
    if not folder.is_dir():
        raise FileNotFoundError(f"no assignment '{assignment}': {folder} is not a folder")
    return folder


def load_assignment(course: Path, name: str) -> Assignment:
    """Read ``DIR/source/<name>/*.ipynb`` and derive each notebook's student version."""
    folder = source_folder(course, name)
    paths = sorted(folder.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"assignment '{name}' has no notebooks in {folder}")
    sources = {p.stem: read_notebook(p) for p in paths}
    make_student = student_version()
    students = {stem: make_student(copy.deepcopy(nb), None) for stem, nb in sources.items()}
    digests = {p.stem: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}
    released = [release_root(course, lang) / name for lang in i18n.LANGUAGES]
    return Assignment(name, folder, sources, students, digests, folder_identity(folder, *released))


@dataclass(frozen=True)
class Submission:
    """One notebook of one student; ``path`` is None when the student did not hand it in."""

    student: str
    notebook: str
    path: Path | None
    folder: Path | None  # the student's other files (copied next to the graded notebook)
    clash: tuple[str, ...] = ()  # every file handed in as this student's notebook, if several


def find_submissions(root: Path, assignment: Assignment) -> list[Submission]:
    """Every (student, notebook) pair under ``root``, sorted; missing notebooks included.
    Two files that are one student's same notebook (``ann.ipynb``, ``ann_hw1.ipynb``, or the
    folders ``zoe`` and ``Zoe``: one login for an LMS, one folder on macOS) are both kept,
    each with the other's name in ``clash``: a person chooses, not the grader."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"submissions folder {root} does not exist")
    folders = sorted(p for p in root.glob(f"*/{assignment.name}") if p.is_dir())
    if folders:
        found = [
            _in_folder(untrusted.student_name(f.parent.name), f, name)
            for f in folders
            for name in assignment.sources
        ]
    else:
        found = [_flat(path, assignment) for path in sorted(root.glob("*.ipynb"))]
    return _mark_clashes(found)


def identity(student: str) -> str:
    """Who a name is, once case, accents written apart (``e`` + U+0301 for ``é``), width
    and the spaces around it are ignored: what an LMS or a case-folding file system takes
    for one person.

    Example:
        >>> identity("Zoe ") == identity("zoe"), identity("jose\u0301") == identity("josé")
        (True, True)
    """
    return unicodedata.normalize("NFKC", student).casefold().strip()


PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(?<!\.)")  # jdoe, s123, john.smith
WINDOWS_DEVICES = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?", re.IGNORECASE)


def student_folder(student: str, clash: tuple[str, ...] = ()) -> str:
    """The folder of ``student``'s graded copy and feedback, in ``autograded/`` and
    ``feedback/``: a name that is the same folder on every file system, and nobody else's.

    A plain name (ASCII letters, digits, ``_``, ``-`` and inner ``.``, not a Windows device
    such as ``CON`` or ``aux.txt``) is kept. Any other name, and a name that ``clash``es
    with another (``Zoe`` and ``zoe``: one folder on macOS), keeps only its letters and
    digits, after which ``~`` (which no plain name holds) and a hash of the whole name and
    its clash tell it apart.

    Example:
        >>> student_folder("jdoe"), student_folder("CON"), student_folder("ann.")
        ('jdoe', 'CON~a3dbc4b644a9a2c5', 'ann~e4e2b39feb88d7c4')
    """
    if PLAIN.fullmatch(student) and not WINDOWS_DEVICES.fullmatch(student) and not clash:
        return student
    whole = "\0".join((student, *clash)).encode("utf-8", "surrogatepass")
    kept = unicodedata.normalize("NFC", student)
    kept = "".join(c for c in kept if c.isalnum() and unicodedata.category(c) != "No")
    return f"{kept[:48]}~{hashlib.sha256(whole).hexdigest()[:16]}"


def page_path(student: str, assignment: str, notebook: str, handed_in: str, clash=()) -> str:
    """Where a submission's feedback page goes, inside ``feedback/``; a flat file that names
    no notebook of the assignment (``handed_in``, its path) gives the page its own name."""
    page = notebook or student_folder(Path(handed_in or "").stem)
    return f"{student_folder(student, clash)}/{assignment}/{page}.html"


def _mark_clashes(found: list[Submission]) -> list[Submission]:
    groups: dict[tuple[str, str], list[Submission]] = {}
    for sub in found:
        groups.setdefault((identity(sub.student), sub.notebook), []).append(sub)
    marked = []
    for sub in found:
        group = groups[identity(sub.student), sub.notebook]
        if len(group) > 1:
            sub = replace(sub, clash=tuple(_shown(other, group) for other in group))
        marked.append(sub)
    return marked


def _shown(sub: Submission, group: list[Submission]) -> str:
    """A submission as a clash names it: its file, or its student where they differ."""
    if len({s.student for s in group}) > 1:
        return sub.student
    return untrusted.name(str(sub.path.name if sub.path else sub.folder))


def _in_folder(student: str, folder: Path, notebook: str) -> Submission:
    path = folder / f"{notebook}.ipynb"
    handed_in = os.path.lexists(path)  # a symlink or FIFO is handed in, then refused
    return Submission(student, notebook, path if handed_in else None, folder)


def _flat(path: Path, assignment: Assignment) -> Submission:
    """``alice.ipynb`` (one-notebook assignments) or ``alice_<notebook>.ipynb``."""
    for notebook in sorted(assignment.sources, key=len, reverse=True):
        if path.stem.endswith(f"_{notebook}") and len(path.stem) > len(notebook) + 1:
            student = untrusted.student_name(path.stem[: -len(notebook) - 1])
            return Submission(student, notebook, path, None)
    only = next(iter(assignment.sources)) if len(assignment.sources) == 1 else ""
    return Submission(untrusted.student_name(path.stem), only, path, None)


@functools.cache
def shadowed_names(folder: Path) -> frozenset[str]:
    """Module names a submission's own files must not take: Python's, every installed
    package's, and the instructor's modules in ``folder`` (the notebook's folder comes first
    on ``sys.path``, so a student's ``numpy/`` or ``checks/`` would be imported instead)."""
    names = set(sys.stdlib_module_names) | set(importlib.metadata.packages_distributions())
    names |= {"autogradkit"} | {module_name(name) for name in instructor_files(folder)}
    return frozenset(names)


def instructor_files(folder: Path) -> tuple[str, ...]:
    """The names at the top of the instructor's ``folder``: a student's copies of them (handed
    back with the release) are replaced by the instructor's, never used."""
    return tuple(sorted(p.name for p in Path(folder).iterdir() if p.name not in SKIP))


def digest(path: Path | None, *extra: str) -> str:
    """sha256 of a submission file's identity plus whatever else its grade depends on."""
    h = hashlib.sha256(file_identity(path).encode() if path is not None else b"")
    for part in extra:
        h.update(part.encode())
    return h.hexdigest()


def folder_identity(*folders: Path | None) -> str:
    """sha256 of every entry under ``folders`` (``files.walk``): its path and
    ``file_identity`` (a row kept from an earlier run is valid only while every file it was
    graded with is unchanged)."""
    h = hashlib.sha256()
    for folder in (Path(f) for f in folders if f is not None):
        for relative, _info in files.walk(folder):
            identity = file_identity(folder / relative)
            h.update(f"{relative}\0{identity}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def skipped_entries(root: Path, assignment: Assignment) -> list[str]:
    """Entries of the submissions folder that ``find_submissions`` did not use, with why."""
    root = Path(root)
    nested = any(p.is_dir() for p in root.glob(f"*/{assignment.name}"))
    skipped = []
    for entry in sorted(root.iterdir()):
        if entry.name in SKIP:
            continue
        if nested and not (entry / assignment.name).is_dir():
            skipped.append(f"{entry.name}: no {assignment.name}/ folder inside")
        elif nested:
            skipped += _unknown_notebooks(entry / assignment.name, assignment)
        elif not nested and not (entry.suffix == ".ipynb" and not entry.is_dir()):
            skipped.append(f"{entry.name}: not a .ipynb file")
    return skipped


def _unknown_notebooks(folder: Path, assignment: Assignment) -> list[str]:
    """Notebooks in a student's folder whose name is none of the assignment's."""
    expected = ", ".join(f"{name}.ipynb" for name in sorted(assignment.sources))
    return [
        f"{path.relative_to(folder.parent.parent)}: not a notebook of {assignment.name} "
        f"(expected {expected})"
        for path in sorted(folder.glob("*.ipynb"))
        if path.stem not in assignment.sources
    ]


def fingerprint(folders: list[Path]) -> dict[str, str]:
    """An identity of every regular file under ``folders`` that grading may read
    (``files.walk``; symlinks and FIFOs are not read)."""
    found = {}
    for folder in folders:
        for relative, _info in files.walk(Path(folder)):
            found[str(Path(folder, relative))] = file_identity(Path(folder, relative))
    return {path: identity for path, identity in found.items() if identity}


def changed_since(before: dict[str, str]) -> list[str]:
    """The files of ``before`` that are now different or gone."""
    return [path for path, identity in before.items() if file_identity(Path(path)) != identity]


def file_identity(path: Path, hash_below: int = 64 * 2**20) -> str:
    """sha256 of a regular file (size and mtime when it is huge); "" for anything else."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            return ""
        if info.st_size >= hash_below:
            return f"{info.st_size}:{info.st_mtime_ns}"
        with path.open("rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return ""
