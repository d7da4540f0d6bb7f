"""Widgets for JupyterLab: a backprop stepper, a training explorer, a function plotter and
a tangent explorer.

They write into Output widgets with ``outputs = ()`` / ``append_stdout`` /
``append_display_data`` (never ``with out:``), so notebooks using them pass nbval, and tests
can drive them from Python: set a slider's value or ``button.click()``, then read the state.
"""

from __future__ import annotations

import inspect
from html import escape

import numpy as np

import autogradkit as agk

from .._i18n import here
from .draw import GraphDrawing, figure_png, new_figure
from .extras import lab_import
from .graph import build_graph, caller_names
from .layout import columns, layout_graph
from .trace import engine_text, trace_backward
from .training import dataset, max_difference, train_by_hand, train_with_autograd, training_figure

__all__ = [
    "FIT_WIDTH",
    "LEARNING_RATES",
    "fig_to_image",
    "BackpropStepper",
    "TrainingExplorer",
    "FUNCTIONS",
    "function_and_derivative",
    "plot_function_and_derivative",
    "FunctionPlotter",
    "tangent_at",
    "tangent_figure",
    "TangentExplorer",
]


FIT_WIDTH = "max-width: 100%; height: auto"  # the stepper's graph shrinks to fit the page
LEARNING_RATES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3)


def fig_to_image(fig):
    """A matplotlib figure as ``IPython.display.Image`` (PNG), which shows the same with or
    without a kernel (a bare figure would only give its text repr outside one)."""
    return lab_import("IPython.display").Image(data=figure_png(fig), format="png")


class _Displayable:
    """Shows ``self.widget`` when displayed, with a short, stable text form (for nbval)."""

    widget = None

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle


class BackpropStepper(_Displayable):
    """Replay the engine's ``backward()`` node by node: Step, Back, Reset and Play.

    The graph is drawn once; each step highlights the node that runs, writes on each arrow
    the gradient it carried and, at an ``AccumulateGrad``, the leaf's new ``.grad``. Each
    backward node also says where it stands in the engine: how many gradients it still
    waits for, its place in the ready queue (green border), or the step at which it ran;
    the line under the status lists the ready queue in the order the engine will run it.
    The steps and the queue come from ``trace_backward`` (hooks on the real engine, which
    copy its own bookkeeping), which leaves every ``.grad`` as it was.

    Example:
        >>> import autogradkit as agk
        >>> a = agk.tensor(2., requires_grad=True); d = agk.tensor(4., requires_grad=True)
        >>> e = (a * 3) * d
        >>> stepper = BackpropStepper(e)   # names: the caller's variables, or pass names=
        >>> stepper.step_button.click(); stepper.step_button.click()
        >>> stepper.position, stepper.status.value
        (2, 'Step 2 of 4: AccumulateGrad received 6. and wrote d.grad, which is now 6.')
        >>> queue, waiting = stepper.queue.value.split(". ")
        >>> queue
        'Ready queue (runs left to right): MulBackward0'
        >>> waiting
        'Still waiting: AccumulateGrad (a) for 1 gradient.'
    """

    def __init__(
        self,
        tensor,
        names=None,
        gradient=None,
        *,
        show_data: bool = True,
        show_saved: bool = False,
        interval: int = 1200,
    ):
        widgets = lab_import("ipywidgets")

        if names is None:
            names = caller_names(inspect.currentframe().f_back)
        self.trace = trace_backward(tensor, gradient, engine_state=True)
        self.graph = build_graph(tensor, names, show_data=show_data, show_saved=show_saved)
        n, tr = len(self.trace.steps), here()
        self.layout = layout_graph(self.graph, alt_lines=self._longest_lines(n))
        self.slider = widgets.IntSlider(value=0, min=0, max=n, description=tr("step"))
        self.play = widgets.Play(value=0, min=0, max=n, interval=interval, description=tr("Play"))
        widgets.link((self.play, "value"), (self.slider, "value"))
        self.back_button = widgets.Button(description=tr("◀ Back"), tooltip=tr("one step back"))
        self.step_button = widgets.Button(
            description=tr("Step ▶"), button_style="primary", tooltip=tr("run the next node")
        )
        self.reset_button = widgets.Button(description=tr("Reset"), tooltip=tr("before backward"))
        self.back_button.on_click(lambda _: self.go(self.position - 1))
        self.step_button.on_click(lambda _: self.go(self.position + 1))
        self.reset_button.on_click(lambda _: self.go(0))
        self.status = widgets.HTML()
        self.queue = widgets.HTML()
        self.view = widgets.HTML()
        self.slider.observe(lambda _: self._show(), names="value")
        controls = [self.reset_button, self.back_button, self.step_button, self.play, self.slider]
        self.widget = widgets.VBox([widgets.HBox(controls), self.status, self.queue, self.view])
        self._show()

    def _longest_lines(self, n: int) -> dict:
        """For each box, the longest text any step gives it, so boxes never need to grow."""
        longest: dict = {}
        for position in range(n + 1):
            for node_id, lines in self.trace.highlight(self.graph, position).lines.items():
                if max(map(columns, lines)) > max(map(columns, longest.get(node_id, ("",)))):
                    longest[node_id] = lines
        return longest

    @property
    def position(self) -> int:
        """How many nodes have run (0: none yet; ``len(trace.steps)``: all)."""
        return self.slider.value

    def go(self, position: int) -> None:
        """Show the state after ``position`` steps (clamped to the trace)."""
        self.slider.value = max(0, min(position, self.slider.max))

    def drawing(self, position: int | None = None) -> GraphDrawing:
        """The drawing at ``position`` (default: the current one)."""
        p = self.position if position is None else position
        return GraphDrawing(self.graph, self.layout, self.trace.highlight(self.graph, p))

    def _show(self) -> None:
        self.view.value = self.drawing().svg(style=FIT_WIDTH)
        self.status.value = escape(self.trace.describe(self.position, self.graph))
        self.queue.value = escape(engine_text(self.trace, self.position, self.graph))

    def __repr__(self) -> str:
        return f"BackpropStepper({len(self.trace.steps)} steps: {' -> '.join(self.trace.order())})"


