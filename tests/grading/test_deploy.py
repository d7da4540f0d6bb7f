"""Where courses run: the inputs Binder's repo2docker builds from, and docs/deploy.md.

repo2docker builds a conda environment from ``environment.yml`` (its pip section installs the
kit; a local requirement such as ``-e .`` makes repo2docker copy the repository before it
installs the environment). These tests check that those inputs agree with ``pyproject.toml``,
that the kit installs from them, and that the README's launch badge opens the start notebook.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[2]
START = "notebooks/release/00_start_here/00_start_here.ipynb"
PIP_LINE = re.compile(r"^-e \.\[(?P<extras>[a-z,]+)\]$")


@pytest.fixture(scope="module")
def environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text())


@pytest.fixture(scope="module")
def built(environment, tmp_path_factory) -> dict:
    """What pip makes of the pip line, offline (``--no-index``): the kit's metadata, read
    fresh from pyproject.toml, with the extras it asks for."""
    extras = ",".join(_extras(environment))
    report = tmp_path_factory.mktemp("pip") / "report.json"
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index"]
    command += ["--no-build-isolation", "--quiet", "--report", str(report), f".[{extras}]"]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    (install,) = json.loads(report.read_text())["install"]
    return install


def _wanted(built: dict, extras: list[str]) -> list[Requirement]:
    """The kit's requirements once installed with ``extras``."""
    found = []
    for text in built["metadata"]["requires_dist"]:
        requirement = Requirement(text)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": e}) for e in extras):
            found.append(requirement)
    return found


def _pip_section(environment: dict) -> list[str]:
    sections = [d["pip"] for d in environment["dependencies"] if isinstance(d, dict)]
    assert len(sections) == 1, "one pip section"
    return sections[0]


def _extras(environment: dict) -> list[str]:
    """The extras the pip line installs: ``-e .[test,lab,dev]`` -> [test, lab, dev]."""
    (line,) = _pip_section(environment)
    match = PIP_LINE.match(line)
    assert match, f"the pip section installs the kit from the repository, got {line!r}"
    return match["extras"].split(",")


def _conda_packages(environment: dict) -> dict[str, str]:
    """``name -> specifier`` of the conda dependencies (python and pip apart)."""
    found = {}
    for dep in environment["dependencies"]:
        if isinstance(dep, str) and not dep.startswith(("python=", "pip")):
            name, spec = re.match(r"([A-Za-z0-9_.-]+)(.*)", dep).groups()
            found[name.lower()] = spec
    return found


# conda packages that are no Python package, so pyproject cannot list them
NOT_PYTHON = {"font-ttf-noto-cjk"}  # the zh-CN figures' font (Debian: fonts-noto-cjk)


def test_conda_versions_are_pyproject_versions(environment, built):
    extras = _extras(environment)
    wanted: dict[str, set[str]] = {}
    for requirement in _wanted(built, extras):
        wanted.setdefault(requirement.name.lower(), set()).add(str(requirement.specifier))
    conda = _conda_packages(environment)
    assert conda, "environment.yml lists conda packages"
    for name, spec in conda.items():
        if name in NOT_PYTHON:
            continue
        assert name in wanted, f"{name} is in environment.yml but in none of {extras}"
        assert {spec} == wanted[name], f"{name}: conda says {spec!r}, pyproject {wanted[name]}"


def test_python_is_one_the_kit_supports(environment, built):
    (pinned,) = [d for d in environment["dependencies"] if str(d).startswith("python=")]
    version = pinned.split("=", 1)[1]
    assert SpecifierSet(built["metadata"]["requires_python"]).contains(version)
    assert version == f"{sys.version_info.major}.{sys.version_info.minor}"  # what CI runs


def test_the_kit_installs_from_the_environment_file(environment, built):
    """pip builds the kit's metadata from the repository with the pip line's extras, and every
    requirement they bring is one this environment (``make test``'s) satisfies."""
    assert built["metadata"]["name"] == "autogradkit"
    assert set(built["requested_extras"]) == set(_extras(environment))
    for requirement in _wanted(built, _extras(environment)):
        installed = metadata.version(requirement.name)
        assert requirement.specifier.contains(installed, prereleases=True), (requirement, installed)


def test_readme_badge_launches_binder_on_the_start_notebook():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\((https://mybinder\.org/v2/gh/[^)]+)\)", readme)
    assert len(links) == 1, "one Binder launch badge"
    url = urlparse(links[0])
    (urlpath,) = parse_qs(url.query)["urlpath"]
    assert urlpath == f"lab/tree/{START}"
    assert (ROOT / START).is_file()


def test_no_postbuild_is_needed(environment):
    """The kit comes in through the pip line and the widgets' lab extension with its wheel:
    nothing is left for a postBuild script to do."""
    assert not (ROOT / "postBuild").exists() and not (ROOT / "binder").exists()
    assert "jupyterlab" in _conda_packages(environment)
    assert "ipywidgets" in _conda_packages(environment)


def test_deploy_guide_covers_both_hubs_collection_and_its_sources():
    guide = (ROOT / "docs" / "deploy.md").read_text()
    for needed in ("The Littlest JupyterHub", "Zero to JupyterHub", "nbgrader", "exchange"):
        assert needed in guide, needed
    for command in ("--scheduler", "--format canvas", "--format moodle", "--roster"):
        assert command in guide, command
    assert "| 2-worker cluster" in guide and "submissions/s" in guide  # the measured table
    for source in ("canvas-lms", "docs.moodle.org", "repo2docker"):
        assert source in guide, f"docs/deploy.md cites {source}"
