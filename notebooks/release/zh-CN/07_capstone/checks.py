"""The checks of notebook 07, the capstone: a small network, trained and evaluated, and an engine.

Each check runs your answer on inputs it draws itself (layer sizes, networks, points and labels,
expression graphs you have not seen) and reports what it saw. It is compared with what the
instructor's solution gives on the same inputs: here, with the answers recorded for practice;
when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import numpy as np

import autogradkit as agk
import autogradkit.autograd.engine
from autogradkit import nn
from autogradkit.grading.checks import (
    Checks,
    call_graph,
)

check = Checks(__file__)
ACTIVATIONS = (nn.Tanh, nn.Sigmoid, nn.ReLU)


def _network(obs, sizes, activations=None):
    """``Linear`` layers from ``sizes[0]`` to ``sizes[-1]`` with an activation between them
    (``Tanh`` unless ``activations`` says which); every weight and bias is drawn from
    ``obs.rng``, so the network is new on every check."""
    layers = []
    for index, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        layer = nn.Linear(n_in, n_out)
        scale = 1.5 / np.sqrt(n_in)
        with agk.no_grad():
            layer.weight.copy_(
                agk.tensor(obs.rng.normal(0, scale, (n_out, n_in)), dtype=agk.float32)
            )
            layer.bias.copy_(agk.tensor(obs.rng.normal(0, scale, n_out), dtype=agk.float32))
        activation = nn.Tanh if activations is None else activations[index % len(activations)]
        layers += [layer, activation()]
    return nn.Sequential(*layers[:-1])


def _points(obs, n: int, n_features: int = 2):
    return agk.tensor(obs.rng.normal(size=(n, n_features)), dtype=agk.float32)


def _labels_it_gets_partly_right(obs, model, x, n_classes: int):
    """The network's own predictions with a random number of them changed: its accuracy is
    different on every draw, and no constant can match it."""
    with agk.no_grad():
        labels = model(x).argmax(dim=1).numpy().copy()
    wrong = obs.rng.choice(len(labels), size=int(obs.rng.integers(1, len(labels))), replace=False)
    labels[wrong] = (labels[wrong] + obs.rng.integers(1, n_classes, size=len(wrong))) % n_classes
    return agk.tensor(labels, dtype=agk.int64)


def _recording_seen(model) -> list:
    """A list that gets, for every call of one of the model's Linear layers, whether the graph
    was being recorded (a forward pre-hook, notebook 06)."""
    seen = []
    for layer in model:
        if isinstance(layer, nn.Linear):
            layer.register_forward_pre_hook(
                lambda module, inputs: seen.append(agk.is_grad_enabled())
            )
    return seen


def _blobs(obs, n: int, n_classes: int):
    """``n`` points, labelled by the side of a random line they fall on (some noise added)."""
    x = obs.rng.normal(size=(n, 2))
    score = x @ obs.rng.normal(size=2) + obs.rng.normal(0, 0.5, size=n)
    labels = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return agk.tensor(x, dtype=agk.float32), agk.tensor(labels, dtype=agk.int64)


def _regression(obs, n: int, n_features: int):
    """``n`` points and a noisy linear target of shape ``(n, 1)``."""
    x = obs.rng.normal(size=(n, n_features))
    target = x @ obs.rng.normal(size=(n_features, 1)) + obs.rng.normal(0, 0.1, size=(n, 1))
    return agk.tensor(x, dtype=agk.float32), agk.tensor(target, dtype=agk.float32)


def _shape_text(shape) -> str:
    """A predicted shape as it prints, ``(16, 2)``, whether it was written as a tuple, a list
    or ``agk.Size``; anything else as its own text (a prediction that cannot be right)."""
    try:
        numbers = [float(n) for n in shape]
    except (TypeError, ValueError):
        return repr(shape)
    if not all(n.is_integer() for n in numbers):
        return repr(shape)
    return str(tuple(int(n) for n in numbers))


def _python_numbers(values, count: int) -> bool:
    return (
        isinstance(values, list)
        and len(values) == count
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    )


@check.exercise("count_parameters")
def parameter_count(obs, count_parameters):
    """Exercise 1: the number of parameters, from the layer sizes"""
    hand = obs.by_hand(count_parameters)  # runs where nn.Linear does not exist: by design
    for depth in (int(obs.rng.integers(2, 4)), 4):
        sizes = [int(n) for n in obs.rng.integers(1, 65, size=depth + 1)]
        n_params = obs.call(hand, list(sizes))
        obs.require(
            f"count_parameters({sizes}) is a whole number",
            isinstance(n_params, (int, np.integer)) and not isinstance(n_params, bool),
            hint="return an int",
        )
        obs.equal(
            f"count_parameters({sizes})",
            n_params,
            hint="every pair of neighbouring sizes is one Linear layer: count its weights "
            "and its biases",
        )


@check.exercise("weight_grad_shape", "x_grad_is_none")
def backward_prediction(obs, weight_grad_shape, x_grad_is_none):
    """Exercise 2: what backward fills in"""
    obs.predicted(
        "model[0].weight.grad.shape",
        _shape_text(weight_grad_shape),
        hint="a gradient belongs to one tensor: what shape is that tensor?",
    )
    obs.predicted("X.grad is None", x_grad_is_none, hint="did X ask for a gradient?")


# ----- exercise 3: the training loop ---------------------------------------------------------
def _observe_training(obs, what: str, losses, epochs: int, model) -> None:
    """The losses one call returned, and where it left the model's first weight."""
    obs.require(
        f"training_loop returns {epochs} losses, as a list of numbers ({what})",
        _python_numbers(losses, epochs),
        hint="one loss per epoch, each a Python number (loss.item())",
    )
    obs.close(
        f"the loss of the first epoch ({what})",
        losses[0],
        atol=1e-5,
        hint="compute each epoch's loss with the model, loss_fn, X and y you are given",
    )
    obs.close(
        f"the losses of {epochs} epochs ({what})",
        losses,
        atol=1e-5,
        hint="step with the optimizer you are given, when .grad holds this epoch's gradient "
        "and only this epoch's",
    )
    obs.close(
        f"the first layer's weight after training ({what})",
        model[0].weight,
        atol=1e-5,
        hint="train the model you are given, in place",
    )


