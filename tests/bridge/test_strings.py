"""Text that is not valid Unicode through the bridge (docs/bridge.md, "Text that is not
valid Unicode"): a peer whose JSON library replaces a lone surrogate with U+FFFD, as Go's
``encoding/json`` does, fails the `must` case that carries one when it takes strings as JSON
escapes, and passes it when its handshake asks for the ``wtf8-marked`` form
(tests/bridge/peers/replacing.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.limits import HANG
from tests.helpers.projects import subprocess_env

ROOT = Path(__file__).resolve().parents[2]
CASE = "openai-chat/msg-arguments-lone-surrogate"


def _run(form: str) -> subprocess.CompletedProcess[str]:
    peer = f"{sys.executable} -m tests.bridge.peers.replacing {form} mcs_conformance.strategies:OpenAIChatStrategy"
    env = {k: v for k, v in subprocess_env(ROOT).items() if not k.startswith("PYTEST_")}
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf", "--mcs-only", f"--mcs-case={CASE}",
           f"--mcs-strategy=exec:{peer}", "-k", "not GOLDEN"]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG)


def test_a_replacing_decoder_taking_json_escapes_loses_the_lone_surrogate() -> None:
    done = _run("json")
    assert done.returncode == 1, done.stdout[-3000:]
    failed = set(re.findall(r"^FAILED mcs-conformance::([A-Z]+-\d+)\[", done.stdout, re.M))
    assert {"EXTRACT-001", "CHAIN-001"} <= failed, done.stdout[-3000:]
    assert "\\ufffd" in done.stdout or "\ufffd" in done.stdout  # the diff shows the replacement character


@pytest.mark.parametrize("form", ["wtf8-marked"])
def test_a_replacing_decoder_that_asks_for_marked_strings_passes(form: str) -> None:
    done = _run(form)
    assert done.returncode == 0 and "failed" not in done.stdout.splitlines()[-1], done.stdout[-3000:]
    assert re.search(r"\b[1-9]\d* passed", done.stdout.splitlines()[-1]), done.stdout[-3000:]
