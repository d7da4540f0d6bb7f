"""viz tests: matplotlib draws off-screen here (never through MPLBACKEND, which would leak
into notebook kernels), and every widget and figure is closed after each test."""

from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_widgets_and_figures():
    yield
    import ipywidgets
    import matplotlib.pyplot as plt

    ipywidgets.Widget.close_all()
    plt.close("all")


@pytest.fixture(scope="session")
def chain_100k():
    """The output of a 100,000-op chain (built once: it takes a few seconds)."""
    from .examples import chain

    return chain(100_000)[1]


@pytest.fixture(scope="session")
def chain_100k_graph(chain_100k):
    """Every box and arrow of that chain, nothing summarised."""
    from autogradkit.viz.graph import build_graph

    return build_graph(chain_100k, {}, max_nodes=None, max_depth=None)
