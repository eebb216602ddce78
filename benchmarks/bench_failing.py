"""Failing-run benchmark: how much longer the suite takes on a strategy with one bug.

For each reference strategy and a one-bug copy of it (benchmarks/one_bug.py), the suite runs
(``--mcs-only``, ci profile) on the correct strategy and on the copy, in this one run of the
script, and the wall time of each is printed with the ratio failing / passing: with the
shrink budget off (``--mcs-shrink-budget 0``, hypothesis shrinks without a limit: before) and
with the default budget (after). Target: a failing run costs at most about twice a passing
one (ratio <= 2).

    python benchmarks/bench_failing.py                  # every format, before and after
    python benchmarks/bench_failing.py --after-only     # the default budget only (minutes)
    python benchmarks/bench_failing.py --formats anthropic-messages -n 2
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.one_bug import ONE_BUG  # noqa: E402

TARGET = 2.0  # failing run / passing run


def run_suite(spec: str, budget: str | None, workers: int, timeout: float) -> tuple[float, float, str]:
    """Run the suite on ``spec``; return (CPU seconds of the run and its workers, wall
    seconds, pytest's last summary line)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--mcs-only", "--mcs-profile=ci",
               f"--mcs-strategy={spec}"]
    if budget is not None:
        command.append(f"--mcs-shrink-budget={budget}")
    if workers > 1:
        command += ["-n", str(workers)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    elapsed = time.monotonic() - started
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)
    lines = [line for line in done.stdout.splitlines() if re.search(r"\b(passed|failed)\b.* in [0-9.]+s", line)]
    return cpu, elapsed, (lines[-1].strip("= ") if lines else f"exit {done.returncode}: {done.stderr.strip()[-200:]}")


def counts(summary: str) -> str:
    """'48 failed' from pytest's summary line ('' when nothing failed)."""
    found = re.search(r"(\d+) failed", summary)
    return f"{found.group(1)} failed" if found else "0 failed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formats", nargs="+", choices=list(ONE_BUG), default=list(ONE_BUG))
    parser.add_argument("--after-only", action="store_true", help="skip the runs without a shrink budget")
    parser.add_argument("-n", dest="workers", type=int, default=1, help="pytest-xdist workers per run (default 1)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds one suite run may take (default 1800)")
    parser.add_argument("--strict", action="store_true", help=f"exit 1 when a ratio after is above {TARGET:g}")
    args = parser.parse_args(argv)

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"-n {args.workers}, ci profile; CPU seconds per suite run (the run and its workers), wall seconds "
          "in brackets; ratio: CPU of the one-bug copy's run / CPU of the correct strategy's")
    print(f"{'format':20} {'passing':>14} {'before':>14} {'ratio':>6} {'after':>14} {'ratio':>6}  "
          "one-bug copy (items failed before / after)")
    worst = 0.0
    for fmt in args.formats:
        correct, broken = ONE_BUG[fmt]
        passing, wall, summary = run_suite(correct, None, args.workers, args.timeout)
        if counts(summary) != "0 failed":
            print(f"{fmt}: the correct strategy fails: {summary}")
            return 2
        row = f"{fmt:20} {passing:6.1f} ({wall:5.1f})"
        before_failed = "-"
        if args.after_only:
            row += f" {'-':>14} {'-':>6}"
        else:
            before, wall, summary = run_suite(broken, "0", args.workers, args.timeout)
            row += f" {before:6.1f} ({wall:5.1f}) {before / passing:6.2f}"
            before_failed = counts(summary)
        after, wall, summary = run_suite(broken, None, args.workers, args.timeout)
        after_failed = counts(summary)
        if after_failed == "0 failed":
            print(f"{fmt}: the one-bug copy {broken} passes: {summary}")
            return 2
        worst = max(worst, after / passing)
        row += f" {after:6.1f} ({wall:5.1f}) {after / passing:6.2f}  {broken.split(':')[1]} ({before_failed} / {after_failed})"
        print(row, flush=True)
    print(f"target: failing / passing <= {TARGET:g} with the default budget (after); worst {worst:.2f}")
    return 1 if args.strict and worst > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