@check.exercise("training_loop")
def training_loop_trains(obs, training_loop):
    """Exercise 3: your training loop"""
    x, y = _blobs(obs, int(obs.rng.integers(20, 40)), 2)
    model = _network(obs, [2, int(obs.rng.integers(4, 9)), 2])
    lr, epochs = float(obs.rng.uniform(0.1, 0.5)), int(obs.rng.integers(4, 9))
    optimizer = agk.optim.SGD(model.parameters(), lr=lr)
    with agk.enable_grad():  # as in a fresh notebook, whatever an earlier cell left
        losses = obs.call(training_loop, model, nn.CrossEntropyLoss(), optimizer, x, y, epochs)
    _observe_training(obs, "a classifier, SGD", losses, epochs, model)

    n_features = int(obs.rng.integers(2, 5))
    x, target = _regression(obs, int(obs.rng.integers(20, 40)), n_features)
    model = _network(obs, [n_features, int(obs.rng.integers(3, 7)), 1], [nn.ReLU])
    optimizer = agk.optim.Adam(model.parameters(), lr=float(obs.rng.uniform(0.01, 0.05)))
    with agk.enable_grad():
        losses = obs.call(training_loop, model, nn.MSELoss(), optimizer, x, target, 5)
    _observe_training(obs, "a regression, MSELoss and Adam", losses, 5, model)


# ----- exercise 4: accuracy ------------------------------------------------------------------
@check.exercise("accuracy")
def accuracy_no_grad(obs, accuracy):
    """Exercise 4: accuracy under no_grad()"""
    for n_classes in (2, 3):
        model = _network(obs, [2, int(obs.rng.integers(4, 9)), n_classes])
        x = _points(obs, int(obs.rng.integers(30, 80)))
        labels = _labels_it_gets_partly_right(obs, model, x, n_classes)
        recording = _recording_seen(model)
        with agk.enable_grad():  # as in a fresh notebook, whatever an earlier cell left
            result = obs.call(accuracy, model, x, labels)
        obs.require(
            f"accuracy of a {n_classes}-class network is a Python float",
            isinstance(result, float),
            hint="turn the one-element tensor into a Python number",
        )
        obs.close(
            f"accuracy of a {n_classes}-class network on new points",
            result,
            hint="a point's predicted class is the one with the highest score; "
            "count the points where it equals the label, then divide",
        )
        obs.equal(
            f"the {n_classes}-class network ran with recording off",
            bool(recording) and not any(recording),
            hint="evaluation needs no graph: switch recording off around the model call",
        )


