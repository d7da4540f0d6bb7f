"""Inside a grading kernel: undo and report what student code did to the test machinery.

The grader installs this before any student cell runs (``install``), then calls ``reset``
before every test cell. ``reset`` puts back what it saw at install time and reports each thing
it found changed:

* IPython hooks that hide errors: an instance ``showtraceback`` (or other shell method), a
  custom exception handler, callbacks on ``pre_run_cell``/``post_run_cell``/... events;
* input and AST transformers, which could rewrite the test cells that come later;
* replaced functions in ``builtins``, ``numpy``, ``numpy.testing``, ``math`` and the kit's
  ``checks`` module (a patched ``numpy.allclose`` passes everything), those modules swapped in
  ``sys.modules``, and names of check functions rebound in the notebook (``check_close = ...``).

* keys that are not names: a ``str`` subclass among the notebook's or a watched module's names
  runs its ``__eq__`` at each lookup it meets (the test cell's ``checks``), after the reset;
* **the check machinery itself**: every global of the check API's modules
  (``autogradkit.grading.*``: a kept ``_spare``, a shadowed ``isinstance``), every attribute of
  the classes they hold (``ByHand.__call__`` made to run the answer in the kernel, where
  autograd is), and the functions and classes of the modules they use (``sys.setprofile`` made
  to do nothing, ``json.loads`` made to answer for the by-hand interpreter), with the classes
  those modules define outside the kit (``contextlib._GeneratorContextManager.__enter__``, which
  every ``with kit_calls()`` runs). The notebook's own checks modules (any module holding a
  ``Checks``) are machinery too: their globals, and each check's attributes (its ``fn``). And a
  function is more than its name: each watched function's code, defaults and closure are kept
  (``Observer.by_hand.__code__ = ...`` keeps the object the names point at). An allow-list:
  what was there at install, whatever a patch touched. The by-hand fork server (and the
  interpreter started ahead, where there is none) is ended too, so a process student code put
  there is never handed an answer.

* **the way a cell's value and reply leave the kernel**: the shell's display hook, display
  publisher and kernel (with its session), every attribute of their classes and the methods
  an instance shadows, and the ``text/plain`` formatter (its settings and printers: a float
  printed as ``5.0`` would be an ``assert`` cell's partial credit). An allow-list too: what
  was there at install.

Before a test cell ``reset`` also puts back the modules the notebook's own cells import, and
the global names they were imported as (``np = fake`` or ``sys.modules["numpy"] = fake`` in an
nbgrader course whose ``assert`` cells compare with ``np.isclose``): ``install`` is told them.

``reset`` reports in a fixed vocabulary, ``[kind, name]`` pairs (``CHANGES`` holds the
sentence of each kind), never free text: the grader reads the report as untrusted data (a
submission can replace ``reset`` itself), keeps only well-formed pairs, and writes the
sentences itself. This is detection in the student's own interpreter, so it is best effort:
code that runs before the guard looks, or that patches the guard itself, is not caught. What
it finds marks the row "needs review" in the gradebook. See "Security model" in
docs/instructor_guide.md.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import sys
import types

from . import by_hand
from .checks import Check, Checks

__all__ = [
    "WATCHED_MODULES",
    "TRANSFORMER_LISTS",
    "TRUSTED",
    "MANAGED",
    "CHANGES",
    "install",
    "reset",
]

WATCHED_MODULES = ("builtins", "math", "numpy", "numpy.testing", "autogradkit.grading.checks")
TRANSFORMER_LISTS = ("input_transformers_cleanup", "input_transformers_post", "ast_transformers")
TRUSTED = ("IPython.", "ipykernel.", "matplotlib_inline.", "matplotlib.")  # inline figures...
MANAGED = {"input", "get_ipython", "exit", "quit", "display"}  # IPython swaps these per cell
MACHINERY = "autogradkit.grading"  # the check API: every module under it is watched whole
KIT = "autogradkit"  # its classes change as it runs (a check swaps a method for a while)
FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, type)  # what a module's patch replaces
CHANGES = {  # what reset reports: a kind, and a name that fills the sentence
    "shell_method": "the IPython shell's {} was replaced",
    "custom_exception": "a custom exception handler was set",
    "event": "a callback was registered on the {} event",
    "transformers": "the shell's {} were changed",
    "member": "{} was replaced",
    "module": "sys.modules[{!r}] was replaced",
    "check_name": "the name {} was rebound in the notebook",
    "global": "the name {} no longer held what the notebook imported as it",
    "key": "a key that is not a plain str was put among the names of {}",
}
_saved: dict = {}


def install(shell, imports: dict[str, str] | None = None) -> None:
    """Remember the clean state of ``shell`` and of the watched modules; ``imports`` maps the
    global names the notebook's own cells import to what they import (``{"np": "numpy",
    "isclose": "numpy.isclose"}``): those modules are watched too, and those names kept."""
    imports = dict(imports or {})
    watched = dict.fromkeys([*WATCHED_MODULES, *(_module_of(t) for t in imports.values())])
    _saved["shell"] = shell
    _saved["events"] = {name: list(found) for name, found in shell.events.callbacks.items()}
    _saved["lists"] = {name: list(getattr(shell, name)) for name in TRANSFORMER_LISTS}
    _saved["custom"] = (shell.custom_exceptions, shell.CustomTB)
    _saved["modules"] = {name: _members(name) for name in watched if name}
    _saved["module_objects"] = {name: sys.modules.get(name) for name in watched if name}
    _saved["shell_dict"] = set(vars(shell))
    _saved["machinery"] = _machinery()
    _saved["functions"] = _functions(_saved["machinery"])
    _saved["carriers"] = _carriers(shell)
    _saved["globals"] = {}
    for name, target in imports.items():
        found = _resolve(target)
        if found is not None:
            _saved["globals"][name] = found


def reset() -> list[list[str]]:
    """Restore everything ``install`` saw; return what had been changed, as [kind, name]."""
    found = _reset_keys() + _reset_shell(_saved["shell"]) + _reset_modules()
    for module_name, members in _saved["modules"].items():
        module = sys.modules.get(module_name)
        for name, original in members.items():
            if module is not None and getattr(module, name, None) is not original:
                setattr(module, name, original)
                found.append(["member", f"{module_name}.{name}"])
    namespace = _saved["shell"].user_ns
    found += _reset_machinery() + _reset_check_names(namespace) + _reset_globals(namespace)
    found += _reset_carriers(_saved["shell"])
    by_hand.end_spare()  # the next by-hand check starts its own (fork server or interpreter)
    return found


_removed: list = []  # keys taken out of namespaces, kept alive: no __del__ of theirs runs here


def _reset_keys() -> list[list[str]]:
    """Take every key that is not an exact ``str`` out of the namespaces names are looked up in
    (the notebook's, and each watched module's): a ``str`` subclass whose hash is a name's runs
    its ``__eq__`` at every lookup of that name, the test cell's and the checks' own, after this
    reset. Done first, and without comparing or hashing such a key."""
    found = []
    spaces = {"__main__": _saved["shell"].user_ns}
    modules = [sys.modules.get(name) for name in _saved["modules"]]
    modules += [owner for owner, _, _ in _saved["machinery"].values()]
    for module in modules:
        if type(module) is types.ModuleType:
            spaces.setdefault(module.__name__, vars(module))
    for name, namespace in spaces.items():
        if type(namespace) is dict and any(type(key) is not str for key in namespace):
            kept = [(key, value) for key, value in namespace.items() if type(key) is str]
            _removed.extend(key for key in namespace if type(key) is not str)
            namespace.clear()
            namespace.update(kept)
            found.append(["key", name])
    return found


def _machinery() -> dict[str, tuple[object, dict, str]]:
    """``{dotted name: (owner, its attributes, which added names reset removes)}``: each module
    of the check API and each checks module of the notebook with all its globals, each class
    and each check they hold with its own attributes, and each module they use with its public
    functions and classes (not IPython's hooks, which are other objects)."""
    found: dict[str, tuple[object, dict, str]] = {}
    for name, module in list(sys.modules.items()):
        if type(module) is not types.ModuleType:
            continue
        if name == MACHINERY or name.startswith(MACHINERY + "."):
            found[name] = (module, dict(vars(module)), "all")
        elif any(issubclass(type(value), Checks) for value in vars(module).values()):  # runs no
            # property of a foreign object (torch.distributed.reduce_op warns when read)
            found[name] = (module, dict(vars(module)), "builtins")  # hidden checks arrive later
        else:
            continue
        for attribute, value in vars(module).items():
            if isinstance(value, type) and value.__module__ != "builtins":
                dotted = f"{value.__module__}.{value.__qualname__}"
                found.setdefault(dotted, (value, dict(vars(value)), "all"))
            elif isinstance(value, Check):
                found.setdefault(f"{name}.{attribute}", (value, dict(vars(value)), "none"))
            elif isinstance(value, types.ModuleType) and value.__name__ not in found:
                found.update(_used(value, found))
    return found


def _used(module: types.ModuleType, found: dict) -> dict[str, tuple[object, dict, str]]:
    """A module the check API uses: its public functions and classes; outside the kit, the
    classes it defines too (private ones included), each with its own attributes."""
    members = {n: v for n, v in vars(module).items() if isinstance(v, FUNCTIONS)}
    used = {module.__name__: (module, {n: v for n, v in members.items() if n[0] != "_"}, "none")}
    if module.__name__.split(".")[0] == KIT:
        return used
    for value in members.values():
        if isinstance(value, type) and value.__module__ == module.__name__:
            dotted = f"{value.__module__}.{value.__qualname__}"
            if dotted not in found:
                used[dotted] = (value, dict(vars(value)), "none")
    return used


def _functions(machinery: dict) -> dict[str, tuple[types.FunctionType, dict]]:
    """``{dotted name: (function, its state)}`` for every function the watched attributes hold,
    directly, as a method's function or a property's, or in another function's closure."""
    found, seen = {}, set()
    for dotted, (_, attributes, _) in machinery.items():
        for name, value in attributes.items():
            for fn_name, fn in _inner_functions(f"{dotted}.{name}", value, seen):
                found[fn_name] = (fn, _state(fn))
    return found


def _inner_functions(name: str, value, seen: set):
    """``(name, function)`` for ``value`` and the functions inside it, each once."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        for part in ("fget", "fset", "fdel"):
            yield from _inner_functions(f"{name}.{part}", getattr(value, part), seen)
    if type(value) is not types.FunctionType or id(value) in seen:
        return
    seen.add(id(value))
    yield name, value
    for cell in value.__closure__ or ():
        yield from _inner_functions(f"{name}.__closure__", _contents(cell), seen)
    yield from _inner_functions(f"{name}.__wrapped__", vars(value).get("__wrapped__"), seen)


def _state(fn: types.FunctionType) -> dict:
    """What a function runs besides its name: its code, defaults and closure."""
    kwdefaults = fn.__kwdefaults__
    return {
        "__code__": fn.__code__,
        "__defaults__": fn.__defaults__,
        "__kwdefaults__": (kwdefaults, None if kwdefaults is None else dict(kwdefaults)),
        "__closure__": [_contents(cell) for cell in fn.__closure__ or ()],
    }


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _MISSING


def _reset_functions() -> list[list[str]]:
    """Put back each watched function's code, defaults and closure where they changed."""
    found = []
    for dotted, (fn, state) in _saved["functions"].items():
        now = _state(fn)
        for part, original in state.items():
            if part == "__kwdefaults__":
                same = now[part][0] is original[0] and _same_items(now[part][1], original[1])
            elif part == "__closure__":
                same = all(a is b for a, b in zip(now[part], original))
            else:
                same = now[part] is original
            if not same:
                _put_back(fn, part, original)
                found.append(["member", f"{dotted}.{part}"])
    return found


def _same_items(now: dict | None, original: dict | None) -> bool:
    if now is None or original is None:
        return now is original
    return now.keys() == original.keys() and all(now[k] is original[k] for k in original)


def _put_back(fn: types.FunctionType, part: str, original) -> None:
    if part == "__closure__":
        for cell, contents in zip(fn.__closure__ or (), original):
            if contents is _MISSING:
                with contextlib.suppress(ValueError):
                    del cell.cell_contents
            else:
                cell.cell_contents = contents
    elif part == "__kwdefaults__":
        fn.__kwdefaults__ = None if original[1] is None else dict(original[1])
    else:
        setattr(fn, part, original)


def _reset_machinery() -> list[list[str]]:
    """Put back every watched attribute of the check machinery; remove the ones added to its
    modules and classes (a global that shadows a built-in, a method that shadows a base's);
    then the watched functions' code, defaults and closures."""
    found = []
    for dotted, (owner, attributes, removes) in _saved["machinery"].items():
        now = vars(owner)
        changed = [n for n, original in attributes.items() if now.get(n, _MISSING) is not original]
        added = [n for n in now if n not in attributes and not n.startswith("__")]
        added = {"all": added, "builtins": [n for n in added if n in vars(builtins)]}.get(
            removes, []
        )
        for name in changed + added:
            try:
                if name in added:
                    delattr(owner, name)
                else:
                    setattr(owner, name, attributes[name])
            except (AttributeError, TypeError):  # a type that cannot change: reported all the same
                pass
            found.append(["member", f"{dotted}.{name}"])
    return found + _reset_functions()


_MISSING = object()


def _reset_modules() -> list[list[str]]:
    """Put back watched modules that were swapped in ``sys.modules`` (a fake checks module)."""
    found = []
    for name, original in _saved["module_objects"].items():
        if original is not None and sys.modules.get(name) is not original:
            sys.modules[name] = original
            found.append(["module", name])
    return found


def _reset_check_names(namespace: dict) -> list[list[str]]:
    """Rebind the check functions' names in the notebook to the real ones, if changed."""
    found, members = [], _saved["modules"]["autogradkit.grading.checks"]
    exported = getattr(_saved["module_objects"]["autogradkit.grading.checks"], "__all__", members)
    for name, original in members.items():
        if name in exported and name in namespace and namespace[name] is not original:
            namespace[name] = original
            found.append(["check_name", name])
    return found


def _reset_globals(namespace: dict) -> list[list[str]]:
    """Rebind the names the notebook's cells imported (``np``) to what they imported."""
    found = []
    for name, original in _saved["globals"].items():
        if name in namespace and namespace[name] is not original:
            namespace[name] = original
            found.append(["global", name])
    return found


def _module_of(target: str) -> str:
    """The module part of an import target: ``numpy.isclose`` -> ``numpy`` (if it is not a
    module itself)."""
    try:
        importlib.import_module(target)
        return target
    except Exception:  # noqa: BLE001 (not a module, or one that fails: its parent, if any)
        return target.rpartition(".")[0]


def _resolve(target: str):
    """The object an import of ``target`` binds (a module, or a module's member), or None."""
    try:
        return importlib.import_module(target)
    except Exception:  # noqa: BLE001 (a member, or a module that fails to import)
        module, _, member = target.rpartition(".")
        try:
            return getattr(importlib.import_module(module), member)
        except Exception:  # noqa: BLE001
            return None


CARRIERS = ("displayhook", "display_pub", "kernel")  # the shell's; and kernel.session
PLAIN = "text/plain"  # the formatter whose text is an ``assert`` cell's points
PRINTERS = ("type_printers", "deferred_printers", "singleton_printers")


def _carriers(shell) -> dict:
    """What a cell's value and its reply pass through on their way out, as ``install`` saw it:
    the objects (by the shell's attribute), their classes' and own attributes, and the plain
    text formatter's settings and printers."""
    owners = {name: getattr(shell, name, None) for name in CARRIERS}
    owners["kernel.session"] = getattr(owners["kernel"], "session", None)
    owners = {name: owner for name, owner in owners.items() if owner is not None}
    classes = {c for owner in owners.values() for c in type(owner).__mro__ if c is not object}
    plain = getattr(getattr(shell, "display_formatter", None), "formatters", {}).get(PLAIN)
    printers = _printers(plain)  # its printer tables are made as they are first read
    values = vars(plain).get("_trait_values", {}) if plain is not None else {}
    settings = {k: _copy(v) for k, v in values.items()}
    return {
        "owners": owners,
        "own": {name: dict(vars(owner)) for name, owner in owners.items()},
        "classes": {c: dict(vars(c)) for c in classes},
        "plain": (plain, settings, printers) if plain else None,
    }


def _printers(formatter) -> set[int]:
    return {id(p) for table in PRINTERS for p in getattr(formatter, table, {}).values()}


def _copy(value):
    """A table copied (a printer is added to it in place), any other value itself."""
    return dict(value) if isinstance(value, dict) else value


def _reset_carriers(shell) -> list[list[str]]:
    """Put back what ``_carriers`` saw; report each change (a replaced display hook, a method
    patched on its class or shadowed on the object, a new float printer, another format)."""
    saved, found = _saved["carriers"], []
    for name, owner in saved["owners"].items():
        holder, _, attribute = f"shell.{name}".rpartition(".")
        parent = shell if holder == "shell" else saved["owners"]["kernel"]
        if getattr(parent, attribute, None) is not owner:
            setattr(parent, attribute, owner)
            found.append(["member", f"shell.{name}"])
        for key, value in list(vars(owner).items()):
            before = saved["own"][name].get(key, _MISSING)
            if callable(value) and hasattr(type(owner), key) and value is not before:
                setattr(owner, key, before) if before is not _MISSING else delattr(owner, key)
                found.append(["member", f"shell.{name}.{key}"])
    return found + _reset_classes(saved["classes"]) + _reset_plain(shell, saved["plain"])


def _reset_classes(classes: dict) -> list[list[str]]:
    """Put back every attribute of the carriers' classes; remove the ones added."""
    found = []
    for cls, attributes in classes.items():
        now = vars(cls)
        changed = [n for n, v in attributes.items() if now.get(n, _MISSING) is not v]
        added = [n for n in now if n not in attributes and not n.startswith("__")]
        for key in changed + added:
            try:
                setattr(cls, key, attributes[key]) if key in attributes else delattr(cls, key)
            except (AttributeError, TypeError):  # a type that cannot change: reported all the same
                pass
            found.append(["member", f"{cls.__module__}.{cls.__qualname__}.{key}"])
    return found


def _reset_plain(shell, saved) -> list[list[str]]:
    """The plain text formatter as ``install`` saw it: the same object, the same settings, no
    printer it did not have (IPython moving a deferred printer to its types is no change)."""
    if saved is None:
        return []
    plain, values, printers = saved
    formatters, found = shell.display_formatter.formatters, []
    if formatters.get(PLAIN) is not plain:
        formatters[PLAIN] = plain
        found.append(["member", "shell.display_formatter.text_plain"])
    settings = {k: v for k, v in values.items() if k not in PRINTERS}
    changed = [k for k, v in settings.items() if plain._trait_values.get(k, _MISSING) != v]
    if changed or not _printers(plain) <= printers:
        for key in [*changed, *(k for k in PRINTERS if k in values)]:
            plain._trait_values[key] = _copy(values[key])
        found.append(["member", "shell.display_formatter.text_plain.printers"])
    return found


def _reset_shell(shell) -> list[list[str]]:
    found = []
    for name in set(vars(shell)) - _saved["shell_dict"]:
        if callable(vars(shell)[name]) and hasattr(type(shell), name):  # shadows a method
            delattr(shell, name)
            found.append(["shell_method", name])
    if (shell.custom_exceptions, shell.CustomTB) != _saved["custom"]:
        shell.custom_exceptions, shell.CustomTB = _saved["custom"]
        found.append(["custom_exception", ""])
    for event, callbacks in shell.events.callbacks.items():
        added = [c for c in callbacks if c not in _saved["events"].get(event, [])]
        if any(not _trusted(c) for c in added):
            callbacks[:] = [c for c in callbacks if c not in added or _trusted(c)]
            found.append(["event", event])
    for name, original in _saved["lists"].items():
        current = getattr(shell, name)
        if any(item not in original and not _trusted(item) for item in current):
            current[:] = [item for item in current if item in original or _trusted(item)]
            found.append(["transformers", name])
    return found


def _trusted(hook) -> bool:
    """A hook IPython or inline figures add themselves (matplotlib's ``flush_figures``)."""
    owner = getattr(hook, "__func__", hook)
    module = getattr(owner, "__module__", None) or type(hook).__module__ or ""
    return module.startswith(TRUSTED)


def _members(module_name: str) -> dict:
    """The module's public functions and classes (what a patch would replace)."""
    try:
        module = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 (a module that fails to import has nothing to patch)
        return {}
    members = {n: v for n, v in vars(module).items() if callable(v) and not n.startswith("_")}
    if module is builtins:
        members = {n: v for n, v in members.items() if n not in MANAGED}
        members["__import__"] = builtins.__import__
    return members
