"""The instructor's toolchain: the ``autogradkit`` command and everything it runs.

``build``, ``release`` and ``translate`` make a course's notebooks; ``grade`` runs each
submission in a sandboxed kernel (``kernels``, ``sandbox``, ``container``, ``forkserver``, on
a dask cluster with ``cluster``) through the pipeline's ``steps``; ``report``,
``class_report``, ``export`` and ``validate`` read what it wrote. It imports the student's
package (``autogradkit``, and the check API a kernel runs, ``autogradkit.grading``), which
never imports it: a student's kernel holds none of this.
"""

import sys

# nbformat validates with jsonschema, which at import builds the grammars of rfc3987_syntax
# when it is installed (JupyterLab's jupyter-events brings it): 1.5 s of CPU in every process
# of the toolchain (each CLI call, grading worker, sandboxed reader), for the IRI formats that
# no notebook schema uses. Without it jsonschema leaves those formats unchecked.
sys.modules.setdefault("rfc3987_syntax", None)  # None: "import rfc3987_syntax" fails at once
