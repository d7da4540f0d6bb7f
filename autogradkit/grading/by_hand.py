"""By hand, by design: run an answer where no route to the kit's differentiation exists.

An exercise that asks for a derivative, a gradient or a backward pass *by hand* cannot be
checked by switching names off in the student's kernel: a reference kept before the check, an
import inside the function, a node called directly, ``Function.backward``, ``functional``,
``gradcheck`` or the viz tracer would each still work. So the answer does not run there.
``ByHand(answer)`` is a function that calls the answer in a fresh Python interpreter
(``by_hand_child.py``) that has NumPy and the standard library and no kit: an audit hook,
which nothing can remove, refuses every import outside the standard library and NumPy, every
file read outside their folders, new processes, sockets and ctypes. What crosses over:

* the answer's code (``marshal``; compiled again there from the source lines of its cells, so
  that every value it makes is judged real), its defaults and closure, and what its code names
  in the notebook: helper functions (their code too), classes (what they hold: their methods,
  as functions, and data; one with a base class, its source), modules of the standard library
  or NumPy, and plain data (numbers, strings, arrays, lists, tuples, dicts of them); anything
  else (``agk``, a tensor, a kit function) becomes a name that refuses when
  used;
* the arguments, plain data; the result comes back as plain data, read as untrusted input.

One interpreter serves all the calls of one check, and is ended when the check ends. It is
forked from a fork server: an interpreter of this process that has loaded NumPy and the
standard modules (no kit, no audit hook), once; each fork then makes itself what a fresh one is
(its modules, its file descriptors: one socket) and installs the hook before the answer's code
runs. A start costs about 10 ms of CPU instead of 0.1 to 0.6 s; a call, a fraction of a
millisecond (``benchmarks/bench_by_hand.py``). Where there is no fork (or the server stops),
each is launched as ``python -I by_hand_child.py``, the next one started ahead in the
background. The guard ends both, the server and the one ahead, before each graded cell.
"""

from __future__ import annotations

import atexit
import base64
import inspect
import json
import linecache
import marshal
import os
import select
import signal
import socket
import subprocess
import sys
import sysconfig
import types
from pathlib import Path

import numpy as np

from .by_hand_child import KIT, MACHINERY, STANDARD_MODULES, encode

__all__ = ["ByHand", "HandRaised", "RefusedByHand", "bundle_of", "end_spare", "MAX_REPLY_BYTES"]

CHILD = Path(__file__).with_name("by_hand_child.py")
MAX_REPLY_BYTES = 16 << 20  # a reply larger than this is not read
SERVER_TIMEOUT = 60.0  # seconds the fork server may take to start and fork, on a busy machine
ALLOWED_MODULES = frozenset({"numpy", *STANDARD_MODULES})
# names the rebuilt answer's scope holds already: a class made by hand belongs to the by-hand
# interpreter's __main__ (a class body reads __name__; a module the child lacks breaks dataclass)
REBUILT_NAMES = frozenset({"__name__", "__builtins__"})
NUMERIC_KINDS = "biufc"
# the callables of the standard library and NumPy that cross as a name (math.exp, np.sqrt,
# np.sum): their types, exactly, so that reading their names runs no code of the student's
LIBRARY_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, type, np.ufunc, type(np.sum))


class RefusedByHand(PermissionError):
    """The answer used a route the by-hand interpreter refuses (the kit, a process, a file);
    ``own_numbers``: arithmetic on a number class of its own (dual numbers)."""

    def __init__(self, message: str, own_numbers: bool = False):
        super().__init__(message)
        self.own_numbers = own_numbers


class HandRaised(Exception):
    """The answer raised in the by-hand interpreter: ``kind`` is its class name, ``frames``
    the student's own lines ``(line, function, code)``."""

    def __init__(self, kind: str, message: str, frames: list):
        super().__init__(message)
        self.kind, self.frames = kind, frames


