"""The test runners themselves: a failing stage hides nothing, a skip outside the list fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import run_stages  # noqa: E402

SKIPPING_TEST = """
import pytest

def test_runs():
    assert True

@pytest.mark.skip(reason="no oracle here")
def test_needs_the_oracle():
    pass
"""


# the sample needs none of the installed plugins, whose imports (nbval's nbformat and its
# jsonschema, hypothesis, xdist) took 3.8 s of CPU in each run; run_pytest's own plugin is
# passed to pytest by hand, so it is there all the same
BARE = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _run_pytest(tmp_path, *args) -> subprocess.CompletedProcess:
    (tmp_path / "test_sample.py").write_text(SKIPPING_TEST)
    command = [sys.executable, str(ROOT / "tools" / "run_pytest.py"), *args]
    command += ["-q", "-p", "no:cacheprovider", str(tmp_path)]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=BARE)


def test_skips_are_listed_by_reason_and_pass_without_an_allow_list(tmp_path):
    done = _run_pytest(tmp_path)
    assert done.returncode == 0
    assert "skips by reason" in done.stdout and "1  no oracle here" in done.stdout


def test_a_skip_outside_the_allow_list_fails_the_run(tmp_path):
    (tmp_path / "allowed.txt").write_text("# nothing may skip\n")
    done = _run_pytest(tmp_path, "--allowed-skips", str(tmp_path / "allowed.txt"))
    assert done.returncode == 1
    assert "no oracle here  NOT ALLOWED" in done.stdout


def test_a_skip_in_the_allow_list_passes(tmp_path):
    (tmp_path / "allowed.txt").write_text("no oracle  # the oracle is optional here\n")
    done = _run_pytest(tmp_path, "--allowed-skips", str(tmp_path / "allowed.txt"))
    assert done.returncode == 0


def test_a_module_skipped_while_collected_is_listed_and_judged_too(tmp_path):
    (tmp_path / "test_oracle.py").write_text(
        'import pytest\npytest.skip("no torch here", allow_module_level=True)\n'
    )
    (tmp_path / "allowed.txt").write_text("no oracle\n")
    done = _run_pytest(tmp_path, "--allowed-skips", str(tmp_path / "allowed.txt"))
    assert done.returncode == 1
    assert "1  no torch here  NOT ALLOWED" in done.stdout


def test_each_files_seconds_are_listed_slowest_first(tmp_path):
    (tmp_path / "test_other.py").write_text("def test_other():\n    assert True\n")
    done = _run_pytest(tmp_path)
    listed = done.stdout.split("slowest files (of ", 1)[1].splitlines()[1:3]
    assert sorted(line.split(" s  ")[1] for line in listed) == ["test_other.py", "test_sample.py"]
    assert float(listed[0].split(" s  ")[0]) >= float(listed[1].split(" s  ")[0])


def test_an_empty_selection_fails(tmp_path):
    command = [sys.executable, str(ROOT / "tools" / "run_pytest.py"), "-q", str(tmp_path)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=BARE)
    assert done.returncode == 1 and "collected no tests" in done.stderr


def test_every_stage_runs_after_a_failure_and_the_run_fails(monkeypatch, capsys):
    script = "import sys; print('{}'); sys.exit({})"
    outputs = {
        "lint": [[sys.executable, "-c", script.format("Found 2 errors.", 1)]],
        "unit": [[sys.executable, "-c", script.format("3 failed, 5 passed in 1s", 1)]],
        "notebooks": [[sys.executable, "-c", script.format("7 passed, 1 skipped in 2s", 0)]],
    }
    monkeypatch.setattr(run_stages, "commands", lambda stage, allowed: outputs[stage])
    assert run_stages.main([]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("stage lint") and "FAILED" in line for line in lines)
    assert any(line.startswith("stage notebooks") and " ok " in line for line in lines)
    assert lines[-1] == "total: 12 passed, 5 failed, 1 skipped"
