"""viz.draw: the pictures, checked as SVG text (parsed as XML) and as matplotlib artists."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import autogradkit as agk
from autogradkit.viz import draw_graph
from autogradkit.viz.draw import DASHES, GraphDrawing, canvas_size, place_labels
from autogradkit.viz.graph import build_graph

from . import examples

SVG = "{http://www.w3.org/2000/svg}"


def svg_texts(svg: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_svg_is_xml_with_the_articles_labels():
    v = examples.article_000()
    v["e"].backward()
    root = ET.fromstring(draw_graph(v["e"], names=v).svg())
    assert root.tag == f"{SVG}svg"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    for expected in ("a", "b", "c", "d", "e", "grad: 12.", "grad: 6.", "data: 24."):
        assert expected in texts
    assert texts.count("MulBackward0") == 2
    assert texts.count("AccumulateGrad") == 3  # two boxes and the legend
    assert "requires_grad=False" in texts  # the legend explains the grey box


def test_svg_has_one_group_per_box_and_per_arrow():
    v = examples.article_002()
    drawing = draw_graph(v["e"], names=v)
    root = ET.fromstring(drawing.svg())
    groups = [g.get("class") for g in root.iter(f"{SVG}g")]
    assert sum(c.startswith("node ") for c in groups) == len(drawing.graph.nodes)
    assert sum(c.startswith("edge ") for c in groups) == len(drawing.graph.edges)


def test_same_graph_gives_identical_svg_text():
    v = examples.two_layer()
    assert draw_graph(v["loss"], names=v).svg() == draw_graph(v["loss"], names=v).svg()
    w = examples.two_layer()  # a fresh but equal graph: other objects, same picture
    assert draw_graph(v["loss"], names=v).svg() == draw_graph(w["loss"], names=w).svg()


def _marker_ids(svg: str) -> tuple[set, set]:
    """(ids the drawing defines, ids its arrows point at)."""
    root = ET.fromstring(svg)
    defined = {m.get("id") for m in root.iter("{http://www.w3.org/2000/svg}marker")}
    used = {el.get("marker-end")[len("url(#") : -1] for el in root.iter() if el.get("marker-end")}
    return defined, used


def test_each_drawing_defines_the_markers_its_arrows_use_under_ids_of_its_own():
    """A browser takes the first definition of an id on the page: two drawings of one
    notebook must not share marker ids, or the second one's arrowheads depend on the first."""
    v = examples.article_002()
    first, second = draw_graph(v["e"], names=v).svg(), draw_graph(v["c"], names=v).svg()
    (defined_1, used_1), (defined_2, used_2) = _marker_ids(first), _marker_ids(second)
    assert used_1 and used_1 <= defined_1 and used_2 and used_2 <= defined_2
    assert defined_1.isdisjoint(defined_2)
    assert _marker_ids(draw_graph(v["e"], names=v).svg())[0] == defined_1  # every run alike


def test_names_default_to_the_callers_variables():
    a = agk.tensor(2.0, requires_grad=True)
    weight = agk.tensor(5.0, requires_grad=True)
    texts = svg_texts(draw_graph(a * weight).svg())
    assert "a" in texts and "weight" in texts
    assert "tensor" in svg_texts(draw_graph(a * weight, names={}).svg())


def test_repr_svg_is_what_jupyter_shows():
    v = examples.article_002()
    drawing = draw_graph(v["e"], names=v)
    assert drawing._repr_svg_() == drawing.svg()
    assert repr(drawing) == "<GraphDrawing: 5 backward nodes, 5 other boxes>"


def test_trace_labels_each_arrow_with_the_gradient_it_carried():
    v = examples.article_002()
    drawing = draw_graph(v["e"], names=v, trace=True)
    labels = {
        (drawing.graph.node(s).label, drawing.graph.node(d).label): text
        for (s, d, _), text in drawing.highlight.edge_labels.items()
    }
    assert labels[("e", "MulBackward0")] == "1."
    assert labels[("MulBackward0", "AddBackward0")] == "4."
    assert labels[("AccumulateGrad", "d")] == "5."
    assert "5." in svg_texts(drawing.svg())
    assert v["a"].grad is None  # tracing put .grad back as it was


def test_labels_do_not_cover_boxes_or_each_other():
    v = examples.two_layer()
    drawing = draw_graph(v["loss"], names=v, trace=True)
    spots = place_labels(drawing.graph, drawing.layout, drawing.highlight)
    assert len(spots) == len(drawing.highlight.edge_labels) > 10
    heights = {key: 18 for key in spots}
    rects = []
    for key, (x, y) in spots.items():
        half = (len(drawing.highlight.edge_labels[key]) * 11 * 0.61 + 6) / 2
        rects.append((x - half, y - heights[key] / 2, x + half, y + heights[key] / 2))
    boxes = drawing.layout.boxes.values()
    rects += [(b.x - b.w / 2, b.top, b.x + b.w / 2, b.bottom) for b in boxes]
    overlaps = [
        (p, q)
        for k, p in enumerate(rects)
        for q in rects[k + 1 :]
        if p[0] < q[2] - 0.5 and q[0] < p[2] - 0.5 and p[1] < q[3] - 0.5 and q[1] < p[3] - 0.5
    ]
    assert overlaps == []


