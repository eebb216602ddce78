"""The speed benchmark runs end to end in its quick mode (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_stream.py"
FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")


@pytest.fixture(scope="module")
def quick_run() -> subprocess.CompletedProcess:
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    return subprocess.run(
        [sys.executable, "-W", "ignore", str(SCRIPT), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_quick_run_exits_zero(quick_run):
    assert quick_run.returncode == 0, quick_run.stderr[-2000:]


def test_quick_run_prints_every_table(quick_run):
    out = quick_run.stdout
    for header in (
        "== Recorded streams",
        "== Scaling: feeding alone",
        "== Scaling: feeding with an as_dict() peek after every chunk",
        "== Targets",
    ):
        assert header in out, f"missing {header!r} in:\n{out}"
    for column in ("buffer", "sdk", "sdk+model", "floor", "buf/sdk", "buf/floor", "peek/floor"):
        assert column in out


def test_quick_run_covers_every_native_format(quick_run):
    lines = quick_run.stdout.splitlines()
    for fmt in FORMATS:
        rows = [line for line in lines if line.startswith(fmt)]
        # a recorded row, a feeding row and at least one peek row per format
        assert len(rows) >= 3, f"{fmt}: rows {rows}"
        assert any(fmt in line and ("[MET]" in line or "[NOT MET]" in line) for line in lines)
