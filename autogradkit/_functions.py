"""Module-level functions (``agk.exp(x)``, ``agk.cat([...])``): each calls the Tensor method
of the same name, so there is one implementation of every operation."""

from __future__ import annotations

from ._dtype import is_number
from ._shape import normalize_dim
from .ops import arithmetic, joining, rounding
from .tensor import Tensor, _pow, where

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "reciprocal",
    "square",
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "sqrt",
    "abs",
    "sign",
    "sgn",
    "exp_",
    "log_",
    "sin_",
    "cos_",
    "tan_",
    "tanh_",
    "sigmoid_",
    "relu_",
    "sqrt_",
    "abs_",
    "neg_",
    "reciprocal_",
    "square_",
    "clamp",
    "clip",
    "clamp_min",
    "clamp_max",
    "maximum",
    "minimum",
    "sum",
    "mean",
    "prod",
    "var",
    "std",
    "max",
    "min",
    "argmax",
    "argmin",
    "norm",
    "logsumexp",
    "softmax",
    "log_softmax",
    "allclose",
    "equal",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "isnan",
    "mm",
    "mv",
    "dot",
    "matmul",
    "reshape",
    "flatten",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
    "t",
    "clone",
    "detach",
    "numel",
    "masked_fill",
    "split",
    "chunk",
    "unbind",
    "is_inference",
    "flip",
    "floor_divide",
    "true_divide",
    "pow",
    "remainder",
    "rsub",
    "cat",
    "concat",
    "concatenate",
    "stack",
    "is_tensor",
    "is_floating_point",
    "where",
]


def _method(name: str):
    """``agk.<name>(input, ...)``: the Tensor method of that name, ``input.<name>(...)``."""

    def function(input, *args, **kwargs):  # noqa: A002  (PyTorch's argument name)
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Same as ``input.{name}(...)``."
    return function


add = _method("add")
sub = _method("sub")
mul = _method("mul")
div = _method("div")
neg = _method("neg")
reciprocal = _method("reciprocal")
square = _method("square")
exp = _method("exp")
log = _method("log")
sin = _method("sin")
cos = _method("cos")
tan = _method("tan")
tanh = _method("tanh")
sigmoid = _method("sigmoid")
relu = _method("relu")
sqrt = _method("sqrt")
abs = _method("abs")
sign = _method("sign")
sgn = _method("sgn")
exp_ = _method("exp_")
log_ = _method("log_")
sin_ = _method("sin_")
cos_ = _method("cos_")
tan_ = _method("tan_")
tanh_ = _method("tanh_")
sigmoid_ = _method("sigmoid_")
relu_ = _method("relu_")
sqrt_ = _method("sqrt_")
abs_ = _method("abs_")
neg_ = _method("neg_")
reciprocal_ = _method("reciprocal_")
square_ = _method("square_")
clamp = _method("clamp")
clip = _method("clip")
clamp_min = _method("clamp_min")
clamp_max = _method("clamp_max")
maximum = _method("maximum")
minimum = _method("minimum")
sum = _method("sum")
mean = _method("mean")
prod = _method("prod")
var = _method("var")
std = _method("std")
max = _method("max")
min = _method("min")
argmax = _method("argmax")
argmin = _method("argmin")
norm = _method("norm")
logsumexp = _method("logsumexp")
softmax = _method("softmax")
log_softmax = _method("log_softmax")
allclose = _method("allclose")
equal = _method("equal")
eq = _method("eq")
ne = _method("ne")
lt = _method("lt")
le = _method("le")
gt = _method("gt")
ge = _method("ge")
isnan = _method("isnan")
mm = _method("mm")
mv = _method("mv")
dot = _method("dot")
matmul = _method("matmul")
reshape = _method("reshape")
flatten = _method("flatten")
squeeze = _method("squeeze")
unsqueeze = _method("unsqueeze")
permute = _method("permute")
transpose = _method("transpose")
t = _method("t")
clone = _method("clone")
detach = _method("detach")
numel = _method("numel")
masked_fill = _method("masked_fill")
split = _method("split")
chunk = _method("chunk")
unbind = _method("unbind")
is_inference = _method("is_inference")
flip = _method("flip")
floor_divide = _method("floor_divide")
true_divide = div


def pow(input, exponent) -> Tensor:  # noqa: A001, A002
    """``input ** exponent``; ``input`` may be a number (``pow(2, x)`` is PowBackward2)."""
    return _pow(input, exponent)


def remainder(input, other) -> Tensor:  # noqa: A002
    """``input % other``; ``input`` may be a number (that has no derivative, as in PyTorch)."""
    if isinstance(input, Tensor):
        return input.remainder(other)
    return rounding.RemainderOfNumberNotImplemented.apply(input, other)


def rsub(input, other) -> Tensor:  # noqa: A002
    """``other - input``."""
    rsub = arithmetic.RsubBackward1 if is_number(other) else arithmetic.RsubBackward0
    return rsub.apply(input, other)


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim."""
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    d = normalize_dim(dim, tensors[0].ndim)
    for i, t in enumerate(tensors[1:], start=1):
        if t.ndim != tensors[0].ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {tensors[0].ndim} and {t.ndim}"
            )
        if any(a != b for k, (a, b) in enumerate(zip(t.shape, tensors[0].shape)) if k != d):
            k = next(k for k in range(t.ndim) if k != d and t.shape[k] != tensors[0].shape[k])
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {d}. Expected size "
                f"{tensors[0].shape[k]} but got size {t.shape[k]} for tensor number {i} "
                "in the list."
            )
    return joining.CatBackward0.apply(*tensors, dim=dim)


concat = concatenate = cat


def stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors along a new dim."""
    tensors = list(tensors)
    normalize_dim(dim, tensors[0].ndim + 1)  # PyTorch's error before any other
    return joining.StackBackward0.apply(*tensors, dim=dim)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:  # noqa: A002
    return input.is_floating_point()
