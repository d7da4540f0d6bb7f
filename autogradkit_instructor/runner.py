"""Running one cell in a grading kernel, within a time limit and an output budget.

A cell that runs too long is interrupted; if it ignores the interrupt (a loop that catches
``KeyboardInterrupt``) the kernel is killed. Output beyond the budget (any kind: streams, displays,
results, errors) is dropped with a note; an error or a result is still kept, cut short to its
name and first characters, because scoring needs it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from autogradkit.grading.observations import MAX_RECORD_CHARS, MIME

from . import untrusted
from .kernels import MAX_MESSAGE_BYTES, Kernel, get_reply, ready_reply, replies_to

__all__ = [
    "SLOW_AFTER",
    "TRUNCATED",
    "HIDDEN_ERROR",
    "ESSENTIAL_CHARS",
    "MAX_RECORDS",
    "NOTEBOOK_CELLS",
    "CellRun",
    "Outputs",
    "run_cell",
    "kept_chars",
]

SLOW_AFTER = 2.0  # seconds; a cell running longer yields the CPU to the other submissions
TRUNCATED = "\n[output truncated by the grader: more than {limit} characters]\n"
REFUSED = "\n[output dropped by the grader: a message larger than {limit} MiB]\n"
IDLE_GRACE = 1.0  # seconds the end of a cell's output may come after its reply
HIDDEN_ERROR = {
    "output_type": "error",
    "ename": "HiddenError",
    "evalue": "the cell raised an error and kept it out of its output",
    "traceback": ["HiddenError: the cell raised an error and kept it out of its output"],
}
ESSENTIAL_CHARS = 1000  # what is kept of an error or a result that is over the budget
ITEM_CHARS = 100  # what each output costs the budget besides its text (an empty one too)
MAX_RECORDS = 64  # check records kept per test cell, outside the output budget
NOTEBOOK_CELLS = 20  # a whole notebook keeps at most this many cells' output budgets


@dataclass
class CellRun:
    """What one execution produced.

    ``status`` is ``ok``, ``error`` (the cell raised), ``interrupted`` (too slow, stopped by an
    interrupt; the kernel lives on), ``killed`` (too slow and deaf to interrupts; the kernel is
    gone) or ``died`` (the kernel process exited by itself).
    """

    status: str
    outputs: list[dict] = field(default_factory=list)
    execution_count: int | None = None
    msg_id: str = ""  # the execute request's: its reply must be the only one


class Outputs:
    """Turns IOPub messages into nbformat outputs, within a character budget; check records
    are kept outside it only with ``records`` (a test cell, which is judged from them)."""

    def __init__(self, max_chars: int, records: bool = True):
        self.items: list[dict] = []
        self.keeps_records = records
        self.max_chars, self.used, self.cut = max_chars, 0, False
        self.over: dict[str, dict] = {}  # the last error and result over the budget
        self.count: int | None = None
        self.records = 0
        self._clear_next = False

    def add(self, kind: str, content: dict) -> None:
        if kind == "execute_input":
            self.count = content.get("execution_count")
        elif kind == "clear_output":
            self._clear_next = True
            if not content.get("wait"):
                self._clear()
        elif kind in ("stream", "display_data", "execute_result", "error"):
            if self._clear_next:
                self._clear()
            self._append(_output(kind, content, self.count))

    def _clear(self) -> None:
        """``clear_output``: the cell's outputs go, its check records stay."""
        self.items = [out for out in self.items if MIME in out.get("data", {})]
        self.used, self._clear_next = 0, False

    def _append(self, out: dict) -> None:
        last = self.items[-1] if self.items else None
        merged = out["output_type"] == "stream" and last and last.get("name") == out.get("name")
        cost = 0 if merged else ITEM_CHARS
        size = _size(out) + cost
        if MIME in out.get("data", {}) and self.keeps_records:  # what a verdict is made of
            if size - cost <= MAX_RECORD_CHARS and self.records < MAX_RECORDS:
                self.items.append(out)
                self.records += 1
            return
        if self.used + size > self.max_chars:
            room = self.max_chars - self.used - cost
            if out["output_type"] == "stream" and room > 0 and not self.cut:
                self._append({**out, "text": out["text"][:room]})  # keep what fits
            elif out["output_type"] in ("error", "execute_result"):
                self._keep_last(_shrunk(out))
            if not self.cut:
                self.cut = True
                note = TRUNCATED.format(limit=self.max_chars)
                self.items.append({"output_type": "stream", "name": "stderr", "text": note})
            return
        self.used += size
        if merged and not self.cut:
            last["text"] += out["text"]
        else:
            self.items.append(out)

    def _keep_last(self, out: dict) -> None:
        """Scoring needs a cell's error and its result: over the budget, each is kept cut
        short, and only the last of its kind (a kernel can send a million)."""
        kind = out["output_type"]
        if kind in self.over:
            self.items = [item for item in self.items if item is not self.over[kind]]
        self.over[kind] = out
        self.items.append(out)

    def note(self, text: str) -> None:
        """A line of the grader's own at the end of the outputs (once)."""
        if not any(out.get("text") == text for out in self.items):
            self.items.append({"output_type": "stream", "name": "stderr", "text": text})

    @property
    def has_error(self) -> bool:
        return any(out["output_type"] == "error" for out in self.items)


