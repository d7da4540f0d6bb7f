"""``autogradkit.viz``: see the backward graph, replay ``backward()`` step by step, and train.

Drawings are SVG text written here or matplotlib figures (no Graphviz); widgets use ipywidgets.
matplotlib and ipywidgets are imported only when a figure or a widget is made.
"""

from __future__ import annotations

from .draw import GraphDrawing, draw_graph
from .graph import Graph, GraphEdge, GraphNode, build_graph
from .layout import layout_graph
from .progress import progress
from .trace import Step, Trace, trace_backward
from .training import dataset, train_by_hand, train_with_autograd
from .widgets import (
    BackpropStepper,
    FunctionPlotter,
    TangentExplorer,
    TrainingExplorer,
    function_and_derivative,
    plot_function_and_derivative,
    tangent_at,
)

__all__ = [
    "BackpropStepper",
    "FunctionPlotter",
    "Graph",
    "GraphDrawing",
    "GraphEdge",
    "GraphNode",
    "Step",
    "TangentExplorer",
    "Trace",
    "TrainingExplorer",
    "build_graph",
    "dataset",
    "draw_graph",
    "function_and_derivative",
    "layout_graph",
    "plot_function_and_derivative",
    "progress",
    "tangent_at",
    "trace_backward",
    "train_by_hand",
    "train_with_autograd",
]
