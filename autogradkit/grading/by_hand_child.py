"""The interpreter a by-hand answer runs in: NumPy and the standard library, and no kit at all.

This file's fork server (``serve_forks``, below) forks it; where there is none, it is started
as ``python -I by_hand_child.py`` (a fresh interpreter, no script folder on ``sys.path``). It
reads JSON lines on stdin: first the answer's bundle (code objects, defaults, plain data, the
source lines of its cells), then one call per line. Each answer comes back as one JSON line
on stdout: a value as plain data, or the exception it raised (its builtin class name, a short
message, the student's frames).

This file imports nothing of autogradkit, on purpose: before the student's code runs, an audit
hook is installed (``sys.addaudithook``: a hook cannot be removed, not by this file and not by
the student's code). It allows imports of the standard library and NumPy only, file opens for
reading under their folders only, and refuses starting processes, sockets, ctypes, the
garbage collector's object lists and every frame (those that call the answer are the check's).
Its numbers are machine floats: no complex, exact or decimal numbers, with which a difference
quotient is exact, and no class of the answer's own that does arithmetic (dual numbers carry
the derivative along; 07's Value, an exercise that is such a class, keeps it): the answer is
compiled again from its source (the lines of its cells) with every value its expressions make
judged real as it is made, whatever made it. NumPy is arithmetic on arrays: its polynomial
modules, which differentiate for you (``polyder``, ``Polynomial.deriv``), are taken out. So no
route to the kit's differentiation exists here: not a name, not a reference kept before the
check, not an import inside the function.

For ``obs.without`` the kit is here too, imported before the hook, but for the packages the
exercise rebuilds (``autogradkit.optim``), which are never imported: modules that refuse every
name stand in their place, and their files are not read.
"""

from __future__ import annotations

import ast
import base64
import builtins
import collections
import gc
import importlib
import io
import json
import linecache
import marshal
import numbers
import os
import sys
import sysconfig
import traceback
import types

import numpy as np

__all__ = ["main"]

REFUSED_EVENTS = ("os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.system")
REFUSED_EVENTS += ("os.kill", "os.killpg", "subprocess.", "pty.", "socket.", "ctypes.", "mmap.")
REFUSED_EVENTS += ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.addaudithook")
# An answer reads no frame, by any route: the frames that call it hold the check's own state
# (the stand-ins of a whole graph, the gradients a stand-in backward hands out): _frame_hook
FRAME_EVENTS = ("sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile")
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
REFUSED_IMPORTS = {"ctypes", "_ctypes", "subprocess", "_posixsubprocess", "multiprocessing"}
REFUSED_IMPORTS |= {"socket", "_socket", "pty", "mmap"}
# numbers by hand are machine floats: complex ones (a complex step) and exact or decimal ones
# (a difference quotient at h = 1e-40, off by h**2) make a difference quotient exact
REFUSED_IMPORTS |= {"cmath", "fractions", "decimal", "_decimal", "_pydecimal", "statistics"}
# NumPy's polynomial algebra differentiates and integrates for you (np.polyder,
# np.polynomial.Polynomial(...).deriv()): by hand, NumPy is arithmetic on arrays
POLYNOMIAL_MODULES = ("numpy.polynomial", "numpy.lib._polynomial_impl")
NUMERIC_KINDS = "biufc"
REAL_KINDS = "biuf"  # what crosses into the by-hand interpreter: no complex numbers
CONSTANT_TYPES = (type(None), type(...), bool, int, float, str, bytes, tuple, frozenset)
MAX_PRINTED = 4000
FUNCTION_STATE = ("__code__", "__defaults__", "__kwdefaults__")  # set by the rebuild alone
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, not built in


class BuildItYourself(PermissionError):
    """What the audit hook raises: the by-hand check refuses this route."""


class NumberClassOfItsOwn(BuildItYourself):
    """Refused: arithmetic on a class the answer made (dual numbers carry the derivative)."""


