"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and ``step``.

A subclass gives its defaults (checked in ``__init__``) and one ``_update`` that changes one
parameter in place from its gradient. The update rule itself is a pure NumPy function next to
each class, so it can be read and tested on its own.
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict

from ..autograd.grad_mode import enable_grad, no_grad
from ..tensor import Tensor

__all__ = ["Optimizer"]

_NOT_SUPPORTED = {
    "foreach": (None, False),
    "differentiable": (False,),
    "fused": (None, False),
    "capturable": (False,),
}


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    return type(obj).__qualname__


def check_non_negative(**values) -> None:
    """PyTorch's ValueError for a negative hyperparameter (``Invalid momentum value: -1``)."""
    words = {"lr": "learning rate", "eps": "epsilon value"}
    for name, value in values.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {words.get(name, name + ' value')}: {value}")


class Optimizer:
    """Base class of the optimizers: holds ``param_groups`` and ``state``.

    Args:
        params: an iterable of tensors, or of dicts each with ``"params"`` and options that
            override ``defaults`` for that group.
        defaults: the options every group gets unless it says otherwise.

    Example:
        >>> import autogradkit as agk
        >>> w = agk.tensor(0., requires_grad=True)
        >>> opt = agk.optim.SGD([w], lr=0.01)
        >>> ((w * 2 - 4) ** 2).backward()
        >>> opt.step(); opt.zero_grad()
        >>> w, w.grad
        (tensor(0.1600, requires_grad=True), None)
    """

    def __init__(self, params, defaults: dict):
        for name, allowed in _NOT_SUPPORTED.items():
            if name in defaults and defaults[name] not in allowed:
                raise ValueError(f"autogradkit optimizers do not support {name}={defaults[name]}")
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (defaults fill in the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        param_group["params"] = params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(p)
                )
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                UserWarning,
                stacklevel=3,
            )
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in taken for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient: ``None`` by default (PyTorch 2.x), else zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """Update every parameter that has a gradient, in place and under ``no_grad``.

        ``closure`` (optional) recomputes the loss with grad mode on; its value is returned.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._opt_called = True  # lets an lr scheduler check the call order
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p: Tensor, group: dict) -> None:
        """Change ``p`` in place from ``p.grad`` (state lives in ``self.state[p]``)."""
        raise NotImplementedError

    def state_dict(self) -> dict:
        """``{"state": ..., "param_groups": ...}`` with parameters replaced by their index."""
        index: dict = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore options and state saved by ``state_dict`` (same groups, same sizes)."""
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"])
            for g, s in zip(self.param_groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        by_index = {}
        for group, saved in zip(self.param_groups, saved_groups, strict=True):
            by_index.update(zip(saved["params"], group["params"], strict=True))
        self.state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            p = by_index[key]
            self.state[p] = {k: _cast(p, k, v) for k, v in value.items()}
        for group, saved in zip(self.param_groups, saved_groups, strict=True):
            saved["params"] = group["params"]
        self.param_groups = saved_groups

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _cast(param: Tensor, key: str, value):
    """A copy of a saved state value, in the parameter's dtype ("step" stays as it is)."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    if key == "step" or not param.is_floating_point():
        return value.clone()
    return value.to(param.dtype).clone()
