"""The student's language: catalogs, the notebook's language, and the words each layer shows."""

from __future__ import annotations

import ast
import errno
import html
import io
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from babel.messages.pofile import read_po

from autogradkit import _i18n as i18n
from autogradkit.grading import checks
from autogradkit.grading.checks import CheckFailed, Checks
from autogradkit.grading.observations import Observation, Record, judge, judge_record
from autogradkit_instructor import report
from autogradkit_instructor.context import CellResult
from autogradkit_instructor.translate import catalog_problems, kit_messages, placeholders

COURSE_SOURCE = Path(__file__).resolve().parents[2] / "notebooks" / "source"
ZH_PO = """\
msgid "Exercise 1: your first tensor"
msgstr "练习 1：你的第一个张量"

#, python-brace-format
msgid "{call} returns a tensor"
msgstr "{call} 返回一个张量"

msgid "the same numbers, in the same order"
msgstr "同样的数，同样的顺序"

#, fuzzy
msgid "a changed hint"
msgstr "过时的译文"
"""


@pytest.fixture
def zh_folder(tmp_path):
    (tmp_path / "checks.zh-CN.po").write_text(ZH_PO, encoding="utf-8")
    (tmp_path / i18n.LANGUAGE_FILE).write_text("zh-CN\n", encoding="utf-8")
    return tmp_path


def test_a_template_matches_every_text_it_makes_and_keeps_literal_braces():
    pattern, translated = i18n.template("{call} gives {{x}} for {n}", "{call} 对 {n} 给出 {{x}}")
    zh = i18n.Catalog("zh-CN", templates=((pattern, translated),))
    assert zh.text("f(1, {2}) gives {x} for 3") == "f(1, {2}) 对 3 给出 {x}"
    assert zh.text("f(1) gives x for 3") == "f(1) gives x for 3"  # no literal braces: no match
    assert zh.knows("g() gives {x} for 0") and not zh.knows("something else")


def test_a_course_catalog_translates_its_texts_but_not_fuzzy_entries(zh_folder):
    zh = i18n.catalog("zh-CN", zh_folder)
    assert zh.text("Exercise 1: your first tensor") == "练习 1：你的第一个张量"
    assert zh.text("first_tensor([3, -1]) returns a tensor") == "first_tensor([3, -1]) 返回一个张量"
    assert zh.text("a changed hint") == "a changed hint"
    assert zh("not answered yet") == "还没有作答"  # the kit's own words come along


def test_english_needs_no_catalog_and_an_unknown_language_is_refused(tmp_path):
    assert i18n.catalog("en", tmp_path) is i18n.ENGLISH
    assert i18n.ENGLISH.text("the printout") == "the printout"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        i18n.catalog("fr")


def test_the_language_of_a_folder_and_of_a_notebook(zh_folder, tmp_path_factory):
    assert i18n.folder_language(zh_folder) == "zh-CN"
    assert i18n.folder_language(tmp_path_factory.mktemp("en")) == "en"
    assert i18n.notebook_language({"metadata": {"autogradkit": {"language": "zh-CN"}}}) == "zh-CN"
    for metadata in ({}, {"autogradkit": "zh-CN"}, {"autogradkit": {"language": "../x"}}):
        assert i18n.notebook_language({"metadata": metadata}) == "en"  # a student's edit


def test_the_grader_judges_in_the_students_language_with_the_solutions_words(zh_folder):
    zh = i18n.catalog("zh-CN", zh_folder)
    want = Observation(
        "f([1]) holds those numbers", 1.0, kind="close", hint="the same numbers, in the same order"
    )
    expected = Record("tensor_from_numbers", "Exercise 1: your first tensor", observations=[want])
    seen = Record("tensor_from_numbers", "forged title", observations=[Observation(want.name, 2.5)])
    assert judge_record(expected, seen, zh).lines == [
        "✗ f([1]) holds those numbers：数值不对（提示：同样的数，同样的顺序）"
    ]
    stopped = Record("tensor_from_numbers", "x", stopped={"reason": "not_answered"})
    assert judge_record(expected, stopped, zh).lines == ["✗ 练习 1：你的第一个张量：还没有作答"]
    reveal = Observation("p", 7.0, kind="close", reveal=True)
    assert judge(reveal, Observation("p", 5.0), zh) == "实际是 7，不是你预测的结果"


