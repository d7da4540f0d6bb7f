"""Printing tensors exactly as PyTorch does (a port of the rules in ``torch/_tensor_str.py``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, sci_mode=None):
    """Change how tensors print, as ``torch.set_printoptions`` does."""
    for name, value in dict(
        precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth
    ).items():
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """Chooses one width and one style (int-like, fixed, scientific) for all elements."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        absolute = np.abs(finite).astype(np.float64)
        lo, hi = absolute.min(), absolute.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        too_wide = hi / lo > 1000.0 or hi > 1.0e8
        self.sci_mode = too_wide if self.int_mode else (too_wide or lo < 1.0e-4)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        p = PRINT_OPTS.precision
        for v in finite.astype(np.float64).tolist():
            if self.sci_mode:
                width = len(f"{v:.{p}e}")
            elif self.int_mode:
                width = len(f"{v:.0f}") + 1  # the trailing "."
            else:
                width = len(f"{v:.{p}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value) -> str:
        p = PRINT_OPTS.precision
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{p}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{p}f}"
        return (self.max_width - len(text)) * " " + text


def _summarized(values: np.ndarray) -> np.ndarray:
    """The edge items PyTorch shows of a large tensor (what the formatter measures)."""
    e = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * e:
        values = np.concatenate([values[:e], values[-e:]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(row) for row in values])


def _vector_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    e = PRINT_OPTS.edgeitems
    if summarize and values.shape[0] > 2 * e:
        data = [fmt.format(v) for v in values[:e].tolist()] + [" ..."]
        data += [fmt.format(v) for v in values[-e:].tolist()]
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector_str(values, indent, summarize, fmt)
    e, n = PRINT_OPTS.edgeitems, values.shape[0]
    if summarize and n > 2 * e:
        rows = [_nested_str(values[i], indent + 1, summarize, fmt) for i in range(e)]
        rows += ["..."] + [
            _nested_str(values[i], indent + 1, summarize, fmt) for i in range(n - e, n)
        ]
    else:
        rows = [_nested_str(values[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        # wrapped where PyTorch wraps: "autogradkit." counts as its "torch." (docs/fidelity.md)
        width = len(suffix.replace("autogradkit.", "torch."))
        if last_line_len + width + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + width
        else:
            parts.append(", " + suffix)
            last_line_len += width + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, prefix: str = "tensor(") -> str:
    """``tensor([0.2500, 0.5000], grad_fn=<MulBackward0>)``, line-wrapped like PyTorch."""
    values, dt = t._data, t.dtype
    indent = len(prefix)
    suffixes = []
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dt.name != "float32":
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if dt.name not in ("float32", "int64", "bool"):
            suffixes.append(f"dtype={dt!r}")
        summarize = values.size > PRINT_OPTS.threshold
        fmt = _Formatter(_summarized(values) if summarize else values)
        body = _nested_str(values, indent, summarize, fmt)
    try:
        grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    except RuntimeError:  # a view made in no_grad mode whose base changed: PyTorch's word
        grad_fn = "Invalid"
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
