"""Run one snippet of PyTorch code twice: with ``torch`` bound to PyTorch and to autogradkit.

The snippet prints what it wants compared. Printed text, warnings and the final exception
(type and message) must agree, after PyTorch's ``torch.`` names become ``autogradkit.``.
"""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
import warnings

_TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\.\)")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def normalise(text: str) -> str:
    text = _TRIGGERED.sub("", text)
    text = text.replace("torch::", "autogradkit::").replace("torch.", "autogradkit.")
    return _ADDRESS.sub("0xADDRESS", text)


def run(snippet: str, module) -> str:
    """Printed output, then one line per warning and for an exception, as one string."""
    out = io.StringIO()
    namespace = {"torch": module, "__name__": "__snippet__"}
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        try:
            exec(textwrap.dedent(snippet), namespace)
        except Exception as error:  # the snippet's own error is part of what we compare
            print(f"raised {type(error).__name__}: {error}")
    lines = [out.getvalue()]
    # a ResourceWarning comes from the garbage collector finalising something another test
    # left behind (an event loop of the browser tests), never from the snippet itself
    caught = [w for w in caught if not issubclass(w.category, ResourceWarning)]
    lines += [f"warning {w.category.__name__}: {w.message}" for w in caught]
    return normalise("\n".join(lines))
