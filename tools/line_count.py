"""Count the code a student has to read, and check STYLE.md's budgets.

Counts non-blank lines that are neither comments nor docstrings, in four rooms (budgets
from issue 30):

- the lesson's path: the files ``a * b`` and ``c.sum().backward()`` run through
  (``tools/trace_path.py`` traces them; ``tests/autograd/test_lesson_path.py`` checks that
  ``PATH`` names exactly those), at most 1,000 lines;
- the core: tensor.py and the classes it is built from (``_tensor_*.py``, ``_inplace.py``,
  ``_numpy_dispatch.py``), what it delegates to (_indexing.py, _matmul.py),
  autograd/ and ops/: every module of those layers a core module imports is core
  (``tests/test_style.py`` checks it); at most 3,000 lines. The core is what Tensor and the
  engine need to record and differentiate the tensor's own operations;
- beside the core, counted apart: a module is beside the core when no core module imports
  it and the lesson never runs it; it is reached only through the public API (the package
  root, and ``autograd/__init__.py``, which exports PyTorch's names) or a hook the core
  offers (``tests/test_style.py`` fails when a core module imports one):
  anomaly mode (``autograd/anomaly_mode.py``, whose checks the engine runs through
  ``grad_mode.anomaly`` while it is on), your own Functions (``autograd/custom_function.py``,
  whose ``Function`` overrides the engine's ``_run_custom``, and ``autograd/function.py``,
  PyTorch's module name for it),
  ``autograd/functional.py`` and ``autograd/gradcheck.py`` (built on ``autograd.grad``),
  ``autograd/graph.py`` (``torch.autograd.graph``'s walks, edges and ``saved_tensors_hooks``,
  which push onto the engine's ``pack_hooks``), ``autograd/observer.py`` (``observe`` blocks,
  which put their watcher on the engine's ``watchers``) and ``autograd/saved_fields.py``
  (``grad_fn._saved_self``, ``grad_fn._raw_saved_self``, pack hooks and what ``dir(grad_fn)``
  lists: the package root gives each op its fields once every op is made),
  ``autograd/targets.py`` (backward toward chosen tensors: ``autograd.grad``, exported by
  ``autograd/__init__.py``, and ``backward(inputs=...)``, whose ``Targets`` it puts in the
  engine's ``Targets`` hook when it loads), and PyTorch's legacy constructors and types
  (``_legacy.py``: ``Tensor(data)`` runs its ``new`` through ``Tensor._legacy_new``, and
  ``t.type()``, the legacy type names, is the ``legacy_type`` it puts on ``Tensor`` when it
  loads, where ``_tensor_conversion.py`` says so), and in-place ops through views
  (``_inplace_views.py``: ``CopySlices`` and ``AsStridedBackward0``, which ``_inplace.py``'s
  ``inplace`` runs through the hooks ``inplace_on_view`` and ``remake_views``, filled when
  it loads);
- nn's own ops, counted apart: an op that exists only for a higher layer lives in that layer,
  so the ops only ``nn.functional`` records (addmm, convolution, pooling, the losses,
  leaky_relu) are in ``nn/ops/``, written as ops/ files are (``tests/test_style.py`` checks
  that they import only the core).

Budgets that fail the check: the core <= 3,000 code lines and the lesson's path <= 1,000;
engine.py <= 1,200 lines (whole file: TensorBase, the graph's
nodes and AccumulateGrad, Function.apply and its ctx, backward(): everything the
lesson's two lines touch but the op's own math, in one file), each
ops/ and nn/ops/ file <= 300 lines (whole file), function bodies <= 40 lines (longer ones must
say why in a ``# long:`` comment on their ``def`` line or their first line). Exit code 1 when a
budget is broken.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "autogradkit"
TOOLCHAIN = ROOT.parent / "autogradkit_instructor"  # the function budget holds there too
CORE = ["tensor.py", "_tensor_math.py", "_tensor_movement.py", "_tensor_conversion.py"]
CORE += ["_tensor_comparison.py", "_inplace.py", "_numpy_dispatch.py", "_indexing.py"]
CORE += ["_matmul.py", "autograd", "ops"]  # closed under imports, base aside
BESIDE = [  # no core module imports them (bar autograd/__init__.py); the lesson never runs them
    "autograd/anomaly_mode.py",
    "autograd/custom_function.py",
    "autograd/function.py",
    "autograd/functional.py",
    "autograd/gradcheck.py",
    "autograd/graph.py",
    "autograd/observer.py",
    "autograd/saved_fields.py",
    "autograd/targets.py",
    "_legacy.py",
    "_inplace_views.py",
]
NN_OPS = "nn/ops"  # the ops only nn records: nn's room, written (and budgeted) as ops/ is
PATH = ["tensor.py", "autograd/engine.py", "ops/arithmetic.py"]
PATH_BUDGET, CORE_BUDGET = 1000, 3000  # code lines (issue 30)
ENGINE_BUDGET, OPS_FILE_BUDGET, FUNCTION_BUDGET = 1200, 300, 40


def code_lines(path: Path) -> int:
    """Lines that are code: not blank, not a comment, not part of a docstring."""
    source = path.read_text()
    docstring_lines = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(getattr(body[0], "value", None), ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            docstring_lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in docstring_lines
    )


def long_functions(path: Path):
    """Functions over the budget whose first body line is not a comment saying why.

    A function's length is its body without the docstring: the formatter puts each parameter
    of a long signature on its own line, and that is not code a reader has to follow.
    """
    lines = path.read_text().splitlines()
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            first = body[0].lineno if body else node.end_lineno
            length = node.end_lineno - first + 1
            header = lines[node.lineno - 1 : node.body[0].lineno]  # the def, up to its body
            said_why = any("# long:" in line for line in header)
            if length > FUNCTION_BUDGET and not said_why:
                yield node.name, node.lineno, length


def core_files():
    beside = {ROOT / entry for entry in BESIDE}
    for entry in CORE:
        path = ROOT / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        yield from (file for file in files if file not in beside)


def _total(name: str, total: int, budget: int, problems: list) -> None:
    print(f"{total:6d}  {name} (budget {budget})")
    if total > budget:
        problems.append(f"{name}: {total} code lines (budget {budget})")


def report() -> list[str]:
    problems = []
    total = 0
    for path in core_files():
        count = code_lines(path)
        total += count
        whole = len(path.read_text().splitlines())
        print(f"{count:6d}  {path.relative_to(ROOT.parent)}")
        if path.name == "engine.py" and whole > ENGINE_BUDGET:
            problems.append(f"engine.py has {whole} lines (budget {ENGINE_BUDGET})")
        if path.parent.name == "ops" and whole > OPS_FILE_BUDGET:
            problems.append(f"{path.name} has {whole} lines (budget {OPS_FILE_BUDGET})")
    _total("core total", total, CORE_BUDGET, problems)
    path_total = sum(code_lines(ROOT / p) for p in PATH)
    _total("the lesson's path: " + ", ".join(PATH), path_total, PATH_BUDGET, problems)
    beside = sum(code_lines(ROOT / p) for p in BESIDE)
    print(f"{beside:6d}  beside the core: {', '.join(BESIDE)}")
    nn_ops = sorted((ROOT / NN_OPS).glob("*.py"))
    for path in nn_ops:
        whole = len(path.read_text().splitlines())
        if whole > OPS_FILE_BUDGET:
            problems.append(f"{NN_OPS}/{path.name} has {whole} lines (budget {OPS_FILE_BUDGET})")
    print(f"{sum(map(code_lines, nn_ops)):6d}  nn's own ops, in nn's room: {NN_OPS}/*.py")
    for path in sorted([*ROOT.rglob("*.py"), *TOOLCHAIN.rglob("*.py")]):
        for name, line, length in long_functions(path):
            problems.append(f"{path.relative_to(ROOT.parent)}:{line} {name}() has {length} lines")
    return problems


def main() -> int:
    problems = report()
    for problem in problems:
        print("over budget:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
