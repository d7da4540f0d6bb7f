"""The support around the lessons: each notebook's opening (time, prerequisites, goals), its
closing progress cell, the "Note on the source" boxes, the further reading, the glossary
(notebooks/GLOSSARY.md) and the error index (notebooks/ERRORS.md).

The house rules among them (``time-estimate``, ``before-you-start``, ``learning-goals``,
``further-reading``, ``progress-cell``) live in ``autogradkit_instructor.house_style``, with the
time formula; these tests run them on the shipped course (``notebooks/house_style.txt``). The
rest is the shipped course's own material: its articles, glossary, error index and the
documentation pages checked to exist. Run ``python -m tests.notebooks.test_support`` to print
what the time formula gives for every notebook.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from autogradkit_instructor.house_style import (
    DOCS,
    MINUTES_PER_POINT,
    PROSE_WORDS_PER_MINUTE,
    estimate,
    named_notebooks,
    round5,
    time_line,
)

from .conftest import ASSIGNMENTS, COURSE, HOUSE_STYLE, ROOT, assert_follows, read, source_path

# the articles' titles, as docs/TOPICS.md lists them: a box names its article by number and title
ARTICLES = dict(
    re.findall(
        r"^\| (\d{3}) \| ([^|]+?) \|", (ROOT / "docs" / "TOPICS.md").read_text("utf-8"), re.M
    )
)
GLOSSARY = COURSE / "GLOSSARY.md"
ERRORS = COURSE / "ERRORS.md"
SUPPORT_RULES = (
    "time-estimate",
    "before-you-start",
    "learning-goals",
    "further-reading",
    "progress-cell",
)

# The notebooks that depart from their article (issue 19: errata in 004, 000, 001, 002, 003).
DEPARTS_FROM_AN_ARTICLE = {
    "01_backprop_by_hand": "004",
    "02_autograd_does_it": "000",
    "03_nonscalar_leaves_jacobians": "001",
    "05_inside_grad_fn": "002",
    "06_hooks": "003",
}

# Every documentation page a notebook links to, each found in the docs corpus of the search
# tool before it was added. A new link must be checked the same way and added here.
CHECKED_PAGES = {
    "notes/autograd.html",
    "autograd.html",
    "tensors.html",
    "nn.init.html",
    "generated/torch.tensor.html",
    "generated/torch.Tensor.backward.html",
    "generated/torch.Tensor.detach.html",
    "generated/torch.Tensor.is_leaf.html",
    "generated/torch.Tensor.retain_grad.html",
    "generated/torch.Tensor.register_hook.html",
    "generated/torch.autograd.backward.html",
    "generated/torch.autograd.grad.html",
    "generated/torch.autograd.functional.jacobian.html",
    "generated/torch.autograd.gradcheck.gradcheck.html",
    "generated/torch.autograd.Function.backward.html",
    "generated/torch.autograd.function.FunctionCtx.save_for_backward.html",
    "generated/torch.no_grad.html",
    "generated/torch.nn.Module.html",
    "generated/torch.nn.MSELoss.html",
    "generated/torch.nn.CrossEntropyLoss.html",
    "generated/torch.optim.Optimizer.zero_grad.html",
}


# ----- reading a notebook ---------------------------------------------------------------------
def _markdown(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "markdown"]


def _cell_text(cell) -> str:
    """What a reader sees of a cell: its source and, for code, its stored outputs."""
    parts = [cell.source]
    for out in cell.get("outputs", []):
        if out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}")
        elif out.output_type == "stream":
            parts.append(out.text)
        else:
            parts.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def _sections(nb) -> dict[str, str]:
    """``{"4": text}`` for every ``## 4. Title`` section, up to the next ``## `` heading (a
    heading may sit anywhere in a markdown cell); a code cell's text includes its outputs."""
    sections = {}
    for _, section, line in _lines_by_section(nb):
        if section:
            sections[section] = sections.get(section, "") + "\n" + line
    return sections


def _sections_of_cells(nb) -> dict[str, set[str]]:
    """Each cell id -> the sections its lines lie in."""
    found: dict[str, set[str]] = {}
    for cell_id, section, _ in _lines_by_section(nb):
        found.setdefault(cell_id, set()).add(section)
    return found


def _lines_by_section(nb):
    current = None
    for cell in nb.cells:
        lines = cell.source.splitlines() if cell.cell_type == "markdown" else [_cell_text(cell)]
        for line in lines:
            if cell.cell_type == "markdown" and line.startswith("## "):
                heading = re.match(r"## (\d+)\. ", line)
                current = heading.group(1) if heading else None
            yield cell.id, current, line