def test_matplotlib_figure_has_the_same_texts():
    v = examples.article_000()
    drawing = draw_graph(v["e"], names=v, trace=True)
    fig = drawing.figure()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("MulBackward0") == 2
    assert {"a", "b", "c", "d", "e", "12.", "AccumulateGrad"} <= set(texts)
    width, height = canvas_size(drawing.graph, drawing.layout, drawing.highlight)
    assert tuple(fig.get_size_inches() * fig.dpi) == (width, height)


def test_save_writes_svg_and_png(tmp_path):
    v = examples.article_002()
    drawing = draw_graph(v["e"], names=v)
    drawing.save(tmp_path / "g.svg")
    drawing.save(tmp_path / "g.png")
    assert (tmp_path / "g.svg").read_text(encoding="utf-8") == drawing.svg()
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")


def test_a_few_hundred_node_mlp_draws_quickly_and_completely():
    loss = examples.scalar_mlp()
    drawing = draw_graph(loss, names={})
    assert drawing.graph.hidden == 0 and len(drawing.graph.nodes) > 300
    root = ET.fromstring(drawing.svg())
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class").startswith("node ")]) > 300


def test_huge_chain_is_drawn_summarised(chain_100k):
    drawing = draw_graph(chain_100k, names={})
    assert "… 99,940 more nodes" in svg_texts(drawing.svg())


def test_special_characters_are_escaped():
    t = agk.tensor(1.0, requires_grad=True)
    svg = GraphDrawing(build_graph(t * 2, {"<a&b>": t})).svg()
    assert "&lt;a&amp;b&gt;" in svg
    ET.fromstring(svg)


def test_figures_show_as_png_in_jupyter_without_pyplot():
    v = examples.article_002()
    fig = draw_graph(v["e"], names=v).figure()
    assert fig._repr_png_().startswith(b"\x89PNG")


def legend_lines(svg: str) -> dict[str, tuple[str | None, str]]:
    """The legend's sample arrows: ``{class: (dash pattern, text beside it)}``."""
    legend = next(g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("class") == "legend")
    children = list(legend)
    return {
        child.get("class"): (child.get("stroke-dasharray"), children[k + 1].text)
        for k, child in enumerate(children)
        if child.tag == f"{SVG}line"
    }


def test_legend_explains_each_arrow_style_the_drawing_uses():
    v = examples.article_000()
    plain = legend_lines(draw_graph(v["e"], names=v, show_saved=True).svg())
    assert plain == {
        "legend-next": (None, "where the gradient goes next"),
        "legend-grad_fn": (DASHES["grad_fn"], "a tensor and its grad_fn"),
        "legend-saved": (DASHES["saved"], "kept by the node for backward"),
    }
    traced = legend_lines(draw_graph(v["e"], names=v, trace=True).svg())
    assert traced["legend-hot"] == (None, "carried this gradient")
    w = examples.article_002()  # every input requires grad: no saved no-grad tensor to draw
    assert "legend-saved" not in legend_lines(draw_graph(w["e"], names=w).svg())
    edges = ET.fromstring(draw_graph(v["e"], names=v, show_saved=True).svg())
    dashes = {
        g.get("class").split()[1]: g.find(f"{SVG}polyline").get("stroke-dasharray")
        for g in edges.iter(f"{SVG}g")
        if (g.get("class") or "").startswith("edge ")
    }
    assert dashes["grad_fn"] == plain["legend-grad_fn"][0]  # the sample looks like the arrow
    assert dashes["saved"] == plain["legend-saved"][0] and dashes["next"] is None


def test_matplotlib_legend_draws_the_same_arrow_styles():
    v = examples.article_000()
    fig = draw_graph(v["e"], names=v, show_saved=True).figure()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert {"where the gradient goes next", "a tensor and its grad_fn"} <= set(texts)
    styles = sorted(p.get_linestyle() for p in fig.axes[0].patches if hasattr(p, "get_arrowstyle"))
    assert styles == ["-", "--", ":"]


def test_a_narrow_drawing_widens_to_fit_its_legend():
    a = agk.tensor(2.0, requires_grad=True)
    drawing = draw_graph(a * 3, names={"a": a})
    width = float(ET.fromstring(drawing.svg()).get("width"))
    longest = max(len(t) for t in svg_texts(drawing.svg()) if t)
    assert width > drawing.layout.width and width >= longest * 11 * 0.61 + 31
