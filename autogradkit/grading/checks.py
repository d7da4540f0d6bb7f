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

How a check refuses the shortcut its exercise invites (DESIGN's grading trust model):

1. **By hand means no route.** An answer that must compute a derivative, a gradient or a
   backward pass without autograd runs through ``obs.by_hand(answer)``: in a fresh interpreter
   with NumPy and no kit (``by_hand.py``), where no name, kept reference, import, node call,
   ``functional``, ``gradcheck`` or tracer exists. Its arguments and results are plain data.
   (``refuse_library`` only patches names: it gives feedback, it refuses nothing for sure.)
2. **No check decides in the kernel.** ``obs.close`` and ``obs.equal`` send values the answer
   produced; ``obs.holds`` sends raw data (a visit order, a call graph, names used) whose
   property the grader computes (``observations.RULES``). ``obs.require`` is a gate for early
   feedback, not a pass: a check whose observations are all booleans, ``None`` or properties
   never passes (``observations.is_evidence``). Observe a value on every check.
3. **Counters count the graph under test**: ``backward_passes(w=w, b=b)`` lists, per
   backward pass, which of the exercise's tensors its graph reaches; ``gradient_trail()``
   the leaves' ``.grad`` after each pass (accumulation as a running sum);
   ``hooks_fired(...)`` which of the exercise's tensors a hook ran on. Observe the list, not
   a count: an empty ``backward()`` on another tensor, or a hook on a stray tensor, adds
   nothing the solution has.
4. **Finite differences miss**: where a derivative is asked for by hand, draw float64 inputs
   where central differences' truncation error is large (steep, curved functions), judge with
   a tight ``atol``/``rtol`` (1e-9), or observe what differences do not give (each node's
   local derivative). The exercise test shows differences failing at every step size. A
   complex step (``f(x + 1e-20j).imag / 1e-20``, exact to rounding) finds no complex number by
   hand: the by-hand interpreter's numbers are real.
5. **Structure is judged as structure**: "without recursion" is
   ``obs.holds(name, call_graph(answer), "acyclic")`` on the answer's code (no function that
   calls itself, directly or through another), and the call runs under
   ``recursion_limit(depth)`` (``sys.setrecursionlimit`` refused inside, the limit observed
   after). "The engine's order" is compared, as a value, with the order the engine really
   runs, on graphs whose topological orders differ.