# ----- the house rules of the opening and the closing ---------------------------------------
@pytest.mark.parametrize("rule", SUPPORT_RULES)
def test_the_shipped_course_follows_the_support_rule(house_assignment, rule):
    assert_follows(house_assignment, rule)


def test_the_estimate_grows_with_the_text_the_code_and_the_exercises():
    nb = read(source_path("02_autograd_does_it"))
    reading, exercises = estimate(nb)
    longer = read(source_path("02_autograd_does_it"))
    longer.cells[0].source += "\n" + "word " * (PROSE_WORDS_PER_MINUTE * 10)  # 10 more minutes
    assert estimate(longer) == (round5(reading + 10), exercises)
    harder = read(source_path("02_autograd_does_it"))
    test_cell = next(c for c in harder.cells if c.metadata.get("nbgrader", {}).get("grade"))
    test_cell.metadata["nbgrader"]["points"] += 5  # 15 more minutes
    assert estimate(harder) == (reading, round5(exercises + 5 * MINUTES_PER_POINT))


def test_prerequisites_are_read_as_written():
    assert named_notebooks("notebooks 02, 04, 05 and 06 (...). Notebooks 01 and 03 help") == [
        2,
        4,
        5,
        6,
        1,
        3,
    ]
    assert named_notebooks("nothing from this course") == []


# ----- "Note on the source" boxes ---------------------------------------------------------------
def _source_notes(nb) -> list[str]:
    """Every paragraph that mentions a note on the source, as written."""
    paragraphs = [p for c in _markdown(nb) for p in c.source.split("\n\n")]
    return [p for p in paragraphs if "note on the source" in p.lower()]


def _box_problem(box: str) -> str:
    """What is wrong with a "Note on the source" box ("" when nothing is)."""
    lines = box.strip().splitlines()
    if not all(line.startswith(">") for line in lines):
        return "quote the whole box"
    found = re.match(r"> \*\*Note on the source\.\*\* Article (\d{3}) \(", lines[0])
    if not found:
        return "start with '> **Note on the source.** Article 00N (where it says it)'"
    if found[1] not in ARTICLES:
        return f"there is no article {found[1]}"
    if ARTICLES[found[1]] not in box:
        return f"name article {found[1]} by its title, {ARTICLES[found[1]]!r} (docs/TOPICS.md)"
    return "" if "PyTorch" in box else "say what PyTorch does"


def test_every_note_on_the_source_is_a_quoted_box_that_cites_its_article(house_assignment):
    for box in _source_notes(read(source_path(house_assignment))):
        assert not _box_problem(box), f"{_box_problem(box)}:\n{box}"


def test_the_notebooks_that_depart_from_an_article_say_so():
    for name, article in DEPARTS_FROM_AN_ARTICLE.items():
        boxes = _source_notes(read(source_path(name)))
        assert any(f"Article {article}" in box for box in boxes), name


def test_a_box_in_another_format_is_caught():
    box = _source_notes(read(source_path("03_nonscalar_leaves_jacobians")))[0]
    assert not _box_problem(box)
    assert _box_problem(box.replace("> **Note on the source.** Article 001", "**Note:** 001"))
    assert _box_problem(box.replace("Article 001", "Article 007"))
    assert _box_problem(box.replace("\n> ", "\n", 1))
    assert _box_problem(box.replace("PyTorch", "it"))
    assert _box_problem(box.replace(ARTICLES["001"], "the article"))  # a number alone names nothing
    assert sorted(ARTICLES) == ["000", "001", "002", "003", "004"]


# ----- further reading --------------------------------------------------------------------------
def test_the_recap_links_the_pytorch_documentation_pages_checked(house_assignment):
    recap = _markdown(read(source_path(house_assignment)))[-1].source
    links = re.findall(r"\]\((https?://[^)]+)\)", recap.split("**Further reading**", 1)[1])
    for link in links:
        page = link[len(DOCS) :].split("#")[0]
        assert page in CHECKED_PAGES, f"{link}: check that the page exists, then list it"


