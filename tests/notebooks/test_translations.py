"""Each translated edition: the prose of every cell in both languages or in neither, up to date
with the English, the same code and graded cells, and every text the checks show translated.
How to translate: docs/translating.md."""

from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict

import pytest
from babel.messages.pofile import read_po

from autogradkit import _i18n as i18n
from autogradkit.grading.checks import read_expected
from autogradkit_instructor import translate
from autogradkit_instructor.build import read_text_source

from .conftest import ASSIGNMENTS, CHECKED, COURSE, TRANSLATED, read, release_path
from .exercises import checks_of

TRANSLATIONS = [(lang, name) for lang, names in TRANSLATED.items() for name in names]
# the editions whose notebook has checks, and so a catalog of their texts
CHECKED_TRANSLATIONS = [(lang, name) for lang, name in TRANSLATIONS if name in CHECKED]


def _text_source(name: str):
    return COURSE / "source" / name / f"{name}.py"


def test_notebook_00_is_translated_into_simplified_chinese():
    assert ("zh-CN", "00_start_here") in TRANSLATIONS


@pytest.mark.parametrize(("language", "name"), TRANSLATIONS)
def test_the_translation_covers_the_notebook_exactly_and_is_up_to_date(language, name):
    left = translate.status(_text_source(name), language)
    assert not left, f"run `autogradkit translate {name} --lang {language}`: " + "; ".join(left)


# ----- what makes a translation fail ---------------------------------------------------------
@pytest.fixture
def copy_00(tmp_path):
    """Notebook 00's text source and Chinese translation, in a folder of their own."""
    folder = tmp_path / "00_start_here"
    folder.mkdir()
    for suffix in (".py", ".zh-CN.md"):
        shutil.copy(COURSE / "source" / "00_start_here" / f"00_start_here{suffix}", folder)
    return folder / "00_start_here.py"


def _problems(text_source) -> list[str]:
    nb = read_text_source(text_source)
    sections = translate.read_sections(translate.translation_path(text_source, "zh-CN"))
    return translate.problems(nb, sections)


def test_a_cell_that_gains_prose_in_english_only_fails(copy_00):
    assert _problems(copy_00) == []
    text = copy_00.read_text(encoding="utf-8")
    copy_00.write_text(
        text.replace(
            '# %% id="00-import-numpy-as-np"',
            '# %% [markdown] id="00-new"\n# New prose.\n\n# %% id="00-import-numpy-as-np"',
            1,
        ),
        encoding="utf-8",
    )
    assert _problems(copy_00) == ["cell 00-new has no translation"]


def test_a_cell_that_lost_its_english_prose_fails(copy_00):
    text = copy_00.read_text(encoding="utf-8")
    start = text.index('# %% [markdown] id="00-figures"')
    end = text.index("# %%", start + 5)
    copy_00.write_text(text[:start] + text[end:], encoding="utf-8")
    (found,) = _problems(copy_00)
    assert found.endswith("00-figures: the source has no such cell (translated prose it lost?)")


def test_prose_in_chinese_only_fails(copy_00):
    path = translate.translation_path(copy_00, "zh-CN")
    path.write_text(
        path.read_text(encoding="utf-8") + "\n<!-- 00-extra en:00000000 -->\n额外的一段。\n",
        encoding="utf-8",
    )
    assert any("00-extra: the source has no such cell" in p for p in _problems(copy_00))


def test_english_changed_since_translated_is_stale(copy_00):
    text = copy_00.read_text(encoding="utf-8")
    copy_00.write_text(text.replace("## 4. Figures", "## 4. Pictures"), encoding="utf-8")
    (found,) = _problems(copy_00)
    assert "00-figures: the English changed since it was translated" in found
    assert found.endswith(f"en:{translate.english_hash(_cell(copy_00, '00-figures'))}")


def _cell(text_source, cell_id: str) -> str:
    return next(c.source for c in read_text_source(text_source).cells if c.id == cell_id)


