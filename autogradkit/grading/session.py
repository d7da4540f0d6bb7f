"""Running a whole notebook in grading kernels: limits, and what happens when a cell breaks.

A cell that is interrupted for running too long keeps its kernel, and the next cell runs. A
cell that kills its kernel (a crash, or a loop deaf to interrupts) gets one second chance for
the rest of the notebook: a new kernel replays the cells that worked, skips the broken one and
goes on. Every cell that could not run is left without outputs, so it scores zero.
"""

from __future__ import annotations

import ast
import time

from . import cells
from .kernels import Kernel, KernelDied, run_silent
from .runner import CellRun, run_cell

__all__ = ["MAX_RESTARTS", "ARM", "GUARD_INSTALL", "GUARD_RESET", "MESSAGES", "Session"]

MAX_RESTARTS = 1
# grading mode first (checks then only report), then the guard looks at IPython as it is
ARM = "import autogradkit.grading.checks as _c; _c.arm({seed}); del _c"
GUARD_INSTALL = "import autogradkit.grading.guard as _g; _g.install(get_ipython()); del _g"
GUARD_RESET = "__import__('sys').modules['autogradkit.grading.guard'].reset()"
MESSAGES = {
    "interrupted": ("timeout", "CellTimeoutError", "ran longer than {t:g} s and was interrupted"),
    "killed": (
        "timeout",
        "CellTimeoutError",
        "ran longer than {t:g} s and ignored the interrupt, so its kernel was stopped",
    ),
    "died": (
        "kernel_died",
        "DeadKernelError",
        "stopped its kernel (exit(), a crash, os._exit() or running out of memory)",
    ),
}


class Session:
    """Runs code cells in order for one submission, within ``ctx.cfg``'s limits."""

    def __init__(self, ctx):
        self.ctx, self.cfg = ctx, ctx.cfg
        self.kernel: Kernel | None = None
        self.deadline = time.monotonic() + self.cfg.total_timeout
        self.restarts_left, self.started = MAX_RESTARTS, False

    def run(self, nb: dict) -> None:
        """Execute every non-empty code cell of ``nb``, writing outputs into the cells."""
        ran: list[dict] = []
        for position, cell in enumerate(nb["cells"], start=1):
            if cell["cell_type"] != "code" or not cell["source"].strip():
                continue
            label = cells.grade_id(cell) or f"cell {position}"
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self.ctx.fail(
                    "timeout",
                    f"{label} and later cells were not run: the "
                    f"submission used up its {self.cfg.total_timeout:g} s",
                )
                return
            if not self._kernel_ready(ran, label):
                return
            limit = min(self.cfg.timeout, remaining)
            if cells.is_test(cell):
                self._check_tampering(label)
                self._arm(cells.grade_id(cell))
            result = self._run(cell["source"], limit)
            cell["outputs"], cell["execution_count"] = result.outputs, result.execution_count
            if result.status in ("ok", "error"):
                ran.append(cell)
            else:
                self._report(cell, result, label, limit)

    def _run(self, code: str, limit: float) -> CellRun:
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
            max_chars=self.cfg.max_output_chars,
            on_slow=give_up_cpu,
        )
        if yielded:
            self.ctx.cpu.acquire()
        return result

    def _check_tampering(self, label: str) -> None:
        """Undo hooks and patches before a test cell; note them for review (``guard.py``)."""
        try:
            found = run_silent(self.kernel, "", expression=GUARD_RESET)
            changes = ast.literal_eval(found) if found else ["the tamper check did not answer"]
        except (KernelDied, TimeoutError, ValueError, SyntaxError):
            changes = ["the tamper check could not run"]
        for change in changes:
            note = f"before {label}: {change}"
            if note not in self.ctx.review:
                self.ctx.review.append(note)

    def _arm(self, grade_id: str | None) -> None:
        """Send the test cell's seed just before it runs: its checks draw fresh inputs that no
        earlier cell could know (the instructor's reference run gets the same seed)."""
        seed = self.ctx.seeds.get(grade_id)
        if seed is not None:
            try:
                run_silent(self.kernel, ARM.format(seed=seed))
            except (KernelDied, TimeoutError):
                pass  # the test cell then meets the dead kernel and reports it

    def _report(self, cell: dict, result: CellRun, label: str, limit: float) -> None:
        status, ename, text = MESSAGES[result.status]
        evalue = f"this cell {text.format(t=limit)}"
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
        self.ctx.fail(status, f"{label}: {evalue}")
        if result.status != "interrupted":
            self.close()

    def _kernel_ready(self, ran: list[dict], label: str) -> bool:
        """A live kernel holding the state of ``ran``, or False (reported) if there is none."""
        if self.kernel is not None:
            return True
        replay = ran if self.started else []  # a restart must rebuild the lost state
        if self.started:
            if self.restarts_left == 0:
                self.ctx.issues.append(f"{label} and later cells were not run (no kernel left)")
                return False
            self.restarts_left -= 1
        try:
            self.kernel = self.ctx.kernels.acquire(self.ctx.workdir)
            if self.ctx.seeds:  # before any student code runs in it
                run_silent(self.kernel, ARM.format(seed=None))
            run_silent(self.kernel, GUARD_INSTALL)
        except (RuntimeError, TimeoutError, KernelDied) as error:
            self.ctx.fail("error", f"{label} and later cells were not run: {error}")
            return False
        self.started = True
        limit = max(0.0, self.deadline - time.monotonic())
        replay_ok = all(self._run(c["source"], limit).status in ("ok", "error") for c in replay)
        if not replay_ok:
            self.ctx.issues.append(f"{label} and later cells were not run (replay failed)")
            self.close()
        return replay_ok

    def close(self) -> None:
        if self.kernel is not None:
            self.kernel.close()
            self.kernel = None
