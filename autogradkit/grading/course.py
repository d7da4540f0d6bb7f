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
import os
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from .notebooks import read_notebook

SKIP = {".ipynb_checkpoints", "__pycache__", ".DS_Store"}
PRACTICE_ONLY = (".expected.json",)  # the recorded answers of practice mode: never graded with


@dataclass
class Assignment:
    """One assignment's instructor notebooks and the student versions derived from them."""

    name: str
    folder: Path
    sources: dict[str, dict]  # notebook name (no suffix) -> instructor version
    students: dict[str, dict]  # notebook name -> student version (not executed)
    digests: dict[str, str]  # notebook name -> sha256 of the instructor file


def source_folder(course: Path, assignment: str) -> Path:
    folder = Path(course) / "source" / assignment
    if not folder.is_dir():
        raise FileNotFoundError(f"no assignment '{assignment}': {folder} is not a folder")
    return folder


def load_assignment(course: Path, name: str) -> Assignment:
    """Read ``DIR/source/<name>/*.ipynb`` and derive each notebook's student version."""
    from .pipeline import student_version

    folder = source_folder(course, name)
    paths = sorted(folder.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"assignment '{name}' has no notebooks in {folder}")
    sources = {p.stem: read_notebook(p) for p in paths}
    make_student = student_version()
    students = {stem: make_student(copy.deepcopy(nb), None) for stem, nb in sources.items()}
    digests = {p.stem: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}
    return Assignment(name, folder, sources, students, digests)


@dataclass(frozen=True)
class Submission:
    """One notebook of one student; ``path`` is None when the student did not hand it in."""

    student: str
    notebook: str
    path: Path | None
    folder: Path | None  # the student's other files (copied next to the graded notebook)


def find_submissions(root: Path, assignment: Assignment) -> list[Submission]:
    """Every (student, notebook) pair under ``root``, sorted; missing notebooks included."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"submissions folder {root} does not exist")
    folders = sorted(p for p in root.glob(f"*/{assignment.name}") if p.is_dir())
    if folders:
        return [_in_folder(f.parent.name, f, name) for f in folders for name in assignment.sources]
    return [_flat(path, assignment) for path in sorted(root.glob("*.ipynb"))]


def _in_folder(student: str, folder: Path, notebook: str) -> Submission:
    path = folder / f"{notebook}.ipynb"
    handed_in = os.path.lexists(path)  # a symlink or FIFO is handed in, then refused
    return Submission(student, notebook, path if handed_in else None, folder)


def _flat(path: Path, assignment: Assignment) -> Submission:
    """``alice.ipynb`` (one-notebook assignments) or ``alice_<notebook>.ipynb``."""
    for notebook in sorted(assignment.sources, key=len, reverse=True):
        if path.stem.endswith(f"_{notebook}") and len(path.stem) > len(notebook) + 1:
            return Submission(path.stem[: -len(notebook) - 1], notebook, path, None)
    only = next(iter(assignment.sources)) if len(assignment.sources) == 1 else ""
    return Submission(path.stem, only, path, None)


def copy_files(
    folder: Path | None,
    target: Path,
    max_bytes: int = 2**30,
    *,
    skip: tuple[str, ...] = (),
    shadowed: frozenset[str] = frozenset(),
) -> list[str]:
    """Copy the regular non-notebook files under ``folder`` into ``target``; say what was not.

    A notebook's text source (``hw1.py`` beside ``hw1.ipynb``) is not copied: it holds the
    solutions; nor are the names in ``skip``. Symlinks are never followed (a link to
    ``/etc/passwd`` would copy the grader's file), and FIFOs, sockets and devices are never
    opened (a FIFO blocks its reader forever): each is refused with a sentence in the returned
    list, as is a file that would take the copy past ``max_bytes``, and a top-level file or
    folder that Python would import in place of a module called one of ``shadowed``.
    """
    refused: list[str] = []
    if folder is not None and Path(folder).is_dir():
        rules = _Rules(set(SKIP) | set(skip), shadowed)
        _copy_tree(Path(folder), Path(target), Path(), refused, [max_bytes], rules)
    return refused


@dataclass(frozen=True)
class _Rules:
    skip: set
    shadowed: frozenset


def _copy_tree(root: Path, target: Path, relative: Path, refused: list, budget: list, rules):
    with os.scandir(root / relative) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            name = relative / entry.name
            if entry.name in rules.skip or entry.name.endswith(".ipynb") or _text_twin(root / name):
                continue
            mode = entry.stat(follow_symlinks=False).st_mode
            if not relative.parts and _module_name(entry.name) in rules.shadowed:
                refused.append(
                    f"{name} was not copied: it would hide the module the notebook imports"
                )
            elif stat.S_ISDIR(mode):
                _copy_tree(root, target, name, refused, budget, rules)
            elif not stat.S_ISREG(mode):
                refused.append(f"{name} was not copied: it is a {_kind(mode)}, not a file")
            elif entry.stat(follow_symlinks=False).st_size > budget[0]:
                refused.append(f"{name} was not copied: the files are too large")
            else:
                budget[0] -= entry.stat(follow_symlinks=False).st_size
                try:
                    _copy_regular(root / name, target / name)
                except OSError as error:
                    refused.append(f"{name} was not copied: {error.strerror}")


def _module_name(file_name: str) -> str:
    """The module ``import`` finds in a file or folder: ``checks.py``, ``checks/`` -> checks."""
    for suffix in (".py", ".pyc", ".pyw", ".so"):
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)].split(".")[0]
    return file_name


@functools.cache
def shadowed_names(folder: Path) -> frozenset[str]:
    """Module names a submission's own files must not take: Python's, every installed
    package's, and the instructor's modules in ``folder`` (the notebook's folder comes first
    on ``sys.path``, so a student's ``numpy/`` or ``checks/`` would be imported instead)."""
    import importlib.metadata

    names = set(sys.stdlib_module_names) | set(importlib.metadata.packages_distributions())
    names |= {"autogradkit"} | {_module_name(name) for name in instructor_files(folder)}
    return frozenset(names)


def instructor_files(folder: Path) -> tuple[str, ...]:
    """The names at the top of the instructor's ``folder``: a student's copies of them (handed
    back with the release) are replaced by the instructor's, never used."""
    return tuple(sorted(p.name for p in Path(folder).iterdir() if p.name not in SKIP))


def _text_twin(path: Path) -> bool:
    """``hw1.py`` beside ``hw1.ipynb``: the notebook's Jupytext source, solutions included."""
    return path.suffix == ".py" and path.with_suffix(".ipynb").is_file()


def _copy_regular(source: Path, destination: Path) -> None:
    """Copy one file, refusing (ELOOP) if it was swapped for a symlink meanwhile."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as src, destination.open("wb") as dst:
        shutil.copyfileobj(src, dst)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"))
    return next((name for test, name in kinds if test(mode)), "device")


def digest(path: Path | None, *extra: str) -> str:
    """sha256 of a submission file's identity plus whatever else its grade depends on."""
    h = hashlib.sha256(file_identity(path).encode() if path is not None else b"")
    for part in extra:
        h.update(part.encode())
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
    """An identity of every regular file under ``folders`` (symlinks and FIFOs are not read)."""
    found = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            found[str(path)] = file_identity(path)
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