# ----- exercise 5: gradient norms per layer --------------------------------------------------
def _deep_network(obs, n_classes: int):
    """A deep, narrow network with a random mix of tanh, sigmoid and ReLU between its layers."""
    depth, width = int(obs.rng.integers(4, 8)), int(obs.rng.integers(4, 9))
    kinds = [ACTIVATIONS[int(i)] for i in obs.rng.integers(0, 3, size=depth - 1)]
    return _network(obs, [2] + [width] * (depth - 1) + [n_classes], kinds), depth


def _observe_norms(obs, what: str, norms, depth: int) -> None:
    obs.require(
        f"weight_grad_norms returns {depth} numbers, one per Linear layer ({what})",
        _python_numbers(norms, depth),
        hint="a list with one Python float for each Linear layer, the first layer first",
    )
    obs.close(
        f"the norm of each layer's weight gradient ({what})",
        norms,
        hint="one backward pass of loss_fn(model(X), y), then the norm of each Linear "
        "layer's weight.grad, the first layer first",
    )


@check.exercise("weight_grad_norms")
def gradient_norms_per_layer(obs, weight_grad_norms):
    """Exercise 5: the gradient each layer's weights get"""
    n_classes = int(obs.rng.integers(2, 4))
    model, depth = _deep_network(obs, n_classes)
    x, y = _blobs(obs, int(obs.rng.integers(20, 50)), n_classes)
    loss_fn = nn.CrossEntropyLoss()
    with agk.enable_grad():
        norms = obs.call(weight_grad_norms, model, loss_fn, x, y)
    _observe_norms(obs, f"a {depth}-layer network", norms, depth)
    with agk.enable_grad():
        again = obs.call(weight_grad_norms, model, loss_fn, x, y)
    _observe_norms(obs, "the same network, asked again", again, depth)


# ----- exercises 6 and 7: a scalar engine of your own ------------------------------------------
class _Node:
    """A stand-in for a ``Value``: only ``children``, the nodes it was computed from."""

    def __init__(self, children=()):
        self.children = children


_UNARY, _BINARY = 1, 2
OPERATIONS = {  # name: how many earlier nodes it uses (_compute computes it)
    "a + b": _BINARY,
    "a * b": _BINARY,
    "a + a": _UNARY,
    "a * a": _UNARY,
    "k + a": _UNARY,
    "a * k": _UNARY,
    "k * a": _UNARY,
    "a.tanh()": _UNARY,
    "a.relu()": _UNARY,
}


def _compute(name: str, a, b, k):
    """The operation ``name`` of ``OPERATIONS`` on ``a`` (and ``b``); ``k`` is a number."""
    if name in ("a.tanh()", "a.relu()"):
        return a.tanh() if name == "a.tanh()" else a.relu()
    left = {"a + b": a, "a * b": a, "a + a": a, "a * a": a, "k + a": k, "k * a": k}.get(name, a)
    right = {"a + b": b, "a * b": b, "a + a": a, "a * a": a, "a * k": k}.get(name, a)
    return left + right if "+" in name else left * right


_WEIGHTS = np.array([3, 3, 1, 1, 1, 1, 1, 3, 2], dtype=float)


def _plan(obs, n_leaves: int, n_steps: int) -> list:
    """A random expression as steps ``(operation, i, j, k)``: node ``n_leaves + s`` is step
    ``s`` applied to earlier nodes ``i`` (and ``j``), the leaves being nodes ``0..n_leaves-1``.
    Operands favour recent nodes (depth) but reach back (forks); ``a + a`` and ``a * a`` use one
    node twice (reuse)."""
    names = list(OPERATIONS)
    steps = []
    for s in range(n_steps):
        n = n_leaves + s
        i, j = (n - int(min(obs.rng.geometric(0.3), n)) for _ in range(2))
        name = names[int(obs.rng.choice(len(names), p=_WEIGHTS / _WEIGHTS.sum()))]
        steps.append((name, i, j, round(float(obs.rng.uniform(-1.5, 1.5)), 2)))
    return steps


