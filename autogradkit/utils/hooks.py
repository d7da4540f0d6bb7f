"""``RemovableHandle``: what every ``register_*hook`` returns, and the one id counter."""

from __future__ import annotations

import itertools
import weakref

__all__ = ["HookDict", "RemovableHandle", "add_hook"]

# The one global counter: unique, increasing ids for hook handles and for graph nodes
# (a node's sequence number is its creation order, which sets the engine's run order).
next_id = itertools.count().__next__


class HookDict(dict):
    """A dict of hooks keyed by handle id (a plain dict cannot be weakly referenced)."""

    __slots__ = ("__weakref__",)


class RemovableHandle:
    """Removes a hook from the dict it was registered in.

    The handle holds only a weak reference to that dict, ``remove()`` may be called any
    number of times, and ``with handle:`` removes the hook on leaving the block.

    Example:
        >>> hooks = HookDict()
        >>> handle = RemovableHandle(hooks)
        >>> hooks[handle.id] = print
        >>> handle.remove(); handle.remove()
        >>> dict(hooks)
        {}
    """

    def __init__(self, hooks_dict: HookDict):
        self.id = next_id()
        self.hooks_dict_ref = weakref.ref(hooks_dict)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None:
            hooks_dict.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info) -> None:
        self.remove()


def add_hook(hooks_dict: HookDict, fn) -> RemovableHandle:
    """Store ``fn`` in ``hooks_dict`` under a fresh handle and return the handle."""
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = fn
    return handle