def test_practice_mode_speaks_the_language_of_the_checks_folder(zh_folder, capsys):
    check = Checks(str(zh_folder / "checks.py"))
    assert check.language == "zh-CN"
    record = Record(
        "c",
        "Exercise 1: your first tensor",
        observations=[Observation("f(2) returns a tensor", True)],
    )
    checks._show(record, {"f(2) returns a tensor": True}, None, check.tr)
    assert capsys.readouterr().out == "✓ f(2) 返回一个张量\n"
    record.stopped = {"reason": "raised", "error": "ValueError"}
    with pytest.raises(CheckFailed, match="^✗ 练习 1：你的第一个张量：你的代码抛出了 ValueError$"):
        checks._show(record, {"f(2) returns a tensor": True}, None, check.tr)


def test_the_feedback_page_is_written_in_the_notebooks_language(zh_folder):
    result = CellResult("nb00_ex1_test", 1.0, status="failed", lines=["✗ 练习 1：还没有作答"])
    ctx = SimpleNamespace(issues=[], hidden=[], results={"nb00_ex1_test": result})
    ctx.tr = i18n.catalog("zh-CN", zh_folder)
    row = {
        "assignment": "00_start_here",
        "notebook": "00_start_here",
        "student": "li",
        "score": 0,
        "max_score": 3,
        "status": "ok",
        "issues": [],  # a row's bounded issues, as report.make_row writes them
    }
    page = report.feedback_html(row, ctx)
    assert '<html lang="zh-CN">' in page and "给 li 的反馈" in page and "得分：0 / 3" in page
    assert (
        "<th>练习</th><th>分数</th><th>结果</th>" in page and "你的笔记本从头到尾运行完毕。" in page
    )
    ctx.tr = i18n.ENGLISH
    assert '<html lang="en">' in report.feedback_html(row, ctx)


# ----- the kit's own catalog ------------------------------------------------------------------
def _kit_catalog(language: str) -> dict[str, str]:
    with (i18n.KIT_CATALOGS / f"{language}.po").open("rb") as handle:
        return {m.id: m.string for m in read_po(handle) if m.id}


def test_every_message_of_the_kit_is_a_literal_with_a_translation():
    found = kit_messages()
    assert len(found) > 50
    literal = [f"{file}:{line}" for msgid, file, line in found if msgid is None]
    assert not literal, f"tr()/N_() need a string literal (translate, then format): {literal}"
    for language in i18n.LANGUAGES[1:]:
        catalog = _kit_catalog(language)
        missing = sorted({m for m, _, _ in found} - set(catalog))
        assert not missing, f"run `autogradkit translate --lang {language}`: {missing}"
        unused = sorted(set(catalog) - {m for m, _, _ in found})
        assert not unused, f"entries no code uses any more: {unused}"
        glossary = i18n.KIT_CATALOGS.parents[2] / "notebooks" / "GLOSSARY.md"  # its words too
        assert catalog_problems(i18n.KIT_CATALOGS / f"{language}.po", glossary=glossary) == []


def test_a_translation_with_other_placeholders_is_reported(tmp_path):
    po = tmp_path / "x.po"
    po.write_text('msgid "it is {real}"\nmsgstr "实际是 {value}"\n', encoding="utf-8")
    assert catalog_problems(po) == [
        "x.po: the placeholders differ from the English: 'it is {real}'"
    ]
    assert placeholders("{a:.2f} and {{b}} and {c!r}") == {"a", "c"}
    assert read_po(io.BytesIO(po.read_bytes()))  # a file Babel reads as gettext writes it


def test_translate_keeps_the_entries_written_by_hand_and_drops_empty_vanished_ones(tmp_path):
    from autogradkit_instructor.translate import HAND_WRITTEN, update_catalog

    po = tmp_path / "checks.zh-CN.po"
    po.write_text(
        'msgid "a title"\nmsgstr "标题"\n\n'
        'msgid "w of shape (2,)"\nmsgstr "形状为 (2,) 的 w"\n\n'
        'msgid "gone and never translated"\nmsgstr ""\n',
        encoding="utf-8",
    )
    update_catalog(po, [("a title", False, ("checks.py", 3))], "zh-CN")
    with po.open("rb") as handle:
        catalog = read_po(handle)
    assert catalog.get("a title").string == "标题"
    kept = catalog.get("w of shape (2,)")
    assert kept.string == "形状为 (2,) 的 w" and HAND_WRITTEN in kept.auto_comments
    assert catalog.get("gone and never translated") is None