def kept_chars(outputs: list[dict], records: bool = True) -> int:
    """What ``outputs`` cost an output budget (with ``records``, check records are free)."""
    paid = (out for out in outputs if not (records and MIME in out.get("data", {})))
    return sum(_size(out) + ITEM_CHARS for out in paid)


def _size(out: dict) -> int:
    """Characters an output holds, whatever its type (text, data, traceback)."""
    parts = [out.get("text", ""), out.get("evalue", ""), *(out.get("traceback") or [])]
    parts += [*out.get("data", {}).values(), *out.get("metadata", {}).values()]
    return sum(len(str(part)) for part in parts)


def _shrunk(out: dict, keep: int = ESSENTIAL_CHARS) -> dict:
    """An error or result over the budget: its name and the start of its text only."""
    if out["output_type"] == "error":
        evalue = str(out.get("evalue") or "")[:keep]
        return {**out, "evalue": evalue, "traceback": [f"{out.get('ename')}: {evalue}"]}
    plain = str(out.get("data", {}).get("text/plain", ""))[:keep]
    return {**out, "data": {"text/plain": plain}, "metadata": {}}


def _output(kind: str, content: dict, count: int | None) -> dict:
    """The nbformat output for one IOPub message, its fields checked for type (the kernel is
    the submission's: a ``text`` that is a number, a ``data`` that is a list, a string no file
    can hold, lists nested past what any walk of them can recurse are all possible)."""
    content = untrusted.clean(content, untrusted.MAX_DEPTH)
    if kind == "stream":
        name = content.get("name") if content.get("name") in ("stdout", "stderr") else "stdout"
        return {"output_type": "stream", "name": name, "text": _str(content.get("text"))}
    if kind == "error":
        traceback = content.get("traceback")
        return {
            "output_type": "error",
            "ename": _str(content.get("ename")),
            "evalue": _str(content.get("evalue")),
            "traceback": [_str(line) for line in traceback] if isinstance(traceback, list) else [],
        }
    data, metadata = content.get("data"), content.get("metadata")
    out = {
        "output_type": kind,
        "data": data if isinstance(data, dict) else {},
        "metadata": metadata if isinstance(metadata, dict) else {},
    }
    if kind == "execute_result":
        number = content.get("execution_count", count)
        out["execution_count"] = number if type(number) is int else count
    return out


def _str(value) -> str:
    return value if isinstance(value, str) else ""