class TrainingExplorer(_Displayable):
    """Train ``y_hat = w * x`` and watch it: learning rate, epochs and data size sliders, a
    live loss curve, the path of ``w`` and the per-epoch table. The mode switches between
    the gradient written by hand (NumPy) and autograd; the status line shows they agree.

    Example:
        >>> explorer = TrainingExplorer()
        >>> print(explorer.history[0]); print(explorer.history[-1])
        epoch: 1, loss: 16.00000000, w: 0.160, dw: -16.000
        epoch: 10, loss: 3.56698155, w: 1.131, dw: -7.555
        >>> explorer.size.value = 4
        >>> print(explorer.history[-1])
        epoch: 10, loss: 0.00000825, w: 2.000, dw: -0.031
    """

    def __init__(self, lr: float = 0.01, epochs: int = 10, size: int = 1, w0: float = 0.0):
        widgets = lab_import("ipywidgets")

        rates, tr = tuple(sorted({*LEARNING_RATES, lr})), here()
        self.w0 = w0
        self.lr = widgets.SelectionSlider(options=rates, value=lr, description=tr("lr"))
        self.epochs = widgets.IntSlider(value=epochs, min=1, max=100, description=tr("epochs"))
        self.size = widgets.IntSlider(value=size, min=1, max=8, description=tr("data points"))
        self.mode = widgets.ToggleButtons(
            options=[(tr("by hand (NumPy)"), "hand"), (tr("autograd"), "autograd")], value="hand"
        )
        self.status = widgets.HTML()
        self.plot = widgets.Output()
        self.table = widgets.Output(layout=widgets.Layout(max_height="260px", overflow="auto"))
        for control in (self.lr, self.epochs, self.size, self.mode):
            control.observe(lambda _: self.update(), names="value")
        sliders = widgets.HBox([self.lr, self.epochs, self.size])
        self.widget = widgets.VBox([sliders, self.mode, self.status, self.plot, self.table])
        self.history: list = []
        self.update()

    def update(self) -> None:
        """Retrain with the current settings and redraw the plot, table and status line."""
        x, y = dataset(self.size.value)
        args = (x, y, self.w0, self.lr.value, self.epochs.value)
        by_hand = train_by_hand(*args)
        by_autograd, how = train_with_autograd(*args)
        self.history = by_hand if self.mode.value == "hand" else by_autograd
        data = ", ".join(f"{v:g}" for v in x)
        title = f"x = {data}; lr = {self.lr.value:g}"
        self.plot.outputs = ()
        self.plot.append_display_data(fig_to_image(training_figure(self.history, self.w0, title)))
        self.table.outputs = ()
        self.table.append_stdout("\n".join(str(row) for row in self.history) + "\n")
        tr = here()
        self.status.value = escape(
            tr(
                "x = {data}, y = 2x. Autograd ({how}) and the hand-written gradient agree: "
                "largest difference {gap:.1e}. Final w = {w:.3f}",
                data=data,
                how=tr(how),
                gap=max_difference(by_hand, by_autograd),
                w=self.history[-1].w,
            )
        )

    def __repr__(self) -> str:
        lr, epochs, size = self.lr.value, self.epochs.value, self.size.value
        return f"TrainingExplorer(lr={lr}, epochs={epochs}, size={size})"


