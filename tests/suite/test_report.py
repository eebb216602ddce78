"""The run's summary: terminal rows, the JSON and Markdown report, the badge, and xdist parity."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from importlib import metadata
from pathlib import Path

import pytest

import mcs_conformance
from mcs_conformance.corpus_tools.corpus import load_corpus

from tests.suite.test_plugin import (
    CASE_ID,
    REFERENCE,
    item,
    make_project,
    outcomes,
    run,
    run_sub,
    subprocess_env,
    summary_rows,
)
from tests.helpers.limits import HANG

CLI = Path(sys.executable).parent / "mcs-conformance"
SELECTION = ("--mcs-only", "--mcs-corpus=corpus", f"--mcs-case={CASE_ID}", "--mcs-case=openai-chat/openai-text")
WORD = {"PASSED": "passed", "FAILED": "failed", "XFAIL": "xfailed"}
OUTCOMES = ("passed", "failed", "differs", "xfailed", "no-snapshot", "error")


def family(check_id: str) -> str:
    return check_id.rsplit("-", 1)[0]


def rows_from(found: dict[str, str]) -> dict[str, tuple[int, int, int, int]]:
    """What the summary rows must say, counted from pytest's own per-item outcomes (no
    reference-level rule breaks in these runs, so nothing differs)."""
    counts: dict[str, Counter] = {}
    for nodeid, outcome in found.items():
        check_id = nodeid.split("::", 1)[1].split("[", 1)[0]
        counts.setdefault(family(check_id), Counter())[WORD[outcome]] += 1
    return {f: (c["passed"], c["failed"], 0, c["xfailed"]) for f, c in counts.items()}


def invariants_passing(found: dict[str, str]) -> tuple[int, int]:
    """(invariant ids with no failed item, invariant ids run), from pytest's outcomes."""
    failed: dict[str, bool] = {}
    for nodeid, outcome in found.items():
        check_id = nodeid.split("::", 1)[1].split("[", 1)[0]
        failed[check_id] = failed.get(check_id, False) or outcome == "FAILED"
    return sum(not f for f in failed.values()), len(failed)


def manifest_version() -> str:
    manifest = Path(mcs_conformance.__file__).parent / "corpus" / "manifest.json"
    return json.loads(manifest.read_text(encoding="utf-8"))["version"]