def run_cell(
    kernel: Kernel,
    code: str,
    *,
    timeout: float,
    grace: float,
    max_chars: int,
    on_slow: Callable[[], None] | None = None,
    records: bool = True,
) -> CellRun:
    """Execute ``code``; interrupt after ``timeout`` s, kill ``grace`` s later if still busy.

    After ``SLOW_AFTER`` s the kernel's priority is lowered and ``on_slow()`` is called.
    Check records are kept outside ``max_chars`` only with ``records``.
    """
    msg_id = kernel.client.execute(code, store_history=True, allow_stdin=False, stop_on_error=False)
    result = _run(kernel, msg_id, timeout, grace, Outputs(max_chars, records), on_slow)
    result.msg_id = msg_id
    return result


def _run(kernel: Kernel, msg_id: str, timeout: float, grace: float, outputs: Outputs, on_slow):
    interrupted, reply, idle_by = False, None, math.inf
    deadline = time.monotonic() + timeout
    slow_at = time.monotonic() + SLOW_AFTER if timeout > SLOW_AFTER else deadline
    shell = kernel.client.shell_channel.socket
    while True:
        until = min(deadline, slow_at, idle_by)
        event = kernel.wait(until - time.monotonic(), also=shell if reply is None else None)
        if event == "died":
            return CellRun("died", outputs.items, outputs.count)
        if event == "timeout" and time.monotonic() >= idle_by:  # the reply came, idle was lost
            return _finish(kernel, msg_id, outputs, interrupted, reply)
        if event == "timeout" and time.monotonic() < deadline:
            kernel.lower_priority()  # a slow cell (maybe a loop) must not slow the others
            slow_at = deadline
            if on_slow is not None:
                on_slow()
            continue
        if event == "timeout" and interrupted:
            kernel.close()
            return CellRun("killed", outputs.items, outputs.count)
        if event == "timeout":
            kernel.interrupt()
            interrupted, deadline = True, time.monotonic() + grace
            continue
        if _collect(kernel, msg_id, outputs):
            return _finish(kernel, msg_id, outputs, interrupted, reply)
        if reply is None:
            reply = ready_reply(kernel, msg_id)
            idle_by = time.monotonic() + IDLE_GRACE if reply is not None else math.inf


def _finish(
    kernel: Kernel, msg_id: str, outputs: Outputs, interrupted: bool, reply: dict | None = None
) -> CellRun:
    """The cell's status from its ``execute_reply``, which outputs cannot hide.

    An error that the student kept out of the outputs (a patched ``showtraceback``, a custom
    exception handler, ``clear_output`` in an event) is still an error. ``exit()`` ends the
    kernel once the reply is sent: this cell, not the next, is the one that stopped it.
    """
    if kernel.refused_messages():
        outputs.note(REFUSED.format(limit=MAX_MESSAGE_BYTES // 2**20))
    reply = reply if reply is not None else get_reply(kernel, msg_id)
    payload = reply.get("payload") if reply is not None else None
    asked = isinstance(payload, list) and any(_asks_exit(p) for p in payload)
    if reply is None or asked:
        return CellRun("died", outputs.items, outputs.count)
    if interrupted:
        return CellRun("interrupted", outputs.items, outputs.count)
    if reply.get("status") != "ok" and not outputs.has_error:
        outputs.items.append(dict(HIDDEN_ERROR))
    status = "error" if outputs.has_error else "ok"
    return CellRun(status, outputs.items, outputs.count)


def _asks_exit(payload) -> bool:
    return isinstance(payload, dict) and payload.get("source") == "ask_exit"


def _collect(kernel: Kernel, msg_id: str, outputs: Outputs) -> bool:
    """Add the arrived messages of request ``msg_id`` to ``outputs``; True once it is done.
    A message of another shape than Jupyter's is not the cell's: it is left out."""
    for msg in kernel.drain():
        if not replies_to(msg, msg_id):
            continue
        kind, content = msg.get("msg_type"), msg["content"]
        if kind == "status" and content.get("execution_state") == "idle":
            return True
        if kind == "execute_input":
            number = content.get("execution_count")
            content = {"execution_count": number if type(number) is int else None}
        outputs.add(kind, content)
    return False
