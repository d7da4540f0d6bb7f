"""STYLE.md's hard budgets: the core's and the lesson's path's code lines, engine.py, each ops/
file, and every function's length."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import line_count  # noqa: E402


def test_code_stays_within_the_style_budgets(capsys):
    problems = line_count.report()
    assert problems == []


def test_the_core_and_the_path_fail_the_check_over_their_budgets(monkeypatch, capsys):
    """Issue 30's two totals are budgets, not figures printed and forgotten."""
    monkeypatch.setattr(line_count, "CORE_BUDGET", 2000)
    monkeypatch.setattr(line_count, "PATH_BUDGET", 500)
    problems = line_count.report()
    assert any(p.startswith("core total:") for p in problems)
    assert any(p.startswith("the lesson's path:") for p in problems)


def test_the_package_never_imports_torch():
    root = Path(__file__).resolve().parent.parent
    offenders = [
        str(p)
        for folder in ("autogradkit", "autogradkit_instructor")
        for p in (root / folder).rglob("*.py")
        if any(
            line.strip().startswith(("import torch", "from torch"))
            for line in p.read_text().splitlines()
        )
    ]
    assert offenders == []


# ----- import layers ------------------------------------------------------------------------------
# Issue 20's layers, lowest first: a module imports (at its top level) only from its own layer
# or a lower one, and the top-level imports between modules form no cycle. (An AST test
# rather than import-linter: it needs no new dependency, and it tells top-level imports,
# which must follow the layers, from the few
# function-local ones, which are counted below and each must say why.)
PACKAGE = Path(__file__).resolve().parent.parent / "autogradkit"


def _subpackage(name: str) -> set[str]:
    """Every module of the subpackage ``name``, itself included (``viz``, ``viz.draw``...)."""
    found = {name}
    for path in (PACKAGE / name).rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


LAYERS = {
    "base": {
        "_shape",
        "_dtype",
        "_device",
        "_tensor_str",
        "random",
        "cuda",
        "utils",
        "utils.hooks",
        "utils._contextlib",
        "_i18n",  # the kit's words in the notebook's language (viz and grading use it)
    },
    "autograd": {"autograd", "autograd.grad_mode", "autograd.anomaly_mode", "autograd.graph"}
    | {"autograd.saved", "autograd.engine", "autograd.function", "autograd.gradcheck"}
    | {"autograd.observer", "autograd.variable", "autograd.custom_function", "autograd.hooks"}
    | {"autograd.targets", "autograd.outputs"}
    | {"autograd.saved_fields"},
    "ops": {"ops"} | {f"ops.{p.stem}" for p in (PACKAGE / "ops").glob("[!_]*.py")},
    "tensor": {"tensor", "_inplace", "_matmul", "_indexing", "_numpy_dispatch", "_legacy"}
    | {"_inplace_views"}
    | {"_tensor_math", "_tensor_movement", "_tensor_conversion", "_tensor_comparison"}
    | {"_functions", "creation", "autograd.functional"},
    "nn/optim": _subpackage("nn") | _subpackage("optim"),  # nn/ops/: the ops only nn records
    "package": {""},  # autogradkit/__init__.py: agk.tensor, agk.nn... (viz writes agk.)
    "viz": _subpackage("viz"),
    "grading": _subpackage("grading"),  # the kernel's side; the toolchain is TOOLCHAIN, above
    "program": {"__main__"},  # `python -m autogradkit`: says where the instructor's commands are
}
ORDER = list(LAYERS)
LAYER_OF = {module: ORDER.index(layer) for layer, modules in LAYERS.items() for module in modules}
MAX_LOCAL_IMPORTS = 5  # of the package's own modules, in the whole package


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = PACKAGE.joinpath(*name.split(".")) if name else PACKAGE
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imported(node, module: str, is_package: bool) -> set[str]:
    """The package modules an import statement loads (relative to the package root)."""
    if isinstance(node, ast.Import):
        return {a.name.removeprefix("autogradkit").lstrip(".") for a in node.names} & _ALL
    if node.level:
        parts = module.split(".") if module else []
        base = parts[: len(parts) - node.level + (1 if is_package else 0)]
        source = ".".join(base + ([node.module] if node.module else []))
    elif node.module and node.module.split(".")[0] == "autogradkit":
        source = node.module.removeprefix("autogradkit").lstrip(".")
    else:
        return set()
    names = {f"{source}.{a.name}".lstrip(".") for a in node.names}
    found = {n for n in names if _is_module(n)}
    if found != names and source:  # attributes of a module: the module itself
        found.add(source)
    # loading a module loads the packages above it first, except the importer's own (which
    # are loading already: ``from . import engine`` in autograd/function.py uses no name of
    # autograd/__init__.py)
    parents = {".".join(n.split(".")[:i]) for n in found for i in range(1, n.count(".") + 1)}
    own = {".".join(module.split(".")[:i]) for i in range(module.count(".") + 2)}
    return (found | parents - own) - {""}


