"""The repository names nothing outside itself: a clone on any machine has all it refers to.

Every tracked text file (notebooks: their cells and text outputs, not their images) is read
for two kinds of reference:

* a relative path that climbs out of the file's folder (``../``) must name a file of the
  repository: from its own folder (``../README.md`` in docs/), or from the folder it was
  written for (docs/translating.md shows a notebook's ``../../GLOSSARY.md``); one into a
  folder beside the repository (``../shared/...``) fails;
* an absolute path into the machine's own folders (``/usr``, ``/tmp``, ``/home``... and every
  folder at the root of the machine running the test) fails, unless ``ALLOWED`` below lists
  it, with the reason it is the same on every machine.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from .optional import skip_unless

ROOT = Path(__file__).resolve().parents[1]
# the top-level folders of Linux's and macOS's file systems (and of this machine's, below)
LINUX = "bin boot dev etc home lib lib32 lib64 media mnt opt proc root run sbin srv sys tmp usr var"
ROOT_FOLDERS = {*LINUX.split(), "Users", "Volumes", "private", "Library"}
ABSOLUTE = re.compile(r"(?<![\w.~/:<>\\$)}-])(/[A-Za-z_][\w.+@-]*(?:/[\w.+@-]+)*/?)|(~/[\w.+@/-]*)")
CLIMBING = re.compile(r"(?<![\w.])((?:\.\./)+)([\w.+@-]+(?:/[\w.+@-]+)*)")
# absolute paths that mean the same on every machine, each with its reason (full matches)
ALLOWED = {
    r"/usr/bin/env": "a script's shebang",
    r"/bin/sh": "the POSIX shell",
    r"/usr/bin/chromium\.?": "Debian's Chromium, which tools/install_browser.sh installs",
    r"/dev/null": "the null device",
    r"/(usr|bin|sbin|lib|lib32|lib64|etc|tmp|dev|dev/shm|proc|usr/bin)": "the sandbox's folders",
    r"/lib64/ld-linux\.\.\.": "the dynamic loader's link, in the sandbox's docstring",
    r"/etc/(alternatives|fonts|ld\.so\.cache|localtime|mime\.types)": "read by kernels",
    r"/etc/(passwd|shadow)": "the accounts files, which the sandbox hides",
    r"/etc/containers(/containers\.conf)?": "Podman's configuration (install_podman.sh)",
    r"/var/cache/fontconfig": "fontconfig's system cache, which without_optional_packages hides",
    r"/usr/local/sbin": "the first folder of a fresh Debian's PATH (without_optional_packages)",
    r"/proc/(self/(cgroup|statm))?": "the kernel's process files",
    r"/sys/fs/cgroup(/cgroup\.controllers)?": "the kernel's cgroup files",
    r"/home/student": "the student's home inside the sandbox and the container",
    r"/run/(kernel|submission)(/[\w.-]+)?": "the kernel's folders inside the sandbox",
    r"/tmp/ipykernel_\d*(/\d+\.py)?": "IPython's name of a cell's code, in warnings",
    r"/tmp/cell-7\.py": "a made-up cell file name, in a test of tracebacks",
    r"/(opt/tljh|srv)/[\w./-]*": "a JupyterHub server's folders, in docs/deploy.md",
}

# files whose paths out of the repository are examples, each with its reason
EXAMPLES = {
    "tests/test_self_contained.py": "this test's own examples of what it catches",
    "tests/grading/test_cluster.py": "submission files named to escape their folder (refused)",
    "tests/grading/test_i18n.py": "a notebook language that climbs folders (refused)",
    "tests/grading/test_class_report.py": "a report's link to a feedback page of a graded course",
}


def tracked_files() -> list[str]:
    command = ["git", "ls-files", "-z"]
    listed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return [name for name in listed.stdout.split("\0") if name]


def tracked_texts() -> dict[str, str]:
    """Each tracked text file's text (a notebook's without its images), but the files that
    hold such paths as examples, on purpose."""
    texts = {}
    for name in set(tracked_files()) - set(EXAMPLES):
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files (fonts, images), and files deleted but not yet staged
        texts[name] = "\n".join(_strings(json.loads(text))) if name.endswith(".ipynb") else text
    return texts


def _strings(value):
    """Every string in a notebook's JSON but its images' base64 data."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not key.startswith("image/"):
                yield from _strings(item)


def machine_paths(text: str, roots: set[str]) -> list[str]:
    """The absolute paths in ``text`` that start in one of ``roots``, and ``~/`` paths."""
    found = []
    for absolute, home in ABSOLUTE.findall(text):
        if home or absolute.strip("/").split("/")[0] in roots:
            found.append(home or absolute)
    return found


def paths_leaving(name: str, text: str, files: set[str]) -> list[str]:
    """The ``../`` paths in file ``name`` that name no file of the repository (``files``),
    from ``name``'s folder or any other."""
    found = []
    for ups, rest in CLIMBING.findall(text):
        target = os.path.normpath(os.path.join(os.path.dirname(name), ups, rest))
        if target not in files and not any(f == rest or f.endswith(f"/{rest}") for f in files):
            found.append(ups + rest)
    return found


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    skip_unless("git")  # the tracked files
    return tracked_texts()


def test_no_tracked_file_names_a_folder_of_this_machine(texts):
    roots = ROOT_FOLDERS | {p.name for p in Path("/").iterdir() if p.is_dir()}
    allowed = re.compile("|".join(f"(?:{pattern})" for pattern in ALLOWED))
    wrong = {
        name: found
        for name, text in texts.items()
        if (found := [p for p in machine_paths(text, roots) if not allowed.fullmatch(p)])
    }
    assert wrong == {}


def test_no_tracked_file_climbs_out_of_the_repository(texts):
    files = set(tracked_files())
    wrong = {
        name: found for name, text in texts.items() if (found := paths_leaving(name, text, files))
    }
    assert wrong == {}


def test_the_checks_catch_what_a_clone_would_lack():
    roots = {"usr", "home", "work"}
    text = "see /work/shared/jupyter.md, ~/notes.txt or /home/me/x; 3/4 and a/b are fine"
    assert machine_paths(text, roots) == ["/work/shared/jupyter.md", "~/notes.txt", "/home/me/x"]
    files = {"README.md", "docs/TOPICS.md", "notebooks/GLOSSARY.md"}
    found = paths_leaving("README.md", "../shared/TOPICS.md, ../docs/TOPICS.md", files)
    assert found == ["../shared/TOPICS.md"]
    text = "[up](../README.md), a notebook's ../../GLOSSARY.md, ../../../secrets.txt"
    assert paths_leaving("docs/a.md", text, files) == ["../../../secrets.txt"]
