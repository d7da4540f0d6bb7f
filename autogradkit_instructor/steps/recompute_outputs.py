"""RecomputeOutputs: the release notebook stores the outputs of running the student version."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient

from ..kernels import kernel_env, local_kernel_manager

__all__ = ["RecomputeOutputs"]


class RecomputeOutputs:
    """Run the student version top to bottom with nbclient and keep every output.

    The kernel runs in the notebook's folder (so helper modules import) from this Python
    environment, errors do not stop the run (an unanswered exercise raises, and so do the
    checks after it), and widget state is stored so sliders render in the released file.
    Timing metadata is not recorded and each stream's chunks are merged (how a kernel splits
    printed text into messages varies between runs), so releasing twice gives the same bytes.
    """

    name = "recompute_outputs"
    requires: tuple[str, ...] = ("clear_solutions", "strip_hidden_tests")

    def __call__(self, nb, ctx):

        nb = nbformat.from_dict(nb)
        km = local_kernel_manager()
        client = NotebookClient(
            nb,
            km=km,
            timeout=int(ctx.cfg.timeout),
            allow_errors=True,
            store_widget_state=True,
            record_timing=False,
            coalesce_streams=True,  # how prints are chunked varies by run
            resources={"metadata": {"path": str(ctx.workdir)}},
        )
        try:
            client.execute(env=kernel_env())
        finally:  # nbclient only shuts down kernels it created itself
            if km.has_kernel:
                km.shutdown_kernel(now=True)
        return nb