def _build(plan: list, leaves: list) -> tuple[list, object]:
    """The plan's nodes, built from ``leaves`` (Values, tensors or ``_Node``s), and its root:
    the sum of every node that no step uses, so that the root depends on all of them."""
    nodes, used = list(leaves), set()
    for name, i, j, k in plan:
        used |= {i, j} if OPERATIONS[name] == _BINARY else {i}
        nodes.append(_compute(name, nodes[i], nodes[j], k))
    unused = [node for index, node in enumerate(nodes) if index not in used]
    root = unused[0]
    for node in unused[1:]:
        root = root + node
    return nodes, root


class _Structure:
    """Builds ``_Node`` graphs with the same operators as Values (the numbers are ignored)."""

    def __init__(self, node: _Node):
        self.node = node

    def _join(self, *others):
        children = tuple(o.node for o in (self, *others) if isinstance(o, _Structure))
        return type(self)(_Node(children))

    def __add__(self, other):
        return self._join(other)

    __radd__ = __mul__ = __rmul__ = __add__

    def tanh(self):
        return self._join()

    relu = tanh


def _has_forks_and_reuse(plan: list) -> bool:
    reuse = any(name in ("a + a", "a * a") for name, *_ in plan)
    uses = [i for _, i, _, _ in plan] + [j for name, _, j, _ in plan if OPERATIONS[name] == _BINARY]
    return reuse and max(np.bincount(uses)) >= 2


def _autogradkit_graph(plan: list, data: list) -> tuple[list, np.ndarray]:
    """The plan built from float64 tensors, its nodes' values and autogradkit's gradients."""
    leaves = [agk.tensor(v, dtype=agk.float64, requires_grad=True) for v in data]
    nodes, root = _build(plan, leaves)
    for node in nodes[len(leaves) :]:
        node.retain_grad()
    root.backward()
    grads = [0.0 if node.grad is None else node.grad.item() for node in nodes]
    return np.array([node.item() for node in nodes]), np.array(grads)


def _expression(obs, data=None):
    """A random expression of 3 to 5 leaves (or of leaves holding ``data``) and 14 to 24
    steps, with forks and reuse, whose values stay moderate and whose gradients are not all
    zero: its plan, the leaves' values, and autogradkit's gradient of every node."""
    for _ in range(1000):
        n_leaves = int(obs.rng.integers(3, 6)) if data is None else len(data)
        plan = _plan(obs, n_leaves, int(obs.rng.integers(14, 25)))
        if data is None:
            leaves = [round(float(v), 3) for v in obs.rng.uniform(-1.5, 1.5, size=n_leaves)]
        else:
            leaves = data
        values, grads = _autogradkit_graph(plan, leaves)
        moderate = np.all(np.abs(values) < 50) and np.all(np.abs(grads) < 500)
        if moderate and _has_forks_and_reuse(plan) and np.count_nonzero(grads[:n_leaves]) >= 2:
            return plan, leaves, grads
    raise RuntimeError("no random expression fits: the generator needs fixing")


def _diamonds(obs) -> tuple[int, list, list]:
    """``count`` diamonds in a row (2**count paths), leaves inside: the count, the leaves'
    values, and where the leaves 1 to 3 go in (``[[diamond, leaf], ...]``, for ``_made``)."""
    count = int(obs.rng.integers(32, 41))
    data = [round(float(v), 3) for v in obs.rng.uniform(0.6, 1.4, size=4)]
    at = [
        [i, leaf]
        for i, leaf in zip(obs.rng.choice(count, size=3, replace=False).tolist(), (1, 2, 3))
    ]
    return count, data, at


def _chain(obs, length: int) -> tuple[list, list]:
    """``length`` additions in a row, deeper than Python lets a function recurse: the leaves'
    values and the numbers added (for ``_made``)."""
    data = [round(float(v), 3) for v in obs.rng.uniform(-1.0, 1.0, size=2)]
    numbers = [round(float(v), 2) for v in obs.rng.uniform(-0.01, 0.01, size=length)]
    return data, numbers


