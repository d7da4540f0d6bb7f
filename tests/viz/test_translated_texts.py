"""The viz layer's words in the notebook's language: in a zh-CN release folder, buttons,
sliders, status lines, legends, box lines and figure labels come from the kit's catalog;
elsewhere they are the English ones. viz learns the language from ``autogradkit._i18n``,
never from ``grading``."""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

import pytest

import autogradkit
from autogradkit._i18n import LANGUAGE_FILE
from autogradkit.viz import BackpropStepper, FunctionPlotter, TrainingExplorer, draw_graph
from autogradkit.viz.draw import legend_entries, text_families
from autogradkit.viz.layout import columns
from autogradkit.viz.progress import progress
from autogradkit.viz.training import dataset, train_by_hand, training_figure
from autogradkit.viz.widgets import plot_function_and_derivative
from autogradkit_instructor.translate import english_left, kit_names

from . import examples

PACKAGE = Path(autogradkit.__file__).parent
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def zh_folder(tmp_path, monkeypatch):
    """The kernel's working directory in a zh-CN release folder: its widgets add the kit's
    Chinese font to matplotlib's families (``_i18n.use_fonts``), undone after the test."""
    import matplotlib

    (tmp_path / LANGUAGE_FILE).write_text("zh-CN\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(matplotlib.rcParams, "font.family", matplotlib.rcParams["font.family"])
    return tmp_path


def chinese(text: str) -> bool:
    """Chinese, with no English word left in it but identifiers (``requires_grad``, ``x.grad``,
    ``AccumulateGrad`` and the kit's names stay English, as PyTorch's) and no half-width stop
    after a Chinese character (``translate.english_left``)."""
    return bool(HAN.search(text)) and not english_left(text, kit_names())


def test_the_stepper_speaks_chinese_at_every_step(zh_folder):
    v = examples.article_002()
    stepper = BackpropStepper(v["e"], names=v)
    buttons = [stepper.back_button, stepper.step_button, stepper.reset_button]
    labels = [b.description for b in buttons] + [b.tooltip for b in buttons]
    labels += [stepper.slider.description, stepper.play.description]
    assert all(chinese(label) for label in labels), labels
    for position in range(stepper.slider.max + 1):
        stepper.go(position)
        assert chinese(stepper.status.value), stepper.status.value
        assert chinese(stepper.queue.value), stepper.queue.value
    stepper.go(3)
    drawing = stepper.view.value
    assert "第 3 步已运行" in drawing and "就绪 #1" in drawing  # the boxes' engine lines
    legend = [text for *_, text in legend_entries(stepper.graph, stepper.drawing().highlight)]
    assert len(legend) == 9 and all(HAN.search(text) for text in legend), legend


def test_the_trace_tells_a_leaf_that_already_had_a_grad_in_chinese(zh_folder):
    v = examples.article_002()
    v["d"].grad = autogradkit.tensor(1.0)
    stepper = BackpropStepper(v["e"], names=v)
    stepper.go(2)
    assert (
        stepper.status.value
        == "第 2 步（共 5 步）：AccumulateGrad 收到 5.，累加进 d.grad（现为 6.）"
    )


def test_the_training_explorer_and_its_figure_speak_chinese(zh_folder):
    explorer = TrainingExplorer(size=4)
    assert chinese(explorer.status.value), explorer.status.value
    assert all(chinese(label) for label, _ in explorer.mode.options)
    assert chinese(explorer.epochs.description) and chinese(explorer.size.description)
    assert explorer.lr.description == "学习率"  # the slider once said lr
    fig = training_figure(train_by_hand(*dataset(4)), 0.0)
    loss_ax, w_ax = fig.axes
    texts = [loss_ax.get_xlabel(), loss_ax.get_ylabel(), loss_ax.get_title(), w_ax.get_title()]
    texts += [t.get_text() for t in w_ax.get_legend().get_texts()]
    assert all(chinese(text) for text in texts), texts


def test_the_function_plot_and_the_graph_figure_speak_chinese(zh_folder):
    fig = plot_function_and_derivative("tanh")
    ax = fig.axes[0]
    assert ax.get_title() == "tanh 及其导数"
    assert "自动求导得到的 f'(x)" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert FunctionPlotter("sin").out.outputs  # drawn, in Chinese, without an error
    v = examples.article_000()
    texts = [t.get_text() for t in draw_graph(v["e"], names=v).figure().axes[0].texts]
    assert "叶子节点，requires_grad" in texts and "反向传播函数" in texts


def test_a_big_graphs_summary_and_a_freed_nodes_saved_line_speak_chinese(zh_folder):
    drawing = draw_graph(examples.scalar_mlp(), max_nodes=10)
    assert re.search(r"… 另有 [\d,]+ 个节点", drawing.svg())
    v = examples.chain_all_leaves()
    v["e"].backward()
    assert "保存：（已被 backward 释放）" in draw_graph(v["e"], names=v, show_saved=True).svg()


def test_the_progress_bar_speaks_chinese_while_it_runs_and_at_the_end(zh_folder):
    out = io.StringIO()
    for _ in progress(range(200), description="迭代周期", file=out, notebook=False):
        pass
    frames = [frame.strip() for frame in out.getvalue().split("\r") if frame.strip()]
    assert frames[-1].startswith("迭代周期：100%|") and frames[-1].endswith("| 200/200")
    assert "（已用 00:00，还需 " in frames[0] and "每秒 ? 次）" in frames[0]
    assert all(chinese(frame) for frame in frames), frames
    out = io.StringIO()
    for _ in progress(iter(range(3)), description="步", file=out, notebook=False):
        pass
    assert out.getvalue().split("\r")[-1].strip() == "步：3 次"


@pytest.mark.parametrize(
    "text",
    [
        "迭代周期: 100%|##########| 3/3 [00:00<00:00, 3.10it/s]",  # tqdm's own words
        "运行 backward 之前：引擎先把输出的梯度设为 1.",  # an English full stop
        "第 2 步（共 5 步）：AccumulateGrad received 5.",
        "训练 7 个迭代周期（epochs）",  # the English plural through a template
        "SGD + momentum 0.9",
        "# YOUR CODE HERE",
    ],
)
def test_english_left_for_a_chinese_reader_is_found(text):
    assert english_left(text, kit_names())


def test_english_folders_keep_the_english_words(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    v = examples.article_002()
    stepper = BackpropStepper(v["e"], names=v)
    stepper.go(2)
    assert stepper.status.value == (
        "Step 2 of 5: AccumulateGrad received 5. and wrote d.grad, which is now 5."
    )
    assert stepper.step_button.description == "Step ▶"
    assert "where the gradient goes next" in stepper.view.value


def test_wide_characters_take_two_columns_so_chinese_boxes_and_legends_fit():
    assert columns("ready #1") == len("ready #1")
    assert columns("就绪 #1") == 7
    assert columns("（在队列中）") == 12


def test_graph_figures_fall_back_to_the_rc_files_fonts_for_chinese(monkeypatch):
    import matplotlib

    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["DejaVu Sans", "Noto Sans CJK SC"])
    assert text_families() == ["monospace", "DejaVu Sans", "Noto Sans CJK SC"]


def imported_modules(path: Path) -> set[str]:
    """The modules a file imports, relative ones resolved against the package."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return found


def test_viz_takes_its_words_from_the_i18n_module_and_never_imports_grading():
    viz = {p: imported_modules(p) for p in (PACKAGE / "viz").glob("*.py")}
    assert not [p.name for p, mods in viz.items() if any("grading" in m for m in mods)]
    assert any("autogradkit._i18n" in mods for mods in viz.values())
    i18n = imported_modules(PACKAGE / "_i18n.py")
    assert not [m for m in i18n if m.startswith("autogradkit")]
