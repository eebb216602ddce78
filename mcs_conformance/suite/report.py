"""The run's summary per invariant family and per level, as terminal text, JSON, Markdown and a badge.

Outcomes of an item: ``passed``; ``failed`` (a rule at or above the gate broke); ``differs``
(a rule below the gate broke: the strategy made another choice than the reference, which
does not fail the run); ``xfailed`` (a declared expected failure); ``no-snapshot`` (a golden
snapshot still to create); ``error`` (the suite's own code broke).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["OUTCOMES", "Summary", "badge", "markdown"]

OUTCOMES = ("passed", "failed", "differs", "xfailed", "no-snapshot", "error")
LEVELS = ("must", "should", "reference")
DIFFERENCES_SHOWN = 10


def _peer(peer: dict[str, Any]) -> str:
    """The bridged peer as the summary names it: implementation, version, language, command."""
    return (f"{peer.get('name', '?')} {peer.get('version', '')} ({peer.get('language', '?')}), "
            f"run as {peer.get('command', '?')}")


class Summary:
    """Outcomes of the conformance items of one run, grouped by family and by level."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.header = header
        self.results: dict[str, dict[str, Any]] = {}
        self.bundled_cases: dict[str, str] = {}  # bundled case id -> its format, for the formats line

    def add(self, check_id: str, case: str, outcome: str, message: str = "", level: str | None = None) -> None:
        self.results[f"{check_id}[{case}]"] = {"id": check_id, "case": case, "outcome": outcome, "level": level,
                                               "message": message}

    def count(self, outcome: str) -> int:
        return sum(r["outcome"] == outcome for r in self.results.values())

    def families(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {}
        for r in self.results.values():
            out.setdefault(r["id"].rsplit("-", 1)[0], Counter())[r["outcome"]] += 1
        return dict(sorted(out.items()))

    def levels(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {level: Counter() for level in LEVELS}
        for r in self.results.values():
            if r["level"] in out:
                out[r["level"]][r["outcome"]] += 1
        return out

    def invariants(self) -> tuple[int, int]:
        """(invariant ids with no failed or broken item, invariant ids run; a golden snapshot
        still to create is no run)."""
        by_id: dict[str, bool] = {}
        for r in self.results.values():
            if r["outcome"] != "no-snapshot":
                by_id[r["id"]] = by_id.get(r["id"], True) and r["outcome"] not in ("failed", "error")
        return sum(by_id.values()), len(by_id)

    def formats(self) -> dict[str, Any] | None:
        """The header's ``formats`` with, per bundled format, the cases and items that ran."""
        if "formats" not in self.header:
            return None
        counts: dict[str, list[Any]] = {}
        for r in self.results.values():
            fmt = self.bundled_cases.get(r["case"])
            if fmt is not None:
                entry = counts.setdefault(fmt, [set(), 0])
                entry[0].add(r["case"])
                entry[1] += 1
        return {**self.header["formats"],
                "bundled": {f: {"cases": len(c), "items": n} for f, (c, n) in sorted(counts.items())}}

    def as_json(self) -> dict[str, Any]:
        ok, total = self.invariants()
        return {
            **self.header,
            **({"formats": self.formats()} if "formats" in self.header else {}),
            "invariants": {"passing": ok, "total": total},
            "families": {f: {k: c.get(k, 0) for k in OUTCOMES} for f, c in self.families().items()},
            "levels": {lv: {k: c.get(k, 0) for k in OUTCOMES} for lv, c in self.levels().items()},
            "results": sorted(self.results.values(), key=lambda r: (r["id"], r["case"])),
        }

    def lines(self, verbose: bool = False) -> list[str]:
        h = self.header
        out = [
            f"mcs-conformance {h['package_version']} | corpus {h['corpus_version']} ({h['corpus_hash'][:19]}) | "
            f"strategy {h['strategy']} ({h['spec']}) | gate {h.get('gate', 'should')}",
            *([f"through the bridge: {_peer(h['peer'])}"] if h.get("peer") else []),
            *_formats_lines(self.formats()),
            f"{'family':<10} {'passed':>7} {'failed':>7} {'differs':>8} {'xfailed':>8}",
        ]
        for fam, c in self.families().items():
            if c["passed"] or c["failed"] or c["differs"] or c["xfailed"]:
                out.append(f"{fam:<10} {c['passed']:>7} {c['failed']:>7} {c['differs']:>8} {c['xfailed']:>8}")
        out.append("by level: " + "; ".join(_level_line(lv, c) for lv, c in self.levels().items() if sum(c.values())))
        for outcome, words in (("no-snapshot", "golden snapshot(s) still to create"),
                               ("error", "item(s) where the suite's own code broke (a bug in mcs-conformance)")):
            if self.count(outcome):
                out.append(f"{self.count(outcome)} {words}")
        ok, total = self.invariants()
        out.append(f"invariants passing: {ok}/{total}")
        warned = h.get("descriptor_warnings") or []
        if warned:
            out.append(f"descriptor warnings ({len(warned)}; a field that selects nothing checks nothing):")
            out.extend(f"  {w}" for w in warned)
        unrun = h.get("unrun") or []
        if unrun:
            out.append(f"checks that collected no item for this strategy ({len(unrun)}), and what would give them one:")
            out.extend(f"  {u['id']}: {u['needs']}" for u in unrun)
        differs = [r for r in sorted(self.results.values(), key=lambda r: (r["id"], r["case"])) if r["outcome"] == "differs"]
        if differs:
            out.append(f"differences from the reference's choices ({len(differs)}; they do not fail the run at gate "
                       f"{h.get('gate', 'should')}; --mcs-gate=reference makes them fail):")
            shown = differs if verbose else differs[:DIFFERENCES_SHOWN]
            for r in shown:
                out.append(f"  {r['id']}[{r['case']}]: {_first_line(r['message'])}")
            if len(shown) < len(differs):
                out.append(f"  ... {len(differs) - len(shown)} more (-v lists them all)")
        return out

    def write(self, path: str | Path) -> list[Path]:
        """Write the JSON report at ``path`` and the Markdown beside it (same name, .md)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = self.as_json()
        json_path = p if p.suffix == ".json" else p.with_suffix(".json")
        json_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8",
                             errors="backslashreplace")  # a lone surrogate becomes its JSON escape
        md_path = json_path.with_suffix(".md")
        md_path.write_text(markdown(data), encoding="utf-8")
        return [json_path, md_path]


_HOW = {"name": "by its name", "declared": "declared with --mcs-format / format",
        "recognized": "recognized: it claims the first chunk of the format's streams"}


def _formats_lines(formats: dict[str, Any] | None) -> list[str]:
    """Which format's cases are the strategy's own, and which bundled formats the run held."""
    if not formats:
        return []
    own, bundled = formats.get("own"), formats.get("bundled", {})
    if own is None:
        first = f"its format: none ({formats.get('note', '')})"
    else:
        mine = bundled.get(own)
        held = (f"bundled: {mine['cases']} cases, {mine['items']} items run" if mine
                else "no bundled case of it run")
        first = f"its format: {own} ({_HOW.get(formats.get('how'), formats.get('how'))}; {held})"
    others = [f"{f} ({c['items']} items)" for f, c in bundled.items() if f != own]
    return [first] + ([f"other bundled formats run (their shapes refused, the chain's routing): {', '.join(others)}"]
                      if others else [])


def _level_line(level: str, c: Counter) -> str:
    parts = [f"{c['passed']} passed", f"{c['failed']} failed"]
    if c["differs"]:
        parts.append(f"{c['differs']} differ")
    if c["xfailed"]:
        parts.append(f"{c['xfailed']} xfailed")
    return f"{level} " + ", ".join(parts)


def _first_line(message: str) -> str:
    first = message.splitlines()[0] if message else ""
    return first if len(first) <= 200 else first[:197] + "..."


def markdown(report: dict[str, Any]) -> str:
    """A Markdown summary of a JSON report (for a CI job summary)."""
    ok, total = report["invariants"]["passing"], report["invariants"]["total"]
    lines = [
        f"## mcs-conformance: {report['strategy']} — {ok}/{total} invariants",
        "",
        f"package {report['package_version']} · corpus {report['corpus_version']} · `{report['corpus_hash']}` · "
        f"`{report['spec']}` · gate {report.get('gate', 'should')}",
        "",
        *[line for text in _formats_lines(report.get("formats")) for line in (text, "")],
        "| family | passed | failed | differs | expected-fail |",
        "|---|---:|---:|---:|---:|",
    ]
    for fam, c in report["families"].items():
        lines.append(f"| {fam} | {c['passed']} | {c['failed']} | {c.get('differs', 0)} | {c['xfailed']} |")
    levels = report.get("levels") or {}
    if levels:
        lines += ["", "| level | passed | failed | differs | expected-fail |", "|---|---:|---:|---:|---:|"]
        for lv, c in levels.items():
            lines.append(f"| {lv} | {c['passed']} | {c['failed']} | {c.get('differs', 0)} | {c['xfailed']} |")
    warned = report.get("descriptor_warnings") or []
    if warned:
        lines += ["", "### Descriptor warnings (a field that selects nothing checks nothing)", ""]
        lines.extend(f"- {w}" for w in warned)
    unrun = report.get("unrun") or []
    if unrun:
        lines += ["", "### Checks that collected no item, and what would give them one", ""]
        lines.extend(f"- `{u['id']}`: {u['needs']}" for u in unrun)
    for outcome, title in (("failed", "Failures"), ("error", "Errors of the suite itself"),
                           ("differs", "Differences from the reference's choices (not failing)"),
                           ("no-snapshot", "Golden snapshots still to create")):
        rows = [r for r in report["results"] if r["outcome"] == outcome]
        if rows:
            lines += ["", f"### {title}", ""]
            for r in rows:
                level = f" ({r['level']})" if r.get("level") and outcome in ("failed", "differs") else ""
                lines.append(f"- `{r['id']}[{r['case']}]`{level}: {_first_line(r['message'])}")
    return "\n".join(lines) + "\n"


def badge(report: dict[str, Any]) -> dict[str, Any]:
    """A shields.io endpoint JSON: ``N/M invariants``, green when nothing fails."""
    ok, total = report["invariants"]["passing"], report["invariants"]["total"]
    color = "brightgreen" if ok == total and total else ("yellow" if ok >= 0.9 * total else "red")
    message = f"{ok}/{total} invariants"
    differs = sum(1 for r in report.get("results", []) if r["outcome"] == "differs")
    if differs:
        message += f", {differs} differ"
    return {"schemaVersion": 1, "label": "mcs-conformance", "message": message, "color": color}
