"""The checks of notebook 06: hooks.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import numpy as np

import autogradkit as agk
from autogradkit import nn
from autogradkit.grading.checks import Checks

check = Checks(__file__)


@check.exercise("printed_by_a", "final_x_grad")
def predicted_hooks(obs, printed_by_a, final_x_grad):
    """Exercise 1: what the hooks print, and x.grad"""
    obs.predicted(
        "what hook A prints",
        printed_by_a,
        hint="hook A runs before hook B: what gradient does y.sum() send to y?",
    )
    obs.predicted("x.grad", final_x_grad, hint="hook B's result flows on to x, through y = x * 3")


# ----- exercise 2: capture intermediate gradients --------------------------------------------
def _graph(obs):
    """Fresh leaves x and w; intermediates with a fork (u used twice) and a diamond (h reaches
    s directly and through u); a scalar loss. Returns the leaves, the tensors and the loss."""
    size = int(obs.rng.integers(2, 5))
    x, w = (agk.tensor(obs.rng.normal(size=size), requires_grad=True) for _ in range(2))
    k = agk.tensor(obs.rng.normal(size=size))  # needs no gradient
    h = x * w
    u = h.tanh()
    v = u * u
    s = u + h
    loss = (v * k).sum() + (s * s).mean()
    return (x, w), {"h": h, "u": u, "v": v, "s": s, "loss": loss}, loss


def _some(obs, tensors: dict, count: int, leave_out=()) -> dict:
    """``count`` of ``tensors``, other than ``leave_out``, in a random order."""
    names = [name for name in tensors if name not in leave_out]
    chosen = obs.rng.choice(names, size=count, replace=False)
    return {str(name): tensors[str(name)] for name in chosen}


def _numbers(value) -> np.ndarray:
    """A copy of a tensor's (or an array's) numbers."""
    if isinstance(value, agk.Tensor):
        return value.detach().numpy().copy()
    return np.array(value, dtype=float)


def _observe_captured(obs, what: str, captured, named: dict) -> None:
    obs.require(
        f"capture_grads returns a dict ({what})",
        isinstance(captured, dict),
        hint="return the dict your hooks filled",
    )
    obs.equal(
        f"the names in it ({what})",
        sorted(str(name) for name in captured),
        hint="one entry per tensor in named; each hook must remember its own tensor's name",
    )
    for name in sorted(named):
        obs.close(
            f"the gradient of {name} ({what})",
            captured.get(name),
            hint="store a copy of the gradient your hook receives",
        )


# capture_grads runs by hand, where there is no kit: the named tensors and the loss are
# stand-ins made from data, whose hooks the stand-in loss.backward() runs with the gradients the
# check computed; no autograd.grad, retain_grad() or .grad is there, and what comes back is data
def _hooked_world():
    """The classes of the stand-ins (by hand): a gradient (an array with a tensor's copying
    methods and sizes), a handle, and a tensor (whose hooks ``backward()`` runs) that tells its
    shape and that it is no leaf (each named one was computed: it has a ``grad_fn``, a node
    that holds nothing here)."""
    array = np.ndarray
    node = type("Node", (), {})
    tensor = type("Tensor", (), {"requires_grad": True, "is_leaf": False, "shape": ()})
    tensor.__init__ = lambda t: setattr(t, "grad_fn", node())
    tensor.dim = lambda t: t.ndim
    tensor.ndim, tensor.numel = property(lambda t: len(t.shape)), lambda t: int(np.prod(t.shape))
    tensor.size = lambda t, dim=None: t.shape if dim is None else t.shape[dim]
    same = {name: lambda g, *args, **kwargs: g for name in ("detach", "cpu", "to", "contiguous")}
    gradient = type("Tensor", (array,), {"clone": array.copy, **same})
    gradient.numpy, gradient.data = lambda g: np.asarray(g), property(lambda g: g)
    gradient.dim, gradient.numel = lambda g: g.ndim, lambda g: g.size

    class Handle:
        def __init__(self, hooks, hook):
            self.hooks, self.hook = hooks, hook

        def remove(self):
            self.hooks[:] = [h for h in self.hooks if h is not self.hook]

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.remove()

    return gradient, Handle, tensor


def _capturing(capture_grads):
    """A trial of ``capture_grads`` (by hand): stand-ins of the named tensors and of the loss,
    whose ``backward()`` runs each tensor's hooks, in ``names``' order, with ``grads``. What
    it saw: the dict returned, which hooks ran, whether a hook changed what flows on, and
    whether a later pass (``later``) still reaches the dict."""

    def run(names, grads, later):
        gradient, handle, tensor = _hooked_world()  # made here: by hand, classes are not data
        seen = {"fired": [], "changed": False}

        def run_hooks(named, flowing_in):
            for name in named:
                flowing = np.asarray(flowing_in[name], dtype=float).view(gradient)
                for hook in list(named[name].hooks):
                    seen["fired"].append(name)
                    returned = hook(flowing)
                    if returned is not None:
                        returned = np.asarray(returned, dtype=float)
                        seen["changed"] = seen["changed"] or not np.array_equal(returned, flowing)
                        flowing = returned.view(gradient)

        def backward_passes(named, flowing_in):
            """Each next() is one backward pass: the hooks run with ``flowing_in``, held in this
            generator's frame (by hand, an answer reads no frame: not the gradients either)."""
            while True:
                yield run_hooks(named, flowing_in)

        named, loss = {}, tensor()
        for name in names:
            named[name] = loss if name == "loss" else tensor()
            named[name].hooks, named[name].shape = [], np.shape(grads[name])
            named[name].register_hook = lambda hook, t=named[name]: _registered(t, hook, handle)
        passes = backward_passes(named, grads)  # the gradients: in its frame, and nowhere else
        loss.backward = lambda *args, **kwargs: next(passes)
        found = capture_grads(dict(named), loss)
        report = {"captured": None, "fired": seen["fired"], "changed": seen["changed"]}
        if not isinstance(found, dict):
            return report
        report["captured"] = {str(k): np.asarray(v, dtype=float) for k, v in found.items()}
        seen["fired"] = []
        run_hooks(named, later)  # a hook still in place fires again
        after = {str(k): np.asarray(v, dtype=float) for k, v in found.items()}
        moved = [not np.array_equal(v, after.get(k)) for k, v in report["captured"].items()]
        return report | {"later": any(moved)}

    return run


