"""The implementations report (scripts/implementations_report.py): levels, triage, the CI check."""

from __future__ import annotations

import ast
import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report():
    spec = importlib.util.spec_from_file_location("implementations_report", ROOT / "scripts" / "implementations_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_without_a_level_fail_by_default(report):
    assert report.bucket({"id": "PARITY-001", "outcome": "failed"}) == "failed"
    assert report.bucket({"id": "PARITY-001", "outcome": "passed"}) == "passed"


@pytest.mark.parametrize(("level", "outcome", "expected"), [
    ("must", "failed", "failed"),
    ("should", "failed", "failed"),
    ("reference", "failed", "reference"),
    ("reference", "differs", "reference"),
    (None, "differs", "reference"),
    ("must", "passed", "passed"),
    ("must", "xfailed", "other"),
])
def test_reference_differences_are_never_counted_as_failures(report, level, outcome, expected):
    assert report.bucket({"id": "X-001", "level": level, "outcome": outcome}) == expected


def test_summary_counts_failures_per_level_and_invariants_without_failure(report):
    results = [
        {"id": "PARITY-001", "case": "a", "outcome": "failed", "level": "must"},
        {"id": "PARITY-001", "case": "b", "outcome": "passed", "level": "must"},
        {"id": "PREFIX-001", "case": "a", "outcome": "failed", "level": "should"},
        {"id": "NAME-001", "case": "a", "outcome": "differs", "level": "reference"},
    ]
    s = report.summarize({"results": results})
    assert s["leveled"] and s["by_level"] == Counter(must=1, should=1)
    assert s["families"]["PARITY"]["failed:must"] == 1 and s["families"]["NAME"]["reference"] == 1
    assert s["invariants"] == (1, 3)  # NAME-001 differs from the reference's choice only
    assert report._cell(s["families"]["PARITY"], True) == "**1 / 1 (must 1)**"
    assert report._cell(s["families"]["NAME"], True) == "0 / 0 · ref 1"


def test_every_harness_folder_is_in_the_manifest_and_every_finding_is_well_formed(report):
    harnesses = report.manifest()
    ids = {h["id"] for h in harnesses}
    assert {h["folder"] for h in harnesses} == {p.parent.name for p in (ROOT / "harnesses").glob("*/requirements.txt")}
    for finding in report.findings():
        assert set(finding["harnesses"]) <= ids, finding["id"]
        assert finding["what"] and finding.get("cases"), finding["id"]
        if finding["class"] == "a":
            assert finding.get("repro"), f"{finding['id']}: a library's bug needs a reproduction"
        if finding.get("repro"):
            assert (ROOT / finding["repro"]).is_file(), finding["repro"]


def test_reproductions_use_the_library_alone(report):
    for script in sorted((ROOT / "harnesses" / "repro").glob("*.py")):
        tree = ast.parse(script.read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "mcs_conformance" not in imported and "harnesses" not in imported, script.name


def test_check_refuses_a_report_that_misses_a_harness(report, tmp_path, monkeypatch, capsys):
    harness = report.manifest()[0]
    run = tmp_path / "runs" / harness["id"]
    run.mkdir(parents=True)
    (run / "report.json").write_text(json.dumps({
        "spec": harness["strategy"], "results": [{"id": "STRUCT-001", "case": "x", "outcome": "passed"}]}))
    doc = tmp_path / "implementations.md"
    doc.write_text(f"| `{harness['id']}` | ... |\n### `{harness['id']}`\n", encoding="utf-8")
    monkeypatch.setattr(report, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(report, "DOC", doc)
    assert report.check() == 1  # the other harnesses are not named
    missing = {h["id"] for h in report.manifest()} - {harness["id"]}
    err = capsys.readouterr().err
    assert all(f"harness {m!r}" in err for m in missing)
    doc.write_text("".join(f"| `{h['id']}` |\n### `{h['id']}`\n" for h in report.manifest()), encoding="utf-8")
    assert report.check() == 0


def test_the_committed_report_names_every_harness(report):
    text = (ROOT / "docs" / "implementations.md").read_text(encoding="utf-8")
    for h in report.manifest():
        assert f"### `{h['id']}`" in text, f"docs/implementations.md does not report {h['id']}"