def test_the_most_specific_template_wins_values_are_translated_and_may_be_empty(tmp_path):
    from autogradkit._i18n import catalog

    (tmp_path / "checks.zh-CN.po").write_text(
        "#, python-brace-format\n"
        'msgid "{name} {at}"\nmsgstr "{name} {at}"\n\n'
        "#, python-brace-format\n"
        'msgid "Jacobian of {name}"\nmsgstr "{name} 的雅可比矩阵"\n\n'
        "#, python-brace-format\n"
        'msgid "Jacobian of {name} at a parameter x"\nmsgstr "{name} 在参数 x 处的雅可比矩阵"\n\n'
        "#, python-brace-format\n"
        'msgid "w after {epochs} epoch{plural}"\nmsgstr "训练 {epochs} 轮后的 w"\n\n'
        "#, python-brace-format\n"
        'msgid "the model in {mode} mode"\nmsgstr "模型处于{mode}模式"\n\n'
        'msgid "training"\nmsgstr "训练"\n',
        encoding="utf-8",
    )
    zh = catalog("zh-CN", tmp_path, "checks")
    assert zh.text("Jacobian of f at a parameter x") == "f 在参数 x 处的雅可比矩阵"
    assert zh.text("Jacobian of f") == "f 的雅可比矩阵"
    assert zh.text("w after 1 epoch") == "训练 1 轮后的 w"
    assert zh.text("w after 3 epochs") == "训练 3 轮后的 w"
    assert zh.text("the model in training mode") == "模型处于训练模式"


# ----- the grader's notes on the feedback page --------------------------------------------------
NOTES = [  # one of each kind the grading steps and the session write about a student's notebook
    "answer cell nb00_ex1 raised ValueError",
    "test cell nb00_ex1_test was changed; the original was restored",
    "locked cell nb00_setup was deleted; it was restored",
    "answer cell nb00_ex2 is missing; it was graded as unanswered",
    "an extra cell claimed grade_id nb00_ex1; it was not scored",
    "cell 7 and later cells were not run (no kernel left)",
    "nb00_ex2_test: this cell ran longer than 60 s and was interrupted",
]


def test_the_feedback_pages_notes_and_hidden_lines_are_in_the_notebooks_language(zh_folder):
    from autogradkit_instructor.translate import english_left

    hidden = ["assert slope(3) == 25"]
    result = CellResult("nb00_ex2_test", 1.0, status="failed", error="AssertionError: " + hidden[0])
    silent = CellResult("nb00_ex1_test", 1.0, status="passed")  # an assert cell: no line
    results = {"nb00_ex2_test": result, "nb00_ex1_test": silent}
    ctx = SimpleNamespace(issues=[], hidden=hidden, results=results)
    ctx.tr = i18n.catalog("zh-CN", zh_folder)
    row = {"assignment": "00_start_here", "notebook": "00_start_here", "student": "li"}
    row |= {"score": 0, "max_score": 3, "status": "ok", "issues": NOTES}
    page = report.feedback_html(row, ctx)
    shown = re.findall(r"<li>(.*?)</li>", page) + re.findall(
        r"<td>([^<]*AssertionError.*?)</td>", page
    )
    assert len(shown) == len(NOTES) + 1 and "<td>✓ 通过</td>" in page
    ids = {"nb00_ex1", "nb00_ex2", "nb00_ex1_test", "nb00_setup", "grade_id", "AssertionError"}
    left = {text: english_left(html.unescape(text), ids) for text in shown}
    assert not any(left.values()), left


def _writes_a_note(node) -> bool:
    """``ctx.issues.append(...)`` or ``ctx.fail(status, ...)``."""
    func = getattr(node, "func", None)
    return isinstance(func, ast.Attribute) and (
        (func.attr == "append" and getattr(func.value, "attr", "") == "issues")
        or (func.attr == "fail" and len(node.args) == 2)
    )


