"""Issue 30's rule for ``ops/``: the core holds what Tensor and the engine need to record and
differentiate the tensor's own operations. An op only a higher layer records lives in that
layer (nn's in ``nn/ops/``), so every op class and helper of ``ops/`` is reached from the
rest of the core: a Tensor method, the engine, or another op the core reaches."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import line_count  # noqa: E402


def _names_used(node: ast.AST) -> set[str]:
    """Every name and attribute a piece of code mentions (``linalg.MmBackward0``: both)."""
    found = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, ast.Attribute):
            found.add(child.attr)
    return found


def ops_no_core_module_reaches(ops_files, other_core_files) -> list[str]:
    """The classes and helpers of ``ops_files`` that nothing in ``other_core_files`` reaches,
    directly or through the classes and helpers of ``ops/`` it reaches."""
    uses = {}  # each top-level class or function of ops/: the names its code mentions
    for path in ops_files:
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                uses[node.name] = _names_used(node)
    reached, todo = set(), set()
    for path in other_core_files:
        todo |= _names_used(ast.parse(path.read_text())) & set(uses)
    while todo:
        name = todo.pop()
        reached.add(name)
        todo |= (uses[name] & set(uses)) - reached
    return sorted(set(uses) - reached)


def _split_core():
    ops_dir = line_count.ROOT / "ops"
    files = list(line_count.core_files())
    return [f for f in files if f.parent == ops_dir], [f for f in files if f.parent != ops_dir]


def test_every_op_of_the_core_is_reached_from_the_rest_of_the_core():
    ops_files, other = _split_core()
    assert len(ops_files) > 10 and len(other) > 10
    assert ops_no_core_module_reaches(ops_files, other) == []


def test_the_rule_sees_an_op_only_nn_records(tmp_path):
    """What ops/conv.py was before issue 30: ``ConvolutionBackward0`` and the two ops its
    backward calls, reached only from ``nn/functional.py``."""
    ops_files, other = _split_core()
    conv = tmp_path / "conv.py"
    conv.write_text(
        "from .indexing import IndexPutBackward0\n"
        "class ConvolutionBackward0(Function):\n"
        "    def backward(ctx, g):\n"
        "        return ConvolutionInputGradBackward0.call(g), IndexPutBackward0.call(g)\n"
        "class ConvolutionInputGradBackward0(Function):\n"
        "    def forward(ctx, g, w):\n"
        "        return _spread(g, w)\n"
        "def _spread(g, w):\n"
        "    return g\n"
    )
    found = ops_no_core_module_reaches([*ops_files, conv], other)
    assert found == ["ConvolutionBackward0", "ConvolutionInputGradBackward0", "_spread"]