FUNCTIONS = {
    "sin": lambda t: t.sin(),
    "cos": lambda t: t.cos(),
    "tanh": lambda t: t.tanh(),
    "sigmoid": lambda t: t.sigmoid(),
    "relu": lambda t: t.relu(),
    "x**3": lambda t: t**3,
    "exp": lambda t: t.exp(),
}


def function_and_derivative(name: str, x=None):
    """``(x, f(x), f'(x))`` as arrays, the derivative found by autograd alone.

    Example:
        >>> import numpy as np
        >>> x, y, dy = function_and_derivative("sin")
        >>> x.shape, bool(np.allclose(dy, np.cos(x), atol=1e-6))
        ((100,), True)
    """
    xt = agk.linspace(-5, 5, 100) if x is None else agk.tensor(x, dtype=agk.float32)
    xt.requires_grad_()
    y = FUNCTIONS[name](xt)
    y.sum().backward()  # each y_i depends on x_i only, so d(sum)/dx_i = f'(x_i)
    return xt.detach().numpy(), y.detach().numpy(), xt.grad.numpy()


def plot_function_and_derivative(name: str):
    """A matplotlib figure of ``f`` and its autograd derivative on [-5, 5]."""
    x, y, dy = function_and_derivative(name)
    tr = here()
    fig = new_figure(figsize=(6, 3.2), dpi=80)
    ax = fig.subplots()
    formula = name if name == "x**3" else f"{name}(x)"
    ax.plot(x, y, color="#3e6db3", label=f"f(x) = {formula}")
    ax.plot(x, dy, color="#e65100", linestyle="--", label=tr("f'(x) from autograd"))
    ax.axhline(0, color="#999999", linewidth=0.8)
    ax.set(xlabel="x", title=tr("{name} and its derivative", name=name))
    ax.legend(loc="best", fontsize=8)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9)
    return fig


class FunctionPlotter(_Displayable):
    """Pick a function; see it and its derivative computed by ``backward()``.

    Example:
        >>> plotter = FunctionPlotter()
        >>> plotter.choice.value = "tanh"
        >>> [o["output_type"] for o in plotter.out.outputs]
        ['display_data']
    """

    def __init__(self, name: str = "sin"):
        widgets = lab_import("ipywidgets")

        self.choice = widgets.Dropdown(options=list(FUNCTIONS), value=name, description="f")
        self.out = widgets.Output()
        self.choice.observe(lambda _: self.update(), names="value")
        self.widget = widgets.VBox([self.choice, self.out])
        self.update()

    def update(self) -> None:
        self.out.outputs = ()
        self.out.append_display_data(fig_to_image(plot_function_and_derivative(self.choice.value)))

    def __repr__(self) -> str:
        return f"FunctionPlotter({self.choice.value!r})"


