"""The packages of the ``lab`` extra (tqdm, ipywidgets, matplotlib), imported when first used.

``import autogradkit.viz`` and ``draw_graph(...)`` (SVG text) need NumPy alone; progress
bars, widgets and figures need the lab extra, and say so when it is missing.
"""

from __future__ import annotations

import importlib

__all__ = ["LAB_INSTALL", "lab_import"]

LAB_INSTALL = "pip install 'autogradkit[lab]'"


def lab_import(module: str):
    """``import module``, or an ImportError that says how to install the lab extra.

    Example:
        >>> lab_import("not_a_lab_package")
        Traceback (most recent call last):
        ...
        ModuleNotFoundError: not_a_lab_package is not installed: it comes with the lab extra, pip install 'autogradkit[lab]'
    """  # noqa: E501
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        message = f"{error.name} is not installed: it comes with the lab extra, {LAB_INSTALL}"
        raise ModuleNotFoundError(message, name=error.name) from error