def test_an_untranslated_or_changed_code_section_fails(copy_00):
    path = translate.translation_path(copy_00, "zh-CN")
    text = path.read_text(encoding="utf-8")
    changed = text.replace('ax.set_xlabel("x")', 'ax.set_xlabel("x")\nax.grid()')
    path.write_text(changed, encoding="utf-8")
    (found,) = _problems(copy_00)
    assert found.endswith("the code differs from the English beyond comments and strings")
    marked = text.replace("<!-- 00-figures en:", "<!-- 00-figures en:", 1).replace(
        "## 4. 图", "UNTRANSLATED\n## 4. Figures", 1
    )
    path.write_text(marked, encoding="utf-8")
    assert [p for p in _problems(copy_00) if "00-figures" in p][0].endswith(
        "still marked UNTRANSLATED"
    )


def test_the_same_code_allows_only_other_comments_and_strings():
    english = 'label = f"tangent at {x}, slope {k}"  # a label\nplot(x, label=label)'
    assert translate.same_code(
        english, 'label = f"斜率 {k}，在 {x} 处"  # 标签\nplot(x, label=label)'
    )
    assert not translate.same_code(english, 'label = f"{x}"\nplot(x, label=label)')
    assert not translate.same_code(english, 'label = "tangent"\nplot(x, label=label, lw=2)')


@pytest.mark.parametrize(
    "markdown",
    [
        "**用时：**约 25 分钟。",  # the ** closes nothing: the reader sees asterisks
        "这是一个\n句子。",  # renders as "这是一个 句子"
        "运行 `x.backward()`\n，再看梯度。",  # a space before the comma
        "> 引用的第一行\n> 第二行。",
        "第一句。\n第二句。",  # after a full-width stop: "第一句。 第二句" in Chromium
        "（autograd）\n到底做了什么",
        "原文写道：“……来计算张量。”\n紧接着的小标题",  # 03's note: ” is full-width too
        "**权重的梯度**是 `x / 4`**，偏置的梯度**是 `0.25`",  # 06: the bold took the comma
        "普通的**随机梯度下降（SGD）**每次乘以梯度**。带动量的 SGD**还维护着",  # bold in bold
    ],
)
def test_prose_a_chinese_reader_would_see_broken_fails(markdown):
    assert translate.prose_problems(markdown) != []


@pytest.mark.parametrize(
    "markdown",
    [
        "**用时**：约 25 分钟。",
        "第一句用 `code`\nand English 也可以。",
        "- 列表一；\n- 列表二。",
        "普通的**随机梯度下降**（SGD）每次乘以梯度。**带动量的 SGD** 还维护着",
    ],
)
def test_prose_that_renders_cleanly_passes(markdown):
    assert translate.prose_problems(markdown) == []


def test_the_prose_fixer_repairs_what_the_check_finds():
    from tools.fix_zh_prose import fix

    broken = (
        "**用时：**约 25 分钟。这是一个\n句子，运行 `x`\n，再看。\n\n> 引用的\n> 第二行。\n\n"
        "第一句。\n第二句。\n\n- 列表一；\n- 列表二。"
    )
    assert translate.prose_problems(broken) != []
    assert translate.prose_problems(fix(broken)) == []
    # the paragraph breaks and the list's second item are kept
    assert fix(broken).count("\n") == 7 and "\n- 列表二" in fix(broken)


def test_test_cells_and_solution_markers_are_never_translated():
    test_cell = {
        "cell_type": "code",
        "source": "checks.tensor_from_numbers()",
        "metadata": {"nbgrader": {"grade": True, "grade_id": "t", "points": 1}},
    }
    assert translate._code_problems(test_cell, "```python\nchecks.tensor_from_numbers()\n```")
    answer = {
        "cell_type": "code",
        "metadata": {},
        "source": "# x\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION",
    }
    moved = "```python\n# x\n### 开始答案\nx = 1\n### END SOLUTION\n```"
    assert translate._code_problems(answer, moved) == [
        "the ### BEGIN/END SOLUTION and HIDDEN TESTS lines must stay as they are"
    ]


# ----- the checks' texts ----------------------------------------------------------------------
@pytest.mark.parametrize(("language", "name"), CHECKED_TRANSLATIONS)
def test_every_text_the_checks_show_has_a_translation(language, name):
    """Titles (every public check), the names each check recorded on the solution (build's
    ``.expected.json``) and every hint written in ``checks.py``."""
    module = checks_of(name)
    tr = i18n.catalog(language, module.check.folder)
    titles = [c.title for c in module.check.checks if not c.hidden]
    expected = read_expected(module.check.folder / ".expected.json")
    names = [n for c in module.check.checks if not c.hidden for n in expected.get(c.name, {})]
    texts = [text for text, _, _ in translate.check_texts(module.check.folder / "checks.py")]
    assert titles and names and texts
    missing = sorted({t for t in titles + names + texts if not tr.knows(t)})
    assert not missing, f"checks.{language}.po has no entry for {missing}"


