"""`make test` runs nbval on every edition: every English, zh-CN and zh-TW release notebook is
in the notebooks stage's selection and nbval collects its cells; an empty selection fails."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from .conftest import ASSIGNMENTS, ROOT, TRANSLATED, release_path

sys.path.insert(0, str(ROOT / "tools"))

import run_stages  # noqa: E402


def test_the_notebooks_stage_selects_every_edition():
    command = run_stages.commands("notebooks", [])[0]
    wanted = [release_path(name) for name in ASSIGNMENTS]
    wanted += [release_path(name, lang) for lang, names in TRANSLATED.items() for name in names]
    for language, names in TRANSLATED.items():
        assert names, f"no {language} edition: nothing of it would be tested"
    missing = [str(p.relative_to(ROOT)) for p in wanted if str(p.relative_to(ROOT)) not in command]
    assert missing == []
    on_disk = sorted((ROOT / "notebooks" / "release").glob("*/*/*.ipynb"))
    assert all(str(p.relative_to(ROOT)) in command for p in on_disk)


@pytest.mark.parametrize("language", sorted(TRANSLATED))
def test_nbval_collects_every_cell_of_a_translated_release(language):
    name = TRANSLATED[language][0]
    path = release_path(name, language)
    command = [sys.executable, "-m", "pytest", *run_stages.NBVAL, "--collect-only", "-q"]
    done = subprocess.run(
        [*command, str(path.relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    assert done.returncode == 0, done.stdout[-2000:]
    assert f"{len(code)} tests collected" in done.stdout


def test_an_empty_selection_of_notebooks_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run_stages, "ROOT", tmp_path)
    assert run_stages.notebooks() == []
    assert run_stages.main(["notebooks"]) == 1
    out = capsys.readouterr().out
    assert "stage notebooks  FAILED" in out
    # said, not left to pytest, which would collect its testpaths (tests/) instead
    assert "nbval: no notebooks under notebooks/source, notebooks/release" in out


@pytest.mark.parametrize("language", sorted(TRANSLATED))
def test_each_translated_source_has_its_release_notebook(language):
    missing = [n for n in TRANSLATED[language] if not release_path(n, language).is_file()]
    assert missing == [], f"run `autogradkit release --lang {language}` for {missing}"
