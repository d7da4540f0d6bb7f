"""What a check sees of an answer, as JSON, and how a seen value is judged against the expected.

A check does not decide in the student's kernel. It *observes* the answer: values, gradients,
shapes, names, counts. Each observation travels as plain JSON (``encode``), so the grader can
judge it in its own process (``judge``) against the same observation made on the instructor's
solution. Nothing here imports IPython or the kit's Tensor: this is the part the grader trusts.

Two sorts of observation, told apart by the solution's record (never by the student's):

* **values** (``close``, ``equal``): what the answer produced, compared with what the solution
  produced on the same fresh inputs. Only these can earn a check its pass: a record whose
  observations are all booleans, ``None`` or properties (below) never passes, since a kernel
  can send ``True`` without an answer (``is_evidence``).
* **properties** (``RULES``): raw data the kernel sends, a visit order, a call graph, a list of
  names, of which the grader itself computes the property (``acyclic``: no function calls
  itself, directly or through another; ``distinct``: no item twice; ``empty``: nothing used).

A judgement never quotes the student's value, only the expected one (when the observation may
reveal it) and facts the grader computed, so feedback cannot carry text a submission chose.
Its words come from a ``Catalog`` (``autogradkit/_i18n.py``): the student's language, English
by default; the names and hints it shows are always the solution's (``expected``), translated.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass, field

import numpy as np

from .._i18n import ENGLISH, Catalog

__all__ = [
    "MIME",
    "KINDS",
    "RULES",
    "is_evidence",
    "MAX_RECORD_CHARS",
    "Observation",
    "Record",
    "encode",
    "decode_numbers",
    "show",
    "records_in",
    "judge",
    "Verdict",
    "judge_record",
    "passed_line",
    "failed_line",
    "BUILTIN_ERRORS",
    "stopped_reason",
]

MIME = "application/vnd.autogradkit.observations+json"  # one check's record, as display data
RULES = ("acyclic", "distinct", "empty")  # properties the grader computes from raw data
KINDS = ("close", "equal", *RULES)
MAX_RECORD_CHARS = 200_000  # a record larger than this is not judged


@dataclass
class Observation:
    """One thing a check saw: ``name`` (shown to the student), the JSON ``value``, and how it is
    judged: ``kind`` ``close`` (numbers within ``atol + rtol * |expected|``) or ``equal``;
    ``hint`` points the way when it differs; ``reveal`` shows the expected value then (a
    prediction, once the student has made it)."""

    name: str
    value: object
    kind: str = "equal"
    hint: str = ""
    atol: float = 1e-6
    rtol: float = 1e-4
    reveal: bool = False

    def as_json(self) -> dict:
        return dict(vars(self))


@dataclass
class Record:
    """Everything one run of a check saw. ``stopped`` says why it ended early (the answer is
    missing or raised, or a library function the exercise re-implements was called)."""

    check: str
    title: str
    hidden: bool = False
    observations: list[Observation] = field(default_factory=list)
    stopped: dict | None = None

    def as_json(self) -> dict:
        items = [o.as_json() for o in self.observations]
        return {**vars(self), "observations": items}

    @classmethod
    def from_json(cls, data) -> Record:
        """A record read from a kernel's output; ``ValueError`` when it is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("check"), str):
            raise ValueError("not a check record")
        items = data.get("observations")
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise ValueError("a check record without a list of observations")
        keys = set(Observation.__dataclass_fields__)
        try:
            observations = [Observation(**{k: v for k, v in i.items() if k in keys}) for i in items]
        except TypeError as error:
            raise ValueError(f"a malformed observation: {error}") from None
        stopped = data.get("stopped")
        return cls(
            data["check"],
            str(data.get("title", "")),
            bool(data.get("hidden")),
            observations,
            stopped if isinstance(stopped, dict) else None,
        )