6. **Private helpers refused**: ``obs.holds(name, kit_names(answer), "empty")`` lists the
   private names (``_x``) and introspection built-ins (``getattr``, ``vars``, ``globals`` ...)
   an answer that runs in the kernel uses; by-hand answers have no kit to reach at all.
   ``kit_calls(*allowed)`` lists the kit's functions the answer really ran, by any route (a
   kept reference, an import inside, a public walk or optimizer): an allow-list of what the
   lesson needs. It is a record kept in the kernel, beside the answer, which can change it
   (an answer that empties it passes): where a package of the kit is what the exercise
   rebuilds, ``obs.without(answer, package, around=trial)`` runs the answer, in the check's
   trial, where that package was never imported, and only data comes back (03 ex4, 04).
   Where the answer works on the kit's objects but must not let the kit do its work (a walk
   of the graph, a Function's backward, an engine of its own), ``obs.by_hand(answer,
   around=trial)`` runs it with no kit at all, on stand-ins the trial makes from data (nodes
   made of ``next_functions`` and ``variable``, arrays with a tensor's arithmetic), and only
   data comes back (05 ex2, ex3, ex6; 07 ex7). A class of the notebook crosses as what it
   holds (its methods, its data).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import signal
import sys
import threading
import traceback
import types
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .._i18n import Catalog, catalog, folder_language, use_fonts
from ..autograd import engine
from ..random import fork_rng
from ..tensor import Tensor
from .by_hand import ByHand, HandRaised, RefusedByHand, code_names
from .observations import (
    MIME,
    RULES,
    Observation,
    Record,
    decode_numbers,
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
    "backward_passes",
    "gradient_trail",
    "hooks_fired",
    "call_graph",
    "kit_names",
    "recursion_limit",
    "kit_calls",
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
        self.interpreters: list[ByHand] = []  # by-hand interpreters, ended with the check

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

    def holds(self, name: str, raw, rule: str, *, hint: str = "") -> None:
        """Raw data (a list) of which the grader computes a property, ``rule`` of
        ``observations.RULES``: ``acyclic`` (``[[caller, callee], ...]`` has no cycle),
        ``distinct`` (no item twice), ``empty`` (nothing in it). Never a pass on its own."""
        if rule not in RULES:
            raise ValueError(f"rule is one of {RULES}, not {rule!r}")
        self._add(name, list(raw), kind=rule, hint=hint)

    def require(self, name: str, condition, *, hint: str = "") -> None:
        """A gate: the check ends here when ``condition`` is false, with this line and hint.

        It sends a boolean, which a kernel could forge: it gives early feedback, it never earns
        a pass (observe a value too). Require on every run, not only when it fails: the
        solution's record must hold the same observation for the grader to judge this one.
        """
        self.equal(name, bool(condition), hint=hint)
        if not condition:
            raise _Stop({"reason": "unmet"})

    def by_hand(
        self,
        answer,
        *,
        recursion_limit: int | None = None,
        around: Callable | None = None,
        seconds: float = 20.0,
    ) -> ByHand:
        """The answer (or ``around(answer)``, the check's trial), to be called with ``obs.call``
        in an interpreter without the kit.

        Use it for every exercise done by hand: no route to the kit's differentiation exists
        there (see ``by_hand.py``). Pass plain data (numbers, NumPy arrays, lists, tuples,
        dicts), never tensors; results come back as plain data. ``recursion_limit`` caps the
        answer's own call depth (``sys.setrecursionlimit`` is refused there); a call that takes
        more than ``seconds`` ends the check (``timeout``). A trial may hand the answer
        stand-ins it makes from the data (05's graph walks get nodes made of
        ``next_functions``, ``variable`` and ``name()``, and no kit to walk them for them).

        Example:
            >>> obs = Observer(0)
            >>> double = obs.by_hand(lambda x: 2 * x)
            >>> obs.call(double, 21)
            42
            >>> obs.end()
        """
        self._answered(answer)
        kinds = types.FunctionType if around is None else (types.FunctionType, type)
        if not isinstance(answer, kinds):  # a trial may take a class (07's Value)
            raise _Stop({"reason": "unexpected", "error": type(answer).__name__})
        trial = answer if around is None else around(answer)
        own_numbers = isinstance(answer, type)  # 07's Value: a class of numbers, by design
        hand = ByHand(
            trial, recursion_limit=recursion_limit, timeout=seconds, own_numbers=own_numbers
        )
        self.interpreters.append(hand)
        return hand

    def without(self, answer, *packages: str, around: Callable | None = None) -> ByHand:
        """``around(answer)`` (or the answer), to be called with ``obs.call`` in an interpreter
        that has the kit but never imported ``packages`` (``"autogradkit.optim"``): they are
        not there to be called, by any route, so no record of what ran is needed, which the
        answer could change in the kernel. ``around`` is the check's trial, a function that
        makes the tensors, calls the answer and returns what it saw as plain data.

        Example:
            >>> import autogradkit as agk
            >>> obs = Observer(0)
            >>> double = obs.without(lambda x: (2 * agk.tensor(x)).tolist(), "autogradkit.optim")
            >>> obs.call(double, [1.0, 2.0])
            [2.0, 4.0]
            >>> obs.end()
        """
        self._answered(answer)
        if not isinstance(answer, types.FunctionType):
            raise _Stop({"reason": "unexpected", "error": type(answer).__name__})
        apart = ByHand(answer if around is None else around(answer), kit_without=packages)
        self.interpreters.append(apart)
        return apart

    def end(self) -> None:
        """End the by-hand interpreters of this check (``Check`` does, when the check ends)."""
        for hand in self.interpreters:
            hand.close()

    @staticmethod
    def _answered(answer) -> None:
        if answer is None or answer is Ellipsis:
            raise _Stop({"reason": "not_answered"})
        if not callable(answer):
            raise _Stop({"reason": "raised", "error": "TypeError"})

    def call(self, answer, *args, **kwargs):
        """Call the student's function; a missing, unfinished or failing answer ends the check
        with a reason (``NotImplementedError`` means "not answered yet")."""
        self._answered(answer)
        try:
            return answer(*args, **kwargs)
        except NotImplementedError:
            raise _Stop({"reason": "not_answered"}) from None
        except HandRaised as error:
            if error.kind == "NotImplementedError":
                raise _Stop({"reason": "not_answered"}) from None
            raise _Stop({"reason": "raised", "error": error.kind}, error) from None
        except (BuildItYourself, RefusedByHand) as error:
            reason = "own_numbers" if getattr(error, "own_numbers", False) else "refused"
            raise _Stop({"reason": reason}, error) from None
        except (CheckTimeout, TimeoutError) as error:
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
        finally:
            obs.end()
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
    values = {
        o.name: salted(record.check, o.name, o.value) if o.reveal else o.value
        for o in record.observations
    }
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
        value = (expected or {}).get(seen.name)
        want = Observation(**{**seen.as_json(), "value": value})
        reason = judge(want, seen, tr) if seen.name in (expected or {}) else tr("not recorded")
        if isinstance(value, dict) and "salted" in value:  # a prediction: only its hash is kept
            same = salted(record.check, seen.name, seen.value) == value
            reason = "" if same else tr("that is not what happens: run the cells below to see why")
        if reason:
            raise CheckFailed(failed_line(tr, tr.text(seen.name), reason, tr.text(seen.hint)))
        print(passed_line(tr, tr.text(seen.name)))
    if record.stopped:
        reason = stopped_reason(record.stopped, tr)
        refused = record.stopped["reason"] in ("refused", "own_numbers")
        frames = "" if refused else _student_frames(error, tr)
        raise CheckFailed(failed_line(tr, title, reason + frames))


def _student_frames(error: BaseException | None, tr: Catalog) -> str:
    """The frames of ``error``'s traceback that are the student's code (notebook cells and
    their own files), one short line each; nothing from Python, the kit or the checks."""
    if isinstance(error, HandRaised):  # raised by hand: the lines came back as data
        lines = [
            tr("line {line} in {function}: {code}", line=n, function=f, code=c)
            for n, f, c in error.frames
        ]
        message = str(error)
        return (f": {message}" if message else "") + "".join("\n    " + line for line in lines)
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
    "feedback. Encoded so that answers are not in plain sight, predictions as salted hashes; "
    "grading never reads this file."
)


def salted(check: str, name: str, value) -> dict:
    """A prediction as practice mode keeps it: a salted hash of its canonical form (numbers
    rounded to 4 decimals), never the value, so reading ``.expected.json`` does not answer it.

    A wrong prediction then says so without the real value (the cells below show it); the
    grader, which keeps the values, reveals them in the graded feedback. A short answer (a
    boolean, a small integer) can still be found by trying: practice mode lets a student try
    anyway, and predictions score no points.

    Example:
        >>> salted("c", "x.grad", 7) == salted("c", "x.grad", 7.00000001)
        True
        >>> salted("c", "x.grad", 7) == salted("c", "x.grad", 7.5)
        False
    """
    numbers = decode_numbers(value)
    if numbers is not None:
        canonical = json.dumps([list(numbers.shape), (np.round(numbers, 4) + 0.0).tolist()])
    else:
        canonical = json.dumps(value, sort_keys=True)
    salt = hashlib.sha256(f"autogradkit prediction {check} {name}".encode()).hexdigest()
    return {"salted": hashlib.sha256(f"{salt} {canonical}".encode()).hexdigest()}


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
    student's earlier ``from ... import jacobian`` is refused too. Always restored. This is
    feedback, not a guarantee: a reference to the original kept elsewhere still works. An
    answer that must not reach the kit at all runs through ``Observer.by_hand``.
    """

    def refused(*args, **kwargs):
        raise BuildItYourself(f"this exercise asks you to build {exercise} yourself")

    with contextlib.ExitStack() as stack:
        for name in names:
            stack.enter_context(_swapped(owner, name, refused))
        yield


@contextmanager
def _swapped(owner, name: str, value) -> Iterator:
    """``owner.<name>`` is ``value`` in the block; afterwards ``owner`` is as it was, to its own
    attributes: a method it inherited is inherited again, not copied into it (the guard, which
    puts back what student code changed, would take the copy for a patch)."""
    own = vars(owner)
    had, original = name in own, own.get(name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        if had:
            setattr(owner, name, original)
        else:
            delattr(owner, name)


@contextmanager
def count_calls(owner, name: str) -> Iterator[list]:
    """Record every call of ``owner.<name>`` (e.g. ``Tensor.backward``) made inside the block."""
    original, calls = getattr(owner, name), []

    def counted(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    with _swapped(owner, name, counted):
        yield calls


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


# ----- counters that count the graph under test (family 3) -----------------------------------
def _graph(roots) -> list:
    """Every node the graph from ``roots`` reaches, each once, in the order reached."""
    reached, todo = {}, [node for node, _ in roots if node is not None]
    while todo:
        node = todo.pop()
        if id(node) not in reached:
            reached[id(node)] = node
            todo += [child for child, _ in reversed(node.next_functions) if child is not None]
    return list(reached.values())


def _reached(roots, watched: dict) -> list[str]:
    """The names of the watched tensors the graph from ``roots`` reaches, sorted: a leaf by
    its ``AccumulateGrad`` node's ``variable``, a non-leaf by its ``grad_fn``. A watched
    name may hold a list of tensors (filled while the block runs): any of them counts."""
    found = set()
    for node in _graph(roots):
        variable = getattr(node, "variable", None)
        for name, tensors in watched.items():
            for tensor in tensors if isinstance(tensors, list) else [tensors]:
                if tensor is variable or (tensor.grad_fn is not None and tensor.grad_fn is node):
                    found.add(name)
    return sorted(found)


@contextmanager
def backward_passes(**watched) -> Iterator[list[list[str]]]:
    """One entry per backward pass run in the block (``backward()``, ``autograd.backward``,
    ``autograd.grad``): the sorted names of the watched tensors its graph reaches. Watch a
    list to watch the tensors a function of the check makes while the answer runs (the
    totals the answer differentiates).

    Observe the list with ``obs.equal``: a pass on another graph shows as ``[]``, so an empty
    ``agk.tensor(0., requires_grad=True).backward()`` adds nothing the solution has.

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor(2.0, requires_grad=True)
        >>> with backward_passes(w=w) as passes:
        ...     (w * 3).backward()
        ...     agk.tensor(0.0, requires_grad=True).backward()
        >>> passes
        [['w'], []]
    """
    passes, original = [], engine.run_backward

    def counted(roots, *args, **kwargs):
        passes.append(_reached(roots, watched))
        return original(roots, *args, **kwargs)

    engine.run_backward = counted
    try:
        yield passes
    finally:
        engine.run_backward = original


@contextmanager
def gradient_trail() -> Iterator[list]:
    """One entry per backward pass run in the block: the ``.grad`` of each leaf its graph
    reaches, read right after the pass (``None`` where the pass left it empty, as
    ``autograd.grad`` does), leaves in the order the graph reaches them.

    Observe it with ``obs.close``: accumulation shows as the running sum of the pieces, and
    a pass that does nothing for the exercise's leaves (an empty ``backward()`` on a stray
    tensor, ``(w * 0).backward()``) shows where the solution has none.

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor(2.0, requires_grad=True)
        >>> with gradient_trail() as trail:
        ...     (w * 3).backward()
        ...     (w * 4).backward()
        >>> trail
        [[3.0], [7.0]]
    """
    trail, original = [], engine.run_backward

    def traced(roots, *args, **kwargs):
        leaves = [n.variable for n in _graph(roots) if getattr(n, "variable", None) is not None]
        result = original(roots, *args, **kwargs)
        trail.append([None if t.grad is None else t.grad.detach().numpy().tolist() for t in leaves])
        return result

    engine.run_backward = traced
    try:
        yield trail
    finally:
        engine.run_backward = original


@contextmanager
def hooks_fired(**watched) -> Iterator[list[str]]:
    """The names of the watched tensors, one per time a hook registered on one of them in the
    block (``register_hook``) ran; a hook on any other tensor is not listed.

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor(2.0, requires_grad=True)
        >>> with hooks_fired(w=w) as fired:
        ...     handle = w.register_hook(lambda g: None)
        ...     (w * 3).backward()
        >>> fired
        ['w']
    """
    fired, original = [], Tensor.register_hook

    def register(tensor, hook):
        name = next((n for n, t in watched.items() if t is tensor), None)
        if name is None or not callable(hook):
            return original(tensor, hook)

        def counted(grad):
            fired.append(name)
            return hook(grad)

        return original(tensor, counted)

    with _swapped(Tensor, "register_hook", register):
        yield fired


# ----- structure judged as structure (families 5 and 6) --------------------------------------
def _functions_of(answer) -> dict:
    """``{name: code}``: the answer, the functions nested in it, and the notebook's functions
    its code names (and theirs), as their code objects."""
    found: dict = {}
    todo = [(getattr(answer, "__name__", "answer"), answer)]
    while todo:
        name, fn = todo.pop()
        code = getattr(fn, "__code__", None)
        if code is None or name in found:
            continue
        stack = [code]
        while stack:
            current = stack.pop()
            found.setdefault(current.co_qualname, current)
            stack.extend(c for c in current.co_consts if hasattr(c, "co_code"))
        scope = getattr(fn, "__globals__", {})
        for used in code_names(code):
            value = scope.get(used)
            if hasattr(value, "__code__") and not str(value.__module__).startswith("autogradkit"):
                todo.append((used, value))
    return found


def call_graph(answer) -> list[list[str]]:
    """Who may call whom in the answer's code: ``[[caller, callee], ...]`` between the answer,
    its nested functions and the notebook functions it names (by the names the code uses).
    A function that calls itself, directly or through another, makes a cycle: judge it with
    ``obs.holds(..., call_graph(answer), "acyclic")``.

    Example:
        >>> def walk(node):
        ...     return [walk(child) for child in node]
        >>> call_graph(walk)
        [['walk', 'walk.<locals>.<listcomp>'], ['walk.<locals>.<listcomp>', 'walk']]
    """
    functions = _functions_of(answer)
    edges = set()
    for name, code in functions.items():
        used = set(code.co_names) | set(code.co_freevars) | set(code.co_varnames)
        used |= set(code.co_cellvars)
        edges |= {(name, q) for q, other in functions.items() if other.co_name in used}
        edges |= {(name, c.co_qualname) for c in code.co_consts if hasattr(c, "co_code")}
    return [list(edge) for edge in sorted(edges)]


INTROSPECTION = frozenset(
    {"getattr", "setattr", "delattr", "vars", "globals", "locals", "eval", "exec", "compile"}
    | {"__import__", "breakpoint", "importlib", "inspect", "gc", "sys", "ctypes"}
    | {"__dict__", "__globals__", "__builtins__", "__closure__", "__code__", "__subclasses__"}
    | {"__self__", "__func__", "__wrapped__", "__getattribute__"}
)


def kit_names(answer) -> list[str]:
    """The private names (``_x``, not ``__x__``) and introspection built-ins (``getattr``,
    ``vars``, ``globals``, ``sys``, ``gc`` ...) the answer's code and its helpers use, sorted:
    judge with ``obs.holds(..., kit_names(answer), "empty")``.

    Example:
        >>> def seeds(t):
        ...     return engine._seeds((t,), (None,), False)
        >>> kit_names(seeds)
        ['_seeds']
    """
    names = set()
    for code in _functions_of(answer).values():
        names |= set(code.co_names)
    private = {n for n in names if n.startswith("_") and not n.endswith("__")}
    return sorted(private | (names & INTROSPECTION))


@contextmanager
def recursion_limit(depth: int) -> Iterator[list[int]]:
    """Run the block with room for ``depth`` more nested calls than here, and
    ``sys.setrecursionlimit`` refused; yields a list that gets the limit found at the end,
    counted from here.

    The limit holds while the block runs, whatever route changes it (a setter kept before the
    check, ``from sys import setrecursionlimit``): at every call a profiler puts it back, so a
    walk that recurses runs out of room as it would have. A change of the limit, or a profiler
    replaced in the block (by any route: the audit hook sees it), ends the check as refused.
    (Running out of room removes the profiler too, as Python does on an error inside it.)"""
    here = len(traceback.extract_stack())
    previous, setter, limit = sys.getrecursionlimit(), sys.setrecursionlimit, here + depth
    found: list[int] = []
    changed: list[int] = []

    def refused(limit):
        raise BuildItYourself("this exercise asks you to do it without recursion")

    def watching(outer):
        def watch(frame, event, arg):
            if event == "call" and sys.getrecursionlimit() != limit:
                changed.append(sys.getrecursionlimit())
                with contextlib.suppress(RecursionError):  # too deep already: refused below
                    setter(limit)
            if outer is not None:  # kit_calls' profiler, when it watches too
                outer(frame, event, arg)

        return watch

    outer, outer_threads, switched = sys.getprofile(), threading.getprofile(), set()
    setter(limit)
    sys.setrecursionlimit = refused
    sys.setprofile(watching(outer))
    threading.setprofile(watching(outer_threads))
    _profiled.append(switched)
    try:
        yield found
    finally:
        _profiled[:] = [seen for seen in _profiled if seen is not switched]
        sys.setprofile(outer)
        threading.setprofile(outer_threads)
        found.append(max([sys.getrecursionlimit(), *changed]) - here)
        sys.setrecursionlimit = setter
        setter(previous)
    if changed or switched or found[-1] != depth:
        raise _Stop({"reason": "refused"})


# ----- what of the kit an answer ran, by any route (families 1 and 6) -------------------------
KIT = Path(__file__).resolve().parents[1]  # the autogradkit package folder
_profiled: list[set[str]] = []  # while kit_calls or recursion_limit watch: what each saw


def _audit(event: str, args: tuple) -> None:
    """An audit hook (installed once, it cannot be removed): a profiler replaced while
    ``kit_calls`` or ``recursion_limit`` watches is seen, whatever route the call took
    (``map``, a kept reference); not ``recursion_limit``'s own, which passes every event on to
    kit_calls' profiler, nor Python's when a call at the recursion limit fails inside it."""
    if not _profiled or event not in ("sys.setprofile", "sys.settrace"):
        return
    caller = sys._getframe(1)
    if caller.f_code is _LIMIT_WATCHER or _at_the_limit(caller):
        return
    for tampered in _profiled:
        tampered.add(event)


def _at_the_limit(frame) -> bool:
    """Whether ``frame`` is within a few calls of the recursion limit."""
    depth, room = 0, sys.getrecursionlimit() - 10
    while frame is not None and depth < room:
        frame, depth = frame.f_back, depth + 1
    return depth >= room


_LIMIT_WATCHER = recursion_limit.__wrapped__.__code__
sys.addaudithook(_audit)


@contextmanager
def kit_calls(*allowed: str, package: str | tuple[str, ...] = "autogradkit") -> Iterator[list[str]]:
    """The kit's functions that code outside the kit called in the block (by qualified name,
    ``"walk"``, ``"SGD.step"``), other than ``allowed`` (a qualified name, or a method or
    property name of any class: ``"name"``, ``"grad_fn"``), sorted: judge with
    ``obs.holds(..., calls, "empty")``. ``package`` narrows what counts
    (``"autogradkit.optim"``: the library's optimizers only; a tuple: any of them).

    It watches what runs, not names: a reference kept before the check, an import inside the
    answer, a private helper and a public one all show, and so does a call into the package
    made for the answer by another part of the kit (a ``no_grad()`` wrapper). A profiler
    replaced in the block (``sys.setprofile``, by any route) shows as ``"sys.setprofile"``.

    Example:
        >>> import autogradkit as agk
        >>> walk, t = agk.autograd.graph.walk, agk.tensor(2.0, requires_grad=True) * 3
        >>> with kit_calls("name", "grad_fn") as calls:
        ...     names = [t.grad_fn.name()] + [n.name() for n in walk(t.grad_fn)]
        >>> calls
        ['walk']
    """
    roots = [KIT.joinpath(*name.split(".")[1:]) for name in _names(package)]
    inside = tuple(str(root) + os.sep if root.is_dir() else str(root) for root in roots)
    machinery = str(KIT / "grading")
    seen, tampered = set(), set()

    def profile(frame, event, arg):
        if event != "call":
            return
        code, caller = frame.f_code, frame.f_back
        # from outside the package, kit code too: a wrapper of the kit (``no_grad()(step)``)
        # that calls the package for the answer launders nothing
        outside = caller is None or not caller.f_code.co_filename.startswith(inside)
        if outside and code.co_filename.startswith(inside):
            if not code.co_filename.startswith(machinery):  # obs.call and friends
                seen.add(code.co_qualname)

    previous, previous_threads = sys.getprofile(), threading.getprofile()
    found: list[str] = []
    sys.setprofile(profile)
    threading.setprofile(profile)
    _profiled.append(tampered)
    try:
        yield found
    finally:
        _profiled.pop()
        threading.setprofile(previous_threads)
        sys.setprofile(previous)
        found.extend(sorted(q for q in seen if not _allowed(q, allowed)) + sorted(tampered))


def _names(package: str | tuple[str, ...]) -> tuple[str, ...]:
    return (package,) if isinstance(package, str) else tuple(package)


def _allowed(qualname: str, allowed: tuple[str, ...]) -> bool:
    return qualname in allowed or qualname.rsplit(".", 1)[-1] in allowed
