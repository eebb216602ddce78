"""What the JavaScript harness tests share: node >= 22 with harnesses/js's pinned packages, and
one suite run on a harness in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers.limits import HANG

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "harnesses" / "js"
CASES = ROOT / "mcs_conformance" / "corpus" / "cases"
ITEM = re.compile(r"^(PASSED|FAILED|XFAIL|XPASS|SKIPPED|ERROR) mcs-conformance::([A-Z]+-\d+)\[([^\]]+)\]", re.M)


def node_with_packages() -> str:
    """The path of a node >= 22 (scripts/node22.sh), with every package of harnesses/js's
    package.json installed from its lock (``npm ci``); skips the test with the reason when
    either cannot be had."""
    done = subprocess.run(["bash", str(ROOT / "scripts" / "node22.sh")], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"no node >= 22 could be obtained (scripts/node22.sh): {done.stderr.strip()[-500:]}")
    path = done.stdout.strip()
    wanted = json.loads((JS / "package.json").read_text(encoding="utf-8")).get("dependencies", {})
    if not all((JS / "node_modules" / p / "package.json").is_file() for p in wanted):
        env = dict(os.environ, PATH=os.pathsep.join([str(Path(path).parent), os.environ.get("PATH", "")]))
        try:
            ci = subprocess.run(["npm", "ci", "--prefix", str(JS), "--no-audit", "--no-fund", "--ignore-scripts"],
                                capture_output=True, text=True, timeout=600, env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.skip(f"npm ci --prefix harnesses/js could not run: {exc}")
        if ci.returncode != 0:
            pytest.skip(f"npm ci --prefix harnesses/js failed: {ci.stderr.strip()[-500:]}")
    return path


def env() -> dict[str, str]:
    """This environment without pytest's own variables, with CI set (hypothesis profile ci)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")} | {"CI": "true"}


def run_suite(node: str, harness: str, *options: str) -> subprocess.CompletedProcess[str]:
    """The suite (GOLDEN aside) on ``harnesses/js/<harness>`` as a bridge peer, items listed (-rA)."""
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--mcs-strategy=exec:{node} harnesses/js/{harness}",
           "--mcs-only", "-q", "-rA", "-k", "not GOLDEN", *options]
    return subprocess.run(cmd, cwd=ROOT, env=env(), capture_output=True, text=True, timeout=HANG)
