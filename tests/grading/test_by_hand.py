"""By hand, by design: an answer run through ``obs.by_hand`` reaches no route to the kit's
differentiation, whatever it tries; plain data crosses over both ways; the check API's other
guards (counters of the graph under test, structure as structure, values as the only pass)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.autograd import engine, functional, targets
from autogradkit.grading import by_hand, checks
from autogradkit.grading.by_hand import ALLOWED_MODULES, ByHand, HandRaised, RefusedByHand
from autogradkit.grading.checks import (
    Checks,
    backward_passes,
    call_graph,
    hooks_fired,
    kit_names,
    recursion_limit,
    refuse_library,
)
from autogradkit.grading.observations import Observation, Record, judge, judge_record

KEPT_GRAD = targets.grad  # a reference kept before the check, as a student's notebook may
KEPT_BACKWARD = engine.backward
KIT_FILE = agk.__file__


def cube_slope(x):
    return 3 * x**2


# ----- every route to the kit is refused -------------------------------------------------------
def by_autograd(x):
    t = agk.tensor(x, requires_grad=True)
    (t**3).backward()
    return t.grad.item()


def by_a_kept_reference(x):
    t = agk.tensor(x, requires_grad=True)
    return KEPT_GRAD(t**3, t)[0].item()


def by_a_kept_backward(x):
    t = agk.tensor(x, requires_grad=True)
    KEPT_BACKWARD([t**3])
    return t.grad.item()


def by_an_import_inside(x):
    import autogradkit

    t = autogradkit.tensor(x, requires_grad=True)
    (t**3).backward()
    return t.grad.item()


def by_calling_a_node(x):
    t = agk.tensor(x, requires_grad=True)
    node = (t**3).grad_fn
    with agk.no_grad():
        return node(agk.tensor(1.0))[0].item()


def by_function_backward(x):
    t = agk.tensor(x, requires_grad=True)
    node = (t**3).grad_fn
    with agk.no_grad():
        return type(node).backward(node, agk.tensor(1.0))


def by_functional(x):
    return functional.jacobian(lambda t: t**3, agk.tensor(x)).item()


def by_gradcheck(x):
    return agk.autograd.gradcheck(
        lambda t: t**3, (agk.tensor(x, dtype=agk.float64, requires_grad=True),)
    )


def by_the_tracer(x):
    from autogradkit.viz import trace

    return trace


def by_importlib(x):
    import importlib.util

    spec = importlib.util.spec_from_file_location("kit", KIT_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tensor(x)


def by_reading_the_source(x):
    with open(KIT_FILE) as source:
        return source.read()


def by_a_subprocess(x):
    import subprocess

    return subprocess.run([sys.executable, "-c", "import autogradkit"]).returncode


def by_os_system(x):
    import os

    return os.system("true")


def by_ctypes(x):
    import ctypes  # NumPy loaded it: the import itself is no event

    return ctypes.string_at(id(x), 8)  # reading (or writing) memory is


def by_gc(x):
    import gc

    return len(gc.get_objects())


def by_sys_modules(x):
    import sys

    return sys.modules["autogradkit"].tensor(x)


ROUTES = [
    by_autograd,
    by_a_kept_reference,
    by_a_kept_backward,
    by_an_import_inside,
    by_calling_a_node,
    by_function_backward,
    by_functional,
    by_gradcheck,
    by_the_tracer,
    by_importlib,
    by_reading_the_source,
    by_a_subprocess,
    by_os_system,
    by_ctypes,
    by_gc,
]


@pytest.mark.parametrize("route", ROUTES, ids=lambda f: f.__name__)
def test_every_route_to_the_kit_works_in_the_kernel_and_is_refused_by_hand(route):
    if route not in (by_importlib, by_reading_the_source, by_a_subprocess, by_os_system, by_gc):
        assert route(2.0) is not None  # the shortcut works where student code runs
    with refuse_library(agk.autograd, "backward", "grad", exercise="it"):
        if route in (by_a_kept_reference, by_a_kept_backward, by_calling_a_node):
            assert route(2.0) is not None  # patching names is not enough
    hand = ByHand(route)
    try:
        with pytest.raises(RefusedByHand):
            hand(2.0)
    finally:
        hand.close()


# ----- numbers are real: complex-step differentiation has nothing to start from ----------------
def by_a_complex_literal(x):
    return ((x + 1e-20j) ** 3).imag / 1e-20


def by_the_complex_type(x):
    return (complex(x, 1e-20) ** 3).imag / 1e-20


def by_cmath(x):
    import cmath

    return (cmath.exp(complex(x, 1e-20))).imag / 1e-20


def by_a_helper_with_a_complex_default(x, unit=1j):
    return ((x + 1e-20 * unit) ** 3).imag / 1e-20


def by_a_class_with_a_complex_constant(x):
    class Step:
        unit = 1j

    return ((x + 1e-20 * Step.unit) ** 3).imag / 1e-20


COMPLEX_ROUTES = [
    by_a_complex_literal,
    by_the_complex_type,
    by_cmath,
    by_a_helper_with_a_complex_default,
    by_a_class_with_a_complex_constant,
]


def assert_refused_by_hand(answer, match: str, argument: float) -> None:
    """``answer(argument)``, run by hand, raises ``RefusedByHand`` saying ``match``."""
    hand = ByHand(answer)
    try:
        with pytest.raises(RefusedByHand, match=match):
            hand(argument)
    finally:
        hand.close()


@pytest.mark.parametrize("route", COMPLEX_ROUTES, ids=lambda f: f.__name__)
def test_complex_step_works_in_the_kernel_and_is_refused_by_hand(route):
    # Issue 29, item 2: Im f(x + ih) / h is f'(x) to rounding, closer than any tolerance that
    # lets the paper formula pass; the by-hand interpreter has no complex number to start from.
    if route is not by_cmath:
        assert abs(route(2.0) - 12.0) < 1e-12
    assert_refused_by_hand(route, "real numbers|complex|cmath", 2.0)


def test_complex_data_does_not_cross_into_a_by_hand_check():
    hand = ByHand(cube_slope)
    try:
        for unit in (1j, np.complex128(1j), np.array([1j])):
            with pytest.raises(TypeError, match="cannot cross"):
                hand(2.0 + 1e-20 * unit)
        assert hand(2.0) == 12.0  # real numbers, as ever
    finally:
        hand.close()


def test_sys_modules_holds_no_kit_by_hand():
    hand = ByHand(by_sys_modules)
    try:
        with pytest.raises(HandRaised) as raised:
            hand(2.0)
        assert raised.value.kind == "KeyError"
    finally:
        hand.close()


def test_helpers_modules_and_plain_data_cross_over():
    scale = np.array([1.0, 2.0], dtype=np.float32)

    def uses_them(x, *, extra=1):
        print("seen", x)
        return cube_slope(x) * scale + extra, {"shape": scale.shape}, np.float64(x)

    hand = ByHand(uses_them)
    try:
        value, info, scalar = hand(2.0, extra=3)
        assert value.dtype == np.float32 and value.tolist() == [15.0, 27.0]
        assert info == {"shape": (2,)} and scalar == np.float64(2.0)
    finally:
        hand.close()


@pytest.mark.parametrize("module", sorted(ALLOWED_MODULES))
def test_each_allowed_module_imports_inside_an_answer(module):
    """An import inside the answer's body runs by hand, after the audit hook: each module the
    crossing allows must import there too (``import copy`` was refused as code not rebuilt)."""

    def imports(name):
        import importlib

        return importlib.import_module(name).__name__

    hand = ByHand(imports)
    try:
        assert hand(module) == module
    finally:
        hand.close()


@pytest.mark.parametrize("forking", [[True], []], ids=["forked", "launched"])
def test_an_answer_that_never_returns_times_out_and_its_interpreter_ends(forking, monkeypatch):
    def loops(x):
        while True:
            pass

    monkeypatch.setattr(by_hand, "_forking", forking)
    hand = ByHand(loops, timeout=0.5)
    with pytest.raises(TimeoutError):
        hand(1.0)
    assert hand.process is None


def test_the_recursion_limit_holds_and_cannot_be_raised_by_hand():
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    def raises_the_limit(n):
        import sys

        sys.setrecursionlimit(10_000)
        return depth(n)

    for answer, error in ((depth, RecursionError), (raises_the_limit, RefusedByHand)):
        hand = ByHand(answer, recursion_limit=50)
        try:
            with pytest.raises(error):
                hand(200)
        finally:
            hand.close()


# ----- forked from the fork server: as locked down as a fresh interpreter ---------------------
def what_it_holds(x):
    """The modules and the file descriptors an answer finds where it runs."""
    import os
    import stat
    import sys

    def same(a, b):
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)

    channel, null = os.fstat(0), os.stat(os.devnull)
    found = []
    for fd in range(256):
        try:
            seen = os.fstat(fd)
        except OSError:
            continue
        kind = "channel" if same(seen, channel) else "null" if same(seen, null) else "other"
        found.append([fd, "pipe" if stat.S_ISFIFO(seen.st_mode) and fd > 0 else kind])
    return sorted(sys.modules), found


def held_by_hand(answer, **options):
    hand = ByHand(answer, **options)
    try:
        return hand(2.0), type(hand.process)
    finally:
        hand.close()


def test_a_forked_interpreter_holds_the_modules_and_files_of_a_fresh_one(monkeypatch):
    (modules, descriptors), served_by = held_by_hand(what_it_holds)
    assert served_by is by_hand.Forked
    assert not [name for name in modules if name.startswith("autogradkit")]
    assert not {"socket", "_socket", "select", "selectors"} & set(modules)  # the server's own
    # its one socket on stdin and on the answers' channel; /dev/null for prints and errors
    assert {kind for _, kind in descriptors} == {"channel", "null"}
    monkeypatch.setattr(by_hand, "_forking", [])  # launched, as where there is no fork
    (fresh_modules, fresh_descriptors), served_by = held_by_hand(what_it_holds)
    assert served_by is subprocess.Popen
    assert modules == fresh_modules
    assert [fd for fd, _ in descriptors] == [fd for fd, _ in fresh_descriptors]
    assert {kind for _, kind in fresh_descriptors} == {"channel", "pipe", "null"}


def draws_unseeded(x):
    import numpy as np

    return np.random.rand(3).tolist()


@pytest.mark.parametrize("forking", [[True], []], ids=["forked", "launched"])
def test_numpy_random_works_by_hand_and_each_forked_child_draws_its_own(forking, monkeypatch):
    """An honest answer may draw its starting weights with NumPy (``default_rng(0)``, or
    ``np.random.seed``): ``numpy.random`` loads on first use, which the audit hook refused.
    It is loaded before the hook now, and a child forked from the server draws fresh numbers,
    not the server's (its legacy generator is seeded again)."""

    def seeded(x):
        import numpy as np

        np.random.seed(0)
        return float(np.random.default_rng(0).normal() + np.random.rand() * 0 + x)

    monkeypatch.setattr(by_hand, "_forking", forking)
    assert held_by_hand(seeded)[0] == float(np.random.default_rng(0).normal() + 2.0)
    first, second = held_by_hand(draws_unseeded)[0], held_by_hand(draws_unseeded)[0]
    assert first != second


