"""The checks of notebook 05: inside grad_fn.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

from contextlib import contextmanager

import numpy as np

import autogradkit as agk
import autogradkit.autograd.engine
import autogradkit.autograd.graph
from autogradkit.grading.checks import (
    BuildItYourself,
    Checks,
    call_graph,
)
from autogradkit.viz import trace_backward

check = Checks(__file__)


@check.exercise("level_1", "level_2", "level_3")
def predicted_graph(obs, level_1, level_2, level_3):
    """Exercise 1: the nodes of y = (p.exp() - q) * r, three levels deep"""
    obs.predicted("level_1", level_1, hint="what did the last operation, *, receive as inputs?")
    obs.predicted("level_2", level_2, hint="one input of - needs a gradient, one does not")
    obs.predicted("level_3", level_3, hint="which tensor went into exp?")


# ----- exercise 2: collect the leaves ------------------------------------------------------
def _leaves(obs, count: int, size: int) -> list:
    """``count`` fresh leaves that require grad; the last has the same values as the first."""
    leaves = [agk.tensor(obs.rng.normal(size=size), requires_grad=True) for _ in range(count - 1)]
    return leaves + [agk.tensor(leaves[0].detach().numpy().copy(), requires_grad=True)]


def _forks_and_a_diamond(obs):
    """A non-scalar root over fresh leaves: one used twice, one only through detach(), two that
    need no gradient, and a diamond. The leaves go to their places in a random order."""
    size = int(obs.rng.integers(2, 5))
    leaves = _leaves(obs, 7, size)
    a, b, c, d, e, f, cut = (leaves[i] for i in obs.rng.permutation(7))
    k1, k2 = (agk.tensor(obs.rng.normal(size=size)) for _ in range(2))  # need no gradient
    t = (a * a).tanh() + b * k1  # a is used twice
    s = t.sin()
    diamond = s * t + s.cos()  # t and s are each reached along two paths
    root = diamond * c + (d - k2).exp() * e + f + cut.detach()
    return root, leaves


def _diamond_chain(obs):
    """``count`` diamonds in a row, with leaves inside: 2**count paths, about 4 * count nodes."""
    count = int(obs.rng.integers(32, 41))
    leaves = _leaves(obs, 4, 2)
    at = dict(zip(obs.rng.choice(count, size=3, replace=False).tolist(), leaves[1:]))
    z = leaves[0].tanh()
    for i in range(count):
        z = z.sin() * z.cos() if i % 2 else z.sin() + z.cos()
        if i in at:
            z = z * at[i]
    return z, leaves, count


def _chain(obs, length: int):
    """``length`` operations in a row: deeper than Python lets a function recurse."""
    leaves = _leaves(obs, 2, 3)
    z = leaves[0]
    for _ in range(length):
        z = -z
    return z * leaves[1], leaves


# A walk of the graph runs by hand, where there is no kit: on stand-ins of the graph's nodes
# made from it as data (next_functions, variable, name()), so no library walk, engine, tracer
# or helper is there to call, by any route, and what comes back is data
DEPTH = 200  # room for the answer's own calls: a walk with a stack needs few


def _as_data(root, known: list) -> tuple[list, list]:
    """The nodes of ``root``'s graph (``root.grad_fn`` first, each once), and the same as data:
    per node ``[its place in known, class name, name(), [[child's place in known or None,
    input_nr], ...], has a variable]``. ``known``, the nodes an earlier walk of the check was
    given, gets the new ones: a node keeps its place, and its stand-in, from walk to walk."""
    place = {id(node): k for k, node in enumerate(known)}
    nodes, seen, todo = [], set(), [root.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and id(node) not in seen:
            seen.add(id(node))
            nodes.append(node)
            todo += [child for child, _ in node.next_functions]
    for node in nodes:
        if id(node) not in place:
            place[id(node)] = len(known)
            known.append(node)
    graph = [
        [
            place[id(node)],
            type(node).__name__,
            node.name(),
            [[None if c is None else place[id(c)], nr] for c, nr in node.next_functions],
            hasattr(node, "variable"),
        ]
        for node in nodes
    ]
    return nodes, graph


def _stand_ins(graph, made: dict) -> list:
    """Stand-ins of the nodes ``_as_data`` describes, each of a class named as the real node's
    (by hand: made there from the data; ``made`` keeps them by place, for the next walk)."""
    kinds = {}
    for place, kind, name, _, has_variable in graph:
        if place not in made:
            if kind not in kinds:
                kinds[kind] = type(kind, (), {"name": lambda self, name=name: name})
                kinds[kind].__module__ = "builtins"  # printed as <AddBackward0 object at ...>
            made[place] = kinds[kind]()
            if has_variable:
                made[place].variable = _stand_in_tensor(None)
    for place, _, _, children, _ in graph:
        edges = [(None if c is None else made[c], nr) for c, nr in children]
        made[place].next_functions = tuple(edges)
    return [made[place] for place, *_ in graph]


def _stand_in_tensor(grad_fn):
    tensor = type("Tensor", (), {"requires_grad": True, "is_leaf": grad_fn is None})()
    tensor.grad_fn = grad_fn
    return tensor


def _walking(answer):
    """A trial of a graph walk (by hand): ``answer`` gets a stand-in of the root tensor; what
    it returns comes back as labels, ``["node", i]``, ``["variable", i]`` (the graph's i-th
    node's), or ``["other"]``; None when it is no list."""
    made = {}  # a node's stand-in, by its place: the same object from walk to walk

    def run(graph):
        nodes = _stand_ins(graph, made)
        found = answer(_stand_in_tensor(nodes[0]))
        if not isinstance(found, (list, tuple)):
            return None
        where = {id(node): ["node", i] for i, node in enumerate(nodes)}
        for i, node in enumerate(nodes):
            if hasattr(node, "variable"):
                where[id(node.variable)] = ["variable", i]
        return [where.get(id(item), ["other"]) for item in found]

    return run


def _walked(obs, walk, root, seconds: float = 20.0):
    """``walk`` (``_walker``'s) over ``root``'s graph: what it returned, as the real nodes and
    leaves (anything else as an object of its own)."""
    hand, known = walk
    nodes, graph = _as_data(root, known)
    hand.timeout = seconds
    found = obs.call(hand, graph)
    if not isinstance(found, list):
        return None

    def real(label):
        if isinstance(label, list) and len(label) == 2 and label[0] in ("node", "variable"):
            if isinstance(label[1], int) and 0 <= label[1] < len(nodes):
                node = nodes[label[1]]
                return node if label[0] == "node" else node.variable
        return object()

    return [real(label) for label in found]


def _walker(obs, answer) -> tuple:
    """The answer, by hand, around ``_walking``; and the nodes its walks were given."""
    return obs.by_hand(answer, recursion_limit=DEPTH, around=_walking), []


def _without_recursion(obs, answer, name: str) -> None:
    """The answer's code has no function that calls itself, directly or through another."""
    obs.holds(
        f"{name} has no function that calls itself",
        call_graph(answer),
        "acyclic",
        hint="Python stops a recursion about 1,000 calls deep: keep a stack of your own",
    )


def _observe_leaves(obs, what: str, found, leaves: list) -> None:
    """The leaves ``found`` as labels ``leaf i`` (the i-th leaf made), in any order."""
    obs.require(
        f"find_leaves returns a list ({what})",
        isinstance(found, (list, tuple)),
        hint="collect the leaves in a list and return it",
    )
    ids = [id(t) for t in found]
    obs.require(
        f"each leaf appears once ({what})",
        len(ids) == len(set(ids)),
        hint="a node can be reached along several paths: keep track of the nodes you visited",
    )
    labels = {id(t): f"leaf {i}" for i, t in enumerate(leaves)}
    obs.equal(
        f"the leaves of {what}",
        sorted(labels.get(id(t), f"a {type(t).__name__} that is no leaf here") for t in found),
        hint="return node.variable, the leaf tensor itself, for each AccumulateGrad node you reach",
    )


@check.exercise("find_leaves")
def leaves_found(obs, find_leaves):
    """Exercise 2: find_leaves walks the graph once, with a stack"""
    _without_recursion(obs, find_leaves, "find_leaves")
    walk = _walker(obs, find_leaves)  # by hand: no walk of the library's exists there
    root, leaves = _forks_and_a_diamond(obs)
    _observe_leaves(obs, "a graph with forks and a diamond", _walked(obs, walk, root), leaves)

    root, leaves, count = _diamond_chain(obs)  # one walk per path would take hours
    found = _walked(obs, walk, root, 5.0)
    _observe_leaves(obs, f"{count} diamonds in a row", found, leaves)

    root, leaves = _chain(obs, 5000)
    _observe_leaves(obs, "a chain of 5,000 operations", _walked(obs, walk, root), leaves)


# ----- exercise 3: Cube ----------------------------------------------------------------------
def _is_function(cube) -> bool:
    return isinstance(cube, type) and issubclass(cube, agk.autograd.Function)


def _grad_fn_name(y):
    return type(y.grad_fn).__name__ if isinstance(y, agk.Tensor) and y.grad_fn else None


@contextmanager
def _no_autograd_inside_backward():
    """A backward pass started from inside a backward (autograd.grad in Cube.backward, which
    would let autograd find the derivative) is refused; the outer pass runs as usual."""
    engine, running = agk.autograd.engine, []
    original = engine.run_backward

    def guarded(*args, **kwargs):
        if running:
            raise BuildItYourself("this exercise asks you to build Cube's backward yourself")
        running.append(True)
        try:
            return original(*args, **kwargs)
        finally:
            running.pop()

    engine.run_backward = guarded
    try:
        yield
    finally:
        engine.run_backward = original


def _notices_in_place_change(cube, obs) -> bool:
    """Change x, then (on a new graph) y, in place after the forward: backward through
    ``ctx.saved_tensors`` refuses to use a saved tensor that changed since it was saved."""
    for change_output in (False, True):
        leaf = agk.tensor(obs.rng.uniform(0.5, 2.0, size=3), requires_grad=True)
        x = leaf * 1.0
        y = cube.apply(x)
        with agk.no_grad():
            (y if change_output else x).mul_(2.0)
        try:
            y.backward(agk.ones_like(y))
        except RuntimeError as error:
            if "modified by an inplace operation" in str(error):
                return True
    return False


# Cube's backward runs by hand too, where there is no kit: on stand-ins of the tensors forward
# saved and of grad_output (arrays with the methods of arithmetic), so no node, gradient or
# engine of the library is there to find the derivative for it, and what comes back is data
def _arithmetic_tensor() -> type:
    """A NumPy array class with a tensor's methods of arithmetic (``x.pow(2).mul(3)``, in place
    ``x.mul_(3)``), its ways to the same numbers (``x.data``, ``x.detach()``, ``x.clone()``,
    ``x.numpy()``) and its sizes (``x.dim()``, ``x.numel()``)."""
    array = np.ndarray
    methods = {"pow": array.__pow__, "mul": array.__mul__, "add": array.__add__}
    methods |= {"sub": array.__sub__, "div": array.__truediv__, "neg": array.__neg__}
    methods |= {"mul_": array.__imul__, "add_": array.__iadd__}
    methods |= {"data": property(lambda self: self), "detach": array.view, "clone": array.copy}
    methods |= {"numpy": lambda self: self.view(array), "dim": lambda self: self.ndim}
    methods |= {"numel": lambda self: self.size}
    return type("Tensor", (array,), {**methods, "square": lambda self: self * self})


def _backward_by_hand(backward):
    """A trial of Cube's ``backward``: it gets a ctx whose ``saved_tensors`` hold stand-ins of
    ``saved`` (and whose ``needs_input_grad`` is the node's), and a stand-in of
    ``grad_output``; what it returns comes back as numbers."""

    def run(saved, needs_input_grad, grad_output):
        tensor = _arithmetic_tensor()
        ctx = type("Ctx", (), {"needs_input_grad": tuple(needs_input_grad)})()
        ctx.saved_tensors = tuple(np.asarray(t, dtype=float).view(tensor) for t in saved)
        found = backward(ctx, np.asarray(grad_output, dtype=float).view(tensor))
        found = found[0] if isinstance(found, tuple) and len(found) == 1 else found
        return np.asarray(found, dtype=float)

    return run


def _saved(y) -> tuple[list, list]:
    """The numbers of the tensors ``y``'s node saved (read before backward frees them), and
    which of its inputs need a gradient (``ctx.needs_input_grad``)."""
    node = y.grad_fn
    return [t.detach().numpy().copy() for t in node.saved_tensors], list(node.needs_input_grad)


def _backward_by_hand_observed(obs, Cube, saved: tuple, g, what: str) -> None:  # noqa: N803
    """Cube's backward, by hand, on what a node saved (``_saved``) and ``g``: computed with
    arithmetic only (no node, gradient or engine of the library is there)."""
    hand = obs.by_hand(Cube.backward, around=_backward_by_hand)
    obs.close(
        f"Cube's backward computes with arithmetic only ({what})",
        obs.call(hand, *saved, g.numpy()),
        hint="write 3x² yourself: no node, gradient or engine of the library",
    )


def _backward_where_the_cube_overflows(obs, Cube) -> None:  # noqa: N803
    """Cube's backward, by hand, at x near 1e120: there x³ overflows (inf) and 3x² does not,
    so a difference quotient of x³ is nan, however small or clever its step."""
    sizes = obs.rng.uniform(1.0, 9.0, size=3).round(1) * obs.rng.choice([-1.0, 1.0], size=3)
    with np.errstate(over="ignore"):  # forward's x³ is inf there, as it should be
        y = obs.call(Cube.apply, agk.tensor(sizes * 1e120, requires_grad=True))
    g = agk.tensor(obs.rng.normal(size=3))
    _backward_by_hand_observed(obs, Cube, _saved(y), g, "x near 1e120, where x³ overflows")


@check.exercise("Cube")
def cube_function(obs, Cube):  # noqa: N803  (the notebook's class)
    """Exercise 3: Cube, an operation with its own forward and backward"""
    obs.require(
        "Cube is an autograd.Function",
        _is_function(Cube),
        hint="class Cube(agk.autograd.Function) with two static methods",
    )
    shape = (int(obs.rng.integers(2, 4)), int(obs.rng.integers(2, 5)))
    x = agk.tensor(obs.rng.uniform(-2.0, 2.0, size=shape), requires_grad=True)
    y = obs.call(Cube.apply, x)
    obs.close(f"Cube.apply(x) for a {shape[0]}x{shape[1]} x", y, hint="forward returns x³")
    obs.require(
        "the output's grad_fn is Cube's own node",
        _grad_fn_name(y) == f"{Cube.__name__}Backward",
        hint="Cube.apply makes the node from your class: do not replace apply, and let "
        "backward compute the gradient instead of operations autograd records",
    )
    obs.require(
        "forward saves tensors for backward",
        len(y.grad_fn.saved_tensors) > 0,
        hint="keep what backward needs with ctx.save_for_backward(...)",
    )
    g = agk.tensor(obs.rng.normal(size=shape))  # an upstream gradient other than ones
    saved = _saved(y)
    obs.call(y.backward, g)
    obs.close("x.grad after y.backward(g)", x.grad, hint="grad_output times the local derivative")
    x64 = agk.tensor(obs.rng.uniform(-2.0, 2.0, size=5), requires_grad=True)
    with _no_autograd_inside_backward():
        agrees = obs.call(agk.autograd.gradcheck, Cube.apply, (x64,), raise_exception=False)
    obs.equal(
        "gradcheck(Cube.apply) at fresh points",
        agrees,
        hint="your backward disagrees with the slope measured on your forward",
    )
    obs.equal(
        "backward reads what forward saved",
        obs.call(_notices_in_place_change, Cube, obs),
        hint="save x itself (not a copy) and take it back from ctx.saved_tensors in backward",
    )
    _backward_by_hand_observed(obs, Cube, saved, g, "y.backward(g)")
    _backward_where_the_cube_overflows(obs, Cube)


# ----- exercise 4: (a + b) * d by hand -------------------------------------------------------
def _inputs(obs, huge: bool) -> tuple[float, float, float]:
    """Three numbers; ``huge``: a and b of one sign near 1e160, d too, so that e = (a + b) * d
    overflows float64 while each gradient is an ordinary number (a difference of e is not)."""
    if not huge:
        return tuple(round(float(v), 2) for v in obs.rng.uniform(-3.0, 3.0, size=3))
    sign = float(obs.rng.choice([-1.0, 1.0]))
    a, b, d = (float(v) * 1e160 for v in obs.rng.uniform(1.0, 3.0, size=3))
    return sign * a, sign * b, d * float(obs.rng.choice([-1.0, 1.0]))


@check.exercise("add_mul_grads")
def by_hand(obs, add_mul_grads):
    """Exercise 4: the gradients of (a + b) * d, without autograd"""
    hand = obs.by_hand(add_mul_grads)  # runs where autograd does not exist: by hand, by design
    for huge in (False, True):
        a, b, d = _inputs(obs, huge)
        grads = obs.call(hand, a, b, d)
        at = f"a={a:g}, b={b:g}, d={d:g}"
        obs.require(
            f"add_mul_grads({a:g}, {b:g}, {d:g}) returns three numbers",
            isinstance(grads, (tuple, list, np.ndarray)) and len(grads) == 3,
            hint="return a_grad, b_grad, d_grad",
        )
        for name, grad, hint in zip(
            ("a.grad", "b.grad", "d.grad"),
            grads,
            (
                "a reaches e through + and then *: multiply the two local derivatives",
                "b enters the graph exactly as a does",
                "what does e = c * d change by when d grows by one?",
            ),
        ):
            obs.close(f"{name} at {at}", grad, hint=hint)


# ----- exercise 5: a fork, counted ---------------------------------------------------------
@check.exercise("pending_v", "hook_calls", "hook_grad")
def fork_prediction(obs, pending_v, hook_calls, hook_grad):
    """Exercise 5: what the engine counts at a fork"""
    obs.predicted(
        "pending_v",
        pending_v,
        hint="count arrows into v's node, not tensors: v * v sends v two gradients",
    )
    obs.predicted(
        "hook_calls",
        hook_calls,
        hint="the node runs once, when its count reaches 0; the hook runs with it",
    )
    obs.predicted(
        "hook_grad",
        hook_grad,
        hint="add up what each use of v sends back: the chain rule at a fork is a sum",
    )


# ----- exercise 6: the engine's order --------------------------------------------------------
def _order_graph(obs):
    """A non-scalar root over fresh leaves: a leaf used deep in the graph and twice by one
    operation near the output, a skip connection (a short path and a long one to the same
    node), a diamond, and inputs that need no gradient. The leaves go to their places in a
    random order."""
    size = int(obs.rng.integers(2, 5))
    leaves = [agk.tensor(obs.rng.normal(size=size), requires_grad=True) for _ in range(5)]
    a, b, c, d, e = (leaves[i] for i in obs.rng.permutation(5))
    k = agk.tensor(obs.rng.normal(size=size))  # needs no gradient
    z = (a * b).tanh()
    skip = z + (z * k).exp().sin()  # z's node: one consumer near the root, one far from it
    s = skip.sin()
    diamond = s * skip + s.cos()
    return diamond * c + (d - k) * e + a * a  # a twice in one node, and once more deep down


def _engine_order(root) -> list:
    """The nodes in the order the engine really runs them (made before the answer runs)."""
    return [step.node for step in trace_backward(root, agk.ones_like(root)).steps]


def _comes_after_its_senders(order, nodes) -> bool:
    """Does every node come after every node whose next_functions point at it?"""
    place = {id(n): k for k, n in enumerate(order)}
    return all(
        place[id(node)] < place[id(child)]
        for node in nodes
        for child, _ in node.next_functions
        if child is not None
    )


def _observe_order(obs, walk, what: str, root, seconds: float = 20.0) -> None:
    nodes = _engine_order(root)
    order = _walked(obs, walk, root, seconds)
    obs.require(
        f"backward_order returns a list ({what})",
        isinstance(order, (list, tuple)),
        hint="collect the nodes in a list, in the order you would run them, and return it",
    )
    ids = [id(n) for n in order]
    obs.require(
        f"each node appears once ({what})",
        len(ids) == len(set(ids)),
        hint="a node that several others send gradients to still runs once",
    )
    obs.require(
        f"every node of {what} is there",
        set(ids) == {id(n) for n in nodes},
        hint="start from t.grad_fn, follow next_functions to every node (AccumulateGrad too), "
        "and skip (None, 0) entries",
    )
    obs.equal(
        f"each node comes after every node that sends it a gradient ({what})",
        _comes_after_its_senders(order, nodes),
        hint="a node is ready only when its count of gradients still to come reaches 0; "
        "count one per arrow, even two arrows from the same node",
    )
    obs.equal(
        f"the nodes in the place the engine runs them ({what})",
        sum(node is ran for node, ran in zip(order, nodes)),
        hint="of the ready nodes, take the one added last (ready.pop()), and add the nodes that "
        "become ready in the order of next_functions",
    )


@check.exercise("backward_order")
def engine_order(obs, backward_order):
    """Exercise 6: the order the engine runs"""
    _without_recursion(obs, backward_order, "backward_order")
    walk = _walker(obs, backward_order)  # by hand: no engine or tracer exists there
    _observe_order(obs, walk, "a graph with forks and a skip connection", _order_graph(obs))
    root, _, count = _diamond_chain(obs)  # one walk per path would take hours
    _observe_order(obs, walk, f"{count} diamonds in a row", root, 5.0)
    root, _ = _chain(obs, 5000)
    _observe_order(obs, walk, "a chain of 5,000 operations", root)


# ----- exercise 7: count what a graph saves ------------------------------------------------
# The steps a random function is made of: each saves something else (PyTorch's rules)
STEPS = (
    lambda h, c: h.sigmoid(),  # its output
    lambda h, c: h.tanh(),  # its output
    lambda h, c: h.relu(),  # its output
    lambda h, c: h.sin(),  # its input
    lambda h, c: h**2,  # its input
    lambda h, c: h * 0.5,  # nothing
    lambda h, c: h + c,  # nothing
    lambda h, c: h * c,  # c, and h too when c needs a gradient
)


def _saving_function(obs):
    """A matrix product, a random chain of steps and a square, over fresh inputs of which some
    need no gradient: the function and its inputs. On the way, one value is computed and thrown
    away: its node saved a tensor as it was made (the hooks see it), and no walk from ``out``
    reaches it (the saved tensors read off ``out``'s graph miss it)."""
    n, m = int(obs.rng.integers(2, 6)), int(obs.rng.integers(2, 5))
    a = agk.tensor(obs.rng.normal(0.0, 0.5, size=(n, m)), dtype=agk.float32, requires_grad=True)
    weight_needs, c_needs = (bool(obs.rng.integers(2)) for _ in range(2))
    weight = agk.tensor(obs.rng.normal(0.0, 0.5, size=(m, m)), dtype=agk.float32)
    c = agk.tensor(obs.rng.normal(0.0, 0.5, size=m), dtype=agk.float32)
    weight.requires_grad_(weight_needs)
    c.requires_grad_(c_needs)
    steps = [STEPS[int(i)] for i in obs.rng.choice(len(STEPS), size=int(obs.rng.integers(3, 6)))]
    where = int(obs.rng.integers(len(steps)))
    thrown_away = STEPS[int(obs.rng.integers(5))]  # one of those that save a tensor, always

    def f(a, weight, c):
        h = a @ weight
        for index, step in enumerate(steps):
            if index == where:
                thrown_away(h, c)  # a dead end: saved while f ran, never reached from out
            h = step(h, c)
        return (h * h).sum()

    return f, {"a": a, "weight": weight, "c": c}


@check.exercise("count_saved")
def saved_counted(obs, count_saved):
    """Exercise 7: the tensors a graph saves, counted with saved_tensors_hooks"""
    for draw in (1, 2):
        f, inputs = _saving_function(obs)
        at = f"function {draw} of 2"
        result = obs.call(count_saved, f, *inputs.values())
        obs.require(
            f"count_saved returns (out, count, numbers) ({at})",
            isinstance(result, tuple) and len(result) == 3,
            hint="return out, count, numbers",
        )
        out, count, numbers = result
        obs.require(
            f"out is part of a graph ({at})",
            isinstance(out, agk.Tensor) and out.grad_fn is not None,
            hint="run f with recording on: the hooks see only what a recorded graph saves",
        )
        obs.equal(
            f"the number of saved tensors ({at})",
            count,
            hint="count each call of the pack hook, and only the calls of this run",
        )
        obs.equal(
            f"the numbers they hold ({at})",
            numbers,
            hint="add up t.numel() of every tensor handed to pack",
        )
        obs.close(f"out ({at})", out, atol=1e-4)
        obs.call(out.backward)
        for name, t in inputs.items():
            if t.requires_grad:
                obs.close(
                    f"{name}.grad after out.backward() ({at})",
                    t.grad,
                    atol=1e-4,
                    hint="unpack must give back what pack was handed",
                )


