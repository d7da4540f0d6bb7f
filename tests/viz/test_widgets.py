"""viz widgets and the training model, driven from Python: set values, click, read state."""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.viz import (
    BackpropStepper,
    FunctionPlotter,
    TangentExplorer,
    TrainingExplorer,
    dataset,
    function_and_derivative,
    progress,
    tangent_at,
    train_by_hand,
    train_with_autograd,
)
from autogradkit.viz.training import max_difference

from . import examples


# ----- backprop stepper ---------------------------------------------------------------------
def test_stepper_buttons_walk_through_the_trace():
    v = examples.two_layer()
    stepper = BackpropStepper(v["loss"], names=v)
    n = len(stepper.trace.steps)
    assert n == 14 and stepper.slider.max == n
    stepper.step_button.click()
    stepper.step_button.click()
    assert stepper.position == 2
    stepper.back_button.click()
    assert stepper.position == 1
    assert stepper.status.value.startswith("Step 1 of 14: MeanBackward0 received 1.")
    stepper.reset_button.click()
    assert stepper.position == 0 and stepper.status.value.startswith("Before backward")
    stepper.back_button.click()
    assert stepper.position == 0  # clamped


def test_stepper_view_highlights_the_running_node():
    v = examples.article_002()
    stepper = BackpropStepper(v["e"], names=v)
    stepper.go(3)
    svg = ET.fromstring(stepper.view.value)
    running = stepper.graph.id_of(v["c"].grad_fn)
    ns = "{http://www.w3.org/2000/svg}"
    group = next(g for g in svg.iter(f"{ns}g") if g.get("id") == f"agk-{running}")
    assert group.find(f"{ns}rect").get("stroke-width") == "3.0"
    assert "grad: 5." in stepper.view.value  # d.grad was written at step 2
    assert "grad: 4." not in stepper.view.value  # a and b not yet


def test_stepper_last_step_shows_every_leaf_grad():
    v = examples.article_002()
    stepper = BackpropStepper(v["e"], names=v)
    stepper.go(99)
    assert stepper.position == 5
    assert stepper.view.value.count("grad: 4.") == 2 and "grad: 5." in stepper.view.value
    assert v["a"].grad is None  # the stepper changed nothing


def test_stepper_lists_the_ready_queue_as_it_steps():
    v = examples.article_002()
    stepper = BackpropStepper(v["e"], names=v)
    queues = []
    for position in range(6):
        stepper.go(position)
        queues.append(stepper.queue.value.split(".")[0])
    assert queues == [
        "Ready queue (runs left to right): MulBackward0 (e)",
        "Ready queue (runs left to right): AccumulateGrad (d) → AddBackward0 (c)",
        "Ready queue (runs left to right): AddBackward0 (c)",
        "Ready queue (runs left to right): AccumulateGrad (b) → AccumulateGrad (a)",
        "Ready queue (runs left to right): AccumulateGrad (a)",
        "Ready queue: empty",
    ]
    stepper.go(0)
    assert "AddBackward0 (c) for 1 gradient" in stepper.queue.value


def test_stepper_boxes_say_how_many_gradients_a_shared_node_waits_for():
    a = agk.tensor(2.0, requires_grad=True)
    h = a * 3
    y = h.sin() * h  # h is used twice
    stepper = BackpropStepper(y, names={"a": a, "h": h, "y": y})
    texts = []
    for position in range(len(stepper.trace.steps) + 1):
        stepper.go(position)
        svg = ET.fromstring(stepper.view.value)
        group = next(
            g
            for g in svg.iter("{http://www.w3.org/2000/svg}g")
            if g.get("id") == f"agk-{stepper.graph.id_of(h.grad_fn)}"
        )
        texts.append([t.text for t in group.iter("{http://www.w3.org/2000/svg}text")][-1])
    assert texts[:3] == ["waits for 2", "waits for 1", "ready #1"]
    assert texts[-1] == "ran at step 3"
    sizes = set()
    for position in range(len(stepper.trace.steps) + 1):
        svg = ET.fromstring(stepper.drawing(position).svg())
        sizes.add((svg.get("width"), svg.get("height")))
    assert len(sizes) == 1  # the picture never jumps while stepping


