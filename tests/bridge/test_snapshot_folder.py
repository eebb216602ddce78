"""A peer's golden snapshots are found by what its handshake says, not by its command line
(docs/ci.md): the same peer started from another path or through a wrapper script uses the
same folder, and a folder an earlier release named after the command is renamed to it once,
with a message."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from tests.helpers.limits import HANG
from tests.helpers.projects import subprocess_env

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "mcs_conformance.bridge.server", "mcs_conformance.strategies:TextStrategy"]
SELECT = ("--mcs-check=GOLDEN-001", "--mcs-case=text-json/syn-no-call")
FOLDER = "text-json@peer.mcs_conformance.reference.strategies.text.TextStrategy"


def _run(tmp: Path, command: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in subprocess_env(ROOT).items() if not k.startswith("PYTEST_")}
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--mcs-only", f"--rootdir={tmp}",
           f"--mcs-strategy=exec:{shlex.join(command)}", *SELECT, *extra]
    return subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=HANG)


def test_a_peer_keeps_its_snapshots_when_its_command_changes(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    base = tmp_path / "tests" / "mcs-conformance"
    written = _run(tmp_path, SERVE, "--snapshot-update")
    assert written.returncode == 0, written.stdout[-3000:]
    assert [p.name for p in base.iterdir()] == [FOLDER]  # named after the handshake: name, implementation name
    # an earlier release named the folder after the command: it is renamed once, with a message
    old = base / "text-json@exec.python-m-mcs_conformance.bridge.server-mcs_conformance.strategies.TextStrategy"
    (base / FOLDER).rename(old)
    wrapper = tmp_path / "elsewhere" / "peer.sh"
    wrapper.parent.mkdir()
    wrapper.write_text(f"exec {shlex.join(SERVE)}\n", encoding="utf-8")
    moved = _run(tmp_path, ["sh", str(wrapper)])  # another command for the same peer
    assert moved.returncode == 0 and "1 passed" in moved.stdout, moved.stdout[-3000:]
    assert f"the golden snapshots' folder {old.name}, named after the peer's command, was renamed to {FOLDER}" \
        in moved.stdout, moved.stdout[-3000:]
    assert [p.name for p in base.iterdir()] == [FOLDER]
    again = _run(tmp_path, SERVE)
    assert again.returncode == 0 and "1 passed" in again.stdout and "renamed" not in again.stdout, again.stdout[-3000:]


def test_two_command_folders_are_named_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    base = tmp_path / "tests" / "mcs-conformance"
    for name in ("text-json@exec.one", "text-json@exec.two"):
        (base / name).mkdir(parents=True)
    done = _run(tmp_path, SERVE)
    assert done.returncode == 1, done.stdout[-3000:]  # no snapshot: the first-run message
    assert (f"2 snapshot folders named after a peer's command (text-json@exec.one, text-json@exec.two): none was "
            f"renamed to {FOLDER}") in done.stdout, done.stdout[-3000:]
    assert sorted(p.name for p in base.iterdir()) == ["text-json@exec.one", "text-json@exec.two"]