def _readable_roots() -> tuple[tuple[str, ...], str]:
    """Where a by-hand answer may read: the standard library (not its site-packages), NumPy."""
    paths = sysconfig.get_paths()
    stdlib = {os.path.realpath(paths[key]) + os.sep for key in ("stdlib", "platstdlib")}
    return tuple(stdlib), os.path.realpath(os.path.dirname(np.__file__)) + os.sep


def _audit_hook(stdlib: tuple[str, ...], numpy_root: str, kit: Kit | None = None):
    def refuse(what: str):
        raise BuildItYourself(f"a by-hand answer cannot use {what}")

    def readable(path: str) -> bool:
        if path.startswith(numpy_root) or (kit is not None and kit.readable(path)):
            return True
        inside = [path[len(root) :] for root in stdlib if path.startswith(root)]
        return any(not rest.startswith(("site-packages", "dist-packages")) for rest in inside)

    def hook(event: str, args: tuple) -> None:
        if event == "import":
            name = str(args[0])
            top = name.split(".")[0]
            if kit is not None and top == KIT:
                if not kit.importable(name):
                    refuse(f"import {name}")
            elif top != "numpy" and (top not in sys.stdlib_module_names or top in REFUSED_IMPORTS):
                refuse(f"import {name}")
            if name.startswith(POLYNOMIAL_MODULES):
                refuse("NumPy's polynomials")
        elif event == "open":
            path, mode, flags = args[0], str(args[1] or "r"), args[2] if len(args) > 2 else 0
            if not isinstance(path, str):
                refuse("a file by descriptor")
            writes = any(c in mode for c in "wax+") or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
            )
            if writes or not readable(os.path.realpath(path)):
                refuse(f"the file {path}")
        elif event == "object.__setattr__" and len(args) > 1 and args[1] in FUNCTION_STATE:
            setter = sys._getframe(1)  # the rebuild (the checks compiled in, real_value's own),
            if not _rebuilding(setter) and setter.f_code is not NAMED_TUPLE_CODE:  # or defaults
                refuse(f"a function's {args[1]} replaced")
        elif event in ("code.__new__", "marshal.loads") and not _rebuilding(sys._getframe(1)):
            refuse(_code_made_by(sys._getframe(1)))
        elif event.startswith(REFUSED_EVENTS):
            refuse(event)

    return hook


def _code_made_by(maker) -> str:
    """What code made outside the rebuild is refused as: an import loading a module's code,
    or code made but by compile (compile, exec and eval judge every value)."""
    if maker.f_code.co_name == "_compile_bytecode":  # importlib, loading a module
        return f"a module not loaded here (by hand: numpy, {', '.join(STANDARD_MODULES)})"
    return "code made but by compile"


def _frame_hook(readers: set):
    """An audit hook that refuses every route to a frame (``sys._getframe``, a traceback's, a
    generator's, a trace or profile function's) unless the code that reads it is one of
    ``readers``: this file's, which reads frames for the answer (exec and eval without a
    scope), for the other hook, and for an error's report."""
    looking = []  # while it finds who reads (its own sys._getframe is audited too)

    def hook(event: str, args: tuple) -> None:
        if looking or not _reads_a_frame(event, args):
            return
        looking.append(True)
        try:
            reader = sys._getframe(1).f_code  # 0: this hook, 1: the code that reads a frame
        finally:
            looking.pop()
        if reader not in readers:
            raise BuildItYourself("a by-hand answer cannot read a frame: they are the check's")

    return hook


def _module_name_readers() -> set:
    """The standard library's code that reads its caller's frame only for the name of the
    module a class is made in, and hands no frame out: ``collections.namedtuple`` and
    ``enum.Enum("Name", "A B")``, which honest answers use."""
    named_tuple = sys.modules["collections"].namedtuple
    enum = sys.modules.get("enum")
    create = getattr(getattr(enum, "EnumType", None), "_create_", None)
    return {f.__code__ for f in (named_tuple, getattr(create, "__func__", create)) if f}


def _reads_a_frame(event: str, args: tuple) -> bool:
    if event in FRAME_EVENTS:
        return True
    return event == "object.__getattr__" and len(args) > 1 and args[1] in FRAME_ATTRIBUTES


