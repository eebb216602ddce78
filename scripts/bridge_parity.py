"""Every item of the suite on each reference strategy, in-process and through the bridge
(``--mcs-isolate``): the outcome and level of each must be the same.

    python scripts/bridge_parity.py [--strategy OpenAIChatStrategy ...] [-n 2]

Prints, per strategy, the items compared, the two run times and every item whose verdict
differs; exits 1 when one does. tests/bridge/test_parity.py runs a sample of this in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRATEGIES = ("OpenAIChatStrategy", "OpenAIResponsesStrategy", "AnthropicMessagesStrategy", "TextStrategy")


def run(strategy: str, isolate: bool, workers: str, out: Path) -> tuple[dict, float]:
    report = out / f"{strategy}-{'isolated' if isolate else 'in-process'}.json"
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", workers, "--mcs-only",
           f"--mcs-strategy=mcs_conformance.strategies:{strategy}", "--mcs-profile=ci", f"--mcs-report={report}"]
    if isolate:
        cmd.append("--mcs-isolate")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1) or not report.exists():
        sys.exit(f"{' '.join(cmd)} ended with {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    return {(r["id"], r["case"]): (r["outcome"], r["level"]) for r in results}, took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", action="append", choices=STRATEGIES, help="only this one (repeatable)")
    parser.add_argument("-n", default="2", help="pytest-xdist workers per run (default 2)")
    args = parser.parse_args()
    differing = 0
    with tempfile.TemporaryDirectory() as tmp:
        for strategy in args.strategy or STRATEGIES:
            here, a = run(strategy, False, args.n, Path(tmp))
            there, b = run(strategy, True, args.n, Path(tmp))
            diff = sorted(k for k in here.keys() | there.keys() if here.get(k) != there.get(k))
            differing += len(diff)
            print(f"{strategy}: {len(here)} items, {len(diff)} differ; in-process {a:.1f} s, bridged {b:.1f} s "
                  f"({b / a:.2f}x)")
            for key in diff:
                print(f"    {key[0]}[{key[1]}]: in-process {here.get(key)}, bridged {there.get(key)}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