def test_play_is_linked_to_the_slider():
    v = examples.article_002()
    stepper = BackpropStepper(v["e"], names=v)
    stepper.play.value = 4
    assert stepper.position == 4
    stepper.slider.value = 1
    assert stepper.play.value == 1


def test_stepper_displays_as_a_widget_with_a_short_text():
    v = examples.article_002()
    stepper = BackpropStepper(v["e"], names=v)
    bundle = stepper._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == (
        "BackpropStepper(5 steps: MulBackward0 -> AccumulateGrad -> AddBackward0 -> "
        "AccumulateGrad -> AccumulateGrad)"
    )


# ----- training -----------------------------------------------------------------------------
def test_one_point_reproduces_the_articles_table():
    rows = train_by_hand(*dataset(1), w=0.0, lr=0.01, epochs=10)
    assert str(rows[0]) == "epoch: 1, loss: 16.00000000, w: 0.160, dw: -16.000"
    assert str(rows[1]) == "epoch: 2, loss: 13.54240036, w: 0.307, dw: -14.720"
    assert f"{rows[-1].w:.3f}" == "1.131"


def test_four_points_with_the_mean_reach_w_2_within_ten_epochs():
    rows = train_by_hand(*dataset(4))
    assert (rows[0].dw, f"{rows[0].w:.3f}") == (-120.0, "1.200")
    assert [f"{r.w:.3f}" for r in rows[:3]] == ["1.200", "1.680", "1.872"]  # as in the article
    assert f"{rows[-1].w:.3f}" == "2.000"
    assert rows[0].loss == 120.0  # mean((0 - y)**2); the article's 30 came from x = 1..4


def test_autograd_training_agrees_with_the_hand_written_gradient():
    for size in (1, 4):
        by_hand = train_by_hand(*dataset(size), epochs=20)
        rows, how = train_with_autograd(*dataset(size), epochs=20)
        assert max_difference(by_hand, rows) < 1e-5
        assert how in ("nn.MSELoss + optim.SGD", "autograd, manual update")


def test_explorer_sliders_retrain_and_redraw():
    explorer = TrainingExplorer()
    assert str(explorer.history[0]) == "epoch: 1, loss: 16.00000000, w: 0.160, dw: -16.000"
    explorer.epochs.value = 3
    assert len(explorer.history) == 3
    [table] = explorer.table.outputs
    assert table["name"] == "stdout" and table["text"].count("\n") == 3
    [plot] = explorer.plot.outputs
    assert plot["output_type"] == "display_data" and "image/png" in plot["data"]
    explorer.size.value = 4
    assert explorer.history[0].dw == -120.0
    assert "agree" in explorer.status.value


def test_explorer_too_large_a_learning_rate_diverges():
    explorer = TrainingExplorer(size=4)
    explorer.lr.value = 0.05  # 2 * mean(x**2) * lr = 3 > 2: every step overshoots further
    losses = [r.loss for r in explorer.history]
    assert losses[-1] > losses[0]


def test_explorer_modes_show_the_same_numbers():
    explorer = TrainingExplorer(size=4, epochs=10)
    by_hand = explorer.history
    explorer.mode.value = "autograd"
    assert explorer.history is not by_hand
    assert max_difference(explorer.history, by_hand) < 1e-5
    assert explorer.table.outputs[0]["text"].splitlines()[-1].endswith("w: 2.000, dw: -0.031")


# ----- function plotter ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, derivative",
    [
        ("sin", np.cos),
        ("cos", lambda x: -np.sin(x)),
        ("tanh", lambda x: 1 - np.tanh(x) ** 2),
        ("sigmoid", lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
        ("relu", lambda x: (x > 0).astype(np.float32)),
        ("x**3", lambda x: 3 * x**2),
        ("exp", np.exp),
    ],
)
def test_autograd_derivatives_match_the_formulas(name, derivative):
    x, _, dy = function_and_derivative(name)
    assert x.shape == (100,) and x[0] == -5 and x[-1] == 5
    np.testing.assert_allclose(dy, derivative(x), rtol=1e-4, atol=1e-5)


def test_plotter_redraws_when_the_function_changes():
    plotter = FunctionPlotter()
    first = plotter.out.outputs[0]["data"]["image/png"]
    plotter.choice.value = "cos"
    [output] = plotter.out.outputs
    assert output["data"]["image/png"] != first


