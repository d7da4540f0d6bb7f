"""Copying a folder's files for a kernel, safely: regular files only, never a link, a FIFO
or a device, never the notebook's solutions, never a file that would hide a module.

The grader copies a submission's files (and the instructor's) into each kernel's folder with
``copy_files``; the release copies an assignment's files into the student version with it,
then ``mirror``s them into the release folder, touching only the files whose bytes change.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from autogradkit._i18n import N_

from .untrusted import MAX_NOTES

__all__ = [
    "SKIP",
    "BLOCK",
    "MAX_DEPTH",
    "MAX_PATH_BYTES",
    "ANOTHERS",
    "reason",
    "copy_files",
    "within_bounds",
    "walk",
    "module_name",
    "write_if_changed",
    "mirror",
    "MIRRORED",
]

SKIP = {".ipynb_checkpoints", "__pycache__", ".DS_Store"}
MIRRORED = ".autogradkit-released"  # in a release folder: the files release wrote there
BLOCK = 4096  # what a file costs the disk budget at least, as it costs a file system
MAX_DEPTH = 16  # folders a handed-in file may sit in, one inside the other
MAX_PATH_BYTES = 1024  # bytes of a handed-in file's path inside its folder (PATH_MAX is 4096)
# what the grader says about a handed-in file reaches the student's feedback page, which
# speaks the notebook's language: each sentence is a template of the kit's catalog (N_)
TOO_DEEP = N_(
    "folders nested too deep (over {levels} levels or {size} bytes of path) were not copied: {name}"
)
ANOTHERS = N_(
    "it has another name elsewhere, which may be another student's or the course's file, "
    "so it was not read (hand in a copy, made with cp, not cp -l)"
)
NOT_COPIED = N_("{name} was not copied: {reason}")
# what an error of the system means, in the kit's words: the system's own (os.strerror) are
# English whatever the student's language. Any other is named by its errno name (EXDEV), an id
# that reads the same in every language.
SYSTEM_ERRORS = {
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.ENOENT: N_("it is not there any more"),
    errno.ENOTDIR: N_("a folder of its path is a file"),
    errno.EISDIR: N_("it is a folder"),
    errno.ENAMETOOLONG: N_("its name is too long"),
    errno.ELOOP: N_("it is a symlink"),
    errno.EIO: N_("the disk could not read it"),
    errno.ENOSPC: N_("the disk is full"),
    errno.EDQUOT: N_("the disk quota is used up"),
    errno.EROFS: N_("the disk is read-only"),
    errno.EMFILE: N_("too many files are open"),
    errno.ENFILE: N_("too many files are open"),
    errno.ENOMEM: N_("out of memory"),
}


def reason(error: OSError) -> str:
    """Why ``error`` happened, as a note says it: the kit's words for an error of the system,
    or its errno name; the kit's own reason (an OSError raised here) as it is.

    Example:
        >>> reason(PermissionError(errno.EACCES, os.strerror(errno.EACCES)))
        'permission denied'
        >>> reason(OSError(errno.EXDEV, os.strerror(errno.EXDEV)))
        'EXDEV'
    """
    if error.errno is None or error.strerror != os.strerror(error.errno):
        return error.strerror or type(error).__name__
    return SYSTEM_ERRORS.get(error.errno, errno.errorcode.get(error.errno, type(error).__name__))


def copy_files(
    folder: Path | None,
    target: Path,
    max_bytes: int = 2**30,
    *,
    skip: tuple[str, ...] = (),
    shadowed: frozenset[str] = frozenset(),
    own: bool = False,
) -> list[str]:
    """Copy the regular non-notebook files under ``folder`` into ``target``; say what was not.

    A notebook's text source (``hw1.py`` beside ``hw1.ipynb``) is not copied: it holds the
    solutions; nor are the names in ``skip``. Symlinks are never followed (a link to
    ``/etc/passwd`` would copy the grader's file), and FIFOs, sockets and devices are never
    opened (a FIFO blocks its reader forever): each is refused with a sentence in the returned
    list, as is a file that would take the copy past ``max_bytes``, and a top-level file or
    folder that Python would import in place of a module called one of ``shadowed``, and a
    folder past ``within_bounds`` (no walk of it needs a stack or a path of any size). With
    ``own`` (a student's files), a hard link is refused too: it may be anyone's file. Every
    file costs the budget at least a disk ``BLOCK`` (a million empty files are not free), and
    the returned list says the first ``MAX_NOTES`` refusals, then how many more.
    """
    refused = _Refused()
    if folder is not None and Path(folder).is_dir():
        rules = _Rules(set(SKIP) | set(skip), shadowed, own)
        _copy_tree(Path(folder), Path(target), Path(), refused, [max_bytes], rules)
    return refused.lines()


class _Refused(list):
    """What was not copied: the first ``MAX_NOTES`` sentences, the others only counted."""

    more = 0

    def append(self, sentence: str) -> None:
        if len(self) < MAX_NOTES:
            super().append(sentence)
        else:
            self.more += 1

    def lines(self) -> list[str]:
        more = N_("... and {count} more files were not copied").format(count=self.more)
        return [*self, more] if self.more else [*self]


@dataclass(frozen=True)
class _Rules:
    skip: set
    shadowed: frozenset
    own: bool = False


def _copy_tree(root: Path, target: Path, relative: Path, refused: list, budget: list, rules):
    with os.scandir(root / relative) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            name = relative / entry.name
            if entry.name in rules.skip or entry.name.endswith(".ipynb") or _text_twin(root / name):
                continue
            mode = entry.stat(follow_symlinks=False).st_mode
            if not within_bounds(name):
                refused.append(TOO_DEEP.format(levels=MAX_DEPTH, size=MAX_PATH_BYTES, name=name))
            elif not relative.parts and module_name(entry.name) in rules.shadowed:
                hides = N_("it would hide the module the notebook imports")
                refused.append(NOT_COPIED.format(name=name, reason=hides))
            elif stat.S_ISDIR(mode):
                _copy_tree(root, target, name, refused, budget, rules)
            elif not stat.S_ISREG(mode):
                kind = N_("it is a {kind}, not a file").format(kind=_kind(mode))
                refused.append(NOT_COPIED.format(name=name, reason=kind))
            elif rules.own and entry.stat(follow_symlinks=False).st_nlink > 1:
                refused.append(NOT_COPIED.format(name=name, reason=_hard_link()))
            elif max(entry.stat(follow_symlinks=False).st_size, BLOCK) > budget[0]:
                too_large = N_("the files are too large")
                refused.append(NOT_COPIED.format(name=name, reason=too_large))
            else:
                checked = entry.stat(follow_symlinks=False)
                budget[0] -= max(checked.st_size, BLOCK)
                try:
                    _copy_regular(root / name, target / name, checked, rules.own)
                except OSError as error:
                    refused.append(NOT_COPIED.format(name=name, reason=reason(error)))


def within_bounds(relative: Path) -> bool:
    """Whether a handed-in file's path inside its folder is one the grader uses: at most
    ``MAX_DEPTH`` folders deep and ``MAX_PATH_BYTES`` long. Deeper files are never copied, so
    no walk needs to see them."""
    return len(relative.parts) <= MAX_DEPTH and len(os.fsencode(relative)) <= MAX_PATH_BYTES


def walk(folder: Path):
    """Yield ``(relative path, lstat)`` of each entry under ``folder`` within ``within_bounds``
    (not ``SKIP``), each folder's entries sorted by name. A loop over a list of folders to
    visit, not recursion, so a folder of any shape costs no stack; never into a symlink; a
    folder that cannot be listed is passed over."""
    pending = [Path()]
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(Path(folder, relative)) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = relative / entry.name
            if entry.name in SKIP or not within_bounds(name):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield name, info
            if stat.S_ISDIR(info.st_mode):
                pending.append(name)


def module_name(file_name: str) -> str:
    """The module ``import`` finds in a file or folder: ``checks.py``, ``checks/`` -> checks."""
    for suffix in (".py", ".pyc", ".pyw", ".so"):
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)].split(".")[0]
    return file_name


def _text_twin(path: Path) -> bool:
    """``hw1.py`` beside ``hw1.ipynb``: the notebook's Jupytext source, solutions included."""
    return path.suffix == ".py" and path.with_suffix(".ipynb").is_file()


def _copy_regular(source: Path, destination: Path, checked: os.stat_result, own: bool) -> None:
    """Copy one file, judged again by what was opened (a folder students can still write may
    change after it was listed): refused (OSError) if it is a symlink now (ELOOP), or not the
    file that was checked (another type, size or inode), or a hard link of a student's."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as src:
        opened = os.fstat(src.fileno())
        same = (opened.st_ino, opened.st_size) == (checked.st_ino, checked.st_size)
        if not (stat.S_ISREG(opened.st_mode) and same):
            raise OSError(errno.EAGAIN, N_("it changed while it was copied"))
        if own and opened.st_nlink > 1:
            raise OSError(errno.EMLINK, _hard_link())
        with destination.open("wb") as dst:
            shutil.copyfileobj(src, dst)


def _hard_link() -> str:
    return N_("it is a hard link: {why}").format(why=ANOTHERS)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISLNK, N_("symlink")), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, N_("socket")))
    return next((name for test, name in kinds if test(mode)), N_("device"))


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` unless the file holds it already; True when written.

    An unchanged file keeps its modification time, so building or releasing again shows
    nobody (git, make, rsync, a file browser) a change that is not there.
    """
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def mirror(staged: Path, target: Path, names: list[str]) -> list[str]:
    """Make ``target`` hold the files ``names`` of ``staged`` (paths relative to both), each
    written only if its bytes change; return the files of ``target`` that no mirror wrote.

    What an earlier mirror wrote (its list: ``target/MIRRORED``) and this one does not is
    removed. A file no mirror wrote (one you put there) stays: it is returned, never lost. A
    link is removed, never followed or written through. Editors' and Python's caches
    (``SKIP``) stay.
    """
    listed = target / MIRRORED
    earlier = set(listed.read_text(encoding="utf-8").splitlines()) if listed.is_file() else set()
    kept, others = set(names), []
    for path in sorted(target.rglob("*"), reverse=True):  # a folder's files before it
        parts = path.relative_to(target).parts
        relative = "/".join(parts)
        if SKIP & set(parts) or relative == MIRRORED:
            continue
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
        elif path.is_symlink() or (relative in earlier and relative not in kept):
            path.unlink()
        elif relative not in kept:
            others.append(relative)
    for name in names:
        if (target / name).is_dir():
            raise FileExistsError(f"{target / name} is a folder of files no release wrote")
        write_if_changed(target / name, (staged / name).read_bytes())
    write_if_changed(listed, "".join(f"{name}\n" for name in sorted(names)).encode("utf-8"))
    return sorted(others)