def _marked(note, assigned: dict) -> bool:
    """``N_("...")``, ``N_("...").format(...)``, or either of two such texts (``a if c else b``,
    or a name assigned one): a text the kit's catalog translates."""
    if isinstance(note, ast.Call) and getattr(note.func, "attr", "") == "format":
        note = note.func.value
    note = assigned.get(getattr(note, "id", None), note)
    if isinstance(note, ast.IfExp):
        return _marked(note.body, assigned) and _marked(note.orelse, assigned)
    return isinstance(note, ast.Call) and getattr(note.func, "id", "") == "N_"


def test_every_note_grading_writes_about_a_notebook_is_marked_for_translation():
    """What the pipeline's steps and the kernel session say about a student's notebook reaches
    the student's page, which translates it through the kit's catalog (its templates)."""
    package, unmarked = Path(report.__file__).parent, []
    for path in [*sorted((package / "steps").glob("*.py")), package / "session.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned = {
            node.targets[0].id: node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        }
        unmarked += [
            f"{path.name}:{node.lineno}"
            for node in ast.walk(tree)
            if _writes_a_note(node) and not _marked(node.args[-1], assigned)
        ]
    assert unmarked == [], 'write the note as N_("... {name} ...").format(name=...)'


def _file_notes(tree) -> list:
    """What files.py and submission.py say about a handed-in file: each ``refused.append(x)``,
    each ``(status, note)`` returned or set as ``task.failure``, each UnreadableNotebook's."""
    notes = []
    for node in ast.walk(tree):
        func = getattr(node, "func", None)
        if isinstance(func, ast.Attribute) and func.attr == "append":
            if getattr(func.value, "id", "") == "refused":
                notes.append(node.args[0])
        elif isinstance(func, ast.Name) and func.id == "UnreadableNotebook" and node.args:
            notes.append(node.args[0])
        elif isinstance(node, (ast.Return, ast.Assign)) and isinstance(node.value, ast.Tuple):
            first = node.value.elts[0] if node.value.elts else None
            if isinstance(first, ast.Constant) and len(node.value.elts) == 2:
                notes.append(node.value.elts[1])
    return notes


def test_every_note_about_a_handed_in_file_is_marked_for_translation():
    """The notes about files (one not copied, a notebook unreadable, missing, handed in twice)
    reach the student's page too: a Chinese page listed them in English."""
    package, unmarked = Path(report.__file__).parent, []
    for name in ("files.py", "submission.py", "notebooks.py"):
        tree = ast.parse((package / name).read_text(encoding="utf-8"))
        assigned = {
            node.targets[0].id: node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        }
        notes = _file_notes(tree)
        assert notes, name
        unmarked += [f"{name}:{n.lineno}" for n in notes if not _marked(n, assigned)]
    assert unmarked == [], 'write the note as N_("... {name} ...").format(name=...)'


def test_the_extractor_finds_the_name_and_hint_of_every_kind_of_observation(tmp_path):
    """Each method of ``obs`` that shows a name (``holds`` was missed: its names were
    translated by hand, and a new one would have stayed English)."""
    from autogradkit_instructor.translate import check_texts

    checks = tmp_path / "checks.py"
    calls = [
        f'    obs.{method}("{method} name", x, "empty", hint="{method} hint")'
        for method in ("close", "equal", "predicted", "holds", "require")
    ]
    checks.write_text("@checks.exercise\ndef ex(obs):\n" + "\n".join(calls) + "\n")
    found = {text for text, _, _ in check_texts(checks)}
    for method in ("close", "equal", "predicted", "holds", "require"):
        assert {f"{method} name", f"{method} hint"} <= found, method


