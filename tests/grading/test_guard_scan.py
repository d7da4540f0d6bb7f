"""The guard's scan of every loaded module runs none of their code.

Before each graded cell the guard looks through ``sys.modules`` for the notebook's checks
modules. A module a student imported may hold objects whose ``__class__`` is a property:
torch's ``torch.distributed.reduce_op`` warns when it is read, so a student who imported
torch to compare saw a ``FutureWarning`` from the kit under each graded cell; a student's
own object could run code there. The scan asks ``type(value)``, which runs nothing.
"""

from __future__ import annotations

import sys
import types
import warnings

from autogradkit.grading import guard


class _Loud:
    """An object whose ``__class__`` speaks when read, as torch's deprecated aliases do."""

    reads = 0

    @property
    def __class__(self):
        type(self).reads += 1
        warnings.warn("read __class__", FutureWarning, stacklevel=2)
        return _Loud


def test_the_scan_of_loaded_modules_reads_no_class_property(monkeypatch):
    module = types.ModuleType("a_student_import")
    module.loud = _Loud()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = guard._machinery()
    assert _Loud.reads == 0
    assert "a_student_import" not in found  # a module holding no Checks is not machinery