def reachable_classes(x):
    """Every class an answer finds from ``object`` down, as ``module.name``."""
    seen, todo = set(), [object]
    while todo:
        for sub in type.__subclasses__(todo.pop()):
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return sorted({f"{c.__module__}.{c.__qualname__}" for c in seen})


def by_the_servers_socket_type(x):
    kind = next(c for c in object.__subclasses__() if c.__module__ == "_socket")
    return kind(fileno=0).recv(1)


def test_a_forked_interpreter_finds_no_class_of_the_server_but_an_inert_socket_type(
    monkeypatch,
):
    """The server's socket module and its classes are gone; the C module under it stays loaded
    (as C modules do): its socket type, whose every socket is made through the audit event
    the hook refuses, and two exception classes."""
    forked, served_by = held_by_hand(reachable_classes)
    assert served_by is by_hand.Forked
    monkeypatch.setattr(by_hand, "_forking", [])
    fresh = held_by_hand(reachable_classes)[0]
    assert set(forked) - set(fresh) == {"_socket.socket", "socket.gaierror", "socket.herror"}
    monkeypatch.undo()
    assert_refused_by_hand(by_the_servers_socket_type, "socket", 1.0)


def test_a_forked_interpreter_with_the_kit_holds_no_check_machinery():
    def kit_modules(x):
        import sys

        return sorted(name for name in sys.modules if name.startswith("autogradkit"))

    modules, served_by = held_by_hand(kit_modules, kit_without=("autogradkit.optim",))
    assert served_by is by_hand.Forked
    assert "autogradkit.tensor" in modules  # the kit, imported before the hook
    assert not [name for name in modules if name.startswith("autogradkit.grading.")]