def test_a_note_about_an_error_of_the_system_is_in_the_notebooks_language(tmp_path, monkeypatch):
    """The system's words for an error (``os.strerror``: "Permission denied") are English
    whatever the student's language; a note filled with them read 无法读取（Permission denied）
    on a Chinese page. Every errno, as opening a handed-in notebook or copying a file meets it."""
    from autogradkit_instructor import files, notebooks
    from autogradkit_instructor.translate import english_left

    zh, names = i18n.catalog("zh-CN"), set(errno.errorcode.values())
    notebook = tmp_path / "a.ipynb"
    notebook.write_text("{}", encoding="utf-8")
    (tmp_path / "data.csv").write_text("1\n", encoding="utf-8")
    left = {}
    for number in sorted(errno.errorcode):

        def fail(*args, number=number, **kwargs):
            raise OSError(number, os.strerror(number))

        with monkeypatch.context() as patched:
            patched.setattr(notebooks.os, "open", fail)
            with pytest.raises(notebooks.UnreadableNotebook) as raised:
                notebooks.read_notebook(notebook)
            refused = files.copy_files(tmp_path, tmp_path / "copy", skip=("a.ipynb",))
        for note in [str(raised.value), *refused]:
            found = english_left(zh.message(note), names | {"csv"})
            if found:
                left[zh.message(note)] = found
    assert left == {}


def test_translating_what_did_not_change_rewrites_nothing(tmp_path):
    """``autogradkit translate --lang zh-CN``, the translator's command, on the shipped course
    with nothing changed rewrote the kit's catalog and seven checks' catalogs (2,400 lines):
    the same entries in Babel's order, the hand-written ones moved to the end. Nothing changed
    may move; a new text adds its entry and moves nothing else."""
    import shutil

    from autogradkit_instructor import translate

    course = tmp_path / "source"
    shutil.copytree(i18n.KIT_CATALOGS.parents[2] / "notebooks" / "source", course)
    shutil.copytree(i18n.KIT_CATALOGS, tmp_path / "locale")

    def stamps():
        found = [*course.rglob("*"), *(tmp_path / "locale").iterdir()]
        return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in found if p.is_file()}

    before = stamps()
    for text_source in translate.text_sources(tmp_path, ()):
        if translate.translation_path(text_source, "zh-CN").is_file():
            assert translate.update(text_source, "zh-CN") == []
    assert translate.update_kit_catalog("zh-CN", tmp_path / "locale") == []
    assert [str(p.relative_to(tmp_path)) for p in before if stamps()[p] != before[p]] == []

    po = course / "01_backprop_by_hand" / "checks.zh-CN.po"
    old = [(m.id, m.string) for m in read_po(io.BytesIO(po.read_bytes())) if m.id]
    translate.update_catalog(
        po, [*_texts_of(po), ("a new hint", False, ("checks.py", None))], "zh-CN"
    )
    assert [(m.id, m.string) for m in read_po(io.BytesIO(po.read_bytes())) if m.id] == [
        *old,
        ("a new hint", ""),
    ]


def _texts_of(po: Path) -> list:
    """What the extractor finds in the checks.py beside ``po``, as ``update`` passes it."""
    from autogradkit_instructor.translate import check_texts

    return [
        (text, flag, ("checks.py", None)) for text, flag, _ in check_texts(po.parent / "checks.py")
    ]


@pytest.mark.parametrize(
    "po", sorted(COURSE_SOURCE.glob("*/checks.*.po")), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_a_new_text_adds_one_entry_to_a_course_catalog_and_rewrites_none(po, tmp_path):
    """The course's catalogs are stored as ``autogradkit translate`` writes them: a new text in
    checks.py adds its entry at the end, and the translator's diff is that entry alone (stored
    otherwise, the first new text reflowed every catalog of the course)."""
    from autogradkit_instructor.translate import HAND_WRITTEN, TEMPLATE_FLAG, update_catalog

    copy = tmp_path / po.name
    copy.write_bytes(po.read_bytes())
    with po.open("rb") as handle:
        stored = [m for m in read_po(handle) if m.id and HAND_WRITTEN not in m.auto_comments]
    texts = [(m.id, TEMPLATE_FLAG in m.flags, ("checks.py", None)) for m in stored]
    language = po.suffixes[0].lstrip(".")
    update_catalog(
        copy, [*texts, ("a text checks.py did not have", False, ("checks.py", None))], language
    )
    before, after = po.read_text(encoding="utf-8"), copy.read_text(encoding="utf-8")
    assert after.startswith(before.rstrip("\n")), "a stored entry was rewritten"
    assert after[len(before.rstrip("\n")) :].count("msgid") == 1
