"""An nbgrader ``assert`` test cell judged by the grader: the kernel sends data, not a verdict.

``assert np.isclose(answer, 3.0)`` run in the student's kernel passes whenever nothing raises,
and the student's code can make ``np.isclose`` say yes. So a test cell whose statements only
read data is judged here instead:

1. ``plan`` reads the cell (``ast``): every statement is an ``assert``, an assignment of a
   name, an import of numpy/math/autogradkit or a bare expression, and each expression only
   reads names, the data fields and pure methods of values (``DATA_ATTRIBUTES``), and calls
   the trusted functions of those modules and of ``builtins``. The names it reads from the
   notebook are the ones the kernel must send.
2. ``values_code`` is what the kernel runs in place of the cell: it reads each name's raw data
   (a float subclass as its float, a list subclass as its items, an array as dtype, shape and
   bytes, the kit's Tensor as its data, ``requires_grad`` and ``grad`` from its slots) and
   sends it as a check record (``observations.MIME``), the channel the kit's checks use.
3. ``judge`` decodes those records as untrusted input (types checked, sizes capped; no pickle,
   no ``eval`` of kernel text) and runs the cell's statements in this process on them, with
   this process's numpy: a patched ``np.isclose`` in the kernel changes nothing. A value that
   cannot cross as data (an object with methods) arrives as ``Opaque``: any use of it raises.
   The statements run in a fork of this process held to ``JUDGE_CPU_SECONDS`` and
   ``JUDGE_MEMORY`` (``3 ** answer`` with a hostile answer fails its own cell).

A cell ``plan`` refuses (it calls a student's function, uses a loop, an attribute that is not
data) can only be the kernel's word: it runs there as before, and ``grade`` says so.
"""

from __future__ import annotations

import ast
import base64
import builtins
import json
import math
import os
import re
import resource
import select
import signal
import time
import warnings
from dataclasses import dataclass

import numpy as np

from autogradkit.grading.observations import MIME, Record

from . import pyast, runner

__all__ = [
    "VALUES_CHECK",
    "DATA_ATTRIBUTES",
    "Plan",
    "plan",
    "why_kernel_judged",
    "kernel_judged",
    "values_code",
    "Opaque",
    "decode",
    "judge",
]

