"""The guard's scan of every loaded module runs none of their code.

Before each graded cell the guard looks through ``sys.modules`` for the notebook's checks
modules. A module a student imported may hold objects whose ``__class__`` is a property:
torch's ``torch.distributed.reduce_op`` warns when it is read, so a student who imported
torch to compare saw a ``FutureWarning`` from the kit under each graded cell; a student's
own object could run code there. The scan asks ``type(value)``, which runs nothing.
"""

from __future__ import annotations

import subprocess
import sys

# in a fresh interpreter, as in a kernel: only the kit's modules and the student's one loaded
SCAN = """
import sys, types, warnings
from autogradkit.grading import guard

class Loud:
    reads = 0

    @property
    def __class__(self):
        type(self).reads += 1
        warnings.warn("read __class__", FutureWarning, stacklevel=2)
        return Loud

module = types.ModuleType("a_student_import")
module.loud = Loud()
sys.modules[module.__name__] = module
warnings.simplefilter("error")
found = guard._machinery()
print(Loud.reads, "a_student_import" in found)
"""


def test_the_scan_of_loaded_modules_reads_no_class_property():
    run = subprocess.run([sys.executable, "-c", SCAN], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0", "False"]  # never read; a module holding no Checks
