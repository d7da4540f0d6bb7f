"""Hidden checks shipped to a grading kernel keep their source, as a cell's code does.

The by-hand interpreter rebuilds a check's trial from its source lines (``obs.without``); a
hidden check exec'd from a string had none, so every such check was refused when graded
(04 ex4's hidden ``steps_train`` scored 0 for the reference solution).
"""

from __future__ import annotations

import inspect
import sys
import types

from autogradkit_instructor.hidden import ship_code

HIDDEN = "def trial(answer):\n    return lambda x: answer(x) + 1\n"


def test_a_shipped_hidden_check_has_its_source(monkeypatch):
    module = types.ModuleType("checks_for_ship_test")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(ship_code({module.__name__: HIDDEN}, "checks.trial(f)"), {})
    assert module.trial(lambda x: 2 * x)(3) == 7
    assert inspect.getsource(module.trial).rstrip() == HIDDEN.rstrip()