def test_terminal_summary_has_the_header_and_rows_matching_pytest(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--mcs-strategy=brokenstrats:DropLast", *SELECTION)
    assert result.ret == 1
    found = outcomes(result)
    assert found[item("EXTRACT-001")] == "FAILED" and found[item("EXTRACT-001", "openai-chat/openai-text")] == "PASSED"
    rows = summary_rows(result)
    assert rows == rows_from(found)
    counts = result.parseoutcomes()
    assert sum(r[0] for r in rows.values()) == counts["passed"]
    assert sum(r[1] for r in rows.values()) == counts["failed"]

    package = metadata.version("mcs-conformance")
    corpus_hash = load_corpus([pytester.path / "corpus"]).content_hash
    header = next(x for x in result.outlines if x.startswith("mcs-conformance ") and " | corpus " in x)
    assert header == (
        f"mcs-conformance {package} | corpus {manifest_version()} ({corpus_hash[:19]}) | "
        "strategy text-json (brokenstrats:DropLast) | gate should"
    )
    ok, total = invariants_passing(found)
    assert f"invariants passing: {ok}/{total}" in result.outlines


def test_the_corpus_hash_follows_the_author_corpus(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    args = (f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001", "--mcs-report=r.json")
    run(pytester, *args, "--mcs-corpus=corpus")
    first = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["corpus_hash"]
    path = pytester.path / "corpus" / "cases" / "text-json" / "two-calls.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "tags": ["parallel", "edited"]}), encoding="utf-8")
    run(pytester, *args, "--mcs-corpus=corpus")
    second = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["corpus_hash"]
    run(pytester, *args)
    bundled = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["corpus_hash"]
    assert len({first, second, bundled}) == 3
    assert all(h.startswith("sha256:") and len(h) == 7 + 64 for h in (first, second, bundled))


def test_json_markdown_and_badge_match_the_run(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--mcs-strategy=brokenstrats:DropLast", *SELECTION, "--mcs-report=out/report.json")
    found = outcomes(result)
    report_path = pytester.path / "out" / "report.json"
    assert "report written: out/report.json" in result.outlines and "report written: out/report.md" in result.outlines
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["package_version"] == metadata.version("mcs-conformance")
    assert report["corpus_version"] == manifest_version()
    assert report["corpus_hash"] == load_corpus([pytester.path / "corpus"]).content_hash
    assert report["strategy"] == "text-json" and report["spec"] == "brokenstrats:DropLast"
    assert {item(r["id"], r["case"]): r["outcome"] for r in report["results"] if r["outcome"] != "no-snapshot"} == {
        k: WORD[v] for k, v in found.items()}
    assert {r["id"] for r in report["results"] if r["outcome"] == "no-snapshot"} == {"GOLDEN-001"}
    failed = next(r for r in report["results"] if r["id"] == "EXTRACT-001" and r["case"] == CASE_ID)
    assert "EXTRACT-001 failed on case text-json/two-calls" in failed["message"]
    assert {f: (c["passed"], c["failed"], c["differs"], c["xfailed"]) for f, c in report["families"].items()
            if not c["no-snapshot"]} == rows_from(found)
    ok, total = invariants_passing(found)
    assert report["invariants"] == {"passing": ok, "total": total}

    beside = (pytester.path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| EXTRACT | 1 | 2 | 0 | 0 |" in beside  # EXTRACT-002 too: the dropped call over every wire
    assert f"{ok}/{total} invariants" in beside

    # rendered again by the command line, from the report just written
    md, badge = pytester.path / "rendered.md", pytester.path / "badge.json"
    done = subprocess.run([str(CLI), "report", str(report_path), "--markdown", str(md), "--badge", str(badge)],
                          cwd=pytester.path, env=subprocess_env(pytester.path), capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    rendered = md.read_text(encoding="utf-8")
    for fam, (p, f, d, x) in rows_from(found).items():
        assert f"| {fam} | {p} | {f} | {d} | {x} |" in rendered
    assert f"`EXTRACT-001[{CASE_ID}]` (must): EXTRACT-001 failed on case {CASE_ID}" in rendered
    shield = json.loads(badge.read_text(encoding="utf-8"))
    assert set(shield) == {"schemaVersion", "label", "message", "color"}
    assert shield["schemaVersion"] == 1 and shield["label"] == "mcs-conformance"
    assert shield["message"] == f"{ok}/{total} invariants"
    assert ok < total and shield["color"] != "brightgreen"


def test_badge_is_green_when_everything_passes(pytester: pytest.Pytester) -> None:
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001", "--mcs-check=RECOG-001",
                 "--mcs-report=report.json")
    assert result.ret == 0
    badge = pytester.path / "badge.json"
    done = subprocess.run([str(CLI), "report", "report.json", "--badge", str(badge)],
                          cwd=pytester.path, env=subprocess_env(pytester.path), capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert "| STRUCT | 1 | 0 | 0 |" in done.stdout  # Markdown goes to stdout without --markdown
    assert json.loads(badge.read_text(encoding="utf-8")) == {
        "schemaVersion": 1, "label": "mcs-conformance", "message": "2/2 invariants", "color": "brightgreen",
    }


def test_report_path_without_json_suffix_gets_one(pytester: pytest.Pytester) -> None:
    run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001", "--mcs-report=reports/conformance")
    assert sorted(p.name for p in (pytester.path / "reports").iterdir()) == ["conformance.json", "conformance.md"]


def test_expected_failures_are_counted_as_xfailed(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makefile(".toml", expected=f'expect-fail = [{{ id = "EXTRACT-001", case = "{CASE_ID}", reason = "known" }}]\n')
    result = run(pytester, "--mcs-strategy=brokenstrats:DropLast", *SELECTION, "--mcs-expect-fail=expected.toml",
                 "--mcs-report=report.json")
    found = outcomes(result)
    assert found[item("EXTRACT-001")] == "XFAIL"
    assert summary_rows(result)["EXTRACT"] == (1, 1, 0, 1)  # EXTRACT-002 still fails: the entry names EXTRACT-001
    assert summary_rows(result) == rows_from(found)
    assert result.parseoutcomes()["xfailed"] == 1
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["families"]["EXTRACT"] == {**dict.fromkeys(OUTCOMES, 0), "passed": 1, "failed": 1, "xfailed": 1}


def test_xdist_gives_the_same_outcomes_and_summary(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    args = ("--mcs-strategy=brokenstrats:DropLast", *SELECTION, "--mcs-profile=ci")
    serial = run(pytester, *args, "--mcs-report=serial.json")
    parallel = run_sub(pytester, *args, "--mcs-report=parallel.json", "-n", "2")
    assert parallel.ret == serial.ret == 1
    assert "2 workers" in parallel.stdout.str()
    counts = serial.parseoutcomes()
    assert {k: v for k, v in parallel.parseoutcomes().items() if k in ("passed", "failed")} == {
        k: v for k, v in counts.items() if k in ("passed", "failed")
    }
    assert outcomes(parallel) == outcomes(serial)
    assert summary_rows(parallel) == summary_rows(serial)
    reports = [json.loads((pytester.path / name).read_text(encoding="utf-8")) for name in ("serial.json", "parallel.json")]
    assert reports[0]["families"] == reports[1]["families"]
    assert [(r["id"], r["case"], r["outcome"]) for r in reports[0]["results"]] == [
        (r["id"], r["case"], r["outcome"]) for r in reports[1]["results"]
    ]