def _registered(tensor, hook, handle):
    tensor.hooks.append(hook)
    return handle(tensor.hooks, hook)


def _order(tensors: dict, named: dict) -> list:
    """The names of ``named`` from the output back (each after every tensor made from it)."""
    return [name for name in reversed(list(tensors)) if name in named]


@check.exercise("capture_grads")
def captured_grads(obs, capture_grads):
    """Exercise 2: capture_grads records gradients with hooks and leaves them unchanged"""
    leaves, tensors, loss = _graph(obs)
    named = _some(obs, tensors, int(obs.rng.integers(2, 5)))
    grads = dict(zip(named, agk.autograd.grad(loss, list(named.values()), retain_graph=True)))
    later = {name: obs.rng.normal(size=t.shape) for name, t in named.items()}
    trial = obs.by_hand(capture_grads, around=_capturing)  # no autograd there: hooks only
    grads = {name: g.numpy() for name, g in grads.items()}
    seen = obs.call(trial, _order(tensors, named), grads, later)
    obs.equal(
        f"the tensors whose hooks ran, once each ({len(named)} tensors)",
        sorted(seen["fired"]),
        hint="register one hook on each tensor, then call loss.backward() once",
    )
    _observe_captured(obs, f"for {', '.join(named)}", seen["captured"], named)
    loss.backward()  # the leaves' gradients, when the hooks only looked
    for name, leaf in zip(("x", "w"), leaves):
        obs.close(
            f"{name}.grad after capture_grads",
            None if seen["changed"] else leaf.grad,
            hint="the hooks only look: return None, so the gradient flows on unchanged",
        )
    obs.equal(
        "a later backward pass changes what you captured",
        seen["later"],
        hint="remove each hook with its handle once loss.backward() has run",
    )


# ----- exercise 3: the gradient lands in the leaf -------------------------------------------
class _Net(nn.Module):
    """Linear, tanh, Linear, with weights drawn from ``obs.rng`` (the notebook's own random
    numbers stay untouched, so the cells after the check print what they always print)."""

    def __init__(self, obs, size: int):
        super().__init__()
        hidden = int(obs.rng.integers(2, 5))
        for name, shape in (("w1", (hidden, size)), ("b1", (hidden,)), ("w2", (1, hidden))):
            values = obs.rng.normal(size=shape).astype(np.float32)
            self.register_parameter(name, nn.Parameter(agk.tensor(values)))

    def forward(self, input):
        hidden = nn.functional.linear(input, self.w1, self.b1).tanh()
        return nn.functional.linear(hidden, self.w2)


@check.exercise("input_gradient")
def leaf_input(obs, input_gradient):
    """Exercise 3: the gradient lands in the leaf"""
    size = int(obs.rng.integers(3, 6))
    for what, shape in (("one input", (size,)), ("a batch", (int(obs.rng.integers(2, 4)), size))):
        values = obs.rng.uniform(-2.0, 2.0, size=shape).round(2)
        result = obs.call(input_gradient, values.tolist(), _Net(obs, size))
        obs.require(
            f"input_gradient returns (inp, input_grad) ({what})",
            isinstance(result, tuple) and len(result) == 2,
            hint="return inp, input_grad",
        )
        inp, input_grad = result
        obs.require(
            f"inp is a leaf that requires grad ({what})",
            isinstance(inp, agk.Tensor) and inp.is_leaf and inp.requires_grad,
            hint=".to(...) returns the result of an operation: which tensor is the leaf?",
        )
        obs.equal(f"inp's dtype ({what})", str(inp.dtype), hint="the net computes in float32")
        obs.close(f"inp's values ({what})", inp)
        obs.require(
            f"input_grad is inp.grad, filled by backward() ({what})",
            input_grad is not None and input_grad is inp.grad,
            hint="call backward() and read the gradient it left in inp.grad",
        )
        obs.close(f"input_grad ({what})", input_grad, atol=1e-5)