def tangent_at(f, x: float) -> tuple[float, float]:
    """``(f(x), df/dx)`` at one point, the slope found by ``backward()``.

    Example:
        >>> tangent_at(lambda t: t**2 + 3 * t, 2.0)
        (10.0, 7.0)
    """
    xt = agk.tensor(float(x), requires_grad=True)
    y = f(xt)
    y.backward()
    return y.item(), xt.grad.item()


def tangent_figure(f, x: float, xlim: tuple[float, float], formula: str):
    """``f`` on ``xlim``, the point ``(x, f(x))`` and the tangent there, whose slope is
    ``x.grad``; the title says where the slope is negative, zero or positive."""

    xs = np.linspace(*xlim, 200)
    with agk.no_grad():
        ys = f(agk.tensor(xs, dtype=agk.float64)).numpy()
    y0, slope = tangent_at(f, x)
    tr = here()
    fig = new_figure(figsize=(6, 3.4), dpi=80)
    ax = fig.subplots()
    ax.plot(xs, ys, color="#3e6db3", label=f"y = {formula}")
    near = np.array([x - 1.2, x + 1.2])
    tangent = tr("tangent, slope {slope:.2f}", slope=slope)
    ax.plot(near, y0 + slope * (near - x), "--", color="#e65100", label=tangent)
    ax.plot([x], [y0], "o", color="#e65100")
    ax.axhline(0, color="#999999", linewidth=0.6)
    low, high = float(ys.min()), float(ys.max())
    ax.set(xlim=xlim, ylim=(low - 0.1 * (high - low), high + 0.1 * (high - low)), xlabel="x")
    if slope < -1e-9:
        title = tr("at x = {x:.2f}: x.grad = {slope:.2f}, so y falls here", x=x, slope=slope)
    elif slope > 1e-9:
        title = tr("at x = {x:.2f}: x.grad = {slope:.2f}, so y rises here", x=x, slope=slope)
    else:
        title = tr("at x = {x:.2f}: x.grad = {slope:.2f}, so y is flat here", x=x, slope=slope)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9)
    return fig


class TangentExplorer(_Displayable):
    """Slide a point along ``y = f(x)``: autograd gives the slope there (``x.grad``) and the
    plot draws the tangent with that slope. Where is the slope zero? Its words are in the
    language of the notebook's folder (``autogradkit._i18n.here``).

    Example:
        >>> explorer = TangentExplorer(lambda t: t**2 + 3 * t, "x² + 3x", x=2.0, xlim=(-4, 3))
        >>> explorer.status.value
        'x = 2.00: y = 10.00, x.grad = 7.00'
        >>> explorer.x.value = -1.5
        >>> explorer.status.value
        'x = -1.50: y = -2.25, x.grad = 0.00'
    """

    def __init__(self, f, formula: str, x: float = 0.0, xlim: tuple[float, float] = (-4, 4)):
        widgets = lab_import("ipywidgets")

        self.f, self.formula, self.xlim = f, formula, (float(xlim[0]), float(xlim[1]))
        self.x = widgets.FloatSlider(
            value=x, min=self.xlim[0], max=self.xlim[1], step=0.1, description="x"
        )
        self.status = widgets.HTML()
        self.out = widgets.Output()
        self.x.observe(lambda _: self.update(), names="value")
        self.widget = widgets.VBox([self.x, self.status, self.out])
        self.update()

    def update(self) -> None:
        """Recompute the slope at the slider's ``x`` and redraw."""
        x = self.x.value
        y, slope = tangent_at(self.f, x)
        tr = here()
        status = tr("x = {x:.2f}: y = {y:.2f}, x.grad = {slope:.2f}", x=x, y=y, slope=slope + 0.0)
        self.status.value = escape(status)
        self.out.outputs = ()
        self.out.append_display_data(
            fig_to_image(tangent_figure(self.f, x, self.xlim, self.formula))
        )

    def __repr__(self) -> str:
        return f"TangentExplorer(y = {self.formula}, x = {self.x.value:g})"