# ----- the glossary -----------------------------------------------------------------------------
def _table(path: Path, columns: int) -> list[list[str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or set(line) <= set("|-: "):
            continue
        cells = [cell.strip() for cell in line.strip()[1:-1].split("|")]
        assert len(cells) == columns, line
        rows.append(cells)
    return [row for row in rows if not row[0].startswith("**")]  # drop the header rows


def _glossary() -> list[list[str]]:
    """English, Simplified, Traditional, PyTorch identifiers, taught in, the articles' words."""
    return [row for row in _table(GLOSSARY, 6) if row[0] != "English"]


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_glossary_gives_each_term_in_three_languages():
    rows = _glossary()
    assert len(rows) >= 40
    english = [r[0].lower() for r in rows]
    assert len(english) == len(set(english)), "each term once"
    for term, simplified, traditional, *_ in rows:
        assert re.search(r"[a-z]", term, re.I) and not CJK.search(term), term
        assert CJK.search(simplified) and CJK.search(traditional), term


def test_the_articles_terms_are_in_the_glossary():
    simplified = " ".join(r[1] for r in _glossary())
    traditional = " ".join(r[2] for r in _glossary())
    for word in ("张量", "梯度", "叶子节点", "计算图", "原地操作", "反向传播", "链式法则", "钩子"):
        assert word in simplified, word
    for word in ("張量", "梯度", "葉節點", "計算圖", "原地操作", "反向傳播", "均方誤差", "權重"):
        assert word in traditional, word


def _taught_in(term: str, code: str, text: str) -> bool:
    """Every word of the term (but the short ones), or one of its identifiers, is in ``text``."""
    text = text.lower()
    words = [w for w in re.findall(r"[\w-]+", term.lower()) if len(w) > 2]
    identifiers = [c.lower() for c in re.findall(r"`([^`(]+)", code)]
    return all(word in text for word in words) or any(name in text for name in identifiers)


def test_each_glossary_term_is_taught_where_it_says(house_assignment):
    number = house_assignment[:2]
    sections = _sections(read(source_path(house_assignment)))
    for term, _, _, code, taught, _ in _glossary():
        for section in re.findall(rf"\b{number} §(\d+)", taught):
            assert section in sections, f"{term}: {number} has no section {section}"
            assert _taught_in(term, code, sections[section]), (
                f"{term!r} is not in {number} §{section}"
            )


def test_a_term_pointing_at_the_wrong_section_is_caught():
    sections = _sections(read(source_path("05_inside_grad_fn")))
    assert _taught_in("ready queue", "", sections["8"])
    assert not _taught_in("ready queue", "", sections["3"])
    assert _taught_in("custom function", "`autograd.Function`", sections["7"])
    assert not _taught_in("custom function", "`autograd.Function`", sections["1"])


def test_every_glossary_row_points_at_a_section():
    for term, _, _, _, taught, _ in _glossary():
        assert re.search(r"\b\d\d §\d+", taught), term


# ----- the error index --------------------------------------------------------------------------
def _errors() -> list[tuple[str, list[tuple[str, str]], str]]:
    """(message, [(cell id, section)], what it means) for each row of the error index."""
    entries = []
    for message, where, meaning in _table(ERRORS, 3):
        if message == "message":
            continue
        found = re.fullmatch(r"`(.+)`", message)
        assert found, f"put the message in code font: {message}"
        places = [
            (cell_id, section)
            for ids, number, section in re.findall(
                r"((?:`[\w-]+`(?:, )?)+) \((\d\d) §(\d+)\)", where
            )
            for cell_id in re.findall(r"`([\w-]+)`", ids)
        ]
        assert places, f"{message}: name the cells that explain it, as `NN-words` (NN §K)"
        entries.append((found[1], places, meaning))
    return entries


def test_an_ellipsis_in_an_entry_stands_for_any_text_in_order():
    message = "RuntimeError: x [autogradkit.FloatTensor [2]] is at version 1; expected version 0"
    assert _matches("RuntimeError: x …is at version …; expected version …", message)
    assert not _matches("RuntimeError: x …expected version …; is at version", message)
    assert _matches("is at version 1;\n> expected", message), "a quote may wrap the message"


def _matches(pattern: str, text: str) -> bool:
    """``…`` in an index entry stands for any text (a shape, a version, a long hint)."""
    regex = ".*?".join(re.escape(_flat(piece)) for piece in pattern.split("…"))
    return re.search(regex, _flat(text), re.S) is not None


def _flat(text: str) -> str:
    """Text with its line breaks (and a quote's ``>`` markers) as single spaces: a lesson may
    wrap a message over several lines."""
    return re.sub(r"\s+(?:>\s+)*", " ", text)


def _body(message: str) -> str:
    """The message without its class name: how the text of a lesson quotes it."""
    return re.sub(r"^\w+(?:Error|Warning): ", "", message)


def _notebook_of(cell_id: str) -> str:
    number = re.match(r"(?:nb)?(\d\d)", cell_id)[1]
    return next(name for name in HOUSE_STYLE if name.startswith(number))


def test_every_indexed_message_is_in_the_cells_it_points_at():
    entries = _errors()
    assert len(entries) >= 8
    for message, places, meaning in entries:
        assert len(meaning.split()) >= 12, f"{message}: say what it means and what to do"
        for cell_id, section in places:
            nb = read(source_path(_notebook_of(cell_id)))
            found = [c for c in nb.cells if c.id == cell_id]
            assert found, f"{message}: no cell {cell_id}"
            elsewhere = [c.id for c in nb.cells if _matches(_body(message), _cell_text(c))]
            assert _matches(_body(message), _cell_text(found[0])), (
                f"{message!r} is not in cell {cell_id}; it is in {elsewhere}"
            )
            assert section in _sections_of_cells(nb)[cell_id], f"{cell_id} is not in §{section}"


def _stored_messages(nb) -> list[tuple[str, str]]:
    """(cell id, "Name: message") of every error and warning a notebook's outputs show."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                found.append((cell.id, f"{out.ename}: {out.evalue}"))
            elif out.output_type == "stream":
                kinds = r"Warning" if out.name == "stderr" else r"Error|Warning"
                for hit in re.finditer(rf"\b(\w+(?:{kinds})): (.+)", out.text):
                    found.append((cell.id, f"{hit[1]}: {hit[2]}"))
    return found


def test_every_error_a_notebook_shows_is_indexed_there(house_assignment):
    entries = _errors()
    number, assignment = house_assignment[:2], house_assignment
    for cell_id, message in _stored_messages(read(source_path(assignment))):
        places = [
            places for pattern, places, _ in entries if _matches(pattern, message.split("\n")[0])
        ]
        assert any(_notebook_of(c) == assignment for found in places for c, _ in found), (
            f"not indexed for notebook {number}: {message[:120]!r} (cell {cell_id})"
        )


def test_an_error_missing_from_the_index_is_caught():
    nb = read(source_path("03_nonscalar_leaves_jacobians"))
    cell = next(c for c in nb.cells if c.get("outputs"))
    cell.outputs.append(
        nbformat.v4.new_output(
            "error", ename="RuntimeError", evalue="a message nobody taught", traceback=[]
        )
    )
    message = "RuntimeError: a message nobody taught"
    assert message in [m for _, m in _stored_messages(nb)]
    assert not any(_matches(pattern, message) for pattern, _, _ in _errors())


def test_readme_and_student_guide_point_at_the_glossary_and_the_error_index():
    root = COURSE.parent
    for doc in (root / "README.md", root / "docs" / "student_guide.md"):
        text = doc.read_text(encoding="utf-8")
        assert "GLOSSARY.md" in text and "ERRORS.md" in text, doc


if __name__ == "__main__":
    for name in ASSIGNMENTS:
        print(f"{name:32} {time_line(read(source_path(name)))}")


LINK = re.compile(r"\]\((?!https?://|#|mailto:)([^)\s]+)\)")


def test_every_relative_link_of_every_notebook_opens_a_file():
    """Links to the glossary, the error index or another notebook resolve from where each
    copy sits (a zh-CN or zh-TW release is one folder deeper than an English one)."""
    notebooks = sorted(COURSE.glob("source/*/*.ipynb")) + sorted(COURSE.glob("release/**/*.ipynb"))
    broken = [
        f"{path.relative_to(COURSE)}: {target}"
        for path in notebooks
        for cell in _markdown(read(path))
        for target in LINK.findall(_cell_text(cell))
        if not (path.parent / target.split("#")[0]).exists()
    ]
    assert len(notebooks) >= 24 and broken == []


def test_the_first_notebook_points_at_the_glossary_and_the_error_index():
    for path in (
        source_path("00_start_here"),
        COURSE / "release/zh-CN/00_start_here/00_start_here.ipynb",
        COURSE / "release/zh-TW/00_start_here/00_start_here.ipynb",
    ):
        targets = {t for c in _markdown(read(path)) for t in LINK.findall(_cell_text(c))}
        assert {Path(t).name for t in targets} >= {"GLOSSARY.md", "ERRORS.md"}, path
