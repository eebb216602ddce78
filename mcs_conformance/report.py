"""The run's summary per invariant family, as terminal text, JSON, Markdown and a badge."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["Summary", "badge", "markdown"]

OUTCOMES = ("passed", "failed", "xfailed")


class Summary:
    """Outcomes of the conformance items of one run, grouped by family."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.header = header
        self.results: dict[str, dict[str, str]] = {}

    def add(self, check_id: str, case: str, outcome: str, message: str = "") -> None:
        self.results[f"{check_id}[{case}]"] = {"id": check_id, "case": case, "outcome": outcome, "message": message}

    def families(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {}
        for r in self.results.values():
            out.setdefault(r["id"].rsplit("-", 1)[0], Counter())[r["outcome"]] += 1
        return dict(sorted(out.items()))

    def invariants(self) -> tuple[int, int]:
        """(invariant ids with no failure, invariant ids run)."""
        by_id: dict[str, bool] = {}
        for r in self.results.values():
            by_id[r["id"]] = by_id.get(r["id"], True) and r["outcome"] != "failed"
        return sum(by_id.values()), len(by_id)

    def as_json(self) -> dict[str, Any]:
        ok, total = self.invariants()
        return {
            **self.header,
            "invariants": {"passing": ok, "total": total},
            "families": {f: {k: c.get(k, 0) for k in OUTCOMES} for f, c in self.families().items()},
            "results": sorted(self.results.values(), key=lambda r: (r["id"], r["case"])),
        }

    def lines(self) -> list[str]:
        h = self.header
        out = [
            f"mcs-conformance {h['package_version']} | corpus {h['corpus_version']} ({h['corpus_hash'][:19]}) | "
            f"strategy {h['strategy']} ({h['spec']})",
            f"{'family':<10} {'passed':>7} {'failed':>7} {'xfailed':>8}",
        ]
        for fam, c in self.families().items():
            out.append(f"{fam:<10} {c['passed']:>7} {c['failed']:>7} {c['xfailed']:>8}")
        ok, total = self.invariants()
        out.append(f"invariants passing: {ok}/{total}")
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


def markdown(report: dict[str, Any]) -> str:
    """A Markdown summary of a JSON report (for a CI job summary)."""
    ok, total = report["invariants"]["passing"], report["invariants"]["total"]
    lines = [
        f"## mcs-conformance: {report['strategy']} — {ok}/{total} invariants",
        "",
        f"package {report['package_version']} · corpus {report['corpus_version']} · `{report['corpus_hash']}` · `{report['spec']}`",
        "",
        "| family | passed | failed | expected-fail |",
        "|---|---:|---:|---:|",
    ]
    for fam, c in report["families"].items():
        lines.append(f"| {fam} | {c['passed']} | {c['failed']} | {c['xfailed']} |")
    failed = [r for r in report["results"] if r["outcome"] == "failed"]
    if failed:
        lines += ["", "### Failures", ""]
        for r in failed:
            first = r["message"].splitlines()[0] if r["message"] else ""
            lines.append(f"- `{r['id']}[{r['case']}]`: {first}")
    return "\n".join(lines) + "\n"


def badge(report: dict[str, Any]) -> dict[str, Any]:
    """A shields.io endpoint JSON: ``N/M invariants``, green when nothing fails."""
    ok, total = report["invariants"]["passing"], report["invariants"]["total"]
    color = "brightgreen" if ok == total and total else ("yellow" if ok >= 0.9 * total else "red")
    return {"schemaVersion": 1, "label": "mcs-conformance", "message": f"{ok}/{total} invariants", "color": color}
