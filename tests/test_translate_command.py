"""``autogradkit translate`` as a translator of a new assignment meets it."""

from __future__ import annotations

from autogradkit_instructor import cli

TEXT = "# %% [markdown]\n# # 09 · A reading\n#\n# Nothing to run here.\n"


def test_what_is_left_is_counted_in_words_that_fit_one(tmp_path, capsys):
    """It said "1 things left to translate"."""
    folder = tmp_path / "source" / "09_reading"
    folder.mkdir(parents=True)
    (folder / "09_reading.py").write_text(TEXT, encoding="utf-8")
    assert cli.main(["ids", "--course", str(tmp_path), "09_reading"]) == 0
    capsys.readouterr()
    assert cli.main(["translate", "--lang", "zh-CN", "--course", str(tmp_path), "09_reading"]) == 1
    said = capsys.readouterr().err.splitlines()
    assert "still marked UNTRANSLATED" in said[0] and said[-1] == "left to translate: 1"
