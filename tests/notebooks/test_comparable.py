"""The drift test's notion of "the same notebook": what a person would compare, on any CPU."""

from __future__ import annotations

import base64
import json
import struct
import time
import zlib

from .conftest import comparable


def _png(width: int, height: int, shade: int) -> str:
    """A grey PNG of the given size; ``shade`` changes its bytes, not its size."""
    row = b"\x00" + bytes([shade]) * width
    return _png_of(width, height, zlib.compress(row * height))


def _png_of(width: int, height: int, body: bytes) -> str:
    """A grey PNG of the given size whose pixels are the compressed ``body``."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


def _notebook(tmp_path, name: str, outputs: list, metadata: dict | None = None) -> object:
    cell = {"cell_type": "code", "source": ["x"], "metadata": {}, "outputs": outputs}
    path = tmp_path / f"{name}.ipynb"
    path.write_text(json.dumps({"cells": [cell], "metadata": metadata or {}, "nbformat": 4}))
    return comparable(path)


def _figure(png: str) -> dict:
    return {"output_type": "display_data", "data": {"image/png": png, "text/plain": "<Figure>"}}


def test_a_figure_with_other_pixels_but_the_same_size_is_the_same(tmp_path):
    ours = _notebook(tmp_path, "a", [_figure(_png(40, 30, 10))])
    theirs = _notebook(tmp_path, "b", [_figure(_png(40, 30, 200))])
    assert _png(40, 30, 10) != _png(40, 30, 200)
    assert ours == theirs


def test_a_figure_of_another_size_or_a_missing_one_differs(tmp_path):
    ours = _notebook(tmp_path, "a", [_figure(_png(40, 30, 10))])
    assert ours != _notebook(tmp_path, "b", [_figure(_png(41, 30, 10))])
    assert ours != _notebook(tmp_path, "c", [])


def test_text_is_compared_after_the_nbval_sanitize_rules(tmp_path):
    def printed(text):
        return [{"output_type": "stream", "name": "stdout", "text": text}]

    at_one_address = _notebook(tmp_path, "a", printed("<Node at 0x7f3a9c1d2e50>\n"))
    at_another = _notebook(tmp_path, "b", printed("<Node at 0x7f0000000010>\n"))
    assert at_one_address == at_another
    assert at_one_address != _notebook(tmp_path, "c", printed("tensor(6.0001)\n"))


def test_figures_kept_in_an_output_widget_state_compare_by_size_too(tmp_path):
    def widget_state(png):
        state = {"model": {"state": {"outputs": [_figure(png)]}}}
        return {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": state}}}

    ours = _notebook(tmp_path, "a", [], widget_state(_png(40, 30, 10)))
    assert ours == _notebook(tmp_path, "b", [], widget_state(_png(40, 30, 99)))
    assert ours != _notebook(tmp_path, "c", [], widget_state(_png(30, 40, 10)))


def test_a_warning_is_compared_without_the_folders_of_the_machine(tmp_path):
    """build stores a warning's file without its folders (stable.strip_paths); nbval runs the
    notebook where it is, so its warning names them: the two must compare equal."""

    def warned(where):
        return [{"output_type": "stream", "name": "stderr", "text": f"{where}: UserWarning: old\n"}]

    stored = _notebook(tmp_path, "a", warned("IPython/core/pylabtools.py:158"))
    fresh = "/srv/course/.venv/lib/python3.11/site-packages/IPython/core/pylabtools.py:158"
    assert stored == _notebook(tmp_path, "b", warned(fresh))
    helper = _notebook(tmp_path, "c", warned("loader.py:5"))
    assert helper == _notebook(tmp_path, "d", warned("/srv/course/release/03_warns/loader.py:5"))
    assert helper != _notebook(tmp_path, "e", warned("loader.py:6"))


def test_a_large_figure_in_an_output_widget_state_is_compared_in_an_instant(tmp_path):
    """A figure kept in a widget's state counts by its size alone, so the sanitize rules never
    read its bytes: one of them (a warning's file) takes time growing with the square of a
    string's length where nothing breaks it, as base64 never is. 07's widget figure took 17 s
    of CPU to compare, once per copy and edition in test_round_trip."""
    rows = [b"\x00" + bytes((x * y) % 251 for x in range(300)) for y in range(200)]
    png = _png_of(300, 200, zlib.compress(b"".join(rows), 0))  # stored: 60 kB, as 07's
    state = {"model": {"state": {"outputs": [_figure(png)]}}}
    widgets = {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": state}}}
    assert len(png) > 60_000
    started = time.process_time()
    summary = _notebook(tmp_path, "a", [], widgets)
    assert time.process_time() - started < 1.0  # CPU seconds: a busy machine adds none
    kept = summary["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]
    figure = kept["state"]["model"]["state"]["outputs"][0]["data"]["image/png"]
    assert figure == {"type": "image/png", "size": (300, 200)}