_FILES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
_ALL = set(_FILES)


def _imports(name: str) -> tuple[set[str], list[tuple[int, str]]]:
    """(modules imported at the top level, function-local imports as (line, text))."""
    path = _FILES[name]
    source = path.read_text()
    tree = ast.parse(source)
    is_package = path.name == "__init__.py"
    top, local = set(), []
    functions = [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    inside = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    lines = source.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if id(node) in inside:
                local.append((node.lineno, lines[node.lineno - 1].strip()))
            elif not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
                top |= _imported(node, name, is_package) - {name}
    return top, local


def test_top_level_imports_go_down_the_layers_only():
    wrong = []
    for module, layer in LAYER_OF.items():
        top, _ = _imports(module)
        for imported in sorted(top):
            if LAYER_OF.get(imported, len(ORDER)) > layer:
                wrong.append(f"{module} ({ORDER[layer]}) imports {imported}")
    assert wrong == []


def _modules_nn_ops_imports_above_the_core() -> dict[str, list[str]]:
    above = {m for m, layer in LAYER_OF.items() if layer > ORDER.index("ops")}
    nn_ops = {m for m in LAYER_OF if m == "nn.ops" or m.startswith("nn.ops.")}
    found = {m: sorted(_imports(m)[0] & above - nn_ops) for m in sorted(nn_ops)}
    return {m: names for m, names in found.items() if names}


def test_nn_ops_import_only_the_core():
    """nn's own ops (``nn/ops/``) are written as the core's are: arrays in, arrays out, on the
    engine's ``Function`` and the core's ops. They sit in nn's room because only nn records
    them, and they import nothing of it (no Tensor, no Module), so moving one back down would
    change no line of it."""
    assert _modules_nn_ops_imports_above_the_core() == {}


def test_the_nn_ops_rule_sees_an_import_of_the_tensor(tmp_path, monkeypatch):
    fake = tmp_path / "loss.py"
    fake.write_text("from ...autograd.engine import Function\nfrom ...tensor import Tensor\n")
    monkeypatch.setitem(_FILES, "nn.ops.loss", fake)
    assert _modules_nn_ops_imports_above_the_core() == {"nn.ops.loss": ["tensor"]}


def _local_imports_of(name: str) -> list[tuple[int, set[str]]]:
    """The package modules each function-local import of ``name`` loads, with its line."""
    path = _FILES[name]
    tree = ast.parse(path.read_text())
    functions = [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    found = []
    for f in functions:
        for node in ast.walk(f):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append((node.lineno, _imported(node, name, path.name == "__init__.py")))
    return found


# Lookups at run time that no import statement at the top shows, allowed where named here:
# the package root loads agk.viz and agk.grading at their first use (they are optional
# extras' users). No frame is read below viz (nn's warnings count their stacklevel on the
# call structure).
RUNTIME_LOOKUPS_ALLOWED = {("", "importlib")}
RUNTIME_LOOKUPS = {"importlib", "__import__", "_getframe", "currentframe", "f_locals"}


def _lookup_word(node) -> str | None:
    """``importlib``, ``sys.modules``, ``sys._getframe``...: what a run-time lookup says."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        sys_modules = node.attr == "modules" and getattr(node.value, "id", None) == "sys"
        return "sys.modules" if sys_modules else node.attr
    return None


def test_no_run_time_lookup_of_a_higher_layer():
    """Issue 30: a lower layer never looks a higher one up while it runs (a function-local
    import, ``importlib``, ``sys.modules``) nor reads frames (``sys._getframe``, ``f_locals``):
    where it must tell a higher layer something, it offers a hook (the engine's observer)."""
    wrong = []
    for module, layer in sorted(LAYER_OF.items()):
        for line, loaded in _local_imports_of(module):
            for target in sorted(loaded):
                if LAYER_OF.get(target, len(ORDER)) > layer:
                    wrong.append(f"{module}:{line} imports {target} while it runs")
        if ORDER[layer] in ("viz", "grading"):
            continue  # the top: nothing above to look up (viz reads the caller's own names)
        tree = ast.parse(_FILES[module].read_text())
        for node in ast.walk(tree):
            word = _lookup_word(node)
            if (
                word in RUNTIME_LOOKUPS | {"sys.modules"}
                and (module, word) not in RUNTIME_LOOKUPS_ALLOWED
            ):
                wrong.append(f"{module}:{node.lineno} {word}")
    assert wrong == []


def test_the_run_time_lookup_test_sees_a_tensor_class_lookup(tmp_path, monkeypatch):
    """The shortcut issue 30 removed (``graph.tensor_class()``, importing tensor.py when first
    called) would fail the test above."""
    fake = tmp_path / "graph.py"
    fake.write_text(
        "def tensor_class():\n    from ..tensor import Tensor  # up a layer\n    return Tensor\n"
    )
    monkeypatch.setitem(_FILES, "autograd.graph", fake)
    lines = _local_imports_of("autograd.graph")
    assert lines == [(2, {"tensor"})]
    assert LAYER_OF["tensor"] > LAYER_OF["autograd.graph"]


# The public namespace that exports PyTorch's autograd names (torch.autograd.grad, .graph,
# .gradcheck): the one core module allowed to import what is counted beside the core.
PUBLIC_NAMESPACES = {"autograd"}


def _core_modules_importing_beside() -> dict[str, list[str]]:
    beside = {p.removesuffix(".py").replace("/", ".") for p in line_count.BESIDE}
    core = {_module_name(p) for p in line_count.core_files()} - beside - PUBLIC_NAMESPACES
    found = {m: sorted(_imports(m)[0] & beside) for m in sorted(core)}
    return {m: names for m, names in found.items() if names}


def test_the_core_never_imports_what_is_counted_beside_it():
    """tools/line_count.py's rule: a module is beside the core when no core module imports it
    and the lesson never runs it (``PATH`` names no such file): it is reached only through
    the public API (the package root, ``autograd/__init__.py``) or a hook the core offers
    (``saved_tensors_hooks`` pushes onto the engine's ``pack_hooks``; the package root gives
    the ops their ``_saved_<name>`` fields)."""
    assert _core_modules_importing_beside() == {}
    assert set(line_count.PATH) & set(line_count.BESIDE) == set()


def test_the_core_counts_every_module_of_its_layers_it_imports():
    """The other side of the rule: what a core module imports from autograd, ops or the
    tensor facade is core too (counted), not left out of both rooms."""
    beside = {p.removesuffix(".py").replace("/", ".") for p in line_count.BESIDE}
    core = {_module_name(p) for p in line_count.core_files()}
    layers = {ORDER.index(name) for name in ("autograd", "ops", "tensor")}
    left_out = {
        m: sorted(i for i in _imports(m)[0] if LAYER_OF.get(i) in layers and i not in core)
        for m in sorted(core - beside - PUBLIC_NAMESPACES)
    }
    assert {m: found for m, found in left_out.items() if found} == {}


def test_the_beside_rule_sees_a_core_module_importing_a_beside_one(tmp_path, monkeypatch):
    """What ops/__init__.py did before: giving the ops their fields by importing saved_fields."""
    fake = tmp_path / "__init__.py"
    fake.write_text("from ..autograd import saved_fields\nfrom . import arithmetic\n")
    monkeypatch.setitem(_FILES, "ops", fake)
    assert _core_modules_importing_beside() == {"ops": ["autograd.saved_fields"]}


def test_autograd_touches_no_private_attribute_of_another_layer():
    """Every ``x._name`` autograd reads or writes is one autograd itself defines (a slot, a
    method, an attribute it assigns): TensorBase's state is autograd's own (issue 30)."""
    defined, used = set(), []
    files = [_FILES[m] for m in sorted(LAYERS["autograd"]) if m != "autograd"]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                defined.add(node.attr)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined |= {t.id for t in targets if isinstance(t, ast.Name)}
                if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets):
                    defined |= {
                        c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)
                    }
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                if not node.attr.endswith("__"):
                    used.append((path.name, node.lineno, node.attr))
    assert [u for u in used if u[2] not in defined] == []


# ----- the instructor's toolchain sits above the whole package -------------------------------
# autogradkit_instructor (the CLI, build/release, the grader, its sandboxes) imports autogradkit;
# autogradkit never names it: not in an import, and not in any string or name its code holds,
# which is what every run-time lookup needs (importlib, __import__, sys.modules, a
# ``python -m`` of it). A student's kernel and a base install never load it.
TOOLCHAIN = "autogradkit_instructor"


def _names_of_the_toolchain(path: Path) -> list[str]:
    """Where ``path``'s code (docstrings aside) names the toolchain: ``line: what``."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            words = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            words = [node.module or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = [] if id(node) in docstrings else [node.value]
        elif isinstance(node, (ast.Name, ast.Attribute)):
            words = [getattr(node, "id", None) or getattr(node, "attr", "")]
        else:
            continue
        found += [f"{node.lineno}: {word!r}" for word in words if TOOLCHAIN in word]
    return found


def test_the_package_never_names_the_instructor_toolchain():
    found = {
        str(path.relative_to(PACKAGE.parent)): where
        for path in sorted(PACKAGE.rglob("*.py"))
        if (where := _names_of_the_toolchain(path))
    }
    assert found == {}


def test_the_toolchain_test_sees_an_import_and_a_run_time_lookup(tmp_path):
    fake = tmp_path / "checks.py"
    fake.write_text(
        '"""Docstrings may name autogradkit_instructor."""\n'
        "import importlib\n"
        "from autogradkit_instructor import cells\n"
        "def later():\n"
        "    return importlib.import_module('autogradkit_instructor.cli')\n"
    )
    assert _names_of_the_toolchain(fake) == [
        "3: 'autogradkit_instructor'",
        "5: 'autogradkit_instructor.cli'",
    ]


STUDENT_SIDE = """\
import importlib.util, json, sys
import autogradkit as agk
import autogradkit.grading, autogradkit.grading.guard, autogradkit.nn, autogradkit.optim
import autogradkit.viz
x = agk.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
for path in sys.argv[1:]:  # each notebook's checks.py, as its kernel imports it
    spec = importlib.util.spec_from_file_location("checks", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(json.dumps({"grad": x.grad.tolist(), "loaded": sorted(sys.modules)}))
"""


def test_a_student_kernel_loads_none_of_the_toolchain(tmp_path):
    """The kit, its viz, and every released notebook's checks.py import without loading one
    module of the toolchain (in a fresh Python, from a folder that is not the checkout)."""
    import json
    import subprocess

    checks = sorted((PACKAGE.parent / "notebooks" / "release").glob("*/checks.py"))
    assert len(checks) >= 8
    argv = [sys.executable, "-c", STUDENT_SIDE, *map(str, checks)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["grad"] == [2.0, 4.0]
    assert "autogradkit.grading.checks" in found["loaded"]
    assert [m for m in found["loaded"] if m.split(".")[0] == TOOLCHAIN] == []


def test_every_module_has_a_layer():
    assert _ALL - set(LAYER_OF) == set()


def test_top_level_imports_form_no_cycle():
    graph = {m: _imports(m)[0] & set(LAYER_OF) for m in LAYER_OF}
    state, cycles = {}, []
    for start in sorted(graph):  # iterative depth-first search, colouring on the way
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state.setdefault(start, "open")
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = "done"
                stack.pop()
                path.pop()
            elif state.get(child) == "open":
                cycles.append(path[path.index(child) :] + [child])
            elif child not in state:
                state[child] = "open"
                stack.append((child, iter(sorted(graph[child]))))
                path.append(child)
    assert cycles == []


def _local_imports() -> list[tuple[str, int, str]]:
    return [(m, line, text) for m in sorted(LAYER_OF) for line, text in _imports(m)[1]]


def _top_module(text: str) -> str:
    """``from matplotlib.patches import X`` -> matplotlib; ``from .cluster import g`` -> ""."""
    words = text.split()
    return words[1].split(".")[0] if words[1][0] != "." else ""


def test_few_function_local_imports_of_the_package_each_with_a_reason():
    """A function-local import of the package's own code dodges a cycle or a layer: at most
    five, each saying why on its line."""
    own = [f for f in _local_imports() if _top_module(f[2]) in ("", "autogradkit")]
    assert len(own) <= MAX_LOCAL_IMPORTS, own
    assert [f for f in own if "#" not in f[2]] == []


def test_function_local_imports_are_of_optional_dependencies_only():
    """The standard library and NumPy are imported at the top. Only an optional dependency
    (matplotlib, ipywidgets, IPython, Babel, dask: extras a NumPy-only install lacks) may load
    in the function that needs it."""
    import sys

    core = set(sys.stdlib_module_names) | {"numpy"}
    assert [f for f in _local_imports() if _top_module(f[2]) in core] == []


def test_every_public_module_of_the_core_has_all():
    import importlib

    missing, unknown = [], []
    for name in sorted(LAYER_OF):
        if not name or any(part.startswith("_") for part in name.split(".")):
            continue
        module = importlib.import_module(f"autogradkit.{name}")
        names = getattr(module, "__all__", None)
        if names is None:
            missing.append(name)
        else:
            unknown += [f"{name}.{n}" for n in names if not hasattr(module, n)]
    assert (missing, unknown) == ([], [])


def test_nn_and_optim_use_no_private_tensor_attribute():
    """nn and optim use tensors as a user does (``Parameter`` subclasses through
    ``Tensor._make_subclass``, as PyTorch's does)."""
    from autogradkit.tensor import Tensor

    private = {n for n in dir(Tensor) if n.startswith("_") and not n.endswith("__")}
    private |= {n for n in Tensor.__slots__ if not n.endswith("__")}
    private -= {"_make_subclass"}
    found = []
    for folder in ("nn", "optim"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr in private:
                    owner = node.value.id if isinstance(node.value, ast.Name) else "..."
                    if owner not in ("self", "cls") or folder == "optim":
                        found.append(f"{folder}/{path.name}:{node.lineno} {owner}.{node.attr}")
    assert found == []