# ----- values as JSON ------------------------------------------------------------------------
def encode(value, depth: int = 0):
    """A JSON-safe form of ``value``: tensors and arrays keep their numbers and shape.

    Example:
        >>> encode((1, 2.5, None, float("nan")))
        [1, 2.5, None, {'float': 'nan'}]
        >>> encode(np.array([[1.0, 2.0]], dtype=np.float32))
        {'array': [[1.0, 2.0]], 'shape': [1, 2]}
    """
    if depth > 20:
        return {"object": "nested too deeply"}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        return _float(float(value))
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a Tensor: its numbers
        value = value.detach().numpy()
    if isinstance(value, np.ndarray):
        if value.dtype == bool:
            return {"array": value.tolist(), "shape": list(value.shape), "bool": True}
        numbers = np.asarray(value, dtype=np.float64)
        return {"array": _floats(numbers.tolist()), "shape": list(value.shape)}
    if isinstance(value, (list, tuple)):
        return [encode(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v, depth + 1) for k, v in value.items()}}
    return {"object": type(value).__name__}


def _float(number: float):
    return number if math.isfinite(number) else {"float": repr(number)}


def _floats(nested):
    if isinstance(nested, list):
        return [_floats(item) for item in nested]
    return _float(nested)


def decode_numbers(value) -> np.ndarray | None:
    """The float array an encoded value holds (a number, nested lists, an array), or None."""
    if isinstance(value, dict) and "array" in value and not value.get("bool"):
        return _array(value["array"], value.get("shape"))
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, (int, float)) or (isinstance(value, dict) and "float" in value):
        return _array(value, [])
    if isinstance(value, list):
        return _array(value, None)
    return None


def _array(nested, shape) -> np.ndarray | None:
    def number(item):
        if isinstance(item, dict) and item.get("float") in ("nan", "inf", "-inf"):
            return float(item["float"])
        if isinstance(item, bool) or not isinstance(item, (int, float, list)):
            raise TypeError
        return [number(i) for i in item] if isinstance(item, list) else float(item)

    try:
        array = np.array(number(nested), dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if shape is not None:
        try:
            array = array.reshape(shape)
        except (TypeError, ValueError):
            return None
    return array


def show(value) -> str:
    """An encoded value as a student reads it: ``7.0``, ``[2.0, 4.0]``, ``None``, ``True``."""
    if _whole(value):
        return str(value)
    numbers = decode_numbers(value)
    if numbers is not None:
        text = np.array2string(numbers, separator=", ", precision=6, threshold=12)
        return text if numbers.ndim else f"{float(numbers):g}"
    if isinstance(value, dict) and "dict" in value:
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in value["dict"].items()) + "}"
    if isinstance(value, dict) and "array" in value:
        return str(value["array"])
    if isinstance(value, dict) and "object" in value:
        return f"a {value['object']}"
    if isinstance(value, list):
        return "[" + ", ".join(show(item) for item in value) + "]"
    return repr(value)