# ----- the released edition -------------------------------------------------------------------
def _nbgrader_cells(nb) -> list:
    return [c for c in nb.cells if "nbgrader" in c.metadata]


def _graded(cell) -> dict:
    """A cell's nbgrader metadata; an answer cell's checksum aside (its comment may be
    translated; the student's answer is theirs), a locked cell's kept (the same code)."""
    found = dict(cell.metadata.nbgrader)
    if not found.get("locked"):
        found.pop("checksum", None)
    return found


@pytest.mark.parametrize(("language", "name"), TRANSLATIONS)
def test_the_edition_has_the_same_cells_and_the_same_code(language, name):
    english, translated = read(release_path(name)), read(release_path(name, language))
    assert [(c.id, c.cell_type) for c in english.cells] == [
        (c.id, c.cell_type) for c in translated.cells
    ]
    assert [_graded(c) for c in _nbgrader_cells(english)] == [
        _graded(c) for c in _nbgrader_cells(translated)
    ]
    for mine, theirs in zip(english.cells, translated.cells):
        if mine.cell_type == "code":
            assert translate.same_code(mine.source, theirs.source), mine.id
    assert english.metadata["autogradkit"] == {"language": "en"}
    assert translated.metadata["autogradkit"] == {"language": language}


@pytest.mark.parametrize(("language", "name"), TRANSLATIONS)
def test_the_release_folder_tells_the_kernel_its_language_and_font(language, name):
    folder = release_path(name, language).parent
    assert i18n.folder_language(folder) == language
    assert i18n.folder_language(release_path(name).parent) == "en"
    assert i18n.FONTS[language].path.is_file()  # the kit's, registered by the kernel
    assert (folder / f"checks.{language}.po").is_file() == (name in CHECKED)
    assert not list(folder.glob("*.md")) and not list(release_path(name).parent.glob("*.po"))
    here, english = folder / ".expected.json", release_path(name).parent / ".expected.json"
    assert here.is_file() == english.is_file()  # an assignment with no check records nothing
    if english.is_file():
        assert json.loads(here.read_text()) == json.loads(english.read_text())


# ----- what a reader of an edition would see wrong (docs/translating.md, "The tests") -----------
@pytest.mark.parametrize(
    "code",
    [
        'ax.plot(x, label="SGD + momentum 0.9")',  # 07's legends, as they were
        'ax.plot(x, label="Adam (lr 0.01)")',
        'ax.set_title("layer 0")',
        "# YOUR CODE HERE\nraise NotImplementedError()",  # the placeholder, untranslated
        'print("都不追踪:", a.requires_grad)',  # a half-width colon after Chinese
        'print("只追踪 a:", c)',  # 02: a Chinese label, whatever its last letter
        'slider = widgets.IntSlider(description="epochs")',
        'fig = boundary_figure(model, f"Adam, after {n} epochs")',
    ],
)
def test_english_left_in_what_a_chinese_code_cell_shows_fails(code):
    assert translate.code_text_problems(code) != []


@pytest.mark.parametrize(
    "code",
    [
        'ax.plot(x, label="SGD + 动量 0.9")\nax.set_title("第 0 层")',
        "# 在此作答\nraise NotImplementedError()",
        'print("x.grad：", x.grad, "| requires_grad =", x.requires_grad)',
        'print("loss:", loss)  # 打印 loss，它是个 Python 数',  # a name printed is code
        'print("dy/dx =", 2 * x)',
    ],
)
def test_what_a_chinese_code_cell_shows_in_chinese_passes(code):
    assert translate.code_text_problems(code, {"loss", "x"}) == []


def test_english_left_in_a_chinese_catalog_fails(tmp_path):
    po = tmp_path / "checks.zh-CN.po"
    po.write_text(
        '#, python-brace-format\nmsgid "training {n} epoch{s}"\n'
        'msgstr "训练 {n} 个迭代周期（epoch{s}）"\n\n'
        'msgid "the gradient"\nmsgstr "the gradient"\n\n'
        'msgid "printed is a string"\nmsgstr "printed 是一个字符串"\n',
        encoding="utf-8",
    )
    found = translate.catalog_problems(po, {"printed"})
    assert len(found) == 2 and "'epoch'" in found[0] and "'the'" in found[1], found


