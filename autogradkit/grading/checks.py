"""The check API a course's ``checks.py`` is written with: a check observes, it does not decide.

A course keeps one ``checks.py`` beside each notebook. Each check is a function that runs the
student's answer on inputs it draws, and reports what it saw::

    check = Checks(__file__)

    @check.exercise("accumulated_grad")
    def accumulation(obs, accumulated_grad):
        \"\"\"Exercise 3: the gradient, accumulated over pieces\"\"\"
        x = agk.tensor(obs.rng.normal(size=6))
        ...
        grad = obs.call(accumulated_grad, x, y, 0.7, batch_size=2)
        obs.close("the gradient", grad, hint="divide each piece's loss by the number of pieces")

A test cell calls ``checks.accumulation()``; the answers are looked up by name in the notebook.
What the observations are compared with is always the same observation made on the
instructor's solution, on the same inputs:

* **practice** (JupyterLab, ``validate``, nbval): inputs from a fixed seed; the solution's
  observations were recorded by ``autogradkit build`` in ``.expected.json`` beside this file.
  One ``✓`` line per observation, or one ``✗`` line (``CheckFailed``, shown without a
  traceback unless the student's own code raised; then only the student's frames).
* **record** (``autogradkit build``): as practice, and the solution's observations are written
  out for practice mode.
* **grading** (``autogradkit grade`` arms the kernel): the grader sends a fresh seed just before
  each test cell; a check only emits its record (display data, ``observations.MIME``) and the
  grader judges it in its own process. Typed-in constants and a patched kernel cannot pass.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import sys
import threading
import traceback
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .._i18n import Catalog, catalog, folder_language, use_fonts
from ..random import fork_rng
from .observations import (
    MIME,
    Observation,
    Record,
    encode,
    failed_line,
    judge,
    passed_line,
    stopped_reason,
)

__all__ = [
    "Checks",
    "Observer",
    "CheckFailed",
    "BuildItYourself",
    "CheckTimeout",
    "refuse_library",
    "count_calls",
    "time_limit",
]

EXPECTED_FILE = ".expected.json"
RECORD_ENV = "AUTOGRADKIT_RECORD_CHECKS"  # set by ``build``: where to write the observations
_armed: dict = {}  # set by the grader only: {"seed": int | None}


class CheckFailed(Exception):
    """A check's ``✗`` line, raised in practice mode so the cell fails (as nbgrader expects).

    IPython shows an exception through its ``_render_traceback_`` when it has one: a failed
    check shows as its ``✗`` line (and the student's own frames), never as a traceback into the
    checks.
    """

    def _render_traceback_(self) -> list[str]:
        return str(self).splitlines()


class BuildItYourself(RuntimeError):
    """Raised by a library function while an exercise that re-implements it is checked."""


class CheckTimeout(TimeoutError):
    """The answer did not finish within ``time_limit``."""


class _Stop(Exception):
    """Ends a check early: the answer is missing, raised, or called a refused function."""

    def __init__(self, stopped: dict, error: BaseException | None = None):
        super().__init__(stopped)
        self.stopped, self.error = stopped, error


def arm(seed: int | None) -> None:
    """Grader only: switch this kernel to grading mode; ``seed`` is the next test cell's."""
    _armed["seed"] = seed


def mode() -> str:
    """``grading``, ``record`` or ``practice`` (see the module docstring)."""
    if _armed:
        return "grading"
    return "record" if os.environ.get(RECORD_ENV) else "practice"


def seed_for(check: str) -> int:
    """The seed a check draws its inputs from: fixed outside grading, the grader's inside."""
    fixed = zlib.crc32(check.encode())
    if mode() != "grading":
        return fixed
    return int(np.random.SeedSequence([_armed.get("seed") or 0, fixed]).generate_state(1)[0])


class Observer:
    """What a check function gets as ``obs``: a seeded ``rng`` and ways to report.

    Every report has a ``name`` the student reads (``"w after 3 epochs"``) and a ``hint`` shown
    when it differs from the solution's. Nothing is compared here.
    """

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.observations: list[Observation] = []

    def _add(self, name: str, value, **how) -> None:
        if any(o.name == name for o in self.observations):
            raise ValueError(f"two observations are called {name!r}: give each its own name")
        self.observations.append(Observation(name, encode(value), **how))

    def close(self, name: str, value, *, hint: str = "", atol=1e-6, rtol=1e-4, reveal=False):
        """A number, array or tensor that must be close to the solution's."""
        self._add(name, value, kind="close", hint=hint, atol=atol, rtol=rtol, reveal=reveal)

    def equal(self, name: str, value, *, hint: str = "", reveal: bool = False) -> None:
        """A value (bool, int, str, None, a list of them) that must equal the solution's."""
        self._add(name, value, kind="equal", hint=hint, reveal=reveal)

    def predicted(self, name: str, value, *, hint: str = "", atol=1e-4, rtol=1e-4) -> None:
        """A prediction: numbers are compared within a tolerance, anything else exactly; once
        the student has predicted, a wrong prediction shows the real value."""
        numeric = isinstance(value, (int, float, list, tuple)) and not isinstance(value, bool)
        kind = "close" if numeric or hasattr(value, "numpy") else "equal"
        self._add(name, value, kind=kind, hint=hint, atol=atol, rtol=rtol, reveal=True)

    def require(self, name: str, condition, *, hint: str = "") -> None:
        """A property the solution has (``True`` there); the check ends here when it fails.

        Require on every run, not only when it fails: the solution's record must hold the
        same observation for the grader to judge this one.
        """
        self.equal(name, bool(condition), hint=hint)
        if not condition:
            raise _Stop({"reason": "unmet"})

    def call(self, answer, *args, **kwargs):
        """Call the student's function; a missing, unfinished or failing answer ends the check
        with a reason (``NotImplementedError`` means "not answered yet")."""
        if answer is None or answer is Ellipsis:
            raise _Stop({"reason": "not_answered"})
        if not callable(answer):
            raise _Stop({"reason": "raised", "error": "TypeError"})
        try:
            return answer(*args, **kwargs)
        except NotImplementedError:
            raise _Stop({"reason": "not_answered"}) from None
        except BuildItYourself as error:
            raise _Stop({"reason": "refused"}, error) from None
        except CheckTimeout as error:
            raise _Stop({"reason": "timeout"}, error) from None
        except Exception as error:  # the student's own bug: reported, never a crash
            raise _Stop({"reason": "raised", "error": type(error).__name__}, error) from None


class Check:
    """One check function, callable from a test cell: ``checks.accumulation()``."""

    def __init__(self, owner: Checks, fn: Callable, answers: tuple[str, ...], hidden: bool):
        self.owner, self.fn, self.answers, self.hidden = owner, fn, answers, hidden
        self.name = fn.__name__
        self.title = (fn.__doc__ or fn.__name__).strip().splitlines()[0].rstrip(".")
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__

    def observe(self, *values, seed: int | None = None, **named) -> Record:
        """Run the check on these answers (by position or name; missing ones are looked up in
        the notebook) and return what it saw. Tests call this directly."""
        return self._run(values, named, seed)[0]

    def _run(self, values, named, seed) -> tuple[Record, BaseException | None]:
        answers = {**dict(zip(self.answers, values)), **named}
        record = Record(self.name, self.title, self.hidden)
        obs = Observer(seed_for(self.name) if seed is None else seed)
        error = None
        try:
            for name in self.answers:
                answers[name] = answers[name] if name in answers else _from_notebook(name)
            if any(answers[name] is Ellipsis for name in self.answers):
                raise _Stop({"reason": "not_answered"})
            with fork_rng():  # a check's layers and inputs leave the notebook's random state
                self.fn(obs, *(answers[name] for name in self.answers))
        except _Stop as stop:
            record.stopped, error = stop.stopped, stop.error
        except Exception as bug:  # the answer is of a kind the check did not foresee
            record.stopped = {"reason": "unexpected", "error": type(bug).__name__}
            error = bug
        record.observations = obs.observations
        return record, error

    def __call__(self, *values, **named) -> None:
        record, error = self._run(values, named, None)
        current = mode()
        if current == "grading":
            return _emit(record)
        if current == "record":
            _write_record(record)
            expected = {o.name: o.value for o in record.observations}
        else:
            expected = self.owner.expected(self.name)
        self.owner.outcomes[self.name] = False  # until _show gets through without a ✗
        _show(record, expected, error, self.owner.tr)
        self.owner.outcomes[self.name] = True


class Checks:
    """The checks of one notebook folder: ``check = Checks(__file__)`` in its ``checks.py``."""

    def __init__(self, module_file: str):
        self.folder = Path(module_file).resolve().parent
        self.language = folder_language(self.folder)  # the release writes it there
        use_fonts(self.language)  # before the notebook's first figure: checks load first
        self._expected: dict | None = None
        self.checks: list[Check] = []  # in the order they are written
        self.outcomes: dict[str, bool] = {}  # name -> passed, for the checks run so far

    def exercise(self, *answers: str, hidden: bool = False) -> Callable[[Callable], Check]:
        """Decorate ``fn(obs, *answers)``; ``answers`` are the notebook names it checks.
        ``hidden=True`` marks a check that only the instructor's notebook runs."""

        def register(fn: Callable) -> Check:
            self.checks.append(Check(self, fn, answers, hidden))
            return self.checks[-1]

        return register

    def progress(self) -> None:
        """One line per check of this notebook: ``✓`` passed, ``✗`` not yet, ``·`` not run yet
        in this session (practice only: when graded, the grader keeps the score).

        Example:
            >>> demo = Checks(__file__)
            >>> @demo.exercise("x")
            ... def positive(obs, x):
            ...     "Exercise 1: a positive number"
            >>> demo.progress()
            · Exercise 1: a positive number (not run yet)
            0 of 1 checks passed in this session
        """
        if mode() == "grading":
            return
        tr = self.tr
        for check in self.checks:
            passed = self.outcomes.get(check.name)
            title = tr.text(check.title)
            if passed is None:
                print(tr("· {title} (not run yet)", title=title))
            else:
                print(f"{'✓' if passed else '✗'} {title}")
        done = sum(self.outcomes.get(check.name, False) for check in self.checks)
        print(
            tr("{done} of {total} checks passed in this session", done=done, total=len(self.checks))
        )

    @property
    def tr(self) -> Catalog:
        """This notebook's catalog: the kit's words and ``checks.<language>.po`` beside it."""
        return catalog(self.language, self.folder)

    def expected(self, name: str) -> dict | None:
        """The solution's observations for check ``name`` in practice mode (None: unrecorded)."""
        if self._expected is None:
            self._expected = read_expected(self.folder / EXPECTED_FILE)
        return self._expected.get(name)


# ----- the three modes' outputs --------------------------------------------------------------
def _emit(record: Record) -> None:
    """Grading: the record goes out as display data; the grader judges it."""
    from IPython.display import display

    display({MIME: record.as_json()}, raw=True)


def _write_record(record: Record) -> None:
    """Record mode: keep the solution's values for practice mode (``build`` collects them)."""
    if record.stopped:
        return  # shown as a failure below: a solution that does not pass is an authoring bug
    values = {o.name: o.value for o in record.observations}
    line = {"check": record.check, "hidden": record.hidden, "values": values}
    with open(os.environ[RECORD_ENV], "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def _show(record: Record, expected: dict | None, error: BaseException | None, tr: Catalog) -> None:
    """Practice: one ``✓`` line per observation, or one ``✗`` line and ``CheckFailed``."""
    title = tr.text(record.title)
    if expected is None and not record.stopped:
        reason = tr("no recorded answers (run `autogradkit build`)")
        raise CheckFailed(failed_line(tr, title, reason))
    for seen in record.observations:
        want = Observation(**{**seen.as_json(), "value": (expected or {}).get(seen.name)})
        reason = judge(want, seen, tr) if seen.name in (expected or {}) else tr("not recorded")
        if reason:
            raise CheckFailed(failed_line(tr, tr.text(seen.name), reason, tr.text(seen.hint)))
        print(passed_line(tr, tr.text(seen.name)))
    if record.stopped:
        reason = stopped_reason(record.stopped, tr)
        frames = "" if record.stopped["reason"] == "refused" else _student_frames(error, tr)
        raise CheckFailed(failed_line(tr, title, reason + frames))


def _student_frames(error: BaseException | None, tr: Catalog) -> str:
    """The frames of ``error``'s traceback that are the student's code (notebook cells and
    their own files), one short line each; nothing from Python, the kit or the checks."""
    if error is None or error.__traceback__ is None:
        return ""
    kit = Path(__file__).resolve().parents[1]
    library = tuple(str(Path(p).resolve()) for p in {sys.prefix, sys.base_prefix, kit})
    frames = [
        "\n    "
        + tr(
            "line {line} in {function}: {code}",
            line=frame.lineno,
            function=frame.name,
            code=(frame.line or "").strip(),
        )
        for frame in traceback.extract_tb(error.__traceback__)
        if not str(Path(frame.filename).resolve()).startswith(library)
        and Path(frame.filename).name != "checks.py"
    ]
    message = str(error).splitlines()[0][:200] if str(error) else ""
    return (f": {message}" if message else "") + "".join(frames[-5:])


def _from_notebook(name: str):
    """The value of ``name`` in the running notebook; a missing name is "not answered"."""
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = None
    shell = get_ipython() if get_ipython else None
    if shell is None or name not in shell.user_ns:
        raise _Stop({"reason": "not_answered"})
    return shell.user_ns[name]


# ----- the recorded answers of practice mode -------------------------------------------------
ABOUT = (
    "Recorded by `autogradkit build` from the instructor's solutions, for the checks' instant "
    "feedback. Encoded so that answers are not in plain sight; grading never reads this file."
)


def expected_text(entries: dict[str, dict], hidden: set[str] = frozenset()) -> str:
    """The ``.expected.json`` text for ``{check: {observation: value}}`` (stable bytes);
    ``hidden`` names the checks that only the instructor's notebook has."""
    encoded = {
        name: base64.b64encode(json.dumps(values, sort_keys=True).encode()).decode()
        for name, values in sorted(entries.items())
    }
    data = {"about": ABOUT, "checks": encoded, "hidden": sorted(hidden)}
    return json.dumps(data, indent=1) + "\n"


def read_expected(path: Path) -> dict[str, dict]:
    """``{check: {observation: value}}`` from an ``.expected.json`` ({} when there is none)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return {k: json.loads(base64.b64decode(v)) for k, v in data["checks"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def public_expected(path: Path) -> str:
    """The release's ``.expected.json``: the same file without the hidden checks' answers."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    hidden = set(data.get("hidden", []))
    entries = {k: v for k, v in data["checks"].items() if k not in hidden}
    return json.dumps({"about": ABOUT, "checks": entries, "hidden": []}, indent=1) + "\n"


# ----- helpers for "build it yourself" exercises ---------------------------------------------
@contextmanager
def refuse_library(owner, *names: str, exercise: str) -> Iterator[None]:
    """While checking a "build it yourself" exercise, ``owner.<name>`` raises instead of working.

    Patch what the library function itself calls at run time (a module global), so that a
    student's earlier ``from ... import jacobian`` is refused too. Always restored.
    """
    originals = {name: getattr(owner, name) for name in names}

    def refused(*args, **kwargs):
        raise BuildItYourself(f"this exercise asks you to build {exercise} yourself")

    try:
        for name in names:
            setattr(owner, name, refused)
        yield
    finally:
        for name, original in originals.items():
            setattr(owner, name, original)


@contextmanager
def count_calls(owner, name: str) -> Iterator[list]:
    """Record every call of ``owner.<name>`` (e.g. ``Tensor.backward``) made inside the block."""
    original, calls = getattr(owner, name), []

    def counted(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    setattr(owner, name, counted)
    try:
        yield calls
    finally:
        setattr(owner, name, original)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``CheckTimeout`` in the block after ``seconds`` (main thread only; else no limit).

    A walk that revisits shared nodes takes time exponential in the number of diamonds: the
    limit turns "never finishes" into feedback.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise CheckTimeout(f"did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
