"""The reproductions of harnesses/repro/: each is one file an upstream maintainer can run.

For every reproduction: (i) it stands alone (no shared helper, no mcs-conformance, no read of
the corpus or of any file of the checkout, a ``# requires:`` header pinning the versions);
(ii) when the pinned packages are installed here and its finding is not ``slow``, it is run
(the file alone, copied into an empty folder, ``python -I``) and must exit 1 printing the
finding's ``shows``; (iii) otherwise the committed results (harnesses/results/) must record
a verified run of the file as it is now (same sha256), which
``bash scripts/implementations.sh <harness>`` writes.
"""

from __future__ import annotations

import ast
import importlib.util
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPRO = ROOT / "harnesses" / "repro"
SCRIPTS = sorted(p for p in REPRO.glob("*.py") if not p.name.startswith("_"))
FORBIDDEN_MODULES = {"mcs_conformance", "harnesses", "_replay"}
FORBIDDEN_CALLS = {"open", "read_text", "read_bytes", "iterdir", "glob", "rglob", "walk", "listdir", "scandir"}


def _load_report():
    spec = importlib.util.spec_from_file_location("implementations_report", ROOT / "scripts" / "implementations_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = _load_report()
TRIAGE = report.findings()


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _findings_of(path: Path) -> list[dict]:
    return report.repro_findings(_rel(path), TRIAGE)


def test_every_reproduction_is_named_by_a_finding_and_every_named_one_exists():
    named = {f["repro"] for f in TRIAGE if f.get("repro")}
    files = {_rel(p) for p in REPRO.glob("*.py")}
    orphans = sorted(files - named)
    assert not orphans, (f"{', '.join(orphans)}: no finding names these files (harnesses/repro/ holds one "
                         f"reproduction per finding, no shared helper)")
    missing = sorted(named - files)
    assert not missing, f"findings name reproductions that do not exist: {', '.join(missing)}"


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_reproduction_stands_alone(script: Path):
    text = script.read_text(encoding="utf-8")
    tree = ast.parse(text)
    siblings = {p.stem for p in REPRO.glob("*.py")} - {script.stem}
    problems = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]] if node.level == 0 else ["." * node.level]
        for name in names:
            if name in FORBIDDEN_MODULES or name in siblings or name.startswith("."):
                problems.append(f"line {node.lineno}: imports {name!r} (a reproduction imports the libraries alone)")
        if isinstance(node, ast.Name) and node.id == "__file__":
            problems.append(f"line {node.lineno}: uses __file__ (a reproduction reads no file of the checkout)")
        if isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) \
                and node.value.id == "sys":
            problems.append(f"line {node.lineno}: touches sys.path")
        if isinstance(node, ast.Call):
            fn = node.func
            called = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if called in FORBIDDEN_CALLS:
                problems.append(f"line {node.lineno}: calls {called}() (the chunks are inlined; no file is read)")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and any(s in node.value for s in ("corpus/cases", "mcs_conformance/")):
            problems.append(f"line {node.lineno}: names a path of the checkout ({node.value[:60]!r})")
    pins = report.repro_requires(script)
    if not pins:
        problems.append("no `# requires: name==version, ...` header before the first import (the pinned versions)")
    else:
        loose = [name for name, version in pins if not version]
        if loose:
            problems.append(f"`# requires:` entries without an exact `==` version: {', '.join(loose)}")
    assert not problems, f"{_rel(script)} does not stand alone:\n  " + "\n  ".join(problems)


def _installed(pins: list[tuple[str, str]]) -> list[str]:
    """The pins this environment does not satisfy (empty: the reproduction can run here)."""
    missing = []
    for name, version in pins:
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(f"{name} (not installed)")
            continue
        if have != version:
            missing.append(f"{name} {have} (pinned {version})")
    return missing


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_reproduction_fails_the_way_its_finding_says(script: Path, tmp_path: Path):
    fs = _findings_of(script)
    if not fs:
        pytest.fail(f"{_rel(script)}: no finding names it")
    shows = [f.get("shows") for f in fs]
    assert all(shows), f"{_rel(script)}: finding(s) {', '.join(f['id'] for f in fs if not f.get('shows'))} give no `shows`"
    pins = report.repro_requires(script) or []
    unmet = _installed(pins) if pins else ["no `# requires:` header"]
    slow = any(f.get("slow") for f in fs)
    if not unmet and not slow:
        import sys

        got = report.run_repro(_rel(script), sys.executable, None, timeout=300)
        tail = (got["stdout"][-1500:] + "\n--- stderr\n" + got["stderr"][-1500:]).strip()
        assert got["exit"] == 1, f"{_rel(script)} exits {got['exit']}, not 1:\n{tail}"
        for f in fs:
            assert f["shows"] in got["stdout"], (f"{_rel(script)} does not print {f['shows']!r} "
                                                 f"(finding {f['id']}):\n{tail}")
        return
    # not runnable here (other packages, or slow): the committed results must hold a verified
    # run of this very file
    current = report.sha256(script)
    for f in fs:
        records = []
        for hid in f["harnesses"]:
            data = report.load_results(hid) or {}
            records += [(hid, r) for r in data.get("repros", []) if r.get("path") == _rel(script)]
        fresh = [(hid, r) for hid, r in records if r.get("sha256") == current]
        verified = [(hid, r) for hid, r in fresh if r.get("exit") == 1 and r.get("shows") and not r.get("unpinned")]
        why = "slow" if slow else "needs " + ", ".join(unmet)
        command = f"bash scripts/implementations.sh {f['harnesses'][0]}"
        assert records, (f"{_rel(script)} ({why}): harnesses/results/ records no run of it for finding "
                         f"{f['id']}: run {command}")
        assert fresh, (f"{_rel(script)} ({why}) changed since its recorded run "
                       f"({', '.join(sorted({r.get('date') or '?' for _, r in records}))}): run {command}")
        assert verified, (f"{_rel(script)} ({why}): its recorded run does not show finding {f['id']} "
                          f"(exit {fresh[0][1].get('exit')}, shows {'found' if fresh[0][1].get('shows') else 'not found'}"
                          f"{', other versions than pinned: ' + ', '.join(fresh[0][1]['unpinned']) if fresh[0][1].get('unpinned') else ''}); "
                          f"fix it and run {command}")
