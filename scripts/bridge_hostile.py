"""The bridge's hostile peers, one run each, as a table: exit code, items reported of those
selected, the first failure's problem line, and the processes left running afterwards.

    python scripts/bridge_hostile.py                  # every hostile peer of tests/bridge/test_hostile.py
    python scripts/bridge_hostile.py --hang-runs 3    # also: the hang over text-json's whole suite, -n 2, 3 times

The hang rows run the suite on every text-json item with ``-n 2`` and a peer whose extract
hangs on one message (tests/bridge/peers/hang.py), and count the failed items: the count must
not depend on how xdist spreads the items over its workers.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.bridge import test_hostile as hostile  # noqa: E402


def _problem(run: hostile.Run) -> str:
    for node in sorted(run.failed):
        m = re.search(r"problem:\s+(.*)", run.texts.get(node, ""))
        if m:
            return f"{node.split('::', 1)[1]}: {m.group(1)}"
    return "-"


def _selected(tmp: Path, *args: str) -> int:
    done = subprocess.run([*hostile._command((f"--mcs-strategy={hostile.REFERENCE}", *args)), "--collect-only"],
                          cwd=tmp, env=hostile._env("collect"), capture_output=True, text=True, timeout=600)
    return sum(1 for line in done.stdout.splitlines() if line.startswith("mcs-conformance::"))


def rows(tmp: Path) -> None:
    peers = {name: options for name, (options, _) in hostile.HOSTILE.items()}
    selected = _selected(tmp, *hostile.SELECT)
    print(f"| peer | rc | reported / selected | first failure | left running |\n|---|---:|---:|---|---:|")
    for name, options in peers.items():
        run = hostile.run_suite(tmp, *options, *hostile.SELECT)
        print(f"| {name} | {run.code} | {run.reported() + run.counts.get('skipped', 0)} / {selected} | {_problem(run)[:160]} | "
              f"{len(run.leftovers)} |", flush=True)


def hang_runs(tmp: Path, n: int) -> None:
    args = ("-n", "2", "--mcs-timeout=10")
    only = [f"--mcs-case={c}" for c in _text_cases()]
    selected = _selected(tmp, *only)
    for i in range(n):
        started = time.monotonic()
        run = hostile.run_suite(tmp, *hostile.isolated("hang:HangsOnMarker"), *args, *only)
        first = _problem(run)
        counts = ", ".join(f"{run.counts.get(k, 0)} {k}" for k in ("passed", "failed", "skipped"))
        print(f"hang run {i + 1}: rc {run.code}, {counts} of {selected} selected, "
              f"{time.monotonic() - started:.0f} s, left running {len(run.leftovers)}; first failure: {first[:200]}",
              flush=True)


def _text_cases() -> list[str]:
    from mcs_conformance.corpus_tools.corpus import load_corpus

    return sorted(c.id for c in load_corpus([]).cases if c.format == "text-json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hang-runs", type=int, default=0, help="also run the hang over text-json's suite N times")
    parser.add_argument("--no-rows", action="store_true", help="skip the one-run-per-peer table")
    args = parser.parse_args()
    hostile.RUN_LIMIT = 900.0
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_rows:
            rows(Path(tmp))
        if args.hang_runs:
            hang_runs(Path(tmp), args.hang_runs)


if __name__ == "__main__":
    main()
