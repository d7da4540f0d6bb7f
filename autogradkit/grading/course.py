"""The course folder (nbgrader's layout) and the submissions to grade.

``DIR/source/<assignment>/`` holds the instructor notebooks, ``DIR/release/<assignment>/`` the
student versions, ``DIR/autograded/<student>/<assignment>/`` the graded copies and
``DIR/feedback/<student>/<assignment>/`` the feedback. Submissions come either in nbgrader's
``<student>/<assignment>/*.ipynb`` layout or as a flat folder of ``.ipynb`` files.
"""

from __future__ import annotations

import copy
import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from .notebooks import read_notebook

SKIP = {".ipynb_checkpoints", "__pycache__", ".DS_Store"}


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
    return Submission(student, notebook, path if path.is_file() else None, folder)


def _flat(path: Path, assignment: Assignment) -> Submission:
    """``alice.ipynb`` (one-notebook assignments) or ``alice_<notebook>.ipynb``."""
    for notebook in sorted(assignment.sources, key=len, reverse=True):
        if path.stem.endswith(f"_{notebook}") and len(path.stem) > len(notebook) + 1:
            return Submission(path.stem[: -len(notebook) - 1], notebook, path, None)
    only = next(iter(assignment.sources)) if len(assignment.sources) == 1 else ""
    return Submission(path.stem, only, path, None)


def copy_files(folder: Path | None, target: Path) -> None:
    """Copy the non-notebook files of ``folder`` (recursively) into ``target``."""
    if folder is None or not folder.is_dir():
        return
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_dir() or path.suffix == ".ipynb" or SKIP & set(relative.parts):
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)


def digest(path: Path | None, *extra: str) -> str:
    """sha256 of a submission file plus whatever else its grade depends on."""
    h = hashlib.sha256(path.read_bytes() if path is not None and path.is_file() else b"")
    for part in extra:
        h.update(part.encode())
    return h.hexdigest()