# ----- the kit, without some of its packages ---------------------------------------------------
KIT = "autogradkit"
# the standard library's modules an answer may import, imported before the hook: after it, an
# import that compiles or loads a module's code is refused as any code not rebuilt from source
STANDARD_MODULES = ("math", "itertools", "functools", "operator", "collections", "heapq")
STANDARD_MODULES += ("bisect", "copy", "contextlib")  # copy: of a value; contextlib: with
STANDARD_MODULES += ("dataclasses", "enum", "typing")  # a Value class, written as you like
# loaded before the hook too: NumPy's random numbers load on first use (starting weights drawn
# with default_rng(0)); a forked child seeds its legacy generator again (fresh_child)
NUMPY_MODULES = ("numpy.random",)
# namedtuple(..., defaults=...) sets the __defaults__ of the __new__ it has just made
NAMED_TUPLE_CODE = collections.namedtuple.__code__
MACHINERY = "autogradkit.grading"  # never in the child: the checks are not the answer's


class Kit:
    """The kit imported here with some of its packages never imported (``obs.without``): each of
    them is a module whose every name refuses when used, an import of it refuses, its files are
    unread. (The kit's own ``from .gradcheck import gradcheck`` gets such a name.)"""

    def __init__(self, without: list[str]):
        self.without = (*(str(name) for name in without), MACHINERY)
        for name in self.without:
            sys.modules[name] = _refusing_module(name)
        kit = importlib.import_module(KIT)
        for name in self.without:
            parent, _, child = name.rpartition(".")
            setattr(sys.modules[parent], child, sys.modules[name])
        root = os.path.realpath(os.path.dirname(kit.__file__))
        self.root = root + os.sep
        self.refused = tuple(os.path.join(root, *name.split(".")[1:]) for name in self.without)

    def importable(self, name: str) -> bool:
        return not any(name == p or name.startswith(p + ".") for p in self.without)

    def readable(self, path: str) -> bool:
        inside = path.startswith(self.root)
        return inside and not any(path == p or path.startswith(p + os.sep) for p in self.refused)


