"""``autogradkit build``: each notebook's text source -> its executed ``.ipynb``.

An instructor writes ``source/NN_name/NN_name.py`` in Jupytext's percent format: ``# %%``
starts a code cell, ``# %% [markdown]`` a markdown cell, and the header carries the cell's
metadata (``id="01-local-gradients"``, ``tags=["topic:T01"]``, ``nbgrader={...}``). ``build``
gives any new cell an id (written into its header: ``cell_ids``), reads the source, runs it in
a fresh ``python3`` kernel in a scratch copy of its folder, makes the outputs byte-stable
(release's ``NormaliseOutputs`` step) and writes ``NN_name.ipynb`` beside it, unless the file
holds those bytes already. ``release`` then works from that.

While it runs, the notebook's checks record what they see on the solution
(``checks.RECORD_ENV``); ``build`` writes that to ``.expected.json`` beside the notebook, the
recorded answers that give students instant feedback in practice mode.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from autogradkit.grading.checks import EXPECTED_FILE, RECORD_ENV, expected_text

from .cell_ids import assign_ids, cell_id, check_ids
from .config import GradingConfig
from .context import Context
from .files import SKIP, write_if_changed
from .kernels import kernel_env, local_kernel_manager
from .steps import NormaliseOutputs

__all__ = [
    "KERNELSPEC",
    "TEXT_FORMAT",
    "text_sources",
    "read_text_source",
    "execute",
    "write_notebook",
    "build_assignments",
    "give_ids",
    "write_expected",
]

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
TEXT_FORMAT = "py:percent"


def text_sources(course: Path, names: tuple[str, ...] = ()) -> list[Path]:
    """``source/NN/NN.py`` of the named assignments (all of them when none is named).

    Raises:
        FileNotFoundError: a named assignment has no text source of its name.
    """
    for name in names:
        if not (course / "source" / name / f"{name}.py").is_file():
            raise FileNotFoundError(f"no text source source/{name}/{name}.py in {course}")
    folders = [course / "source" / n for n in names] or sorted((course / "source").iterdir())
    return [f / f"{f.name}.py" for f in folders if (f / f"{f.name}.py").is_file()]


def read_text_source(path: Path):
    """The notebook a text source describes, without outputs, with ids that never change.

    A graded or solution cell's id is its nbgrader ``grade_id``; any other cell's id is the
    ``id`` in its header (``# %% [markdown] id="01-local-gradients"``, see ``cell_ids``), moved
    from the cell's metadata to the nbformat cell id.

    Raises:
        ValueError: a cell has no id (``autogradkit build`` gives it one first), or an id is
            used twice.
    """
    nb = jupytext.read(path, fmt=TEXT_FORMAT)
    check_ids(nb.cells, path)
    for index, cell in enumerate(nb.cells):
        found = cell_id(cell)
        if found is None:
            raise ValueError(f"{path}: cell {index} has no id: run `autogradkit ids` on it")
        cell.metadata.pop("id", None)
        cell.id = found
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    return nb


def execute(nb, folder: Path, timeout: float, env: dict | None = None) -> float:
    """Run every cell in a fresh ``python3`` kernel in ``folder``; return the seconds taken."""
    km = local_kernel_manager()
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        km=km,
        timeout=timeout,
        store_widget_state=True,
        record_timing=False,
        coalesce_streams=True,  # how prints are chunked varies by run
        resources={"metadata": {"path": str(folder)}},
    )
    try:
        client.execute(env={**kernel_env(), **(env or {})})
    except CellExecutionError as error:  # the instructor's cell: say which, and why
        raise ValueError(_cell_error(nb, error)) from None
    finally:  # nbclient only shuts down kernels it created itself
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    return time.perf_counter() - start


def _cell_error(nb, error: CellExecutionError) -> str:
    """The sentence for a cell that raised as the notebook ran: the cell, the error."""
    errors = [c for c in nb.cells if any(o.output_type == "error" for o in c.get("outputs", []))]
    failed = errors[-1]  # nbclient stops at the first cell that may not raise
    what_to_do = (
        "build runs your solution, so the mistake is in checks.py or in the solution"
        if error.ename == "CheckFailed"
        else "only a cell tagged raises-exception may raise: fix it, or tag it if the error is "
        "the lesson"
    )
    raised = f"the cell {failed.id} raised {error.ename}: {error.evalue}"
    return f"{raised}\n{failed.source}\n({what_to_do})"


def write_notebook(nb, path: Path) -> None:
    """Write the built notebook as nbformat does, unless ``path`` holds those bytes already."""
    nb.metadata["kernelspec"] = dict(KERNELSPEC)  # nbclient may rewrite it
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    write_if_changed(path, (nbformat.writes(nb).rstrip("\n") + "\n").encode("utf-8"))


def build_assignments(cfg: GradingConfig) -> dict:
    """Build ``source/NN/NN.ipynb`` from ``NN.py`` for ``cfg.assignments`` (all when empty)."""
    written = []
    for text in text_sources(Path(cfg.course), cfg.assignments):
        for new in assign_ids(text):
            print(f"{text}: a new cell got the id {new}", file=sys.stderr)
        nb = read_text_source(text)
        target = text.with_suffix(".ipynb")
        with tempfile.TemporaryDirectory(prefix="autogradkit-build-") as scratch:
            work = _scratch_copy(text.parent, Path(scratch))
            recorded = Path(scratch) / "records.jsonl"
            recorded.touch()
            try:
                seconds = execute(nb, work, cfg.timeout, {RECORD_ENV: str(recorded)})
            except ValueError as error:
                raise ValueError(f"{text}: {error}") from None
            write_expected(recorded, text.parent / EXPECTED_FILE)
            nb = NormaliseOutputs()(nb, Context(cfg, target, work))  # as release does
        write_notebook(nb, target)
        written.append(str(target))
        print(f"built {target} ({seconds:.1f} s)", file=sys.stderr)
    if not written:
        raise ValueError(f"no text sources (source/NN/NN.py) under {cfg.course}")
    return {"command": "build", "notebooks": written, "exit_code": 0}


def _scratch_copy(folder: Path, scratch: Path) -> Path:
    """A copy of the assignment's ``folder`` in ``scratch``, where its notebook runs: what the
    notebook writes as it runs (a saved figure) stays out of ``source/``, and so out of the
    release."""
    work = scratch / folder.name
    shutil.copytree(folder, work, symlinks=True, ignore=shutil.ignore_patterns(*SKIP))
    return work


def give_ids(cfg: GradingConfig) -> dict:
    """``autogradkit ids``: give each new cell of the named text sources a stable id."""
    given = {}
    for text in text_sources(Path(cfg.course), cfg.assignments):
        given[str(text)] = assign_ids(text)
        for new in given[str(text)]:
            print(f"{text}: a new cell got the id {new}", file=sys.stderr)
    return {"command": "ids", "ids": given, "exit_code": 0}


def write_expected(recorded: Path, target: Path) -> None:
    """The checks' records of one run -> ``.expected.json`` (none: no file at all)."""
    entries, hidden = {}, set()
    for line in recorded.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["check"] in entries and entries[record["check"]] != record["values"]:
            raise ValueError(f"check {record['check']} saw different values in two calls")
        entries[record["check"]] = record["values"]
        if record["hidden"]:
            hidden.add(record["check"])
    if entries:
        write_if_changed(target, expected_text(entries, hidden).encode("utf-8"))
    else:
        target.unlink(missing_ok=True)
