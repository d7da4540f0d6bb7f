"""The container backend: the same confinement as bubblewrap, from Docker or Podman.

End to end, the attack suite runs under Podman too (test_attacks.py). Here: the command line
as data, and the clear refusals when no runtime can be used.
"""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from autogradkit_instructor.container import Container, root_tar
from autogradkit_instructor.sandbox import Box, Limits, SandboxUnavailable, readable_paths


def _fake_client(tmp_path, monkeypatch, script: str, name: str = "docker") -> None:
    """A ``docker`` (or ``name``) on PATH that runs ``script`` (sh) and logs its arguments."""
    client = tmp_path / "bin" / name
    client.parent.mkdir()
    client.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/calls\n{script}\n')
    client.chmod(0o755)
    monkeypatch.setenv("PATH", f"{client.parent}:{os.environ['PATH']}")


def test_the_command_confines_the_kernel_as_bubblewrap_does(tmp_path, monkeypatch):
    monkeypatch.setenv("AGK_GRADER_TOKEN", "secret")
    _fake_client(tmp_path, monkeypatch, "exit 0", name="podman")  # the command line as data
    backend = Container("podman", Limits(memory_mb=512, processes=32, disk_mb=16))
    backend.client = "podman"  # the command as data: no Podman needed (None where it is absent)
    box = Box(str(tmp_path), backend)
    backend.spawn_options(box)
    cmd = backend.command(box, ["python", "-m", "ipykernel_launcher"])
    pairs = {cmd[i]: cmd[i + 1] for i in range(len(cmd) - 1)}
    assert pairs["--network"] == "none" and pairs["--user"] == "1000:1000"
    assert "--read-only" in cmd and pairs["--cap-drop"] == "ALL"
    assert pairs["--memory"] == pairs["--memory-swap"] == "512m" and pairs["--pids-limit"] == "32"
    assert "/home/student:rw,size=16m,mode=1777" in cmd
    binds = [value for key, value in zip(cmd, cmd[1:]) if key == "--mount"]
    for path in readable_paths()[0]:
        assert f"type=bind,source={path},target={path},readonly" in binds
    assert f"type=bind,source={box.sockets},target=/run/kernel" in binds
    assert not any("AGK_GRADER_TOKEN" in word for word in cmd)
    assert cmd[-4:] == [backend.image, "python", "-m", "ipykernel_launcher"]
    box.remove()


def test_the_image_is_a_bare_root_made_here_with_the_hosts_links():
    with tarfile.open(fileobj=io.BytesIO(root_tar())) as tar:
        names = set(tar.getnames())
        links = {m.name: m.linkname for m in tar.getmembers() if m.issym()}
        passwd = tar.extractfile("etc/passwd").read().decode()
    assert {"etc", "tmp", "home", "usr"} <= names and "student:x:1000:1000" in passwd
    assert links == {p.lstrip("/"): t for p, t in readable_paths()[1].items()}
    assert root_tar() == root_tar()  # the same bytes, so the same tag, on every run


def test_a_runtime_that_does_not_answer_is_refused_in_one_sentence(tmp_path, monkeypatch):
    _fake_client(tmp_path, monkeypatch, 'echo "Cannot connect to the Docker daemon" >&2; exit 1')
    with pytest.raises(SandboxUnavailable, match=r"no docker runtime here \(Cannot connect"):
        Container("docker", Limits()).check()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SandboxUnavailable, match="docker is not installed"):
        Container("docker", Limits()).check()


def test_a_missing_image_is_made_and_a_stopped_kernel_removed_by_name(tmp_path, monkeypatch):
    script = 'case "$1" in image) exit 1;; import) cat > /dev/null;; esac; exit 0'
    _fake_client(tmp_path, monkeypatch, script)
    backend = Container("docker", Limits())
    backend.check()
    box = Box(str(tmp_path), backend)
    backend.spawn_options(box)
    backend.stop(box)
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls[:3] == ["info", f"image inspect {backend.image}", f"import - {backend.image}"]
    assert calls[3:] == [f"kill {box.container}", f"rm --force {box.container}"]
    box.remove()