def _whole(value) -> bool:
    """An int, or a list of them at any depth (a shape, a count per key)."""
    if isinstance(value, list):
        return all(_whole(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool)


def records_in(cell: dict) -> tuple[list[Record], int]:
    """The check records among ``cell``'s outputs, and how many could not be read."""
    found, unreadable = [], 0
    for out in cell.get("outputs", []):
        data = out.get("data", {}) if out.get("output_type") == "display_data" else {}
        if MIME in data:
            try:
                found.append(Record.from_json(data[MIME]))
            except ValueError:
                unreadable += 1
    return found, unreadable


# ----- judging ------------------------------------------------------------------------------
def judge(expected: Observation, seen: Observation | None, tr: Catalog = ENGLISH) -> str:
    """Why ``seen`` does not match ``expected``, in words (``tr``'s language); "" when it does.

    ``expected`` comes from the instructor's solution and says how to judge; of ``seen`` only
    the value is used. The words never quote the seen value.

    Example:
        >>> want = Observation("a.grad", 7.0, kind="close", reveal=True)
        >>> judge(want, Observation("a.grad", 7.0000001))
        ''
        >>> judge(want, Observation("a.grad", 5.0))
        'it is 7, not your prediction'
    """
    if seen is None:
        return tr("this was not observed")
    if expected.kind in RULES:
        return _property_reason(expected.kind, seen.value, tr)
    if expected.kind == "close":
        reason = _close_reason(expected, seen.value, tr)
    else:
        reason = "" if _equal(expected.value, seen.value) else _NOT_RIGHT
    generic = {_NOT_RIGHT: tr("this is not right"), _VALUE: tr("the value is not right")}
    if reason and expected.reveal:  # a prediction, once made: now the real value may show
        real = show(expected.value)
        if reason in generic:
            return tr("it is {real}, not your prediction", real=real)
        return tr("{reason}; it is {real}", reason=reason, real=real)
    return generic.get(reason, reason)


def is_evidence(expected: Observation) -> bool:
    """Whether a passed observation shows the answer at work: a value the answer produced
    (a number, an array, a list, a string, a count), or a prediction; not a boolean, ``None``
    or a property, which a kernel could send without any answer."""
    if expected.reveal:
        return True
    if expected.kind in RULES:
        return False
    return not (expected.value is None or isinstance(expected.value, bool))


def _property_reason(rule: str, raw, tr: Catalog) -> str:
    """Why the raw data ``raw`` lacks the property ``rule`` ("" when it has it)."""
    if not isinstance(raw, list):
        return tr("this is not right")
    if rule == "empty":
        return "" if not raw else tr("this exercise asks you to do without what your code uses")
    if rule == "distinct":
        keys = [repr(item) for item in raw]
        return "" if len(set(keys)) == len(keys) else tr("an item appears more than once")
    edges = [e for e in raw if isinstance(e, list) and len(e) == 2]
    if len(edges) != len(raw) or not all(isinstance(n, str) for e in edges for n in e):
        return tr("this is not right")
    return tr("a function calls itself, directly or through another") if _cycle(edges) else ""


def _cycle(edges: list) -> bool:
    """Whether the directed graph of ``edges`` has a cycle (a self-loop counts)."""
    after: dict[str, set[str]] = {}
    for a, b in edges:
        after.setdefault(a, set()).add(b)
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in list(after):
        if start in state:
            continue
        state[start], stack = 1, [(start, iter(after[start]))]
        while stack:
            node, rest = stack[-1]
            nxt = next(rest, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(after.get(nxt, ()))))
    return False


# the value differs, and nothing more specific can be said (of any value, of a number)
_NOT_RIGHT, _VALUE = object(), object()


def _close_reason(expected: Observation, value, tr: Catalog):
    want, got = decode_numbers(expected.value), decode_numbers(value)
    if want is None:
        return "" if _equal(expected.value, value) else _NOT_RIGHT
    if got is None:
        return tr("expected a number or a tensor of numbers")
    if got.shape != want.shape:
        if got.ndim == 2 and got.shape[::-1] == want.shape:
            return tr("expected shape {shape} (transposed?)", shape=tuple(want.shape))
        return tr("expected shape {shape}", shape=tuple(want.shape))
    if np.isnan(got).any() and not np.isnan(want).any():
        return tr("the result contains NaN")
    if np.isinf(got).any() and not np.isinf(want).any():
        return tr("the result contains inf")
    atol, rtol = float(expected.atol), float(expected.rtol)
    if np.allclose(got, want, atol=atol, rtol=rtol, equal_nan=True):
        return ""
    if np.abs(want).max(initial=0) > atol and np.allclose(got, -want, atol=atol, rtol=rtol):
        return tr("the sign is wrong")
    if not got.any() and want.any():
        return tr("the result is all zeros")
    with np.errstate(all="ignore"):  # a kernel may send 1e308: the product overflows
        scale = float(np.vdot(got, want) / np.vdot(want, want)) if want.any() else 0.0
    times = round(scale) if np.isfinite(scale) else 0
    if times >= 2 and np.allclose(got, times * want, atol=atol, rtol=rtol):
        return tr("it is {times} times the right value", times=times)
    return _VALUE


