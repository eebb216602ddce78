"""The Go example strategy (examples/ollama-go) through the bridge, where a Go toolchain is on
PATH (Debian's ``golang-go``): built with the standard library alone, it passes the suite on
the Ollama example's corpus, run the way its README says; its golden outputs are the Python
example's (GOLDEN-001) and the JavaScript example's (GOLDEN-002, whose error texts name
JavaScript's types, which the Go example names alike); it keeps what Go's encoding/json
would spoil (a lone surrogate, through the marked form its handshake asks for; an integer
past 2**53); and one-bug copies of it fail the checks known to catch those bugs, so the run
judges the Go code and not a stand-in."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.limits import HANG

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HERE = EXAMPLES / "ollama-go"
GO_GOLDEN = HERE / "tests" / "mcs-conformance" / "ollama@peer.ollama-go-example" / "__snapshots__" / "golden"
PY_GOLDEN = EXAMPLES / "ollama" / "tests" / "mcs-conformance" / "ollama@ollama_strategy.OllamaStrategy" / "__snapshots__" / "golden"
JS_GOLDEN = EXAMPLES / "ollama-js" / "tests" / "mcs-conformance" / "ollama@peer.ollama-js-example" / "__snapshots__" / "golden"
_FAILED = re.compile(r"^FAILED mcs-conformance::([A-Z]+-\d+)\[", re.M)

pytestmark = pytest.mark.skipif(shutil.which("go") is None,
                                reason="no Go toolchain on PATH (Debian: apt-get install golang-go): the Go example "
                                       "peer is not built or run")


def _build(source: Path, out: Path) -> Path:
    binary = out / "ollama-peer"
    done = subprocess.run(["go", "build", "-o", str(binary), "."], cwd=source, capture_output=True, text=True,
                          timeout=HANG, env={**os.environ, "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"})
    assert done.returncode == 0, done.stdout + done.stderr
    return binary


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(HERE, tmp_path_factory.mktemp("go"))


def _suite(cwd: Path, binary: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--mcs-strategy=exec:{binary}", "--mcs-only",
           "-q", "-rf", f"--mcs-corpus={EXAMPLES / 'ollama' / 'corpus'}", *options]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG)


def test_conformance_suite_passes_on_the_go_example(peer: Path) -> None:
    done = _suite(HERE, peer, "-n", "2")
    out = done.stdout + done.stderr
    assert set(_FAILED.findall(done.stdout)) == set() and done.returncode == 0, out[-6000:]
    assert "ollama-go-example 1.0.0 (go)" in done.stdout, out[-3000:]  # its handshake's implementation
    last = [line for line in done.stdout.splitlines() if line.strip()][-1]
    passed = re.search(r"(\d+) passed", last)
    assert passed and int(passed.group(1)) >= 500 and not re.search(r"error|skipped", last), last
    assert "22 snapshots passed" in done.stdout and "snapshots generated" not in done.stdout, out[-3000:]
    assert "does not answer cpu_time" not in done.stdout  # COST timed by the peer's own clock


def test_the_go_example_gives_the_other_examples_golden_outputs() -> None:
    """Every snapshot, the bundled Ollama cases' and GOLDEN-002's error texts too, is the Python
    and JavaScript examples', byte for byte."""
    go = {p.name: p.read_bytes() for p in GO_GOLDEN.glob("*.json")}
    py = {p.name: p.read_bytes() for p in PY_GOLDEN.glob("*.json")}
    js = {p.name: p.read_bytes() for p in JS_GOLDEN.glob("*.json")}
    assert len(py) >= 22 and sorted(go) == sorted(py) == sorted(js)
    for name in py:
        assert go[name] == py[name] == js[name], name


def test_the_go_example_keeps_lone_surrogates_and_big_integers(peer: Path) -> None:
    from mcs_conformance.bridge.client import Peer, bridged

    p = Peer([str(peer)], timeout=60.0, label="ollama-go")
    try:
        strategy = bridged(p)
        assert p.marked  # the handshake asked for the wtf8-marked form
        message = {"role": "assistant", "content": "see you \ud83d",
                   "tool_calls": [{"function": {"name": "send\udc00", "arguments": {"text": "\ud83d", "n": 2**60 + 1,
                                                                                     "\x00wtf8:x": "looks marked"}}}]}
        assert strategy.content_text(message) == "see you \ud83d"
        (call,) = strategy.extract(message)
        assert call.name == "send\udc00" and call.arguments == {"text": "\ud83d", "n": 2**60 + 1, "\x00wtf8:x": "looks marked"}
    finally:
        p.kill()


BUGS = {
    "takes-cut-as-finished": (  # a last line with done_reason "length" taken as a finished turn
        '\treturn ok && c["done"] == true && c["done_reason"] != "length"\n',
        '\treturn ok && c["done"] == true\n',
        "DONE-002",  # the body's done_reason keeps the calls from running; the signal itself is wrong
    ),
    "grows-text-by-copying": (  # the text copied whole on every chunk: quadratic
        "\t\t\tb.WriteString(piece)\n",
        "\t\t\tgrown := b.String() + piece\n\t\t\tb.Reset()\n\t\t\tb.WriteString(grown)\n",
        "COST-002",  # timed by the peer's own cpu_time
    ),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_a_one_bug_copy_of_the_go_example_is_failed(bug: str, tmp_path: Path) -> None:
    old, new, check = BUGS[bug]
    source = (HERE / "main.go").read_text(encoding="utf-8")
    assert source.count(old) == 1, f"the line the {bug} copy edits is no longer in main.go"
    copy = tmp_path / "src"
    shutil.copytree(HERE, copy, ignore=shutil.ignore_patterns("tests"))
    (copy / "main.go").write_text(source.replace(old, new), encoding="utf-8")
    done = _suite(copy, _build(copy, tmp_path), "--mcs-profile=ci", f"--mcs-check={check}")
    out = done.stdout + done.stderr
    assert set(_FAILED.findall(done.stdout)) == {check} and done.returncode == 1, out[-6000:]
