"""Context managers that are also decorators, as ``no_grad`` is (PyTorch keeps the same
helper in ``torch/utils/_contextlib.py``): ``@no_grad()`` and bare ``@no_grad`` run the
function inside a fresh block each call, and a generator inside one each time it is resumed.

Nothing here knows about autograd: a subclass gives ``__enter__`` and ``__exit__``.
"""

from __future__ import annotations

import functools
import inspect

__all__ = ["DecoratorContextManager"]


class DecoratorContextManager:
    """A context manager whose instances decorate functions and generators."""

    _args: tuple = ()  # what a new block like this one is made with (one per decorated call)

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool):
            return cls()(args[0])  # bare decorator: @no_grad
        return super().__new__(cls)

    def clone(self) -> DecoratorContextManager:
        """A new block like this one: each call of a decorated function enters its own."""
        return type(self)(*self._args)

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def _wrap_generator(self, fn):
        """The generator's own steps run in the block; the caller's code between them does not."""

        @functools.wraps(fn)
        def generator(*args, **kwargs):
            steps = fn(*args, **kwargs)
            step, value = steps.send, None
            while True:
                try:
                    with self.clone():
                        response = step(value)
                except StopIteration as finished:
                    return finished.value
                try:
                    step, value = steps.send, (yield response)
                except GeneratorExit:
                    with self.clone():
                        steps.close()
                    raise
                except BaseException as error:  # thrown in by the caller: pass it on
                    step, value = steps.throw, error

        return generator