def _equal(want, got) -> bool:
    """Exact equality of two encoded values; a bool never equals a number, a list equals the
    same numbers as an array."""
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(want, bool) and isinstance(got, bool) and want == got
    numbers_want, numbers_got = decode_numbers(want), decode_numbers(got)
    if numbers_want is not None and numbers_got is not None:
        return numbers_want.shape == numbers_got.shape and bool(
            np.array_equal(numbers_want, numbers_got, equal_nan=True)
        )
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(_equal(w, g) for w, g in zip(want, got))
    if isinstance(want, dict) and isinstance(got, dict) and "dict" in want and "dict" in got:
        a, b = want["dict"], got["dict"]
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return want == got


@dataclass
class Verdict:
    """A check judged: ``passed``, and one line per observation up to the first miss (each
    ``✓ name`` or ``✗ name: reason (hint)``)."""

    check: str
    title: str
    passed: bool
    lines: list[str]
    hidden: bool = False


def judge_record(expected: Record, seen: Record | None, tr: Catalog = ENGLISH) -> Verdict:
    """Judge every observation of ``expected`` against ``seen``; stop at the first miss. The
    lines are in ``tr``'s language, the names and hints the solution's, translated."""
    lines: list[str] = []
    title = tr.text(expected.title)
    if seen is None:
        line = failed_line(tr, title, tr("this check did not run"))
        return Verdict(expected.check, title, False, [line], expected.hidden)
    by_name = {o.name: o for o in seen.observations}
    for want in expected.observations:
        reason = judge(want, by_name.get(want.name), tr)
        if reason and want.name not in by_name and seen.stopped:
            break  # the answer is missing or raised: said below, for the whole check
        if reason:
            lines.append(failed_line(tr, tr.text(want.name), reason, tr.text(want.hint)))
            return Verdict(expected.check, title, False, lines, expected.hidden)
        lines.append(passed_line(tr, tr.text(want.name)))
    if seen.stopped and not expected.stopped:
        lines.append(failed_line(tr, title, stopped_reason(seen.stopped, tr)))
        return Verdict(expected.check, title, False, lines, expected.hidden)
    if not any(map(is_evidence, expected.observations)):  # an authoring error: said plainly
        lines.append(failed_line(tr, title, tr("this check compares no value of the answer")))
        return Verdict(expected.check, title, False, lines, expected.hidden)
    return Verdict(expected.check, title, True, lines, expected.hidden)


def passed_line(tr: Catalog, name: str) -> str:
    return tr("✓ {name}", name=name)


def failed_line(tr: Catalog, name: str, reason: str, hint: str = "") -> str:
    """``✗ name: reason (hint)``, punctuated as ``tr``'s language punctuates it."""
    if hint:
        return tr("✗ {name}: {reason} ({hint})", name=name, reason=reason, hint=hint)
    return tr("✗ {name}: {reason}", name=name, reason=reason)


BUILTIN_ERRORS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def stopped_reason(stopped: dict, tr: Catalog = ENGLISH) -> str:
    """Why a check ended early, in words the grader chose (an exception's own class name, which
    a submission could pick, is shown only for Python's built-in exceptions)."""
    reason = stopped.get("reason")
    if reason == "not_answered":
        return tr("not answered yet")
    if reason == "refused":
        return tr("this exercise asks you to do it yourself, without the library function for it")
    if reason == "own_numbers":
        return tr(
            "by hand, compute with plain numbers: a number class of your own (dual numbers) "
            "carries the derivative for you"
        )
    if reason == "timeout":
        return tr(
            "your code did not finish in time (a loop that never ends, or a node visited more "
            "than once?)"
        )
    if reason == "unmet":
        return tr("the answer does not have the property checked above")
    if reason == "unexpected":
        return tr("the answer is not of the kind this exercise asks for (read its instructions)")
    error = str(stopped.get("error", ""))
    if error in BUILTIN_ERRORS:
        return tr("your code raised {error}", error=error)
    return tr("your code raised an exception")