def _made(shape: list, leaves: list) -> tuple[list, object]:
    """The graph ``shape`` describes, built from ``leaves`` (Values, tensors or ``_Node``s): its
    nodes (for a plan) and its root. ``["plan", plan]``, ``["diamonds", count, at]``,
    ``["chain", numbers]`` or ``["one", operation, k]`` (one of ``OPERATIONS``, or
    ``"(a * b).tanh()"``)."""
    kind = shape[0]
    if kind == "plan":
        return _build(shape[1], leaves)
    z = leaves[0]
    if kind == "diamonds":
        at, z = dict((i, leaf) for i, leaf in shape[2]), z.tanh()
        for i in range(shape[1]):
            z = (z + z.tanh()) * 0.5 if i % 2 else z * 0.7 + z.relu() * 0.3
            if i in at:
                z = z * leaves[at[i]]
    elif kind == "chain":
        for k in shape[1]:
            z = z + k * leaves[1]
    elif shape[1] == "(a * b).tanh()":
        z = (z * leaves[1]).tanh()
    else:
        z = _compute(shape[1], z, leaves[-1], shape[2])
    return [], z


# ----- exercise 6: topological order -----------------------------------------------------------
def _observe_order(obs, what: str, order, nodes: list) -> None:
    """``order`` as labels ``node i`` (the i-th node made), and whether each node comes after
    the nodes it was computed from."""
    obs.require(
        f"topological_order returns a list ({what})",
        isinstance(order, (list, tuple)),
        hint="collect the Values in a list and return it",
    )
    ids = [id(node) for node in order]
    obs.require(
        f"each Value appears once ({what})",
        len(ids) == len(set(ids)),
        hint="a Value can be reached along several paths, or be a child twice (a * a): keep "
        "track of the Values you have visited",
    )
    labels = {id(node): f"node {i}" for i, node in enumerate(nodes)}
    obs.equal(
        f"the Values found ({what})",
        sorted(labels.get(id(node), "something that is not in the graph") for node in order),
        hint="every Value the root was computed from, directly or not, and the root itself",
    )
    position = {id(node): index for index, node in enumerate(order)}
    obs.equal(
        f"each Value comes after the Values it was computed from ({what})",
        all(position[id(c)] < position[id(node)] for node in order for c in node.children),
        hint="add a Value to the list only once all of its children are in it",
    )


def _structure_of(build, n_leaves: int) -> tuple[list, _Node]:
    """The graph ``build`` makes, as ``_Node``s: every node, the leaves first, and the root."""
    made = []

    class Recorded(_Structure):
        def __init__(self, node):
            super().__init__(node)
            made.append(node)

    root = build([Recorded(_Node()) for _ in range(n_leaves)])
    return made, root.node


DEPTH = 200  # room for the answer's own calls: a walk with a stack needs few


def _without_recursion(obs, answer, name: str) -> None:
    """The answer's code has no function that calls itself, directly or through another."""
    obs.holds(
        f"{name} has no function that calls itself",
        call_graph(answer),
        "acyclic",
        hint="Python stops a recursion about 1,000 calls deep: keep a stack of your own",
    )


# The sort runs by hand, where there is no kit and no check: on stand-ins of the Values made
# from the graph as data (children only), so neither autogradkit nor the check's own list of
# the nodes it made (a topological order already) is there to read, and what comes back is data
def _as_data(root: _Node, known: list) -> list:
    """``root``'s graph as data: per node (``root`` first, each once) ``[its place in known,
    [its children's places]]``. ``known``, the nodes an earlier sort of the check was given,
    gets the new ones: a node keeps its place, and its stand-in, from sort to sort."""
    place = {id(node): k for k, node in enumerate(known)}
    nodes, seen, todo = [], set(), [root]
    while todo:
        node = todo.pop()
        if id(node) not in seen:
            seen.add(id(node))
            nodes.append(node)
            todo += list(node.children)
    for node in nodes:
        if id(node) not in place:
            place[id(node)] = len(known)
            known.append(node)
    return [[place[id(node)], [place[id(c)] for c in node.children]] for node in nodes]