class ByHand:
    """``ByHand(answer)(*args)``: the answer's result, computed in the by-hand interpreter.

    Arguments and results are plain data (numbers, strings, NumPy arrays and scalars, and
    lists, tuples and dicts of them). ``recursion_limit`` caps the answer's own call depth.
    ``own_numbers``: the exercise is a class that does arithmetic (07's Value); elsewhere an
    instance of such a class of the answer's (dual numbers) refuses as it is made.
    """

    def __init__(
        self,
        answer,
        *,
        recursion_limit: int | None = None,
        timeout: float = 20.0,
        kit_without: tuple[str, ...] | None = None,
        own_numbers: bool = False,
    ):
        self.answer, self.timeout = answer, timeout
        self.bundle = bundle_of(answer, recursion_limit=recursion_limit, kit_without=kit_without)
        self.bundle["own_numbers"] = own_numbers  # the exercise is a class that does arithmetic
        self.process: subprocess.Popen | Forked | None = None

    def __call__(self, *args, **kwargs):
        if self.process is None:
            self.process = _start(self.bundle)
        request = json.dumps({"args": _encode(list(args)), "kwargs": _encode(kwargs)})
        reply = self._exchange(request)
        if reply.get("printed"):
            print(str(reply["printed"]), end="")
        if "value" in reply:
            return _decode(reply["value"])
        frames = [f for f in reply.get("frames", []) if isinstance(f, list) and len(f) == 3]
        message = str(reply.get("message", ""))[:200]
        if reply.get("refused"):
            raise RefusedByHand(message, own_numbers=reply.get("own_numbers") is True)
        if reply.get("recursion"):
            raise RecursionError(message)
        raise HandRaised(str(reply.get("raised", "Exception"))[:80], message, frames)

    def _exchange(self, request: str) -> dict:
        process = self.process
        try:
            process.stdin.write(request + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], self.timeout)
            line = process.stdout.readline(MAX_REPLY_BYTES) if ready else ""
        except (BrokenPipeError, OSError):
            line = ""
        if not line.endswith("\n"):
            self.close()
            if not ready:
                raise TimeoutError(f"did not finish within {self.timeout:g} s")
            raise HandRaised("SystemExit", "the by-hand interpreter stopped", [])
        reply = json.loads(line)
        if not isinstance(reply, dict):
            raise ValueError("a reply of the by-hand interpreter is not an object")
        return reply

    def close(self) -> None:
        """End the interpreter (the check does, when it ends)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            for pipe in (self.process.stdin, self.process.stdout):
                pipe.close()
            self.process = None


_spare: list[subprocess.Popen] = []  # one interpreter started ahead, waiting for its bundle
_fork_server: list[ForkServer] = []  # the fork server of this process, started at the first check
# where fork, pidfds and passing sockets are missing, each interpreter is launched (as it is when
# the fork server cannot start or stops): this list is emptied then
_forking = [hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")]


def _start(bundle: dict) -> subprocess.Popen | Forked:
    """An interpreter for ``bundle``: forked from the fork server (milliseconds), or, where
    there is none, the one started ahead if there is one; then the next one starts in the
    background, so a check rarely waits for Python and NumPy to load."""
    process = _forked() or _launched()
    process.stdin.write(json.dumps(bundle) + "\n")
    process.stdin.flush()
    return process


def _forked() -> Forked | None:
    """A by-hand interpreter forked from the fork server (started now if there is none); None
    when it cannot serve: it is ended, and a server that never forked is not started again."""
    if not _forking:
        return None
    try:
        if not _fork_server:
            _fork_server.append(ForkServer())
        return _fork_server[0].fork()
    except OSError:  # it stopped, or could never fork: a launched interpreter serves instead
        if not (_fork_server and getattr(_fork_server[0], "forks", 0)):
            _forking.clear()
        end_spare()
        return None


def _launched() -> subprocess.Popen:
    process = _spare.pop() if _spare and _spare[0].poll() is None else _launch()
    _spare[:] = [_launch()]
    return process


def _launch(*arguments: str, **pipes) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.Popen(
        [sys.executable, "-I", str(CHILD), *arguments],
        **(pipes or {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}),
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=env,
        cwd=CHILD.parent,
    )


@atexit.register
def end_spare() -> None:
    """End the interpreter started ahead and the fork server (the guard does before each graded
    test cell: student code may have put a process of its own there)."""
    ended = [*_spare, *_fork_server]
    _spare[:], _fork_server[:] = [], []
    for process in ended:
        try:
            process.kill()
            process.wait()
        except (AttributeError, OSError, TypeError):  # not a process this module started
            pass


class ForkServer:
    """A ``python -I by_hand_child.py --fork-server``: NumPy and the standard modules loaded,
    no kit, no audit hook. Each ``fork()`` is a by-hand interpreter, made as a fresh one
    (``by_hand_child.serve_forks``), on a socket of its own."""

    def __init__(self):
        self.control, theirs = socket.socketpair()
        self.control.settimeout(SERVER_TIMEOUT)  # its start included
        theirs.setblocking(True)  # whatever socket.setdefaulttimeout says
        with theirs:
            self.process = _launch("--fork-server", stdin=theirs, stdout=subprocess.DEVNULL)
        self.forks = 0

    def fork(self) -> Forked:
        ours, theirs = socket.socketpair()
        theirs.setblocking(True)  # the child reads it as a file: it waits for each line
        try:
            with theirs:
                socket.send_fds(self.control, [b"fork"], [theirs.fileno()])
                message, fds, _, _ = socket.recv_fds(self.control, 32, 1)
        except BaseException:  # an interrupt: its reply, read later, would answer the next fork
            self.kill()
            raise
        if not message.isdigit() or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            ours.close()
            raise OSError("the fork server stopped")
        self.forks += 1
        return Forked(int(message), fds[0], ours)

    def kill(self) -> None:
        """End the server (the interpreters it forked go on until their checks end)."""
        self.control.close()
        self.process.kill()

    def wait(self) -> None:
        self.process.wait()


class Forked:
    """A by-hand interpreter forked by the fork server, with what ``ByHand`` uses of a
    ``Popen``: ``stdin`` and ``stdout`` (one socket), ``kill``, ``wait``. It is the server's
    child, not ours: it is killed and waited for by its pidfd, which names it alone (its pid
    could name another process once it has ended)."""

    def __init__(self, pid: int, pidfd: int, channel: socket.socket):
        self.pid, self.pidfd = pid, pidfd
        channel.setblocking(True)  # whatever socket.setdefaulttimeout says
        self.stdin = channel.makefile("w", encoding="utf-8", errors="replace")
        self.stdout = channel.makefile("r", encoding="utf-8", errors="replace")
        channel.close()  # open while its two files are

    def kill(self) -> None:
        if self.pidfd >= 0:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except ProcessLookupError:  # it had ended, and the server reaped it
                pass

    def wait(self) -> None:
        if self.pidfd >= 0:
            select.select([self.pidfd], [], [])  # readable once it has ended
            os.close(self.pidfd)
            self.pidfd = -1

    def __del__(self):  # never closed: it ends by itself when its input does
        if self.pidfd >= 0:
            os.close(self.pidfd)


# ----- what crosses over -----------------------------------------------------------------------
def bundle_of(
    answer, *, recursion_limit: int | None = None, kit_without: tuple[str, ...] | None = None
) -> dict:
    """The answer as data: its code, defaults and closure, and what its code names.
    ``kit_without``: the kit is there, but for these packages (None: no kit at all)."""
    if not isinstance(answer, types.FunctionType):
        raise TypeError(f"a by-hand answer is a function, not {type(answer).__name__}")
    bundle = _Bundle(kit_without)
    return {
        "answer": bundle.function(answer),
        "functions": bundle.functions,
        "classes": bundle.classes,
        "globals": bundle.globals,
        "sources": bundle.sources,
        "recursion_limit": recursion_limit,
        "kit_without": None if kit_without is None else list(kit_without),
    }


class _Bundle:
    """What crosses over, gathered once: each function and class by a key (a helper may be
    named by several, or call itself), the globals by name, the source lines of their cells."""

    def __init__(self, kit_without: tuple[str, ...] | None = None):
        self.kit_without = kit_without
        self.functions: dict[str, dict] = {}
        self.classes: dict[str, dict] = {}
        self.globals: dict[str, dict] = {}
        self.sources: dict[str, list[str]] = {}
        self.keys: dict[int, str] = {}

    def function(self, fn: types.FunctionType) -> dict:
        """``{"function": key}``, the function's code and closure gathered under ``key``."""
        if id(fn) in self.keys:
            return {"function": self.keys[id(fn)]}
        # names read as exact str only: a str subclass's __format__ or __eq__ would run here
        key = self.keys[id(fn)] = f"{_text(fn.__qualname__)}#{len(self.keys)}"
        _keep_source(_text(fn.__code__.co_filename), self.sources)
        item = {"code": base64.b64encode(marshal.dumps(fn.__code__)).decode()}
        try:
            item |= {"defaults": _encode(fn.__defaults__), "kwdefaults": _encode(fn.__kwdefaults__)}
        except TypeError:  # a tensor, a complex number: refused when the answer is rebuilt
            name = _text(fn.__name__)
            item |= {"defaults": None, "kwdefaults": None, "refused": f"{name}'s defaults"}
        self.functions[key] = item
        cells = zip(fn.__code__.co_freevars, fn.__closure__ or ())
        item["closure"] = [self.crossing(name, cell.cell_contents) for name, cell in cells]
        scope = fn.__globals__
        if type(scope) is not dict or any(type(key) is not str for key in scope):
            scope = {}  # a key that is no exact str runs its __eq__ at a lookup: none is made
        for name in sorted(code_names(fn.__code__) - REBUILT_NAMES):
            if name not in self.globals and dict.__contains__(scope, name):  # a dict's own
                self.globals[name] = {"unavailable": name}  # until known: a cycle ends here
                self.globals[name] = self.crossing(name, dict.__getitem__(scope, name))
        return {"function": key}

    def klass(self, cls: type) -> dict:
        """``{"class": key}``: a class of the notebook's own, as what it holds (its methods, as
        functions, static, class methods or properties; plain data), gathered under ``key``.
        Made of what it holds now, not of its ``class`` statement: a method set on it later
        (``Value.backward = ...``) is the one that runs, as in the kernel."""
        if id(cls) in self.keys:
            return {"class": self.keys[id(cls)]}
        key = self.keys[id(cls)] = f"{_text(cls.__name__) or 'class'}#{len(self.keys)}"
        members = self.classes[key] = {"name": _text(cls.__name__), "members": {}}
        for attribute, member in list(vars(cls).items()):
            if type(attribute) is not str or attribute in CLASS_BOOKKEEPING:
                continue
            if type(member) is types.MemberDescriptorType:  # a slot: made again from __slots__
                continue
            wrapper = WRAPPERS.get(type(member), "")
            inner = member.fget if wrapper == "property" else getattr(member, "__func__", member)
            if type(inner) is types.FunctionType:
                members["members"][attribute] = {"wrapper": wrapper, **self.function(inner)}
            elif not wrapper:
                members["members"][attribute] = self.crossing(attribute, member)
        return {"class": key}

    def crossing(self, name: str, value) -> dict:
        """How ``value`` crosses over: a module, a helper, plain data, or refused. Judged by its
        exact type, never by asking the value: a ``__class__`` property or a ``__getattr__``
        of the student's would run in the kernel, mid-check, where the kit is."""
        kind = type(value)
        if kind is types.ModuleType:
            module = _text(vars(value).get("__name__"))
            return {"module": module} if self.allows(module) else {"unavailable": name}
        if kind is types.FunctionType and not _installed(value):
            return self.function(value)
        if kind is type and not _installed(value):
            return self.klass(value) if value.__bases__ == (object,) else _class(name, value)
        if kind in LIBRARY_CALLABLES:
            module = _text(getattr(value, "__module__", None)) or (
                "numpy" if kind is np.ufunc else ""
            )
            label = _text(getattr(value, "__name__", None))
            if self.allows(module) and label:
                return {"attribute": [module, label]}
            return {"unavailable": name}
        try:
            return {"data": _encode(value)}
        except TypeError:
            return {"unavailable": name}

    def allows(self, module: str) -> bool:
        """Whether the module named ``module`` is there by hand: the standard library's and
        NumPy's listed ones; with ``kit_without``, the kit's but for those packages and the
        check machinery."""
        if module.split(".")[0] in ALLOWED_MODULES:
            return True
        refused = (*(self.kit_without or ()), MACHINERY)
        inside = module == KIT or module.startswith(KIT + ".")
        return self.kit_without is not None and inside and not _under(module, refused)