@pytest.mark.parametrize(
    ("markdown", "labels"),
    [
        ("每点一次 **Step ▶** 按钮，引擎就执行一个节点", {"下一步 ▶", "◀ 上一步"}),  # 05, as it was
        ("然后点“reset”，再试试", {"重置"}),
        ("Press **Next ▶** and watch", {"Step ▶"}),
    ],
)
def test_prose_naming_a_label_no_widget_shows_fails(markdown, labels):
    assert translate.label_problems(markdown, labels) != []


def test_prose_naming_the_widgets_own_labels_passes():
    labels = {"下一步 ▶", "重置"}
    prose = (
        "每点一次 **下一步 ▶** 按钮；然后点“重置”。按**拓扑序**执行；按 **Shift + Enter** 运行。"
    )
    assert translate.label_problems(prose, labels) == []


@pytest.mark.parametrize(
    "text",
    ["如果在跟踪期间能悄悄改动", "就地修改张量", "这两个操作的输出"],
)
def test_a_variant_the_glossary_does_not_use_fails(text):
    variants, terms = translate.glossary_words(COURSE / "GLOSSARY.md", "zh-CN")
    assert {"跟踪", "就地", "操作"} <= set(variants)
    assert translate.variant_problems(text, variants, terms) != []


def test_the_glossary_terms_and_quotes_of_the_articles_keep_their_words():
    variants, terms = translate.glossary_words(COURSE / "GLOSSARY.md", "zh-CN")
    text = "*原地*操作与原地操作；原文写道：「叶节点的梯度会被跟踪」，代码里是 `x.data`。"
    assert translate.variant_problems(text, variants, terms) == []


@pytest.mark.parametrize(
    "markdown",
    [
        '"de/dc = d(c*d)/dc = d" and "de/dd = d(c*d)/dd = c"',  # 02's note, as it was
        "the slope of 2*x is 2, and 3*x has slope 3",
    ],
)
def test_a_star_that_commonmark_takes_as_emphasis_fails(markdown):
    assert translate.emphasis_problems(markdown) != []


@pytest.mark.parametrize(
    "markdown",
    ["`de/dc = d(c*d)/dc = d`", "*原地*修改，**加粗**也行", "a * b and c * d", "2 * x"],
)
def test_stars_that_render_as_written_pass(markdown):
    assert translate.emphasis_problems(markdown) == []


def _editions():
    """Every edition `_i18n.LANGUAGES` lists, with the notebooks released in it."""
    found = []
    for language in i18n.LANGUAGES:
        names = [n for n in ASSIGNMENTS if release_path(n, language).is_file()]
        assert names, f"{language} is an edition, but no notebook is released in it"
        found += [(language, name) for name in names]
    return found


@pytest.mark.parametrize(("language", "name"), _editions())
def test_every_edition_renders_as_written_and_names_its_widgets_labels(language, name):
    nb = read(release_path(name, language))
    text_source = _text_source(name)
    names = translate.notebook_names(
        read_text_source(text_source), text_source.parent / "checks.py"
    )
    assert translate.release_problems(nb, language, names) == []


# ----- English and punctuation in a Chinese edition's prose ----------------------------------
@pytest.mark.parametrize(
    "markdown",
    [
        "- [Autograd mechanics](https://docs.pytorch.org/x.html)：计算图是怎样记录的",  # 02's recap
        "比如强化学习里 Q-learning 的目标值",  # 04, as it was
        "读懂 “modified by an inplace operation” 这条报错信息",  # a space before “
        "它写着错误的类型 ，也说明了哪里出了问题",
        "这是一个 hook, 它会被调用",  # a word, and a half-width comma after it
        "点进一个单元格,按 **Shift + Enter**",
    ],
)
def test_english_or_a_stray_space_in_chinese_prose_fails(markdown):
    assert translate.prose_text_problems(markdown) != []