def _sorting(answer):
    """A trial of a sort (by hand): ``answer`` gets the stand-in of the root; what it returns
    comes back as places (-1: not a node of the graph), None when it is no list; ``deep``:
    ``"RecursionError"`` when Python ran out of stack."""
    made = {}  # a node's stand-in, by its place: the same object from sort to sort

    def run(graph, deep):
        value = type("Value", (), {})
        for place, _ in graph:
            made[place] = made[place] if place in made else value()
        for place, children in graph:
            made[place].children = tuple(made[c] for c in children)
        try:
            found = answer(made[graph[0][0]])
        except RecursionError:
            if deep:
                return "RecursionError"
            raise
        if not isinstance(found, (list, tuple)):
            return None
        where = {id(node): place for place, node in made.items()}
        return [where.get(id(item), -1) for item in found]

    return run


def _sorter(obs, topological_order) -> tuple:
    """The answer, by hand, around ``_sorting``; and the nodes its sorts were given."""
    return obs.by_hand(topological_order, recursion_limit=DEPTH, around=_sorting), []


def _sort(obs, sorter, root, seconds: float = 20.0, deep: bool = False):
    """The sort of ``root``'s graph, time-limited, with room for ``DEPTH`` nested calls: the
    nodes it returned (anything else as a node of no graph); on a ``deep`` graph,
    ``RecursionError`` (the class) when Python ran out of stack."""
    hand, known = sorter
    graph = _as_data(root, known)
    hand.timeout = seconds
    found = obs.call(hand, graph, deep)
    if found == "RecursionError":
        return RecursionError
    if not isinstance(found, list):
        return None
    inside = range(len(known))
    return [known[label] if label in inside else _Node() for label in found]


@check.exercise("topological_order")
def order_of_the_graph(obs, topological_order):
    """Exercise 6: the Values in topological order, each once, without recursion"""
    _without_recursion(obs, topological_order, "topological_order")
    sorter = _sorter(obs, topological_order)  # by hand: nothing of the kit or the check there
    plan, data, _ = _expression(obs)
    nodes, root = _structure_of(lambda leaves: _build(plan, leaves)[1], len(data))
    order = _sort(obs, sorter, root)
    _observe_order(obs, f"an expression of {len(nodes)} Values", order, nodes)

    count, data, at = _diamonds(obs)
    nodes, root = _structure_of(lambda leaves: _made(["diamonds", count, at], leaves)[1], len(data))
    order = _sort(obs, sorter, root, 5.0)  # one visit per path would take hours
    _observe_order(obs, f"{count} diamonds in a row", order, nodes)

    data, numbers = _chain(obs, 5000)
    nodes, root = _structure_of(lambda leaves: _made(["chain", numbers], leaves)[1], len(data))
    order = _sort(obs, sorter, root, deep=True)
    obs.require(
        "a chain of 5,000 additions is sorted without a RecursionError",
        order is not RecursionError,
        hint="Python stops a recursion about 1,000 calls deep: keep a stack of your own",
    )
    _observe_order(obs, "a chain of 5,000 additions", order, nodes)


# ----- exercise 7: Value -----------------------------------------------------------------------
# Your engine runs by hand, where there is no autogradkit at all: Value and what the check
# builds with it cross as code, the numbers as data, and what comes back is data
def _running(value_class):
    """A trial of ``value_class`` (by hand): leaves made from ``data``; for each shape (see
    ``_made``) its graph built on them and ``root.backward()`` called once. Per shape: the
    root's data, the leaves' gradients, each node's data and gradient; or, ``deep``,
    ``"RecursionError"`` when Python ran out of stack."""

    def run(shapes, data, deep):
        leaves, seen = [value_class(v) for v in data], []
        for shape in shapes:
            try:
                nodes, root = _made(shape, leaves)
                root.backward()
            except RecursionError:
                if deep:
                    return "RecursionError"
                raise
            seen.append({"root": root.data, "leaves": [leaf.grad for leaf in leaves]})
            seen[-1].update(data=[v.data for v in nodes], grads=[v.grad for v in nodes])
        return seen

    return run


def _engine(obs, what: str, engine, shapes, data, seconds: float = 20.0, deep: bool = False):
    """``engine`` (``_engine_of``'s) on ``shapes`` over leaves holding ``data``, time-limited; a
    ``deep`` graph must not run Python out of stack."""
    engine.timeout = seconds
    ran = obs.call(engine, shapes, data, deep)
    if deep:
        obs.require(
            f"{what} runs backward without a RecursionError",
            ran != "RecursionError",
            hint="Python stops a recursion about 1,000 calls deep: keep a stack of your own",
        )
    return ran


