"""Inside a grading kernel: undo and report what student code did to the test machinery.

The grader installs this before any student cell runs (``install``), then calls ``reset``
before every test cell. ``reset`` puts back what it saw at install time and returns one
sentence per thing it found changed:

* IPython hooks that hide errors: an instance ``showtraceback`` (or other shell method), a
  custom exception handler, callbacks on ``pre_run_cell``/``post_run_cell``/... events;
* input and AST transformers, which could rewrite the test cells that come later;
* replaced functions in ``builtins``, ``numpy``, ``numpy.testing``, ``math`` and the kit's
  ``checks`` module (a patched ``numpy.allclose`` passes everything), those modules swapped in
  ``sys.modules``, and names of check functions rebound in the notebook (``check_close = ...``).

This is detection in the student's own interpreter, so it is best effort: code that runs
before the guard looks, or that patches the guard itself, is not caught. What it finds marks
the row "needs review" in the gradebook. See "Security model" in docs/instructor_guide.md.
"""

from __future__ import annotations

import builtins
import importlib
import sys

__all__ = ["WATCHED_MODULES", "TRANSFORMER_LISTS", "TRUSTED", "MANAGED", "install", "reset"]

WATCHED_MODULES = ("builtins", "math", "numpy", "numpy.testing", "autogradkit.grading.checks")
TRANSFORMER_LISTS = ("input_transformers_cleanup", "input_transformers_post", "ast_transformers")
TRUSTED = ("IPython.", "ipykernel.", "matplotlib_inline.", "matplotlib.")  # inline figures...
MANAGED = {"input", "get_ipython", "exit", "quit", "display"}  # IPython swaps these per cell
_saved: dict = {}


def install(shell) -> None:
    """Remember the clean state of ``shell`` and of the watched modules."""
    _saved["shell"] = shell
    _saved["events"] = {name: list(found) for name, found in shell.events.callbacks.items()}
    _saved["lists"] = {name: list(getattr(shell, name)) for name in TRANSFORMER_LISTS}
    _saved["custom"] = (shell.custom_exceptions, shell.CustomTB)
    _saved["modules"] = {name: _members(name) for name in WATCHED_MODULES}
    _saved["module_objects"] = {name: sys.modules.get(name) for name in WATCHED_MODULES}
    _saved["shell_dict"] = set(vars(shell))


def reset() -> list[str]:
    """Restore everything ``install`` saw; return what had been changed, in words."""
    found = _reset_shell(_saved["shell"]) + _reset_modules()
    for module_name, members in _saved["modules"].items():
        module = sys.modules.get(module_name)
        for name, original in members.items():
            if module is not None and getattr(module, name, None) is not original:
                setattr(module, name, original)
                found.append(f"{module_name}.{name} was replaced")
    return found + _reset_check_names(_saved["shell"].user_ns)


def _reset_modules() -> list[str]:
    """Put back watched modules that were swapped in ``sys.modules`` (a fake checks module)."""
    found = []
    for name, original in _saved["module_objects"].items():
        if original is not None and sys.modules.get(name) is not original:
            sys.modules[name] = original
            found.append(f"sys.modules[{name!r}] was replaced")
    return found


def _reset_check_names(namespace: dict) -> list[str]:
    """Rebind the check functions' names in the notebook to the real ones, if changed."""
    found, members = [], _saved["modules"]["autogradkit.grading.checks"]
    exported = getattr(_saved["module_objects"]["autogradkit.grading.checks"], "__all__", members)
    for name, original in members.items():
        if name in exported and name in namespace and namespace[name] is not original:
            namespace[name] = original
            found.append(f"the name {name} was rebound in the notebook")
    return found


def _reset_shell(shell) -> list[str]:
    found = []
    for name in set(vars(shell)) - _saved["shell_dict"]:
        if callable(vars(shell)[name]) and hasattr(type(shell), name):  # shadows a method
            delattr(shell, name)
            found.append(f"the IPython shell's {name} was replaced")
    if (shell.custom_exceptions, shell.CustomTB) != _saved["custom"]:
        shell.custom_exceptions, shell.CustomTB = _saved["custom"]
        found.append("a custom exception handler was set")
    for event, callbacks in shell.events.callbacks.items():
        added = [c for c in callbacks if c not in _saved["events"].get(event, [])]
        if any(not _trusted(c) for c in added):
            callbacks[:] = [c for c in callbacks if c not in added or _trusted(c)]
            found.append(f"a callback was registered on the {event} event")
    for name, original in _saved["lists"].items():
        current = getattr(shell, name)
        if any(item not in original and not _trusted(item) for item in current):
            current[:] = [item for item in current if item in original or _trusted(item)]
            found.append(f"the shell's {name} were changed")
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
    except ImportError:
        return {}
    members = {n: v for n, v in vars(module).items() if callable(v) and not n.startswith("_")}
    if module is builtins:
        members = {n: v for n, v in members.items() if n not in MANAGED}
        members["__import__"] = builtins.__import__
    return members