@pytest.mark.parametrize(
    "markdown",
    [
        "- [自动求导机制（Autograd mechanics）](https://docs.pytorch.org/x.html)：各种反向钩子",
        "一段红色的回溯信息（traceback）。请看**最后一行**：它写着错误的类型",
        "PyTorch 的**自动求导**（autograd）到底做了什么",
        "就选 **Kernel → Restart Kernel and Run All Cells**（内核 → 重启内核并运行所有单元格）",
        "文章 004《你所不知道的 Pytorch 大補包(十)》写道：「因為資料不只一組,由於 Gradient」",
        "读懂“modified by an inplace operation ... is at version 1”这条报错信息",
        "调用 `loss.backward()` 的时候，`x.grad` 为 None，见 $x^2$ 和 <https://ptorch.com/a>",
        "```python\nprint('hello world')\n```\n\n运行它。",
        "- 列表一；\n- 列表二：在 GPU 和 CPU 上都一样，按 Ctrl + S 保存。",
        "| 问题 | 答案 |\n|---|---|\n| 会报错吗？ | 会 |",
        '运行 `print("都不追踪：", c)` 看看，\n```python\nx = 1  # 注释， 代码里的空格不算\n```',
    ],
)
def test_chinese_prose_with_english_only_as_code_names_quotes_and_glosses_passes(markdown):
    assert translate.prose_text_problems(markdown) == []


# ----- one English text, one translation, across the course -----------------------------------
HEADING = re.compile(r"^#+ .*$", re.M)


def _one_way(pairs) -> dict[str, set[str]]:
    """The English texts (numbers aside: "Exercise 3 (2 points)" is "Exercise N (N points)")
    that ``pairs`` of (English, translation) translate in more than one way."""
    found = defaultdict(set)
    for english, translated in pairs:
        found[re.sub(r"\d+", "N", english)].add(re.sub(r"\d+", "N", translated))
    return {english: ways for english, ways in found.items() if len(ways) > 1}


@pytest.mark.parametrize("language", list(TRANSLATED))
def test_a_heading_is_translated_the_same_way_in_every_notebook(language):
    """``### Exercise 2 — find the bug`` once read 找出 bug in three notebooks, 找出错误 in two."""
    pairs = []
    for name in TRANSLATED[language]:
        sections = translate.read_sections(translate.translation_path(_text_source(name), language))
        for cell in read_text_source(_text_source(name)).cells:
            if cell.cell_type == "markdown" and cell.id in sections:
                english, translated = (
                    HEADING.findall(cell.source),
                    HEADING.findall(sections[cell.id].text),
                )
                assert len(english) == len(translated), f"{cell.id}: not the English headings"
                pairs += zip(english, translated)
    assert _one_way(pairs) == {}


@pytest.mark.parametrize("language", list(TRANSLATED))
def test_a_check_text_is_translated_the_same_way_in_every_catalog(language):
    pairs = []
    for po in [*(COURSE / "source").glob(f"*/checks.{language}.po")]:
        with po.open("rb") as handle:
            pairs += [(m.id, m.string) for m in read_po(handle) if m.id and m.string]
    assert _one_way(pairs) == {}


# ----- the notes that correct the source articles ---------------------------------------------
NOTE = {
    "en": "**Note on the source.**",
    "zh-CN": "**关于原文的说明**",
    "zh-TW": "**關於原文的說明**",
}


def _lost_notes(english: str, translated: str, language: str) -> bool:
    return english.count(NOTE["en"]) != translated.count(NOTE[language])


def test_a_translation_that_drops_a_note_on_the_source_is_found():
    english = "The chain rule.\n\n> **Note on the source.** Article 000 swaps the numbers."
    assert _lost_notes(english, "链式法则。", "zh-CN")
    assert not _lost_notes(english, "链式法则。\n\n> **关于原文的说明**。文章 000……", "zh-CN")


@pytest.mark.parametrize("language", list(TRANSLATED))
def test_every_note_on_the_source_is_in_every_edition(language):
    """The kit tells students where the articles are wrong: each cell's notes, in each edition."""
    lost = []
    for name in TRANSLATED[language]:
        sections = translate.read_sections(translate.translation_path(_text_source(name), language))
        for cell in read_text_source(_text_source(name)).cells:
            if cell.id in sections and _lost_notes(cell.source, sections[cell.id].text, language):
                lost.append(cell.id)
    assert lost == []
    assert (
        sum(
            section.text.count(NOTE[language])
            for name in TRANSLATED[language]
            for section in translate.read_sections(
                translate.translation_path(_text_source(name), language)
            ).values()
        )
        >= 9
    )  # nine today: a marker that no longer matches finds none