# a "fork server" of the student's own: what it forks runs the answer where the kit is
PLANTED = """
import base64, json, marshal, sys, types
import autogradkit as agk
bundle = json.loads(sys.stdin.readline())
code = marshal.loads(base64.b64decode(bundle["functions"][bundle["answer"]["function"]]["code"]))
answer = types.FunctionType(code, {"agk": agk, "KEPT_GRAD": agk.autograd.targets.grad})
for line in sys.stdin:
    print(json.dumps({"value": answer(*json.loads(line)["args"])}), flush=True)
"""


class PlantedServer:
    def fork(self):
        return subprocess.Popen(
            [sys.executable, "-c", PLANTED],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def kill(self):
        self.killed = True

    def wait(self):
        pass


def test_a_fork_server_planted_by_student_code_is_never_used():
    assert held_by_hand(cube_slope)[0] == 12.0
    planted = PlantedServer()
    by_hand._fork_server[:] = [planted]
    by_hand.end_spare()  # the guard, before each graded test cell
    hand = ByHand(by_a_kept_reference)
    try:
        with pytest.raises(RefusedByHand):
            hand(2.0)
        assert type(by_hand._fork_server[0]) is by_hand.ForkServer
    finally:
        hand.close()
    assert planted.killed


def test_a_fork_server_that_stopped_is_replaced_and_one_that_cannot_fork_launches(monkeypatch):
    assert held_by_hand(cube_slope) == (12.0, by_hand.Forked)
    server = by_hand._fork_server[0]
    server.process.kill()
    server.process.wait()
    assert held_by_hand(cube_slope) == (12.0, subprocess.Popen)  # launched this once
    assert held_by_hand(cube_slope) == (12.0, by_hand.Forked)  # a new server
    assert by_hand._fork_server[0] is not server

    def cannot_fork(self):
        raise OSError("no fork here")

    monkeypatch.setattr(by_hand.ForkServer, "fork", cannot_fork)
    monkeypatch.setattr(by_hand, "_forking", [True])
    by_hand.end_spare()
    for _ in range(2):
        assert held_by_hand(cube_slope) == (12.0, subprocess.Popen)
        assert not by_hand._forking and not by_hand._fork_server  # not started again


def test_a_fork_interrupted_midway_ends_its_server(monkeypatch):
    """Its reply, read by the next fork, would name the wrong child: one a timeout never kills."""
    assert held_by_hand(cube_slope) == (12.0, by_hand.Forked)
    server = by_hand._fork_server[0]

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(by_hand.socket, "recv_fds", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ByHand(cube_slope)(2.0)
    monkeypatch.undo()
    assert server.process.wait(timeout=10) is not None
    assert held_by_hand(cube_slope)[0] == 12.0
    assert held_by_hand(cube_slope) == (12.0, by_hand.Forked)


def test_a_default_socket_timeout_set_in_the_kernel_changes_nothing():
    import socket

    by_hand.end_spare()
    socket.setdefaulttimeout(0.001)  # every new socket non-blocking, as student code may set
    try:
        assert held_by_hand(cube_slope) == (12.0, by_hand.Forked)  # a new server
        assert held_by_hand(cube_slope) == (12.0, by_hand.Forked)
    finally:
        socket.setdefaulttimeout(None)


def test_an_interpreter_that_stops_says_so_forked_or_launched(monkeypatch):
    def stops(x):
        import os

        os._exit(3)

    for forking in ([True], []):
        monkeypatch.setattr(by_hand, "_forking", forking)
        hand = ByHand(stops)
        with pytest.raises(HandRaised, match="stopped") as raised:
            hand(1.0)
        assert raised.value.kind == "SystemExit" and hand.process is None


# ----- the check API around it -----------------------------------------------------------------
check = Checks(__file__)


@check.exercise("slope")
def slope_by_hand(obs, slope):
    """a slope by hand"""
    hand = obs.by_hand(slope)
    for x in obs.rng.uniform(-2, 2, size=3):
        obs.close(f"slope({x:.2f})", obs.call(hand, float(x)), atol=1e-9, rtol=1e-9)


def test_a_by_hand_check_passes_the_mechanism_and_refuses_autograd():
    want = slope_by_hand.observe(seed=5, slope=cube_slope)
    assert judge_record(want, slope_by_hand.observe(seed=5, slope=cube_slope)).passed
    seen = slope_by_hand.observe(seed=5, slope=by_a_kept_reference)
    assert seen.stopped == {"reason": "refused"}
    assert not judge_record(want, seen).passed


def test_a_by_hand_error_names_the_built_in_exception():
    seen = slope_by_hand.observe(seed=5, slope=lambda x: 1 / 0)
    assert seen.stopped == {"reason": "raised", "error": "ZeroDivisionError"}


def test_a_record_of_booleans_alone_never_passes():
    # Issue 28: a check of only obs.require and boolean obs.equal sent True, which a kernel
    # that replaced IPython's display could send without any answer.
    gates = [Observation("returns a leaf", True), Observation("ran", True)]
    want = Record("leaf", "Exercise: a leaf", observations=gates)
    forged = Record("leaf", "Exercise: a leaf", observations=list(gates))
    verdict = judge_record(want, forged)
    assert not verdict.passed
    assert "compares no value" in verdict.lines[-1]
    valued = [*gates, Observation("x.grad", [1.0, 2.0], kind="close")]
    assert judge_record(
        Record("leaf", "t", observations=valued), Record("leaf", "t", observations=valued)
    ).passed


def test_properties_are_computed_by_the_grader():
    acyclic = Observation("no recursion", [], kind="acyclic")
    assert judge(acyclic, Observation("x", [["walk", "visit"]])) == ""
    assert "calls itself" in judge(
        acyclic, Observation("x", [["walk", "visit"], ["visit", "walk"]])
    )
    assert judge(acyclic, Observation("x", True)) == "this is not right"
    distinct = Observation("each node once", [], kind="distinct")
    assert judge(distinct, Observation("x", ["a", "b"])) == ""
    assert "more than once" in judge(distinct, Observation("x", ["a", "b", "a"]))
    empty = Observation("public API only", [], kind="empty")
    assert judge(empty, Observation("x", ["_nodes_leading_to"])) != ""


# ----- counters count the graph under test -----------------------------------------------------
def test_an_empty_backward_elsewhere_adds_nothing():
    w = agk.tensor([1.0, 2.0], requires_grad=True)
    with backward_passes(w=w) as passes:
        (w * 3).sum().backward()
        agk.tensor(0.0, requires_grad=True).backward()  # the shortcut of issue 29, family 3
        y = (w**2).sum()
        agk.autograd.grad(y, w)
    assert passes == [["w"], [], ["w"]]


def test_a_hook_on_another_tensor_is_not_counted():
    w = agk.tensor([1.0, 2.0], requires_grad=True)
    stray = agk.tensor(1.0, requires_grad=True)
    with hooks_fired(w=w) as fired:
        stray.register_hook(lambda g: None)
        (stray * 2).backward()
        w.register_hook(lambda g: g * 2)
        (w * 3).sum().backward()
    assert fired == ["w"] and w.grad.tolist() == [6.0, 6.0]


# ----- structure judged as structure -----------------------------------------------------------
def walk_recursively(node, seen):
    for child in node:
        walk_recursively(child, seen)


def visit(node):
    return revisit(node)


def revisit(node):
    return [visit(child) for child in node]


def walk_with_a_stack(root):
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node)
    return order


def test_recursion_direct_or_through_another_function_is_a_cycle_in_the_code():
    acyclic = Observation("no recursion", [], kind="acyclic")
    assert judge(acyclic, Observation("x", call_graph(walk_with_a_stack))) == ""
    for recursive in (walk_recursively, visit):
        assert judge(acyclic, Observation("x", call_graph(recursive))) != ""


def test_the_recursion_limit_cannot_be_raised_inside_and_a_kept_setter_shows():
    kept = sys.setrecursionlimit
    before = sys.getrecursionlimit()
    with recursion_limit(40) as limit:
        with pytest.raises(Exception, match="without recursion"):
            sys.setrecursionlimit(10_000)
    assert limit == [40]
    with pytest.raises(checks._Stop) as stopped, recursion_limit(40) as limit:
        kept(10_000)
        assert sys.getrecursionlimit() == 10_000
        (lambda: None)()  # the next call: the limit is put back
        assert sys.getrecursionlimit() != 10_000
    assert stopped.value.stopped == {"reason": "refused"}
    assert limit != [40] and sys.getrecursionlimit() == before


def test_private_helpers_and_introspection_are_named():
    def private(t):
        return engine._nodes_leading_to([t.grad_fn], set())

    def introspecting(t):
        return getattr(engine, "_nodes_leading_" + "to")

    def public(t):
        return [n for n, _ in t.grad_fn.next_functions]

    assert kit_names(private) == ["_nodes_leading_to"]
    assert kit_names(introspecting) == ["getattr"]
    assert kit_names(public) == []


# ----- where grading runs: the bubblewrap sandbox ---------------------------------------------
IN_THE_SANDBOX = """
import linecache

import autogradkit as agk
from autogradkit.grading.by_hand import ByHand, RefusedByHand

CELL = '''
kept = agk.autograd.targets.grad

def slope(x):
    return 3 * x ** 2

def cheat(x):
    t = agk.tensor(x, requires_grad=True)
    return kept(t ** 3, t)[0].item()

def step(values):
    w = agk.tensor(values, requires_grad=True)
    (w * w).sum().backward()
    with agk.no_grad():
        w -= 0.25 * w.grad
    return w.tolist()

def library_step(values):
    w = agk.tensor(values, requires_grad=True)
    (w * w).sum().backward()
    agk.optim.SGD([w], lr=0.25).step()
    return w.tolist()
'''
linecache.cache["<cell>"] = (len(CELL), None, CELL.splitlines(True), "<cell>")  # as IPython does
exec(compile(CELL, "<cell>", "exec"))

hand = ByHand(slope)
print("slope", hand(2.0))
print("served by", type(hand.process).__name__)  # forked there too
hand.close()
try:
    ByHand(cheat)(2.0)
except RefusedByHand as refused:
    print("refused", refused)
print("step", ByHand(step, kit_without=("autogradkit.optim",))([2.0]))  # obs.without
try:
    ByHand(library_step, kit_without=("autogradkit.optim",))([2.0])
except RefusedByHand as refused:
    print("without", refused)
"""


def test_by_hand_runs_inside_the_grading_sandbox(sandbox, tmp_path):
    import subprocess

    from autogradkit_instructor.sandbox import Box

    box = Box(str(tmp_path))
    command = sandbox.command(box, [sys.executable, "-c", IN_THE_SANDBOX])
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, **sandbox.spawn_options(box)
    )
    assert done.returncode == 0, done.stderr
    assert "slope 12.0" in done.stdout
    assert "served by Forked" in done.stdout
    assert "refused a by-hand answer cannot use" in done.stdout
    assert "step [1.0]" in done.stdout  # the kit there, but for its optimizers
    assert "without this exercise is done without autogradkit.optim" in done.stdout


