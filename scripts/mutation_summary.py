"""Combine the mutmut runs of scripts/mutation.sh into one outcome per mutant and a score.

    python scripts/mutation_summary.py <work dir>                 # totals, score, every mutant left standing
    python scripts/mutation_summary.py <work dir> --standing-core # names of core mutants no run has killed
    python scripts/mutation_summary.py <work dir> --standing      # names of every mutant left standing (not equivalent)
    python scripts/mutation_summary.py <work dir> --unfinished    # those, and the mutants an interrupted run never reached
    python scripts/mutation_summary.py <work dir> --unreached     # only the mutants an interrupted run never reached

``<work dir>`` holds one mutmut copy per strategy: the first pass's (named in ``main-strategy``,
``OpenAIChatStrategy/`` when that file is absent), then the others; a mutant counts as killed when the suite on any of them killed it. A copy whose name ends in
``-redo`` ran the mutants of functions changed since the first run: its outcomes replace
those of every copy taken before it for every mutant it ran (a mutant's number names another
change once its function is edited); copies are read in the order their trees were taken.
A mutant that made the
suite run past mutmut's timeout (an endless loop) is detected too: the score counts it with
the killed ones and the report lists it apart. Mutants listed in
``scripts/mutation_equivalent.txt`` (name, then the one-line proof) leave the denominator.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

DEFAULT_MAIN = "OpenAIChatStrategy"
CODES = {1: "killed", 3: "killed", 0: "survived", 33: "no tests", 5: "no tests", 36: "timeout",
         24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout", None: "not checked"}
EQUIVALENT_FILE = Path(__file__).with_name("mutation_equivalent.txt")


def outcomes(copy: Path) -> dict[str, tuple[str, str]]:
    """mutant name -> (file, outcome) for one mutmut copy."""
    out = {}
    for meta in sorted((copy / "mutants").rglob("*.py.meta")):
        source = str(meta.relative_to(copy / "mutants").with_suffix(""))
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            out[name] = (source, CODES.get(code, f"other({code})"))
    return out


def equivalent() -> dict[str, str]:
    """The mutants proven equivalent: name -> proof."""
    if not EQUIVALENT_FILE.exists():
        return {}
    out = {}
    for line in EQUIVALENT_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, why = line.partition(" ")
            out[name] = why.strip()
    return out


def main_copy(work: Path) -> str:
    """The name of the first pass's copy in ``work``."""
    named = work / "main-strategy"
    return named.read_text().strip() if named.exists() else DEFAULT_MAIN


def _prepared(copy: Path) -> float:
    """When the copy's tree was taken (scripts/mutation.sh writes its pyproject.toml then).

    Copies are read in that order, not by name: a redo must override the runs on trees taken
    before its function changed, and only those (``-recheck`` sorts after ``-HHMMSS-redo``).
    """
    config = copy / "pyproject.toml"
    return (config if config.exists() else copy / "mutants").stat().st_mtime


def combined(work: Path) -> tuple[dict[str, tuple[str, str, str]], list[str]]:
    """mutant name -> (file, outcome, the strategy whose suite decided it); the copies read."""
    first = main_copy(work)
    copies = [work / first] + sorted((p for p in work.iterdir() if p.is_dir() and p.name not in (first, ".mutvenv")
                                      and (p / "mutants").is_dir()), key=lambda p: (_prepared(p), p.name))
    result: dict[str, tuple[str, str, str]] = {}
    rank = {"killed": 0, "timeout": 1, "survived": 2, "no tests": 3}  # lower wins
    for copy in copies:
        if not (copy / "mutants").is_dir():
            continue
        outs = outcomes(copy)
        if copy.name.endswith("-redo"):  # mutants of the redone functions that no longer exist are gone
            ran = {n for n, (_, o) in outs.items() if o != "not checked"}
            redone = {n.rsplit("__mutmut_", 1)[0] for n in ran}
            for name in [n for n in result if n.rsplit("__mutmut_", 1)[0] in redone and n not in ran]:
                del result[name]
        for name, (source, outcome) in outs.items():
            if copy.name == first:
                result[name] = (source, outcome, copy.name)
            elif copy.name.endswith("-redo") and outcome != "not checked":
                result[name] = (source, outcome, copy.name)  # the function changed: only the new run counts
            elif name in result and rank.get(outcome, 9) < rank.get(result[name][1], 9):
                result[name] = (source, outcome, copy.name)  # a second look decided it
    return result, [c.name for c in copies]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    work = Path(argv[0])
    if not (work / main_copy(work) / "mutants").is_dir():
        print(f"error: {work / main_copy(work)} holds no mutmut run (expected the work dir of scripts/mutation.sh)")
        return 2
    result, copies = combined(work)
    equiv = equivalent()
    settled = ("killed", "timeout")
    lists = {  # which outcomes each listing prints
        "--standing": lambda o: o not in (*settled, "not checked"),
        "--standing-core": lambda o: o not in (*settled, "not checked"),
        "--unfinished": lambda o: o not in settled,
        "--unreached": lambda o: o == "not checked",
    }
    listing = next((arg for arg in argv[1:] if arg in lists), None)
    if listing is not None:
        core_only = listing == "--standing-core"
        for name, (source, outcome, _) in sorted(result.items()):
            if not lists[listing](outcome) or (core_only and "strategies" in source):
                continue
            if core_only or name not in equiv:
                print(name)
        return 0
    by_file: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    standing = []
    for name, (source, outcome, who) in sorted(result.items()):
        label = "equivalent" if outcome != "killed" and name in equiv else outcome
        by_file[source][label] += 1
        if label not in ("killed", "timeout", "not checked"):
            standing.append(f"    {label}: {name}" + (f"  ({equiv[name]})" if name in equiv else ""))
    total = collections.Counter()
    print(f"runs: {', '.join(copies)}")
    for source, count in sorted(by_file.items()):
        total.update(count)
        print(f"{source}: {sum(count.values())} mutants, {dict(count)}")
    run = sum(v for k, v in total.items() if k != "not checked")
    killed, timeout, eq = total["killed"], total["timeout"], total["equivalent"]
    print(f"total: {sum(total.values())} mutants, {dict(total)}")
    if run - eq:
        print(f"score: (killed + timeout) / (run - equivalent) = {killed + timeout} / {run - eq} = "
              f"{100 * (killed + timeout) / (run - eq):.1f}%")
    if timeout:
        print("timed out (detected):")
        print("\n".join(f"    {n}" for n, (_, o, _) in sorted(result.items()) if o == "timeout"))
    print("left standing:")
    print("\n".join(standing) or "    none")
    stale = sorted(set(equiv) - set(result))
    if stale:
        print(f"note: {len(stale)} names in {EQUIVALENT_FILE.name} are not mutants of this run: {stale[:5]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
