"""Make the Traditional Chinese (zh-TW) edition's texts from the Simplified Chinese (zh-CN) ones.

Nobody translates zh-TW by hand. Every zh-CN text is converted with OpenCC's ``s2twp``
(Traditional characters and Taiwan's words: 程式 for 程序, 預設 for 默认, 函式 for 函数),
except the phrases of ``OVERRIDES``, written by hand: the course's terms as the glossary's
繁體中文 column has them (``notebooks/GLOSSARY.md``; a test converts each glossary term), and
what a Taiwanese reader found wrong in the converted text. Quotation marks become 「」 and 『』,
as Taiwan writes them. The files made, each beside the one it is made from:

- ``source/NN/NN.zh-TW.md`` from ``NN.zh-CN.md`` (the notebook's prose and code twin);
- ``source/NN/checks.zh-TW.po`` from ``checks.zh-CN.po`` (the checks' words);
- ``autogradkit/grading/locale/zh-TW.po`` from ``zh-CN.po`` (the kit's own words);
- ``ERRORS.zh-TW.md`` from ``ERRORS.zh-CN.md`` (the error index).

They are committed, so that a translator can review them and a diff shows what a change of
zh-CN or of ``OVERRIDES`` did. Never edit one by hand: fix the zh-CN text, or add an entry to
``OVERRIDES``, then run this again (``make notebooks`` and ``make release`` do, before they
release). ``--check`` writes nothing and exits 1 when a file is not what this tool makes.

Usage: ``.venv/bin/python tools/make_zh_tw.py [--check] [--course DIR]``
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autogradkit._i18n import KIT_CATALOGS  # noqa: E402
from tools.fix_zh_prose import fix  # noqa: E402

FROM, TO = "zh-CN", "zh-TW"

# zh-CN phrase -> the zh-TW words, used as written (OpenCC never sees them). The longest
# phrase that matches wins, so a word can have a longer exception (单元格 / 单元格里).
OVERRIDES = {
    # --- the glossary's 繁體中文 column, where s2twp writes another word --------------------
    "叶子节点": "葉節點",
    "叶子张量": "葉張量",
    "叶节点": "葉節點",
    "链式法则": "連鎖律",
    "迭代周期": "迭代週期",
    "训练循环": "訓練迴圈",
    "优化器": "最佳化器",
    "梯度清零": "梯度歸零",
    "标量": "純量",
    "浮点型": "浮點數",
    "自动求导": "自動微分",
    "推理模式": "推論模式",
    "保存的张量": "儲存的張量",
    "保存张量": "儲存張量",
    "异常检测": "異常偵測",
    "共享存储": "共享儲存",
    "自定义": "自訂",
    "递归": "遞迴",
    "就绪队列": "就緒佇列",
    "拓扑序": "拓撲順序",
    "句柄": "控制代碼",
    "多层感知机": "多層感知器",
    "激活函数": "激活函數",  # a function of mathematics is 函數 in Taiwan, of a program 函式
    "未归一化得分": "未正規化分數",
    "报错信息": "錯誤訊息",
    "参数": "參數",  # s2twp: 引數 (a call's argument); the course's 参数 are parameters
    "先对参数": "先對引數",  # backward()'s arguments, where they are a call's (05)
    "先把参数": "先把引數",
    "视图": "視圖",  # s2twp: 檢視 (a window's view)
    "向量-雅可比积": "向量-雅可比乘積",
    "局部": "局部",  # s2twp: 區域性 (a program's local variable)
    # --- a Taiwanese reader's words for programming, where s2twp keeps the mainland's ------
    "返回": "回傳",
    "实现": "實作",
    "打印输出": "輸出",
    "打印结果": "輸出結果",
    "打印出": "印出",
    "打印了出来": "印了出來",
    "打印": "印出",
    "报错": "錯誤",
    "会报错": "會出錯",
    "反馈": "回饋",
    "运行": "執行",
    "构建": "建構",
    "整型": "整數",
    "抛出": "拋出",
    "异常": "例外",  # a raised exception (异常检测 stays 異常偵測: the longer phrase wins)
    "抛出异常": "拋出例外",
    "抛出了异常": "拋出了例外",
    "单元格": "儲存格",  # a notebook's cell, as JupyterLab's Traditional Chinese menus say
    "单元格里": "儲存格裡",
    "列表": "串列",  # a Python list
    "类名": "類別名稱",  # a Python class: 類別
    "了解类和": "了解類別和",
    "哪个类。": "哪個類別。",
    "节点的类以": "節點的類別以",
    "是一个类": "是一個類別",
    "用你的类": "用你的類別",
    "Backward0` 类": "Backward0` 類別",
    "栈": "堆疊",  # a stack
    "访问到": "存取到",
    "访问": "走訪",  # a node of the graph, visited
    # 通过: 通過 where something passes, 透過 where it is the way through (via)
    "通过 `": "透過 `",
    "通过 .": "透過 .",
    "通过 d": "透過 d",
    "通过 {": "透過 {",
    "他通过": "他透過",
    "又通过": "又透過",
    "再通过": "再透過",
    "通过分离": "透過分離",
    "通过引用": "透過引用",
    "通过一串": "透過一串",
    "示例": "範例",
    "注释": "註解",  # a comment in code
    "下标": "索引",
    "下划线": "底線",
    "创建": "建立",
    "滑块": "滑桿",
    "拖动": "拖曳",
    "记账": "記帳",
    "损失函数": "損失函數",
    "幂函数": "冪函數",
    "复合函数": "複合函數",
    "逐元素函数": "逐元素函數",  # 03: functions of mathematics, drawn with derivatives
    "选一个函数": "選一個函數",
    "画出这个函数": "畫出這個函數",
    "每个函数的导数": "每個函數的導數",
    "hook函数详解": "hook函數詳解",  # an article's title: its words, in Traditional characters
    "库": "函式庫",  # a library of code
    "教程": "教學",
    "图像": "圖形",  # the graph of a function
    "响应": "回應",
    "会话": "工作階段",  # a kernel's session
    "汇报": "回報",
    "报了错": "出了錯",
    "随机数": "亂數",  # a random number, and its seed
    "编写": "撰寫",  # code written: 撰寫程式碼 (the glossary lists 編寫 as a word zh-TW avoids)
    "遍历": "走訪",  # a graph walked, as 访问 above
    "求导": "微分",  # to differentiate; 自动求导 (自動微分) and 导数 (導數) are terms of their own
    "重启": "重新啟動",  # JupyterLab's 重新啟動核心
    "进度条": "進度列",
    "套接字": "通訊端",  # a socket, as Taiwan's programming books and Microsoft's docs say
    "文本文件": "文字檔",  # a text file (OpenCC keeps the mainland's 文本)
    "第 {column} 列": "第 {column} 欄",  # a column of text, as VS Code's 第 3 行，第 5 欄
    "推理": "推論",  # inference (推理模式, 推理张量), as the glossary's 推論模式
    "清零": "歸零",  # the gradients zeroed, as the glossary's 梯度歸零
    # a `with` block is a 區塊 (块 alone stays where it is a chunk of data: 每块的损失)
    "代码块": "程式碼區塊",
    "` 块": "` 區塊",
    "块结束": "區塊結束",
    "在块外": "在區塊外",
    "在块里": "在區塊裡",
    "：块里": "：區塊裡",
    "让块里": "讓區塊裡",
    "**用时**": "**所需時間**",  # the time a notebook takes (用時 alone is inside 呼叫時用)
    "提交用时": "提交所需時間",
    "文本源": "文字原始檔",  # a notebook's Jupytext text source
    "权限": "權限",  # a file's permission, as Taiwan's Windows says (s2twp: 許可權)
    "只读": "唯讀",  # a read-only disk or file, as Taiwan's Windows says
    # --- a matrix's or a table's rows and columns: the mainland's 行 and 列 are Taiwan's 列 and
    # 行 (a line of code or of output stays 行)
    "行向量": "列向量",
    "第 `i` 行": "第 `i` 列",
    "第 i 行": "第 i 列",
    "每一行 i": "每一列 i",
    "逐行求出": "逐列求出",
    "逐行还原": "逐列還原",
    "各行拼起来": "各列拼起來",
    "某一行": "某一列",
    "就是第 1 行。每一行都这样做": "就是第 1 列。每一列都這樣做",
    "算下一行": "算下一列",
    "第二列只影响": "第二行只影響",
    "每一列的和": "每一行的和",
    "哪一列参与了": "哪一行參與了",
    "四行，两列": "四列，兩行",
    "一行行看": "一列列看",
    "这一行要仔细看": "這一列要仔細看",
    "这里的每一行都和英文版": "這裡的每一列都和英文版",
    "一列数": "一串數",  # a list of numbers
    "一列张量": "一串張量",
    # --- where s2twp cuts the words wrong ---------------------------------------------------
    "数组成": "數組成",  # 由三个数组成的列表: numbers that make a list, not 陣列 (arrays)
    "函数组成": "函式組成",
    "推导出": "推導出",  # s2twp: 推匯出 (导出: to export)
    "只": "只",  # only: s2twp writes 隻 (a measure word) in 最大只有, 第二列只影响
    "历史": "歷史",  # s2twp: 運算曆史 (a calendar)
    "并为": "並為",  # s2twp: 併為
    "里": "裡",  # 代码里, 函数里: s2twp keeps 里 after a word it knows
}

QUOTES = str.maketrans({"“": "「", "”": "」", "‘": "『", "’": "』"})
_PHRASES = re.compile("(" + "|".join(sorted(map(re.escape, OVERRIDES), key=len)[::-1]) + ")")


@functools.cache
def _opencc():
    import opencc  # the [grade] and [test] extras: an instructor's tool, not a student's

    return opencc.OpenCC("s2twp")


def convert(text: str) -> str:
    """``text`` in Traditional Chinese as Taiwan writes it: OpenCC's ``s2twp`` between the
    phrases of ``OVERRIDES``, which take their hand-written words; ``「」`` for ``“”``; and
    links to a zh-CN file go to its zh-TW twin.

    Example:
        >>> convert("默认的“叶子节点”，见 ERRORS.zh-CN.md")
        '預設的「葉節點」，見 ERRORS.zh-TW.md'
    """
    parts = _PHRASES.split(text)  # the odd items are the phrases the pattern matched
    out = [OVERRIDES[part] if i % 2 else _opencc().convert(part) for i, part in enumerate(parts)]
    return "".join(out).translate(QUOTES).replace(f".{FROM}.", f".{TO}.")


def convert_markdown(text: str, name: str) -> str:
    """A prose file converted; its first line, when it is the file's note (an HTML comment),
    says instead where the file comes from. A line break that now shows as a space (after 」,
    where zh-CN had ”) is joined, as ``tools/fix_zh_prose.py`` joins it."""
    first, _, rest = text.partition("\n")
    if first.startswith("<!--") and FROM in first:
        stem = name.replace(f".{FROM}.md", "")
        first = (
            f"<!-- {stem} in {TO}: made from {stem}.{FROM}.md by tools/make_zh_tw.py; do not "
            "edit: fix the zh-CN text, or the tool's OVERRIDES -->"
        )
        return first + "\n" + _joined(convert(rest))
    return _joined(convert(text))


def _joined(text: str) -> str:
    while (again := fix(text)) != text:
        text = again
    return text


def convert_catalog(text: str) -> str:
    """A ``.po`` catalog with its translations converted, line by line, so that it reads
    side by side with its zh-CN twin; its English (``msgid``, ``#|``) stays as it is."""
    lines, english = [], False
    for line in text.split("\n"):
        if line.startswith(("msgid", "msgctxt", "#|")):
            english = True
        elif line.startswith(("msgstr", "#")) or not line:
            english = False
        lines.append(line if english or line.startswith("#|") else convert(line))
    return "\n".join(lines)


def sources(course: Path) -> list[Path]:
    """Every zh-CN text an edition is made of."""
    found = sorted((course / "source").glob(f"*/*.{FROM}.md"))
    found += sorted((course / "source").glob(f"*/checks.{FROM}.po"))
    found += [p for p in (course / f"ERRORS.{FROM}.md", KIT_CATALOGS / f"{FROM}.po") if p.is_file()]
    return found


def target(source: Path) -> Path:
    return source.with_name(source.name.replace(FROM, TO))


def made(source: Path) -> bytes:
    """What the zh-TW twin of ``source`` must hold."""
    text = source.read_text(encoding="utf-8")
    if source.suffix == ".po":
        return convert_catalog(text).encode("utf-8")
    return convert_markdown(text, source.name).encode("utf-8")


def orphans(course: Path) -> list[Path]:
    """zh-TW files whose zh-CN text is gone."""
    wanted = {target(s) for s in sources(course)}
    found = [*(course / "source").glob(f"*/*.{TO}.*"), *course.glob(f"*.{TO}.*")]
    found += [KIT_CATALOGS / f"{TO}.po"]
    return sorted(p for p in found if p.is_file() and p not in wanted)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    parser.add_argument("--course", type=Path, default=ROOT / "notebooks")
    args = parser.parse_args(argv)
    stale = []
    for source in sources(args.course):
        data, path = made(source), target(source)
        if not path.is_file() or path.read_bytes() != data:
            stale.append(path)
            if not args.check:
                path.write_bytes(data)
    gone = orphans(args.course)
    for path in gone if not args.check else ():
        path.unlink()
    for path in stale:
        print(f"make_zh_tw: {path}: {'stale' if args.check else 'written'}", file=sys.stderr)
    for path in gone:
        print(f"make_zh_tw: {path}: its zh-CN text is gone", file=sys.stderr)
    return 1 if args.check and (stale or gone) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
