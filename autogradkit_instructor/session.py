"""Running a whole notebook in grading kernels: limits, and what happens when a cell breaks.

A cell that is interrupted for running too long keeps its kernel, and the next cell runs. A
cell that kills its kernel (a crash, or a loop deaf to interrupts) gets one second chance for
the rest of the notebook: a new kernel replays the cells that worked, skips the broken one and
goes on. Every cell that could not run is left without outputs, so it scores zero.

An nbgrader ``assert`` test cell that only reads data does not run in the kernel: the kernel
sends the values it reads, and the grader runs the cell on them itself (``asserts.py``).
"""

from __future__ import annotations

import ast
import re
import time

from autogradkit._i18n import N_
from autogradkit.grading import guard
from autogradkit.grading.observations import records_in

from . import asserts, cells, hidden, pyast, untrusted
from .kernels import Kernel, KernelDied, run_silent
from .runner import NOTEBOOK_CELLS, CellRun, kept_chars, run_cell

__all__ = [
    "MAX_RESTARTS",
    "tamper_notes",
    "ARM",
    "GUARD_INSTALL",
    "GUARD_RESET",
    "MESSAGES",
    "Session",
]

MAX_RESTARTS = 1
MAX_REPORT_CHARS = 20_000  # the guard's report, as the kernel answers it
ABOUT_THE_REPORT = "the tamper check "  # how each note on a report not the guard's begins
MALFORMED_REPORT = ABOUT_THE_REPORT + "sent a report of another shape than its own"
NO_REPORT = ABOUT_THE_REPORT + "could not run"
IDENTIFIER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)?")
# grading mode first (checks then only report), then the guard looks at IPython as it is
ARM = "import autogradkit.grading.checks as _c; _c.arm({seed}); del _c"
GUARD_INSTALL = (
    "import autogradkit.grading.guard as _g; _g.install(get_ipython(), {imports!r}); del _g"
)
GUARD_RESET = "__import__('sys').modules['autogradkit.grading.guard'].reset()"
MESSAGES = {
    "interrupted": (
        "timeout",
        "CellTimeoutError",
        N_("ran longer than {t:g} s and was interrupted"),
    ),
    "killed": (
        "timeout",
        "CellTimeoutError",
        N_("ran longer than {t:g} s and ignored the interrupt, so its kernel was stopped"),
    ),
    "died": (
        "kernel_died",
        "DeadKernelError",
        N_("stopped its kernel (exit(), a crash, os._exit() or running out of memory)"),
    ),
    "processes": (  # a "died" whose sandbox the grader ended (kernels.SandboxLauncher)
        "kernel_died",
        "SandboxLimitError",
        N_("started {n} processes and threads, its sandbox's limit, so the sandbox was stopped"),
    ),
    "memory": (  # a "died" whose sandbox the grader ended for its processes' memory together
        "kernel_died",
        "SandboxLimitError",
        N_(
            "held more than {m} MiB of memory in its processes together, its sandbox's limit, "
            "so the sandbox was stopped"
        ),
    ),
}


def tamper_notes(report: str) -> list[str]:
    """The guard's report, an untrusted answer from the kernel (the ``text/plain`` of a list of
    ``[kind, name]`` pairs), as sentences of the grader's own: a pair it does not know, a name
    that is not a dotted identifier, or a report of another shape is one note saying so.

    Example:
        >>> tamper_notes("[['member', 'numpy.isclose'], ['module', 'numpy']]")
        ['numpy.isclose was replaced', "sys.modules['numpy'] was replaced"]
        >>> tamper_notes("5")
        ['the tamper check sent a report of another shape than its own']
    """
    found = _literal(report) if report else None
    if not isinstance(found, list):
        return [MALFORMED_REPORT]
    notes, strange = [], 0
    for item in found[: untrusted.MAX_NOTES]:
        if isinstance(item, list) and len(item) == 2 and _known(*item):
            notes.append(guard.CHANGES[item[0]].format(item[1]))
        else:
            strange += 1
    if strange or len(found) > untrusted.MAX_NOTES:
        unnamed = len(found) - len(notes)
        notes.append(f"{ABOUT_THE_REPORT}reported {unnamed} changes it cannot name")
    return notes


