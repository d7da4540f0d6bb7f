"""Watching the engine: ``with observe(watcher):`` tells ``watcher`` what each backward pass does.

The engine calls these methods of every watcher (a ``BackwardObserver``; override the events
you need) while a backward pass runs inside the block:

- ``dependencies_counted(counts)``: step 2 is done: for each node, how many gradients it will
  wait for (a copy: the engine keeps its own; copy it again to change it);
- ``node_ready(node)``: ``node`` got all its gradients and joined the ready queue;
- ``node_running(node, queue)``: the engine took ``node`` from the queue and runs it now;
  ``queue`` holds the nodes still ready, in the order they will run;
- ``node_ran(node, grad_inputs)``: ``node`` ran and passed ``grad_inputs`` on (one per
  ``next_functions`` entry, None where no gradient goes); each input's node waits for one
  gradient less;
- ``gradient_accumulated(leaf, grad)``: an ``AccumulateGrad`` node wrote ``leaf.grad``.

This is how ``viz`` steps through the real engine: it never reads the engine's variables.
Beside the core (no core module imports this file): an ``observe`` block puts its watcher on
the hook the engine offers, ``engine.watchers``, which the engine reports each step to.
"""

from __future__ import annotations

from .engine import watchers

__all__ = ["BackwardObserver", "observe"]


class BackwardObserver:
    """Base class of an engine observer: every event does nothing until you override it."""

    def dependencies_counted(self, counts: dict) -> None:
        pass

    def node_ready(self, node) -> None:
        pass

    def node_running(self, node, queue: tuple) -> None:
        pass

    def node_ran(self, node, grad_inputs: tuple) -> None:
        pass

    def gradient_accumulated(self, leaf, grad) -> None:
        pass


class observe:
    """Inside this block, the engine reports every backward pass to ``watcher``.

    Example:
        >>> import autogradkit as agk
        >>> class Names(BackwardObserver):
        ...     def node_running(self, node, queue):
        ...         print(node.name())
        >>> a = agk.tensor(2., requires_grad=True)
        >>> with observe(Names()):
        ...     (a * a).backward()
        MulBackward0
        autogradkit::autograd::AccumulateGrad
    """

    def __init__(self, watcher: BackwardObserver):
        self.watcher = watcher

    def __enter__(self) -> BackwardObserver:
        watchers.append(self.watcher)
        return self.watcher

    def __exit__(self, *exc_info) -> None:
        watchers.remove(self.watcher)
