"""``Module``: the base class of every layer and model, with PyTorch's bookkeeping.

A module keeps its parameters, buffers and sub-modules in three dicts, filled by plain
attribute assignment (``self.fc = Linear(2, 3)``). Everything else (``parameters()``,
``state_dict()``, ``train()``, ``zero_grad()``, printing, hooks) walks those dicts.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple

from .. import _dtype
from ..autograd import grad_mode
from ..creation import tensor
from ..tensor import Tensor
from ..utils.hooks import HookDict, RemovableHandle, add_hook
from ._backward_hooks import BackwardHook, attach_legacy_hooks
from .parameter import Parameter

__all__ = ["Module"]

_BOTH_KINDS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. "
    "Please use only one of them."
)


def _typename(obj) -> str:
    """``autogradkit.FloatTensor`` for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (how nested modules print)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _add_ordered_hook(hooks: HookDict, fn, prepend: bool) -> RemovableHandle:
    handle = add_hook(hooks, fn)
    if prepend:  # rebuild in place: handles hold a weak reference to this very dict
        items = [(handle.id, fn)] + [(k, v) for k, v in hooks.items() if k != handle.id]
        hooks.clear()
        hooks.update(items)
    return handle


class Module:
    """Base class for all neural network modules: subclass it and write ``forward``.

    Example:
        >>> import autogradkit as agk
        >>> class TwoLayer(agk.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = agk.nn.Linear(2, 3)
        ...         self.out = agk.nn.Linear(3, 1)
        ...     def forward(self, x):
        ...         return self.out(self.hidden(x).relu())
        >>> net = TwoLayer()
        >>> net
        TwoLayer(
          (hidden): Linear(in_features=2, out_features=3, bias=True)
          (out): Linear(in_features=3, out_features=1, bias=True)
        )
        >>> [name for name, _ in net.named_parameters()]
        ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
    """

    training: bool

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        for name in ("_parameters", "_buffers", "_modules"):
            setattr_(self, name, {})
        setattr_(self, "_non_persistent_buffers_set", set())
        for name in (
            "_forward_pre_hooks",
            "_forward_pre_hooks_with_kwargs",
            "_forward_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_backward_hooks",
            "_backward_pre_hooks",
        ):
            setattr_(self, name, HookDict())
        setattr_(self, "_is_full_backward_hook", None)

    def forward(self, *args, **kwargs):
        """What the module computes; every subclass defines it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ----- registration ---------------------------------------------------------------------
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter under ``name`` (what ``self.name = Parameter(...)`` does)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(self, name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(autogradkit.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (saved in ``state_dict`` if
        ``persistent``), such as a running mean."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(self, name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(autogradkit Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under ``name`` (what ``self.name = SomeModule()`` does)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep=self._parameters)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(autogradkit.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            self._set_module_or_buffer(name, value)

    def _set_module_or_buffer(self, name: str, value) -> None:
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep=modules)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(autogradkit.nn.Module or None expected)"
                )
            modules[name] = value
        elif name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(autogradkit.nn.Buffer, autogradkit.Tensor or None expected)"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: dict) -> None:
        """Remove ``name`` from the other stores before it goes into ``keep`` (where it keeps
        its place, so re-assigning does not reorder parameters or children)."""
        for store in (self.__dict__, self._parameters, self._buffers, self._modules):
            if store is not keep:
                store.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str):
        # only called when normal lookup fails: look in the three dicts
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # ----- traversal --------------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate=True):
        """Yield ``(dotted_name, module)`` for this module and all below it, parents first;
        a module reachable twice is yielded once."""
        memo = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if module in memo:
                    continue
                memo.add(module)
            yield name, module
            children = [
                (name + ("." if name else "") + key, child)
                for key, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))  # pop in insertion order

    def modules(self):
        """This module and every module below it, each once."""
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        """Yield ``(name, module)`` for the direct children, each once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, get_members, prefix: str, recurse: bool, remove_duplicate: bool):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        if not recurse:
            modules = [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate=True):
        """Yield ``(dotted_name, parameter)``, in registration order, shared ones once.

        Example:
            >>> import autogradkit as agk
            >>> [(n, tuple(p.shape)) for n, p in agk.nn.Linear(2, 3).named_parameters()]
            [('weight', (3, 2)), ('bias', (3,))]
        """
        return self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse: bool = True):
        """Every parameter (what you hand to an optimizer)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn) -> Module:
        """Call ``fn`` on every module below this one, children before their parent (the
        order PyTorch uses), then on this module; return self."""
        order, stack = [], [(self, False)]
        while stack:  # an explicit post-order walk: no recursion limit on deep models
            module, children_done = stack.pop()
            if children_done:
                order.append(module)
                continue
            stack.append((module, True))
            stack.extend((child, False) for child in reversed(list(module.children())))
        for module in order:
            fn(module)
        return self

    # ----- modes and gradients ----------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode here and in every child (Dropout behaves differently)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            module.training = mode
        return self

    def eval(self) -> Module:
        """Evaluation mode: same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the parameters' gradients: ``None`` by default, zeros if asked."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                grad = param.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    # ----- state_dict -------------------------------------------------------------------------
    def state_dict(self, *, destination=None, prefix: str = "", keep_vars: bool = False):
        """Every parameter and persistent buffer by dotted name (detached unless
        ``keep_vars``), in registration order.

        Example:
            >>> import autogradkit as agk
            >>> list(agk.nn.Sequential(agk.nn.Linear(2, 2)).state_dict())
            ['0.weight', '0.bias']
        """
        destination = OrderedDict() if destination is None else destination
        for module_prefix, module in _all_prefixed(self):
            for name, value in _own_state(module).items():
                destination[prefix + module_prefix + name] = value if keep_vars else value.detach()
        return destination

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values into this module's parameters and buffers (in place, under no_grad).

        With ``strict`` the keys must match exactly; PyTorch's error lists what is missing
        and what is unexpected.
        """
        missing, unexpected, errors = [], [], []
        for prefix, module in _all_prefixed(self):
            module._load_own(state_dict, prefix, assign, missing, unexpected, errors)
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def _load_own(self, state_dict, prefix, assign, missing, unexpected, errors) -> None:
        """Load this module's own entries (children are handled by the caller)."""
        local = _own_state(self)
        for name, current in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected autogradkit.Tensor '
                    f"or Tensor-like object from checkpoint but received {type(value)}"
                )
            elif value.shape != current.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape!r} from "
                    f"checkpoint, the shape in current model is {current.shape!r}."
                )
            elif assign:
                if isinstance(current, Parameter) and not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=current.requires_grad)
                setattr(self, name, value)
            else:
                with grad_mode.no_grad():
                    current.copy_(value)
        for key in state_dict:
            if key.startswith(prefix):
                first = key[len(prefix) :].split(".", 1)[0]
                if first not in self._modules and first not in local:
                    unexpected.append(key)

    # ----- dtype and device -------------------------------------------------------------------
    def _apply(self, fn) -> Module:
        """Convert every parameter (keeping the Parameter object), grad and buffer."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is None:
                    continue
                with grad_mode.no_grad():
                    param.data = fn(param.data)
                    if param.grad is not None:
                        param.grad = fn(param.grad)
            for key, buf in module._buffers.items():
                if buf is not None:
                    module._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move to a device (only ``"cpu"``) and/or cast floating-point tensors to a dtype."""
        probe = tensor(0.0)
        dtype = probe.to(*args, **kwargs).dtype  # validates devices as Tensor.to does
        asked = kwargs.get("dtype") is not None or any(
            isinstance(a, (_dtype.dtype, Tensor)) for a in args
        )
        if not asked:
            return self
        if not dtype.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype!r}"
            )
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def cpu(self) -> Module:
        return self

    def cuda(self, device=None) -> Module:
        return self.to("cuda")

    # ----- printing ---------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's line (override it)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra_lines = self.extra_repr().split("\n") if self.extra_repr() else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    # ----- hooks ------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs=False):
        """``hook(module, args)`` runs before ``forward``; it may return new args.

        With ``with_kwargs=True`` it is ``hook(module, args, kwargs)`` and may return
        ``(args, kwargs)``.
        """
        handle = _add_ordered_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` runs after ``forward``; it may return a new output.

        ``with_kwargs=True`` adds the keyword arguments: ``hook(module, args, kwargs,
        output)``; ``always_call=True`` runs it even when ``forward`` raises.
        """
        handle = _add_ordered_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output)`` runs when the gradients of the outputs are known;
        it may return new ones."""
        return _add_ordered_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients with respect to
        the module's inputs are known; it may return a new ``grad_input``.

        Example:
            >>> import autogradkit as agk
            >>> lin = agk.nn.Linear(2, 1)
            >>> h = lin.register_full_backward_hook(lambda m, gi, go: print(go))
            >>> lin(agk.ones(1, 2, requires_grad=True)).sum().backward()
            (tensor([[1.]]),)
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError(_BOTH_KINDS)
        object.__setattr__(self, "_is_full_backward_hook", True)
        return _add_ordered_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """The legacy module backward hook: it sees only the module's last operation.

        PyTorch keeps it for old code; its ``grad_input`` is the gradient of that last
        node's inputs, which changes with the order of operations in ``forward``. Prefer
        ``register_full_backward_hook`` or a tensor hook. It warns (FutureWarning) at
        forward when that last node does not take exactly the module's inputs.

        Example:
            >>> import autogradkit as agk, warnings
            >>> lin = agk.nn.Linear(4, 1)
            >>> _ = lin.weight.data.fill_(8.0), lin.bias.data.fill_(2.0)
            >>> h = lin.register_backward_hook(lambda m, grad_input, grad_output: print(grad_input))
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     y = lin(agk.tensor([1., 2., 3., 4.], requires_grad=True))
            >>> y.grad_fn.name()  # a vector input ends in a view of the (1, 1) addmm result
            'ViewBackward0'
            >>> y.backward()  # so grad_input is that view's single input, not x's gradient
            (tensor([[1.]]),)
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError(_BOTH_KINDS)
        object.__setattr__(self, "_is_full_backward_hook", False)
        return add_hook(self._backward_hooks, hook)

    # ----- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Run ``forward`` between this module's hooks (just ``forward`` when there are none)."""
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        state = {"args": args, "kwargs": kwargs, "result": None, "called": set()}
        try:
            return self._call_with_hooks(state)
        except Exception:
            self._run_always_called_hooks(state)
            raise

    def _call_with_hooks(self, state: dict):
        args, kwargs = self._run_forward_pre_hooks(state["args"], state["kwargs"])
        state["args"], state["kwargs"] = args, kwargs
        full = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
        legacy = list(self._backward_hooks.values()) if self._is_full_backward_hook is False else []
        bw_hook = None
        if full or self._backward_pre_hooks:
            bw_hook = BackwardHook(self, full, list(self._backward_pre_hooks.values()))
            args = state["args"] = bw_hook.setup_input_hook(args)
        result = state["result"] = self.forward(*args, **kwargs)
        for hook_id, hook in tuple(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called:
                state["called"].add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs:
                new = hook(self, args, kwargs, result)
            else:
                new = hook(self, args, result)
            if new is not None:
                result = state["result"] = new
        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)
        if legacy:
            attach_legacy_hooks(self, args, result, legacy)
        return result

    def _run_forward_pre_hooks(self, args: tuple, kwargs: dict):
        for hook_id, hook in tuple(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                new = hook(self, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {new}."
                        )
                    args, kwargs = new
            else:
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        return args, kwargs

    def _run_always_called_hooks(self, state: dict) -> None:
        for hook_id, hook in tuple(self._forward_hooks.items()):
            if hook_id not in self._forward_hooks_always_called or hook_id in state["called"]:
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    new = hook(self, state["args"], state["kwargs"], state["result"])
                else:
                    new = hook(self, state["args"], state["result"])
                if new is not None:
                    state["result"] = new
            except Exception as e:
                warnings.warn(
                    "module forward hook with ``always_call=True`` raised an exception that "
                    f"was silenced as another error was raised in forward: {e}",
                    stacklevel=3,
                )


def _check_name(module: Module, name, kind: str, store: dict) -> None:
    """PyTorch's checks for a parameter or buffer name, in its order."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in store:
        raise KeyError(f"attribute '{name}' already exists")


def _own_state(module: Module) -> dict:
    """A module's own parameters and persistent buffers (not its children's), by name."""
    state = {k: v for k, v in module._parameters.items() if v is not None}
    state.update(
        (k, v)
        for k, v in module._buffers.items()
        if v is not None and k not in module._non_persistent_buffers_set
    )
    return state


def _all_prefixed(root: Module):
    """``(prefix, module)`` for every module in state_dict order (repeats kept, as PyTorch)."""
    stack = [("", root)]
    while stack:
        prefix, module = stack.pop()
        yield prefix, module
        children = [(prefix + k + ".", m) for k, m in module._modules.items() if m is not None]
        stack.extend(reversed(children))