# ----- tangent explorer ---------------------------------------------------------------------
def test_tangent_slope_is_autograds_derivative_at_each_point():
    for x in (-3.0, -1.5, 0.25, 2.0):
        y, slope = tangent_at(lambda t: t**2 + 3 * t, x)
        assert y == pytest.approx(x**2 + 3 * x) and slope == pytest.approx(2 * x + 3, abs=1e-6)


def test_tangent_explorer_moves_the_point_and_says_where_the_slope_vanishes():
    explorer = TangentExplorer(lambda t: t**2 + 3 * t, "x² + 3x", x=2.0, xlim=(-4, 3))
    first = explorer.out.outputs[0]["data"]["image/png"]
    explorer.x.value = -1.5
    assert explorer.status.value == "x = -1.50: y = -2.25, x.grad = 0.00"
    [output] = explorer.out.outputs
    assert output["data"]["image/png"] != first
    assert repr(explorer) == "TangentExplorer(y = x² + 3x, x = -1.5)"


@pytest.mark.parametrize("x, word", [(-3.0, "falls"), (-1.5, "is flat"), (1.0, "rises")])
def test_tangent_figure_title_reads_the_sign_of_the_slope(x, word):
    from autogradkit.viz.widgets import tangent_figure

    fig = tangent_figure(lambda t: t**2 + 3 * t, x, (-4.0, 3.0), "x² + 3x")
    ax = fig.axes[0]
    assert ax.get_title().endswith(f"so y {word} here")
    tangent = ax.get_lines()[1].get_xydata()
    slope = (tangent[1, 1] - tangent[0, 1]) / (tangent[1, 0] - tangent[0, 0])
    assert slope == pytest.approx(2 * x + 3, abs=1e-6)  # the drawn line has autograd's slope


# ----- progress -----------------------------------------------------------------------------
def test_text_progress_bar_in_a_terminal():
    out = io.StringIO()
    items = list(progress(range(200), description="epochs", file=out, notebook=False))
    assert items == list(range(200))
    frames = out.getvalue().split("\r")
    assert " 0/200 [" in frames[1]  # while it runs: the time and the rate
    last = frames[-1].rstrip()  # what stays: the count alone, the same on every run
    assert last.startswith("epochs: 100%|") and last.endswith("| 200/200")
    assert out.getvalue().count("\r") < 50  # tqdm redraws a few times a second, not per item


def test_text_bar_goes_to_stderr_by_default(capsys):
    for _ in progress([1, 2], notebook=False):
        pass
    assert "| 2/2" in capsys.readouterr().err


def test_notebook_progress_bar_is_tqdms_widget():
    bar = progress(range(10), description="steps", notebook=True)
    for _ in bar:
        pass
    label, progress_widget, counts = bar.container.children
    assert (progress_widget.value, progress_widget.max) == (10, 10)
    assert progress_widget.bar_style == "success" and "steps" in label.value
    assert counts.value.replace("\u2007", " ") == " 10/10"  # figure spaces; no timing kept


def test_unknown_length_counts_items():
    out = io.StringIO()
    for _ in progress(iter(range(3)), file=out, notebook=False):
        pass
    assert out.getvalue().split("\r")[-1].rstrip() == "3it"
    out = io.StringIO()
    for _ in progress(iter(range(3)), description="steps", file=out, notebook=False):
        pass
    assert out.getvalue().split("\r")[-1].rstrip() == "steps: 3it"


def test_viz_imports_without_loading_matplotlib_or_ipywidgets():
    import subprocess

    code = (
        "import sys, autogradkit as agk; agk.viz; "
        "print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    args = [sys.executable, "-c", code]
    result = subprocess.run(args, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_stepper_accepts_a_two_layer_graph_from_tensors_only():
    x = agk.randn(4, 3)
    lin1 = agk.randn(3, 5, requires_grad=True)
    lin2 = agk.randn(5, 1, requires_grad=True)
    loss = (x @ lin1).tanh().matmul(lin2).sum()
    stepper = BackpropStepper(loss)  # names from the caller
    assert "lin1" in stepper.view.value and "lin2" in stepper.view.value
