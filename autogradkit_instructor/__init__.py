"""The instructor's toolchain: the ``autogradkit`` command and everything it runs.

``build``, ``release`` and ``translate`` make a course's notebooks; ``grade`` runs each
submission in a sandboxed kernel (``kernels``, ``sandbox``, ``container``, ``forkserver``, on
a dask cluster with ``cluster``) through the pipeline's ``steps``; ``report``,
``class_report``, ``export`` and ``validate`` read what it wrote. It imports the student's
package (``autogradkit``, and the check API a kernel runs, ``autogradkit.grading``), which
never imports it: a student's kernel holds none of this.
"""
