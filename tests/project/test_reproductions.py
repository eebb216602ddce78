"""The reproductions of harnesses/repro/: each is one file an upstream maintainer can run.

For every reproduction, Python (``.py``) or JavaScript (``.mjs``): (i) it stands alone (no
shared helper, no mcs-conformance, no read of the corpus or of any file of the checkout, a
``# requires:`` / ``// requires:`` header pinning the versions); (ii) when the pinned packages
are installed here (a ``.py`` file's in this interpreter, a ``.mjs`` file's in
harnesses/js/node_modules, with a node >= 22) and its finding is not ``slow``, it is run (the
file alone, copied into an empty folder: ``python -I``, or ``node`` with a ``node_modules``
link to those packages) and must exit 1 printing the finding's ``shows``; (iii) otherwise the
committed results (harnesses/results/) must record a verified run of the file as it is now
(same sha256), which ``bash scripts/implementations.sh <harness>`` writes.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from importlib import metadata
from pathlib import Path

import pytest
from tests.helpers.limits import HANG

ROOT = Path(__file__).resolve().parents[2]
REPRO = ROOT / "harnesses" / "repro"
SCRIPTS = sorted(p for suffix in ("*.py", "*.mjs") for p in REPRO.glob(suffix) if not p.name.startswith("_"))
FORBIDDEN_MODULES = {"mcs_conformance", "harnesses", "_replay"}
FORBIDDEN_CALLS = {"open", "read_text", "read_bytes", "iterdir", "glob", "rglob", "walk", "listdir", "scandir"}
# a .mjs reproduction imports npm packages (and node: built-ins) alone: no relative or absolute
# path, no file system, no bridge server, no path of its own
JS_IMPORT = re.compile(r"""(?:\bimport\s*(?:[\w*{}\s,$]+\s*from\s*)?|\bimport\s*\(\s*|\brequire\s*\(\s*)["'`]([^"'`]+)["'`]""")
JS_FORBIDDEN_MODULES = {"fs", "node:fs", "fs/promises", "node:fs/promises", "child_process", "node:child_process"}
JS_FORBIDDEN = {"import.meta": "reads its own location (import.meta)", "__dirname": "uses __dirname",
                "__filename": "uses __filename", "MCS_BRIDGE_JS": "uses the bridge's server (MCS_BRIDGE_JS)",
                "process.chdir": "changes its folder", "createRequire": "builds a require of its own"}


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
    files = {_rel(p) for p in SCRIPTS}
    orphans = sorted(files - named)
    assert not orphans, (f"{', '.join(orphans)}: no finding names these files (harnesses/repro/ holds one "
                         f"reproduction per finding, no shared helper)")
    missing = sorted(named - files)
    assert not missing, f"findings name reproductions that do not exist: {', '.join(missing)}"


def js_standalone_problems(script: Path) -> list[str]:
    """Why a .mjs reproduction does not stand alone (empty: it does)."""
    problems = []
    for n, line in enumerate(script.read_text(encoding="utf-8").splitlines(), 1):
        for name in JS_IMPORT.findall(line):
            base = name.split("/")[0] if not name.startswith("@") else "/".join(name.split("/")[:2])
            if name.startswith((".", "/", "file:")) or base in JS_FORBIDDEN_MODULES or base in ("mcs-conformance",):
                problems.append(f"line {n}: imports {name!r} (a reproduction imports npm packages and node: "
                                f"built-ins alone, never a file or the file system)")
        for word, why in JS_FORBIDDEN.items():
            if word in line:
                problems.append(f"line {n}: {why}")
        if "corpus/cases" in line or "mcs_conformance/" in line:
            problems.append(f"line {n}: names a path of the checkout")
    pins = report.repro_requires(script)
    if not pins:
        problems.append("no `// requires: name@version, ...` header before the first import (the pinned versions)")
    else:
        loose = [name for name, version in pins if not version]
        if loose:
            problems.append(f"`// requires:` entries without an exact `@version`: {', '.join(loose)}")
    return problems


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_reproduction_stands_alone(script: Path):
    if script.suffix == ".mjs":
        problems = js_standalone_problems(script)
        assert not problems, f"{_rel(script)} does not stand alone:\n  " + "\n  ".join(problems)
        return
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
    js = script.suffix == ".mjs"
    node = None
    if js:  # runnable here with the JavaScript harnesses' own install (npm ci) and a node >= 22
        have = report.npm_versions(ROOT / "harnesses" / "js" / "node_modules", [n for n, _ in pins])
        unmet = ([f"{n} {have.get(n) or 'not installed'} (pinned {v}) in harnesses/js/node_modules"
                  for n, v in pins if have.get(n) != v] if pins else ["no `// requires:` header"])
        node = report.default_node() if not unmet else None
        if not unmet and node is None:
            unmet = ["a node >= 22 (scripts/node22.sh)"]
    else:
        unmet = _installed(pins) if pins else ["no `# requires:` header"]
    slow = any(f.get("slow") for f in fs)
    if not unmet and not slow:
        import sys

        got = report.run_repro(_rel(script), sys.executable, None, timeout=HANG, node=node)
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


# -- the .mjs runner, on a checkout of its own --------------------------------------------------
@pytest.fixture
def js_repro(tmp_path, monkeypatch):
    """A checkout with harnesses/js/node_modules holding one tiny package and a .mjs
    reproduction that imports it and fails the way its finding says."""
    js = tmp_path / "harnesses" / "js"
    pkg = js / "node_modules" / "@tiny" / "acc"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "@tiny/acc", "version": "1.2.3", "type": "module", "main": "index.js"}\n')
    (pkg / "index.js").write_text("export const accumulate = (parts) => parts.slice(1).join('');\n")
    (js / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
    (tmp_path / "harnesses" / "repro").mkdir()
    script = tmp_path / "harnesses" / "repro" / "tiny_drops_first.mjs"
    script.write_text("/** @tiny/acc drops the first part of a stream. */\n"
                      "// requires: @tiny/acc@1.2.3, node>=22\n"
                      "import { accumulate } from '@tiny/acc';\n"
                      "const got = accumulate(['Par', 'is']);\n"
                      "console.log(`library: ${got}  expected: Paris`);\n"
                      "process.exit(got === 'Paris' ? 0 : 1);\n")
    monkeypatch.setattr(report, "ROOT", tmp_path)
    monkeypatch.setattr(report, "HARNESSES", tmp_path / "harnesses")
    monkeypatch.setattr(report, "NPM_REPRO_MODULES", tmp_path / "npm-repro")
    return script


@pytest.fixture(scope="module")
def node() -> str:
    got = report.default_node()  # the checkout's scripts/node22.sh, before a test moves ROOT
    if got is None:
        pytest.skip("no node >= 22 could be obtained (scripts/node22.sh)")
    return got


def test_an_mjs_reproduction_runs_alone_with_the_packages_of_its_header(node, js_repro, monkeypatch):
    assert js_standalone_problems(js_repro) == []
    assert report.repro_requires(js_repro) == [("@tiny/acc", "1.2.3")]
    got = report.run_repro("harnesses/repro/tiny_drops_first.mjs", "python", "library: is", timeout=HANG, node=node)
    assert (got["exit"], got["shows"], got["modules"]) == (1, True, "harnesses/js/node_modules"), got
    assert "expected: Paris" in got["stdout"]
    modules, _ = report.npm_modules([("@tiny/acc", "1.2.3")], node)
    assert report.pins_unmet([("@tiny/acc", "1.2.3")], "python", modules, js=True) == []
    # a header left behind a version bump: not the harnesses' install; with no npm to install
    # the pins, the run fails and says why
    js_repro.write_text(js_repro.read_text().replace("@tiny/acc@1.2.3", "@tiny/acc@9.9.9"))
    monkeypatch.setattr(report.shutil, "which", lambda name: None)
    got = report.run_repro("harnesses/repro/tiny_drops_first.mjs", "python", "library: is", timeout=HANG, node=node)
    assert got["exit"] is None and not got["shows"] and got["modules"] == "no npm to install the header's pins with"
    assert report.pins_unmet([("@tiny/acc", "9.9.9")], "python", modules, js=True) == ["@tiny/acc 1.2.3 (pinned 9.9.9)"]


def test_an_mjs_reproduction_that_reads_files_does_not_stand_alone(js_repro):
    js_repro.write_text("// requires: @tiny/acc@1.2.3\n"
                        "import { readFileSync } from 'node:fs';\n"
                        "import { chunks } from '../js/_glue.mjs';\n"
                        "const here = new URL('.', import.meta.url);\n"
                        "const { serve } = await import(process.env.MCS_BRIDGE_JS);\n")
    problems = js_standalone_problems(js_repro)
    assert any("imports 'node:fs'" in p for p in problems), problems
    assert any("imports '../js/_glue.mjs'" in p for p in problems), problems
    assert any("import.meta" in p for p in problems) and any("MCS_BRIDGE_JS" in p for p in problems), problems
    js_repro.write_text("// requires: @tiny/acc\nimport { accumulate } from '@tiny/acc';\n")
    assert any("without an exact `@version`: @tiny/acc" in p for p in js_standalone_problems(js_repro))