def _named_tuple(x):
    import collections

    point = collections.namedtuple("Point", "x y")
    return point(x, 2 * x).y


def _enum(x):
    import enum

    sign = enum.Enum("Sign", "NEGATIVE POSITIVE")
    return x * (1 if sign.POSITIVE.value == 2 else -1)


def _context_manager_that_meets_an_error(x):
    import contextlib

    @contextlib.contextmanager
    def noted(log):
        try:
            yield
        except ZeroDivisionError:
            log.append("divided by zero")

    log = []
    with noted(log):
        x = x / 0
    return len(log)


def _data_class(x):
    import dataclasses

    @dataclasses.dataclass
    class Value:
        data: float
        grad: float = 0.0

    v = Value(x)
    v.grad += 2 * v.data
    return v.grad


def _named_tuple_with_defaults(x):
    import collections
    import typing

    class Pair(typing.NamedTuple):
        value: float
        slope: float = 1.0

    point = collections.namedtuple("Point", "x y", defaults=(0.0,))
    return Pair(x).slope + point(x).y + x


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (_named_tuple, 6.0),
        (_enum, 3.0),
        (_context_manager_that_meets_an_error, 1),
        (_data_class, 6.0),
        (_named_tuple_with_defaults, 4.0),
    ],
    ids=["namedtuple", "Enum", "contextmanager", "dataclass", "NamedTuple-defaults"],
)
def test_honest_standard_library_code_still_works_by_hand(answer, expected):
    """Refusing every route to a frame (they are the check's) must not refuse an honest answer
    whose standard library reads its caller's frame for a module's name: ``namedtuple`` and
    ``Enum("Sign", ...)`` were refused as reading a frame. Nor one that writes its ``Value``
    as a ``@dataclass`` (refused as loading a module's code) or gives a named tuple defaults
    (``namedtuple`` sets its ``__new__``'s ``__defaults__``: refused as a function changed)."""
    hand = ByHand(answer)
    try:
        assert hand(3.0) == expected
    finally:
        hand.close()


def test_an_import_of_a_module_not_loaded_by_hand_says_what_an_answer_may_import():
    """``import calendar`` inside an answer is refused (its code would load unjudged): the
    message named "code made but by compile", which tells a student nothing."""

    def dates(x):
        import calendar

        return x * calendar.MONDAY

    hand = ByHand(dates)
    try:
        with pytest.raises(RefusedByHand, match=r"not loaded here \(by hand: numpy, math,"):
            hand(1.0)
    finally:
        hand.close()
