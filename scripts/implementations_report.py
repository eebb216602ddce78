"""The implementations report: which harness passes what, from the suite's JSON reports.

Subcommands (scripts/implementations.sh calls them):

* ``list [--mode all|ci] [ID ...]``: the harnesses to run, ``folder<TAB>id<TAB>strategy`` a
  line; fails when a folder of harnesses/ with a requirements.txt has no manifest entry.
* ``versions --harness ID``: the installed versions of the harness's packages, as JSON.
* ``write``: docs/implementations.md from .harness-runs/<id>/report.json and versions.json,
  with the triage of harnesses/findings/ (what breaks, class, reproduction, upstream).
* ``check``: the committed report names every harness, every finding's reproduction exists,
  and each harness run in this checkout left a report with results (what CI runs).

Levels: a result may carry ``level`` (``must`` | ``should`` | ``reference``) and the
outcome ``differs``. Failures at ``must`` and ``should`` are failures; ``reference`` ones and
``differs`` are listed apart, never counted as failing. A result without a level counts
as failing when it failed (the suite's default gate before levels existed).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import fnmatch
import json
import os
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HARNESSES = ROOT / "harnesses"
MANIFEST = HARNESSES / "harnesses.toml"
FINDINGS = HARNESSES / "findings"
RUNS = Path(os.environ.get("MCS_HARNESS_RUNS") or ROOT / ".harness-runs")
DOC = ROOT / "docs" / "implementations.md"
FAMILY_ORDER = ("STRUCT", "RECOG", "PARITY", "SPLIT", "NOISE", "PURE", "DONE", "DISPLAY", "EXTRACT",
                "CHAIN", "NAME", "HISTORY", "ROUNDTRIP", "PREFIX", "COST")
CLASSES = {
    "a": "real: the library's answer differs from the official SDK's or the stream=false one on the same chunks",
    "s": "the library gives the official SDK's answer where a `should` rule asks more (the rule names the hazard and "
         "the public bug it prevents; the SDK itself fails it)",
    "b": "the suite asks for a choice of the reference's (no provider document, SDK or ADR text asks for it)",
    "c": "glue: the adapter's own choice (fixed in the glue when found; listed while it stands)",
}


def _rel(path: Path) -> Path:
    try:
        return path.relative_to(ROOT)
    except ValueError:
        return path


# -- the manifest and the triage ---------------------------------------------------------------
def manifest() -> list[dict[str, Any]]:
    entries = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))["harness"]
    ids = [e["id"] for e in entries]
    if len(ids) != len(set(ids)):
        raise SystemExit(f"error: {MANIFEST}: duplicate harness ids")
    for e in entries:
        if not (HARNESSES / e["folder"] / "requirements.txt").is_file():
            raise SystemExit(f"error: harness {e['id']}: harnesses/{e['folder']}/requirements.txt is missing")
    listed = {e["folder"] for e in entries}
    for req in sorted(HARNESSES.glob("*/requirements.txt")):
        if req.parent.name not in listed:
            raise SystemExit(f"error: harnesses/{req.parent.name} has a requirements.txt but no entry in {MANIFEST.name}")
    return entries


def findings() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(FINDINGS.glob("*.toml")):  # the order of the names: the first match explains
        out += tomllib.loads(path.read_text(encoding="utf-8")).get("finding", [])
    for f in out:
        if f.get("class") not in CLASSES:
            raise SystemExit(f"error: finding {f.get('id')}: class must be one of {', '.join(CLASSES)}")
    return out


def _matches(finding: dict[str, Any], harness: str, check: str, case: str) -> bool:
    if harness not in finding["harnesses"]:
        return False
    if finding.get("checks") and not any(fnmatch.fnmatchcase(check, p) for p in finding["checks"]):
        return False
    return any(fnmatch.fnmatchcase(case, p) for p in finding.get("cases", ["*"]))


# -- reading a run ---------------------------------------------------------------------------
def _load(harness: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    run = RUNS / harness["id"]
    report = json.loads((run / "report.json").read_text(encoding="utf-8")) if (run / "report.json").is_file() else None
    versions = json.loads((run / "versions.json").read_text(encoding="utf-8")) if (run / "versions.json").is_file() else {}
    return report, versions


def bucket(result: dict[str, Any]) -> str:
    """'passed', 'failed', 'reference' (a difference from the reference's choice), 'error'
    (the suite's own code broke: a bug in mcs-conformance, not the library's) or 'other'."""
    level, outcome = result.get("level"), result.get("outcome")
    if outcome == "differs" or (level == "reference" and outcome == "failed"):
        return "reference"
    if outcome in ("passed", "failed", "error"):
        return outcome
    return "other"


def _problem(message: str) -> str:
    for line in message.splitlines():
        if line.strip().startswith("problem:"):
            text = line.split("problem:", 1)[1].strip()
            return text if len(text) <= 160 else text[:157] + "..."
    first = next((l for l in message.splitlines() if l.strip() and not l.startswith("[gw")), "")
    return first.strip()[:160]


def summarize(report: dict[str, Any]) -> dict[str, Any]:
    results = report.get("results", [])
    families: dict[str, Counter] = defaultdict(Counter)
    by_level: Counter = Counter()
    leveled = any("level" in r for r in results)
    failing_ids, all_ids = set(), set()
    for r in results:
        fam = r["id"].rsplit("-", 1)[0]
        b = bucket(r)
        families[fam][b] += 1
        all_ids.add(r["id"])
        if b == "failed":
            failing_ids.add(r["id"])
            by_level[r.get("level") or "unleveled"] += 1
            families[fam][f"failed:{r.get('level') or 'unleveled'}"] += 1
    return {"families": families, "by_level": by_level, "leveled": leveled,
            "invariants": (len(all_ids - failing_ids), len(all_ids)), "items": len(results)}


# -- writing the report ----------------------------------------------------------------------
def _cell(c: Counter, leveled: bool) -> str:
    if not c:
        return "–"
    text = f"{c['passed']} / {c['failed']}"
    if leveled and c["failed"]:
        parts = [f"{lvl} {c[f'failed:{lvl}']}" for lvl in ("must", "should", "unleveled") if c[f"failed:{lvl}"]]
        text += f" ({', '.join(parts)})"
    if c["reference"]:
        text += f" · ref {c['reference']}"
    return f"**{text}**" if c["failed"] else text


def _link(path: str) -> str:
    return f"[{Path(path).name}](../{path})"


def write() -> int:
    harnesses, triage = manifest(), findings()
    runs = {h["id"]: _load(h) for h in harnesses}
    reports = [r for r, _ in runs.values() if r]
    if not reports:
        print("error: no run has a report yet (.harness-runs/<id>/report.json); run scripts/implementations.sh",
              file=sys.stderr)
        return 1
    head = reports[0]
    leveled = any(summarize(r)["leveled"] for r in reports)
    date = _dt.date.today().isoformat()
    out = [
        "# Implementations",
        "",
        f"The conformance suite run on libraries people already stream with. Generated by "
        f"`bash scripts/implementations.sh` on **{date}** with mcs-conformance {head['package_version']}, "
        f"corpus **{head['corpus_version']}** (`{head['corpus_hash'][:23]}…`), hypothesis profile "
        f"`{head.get('profile', 'ci')}`. Do not edit by hand: rerun the command.",
        "",
        "Each library runs through a thin adapter in [`harnesses/`](../harnesses/) (the library accumulates and "
        "parses; the adapter converts shapes; every glue choice is in the adapter's docstring), in a virtualenv of "
        "its own with the versions pinned in the folder's `requirements.txt`. GOLDEN is not run (a library has no "
        "reviewed snapshots of its own).",
        "",
    ]
    if leveled:
        out += ["Verdicts follow the suite's levels: `must` and `should` failures are failures; differences from a "
                "choice of the reference (`reference`) are counted apart (`ref`) and never as failing.", ""]
    else:
        out += ["The suite's results carry no level yet, so every failure below counts as failing, as the suite's "
                "default gate does today; the classification column says which of them are the library's bugs, "
                "which only the reference's choices, and which the adapter's glue.", ""]
    headline = []
    for h in harnesses:
        report, _ = runs[h["id"]]
        if report is None:
            continue
        classes: dict[str, set] = defaultdict(set)
        for r in report.get("results", []):
            if bucket(r) == "failed":
                f = next((f for f in triage if _matches(f, h["id"], r["id"], r["case"])), None)
                classes[f["class"] if f else "?"].add(f["id"] if f else r["id"])
        lv = summarize(report)["by_level"]
        items = ", ".join(f"{n} {k}" for k, n in sorted(lv.items())) or "none"
        headline.append(f"- `{h['id']}`: failing items {items}; the library's own bugs (a): {len(classes['a'])}, "
                        f"the SDK's answer where a should rule asks more (s): {len(classes['s'])}, "
                        f"the reference's choices (b): {len(classes['b'])}, glue (c): {len(classes['c'])}"
                        + (f", not triaged: {len(classes['?'])} rules" if classes["?"] else ""))
    out += ["## Headline", "", *headline, ""]
    out += ["## Summary", "",
            "| implementation | format | versions | invariants without failure | items failed | reference differences | suite errors |",
            "|---|---|---|---:|---:|---:|---:|"]
    sums = {}
    for h in harnesses:
        report, versions = runs[h["id"]]
        ver = ", ".join(f"{p} {versions.get(p, '?')}" for p in h["packages"])
        if report is None:
            out.append(f"| `{h['id']}`: {h['title']} | {h['format']} | {ver} | not run | | | |")
            continue
        s = sums[h["id"]] = summarize(report)
        ok, total = s["invariants"]
        failed = sum(s["by_level"].values())
        levels = ", ".join(f"{k} {v}" for k, v in sorted(s["by_level"].items()) if k != "unleveled") if s["leveled"] else ""
        ref = sum(c["reference"] for c in s["families"].values())
        errors = sum(c["error"] for c in s["families"].values())
        out.append(f"| `{h['id']}`: {h['title']} | {h['format']} | {ver} | {ok}/{total} | "
                   f"{failed} of {s['items']}{f' ({levels})' if levels else ''} | {ref} | {errors} |")
    seen = {f for s in sums.values() for f in s["families"]}
    present = [f for f in FAMILY_ORDER if f in seen] + sorted(seen - set(FAMILY_ORDER))  # a new family is never dropped
    present += sorted({f for s in sums.values() for f in s["families"]} - set(present))
    out += ["", "## By invariant family", "",
            "Items passed / failed" + (" (failed by level)" if leveled else "") + "; `ref`: differences from the "
            "reference's choice; bold: something fails. See [invariants.md](invariants.md) for each family.", "",
            "| implementation | " + " | ".join(present) + " |",
            "|---|" + "---|" * len(present)]
    for h in harnesses:
        if h["id"] in sums:
            fams = sums[h["id"]]["families"]
            out.append(f"| `{h['id']}` | " + " | ".join(_cell(fams.get(f, Counter()), leveled) for f in present) + " |")
    out += ["", "## Failures, one line per finding", "",
            "Each line is one behaviour (harnesses/findings/), with the rules it fails, their level, and the "
            "cases. Class: " + "; ".join(f"**({k})** {v}" for k, v in CLASSES.items()) + ". Every (a) line links a "
            "reproduction in [`harnesses/repro/`](../harnesses/repro/) that runs the library alone (no mcs-conformance) "
            "and prints its answer next to the official SDK's or the `stream=false` one.", ""]
    untriaged_total = 0
    used: set[str] = set()
    for h in harnesses:
        report, _ = runs[h["id"]]
        if report is None:
            out += [f"### `{h['id']}`", "", "Not run for this report.", ""]
            continue
        failed = [r for r in report.get("results", []) if bucket(r) == "failed"]
        refs = [r for r in report.get("results", []) if bucket(r) == "reference"]
        out += [f"### `{h['id']}`", ""]
        if not failed and not refs:
            out += ["Nothing fails.", ""]
            continue
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in failed:
            f = next((f for f in triage if _matches(f, h["id"], r["id"], r["case"])), None)
            groups[f["id"] if f else f"?{r['id']}"].append(r)
        by_id = {f["id"]: f for f in triage}
        order = sorted(groups, key=lambda k: ("asbc?".index(by_id[k]["class"]) if k in by_id else 4, k))
        for key in order:
            rs = groups[key]
            rules = sorted({r["id"] for r in rs})
            levels = sorted({r.get("level") for r in rs} - {None})
            cases = sorted({r["case"] for r in rs})
            shown = ", ".join(f"`{c}`" for c in cases[:3]) + (f" and {len(cases) - 3} more" if len(cases) > 3 else "")
            rule_text = ", ".join(f"`{x}`" for x in rules) + (f" [{'/'.join(levels)}]" if levels else "")
            if key in by_id:
                f = by_id[key]
                line = f"- **({f['class']})** {f['what']}. Rules {rule_text} on {shown} ({len(rs)} items)"
                if f["class"] == "s" and "must" in levels:
                    line += " · **a must rule fails here too: the class does not cover it (for the suite to settle)**"
                if f.get("repro"):
                    line += f" · repro {_link(f['repro'])}"
                if f.get("upstream"):
                    line += " · upstream " + ", ".join(f"<{u}>" for u in f["upstream"])
                elif f["class"] == "a":
                    line += " · no upstream issue found"
            else:
                untriaged_total += len(rs)
                line = (f"- **(not triaged yet)** {rule_text} on {shown} ({len(rs)} items): "
                        f"{_problem(rs[0].get('message', ''))}")
            out.append(line)
        used.update(k for k in groups if k in by_id)
        if refs:
            ref_ids = Counter(r["id"] for r in refs)
            out.append("- differs from the reference's choice (not failing): "
                       + ", ".join(f"`{k}` ×{v}" for k, v in sorted(ref_ids.items())))
        errors = [r for r in report.get("results", []) if bucket(r) == "error"]
        if errors:
            out.append("- the suite's own code broke (a bug in mcs-conformance, not counted against the library): "
                       + ", ".join(f"`{r['id']}[{r['case']}]`" for r in errors[:5])
                       + (f" and {len(errors) - 5} more" if len(errors) > 5 else ""))
        out.append("")
    quiet = [f for f in triage if f["class"] == "a" and f["id"] not in used
             and any(runs.get(hid, (None,))[0] for hid in f["harnesses"])]
    if quiet:
        out += ["## Reproduced, but no verdict of this run shows it", "",
                "Library behaviour a reproduction shows that no failing item of the run above carries (the adapter's "
                "glue, or the suite, judges the point elsewhere):", ""]
        for f in quiet:
            out.append(f"- `{', '.join(f['harnesses'])}`: {f['what']} · repro {_link(f['repro'])}"
                       + (" · upstream " + ", ".join(f"<{u}>" for u in f["upstream"]) if f.get("upstream") else ""))
        out.append("")
    out += ["## Reproduce", "",
            "```", "bash scripts/implementations.sh                 # every harness (a virtualenv each), then this file",
            "bash scripts/implementations.sh litellm         # one harness; the others keep their last results",
            "python harnesses/repro/<script>.py              # one finding, the library alone (see its docstring)",
            "```", ""]
    DOC.write_text("\n".join(out), encoding="utf-8")
    print(f"wrote {_rel(DOC)} ({len(sums)} harnesses with results, {untriaged_total} failing items not triaged)")
    return 0


# -- CI ---------------------------------------------------------------------------------------
def check() -> int:
    problems = []
    harnesses = manifest()
    text = DOC.read_text(encoding="utf-8") if DOC.is_file() else ""
    if not text:
        problems.append(f"{_rel(DOC)} is missing: run bash scripts/implementations.sh")
    for h in harnesses:
        if f"### `{h['id']}`" not in text or f"| `{h['id']}`" not in text:
            problems.append(f"{_rel(DOC)} does not report harness {h['id']!r} "
                            f"(harnesses/{h['folder']}): rerun bash scripts/implementations.sh")
    for f in findings():
        if f.get("repro") and not (ROOT / f["repro"]).is_file():
            problems.append(f"finding {f['id']}: reproduction {f['repro']} does not exist")
        for hid in f["harnesses"]:
            if hid not in {h["id"] for h in harnesses}:
                problems.append(f"finding {f['id']}: unknown harness {hid!r}")
    ran = 0
    for h in harnesses:
        report, _ = _load(h)
        if report is None:
            continue
        ran += 1
        if not report.get("results"):
            problems.append(f"harness {h['id']}: its report holds no result")
        elif report.get("spec") != h["strategy"]:
            problems.append(f"harness {h['id']}: the report is of {report.get('spec')!r}, not {h['strategy']!r}")
    if not ran:
        problems.append("no harness report in .harness-runs/: the harnesses did not run")
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if not problems:
        print(f"ok: {_rel(DOC)} names all {len(harnesses)} harnesses; {ran} ran here")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("--mode", choices=("all", "ci"), default="all")
    ls.add_argument("ids", nargs="*")
    v = sub.add_parser("versions")
    v.add_argument("--harness", required=True)
    sub.add_parser("write")
    sub.add_parser("check")
    args = p.parse_args(argv)
    if args.cmd == "list":
        rows = [h for h in manifest() if (args.mode == "all" or h.get("ci")) and (not args.ids or h["id"] in args.ids)]
        unknown = set(args.ids) - {h["id"] for h in manifest()}
        if unknown:
            print(f"error: unknown harness id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 1
        for h in rows:
            print(f"{h['folder']}\t{h['id']}\t{h['strategy']}")
        return 0
    if args.cmd == "versions":
        from importlib import metadata

        h = next(h for h in manifest() if h["id"] == args.harness)
        out = {}
        for name in [*h["packages"], "mcs-conformance"]:
            try:
                out[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                out[name] = "not installed"
        out["python"] = sys.version.split()[0]
        print(json.dumps(out, indent=2))
        return 0
    return write() if args.cmd == "write" else check()


if __name__ == "__main__":
    raise SystemExit(main())
