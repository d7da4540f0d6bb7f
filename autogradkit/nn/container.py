"""Containers: ``Sequential`` (run children in order), ``ModuleList`` and ``ModuleDict``."""

from __future__ import annotations

import operator
from collections import OrderedDict

from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _index(size: int, idx) -> int:
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Children called one after another, each on the previous one's output.

    Example:
        >>> import autogradkit as agk
        >>> net = agk.nn.Sequential(agk.nn.Linear(2, 3), agk.nn.ReLU())
        >>> net
        Sequential(
          (0): Linear(in_features=2, out_features=3, bias=True)
          (1): ReLU()
        )
        >>> len(net), net[-1]
        (2, ReLU())
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(len(self), idx)]

    def __setitem__(self, idx, module: Module) -> None:
        key = list(self._modules)[_index(len(self), idx)]
        setattr(self, key, module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[_index(len(self), idx)]]:
            delattr(self, key)
        # keep the numbering 0, 1, 2... as PyTorch does
        object.__setattr__(
            self, "_modules", dict((str(i), m) for i, m in enumerate(self._modules.values()))
        )

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> Sequential:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        modules = list(self._modules.values())
        n = len(modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        modules.insert(index if index >= 0 else index + n, module)
        object.__setattr__(self, "_modules", {})
        for i, m in enumerate(modules):
            self.add_module(str(i), m)
        return self

    def forward(self, input):  # noqa: A002
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules whose parameters the parent module can see.

    Example:
        >>> import autogradkit as agk
        >>> layers = agk.nn.ModuleList([agk.nn.Linear(2, 2) for _ in range(3)])
        >>> layers
        ModuleList(
          (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
        )
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(len(self), idx))]

    def __setitem__(self, idx, module: Module) -> None:
        setattr(self, str(_index(len(self), idx)), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [str(_index(len(self), idx))]:
            del self._modules[key]
        object.__setattr__(
            self, "_modules", dict((str(i), m) for i, m in enumerate(self._modules.values()))
        )

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def __repr__(self) -> str:
        """Runs of identical children print once, as ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []  # [start, end, text]
        for i, text in enumerate(reprs):
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        lines = []
        for start, end, text in blocks:
            head = f"({start})" if start == end else f"({start}-{end}): {end - start + 1} x"
            line = f"{head}: {text}" if start == end else f"{head} {text}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules (insertion order) whose parameters the parent module can see.

    Example:
        >>> import autogradkit as agk
        >>> acts = agk.nn.ModuleDict({"relu": agk.nn.ReLU(), "tanh": agk.nn.Tanh()})
        >>> list(acts), acts["tanh"]
        (['relu', 'tanh'], Tanh())
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module