CLASS_BOOKKEEPING = frozenset({"__dict__", "__weakref__", "__module__", "__qualname__", "__doc__"})
WRAPPERS = {staticmethod: "staticmethod", classmethod: "classmethod", property: "property"}


def _under(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _text(value) -> str:
    """``value`` if it is a ``str`` itself (a name read off an object), else ``""``."""
    return value if type(value) is str else ""


def _keep_source(filename: str, sources: dict) -> None:
    lines = linecache.getlines(filename) if filename else []
    if lines:
        sources[filename] = lines


def code_names(code: types.CodeType) -> set[str]:
    """Every global or attribute name a code object and the functions nested in it use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= code_names(const)
    return names


def _class(name: str, cls: type) -> dict:
    """A class of the notebook crosses over as its source (found by inspect, which compares and
    formats the class's names and its module's file: each must be an exact ``str``)."""
    module = sys.modules.get(_text(vars(cls).get("__module__")))
    if type(module) is not types.ModuleType:  # inspect would ask it for its file
        return {"unavailable": name}
    names = (cls.__name__, cls.__qualname__, vars(module).get("__file__", ""))
    if any(type(text) is not str for text in names):
        return {"unavailable": name}
    try:
        return {"source": inspect.getsource(cls), "filename": f"<class {cls.__name__}>"}
    except (OSError, TypeError):
        return {"unavailable": name}


def _installed(value) -> bool:
    """A function or class of the kit or of an installed package, not the student's own."""
    module = _text(getattr(value, "__module__", None))  # a function's or a class's own
    if module.split(".")[0] == "autogradkit":
        return True
    entry = sys.modules.get(module)
    file = _text(vars(entry).get("__file__")) if type(entry) is types.ModuleType else ""
    if not file:
        return False
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return any(os.path.realpath(file).startswith(os.path.realpath(r)) for r in roots)


# ----- plain data, both ways -------------------------------------------------------------------
def _encode(value):
    """Plain data as JSON (the child's ``decode`` reads it), written by the child's own
    ``encode``; a tensor or any other object raises ``TypeError``: a by-hand answer gets
    numbers, not the kit's objects."""
    return encode(value, strict=True)


def _decode(value, depth: int = 0):
    """A reply's value as Python: read as untrusted input (only numeric arrays, bounded)."""
    if depth > 20:
        return None
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, list):
        return [_decode(v, depth + 1) for v in value]
    if not isinstance(value, dict):
        return None
    if "nd" in value:
        dtype = np.dtype(str(value.get("dtype")))
        shape = [int(n) for n in value.get("shape", [])]
        if dtype.kind not in NUMERIC_KINDS or dtype.itemsize > 16:
            return None
        return np.frombuffer(base64.b64decode(str(value["nd"])), dtype=dtype).reshape(shape).copy()
    if "scalar" in value:
        dtype = np.dtype(str(value.get("dtype")))
        scalar = _decode(value["scalar"], depth + 1)
        if dtype.kind not in NUMERIC_KINDS or dtype.itemsize > 16:
            return None
        return dtype.type(scalar if isinstance(scalar, (int, float, complex, bool)) else 0)
    if "tuple" in value and isinstance(value["tuple"], list):
        return tuple(_decode(v, depth + 1) for v in value["tuple"])
    if "set" in value and isinstance(value["set"], list):  # read as a list: no hash of ours runs
        return [_decode(v, depth + 1) for v in value["set"]]
    if "dict" in value and isinstance(value["dict"], list):
        pairs = [p for p in value["dict"] if isinstance(p, list) and len(p) == 2]
        decoded = [(_decode(k, depth + 1), _decode(v, depth + 1)) for k, v in pairs]
        return {k: v for k, v in decoded if isinstance(k, (str, int, float, bool, tuple))}
    if "float" in value and value["float"] in ("nan", "inf", "-inf"):
        return float(value["float"])
    return _Opaque(str(value.get("object", "object"))[:40])


class _Opaque:
    """A result that is no plain data (a class of the answer's own): judged as not a number."""

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self) -> str:
        return f"<{self.kind}>"