VALUES_CHECK = "assert-values"  # the ``check`` of the records that carry a cell's values
MODULES = {"numpy", "math", "autogradkit"}  # imported here, they are this process's own
DATA_ATTRIBUTES = {  # read on a value: data fields, and methods that only compute on data
    *("grad", "data", "shape", "dtype", "requires_grad", "ndim", "size", "T", "real", "imag"),
    *("tolist", "item", "numpy", "detach", "sum", "mean", "max", "min", "abs", "all", "any"),
    *("reshape", "flatten", "dim", "numel", "keys", "values", "items", "get", "astype"),
    *("count", "index", "startswith", "endswith", "strip", "lower", "upper", "copy"),
}
BUILTINS = (
    *("abs", "all", "any", "bool", "dict", "enumerate", "float", "int", "isinstance", "len"),
    *("list", "max", "min", "range", "reversed", "round", "set", "sorted", "str", "sum"),
    *("tuple", "zip", "repr", "print", "complex", "frozenset", "divmod", "pow", "type"),
    *("AssertionError", "ValueError", "TypeError"),
)
NUMPY_FUNCTIONS = {  # besides ufuncs, dtypes and np.testing's assert_*
    *("isclose", "allclose", "array_equal", "array_equiv", "asarray", "array", "shape"),
    *("ndim", "size", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin"),
    *("all", "any", "round", "around", "sort", "unique", "zeros", "ones", "full", "arange"),
    *("linspace", "zeros_like", "ones_like", "full_like", "eye", "stack", "concatenate"),
    *("reshape", "transpose", "dot", "matmul", "outer", "std", "var", "cumsum", "diff"),
    *("isnan", "isinf", "isfinite", "nan_to_num", "clip", "where", "count_nonzero", "float64"),
    *("pi", "e", "inf", "nan", "newaxis", "ndarray", "linalg", "testing", "norm", "median"),
    *("allclose", "isscalar", "result_type", "dtype", "finfo", "tril", "triu", "trace"),
}
KIT_FUNCTIONS = {
    *("tensor", "Tensor", "zeros", "ones", "zeros_like", "ones_like", "arange", "allclose"),
    *("float16", "float32", "float64", "int32", "int64", "bool", "equal", "is_tensor"),
}
OPAQUE_KINDS = {  # what the grader names of a value that did not cross (else "object")
    *("function", "method", "builtin_function_or_method", "module", "type", "generator"),
    *("ndarray", "Tensor", "too large", "unreadable", "complex", "bytes", "range"),
}
MAX_ITEMS = 2_000_000  # numbers, list items and characters decoded per cell, all together
MAX_DEPTH = 32
CHUNK = 150_000  # characters of a value's JSON per record (runner keeps records to 200,000)
MAX_PARTS = runner.MAX_RECORDS  # records a test cell keeps: all its values' parts together
MAX_ARRAY_BYTES = 6_000_000  # of all arrays of a cell: their base64 fits in MAX_PARTS records
DTYPE = re.compile(r"[<>|=]?[biufc][0-9]{1,2}")  # numbers only: no objects, no records
FLOAT = re.compile(r"-?(inf|nan|[0-9]+(\.[0-9]*)?(e[-+]?[0-9]+)?)")
INT = re.compile(r"-?[0-9]{1,400}")
# what a cell's statements may take, run here on a submission's values (``_run_apart``)
JUDGE_CPU_SECONDS = 10
JUDGE_MEMORY = 1 << 30  # bytes of address space beyond this process's own


@dataclass
class Plan:
    """A test cell the grader can judge: its statements and the names it reads (``names``)
    from the notebook, besides the modules (``modules``: name -> the module imported)."""

    tree: ast.Module
    names: list[str]
    modules: dict[str, str]


def plan(source: str, imported: dict[str, str]) -> Plan | None:
    """The plan of judging ``source`` here, or None when only the kernel can judge it.

    ``imported`` maps the notebook's names to what the instructor's cells import
    (``session.imported_names``); names of numpy, math and autogradkit are bound here to
    this process's modules.

    Example:
        >>> plan("assert np.isclose(answer, 3.0)", {"np": "numpy"}).names
        ['answer']
        >>> plan("assert square(2) == 4", {}) is None
        True
    """
    return _plan(source, imported)[0]


def why_kernel_judged(source: str, imported: dict[str, str]) -> str:
    """Why the grader cannot judge ``source`` itself ("" when it can)."""
    return _plan(source, imported)[1]


def kernel_judged(nb: dict, imported: dict[str, str], references: dict) -> dict[str, str]:
    """The test cells of ``nb`` only the kernel can judge, by grade_id, and why: neither the
    kit's checks (``references``) nor ``plan`` judge them outside it."""
    from . import cells

    found = {}
    for cell in nb["cells"]:
        gid = cells.grade_id(cell)
        if cells.is_test(cell) and gid and gid not in references:
            why = why_kernel_judged(cells.text(cell["source"]), imported)
            if why:
                found[gid] = why
    return found


def _plan(source: str, imported: dict[str, str]) -> tuple[Plan | None, str]:
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return None, "it is not plain Python (a magic, a syntax error)"
    modules = {n: m for n, m in imported.items() if m.split(".")[0] in MODULES}
    bound, reads = set(), []
    for statement in tree.body:
        why = _statement_problem(statement, modules, bound)
        if why:
            return None, why
        for name in _free_names(statement):
            if name not in bound and name not in modules and name not in BUILTINS:
                reads.append(name)
        bound |= _bound_names(statement, modules)
    return Plan(tree, list(dict.fromkeys(reads)), modules), ""


def _statement_problem(statement: ast.stmt, modules: dict, bound: set) -> str:
    if isinstance(statement, ast.Pass):
        return ""
    if isinstance(statement, ast.Assert | ast.Expr):
        return _expression_problem(statement, modules)
    if isinstance(statement, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names = [n for t in targets for n in ast.walk(t)]
        if not all(isinstance(n, ast.Name | ast.Tuple | ast.Load | ast.Store) for n in names):
            return f"line {statement.lineno} assigns to something other than a name"
        return _expression_problem(statement.value, modules) if statement.value else ""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        names = [a.name for a in statement.names]
        where = statement.module if isinstance(statement, ast.ImportFrom) else None
        if all((where or n).split(".")[0] in MODULES for n in names) and "*" not in names:
            return ""
        return f"line {statement.lineno} imports a module the grader does not load"
    return f"line {statement.lineno} is a {type(statement).__name__}, not an assert"


def _expression_problem(node: ast.AST, modules: dict) -> str:
    """Why ``node`` needs the kernel: a call the grader cannot make, an attribute that is not
    data, a lambda; "" when every part of it is data or a trusted function."""
    for part in ast.walk(node):
        line = getattr(part, "lineno", "?")
        if isinstance(part, ast.Lambda | ast.NamedExpr | ast.Await | ast.Yield | ast.YieldFrom):
            return f"line {line} uses {type(part).__name__}"
        if isinstance(part, ast.Attribute) and not _trusted(part, modules):
            if part.attr not in DATA_ATTRIBUTES or part.attr.startswith("_"):
                return f"line {line} reads .{part.attr}, which is not a data field"
        if isinstance(part, ast.Call):
            called = part.func
            if isinstance(called, ast.Name) and called.id in BUILTINS:
                continue
            if isinstance(called, ast.Name) and _trusted(called, modules):
                continue
            if isinstance(called, ast.Attribute):
                continue  # a method of data or a trusted function: checked as an Attribute
            return f"line {line} calls {ast.unparse(called)}, which only the kernel can run"
    return ""


def _trusted(node: ast.Attribute | ast.Name, modules: dict) -> bool:
    """Whether ``node`` is ``np.isclose``, ``np.testing.assert_allclose``, ``math.sqrt``, or
    a name imported as one of them (``from numpy import isclose``)."""
    chain = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in modules:
        return False
    return _trusted_path(modules[node.id].split(".") + chain[::-1])


def _trusted_path(path: list[str]) -> bool:
    """Whether the dotted ``path`` (``["numpy", "testing", "assert_allclose"]``) is a module
    of ``MODULES``, or a pure function, type or constant of one."""
    root, rest = path[0], path[1:]
    if not rest:
        return root in MODULES
    if root == "math":
        return len(rest) == 1 and not rest[0].startswith("_")
    if root == "autogradkit":
        return len(rest) == 1 and rest[0] in KIT_FUNCTIONS
    if rest[:1] == ["testing"]:
        return len(rest) == 1 or (len(rest) == 2 and rest[1].startswith("assert_"))
    if rest[:1] == ["linalg"]:
        return len(rest) <= 2 and rest[-1] in ("linalg", "norm", "det", "inv", "solve")
    return len(rest) == 1 and (rest[0] in NUMPY_FUNCTIONS or _ufunc(rest[0]))


def _ufunc(name: str) -> bool:
    """A ufunc (``np.sqrt``) or a scalar type (``np.float32``): pure, whatever the data."""
    found = getattr(np, name, None)
    return isinstance(found, np.ufunc) or (
        isinstance(found, type) and issubclass(found, np.generic)
    )


def _free_names(statement: ast.stmt) -> list[str]:
    """The names ``statement`` reads, less those its comprehensions bind."""
    local = {
        n.id
        for c in ast.walk(statement)
        if isinstance(c, ast.comprehension)
        for n in ast.walk(c.target)
        if isinstance(n, ast.Name)
    }
    loads = [
        n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    ]
    stores = _bound_names(statement, {}) if isinstance(statement, ast.AugAssign) else set()
    loads += list(stores)  # x += 1 reads x
    return [n for n in loads if n not in local or n in stores]


def _bound_names(statement: ast.stmt, modules: dict) -> set[str]:
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in statement.names}
    if isinstance(statement, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


# ----- in the kernel: raw data out ---------------------------------------------------------
VALUES_CODE = """
def _agk_send_values(names):
    import base64, builtins, json
    import numpy
    from IPython.display import display
    try:
        from autogradkit.autograd.engine import TensorBase
        slot = {k: TensorBase.__dict__[k] for k in ("_data", "_requires_grad", "_grad")}
    except Exception:
        TensorBase = None
    room = [%(items)d, %(bytes)d]  # items, array bytes

    def array(a, kind="ndarray"):
        a = numpy.ndarray.view(a, numpy.ndarray)
        if a.dtype.kind not in "biufc" or a.dtype.hasobject:
            return {"opaque": "ndarray"}
        if a.size > room[0] or a.nbytes > room[1]:
            return {"opaque": "too large"}
        room[0] -= a.size
        room[1] -= a.nbytes
        data = base64.b64encode(numpy.ascontiguousarray(a).tobytes()).decode("ascii")
        return {kind: {"dtype": a.dtype.str, "shape": list(a.shape), "bytes": data}}

    def encode(v, depth):
        kind = builtins.type(v)
        room[0] -= 1
        if v is None or kind is bool:
            return v
        if depth > %(depth)d or room[0] < 0:
            return {"opaque": "too large"}
        if isinstance(v, numpy.generic):
            return array(numpy.asarray(v), "scalar")
        if isinstance(v, numpy.ndarray):
            return array(v)
        if TensorBase is not None and isinstance(v, TensorBase):
            data = slot["_data"].__get__(v)
            grad = slot["_grad"].__get__(v)
            wants = slot["_requires_grad"].__get__(v)
            if not isinstance(data, numpy.ndarray) or builtins.type(wants) is not bool:
                return {"opaque": "Tensor"}
            grad = None if grad is None else encode(grad, depth + 1)
            return {"tensor": {"data": array(data), "requires_grad": wants, "grad": grad}}
        if isinstance(v, int):
            return {"int": int.__repr__(int.__int__(v))}
        if isinstance(v, float):
            return {"float": float.__repr__(float.__float__(v))}
        if isinstance(v, str):
            room[0] -= str.__len__(v)
            return str.__str__(v)
        if isinstance(v, (list, tuple)):
            items = list.copy(v) if isinstance(v, list) else tuple.__getitem__(v, slice(None))
            key = "list" if isinstance(v, list) else "tuple"
            return {key: [encode(i, depth + 1) for i in items]}
        if isinstance(v, (set, frozenset)):
            items = set.copy(v) if isinstance(v, set) else frozenset.copy(v)
            return {"set": [encode(i, depth + 1) for i in items]}
        if isinstance(v, dict):
            pairs = dict.items(dict.copy(v))
            return {"dict": [[encode(k, depth + 1), encode(i, depth + 1)] for k, i in pairs]}
        return {"opaque": str.__str__(kind.__name__)[:60]}

    space = get_ipython().user_ns
    for name in names:
        try:
            value = encode(space[name], 0) if name in space else {"missing": True}
            text = json.dumps(value)
        except Exception:
            text = json.dumps({"opaque": "unreadable"})
        parts = [text[i : i + %(chunk)d] for i in range(0, len(text), %(chunk)d)]
        for i, part in enumerate(parts):
            seen = {"name": name, "value": {"part": i, "parts": len(parts), "json": part}}
            record = {"check": %(check)r, "title": "", "observations": [seen]}
            display({%(mime)r: record}, raw=True)


_agk_send_values(%(names)r)
del _agk_send_values
"""


def values_code(names: list[str]) -> str:
    """The code the kernel runs in place of the test cell: each of ``names`` sent as data."""
    fields = {"items": MAX_ITEMS, "bytes": MAX_ARRAY_BYTES, "depth": MAX_DEPTH, "chunk": CHUNK}
    fields |= {"mime": MIME, "check": VALUES_CHECK}
    return VALUES_CODE % {**fields, "names": list(names)}


# ----- in the grader: untrusted data in, a verdict out ------------------------------------
class Opaque:
    """A value that did not cross as data: any use of it in a test raises ``TypeError``."""

    __hash__ = None

    def __init__(self, what: str):
        self._what = what

    def _refuse(self, *args, **kwargs):
        raise TypeError(f"the grader cannot judge this value (a {self._what}): it is not data")

    def __getattr__(self, name):
        raise TypeError(f"the grader cannot judge this value (a {self._what}): it is not data")

    def __repr__(self) -> str:
        return f"<a {self._what} the grader cannot judge>"

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _refuse
    __rtruediv__ = __neg__ = __abs__ = __float__ = __int__ = __index__ = __iter__ = _refuse
    __getitem__ = __contains__ = __array__ = __pow__ = __matmul__ = __rmatmul__ = _refuse


class _Budget:
    def __init__(self, items: int = MAX_ITEMS):
        self.left = items

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise ValueError("the values are larger than the grader judges")


def decode(value, budget: _Budget | None = None, depth: int = 0):
    """A value the kernel sent, as this process's own data; ``ValueError`` when it is not of
    the shape ``values_code`` sends (a kernel can send anything).

    Example:
        >>> decode({"list": [{"int": "2"}, {"float": "nan"}, "a", None]})
        [2, nan, 'a', None]
    """
    budget = budget or _Budget()
    budget.spend(1)
    if depth > MAX_DEPTH:
        raise ValueError("a value nested too deeply")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        budget.spend(len(value))
        return value
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError("a value of another shape")
    ((kind, body),) = value.items()
    if kind == "int" and isinstance(body, str) and INT.fullmatch(body):
        return int(body)
    if kind == "float" and isinstance(body, str) and FLOAT.fullmatch(body):
        return float(body)
    if kind in ("list", "tuple", "set", "dict") and isinstance(body, list):
        return _collection(kind, body, budget, depth)
    if kind in ("ndarray", "scalar"):
        array = _array(body, budget)
        return array[()] if kind == "scalar" and array.ndim == 0 else array
    if kind == "tensor" and isinstance(body, dict):
        return _tensor(body, budget, depth)
    if kind == "opaque" and isinstance(body, str):
        return Opaque(body if body in OPAQUE_KINDS else "object")
    raise ValueError("a value of an unknown kind")


def _collection(kind: str, body: list, budget: _Budget, depth: int):
    if kind == "dict":
        return dict(_pair(pair, budget, depth) for pair in body)
    items = [decode(item, budget, depth + 1) for item in body]
    if kind != "set":
        return items if kind == "list" else tuple(items)
    try:
        return set(items)
    except TypeError:
        raise ValueError("a set item that is not hashable") from None


def _pair(pair, budget: _Budget, depth: int) -> tuple:
    if not isinstance(pair, list) or len(pair) != 2:
        raise ValueError("a dict item of another shape")
    key = decode(pair[0], budget, depth + 1)
    try:
        hash(key)
    except TypeError:
        raise ValueError("a dict key that is not hashable") from None
    return key, decode(pair[1], budget, depth + 1)


def _array(body, budget: _Budget) -> np.ndarray:
    if not isinstance(body, dict) or set(body) != {"dtype", "shape", "bytes"}:
        raise ValueError("an array of another shape")
    dtype, shape, data = body["dtype"], body["shape"], body["bytes"]
    if not (isinstance(dtype, str) and DTYPE.fullmatch(dtype)):
        raise ValueError("an array of a dtype the grader does not read")
    ok = isinstance(shape, list) and len(shape) <= MAX_DEPTH
    if not ok or not all(type(n) is int and 0 <= n <= MAX_ITEMS for n in shape):
        raise ValueError("an array shape of another shape")
    if not isinstance(data, str) or len(data) > 8 * MAX_ITEMS:
        raise ValueError("array bytes of another shape")
    size = math.prod(shape)
    budget.spend(size)
    try:
        kind = np.dtype(dtype)
    except TypeError:  # "<i3": of the pattern, but no dtype
        raise ValueError("an array of a dtype the grader does not read") from None
    raw = base64.b64decode(data, validate=True)
    if len(raw) != size * kind.itemsize:
        raise ValueError("array bytes that do not fill its shape")
    return np.frombuffer(raw, dtype=kind).reshape(shape).copy()


def _tensor(body: dict, budget: _Budget, depth: int):
    from autogradkit.autograd.engine import TensorBase
    from autogradkit.tensor import Tensor

    data = decode(body.get("data"), budget, depth + 1)
    wants, grad = body.get("requires_grad"), body.get("grad")
    grad = None if grad is None else decode(grad, budget, depth + 1)
    if not isinstance(data, np.ndarray) or not isinstance(wants, bool):
        raise ValueError("a tensor of another shape")
    if grad is not None and not isinstance(grad, Tensor):
        raise ValueError("a tensor whose grad is not a tensor")
    made = TensorBase._wrap(data)
    assert isinstance(made, Tensor), type(made)  # the kit's wrapper class, as autograd makes
    made._requires_grad, made._grad = wants, grad
    return made


def judge(the_plan: Plan, records: list[Record]) -> list[dict]:
    """The test cell's outputs, as this process computes them from the kernel's ``records``:
    a ``print`` as stdout, the last expression's value as its result, a failed ``assert`` (or
    any error) as an error output. ``ValueError`` when the records are not what was asked."""
    namespace = _modules(the_plan.modules)
    budget = _Budget()
    for name, text in _joined(the_plan.names, records).items():
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            raise ValueError(f"the kernel sent {name} as something else than JSON") from None
        if value != {"missing": True}:
            namespace[name] = decode(value, budget)
    return _run_apart(the_plan.tree, namespace)


def _joined(names: list[str], records: list[Record]) -> dict[str, str]:
    """Each name's JSON text, joined from its parts; ``ValueError`` for a part unasked,
    sent twice or missing."""
    parts: dict[str, dict[int, str]] = {}
    counts: dict[str, int] = {}
    for record in (r for r in records if r.check == VALUES_CHECK):
        for seen in record.observations:
            value, name = seen.value, seen.name
            if name not in names or not isinstance(value, dict):
                raise ValueError("the kernel sent a value that was not asked for")
            part, count, text = value.get("part"), value.get("parts"), value.get("json")
            ok = type(part) is int and type(count) is int and isinstance(text, str)
            if not ok or not 0 <= part < count <= MAX_PARTS or len(text) > CHUNK:
                raise ValueError(f"the kernel sent {name} in parts of another shape")
            if part in parts.setdefault(name, {}) or counts.setdefault(name, count) != count:
                raise ValueError(f"the kernel sent {name} twice")
            parts[name][part] = text
    short = [n for n in names if len(parts.get(n, ())) != counts.get(n, -1)]
    if short:
        raise ValueError(f"the kernel did not send all of {', '.join(short)} (too large?)")
    return {name: "".join(parts[name][i] for i in range(counts[name])) for name in names}


def _modules(modules: dict[str, str]) -> dict:
    import importlib

    namespace = {}
    for name, target in modules.items():
        module, _, member = target.partition(".")
        found = importlib.import_module(module)
        for part in member.split(".") if member else []:
            found = getattr(found, part)
        namespace[name] = found
    return namespace


def _statements(tree: ast.Module, namespace: dict):
    """Run the cell's statements; the value of its last one if that is an expression."""
    last = None
    for index, statement in enumerate(tree.body):
        if index == len(tree.body) - 1 and isinstance(statement, ast.Expr):
            code = compile(ast.Expression(statement.value), "<test cell>", "eval")
            last = eval(code, namespace)  # the instructor's code, on decoded data
        else:
            code = compile(ast.Module([statement], []), "<test cell>", "exec")
            exec(code, namespace)  # the instructor's code, on decoded data
    return last


def _bounded_range(*args) -> range:
    """``range``, refusing one longer than ``MAX_ITEMS``: ``sum(range(answer))`` with the
    answer 10**15 would hold the grader's process, where every submission is graded."""
    numbers = range(*args)
    if len(numbers) > MAX_ITEMS:
        raise ValueError(f"a range of more than {MAX_ITEMS} numbers, too long for the grader")
    return numbers


def _run(tree: ast.Module, namespace: dict) -> list[dict]:
    """The outputs of running ``tree`` in ``namespace``, as a kernel would show them."""
    printed: list[str] = []

    def captured_print(*args, sep=" ", end="\n", **_):
        printed.append(str(sep).join(str(a) for a in args) + str(end))

    allowed = {name: getattr(builtins, name) for name in BUILTINS if name != "print"}
    allowed["range"] = _bounded_range
    # __import__ for the cell's vetted imports and numpy's own (it imports as a test fails);
    # no expression can call it: ``plan`` lets a call reach only the names of BUILTINS
    allowed["__import__"] = builtins.__import__
    namespace["__builtins__"] = {**allowed, "print": captured_print}
    outputs, last = [], None
    try:
        with np.errstate(all="ignore"):  # a NaN in an answer warns nobody on the grader's side
            last = _statements(tree, namespace)
    except Exception as error:  # noqa: BLE001 (the test failed, whatever it raised)
        evalue = str(error)
        ename = type(error).__name__
        error_output = {"output_type": "error", "ename": ename, "evalue": evalue}
        outputs.append({**error_output, "traceback": [f"{ename}: {evalue}"]})
    if printed:
        outputs.insert(0, {"output_type": "stream", "name": "stdout", "text": "".join(printed)})
    failed = any(out["output_type"] == "error" for out in outputs)
    if last is not None and not failed:  # the cell's value: an nbgrader cell's partial credit
        if isinstance(last, np.generic):  # numpy 2 shows np.float64(2.5): the number is 2.5
            last = last.item()
        data = {"text/plain": repr(last)}
        result = {"output_type": "execute_result", "data": data, "metadata": {}}
        outputs.append({**result, "execution_count": None})
    return outputs


def _run_apart(tree: ast.Module, namespace: dict) -> list[dict]:
    """``_run`` in a fork of this process, held to ``JUDGE_CPU_SECONDS`` of CPU (and three
    times as long on the clock) and ``JUDGE_MEMORY`` more memory. The statements are the
    instructor's, the values a submission's: ``3 ** answer`` or ``np.zeros(answer)`` on a
    hostile answer would hold the process where every submission is graded (pure Python
    keeps the GIL: every other thread of the run waits). Apart, it fails its own cell."""
    read, write = os.pipe()
    with warnings.catch_warnings():  # Python 3.12 warns of a fork of a process with threads
        warnings.simplefilter("ignore", DeprecationWarning)  # (a lock held there stays held:
        pid = os.fork()  # this fork only computes, and one that hangs is killed below)
    if pid == 0:  # the fork: its limits, the statements, their outputs as JSON, and out
        try:
            os.close(read)
            room = _address_space() + JUDGE_MEMORY
            resource.setrlimit(resource.RLIMIT_AS, (room, room))
            resource.setrlimit(resource.RLIMIT_CPU, (JUDGE_CPU_SECONDS, JUDGE_CPU_SECONDS + 1))
            with os.fdopen(write, "wb") as out:
                out.write(json.dumps(_run(tree, namespace)).encode())
        finally:
            os._exit(0)
    os.close(write)
    text, finished = _read_until(read, time.monotonic() + 3 * JUDGE_CPU_SECONDS)
    if not finished:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    try:
        return json.loads(text) if finished and text else _stopped()
    except ValueError:
        return _stopped()


def _address_space() -> int:
    """This process's address space, in bytes (what ``RLIMIT_AS`` counts)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _read_until(fd: int, deadline: float) -> tuple[bytes, bool]:
    """What ``fd`` gives until its end (True) or ``deadline`` (False); ``fd`` is closed."""
    chunks = []
    try:
        while (left := deadline - time.monotonic()) > 0:
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b"".join(chunks), True
                chunks.append(chunk)
        return b"", False
    finally:
        os.close(fd)


def _stopped() -> list[dict]:
    """The outputs of a cell the grader stopped: its statements passed their limits."""
    evalue = (
        f"the grader stopped this test: on the submission's values it took more than "
        f"{JUDGE_CPU_SECONDS} s or {JUDGE_MEMORY >> 20} MiB"
    )
    error = {"output_type": "error", "ename": "JudgeLimitError", "evalue": evalue}
    return [{**error, "traceback": [f"JudgeLimitError: {evalue}"]}]