def _refusing_module(name: str) -> types.ModuleType:
    """A module every public name of which is a stand-in that refuses when it is called or
    asked for anything (Python's own probes, ``__x__``, find none)."""
    module = types.ModuleType(name)

    def stand_in(attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return Unavailable(attribute, f"this exercise is done without {name}")

    module.__getattr__ = stand_in
    return module


# ----- data in and out -----------------------------------------------------------------------
def decode(value):
    """Plain JSON to Python: ``{"nd": base64, "dtype", "shape"}`` is an array, ``{"tuple"}``
    a tuple, ``{"dict": [[k, v], ...]}`` a dict."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if "nd" in value:
            data = base64.b64decode(value["nd"])
            return np.frombuffer(data, dtype=value["dtype"]).reshape(value["shape"]).copy()
        if "scalar" in value:
            return np.dtype(value["dtype"]).type(decode(value["scalar"]))
        if "tuple" in value:
            return tuple(decode(v) for v in value["tuple"])
        if "set" in value:  # a set or a frozenset (a default visited set, met=set())
            items = [decode(v) for v in value["set"]]
            return frozenset(items) if value.get("frozen") else set(items)
        if "dict" in value:
            return {decode(k): decode(v) for k, v in value["dict"]}
        if "float" in value:
            return float(value["float"])
    return value


def encode(value, depth: int = 0, strict: bool = False):
    """Python to plain JSON, the inverse of ``decode``; anything else is ``{"object": name}``,
    or with ``strict`` a ``TypeError`` (the parent's side: a by-hand answer gets real numbers,
    not the kit's objects, not complex numbers)."""
    if depth > 20:
        if strict:
            raise TypeError("nested too deeply")
        return {"object": "nested too deeply"}
    if strict and not _plain(type(value)):  # decided by the type: the value is not asked
        raise TypeError(f"{type(value).__name__} cannot cross into a by-hand check")
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return value if np.isfinite(value) else {"float": repr(value)}
    kinds = REAL_KINDS if strict else NUMERIC_KINDS
    if isinstance(value, np.generic) and value.dtype.kind in kinds:
        return {"scalar": encode(value.item(), strict=strict), "dtype": value.dtype.str}
    if isinstance(value, np.ndarray) and value.dtype.kind in kinds:
        array = np.ascontiguousarray(value)
        data = base64.b64encode(array.tobytes()).decode()
        return {"nd": data, "dtype": array.dtype.str, "shape": list(array.shape)}
    if isinstance(value, (list, tuple)):
        items = [encode(v, depth + 1, strict) for v in value]
        return items if isinstance(value, list) else {"tuple": items}
    if isinstance(value, (set, frozenset)):
        items = [encode(v, depth + 1, strict) for v in value]
        return {"set": items, "frozen": isinstance(value, frozenset)}
    if isinstance(value, dict):
        pairs = value.items()
        return {
            "dict": [[encode(k, depth + 1, strict), encode(v, depth + 1, strict)] for k, v in pairs]
        }
    if strict:
        raise TypeError(f"{type(value).__name__} cannot cross into a by-hand check")
    return {"object": type(value).__name__}


def _plain(kind: type) -> bool:
    """Whether values of exactly this type are plain data: Python's own, or NumPy's arrays and
    scalars (built-in types, never a class of the student's, whose methods would run)."""
    if kind in (type(None), bool, int, float, str, list, tuple, dict, set, frozenset):
        return True
    built_in = type(kind) is type and not kind.__flags__ & HEAP_TYPE
    return built_in and issubclass(kind, (np.generic, np.ndarray))


# ----- the answer, rebuilt ---------------------------------------------------------------------
class Unavailable:
    """A name the answer uses that cannot cross into this interpreter (the kit, a tensor), or
    one of a package it is done without: using it refuses, with ``why``."""

    def __init__(self, name: str, why: str = ""):
        object.__setattr__(self, "_why", why or f"a by-hand answer cannot use {name}")

    def __getattr__(self, attribute):
        raise BuildItYourself(self._why)

    def __call__(self, *args, **kwargs):
        raise BuildItYourself(self._why)


REAL_BUILTINS = {**vars(builtins), "complex": Unavailable("complex numbers")}  # and see JUDGED


def without_polynomials() -> None:
    """Take NumPy's polynomial functions and classes (each polynomial module's ``__all__``) out
    of every NumPy module that holds them; ``numpy.polynomial`` is imported on first use, which
    the audit hook refuses."""
    taken = set()
    for name in POLYNOMIAL_MODULES:
        module = sys.modules.get(name)
        taken |= {id(vars(module)[n]) for n in getattr(module, "__all__", ()) if n in vars(module)}
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] != "numpy" or not isinstance(module, types.ModuleType):
            continue
        for attribute, found in list(vars(module).items()):
            if id(found) in taken:
                setattr(module, attribute, Unavailable("NumPy's polynomials"))


def real(code: types.CodeType) -> types.CodeType:
    """``code``, if every constant it and the code nested in it hold is real; else it refuses
    (a complex constant, ``1j``, is the start of complex-step differentiation)."""
    pending = list(code.co_consts)
    while pending:
        constant = pending.pop()
        if isinstance(constant, types.CodeType):
            pending += constant.co_consts
        elif isinstance(constant, (tuple, frozenset)):
            pending += constant
        elif not isinstance(constant, CONSTANT_TYPES):
            raise BuildItYourself(f"a by-hand answer works with real numbers, not {constant!r}")
    return code


# ----- every value the answer makes is a real number -------------------------------------------
# A complex step needs a complex number, and there are more ways to make one than any list
# holds ((-x) ** 0.5, np.emath.sqrt, eigenvalues, a dtype's letter...). So the answer is rebuilt
# from its source with every expression that computes a value passed through ``real_value``:
# whatever made it, a number that is not real refuses as it is made.
MARK = "\0real value\0"  # in the compiled code, replaced by the function real_value
NOT_CHECKED = (ast.Name, ast.Constant, ast.Starred, ast.Slice, ast.JoinedStr, ast.FormattedValue)
FACTORY = "__by_hand__"


# Numbers of the answer's own are refused too: a class that does arithmetic (dual numbers,
# a + b·ε with ε² = 0) carries each derivative along for you, exact where the function's
# value overflows. Only where the exercise is such a class (07's Value) may one exist.
ARITHMETIC = frozenset({f"__{op}__" for op in ("add", "sub", "mul", "truediv", "pow", "neg")})
ARITHMETIC |= {f"__r{op}__" for op in ("add", "sub", "mul", "truediv", "pow")}
ARITHMETIC |= {"__matmul__", "__array_ufunc__", "__array_function__"}  # NumPy's arithmetic too
OWN_NUMBERS = {"allowed": False}  # main sets it: True where the answer is such a class
LIBRARY_CLASSES: set[type] = set()  # every class there was before the answer ran (main)


def _number_class(kind: type) -> bool:
    """Whether ``kind`` or a class it inherits from, made once the answer ran (not a library
    class, such as ``collections.Counter``, whatever its ``__module__`` says), defines
    arithmetic now (asked each time: a method can be set on a class after its first value)."""
    return any(ARITHMETIC & vars(k).keys() for k in kind.__mro__ if k not in LIBRARY_CLASSES)


def every_class() -> set[type]:
    """Every class that exists now, found down from ``object`` by ``__subclasses__``."""
    found, todo = {object}, [object]
    while todo:
        for sub in type.__subclasses__(todo.pop()):
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def real_value(value, *, _kinds=(np.ndarray, np.generic), _number=numbers.Number):
    """``value``, when it is no number that is not real (a complex one) and no array of them,
    and (by hand) no instance of a class of the answer's that does arithmetic."""
    kind = type(value)
    if kind.__flags__ & HEAP_TYPE and not OWN_NUMBERS["allowed"] and _number_class(kind):
        raise NumberClassOfItsOwn("a by-hand answer works with numbers, not a class of its own")
    if isinstance(value, _kinds):
        if value.dtype.kind == "c":
            raise BuildItYourself("a by-hand answer works with real numbers, not complex ones")
    elif isinstance(value, _number) and not isinstance(value, numbers.Real):
        raise BuildItYourself("a by-hand answer works with real numbers, not complex ones")
    return value


class EveryValue(ast.NodeTransformer):
    """Each expression that computes a value (an operation, a call, an attribute, an item, a
    display) becomes ``real_value(expression)``; a name an augmented assignment changes is
    judged after it. Names, constants, targets and match patterns are left as they are."""

    def visit(self, node):
        if isinstance(node, ast.pattern):
            return node
        node = self.generic_visit(node)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = ast.Name(node.target.id, ast.Load())
            return [node, ast.copy_location(ast.Expr(_checked(name)), node)]
        loads = isinstance(getattr(node, "ctx", ast.Load()), ast.Load)
        if isinstance(node, ast.expr) and loads and not isinstance(node, NOT_CHECKED):
            return ast.copy_location(_checked(node), node)
        return node


def _checked(node: ast.expr) -> ast.Call:
    return ast.Call(ast.Constant(MARK), [node], [])


def from_source(code: types.CodeType, sources: dict) -> types.CodeType:
    """``code`` compiled again from its source, every value it makes judged (``EveryValue``);
    an answer whose source is not there refuses: what its values are cannot be judged."""
    try:
        node = _definition(code, "".join(sources.get(code.co_filename, [])))
    except (SyntaxError, ValueError, LookupError):
        raise BuildItYourself("a by-hand answer is rebuilt from its source") from None
    if isinstance(node, ast.Lambda):
        body = [ast.Return(node)]
    else:  # its own name stays what it was in the answer: a global, or one of its closure's
        own = [] if node.name in code.co_freevars else [ast.Global([node.name])]
        body = [*own, node, ast.Return(ast.Name(node.name, ast.Load()))]
    factory = ast.FunctionDef(
        FACTORY,
        ast.arguments([], [ast.arg(name) for name in code.co_freevars], None, [], [], None, []),
        body,
        [],
        lineno=node.lineno,
        col_offset=0,
        end_lineno=node.end_lineno,
        end_col_offset=0,
    )
    module = ast.fix_missing_locations(ast.Module([EveryValue().visit(factory)], []))
    compiled = real(_COMPILE(module, code.co_filename, "exec"))
    made = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    return _with_checker(next(c for c in made.co_consts if _same_function(c, code)))


def _definition(code: types.CodeType, source: str):
    """The ``def`` (without its decorators) or the ``lambda`` of ``code`` in ``source``, found by
    its first line, its name and its arguments."""
    arguments = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first == code.co_firstlineno:
                node.decorator_list = []
                return node
        elif isinstance(node, ast.Lambda) and code.co_name == "<lambda>":
            names = [
                a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
            ]
            if node.lineno == code.co_firstlineno and names == arguments:
                return node
    raise LookupError(code.co_name)


def _same_function(const, code: types.CodeType) -> bool:
    return isinstance(const, types.CodeType) and const.co_name == code.co_name


def _with_checker(code: types.CodeType) -> types.CodeType:
    """``code`` and the code nested in it, ``MARK`` replaced by ``real_value`` itself (no name
    the answer could rebind), qualified names as the answer's own."""
    consts = tuple(
        real_value
        if type(c) is str and c == MARK
        else _with_checker(c)
        if isinstance(c, types.CodeType)
        else c
        for c in code.co_consts
    )
    qualname = code.co_qualname.removeprefix(f"{FACTORY}.<locals>.")
    return code.replace(co_consts=consts, co_qualname=qualname)


def judged(
    source, filename="<string>", mode="exec", flags=0, dont_inherit=False, optimize=-1, **how
):
    """``compile``, by hand: code made at run time (``exec``, ``eval``, ``compile`` of a text or a
    tree) has every value it makes judged, as the answer's own (``EveryValue``)."""
    if isinstance(source, types.CodeType):
        return source  # made by compile (here, judged) or by the rebuild
    if flags & ast.PyCF_ONLY_AST:  # a tree (ast.parse): judged when it is compiled
        return _COMPILE(source, filename, mode, flags, dont_inherit, optimize, **how)
    tree = source
    if not isinstance(source, ast.AST):
        tree = _COMPILE(source, filename, mode, flags | ast.PyCF_ONLY_AST, dont_inherit, optimize)
    tree = ast.fix_missing_locations(EveryValue().visit(tree))
    return _with_checker(real(_COMPILE(tree, filename, mode, flags, dont_inherit, optimize)))


def judged_exec(source, scope=None, names=None, /, **how):
    """``exec`` of judged code (in the caller's names when none are given)."""
    if scope is None:
        caller = sys._getframe(1)
        scope, names = caller.f_globals, caller.f_locals if names is None else names
    return _EXEC(judged(source, "<string>", "exec"), scope, names, **how)


def judged_eval(source, scope=None, names=None, /):
    """``eval`` of judged code (in the caller's names when none are given)."""
    if scope is None:
        caller = sys._getframe(1)
        scope, names = caller.f_globals, caller.f_locals if names is None else names
    return _EVAL(judged(source, "<string>", "eval"), scope, names)


_COMPILE, _EXEC, _EVAL = builtins.compile, builtins.exec, builtins.eval
JUDGED = {"compile": judged, "exec": judged_exec, "eval": judged_eval}


def _rebuilding(frame) -> bool:
    """Whether ``frame`` is the rebuild's, which alone makes code objects here (``marshal``,
    ``code.replace``): the answer's come from its source, judged."""
    return frame.f_code in (rebuild.__code__, _with_checker.__code__)


def rebuild(bundle: dict) -> types.FunctionType:
    """The answer as a function again, its helpers and plain data in one global namespace."""
    for filename, lines in bundle["sources"].items():
        linecache.cache[filename] = (len("".join(lines)), None, lines, filename)
    scope = {"__name__": "__main__", "__builtins__": REAL_BUILTINS}
    functions, cells = {}, []
    for key, item in bundle["functions"].items():
        if "refused" in item:  # a default that is no plain real data
            raise BuildItYourself(f"a by-hand answer cannot use {item['refused']}")
        original = real(marshal.loads(base64.b64decode(item["code"])))
        code = from_source(original, bundle["sources"])  # every value it makes is judged
        cell = {name: types.CellType() for name in code.co_freevars}
        closure = tuple(cell.values())
        functions[key] = types.FunctionType(code, scope, code.co_name, None, closure or None)
        functions[key].__defaults__ = decode(item["defaults"])
        functions[key].__kwdefaults__ = decode(item["kwdefaults"])
        crossed = dict(zip(original.co_freevars, item["closure"]))
        cells += [(cell[name], name, crossed[name]) for name in cell]
    for key, item in bundle.get("classes", {}).items():  # a class: what it holds, rebuilt
        members = {name: member(held, scope, functions) for name, held in item["members"].items()}
        functions[key] = type(item["name"], (), members)
    for name, item in bundle["globals"].items():
        scope[name] = value(name, item, scope, functions)
    for cell, name, item in cells:
        cell.cell_contents = value(name, item, scope, functions)
    return functions[bundle["answer"]["function"]]


WRAPPERS = {"staticmethod": staticmethod, "classmethod": classmethod, "property": property}


def member(item: dict, scope: dict, functions: dict):
    """What a class of the answer holds under one name: a method (wrapped as it was), or a value
    that crossed over."""
    if item.get("wrapper"):
        return WRAPPERS[item["wrapper"]](functions[item["function"]])
    return value("", item, scope, functions)


def value(name: str, item: dict, scope: dict, functions: dict):
    """One name the answer uses, as it crossed over (``by_hand._Bundle.crossing``)."""
    if "function" in item:
        return functions[item["function"]]
    if "class" in item:  # rebuilt with the functions, under their keys
        return functions[item["class"]]
    if "module" in item:
        return __import__(item["module"], fromlist=["_"])
    if "attribute" in item:
        return getattr(__import__(item["attribute"][0], fromlist=["_"]), item["attribute"][1])
    if "unavailable" in item:
        return Unavailable(item["unavailable"])
    if "source" in item:
        tree = EveryValue().visit(ast.parse(item["source"]))
        code = real(_COMPILE(ast.fix_missing_locations(tree), item["filename"], "exec"))
        exec(_with_checker(code), scope)
        return scope[name]
    return decode(item["data"])


def _raised(error: BaseException, files: set[str]) -> dict:
    frames, tb = [], error.__traceback__
    while tb is not None:  # read here, where the audit hook allows frames (its readers)
        code = tb.tb_frame.f_code
        if code.co_filename in files:
            line = linecache.getline(code.co_filename, tb.tb_lineno).strip()
            frames.append([tb.tb_lineno, code.co_name, line])
        tb = tb.tb_next
    message = str(error).splitlines()[0][:200] if str(error) else ""
    refused = isinstance(error, BuildItYourself)
    name = type(error).__name__
    reply = {"raised": name, "message": message, "frames": frames[-5:], "refused": refused}
    return reply | {"own_numbers": isinstance(error, NumberClassOfItsOwn)}


def _raising(error: BaseException):
    """An answer that could not be rebuilt: each call raises what rebuilding it raised."""

    def answer(*args, **kwargs):
        raise error

    return answer


def main() -> None:
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")  # the answers' channel; prints go apart
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    bundle = json.loads(sys.stdin.readline())
    files = set(bundle["sources"])
    limit = bundle.get("recursion_limit")
    if limit:  # counted from here, so that the check's limit means the answer's own depth
        sys.setrecursionlimit(len(traceback.extract_stack()) + 8 + int(limit))
    sys.setrecursionlimit = Unavailable("sys.setrecursionlimit")
    without = bundle.get("kit_without")
    kit = None if without is None else Kit(without)  # before the hook: the kit's own imports
    OWN_NUMBERS["allowed"] = kit is not None or bool(bundle.get("own_numbers"))
    without_polynomials()
    for name in (*STANDARD_MODULES, *NUMPY_MODULES):
        importlib.import_module(name)
    LIBRARY_CLASSES.update(every_class())  # a class made from here on is the answer's
    REAL_BUILTINS.update(JUDGED)
    for name, judging in JUDGED.items():  # the builtins module too: import builtins finds them
        setattr(builtins, name, judging)
    readers = {judged_exec.__code__, judged_eval.__code__, _raised.__code__}
    readers |= _module_name_readers()
    sys.addaudithook(_frame_hook(readers))  # first: the other hook refuses a hook added after it
    hook = _audit_hook(*_readable_roots(), kit)
    readers.add(hook.__code__)  # it finds who changes a function (sys._getframe)
    sys.addaudithook(hook)  # before a class body of the answer runs
    try:
        answer = rebuild(bundle)
    except BaseException as error:  # noqa: BLE001  (reported on every call, as the answer's)
        answer = _raising(error)
    for line in sys.stdin:
        call = json.loads(line)
        printed = sys.stdout = io.StringIO()
        try:
            reply = {"value": encode(answer(*decode(call["args"]), **decode(call["kwargs"])))}
        except RecursionError as error:
            reply = _raised(error, files) | {"recursion": True}
        except BaseException as error:  # noqa: BLE001  (everything is the answer's to report)
            reply = _raised(error, files)
        reply["printed"] = printed.getvalue()[:MAX_PRINTED]
        out.write(json.dumps(reply) + "\n")
        out.flush()


# ----- the fork server -------------------------------------------------------------------------
def serve_forks() -> tuple[int, set[str]]:
    """The fork server (``python -I by_hand_child.py --fork-server``): NumPy and the standard
    modules loaded once, no kit, no audit hook. Its stdin is a socket on which ``by_hand.py``
    sends, one message each, the socket of a new by-hand interpreter; it forks one for each and
    answers with the child's pid and a pidfd (kill and wait by it: never a reused pid). Returns
    only in a forked child: its socket, and the modules a fresh interpreter holds."""
    for name in (*STANDARD_MODULES, *NUMPY_MODULES):  # what main imports before the hook
        importlib.import_module(name)
    _readable_roots()  # sysconfig reads its data once, here (main asks again, in 0.2 ms)
    fresh = set(sys.modules)
    gc.freeze()  # what a fresh child holds: a child's collection below reads none of it
    # not at the top: a fresh child never holds socket (its import refuses by hand), and each
    # forked one drops every module imported from here on
    socket = importlib.import_module("socket")

    control = socket.socket(fileno=0)
    while True:
        message, fds, _, _ = socket.recv_fds(control, 16, 1)
        if message != b"fork" or len(fds) != 1:  # the kernel ended, or this is no request
            raise SystemExit(0)
        pid = os.fork()
        if pid == 0:
            control.detach()  # fd 0: replaced by fresh_child, never closed by this object
            return fds[0], fresh
        pidfd = os.pidfd_open(pid)
        socket.send_fds(control, [str(pid).encode()], [pidfd])
        os.close(pidfd)
        os.close(fds[0])
        _reap()


def fresh_child(channel: int, fresh: set[str]) -> None:
    """Make this forked process what a fresh ``python -I by_hand_child.py`` is at ``main``:
    stdin and stdout the socket ``channel``, stderr as it was (/dev/null), no other file
    descriptor, none of the server's modules, and NumPy's legacy random generator seeded again
    (a fresh interpreter's draws its own numbers, not the server's)."""
    os.dup2(channel, 0)
    os.dup2(channel, 1)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    for name in set(sys.modules) - fresh:
        del sys.modules[name]
    gc.collect()  # their classes and functions too: object.__subclasses__() would find them
    gc.unfreeze()  # (frozen, they were not read: no page of the server's is copied for it)
    sys.argv[1:] = []
    np.random.seed()  # from the system's entropy, as at a fresh import


def _reap() -> None:
    """Wait for the children that ended (killed at the end of their check)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


if __name__ == "__main__":
    if sys.argv[1:] == ["--fork-server"]:  # a fork of the server goes on here, made fresh
        fresh_child(*serve_forks())  # the server's objects gone with its frame
    main()  # the audit hook goes in before any of the answer's code runs