def _literal(report: str):
    """``report`` as a Python literal, if it is a short one."""
    if len(report) > MAX_REPORT_CHARS:
        return None
    try:
        return ast.literal_eval(report)
    except Exception:  # noqa: BLE001 (SyntaxError, ValueError, RecursionError, MemoryError...)
        return None


def _known(kind, name) -> bool:
    named = isinstance(name, str) and len(name) <= 100 and IDENTIFIER.fullmatch(name)
    return kind in guard.CHANGES and bool(named)


def imported_names(nb: dict, every_cell: bool = False) -> dict[str, str]:
    """The global names the instructor's own cells (locked and test cells, not answers; with
    ``every_cell``, every code cell) bind with ``import``, and what they import:
    ``{"np": "numpy", "isclose": "numpy.isclose"}``."""
    found = {}
    for cell in nb["cells"]:
        mine = every_cell or cells.is_locked(cell) or cells.is_test(cell)
        if cell["cell_type"] != "code" or not mine:
            continue
        try:
            tree = pyast.parse(cell["source"])
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:  # import a.b binds a; import a.b as c binds c = a.b
                    target = alias.name if alias.asname else alias.name.split(".")[0]
                    found[alias.asname or target] = target
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


class Session:
    """Runs code cells in order for one submission, within ``ctx.cfg``'s limits."""

    def __init__(self, ctx):
        self.ctx, self.cfg = ctx, ctx.cfg
        self.kernel: Kernel | None = None
        self.deadline = time.monotonic() + self.cfg.total_timeout
        self.restarts_left, self.started = MAX_RESTARTS, False
        self.output_left = self.cfg.max_output_chars * NOTEBOOK_CELLS

    def run(self, nb: dict) -> None:
        """Execute every non-empty code cell of ``nb``, writing outputs into the cells."""
        ran: list[dict] = []
        imported = imported_names(self.ctx.source or nb)
        for position, cell in enumerate(nb["cells"], start=1):
            if cell["cell_type"] != "code" or not cell["source"].strip():
                continue
            label = cells.grade_id(cell) or N_("cell {n}").format(n=position)
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self.ctx.fail(
                    "timeout",
                    N_(
                        "{label} and later cells were not run: the submission used up its {s:g} s"
                    ).format(label=label, s=self.cfg.total_timeout),
                )
                return
            if not self._kernel_ready(ran, label):
                return
            limit = min(self.cfg.timeout, remaining)
            if cells.is_test(cell) and not self._check_tampering(f"before {label}"):
                self.ctx.unguarded.add(cells.grade_id(cell))  # its verdict is not taken
            if cells.is_test(cell):
                self._arm(cells.grade_id(cell))
                self._ship_hidden_checks(cell["source"])
            here = self._judged_here(cell, imported)
            code = asserts.values_code(here.names) if here else cell["source"]
            result = self._run(code, limit, records=cells.is_test(cell))
            cell["outputs"], cell["execution_count"] = result.outputs, result.execution_count
            if here is not None and result.status in ("ok", "error"):
                cell["outputs"] = self._judge_here(here, result, label)
                self.ctx.judged_here.add(cells.grade_id(cell))
            if cells.is_test(cell) and result.status in ("ok", "error"):
                self._confirm(cell, result, label)
            if result.status in ("ok", "error"):
                ran.append(cell)
            else:
                self._report(cell, result, label, limit)
        if self.kernel is not None and any(cells.is_test(c) for c in ran):
            self._check_tampering("after the last cell")  # what the last test cell's code did
        self._ended_after_the_last_cell()

    def _ended_after_the_last_cell(self) -> None:
        """A sandbox the grader ended once the last cell was over (its processes or memory,
        counted late on a busy machine) is reported as one that a cell passed the limit."""
        if self.kernel is not None and self.kernel.limit_reached:
            status, _, text = MESSAGES[self.kernel.limit_reached]
            what = text.format(n=self.cfg.max_processes, m=self.cfg.memory_limit_mb)
            after = N_("after the last cell, the submission {what}")
            self.ctx.fail(status, after.format(what=what))

    def _judged_here(self, cell: dict, imported: dict) -> asserts.Plan | None:
        """The plan of judging this test cell in the grader (``asserts.py``): an ``assert``
        cell without check records whose expressions only read data; else None."""
        gid = cells.grade_id(cell)
        if not cells.is_test(cell) or gid in getattr(self.ctx, "references", {}):
            return None
        return asserts.plan(cells.text(cell["source"]), imported)

    def _judge_here(self, here: asserts.Plan, result: CellRun, label: str) -> list[dict]:
        """The test cell's outputs as the grader computes them from the values its kernel
        sent; values that are not what was asked (sent twice, missing, malformed) fail it."""
        records, unreadable = records_in({"outputs": result.outputs})
        why = "the kernel raised while sending the values" if result.status == "error" else ""
        try:
            outputs = asserts.judge(here, records) if not why else []
        except ValueError as error:
            why = str(error)
        if unreadable and not why:
            why = f"{unreadable} records of values could not be read"
        if not why:
            return outputs
        if len(self.ctx.review) <= untrusted.MAX_NOTES:
            self.ctx.review.append(f"{label}: {why}")
        evalue = f"the grader could not judge this cell: {why}"
        error = {"output_type": "error", "ename": "UnjudgedCell", "evalue": evalue}
        return [{**error, "traceback": [f"UnjudgedCell: {evalue}"]}]

    def _run(self, code: str, limit: float, records: bool = False) -> CellRun:
        """Run one cell within what is left of the notebook's output budget (``NOTEBOOK_CELLS``
        cells' worth: a notebook of a thousand chatty cells is not a thousand budgets); only a
        test cell keeps check records outside it."""
        yielded = []

        def give_up_cpu() -> None:  # a slow cell lets another submission compute meanwhile
            if self.ctx.cpu is not None:
                self.ctx.cpu.release()
                yielded.append(True)

        result = run_cell(
            self.kernel,
            code,
            timeout=limit,
            grace=self.cfg.interrupt_grace,
            max_chars=min(self.cfg.max_output_chars, self.output_left),
            on_slow=give_up_cpu,
            records=records,
        )
        self.output_left = max(0, self.output_left - kept_chars(result.outputs, records))
        if yielded:
            self.ctx.cpu.acquire()
        return result

    def _left(self, most: float = 30.0) -> float:
        """How long a request of the grader's may wait for the kernel: at most ``most``, and
        no more than the submission has left (at least a second). A kernel that answers the
        grader slowly spends its own submission's time, not the class's."""
        return min(most, max(1.0, self.deadline - time.monotonic()))

    def _check_tampering(self, when: str) -> bool:
        """Undo hooks and patches before a test cell (and look once more after the last
        cell); note them for review (``guard.py``). False when no report of the guard's
        shape came back (the guard was removed or replaced, or the kernel did not answer)."""
        try:
            notes = tamper_notes(run_silent(self.kernel, "", self._left(), GUARD_RESET))
        except (KernelDied, TimeoutError):
            notes = [NO_REPORT]
        for change in notes:
            note = f"{when}: {change}"
            if note not in self.ctx.review and len(self.ctx.review) <= untrusted.MAX_NOTES:
                self.ctx.review.append(note)
        return not any(note.startswith(ABOUT_THE_REPORT) for note in notes)

    def _confirm(self, cell: dict, result, label: str) -> None:
        """A test cell is over when its kernel has answered the next request: the kernel
        answers in order, so the cell's own reply came first, and a second reply to it means
        that one of them was sent by student code (which holds the session's key, and can
        end its cell with an "idle" and an ok reply before its error or value). A cell that
        was answered twice, or after which the kernel answered nothing (it died, or still
        runs), fails with an error of the grader's own, for review."""
        try:
            run_silent(self.kernel, "", timeout=self._left(self.cfg.timeout), expression="0")
            why = "the kernel answered this test cell twice"
            confirmed = result.msg_id not in self.kernel.answered_again
        except (KernelDied, TimeoutError):
            if self.kernel.limit_reached:  # the grader ended its sandbox as the cell ended
                self._report(cell, CellRun("died"), label, self.cfg.timeout)
                return
            why = "the kernel answered nothing after this test cell"
            confirmed = False
        if not confirmed:
            error = {"output_type": "error", "ename": "UnconfirmedCell", "evalue": why}
            cell["outputs"].append({**error, "traceback": [f"UnconfirmedCell: {why}"]})
            if len(self.ctx.review) <= untrusted.MAX_NOTES:
                self.ctx.review.append(f"{label}: {why}")

    def _arm(self, grade_id: str | None) -> None:
        """Send the test cell's seed just before it runs: its checks draw fresh inputs that no
        earlier cell could know (the instructor's reference run gets the same seed)."""
        seed = self.ctx.seeds.get(grade_id)
        if seed is not None:
            try:
                run_silent(self.kernel, ARM.format(seed=seed), self._left())
            except (KernelDied, TimeoutError):
                pass  # the test cell then meets the dead kernel and reports it

    def _ship_hidden_checks(self, source: str) -> None:
        """Define the hidden checks this test cell calls, now and not before (``hidden.py``)."""
        code = hidden.ship_code(self.ctx.hidden_checks, source)
        if code is not None:
            try:
                run_silent(self.kernel, code, self._left())
            except (KernelDied, TimeoutError):
                pass  # the test cell then meets the dead kernel and reports it

    def _report(self, cell: dict, result: CellRun, label: str, limit: float) -> None:
        ended = self.kernel.limit_reached if self.kernel and result.status == "died" else ""
        status, ename, text = MESSAGES[ended or result.status]
        what = text.format(t=limit, n=self.cfg.max_processes, m=self.cfg.memory_limit_mb)
        evalue = f"this cell {what}"
        cell["outputs"] = [o for o in cell["outputs"] if o.get("ename") != "KeyboardInterrupt"]
        if result.status != "interrupted":  # whether the count arrived before the kernel went
            cell["execution_count"] = None  # is a race: a cell that lost its kernel has none
        cell["outputs"].append(
            {
                "output_type": "error",
                "ename": ename,
                "evalue": evalue,
                "traceback": [f"{ename}: {evalue}"],
            }
        )
        self.ctx.fail(status, N_("{label}: this cell {what}").format(label=label, what=what))
        if result.status != "interrupted":
            self.close()

    def _kernel_ready(self, ran: list[dict], label: str) -> bool:
        """A live kernel holding the state of ``ran``, or False (reported) if there is none."""
        if self.kernel is not None:
            return True
        replay = ran if self.started else []  # a restart must rebuild the lost state
        if self.started:
            if self.restarts_left == 0:
                self.ctx.issues.append(
                    N_("{label} and later cells were not run (no kernel left)").format(label=label)
                )
                return False
            self.restarts_left -= 1
        try:
            self.kernel = self.ctx.kernels.acquire(self.ctx.workdir)
            if self.ctx.seeds:  # before any student code runs in it
                run_silent(self.kernel, ARM.format(seed=None))
            imports = imported_names(self.ctx.source or {"cells": []})
            run_silent(self.kernel, GUARD_INSTALL.format(imports=imports))
        except (RuntimeError, TimeoutError, KernelDied) as error:
            self.ctx.fail(
                "error",
                N_("{label} and later cells were not run: {error}").format(
                    label=label, error=error
                ),
            )
            return False
        self.started = True
        limit = max(0.0, self.deadline - time.monotonic())
        replay_ok = all(self._run(c["source"], limit).status in ("ok", "error") for c in replay)
        if not replay_ok:
            self.ctx.issues.append(
                N_("{label} and later cells were not run (replay failed)").format(label=label)
            )
            self.close()
        return replay_ok

    def close(self) -> None:
        if self.kernel is not None:
            self.kernel.close()
            self.kernel = None
