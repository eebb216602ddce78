"""Strategies written from docs/spec.md alone (tests/independent/) pass the default gate.

Each independent strategy follows the official SDK wherever the spec lets it choose, so it
differs from the reference in many places. Run through the whole suite (GOLDEN aside:
snapshots are each strategy's own), it must get no failure at the default gate: every
place where it answers otherwise is a rule the spec marks ``reference``, reported as
"differs from the reference's choice" and never failed. That is what an outside author
who reads only the docs can expect.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRATEGIES = ("openai_chat", "openai_responses", "anthropic_messages", "text_json")


def run_suite(strategy: str, report: Path, *extra: str) -> dict:
    """The whole suite but GOLDEN on an independent strategy; the JSON report it writes."""
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--mcs-only",
           f"--mcs-strategy=tests.independent.{strategy}:Strategy", "--mcs-profile=ci", "-k", "not GOLDEN",
           f"--mcs-report={report}", "-n", "2", *extra]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert report.exists(), f"the suite wrote no report:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    data = json.loads(report.read_text(encoding="utf-8"))
    data["returncode"] = done.returncode
    data["stdout"] = done.stdout
    return data


def test_independent_strategies_import_no_reference_strategy() -> None:
    for strategy in STRATEGIES:
        source = (ROOT / "tests" / "independent" / f"{strategy}.py").read_text(encoding="utf-8")
        assert "mcs_conformance.strategies" not in source and "from mcs_conformance." not in source, strategy


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_independent_strategy_passes_the_default_gate(strategy: str, tmp_path: Path) -> None:
    report = run_suite(strategy, tmp_path / "report.json")
    ran = report["results"]
    assert len(ran) > 500, f"the suite ran only {len(ran)} checks on {strategy}"
    broken = [f"{r['id']}[{r['case']}] ({r['outcome']}, {r['level']}): {r['message'].splitlines()[0] if r['message'] else ''}"
              for r in ran if r["outcome"] in ("failed", "error")]
    assert not broken, f"{strategy} fails at the default gate:\n" + "\n".join(broken[:20])
    assert report["returncode"] == 0, report["stdout"][-3000:]
    # every difference is a reference-level rule, reported with the reason the case gives
    differs = [r for r in ran if r["outcome"] == "differs"]
    assert all(r["level"] == "reference" and r["message"].startswith("differs from the reference's choice")
               for r in differs), differs[:3]
    if strategy != "text_json":
        assert differs, "the independent native strategies follow the SDK where the reference chose otherwise"
        assert "differences from the reference's choices" in report["stdout"]


def test_the_reference_gate_fails_the_differences(tmp_path: Path) -> None:
    """--mcs-gate=reference asks for the reference's choices too: the differences then fail, and
    only they (every failure is at the reference level; at the default gate the same strategy
    passes with them reported as differences, test_independent_strategy_passes_the_default_gate)."""
    strict = run_suite("openai_chat", tmp_path / "strict.json", "--mcs-case=openai-chat/syn-name-on-every-fragment",
                       "--mcs-gate=reference")
    failed = [r for r in strict["results"] if r["outcome"] == "failed"]
    assert failed and all(r["level"] == "reference" for r in failed), failed[:3]
    assert not [r for r in strict["results"] if r["outcome"] == "differs"]
    assert strict["returncode"] == 1