# ----- exercise 4: the example by hand -------------------------------------------------------
def _draw(obs, huge: bool):
    """x, w and b; ``huge``: x and w near 1e160, so that w · x overflows float64 while each
    gradient is an ordinary number (a difference of the result is not)."""
    size = int(obs.rng.integers(2, 6))
    if not huge:
        x, w = (obs.rng.uniform(-3.0, 3.0, size=size).round(2) for _ in range(2))
        return x, w, round(float(obs.rng.uniform(-3.0, 3.0)), 2)
    x = obs.rng.uniform(1.0, 3.0, size=size) * 1e160
    return x, x * obs.rng.uniform(0.5, 1.0, size=size), float(obs.rng.uniform(-3.0, 3.0))


@check.exercise("linear_by_hand")
def by_hand(obs, linear_by_hand):
    """Exercise 4: Linear, then / 4, by hand"""
    hand = obs.by_hand(linear_by_hand)  # runs where autograd does not exist: by hand, by design
    for draw, huge in ((1, False), (2, False), (3, True)):
        x, w, b = _draw(obs, huge)
        found = obs.call(hand, x.copy(), w.copy(), b)
        at = f"draw {draw}: x and w of {len(x)} numbers"
        if huge:
            at = f"draw {draw}: x and w of {len(x)} numbers near 1e160"
        obs.require(
            f"linear_by_hand returns three results ({at})",
            isinstance(found, (tuple, list)) and len(found) == 3,
            hint="return result, weight_grad, bias_grad",
        )
        result, weight_grad, bias_grad = found
        if not huge:  # there the result overflows; the gradients do not
            obs.close(f"the result ({at})", result, hint="first the layer, w · x + b, then / 4")
        obs.close(
            f"the weight gradient ({at})",
            weight_grad,
            hint="by how much does the result change when one weight grows by one?",
        )
        obs.close(f"the bias gradient ({at})", bias_grad, hint="the bias is added before / 4")


# ----- exercise 5: fine-tune the last layer ------------------------------------------------
def _deep_network(obs):
    """Two or three Linear layers with Tanh between them, weights drawn from ``obs.rng``."""
    sizes = [int(obs.rng.integers(2, 5))]
    sizes += [int(obs.rng.integers(3, 7)) for _ in range(int(obs.rng.integers(1, 3)))] + [1]
    layers = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        layers += [nn.Linear(n_in, n_out), nn.Tanh()]
    model = nn.Sequential(*layers[:-1])
    with agk.no_grad():
        for param in model.parameters():
            param.copy_(agk.tensor(obs.rng.normal(0.0, 0.8, size=param.shape)))
    return model, sizes[0]


@check.exercise("fine_tune_last")
def fine_tuned(obs, fine_tune_last):
    """Exercise 5: only the last layer trains, and only it is in the optimizer"""
    model, n_in = _deep_network(obs)
    n = int(obs.rng.integers(4, 9))
    x = agk.tensor(obs.rng.normal(size=(n, n_in)), dtype=agk.float32)
    y = agk.tensor(obs.rng.normal(size=(n, 1)), dtype=agk.float32)
    steps, lr = int(obs.rng.integers(2, 6)), round(float(obs.rng.uniform(0.05, 0.3)), 3)
    names = {id(param): name for name, param in model.named_parameters()}
    reached = set()  # the parameters a backward pass computed a gradient for, frozen or not
    for name, param in model.named_parameters():
        param.register_hook(lambda grad, name=name: reached.add(name))
    optimizer = obs.call(fine_tune_last, model, x, y, steps, lr)
    obs.require(
        "fine_tune_last returns an optimizer",
        isinstance(optimizer, agk.optim.Optimizer),
        hint="return the SGD optimizer you made",
    )
    held = [names.get(id(p), "?") for group in optimizer.param_groups for p in group["params"]]
    obs.equal(
        "the parameters the optimizer holds",
        sorted(held),
        hint="hand it [p for p in model.parameters() if p.requires_grad]",
    )
    obs.equal(
        "the parameters that require grad afterwards",
        [name for name, param in model.named_parameters() if param.requires_grad],
        hint="freeze with requires_grad_(False), on every parameter but the last layer's",
    )
    obs.equal(
        "the parameters that have a .grad afterwards",
        [name for name, param in model.named_parameters() if param.grad is not None],
        hint="a frozen parameter gets no gradient: was it frozen before the first backward()?",
    )
    obs.equal(
        "the parameters backward() computed a gradient for",
        sorted(reached),
        hint="freeze before the first backward(): a gradient cleared afterwards was still computed",
    )
    for name, param in model.named_parameters():
        obs.close(
            f"{name} after {steps} steps with lr = {lr:g}",
            param,
            atol=1e-5,
            hint="each step: zero the gradients, forward, MSE loss, backward, step",
        )