def _engine_of(obs, value_class):
    """The student's Value, by hand (no autogradkit exists there), around ``_running``."""
    return obs.by_hand(value_class, recursion_limit=DEPTH, around=_running)


# A local gradient is a formula, exact to the last bits; a difference quotient is off by 1e-11
# or more at any step, so it misses (the order of the sums may differ: a few bits)
EXACT = {"atol": 1e-12, "rtol": 1e-12}


def _one_operation(obs, engine, what: str, shape: list, data: list, hint: str) -> None:
    """One operation on fresh leaves: the result's value and every leaf's gradient."""
    ran = _engine(obs, what, engine, [shape], data)[0]
    numbers = [ran["root"]] + ran["leaves"]
    obs.close(f"{what}: its value and the gradient of each leaf", numbers, hint=hint, **EXACT)


def _agree(grads, expected: np.ndarray) -> bool:
    """Whether ``grads`` are numbers close to ``expected`` (autogradkit's)."""
    try:
        found = np.array(grads, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return found.shape == expected.shape and np.allclose(found, expected, atol=1e-6, rtol=1e-4)


def _is_value_class(value_class) -> bool:
    return isinstance(value_class, type)


@check.exercise("Value")
def engine_against_autogradkit(obs, Value):  # noqa: N803  (the notebook's class)
    """Exercise 7: your engine's gradients against autogradkit's"""
    obs.require("Value is a class", _is_value_class(Value), hint="class Value: ...")
    a, b = (round(float(v), 3) for v in obs.rng.uniform(0.2, 2.0, size=2) * [1, -1])
    k = round(float(obs.rng.uniform(0.5, 3.0)), 2)
    engine = _engine_of(obs, Value)
    for what, shape, data, hint in (
        ("a + b", ["one", "a + b", k], [a, b], "d(a + b)/da = 1, and the same for b"),
        ("a * b", ["one", "a * b", k], [a, b], "d(a * b)/da = b, and d(a * b)/db = a"),
        ("a.tanh()", ["one", "a.tanh()", k], [a], "d tanh(a)/da = 1 - tanh(a)²"),
        ("a.relu() for a > 0", ["one", "a.relu()", k], [abs(a)], "relu passes the gradient on"),
        ("a.relu() for a < 0", ["one", "a.relu()", k], [-abs(a)], "relu is flat below zero"),
        (f"{k} * a", ["one", "k * a", k], [a], "a number becomes a Value with no children"),
        (f"{k} + a", ["one", "k + a", k], [a], "a number becomes a Value with no children"),
        (
            "a * a",
            ["one", "a * a", k],
            [a],
            "a Value used twice gets the sum of the gradients of its uses: add into .grad with +=",
        ),
        (
            "(a * b).tanh()",
            ["one", "(a * b).tanh()", k],
            [a, b],
            "from the root back: a * b must have its gradient from tanh before it passes it on",
        ),
    ):
        _one_operation(obs, engine, what, shape, data, hint)

    for number in (1, 2):
        plan, data, autogradkit_grads = _expression(obs)
        nodes = len(data) + len(plan)
        what = f"random graph {number} ({nodes} Values, with forks and reuse)"
        ran = _engine(obs, what, engine, [["plan", plan]], data)[0]
        obs.close(f"{what}: each Value's data", ran["data"])
        obs.require(
            f"{what}: each Value's gradient agrees with autogradkit's",
            _agree(ran["grads"], autogradkit_grads),
            hint="after root.backward(), each Value's .grad is d(root)/d(Value): run the chain "
            "rule once per Value, from the root back, in reverse topological order",
        )
        obs.close(f"{what}: each Value's gradient", ran["grads"], **EXACT)

    count, data, at = _diamonds(obs)
    what = f"{count} diamonds in a row"
    ran = _engine(obs, what, engine, [["diamonds", count, at]], data, seconds=5.0)[0]
    obs.close(
        f"{count} diamonds in a row: the leaves' gradients",
        ran["leaves"],
        hint="visit each Value once, in topological order",
    )

    data, numbers = _chain(obs, 5000)
    what = "a chain of 5,000 additions"
    ran = _engine(obs, what, engine, [["chain", numbers]], data, deep=True)[0]
    obs.close("a chain of 5,000 additions: the leaves' gradients", ran["leaves"])


