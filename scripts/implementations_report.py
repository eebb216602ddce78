"""The implementations report: which harness passes what, from the committed raw results.

The pipeline: ``scripts/implementations.sh`` runs the suite on a harness (``.harness-runs/<id>/``,
git-ignored), runs the reproductions of the harness's findings, then ``collect`` turns the
run into ``harnesses/results/<id>.json`` (committed: every item with its outcome, level and
triage); ``write`` generates docs/implementations.md and the README headline from those
files, the findings and harnesses.toml alone, so anyone can regenerate the report and check
it without rerunning anything.

Subcommands (scripts/implementations.sh calls the first four):

* ``list [--mode all|ci] [ID ...]``: the harnesses to run, ``folder<TAB>id<TAB>language<TAB>strategy<TAB>left``
  a line (``left``: the ``-k`` expression that deselects the manifest's ``left_out`` checks, ``-`` for none); fails when a folder of harnesses/ with a requirements.txt (Python) or a package.json
  (JavaScript) has no manifest entry. A JavaScript harness whose files are not in the checkout
  yet is left out (named on stderr).
* ``command --harness ID [--node NODE]``: the strategy to run, runnable from any folder (for a
  JavaScript harness ``exec:node harnesses/js/x.mjs`` becomes ``exec:/abs/node /abs/.../x.mjs``).
* ``versions --harness ID [--node NODE]``: the installed versions of the harness's packages
  (pip distributions, or npm packages of ``harnesses/<folder>/node_modules``), as JSON.
* ``repro --harness ID --python PY [--node NODE]``: runs every reproduction of the harness's
  findings, each copied alone into an empty folder: ``PY -I x.py``, or ``NODE x.mjs`` with
  the npm packages of its ``// requires:`` header (see ``npm_modules``); checks exit code 1
  and the finding's ``shows`` in its output, and writes ``.harness-runs/<id>/repros.json``.
* ``collect --harness ID``: ``.harness-runs/<id>/`` (report.json, versions.json, run.json,
  repros.json, glue.json) to ``harnesses/results/<id>.json``, triaged with harnesses/findings/;
  the glue check's record (harnesses/glue_check.py) under ``glue``.
* ``glue --harness ID``: stores ``.harness-runs/<id>/glue.json`` in the committed results
  alone (a glue check run again without the suite).
* ``retriage``: applies the current findings to the committed results again (rewrites each
  item's class and finding id; no rerun).
* ``write``: docs/implementations.md and the README's headline block from harnesses/results/.
* ``check``: the findings are well formed, the committed report names every harness and is
  what ``write`` generates, the stored triage is current, every stored glue record lists each
  difference it found and is of the adapter file as it is now (a Python harness without one
  fails; a JavaScript one is noted), and each harness run in this checkout left a report with
  results (what CI runs).

Levels: a result carries ``level`` (``must`` | ``should`` | ``reference``) and the outcome
``differs``. Failures at ``must`` and ``should`` are failures; ``reference`` ones and
``differs`` are listed apart, never counted as failing. Failures are counted by class,
never summed across classes: only the library's own bugs (a) are reported by level.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HARNESSES = ROOT / "harnesses"
MANIFEST = HARNESSES / "harnesses.toml"
FINDINGS = HARNESSES / "findings"
RESULTS = HARNESSES / "results"
REPRO = HARNESSES / "repro"
RUNS = Path(os.environ.get("MCS_HARNESS_RUNS") or ROOT / ".harness-runs")
DOC = ROOT / "docs" / "implementations.md"
README = ROOT / "README.md"
HEADLINE_START = "<!-- implementations-headline:start -->"
HEADLINE_END = "<!-- implementations-headline:end -->"
FAMILY_ORDER = ("STRUCT", "RECOG", "PARITY", "SPLIT", "NOISE", "PURE", "DONE", "DISPLAY", "EXTRACT",
                "CHAIN", "NAME", "HISTORY", "ROUNDTRIP", "PREFIX", "COST")
LEVEL_ORDER = ("must", "should", "reference", "unleveled")
CLASS_ORDER = "adsbc?"
CLASSES = {
    "a": "the library's own bug: its answer differs from the official SDK's or the stream=false one on the same "
         "chunks, and the library does not document it as intended",
    "d": "documented behaviour, not a bug: the library says the behaviour is intended (its docs, a docstring, a "
         "setting, a maintainer closing the issue as intended)",
    "s": "the library gives the official SDK's answer where a `should` rule asks more (the rule names the hazard; "
         "the SDK itself fails it)",
    "b": "the suite asks for a choice of the reference's (no provider document, SDK result or ADR text asks for "
         "it), or the suite's own fault",
    "c": "glue: the adapter's own choice (fixed in the glue when found; listed while it stands)",
}
CLASS_NAMES = {  # how a headline or a count names each class
    "a": "its own bugs (a)",
    "d": "documented behaviour (d)",
    "s": "the official SDK's answer where a `should` rule asks more (s)",
    "b": "a choice of the reference's the suite asks for (b)",
    "c": "glue (c)",
    "?": "not triaged yet",
}
FINDING_KEYS = {"id", "harnesses", "checks", "cases", "what", "class", "repro", "shows", "slow", "documented",
                "hazard", "upstream", "searched", "sdk", "loses", "worst", "issue"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
STATE = re.compile(r"^(open|unmerged|merged( in \S.*)?|closed: \S.*)$")
REQUIRES = re.compile(r"^#\s*requires:\s*(.+?)\s*$")
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]+\])?==([^\s,]+)$")
JS_REQUIRES = re.compile(r"^//\s*requires:\s*(.+?)\s*$")
NPM_PIN = re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/[a-z0-9][a-z0-9._~-]*|[a-z0-9][a-z0-9._~-]*)@(\d[^\s,@]*)$")
REPRO_SUFFIXES = (".py", ".mjs")
LANGUAGES = {"python": "Python", "javascript": "JavaScript"}
NPM_REPRO_MODULES = ROOT / ".harness-venvs" / "npm-repro"  # git-ignored: the pins of .mjs headers, one folder each
COMMANDS = {
    "run": "bash scripts/implementations.sh",
    "write": "python scripts/implementations_report.py write",
    "retriage": "python scripts/implementations_report.py retriage",
}


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# -- the manifest and the triage ---------------------------------------------------------------
def manifest() -> list[dict[str, Any]]:
    """The entries of harnesses.toml, each with its ``language`` (``python`` unless given).

    A Python harness needs ``harnesses/<folder>/requirements.txt``. A JavaScript harness is a
    bridge peer, ``strategy = "exec:node harnesses/<folder>/<file>.mjs"``, with its npm pins in
    ``harnesses/<folder>/package.json`` and ``package-lock.json``; until those files are in the
    checkout it is listed but not ready (``ready``), so the report can name it before it runs."""
    entries = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))["harness"]
    ids = [e["id"] for e in entries]
    if len(ids) != len(set(ids)):
        raise SystemExit(f"error: {MANIFEST}: duplicate harness ids")
    for e in entries:
        e.setdefault("language", "python")
        e.setdefault("left_out", [])
        for lo in e["left_out"]:
            if not (isinstance(lo, dict) and set(lo) == {"check", "why"} and _CHECK_ID.fullmatch(str(lo["check"]))
                    and str(lo["why"]).strip()):
                raise SystemExit(f"error: harness {e['id']}: each left_out entry is {{ check = \"FAMILY-NNN\", "
                                 f"why = \"...\" }} (the check the library cannot be judged by, and why), not {lo!r}")
        if e["language"] not in LANGUAGES:
            raise SystemExit(f"error: harness {e['id']}: language must be one of {', '.join(LANGUAGES)}, "
                             f"not {e['language']!r}")
        if e["language"] == "python":
            if not (HARNESSES / e["folder"] / "requirements.txt").is_file():
                raise SystemExit(f"error: harness {e['id']}: harnesses/{e['folder']}/requirements.txt is missing")
        else:
            words = shlex.split(e["strategy"][len("exec:"):]) if e["strategy"].startswith("exec:") else []
            script = words[1] if len(words) >= 2 else ""
            if not words or words[0] != "node" or not script.startswith(f"harnesses/{e['folder']}/"):
                raise SystemExit(f"error: harness {e['id']}: a JavaScript harness's strategy is "
                                 f"'exec:node harnesses/{e['folder']}/<file>.mjs ...', not {e['strategy']!r}")
    for kind, name in (("python", "requirements.txt"), ("javascript", "package.json")):
        listed = {e["folder"] for e in entries if e["language"] == kind}
        for req in sorted(HARNESSES.glob(f"*/{name}")):
            if req.parent.name not in listed:
                raise SystemExit(f"error: harnesses/{req.parent.name} has a {name} but no {LANGUAGES[kind]} entry "
                                 f"in {MANIFEST.name}")
    return entries


_CHECK_ID = re.compile(r"[A-Z]{3,}-\d{3}")


def left_out_expr(h: dict[str, Any]) -> str:
    """The ``-k`` expression that deselects the checks a harness leaves out (``-``: none)."""
    return " and ".join(f"not {lo['check']}" for lo in h["left_out"]) or "-"


def is_js(h: dict[str, Any]) -> bool:
    return h.get("language", "python") == "javascript"


def js_script(h: dict[str, Any]) -> Path:
    """The .mjs file a JavaScript harness's ``exec:node FILE`` runs."""
    return ROOT / shlex.split(h["strategy"][len("exec:"):])[1]


def missing_files(h: dict[str, Any]) -> list[str]:
    """What a harness still lacks in this checkout to run (empty: ready). A Python harness is
    always ready (``manifest`` refuses one without its requirements.txt)."""
    if not is_js(h):
        return []
    need = [js_script(h), HARNESSES / h["folder"] / "package.json", HARNESSES / h["folder"] / "package-lock.json"]
    return [_rel(p) for p in need if not p.is_file()]


def command_for(h: dict[str, Any], node: str) -> str:
    """The strategy as the suite is given it. A JavaScript harness runs from its run folder
    (the peer's cwd is the suite's rootdir), so ``node`` becomes the given node binary and
    every word naming a file of the checkout its absolute path."""
    if not is_js(h):
        return h["strategy"]
    words = shlex.split(h["strategy"][len("exec:"):])
    out = [node]
    for w in words[1:]:
        out.append(str(ROOT / w) if not os.path.isabs(w) and (ROOT / w).exists() else w)
    return "exec:" + shlex.join(out)


def spec_matches(h: dict[str, Any], spec: str | None) -> bool:
    """Whether a report's ``spec`` is a run of this harness (its manifest spelling, or for a
    JavaScript harness what ``command_for`` makes of it with the node the run used)."""
    if not spec:
        return False
    if spec == h["strategy"]:
        return True
    if not (is_js(h) and spec.startswith("exec:")):
        return False
    try:
        node = shlex.split(spec[len("exec:"):])[0]
    except (ValueError, IndexError):
        return False
    return command_for(h, node) == spec


def findings() -> list[dict[str, Any]]:
    """Every finding of harnesses/findings/*.toml, in the order of the file names (the first
    match explains a failure). Not validated here: see ``validate_findings``."""
    out: list[dict[str, Any]] = []
    for path in sorted(FINDINGS.glob("*.toml")):
        for f in tomllib.loads(path.read_text(encoding="utf-8")).get("finding", []):
            out.append({**f, "_file": path.name})
    return out


def validate_findings(triage: list[dict[str, Any]], harness_ids: set[str]) -> list[str]:
    """The findings format of harnesses/findings/README.md; one problem a line."""
    problems: list[str] = []
    seen: set[str] = set()
    for f in triage:
        fid = f.get("id") or "?"
        where = f"finding {fid} ({f.get('_file', '?')})"
        if not f.get("id"):
            problems.append(f"{where}: no id")
        elif fid in seen:
            problems.append(f"{where}: the id is used twice")
        seen.add(fid)
        unknown = set(f) - FINDING_KEYS - {"_file"}
        if unknown:
            problems.append(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        cls = f.get("class")
        if cls not in CLASSES:
            problems.append(f"{where}: class must be one of {', '.join(CLASSES)}, not {cls!r}")
        if not f.get("what"):
            problems.append(f"{where}: no `what`")
        hs = f.get("harnesses")
        if not hs or not isinstance(hs, list):
            problems.append(f"{where}: no `harnesses`")
        else:
            for hid in hs:
                if hid not in harness_ids:
                    problems.append(f"{where}: unknown harness {hid!r}")
        for key in ("checks", "cases"):
            if key in f and not (isinstance(f[key], list) and f[key] and all(isinstance(p, str) for p in f[key])):
                problems.append(f"{where}: `{key}` must be a non-empty list of patterns")
        repro = f.get("repro")
        if cls == "a" and not repro:
            problems.append(f"{where}: a library's bug (a) needs a `repro`")
        if repro:
            if not (isinstance(repro, str) and repro.startswith("harnesses/repro/") and repro.endswith(REPRO_SUFFIXES)):
                problems.append(f"{where}: `repro` must be harnesses/repro/<script>.py or <script>.mjs, not {repro!r}")
            elif not (ROOT / repro).is_file():
                problems.append(f"{where}: reproduction {repro} does not exist")
            if not (isinstance(f.get("shows"), str) and f["shows"].strip()):
                problems.append(f"{where}: a `repro` needs `shows` (the text it prints when it fails as `what` says)")
        elif "shows" in f:
            problems.append(f"{where}: `shows` without a `repro`")
        if "slow" in f and not isinstance(f["slow"], bool):
            problems.append(f"{where}: `slow` must be true or false")
        if cls == "d":
            doc = f.get("documented")
            if not (isinstance(doc, dict) and doc.get("url") and doc.get("quote")):
                problems.append(f"{where}: documented behaviour (d) needs `documented = {{ url, quote }}`")
        elif "documented" in f:
            doc = f["documented"]
            if not (isinstance(doc, dict) and doc.get("url") and doc.get("quote")):
                problems.append(f"{where}: `documented` needs url and quote")
        if "hazard" in f and not (isinstance(f["hazard"], str) and f["hazard"].strip()):
            problems.append(f"{where}: `hazard` must be a line of text")
        ups = f.get("upstream")
        if ups is not None:
            if not isinstance(ups, list) or not ups:
                problems.append(f"{where}: `upstream` must be a list of {{ url, state, searched }} tables")
                ups = []
            for u in ups:
                if not isinstance(u, dict):
                    problems.append(f"{where}: upstream entry {u!r} must be a table {{ url, state, searched }}")
                    continue
                if not str(u.get("url", "")).startswith("https://"):
                    problems.append(f"{where}: an upstream entry has no https url")
                if not STATE.match(str(u.get("state", ""))):
                    problems.append(f"{where}: upstream {u.get('url')}: state {u.get('state')!r} is none of open, "
                                    f"closed: ..., merged in X, unmerged")
                if not DATE.match(str(u.get("searched", ""))):
                    problems.append(f"{where}: upstream {u.get('url')}: `searched` must be the date (YYYY-MM-DD)")
        searched = f.get("searched")
        if searched is not None:
            if not (isinstance(searched, dict) and DATE.match(str(searched.get("date", "")))
                    and str(searched.get("query", "")).strip()):
                problems.append(f"{where}: `searched` needs date (YYYY-MM-DD) and query")
        if cls == "a" and not ups and searched is None:
            problems.append(f"{where}: a library's bug (a) needs `upstream` or `searched` (the search that found none)")
        problems += [f"{where}: {p}" for p in sdk_key_problems(f)]
        problems += _validate_weight(f, where)
    return problems


def _validate_weight(f: dict[str, Any], where: str) -> list[str]:
    """The weight of a finding (``loses``, every finding; ``worst``, an (a) one) and its
    upstream issue text (``issue``, an (a) one: ``harnesses/findings/issues/<id>.md``, existing)."""
    problems = []
    for key, who, why in (("loses", "every finding", "what a user loses, in one short line"),
                          ("worst", "a library's bug (a)", "its worst case, in one sentence")):
        if key in f and not (isinstance(f[key], str) and f[key].strip() and "\n" not in f[key].strip()):
            problems.append(f"{where}: `{key}` must be one line of text ({why})")
        elif key not in f and (key == "loses" or f.get("class") == "a"):
            problems.append(f"{where}: {who} needs `{key}` ({why})")
    issue = f.get("issue")
    want = f"harnesses/findings/issues/{f.get('id')}.md"
    if issue is None:
        if f.get("class") == "a":
            problems.append(f"{where}: a library's bug (a) needs `issue = \"{want}\"` (the upstream issue's text)")
    elif issue != want:
        problems.append(f"{where}: `issue` must be {want!r}, not {issue!r}")
    elif not (ROOT / issue).is_file():
        problems.append(f"{where}: issue text {issue} does not exist")
    return problems


def _matches(finding: dict[str, Any], harness: str, check: str, case: str) -> bool:
    if harness not in finding.get("harnesses", []):
        return False
    if finding.get("checks") and not any(fnmatch.fnmatchcase(check, p) for p in finding["checks"]):
        return False
    return any(fnmatch.fnmatchcase(case, p) for p in finding.get("cases", ["*"]))


def explain(triage: list[dict[str, Any]], harness: str, check: str, case: str) -> dict[str, Any] | None:
    return next((f for f in triage if _matches(f, harness, check, case)), None)


# -- statements about an official SDK, measured ------------------------------------------------
SDK_ANSWERS = "sdk-answers.json"  # in RESULTS, written by scripts/sdk_answers.py
SDK_COMMAND = "python scripts/sdk_answers.py write"
SDK_IDS = ("openai-python", "openai-node", "anthropic-python", "anthropic-node")
SDK_CLAIMS = {
    "accepts": "reads every case without an error",
    "refuses": "raises on every case",
    "matches": "folds every case into the case's expected message",
    "differs": "folds every case into another message than the case's",
    "unmeasured": "not measured by the stored runs (`why` says why)",
}
# a `what` that says what an official SDK does: an official / Python / JavaScript SDK (or its
# accumulator) and, in the same clause, a verb of what it does with the chunks
_SDK_VERBS = r"(?:accepts?|refuses?|raises?|keeps?|returns?|folds?|reads?|merges?|joins?|skips?|passes)"
SDK_STATEMENT = re.compile(rf"\b(?:official|Python|JavaScript)\s+SDKs?\b(?:'s?)?[^;.]*?\b{_SDK_VERBS}\b"
                           rf"|\bSDK(?:'s)? accumulator (?:\w+ )?{_SDK_VERBS}\b", re.I)


def sdk_claims(f: dict[str, Any]) -> list[dict[str, Any]]:
    """The finding's `sdk` key as a list of claims (a table or an array of tables)."""
    value = f.get("sdk")
    if value is None:
        return []
    return [value] if isinstance(value, dict) else list(value) if isinstance(value, list) else [value]


def sdk_key_problems(f: dict[str, Any]) -> list[str]:
    """The `sdk` key's format; its presence where the finding is (s) or its `what` says what an
    official SDK does."""
    out = []
    claims = sdk_claims(f)
    if not claims and (f.get("class") == "s" or SDK_STATEMENT.search(str(f.get("what", "")))):
        why = "an (s) finding" if f.get("class") == "s" else "its `what` says what an official SDK does"
        out.append(f"{why}: needs `sdk = {{ claim, sdks }}` (what the stored SDK answers must show; "
                   f"harnesses/findings/README.md)")
    for c in claims:
        if not isinstance(c, dict):
            out.append(f"`sdk` must be a table {{ claim, sdks }} or an array of them, not {c!r}")
            continue
        unknown = set(c) - {"claim", "sdks", "why", "cases"}
        if unknown:
            out.append(f"`sdk`: unknown key(s) {', '.join(sorted(unknown))}")
        if c.get("claim") not in SDK_CLAIMS:
            out.append(f"`sdk`: claim must be one of {', '.join(SDK_CLAIMS)}, not {c.get('claim')!r}")
        sdks = c.get("sdks")
        if not (isinstance(sdks, list) and sdks and all(s in SDK_IDS for s in sdks)):
            out.append(f"`sdk`: sdks must be a non-empty list of {', '.join(SDK_IDS)}, not {sdks!r}")
        if "cases" in c and not (isinstance(c["cases"], list) and c["cases"] and all(isinstance(p, str) for p in c["cases"])):
            out.append("`sdk`: `cases` must be a non-empty list of patterns of the finding's cases")
        if c.get("claim") == "unmeasured" and not (isinstance(c.get("why"), str) and c["why"].strip()):
            out.append("`sdk`: an unmeasured claim needs `why`")
    return out


def claim_cases(claim: dict[str, Any], cases: list[str]) -> list[str]:
    """The cases of a finding's line that a claim is about: all, or those its `cases` patterns match."""
    patterns = claim.get("cases")
    return [c for c in cases if not patterns or any(fnmatch.fnmatchcase(c, p) for p in patterns)]


def sdk_answers() -> dict[str, Any] | None:
    """The stored answers of the official SDKs (harnesses/results/sdk-answers.json), or None."""
    path = RESULTS / SDK_ANSWERS
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def sdk_name(sdk: str, answers: dict[str, Any] | None) -> str:
    """`openai 3.57.0 (Python)`: the package, the version run, the language."""
    spec = ((answers or {}).get("sdks") or {}).get(sdk)
    if not spec:
        return sdk
    return f"{spec['package']} {spec['version']} ({LANGUAGES.get(spec['language'], spec['language'])})"


def sdk_tally(sdk: str, cases: list[str], answers: dict[str, Any] | None) -> Counter:
    """The SDK's stored answers over the cases of its formats: raises, folds into the case's
    message (`equal`), into another (`other`), folds where the case expects a refusal (`folds`)."""
    out: Counter = Counter()
    spec = ((answers or {}).get("sdks") or {}).get(sdk) or {}
    for case in cases:
        if case.split("/", 1)[0] not in spec.get("formats", ()):
            continue
        a = ((answers or {}).get("answers") or {}).get(case, {}).get(sdk)
        if a is None:
            out["unrun"] += 1
        elif a["answer"] == "raises":
            out["raises"] += 1
        else:
            out[{True: "equal", False: "other"}.get(a.get("equals"), "folds")] += 1
    return out


def claim_holds(claim: str, tally: Counter) -> bool:
    """Whether the answers counted agree with the claim (at least one case measured)."""
    run = sum(v for k, v in tally.items() if k != "unrun")
    if claim == "unmeasured":
        return True
    if not run or tally["unrun"]:
        return False
    want = {"accepts": ("equal", "other", "folds"), "refuses": ("raises",), "matches": ("equal",),
            "differs": ("other",)}[claim]
    return sum(tally[k] for k in want) == run


def sdk_sentence(f: dict[str, Any], cases: list[str], answers: dict[str, Any] | None) -> str:
    """What the stored runs show for the SDKs the finding's `sdk` claims name, over these cases:
    which SDK gave which answer, with counts. Empty without an `sdk` key."""
    claims = sdk_claims(f)
    if not claims:
        return ""
    if answers is None:
        return f"no stored SDK answers ({SDK_COMMAND})"
    parts = []
    for c in claims:
        mine = claim_cases(c, cases)
        if not mine:
            continue
        named = ", ".join(f"`{x}`" for x in mine[:2]) + (f" and {len(mine) - 2} more" if len(mine) > 2 else "")
        scope = f" (on {named})" if c.get("cases") else ""
        if c.get("claim") == "unmeasured":
            parts.append(f"{', '.join(sdk_name(s, answers) for s in c.get('sdks', []))}: not measured by the stored "
                         f"runs ({c.get('why')}){scope}")
            continue
        for sdk in c.get("sdks", []):
            t = sdk_tally(sdk, mine, answers)
            n = sum(t.values())
            if not n:
                continue  # no case of the SDK's format on this line
            words = [w for w in (f"raises on {t['raises']}" if t["raises"] else "",
                                 f"folds into the case's message on {t['equal']}" if t["equal"] else "",
                                 f"folds into another message on {t['other']}" if t["other"] else "",
                                 f"reads without an error on {t['folds']}" if t["folds"] else "",
                                 f"has no stored answer on {t['unrun']}" if t["unrun"] else "") if w]
            said = ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]
            parts.append(f"{sdk_name(sdk, answers)} {said} of {n} {'case' if n == 1 else 'cases'}{scope}")
    if not parts:
        return ""
    return f"the official SDKs run on these cases (harnesses/results/{SDK_ANSWERS}): " + "; ".join(parts)


def finding_groups(triage: list[dict[str, Any]], runs: dict[str, dict[str, Any] | None]) -> dict[tuple[str, str], list[str]]:
    """(finding id, harness) -> the cases of the harness's failing items the finding explains:
    the cases the report's line for the finding names."""
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for hid, data in runs.items():
        for item in (data or {}).get("items", []):
            if item.get("finding") and bucket(item) == "failed":
                out[(item["finding"], hid)].add(item["case"])
    return {k: sorted(v) for k, v in out.items()}


def sdk_disagreements(triage: list[dict[str, Any]], runs: dict[str, dict[str, Any] | None],
                      answers: dict[str, Any] | None) -> list[str]:
    """Each claim of a finding's `sdk` key that the stored answers do not show on the cases of
    its line in a harness; and stored answers of another corpus than the results'. One a line."""
    out = []
    hashes = {d.get("corpus_hash") for d in runs.values() if d}
    if answers is None:
        if any(sdk_claims(f) for f in triage):
            out.append(f"harnesses/results/{SDK_ANSWERS} is missing: run {SDK_COMMAND}")
        return out
    if hashes and answers.get("corpus_hash") not in hashes:
        out.append(f"harnesses/results/{SDK_ANSWERS} is of corpus {answers.get('corpus_version')} "
                   f"({str(answers.get('corpus_hash'))[:23]}…), not the results' ({', '.join(sorted(map(str, hashes)))}): "
                   f"run {SDK_COMMAND}")
    by_id = {f["id"]: f for f in triage if f.get("id")}
    for (fid, hid), cases in sorted(finding_groups(triage, runs).items()):
        f = by_id.get(fid)
        for c in sdk_claims(f or {}):
            if not isinstance(c, dict) or c.get("claim") not in SDK_CLAIMS:
                continue
            mine = claim_cases(c, cases)
            for sdk in c.get("sdks") or []:
                t = sdk_tally(sdk, mine, answers)
                if sum(t.values()) and not claim_holds(c["claim"], t):
                    out.append(f"finding {fid} ({hid}): claims {sdk} {c['claim']} on {len(mine)} case(s); the stored "
                               f"answers: {', '.join(f'{k} {v}' for k, v in sorted(t.items()))}")
    return out


# -- outcomes ---------------------------------------------------------------------------------
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
    """The message's `problem:` line (or its first line), at most 160 characters, encodable
    as UTF-8 (a lone surrogate of a case's text is written as its escape)."""
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    for line in message.splitlines():
        if line.strip().startswith("problem:"):
            text = line.split("problem:", 1)[1].strip()
            return text if len(text) <= 160 else text[:157] + "..."
    first = next((l for l in message.splitlines() if l.strip() and not l.startswith("[gw")), "")
    first = first.strip()
    return first if len(first) <= 160 else first[:157] + "..."


def triage_item(item: dict[str, Any], harness: str, triage: list[dict[str, Any]]) -> dict[str, Any]:
    """The item with ``class`` and ``finding`` set from the triage (failing and reference
    items only; both None when no finding explains it)."""
    out = {k: v for k, v in item.items() if k not in ("class", "finding")}
    if bucket(item) in ("failed", "reference"):
        f = explain(triage, harness, item["id"], item["case"])
        problem = out.pop("problem", None)
        out["class"] = f["class"] if f else None
        out["finding"] = f["id"] if f else None
        if problem is not None:
            out["problem"] = problem
    return out


# -- the raw results --------------------------------------------------------------------------
def results_path(harness_id: str) -> Path:
    return RESULTS / f"{harness_id}.json"


def dump_results(data: dict[str, Any]) -> str:
    """The results as JSON, one repro and one item a line, items sorted by (check, case)."""
    head = {k: v for k, v in data.items() if k not in ("repros", "items")}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, sort_keys=isinstance(v, dict))},")
    for key, rows in (("repros", sorted(data.get("repros", []), key=lambda r: (r["path"], r["finding"]))),
                      ("items", sorted(data.get("items", []), key=lambda r: (r["id"], r["case"])))):
        body = [f"    {json.dumps(r, ensure_ascii=False)}" for r in rows]
        lines.append(f'  "{key}": [' + ("" if body else "]" + ("," if key == "repros" else "")))
        if body:
            lines.append(",\n".join(body))
            lines.append("  ]" + ("," if key == "repros" else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def load_results(harness_id: str) -> dict[str, Any] | None:
    path = results_path(harness_id)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def collect(harness_id: str) -> int:
    h = next((h for h in manifest() if h["id"] == harness_id), None)
    if h is None:
        print(f"error: unknown harness id {harness_id!r}", file=sys.stderr)
        return 1
    run = RUNS / harness_id
    if not (run / "report.json").is_file():
        print(f"error: {_rel(run / 'report.json')} is missing: run {COMMANDS['run']} {harness_id}", file=sys.stderr)
        return 1
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    if not spec_matches(h, report.get("spec")) or not report.get("results"):
        print(f"error: {_rel(run / 'report.json')} is of {report.get('spec')!r} with {len(report.get('results') or [])} "
              f"results, not a run of {h['strategy']!r}", file=sys.stderr)
        return 1
    versions = _read_json(run / "versions.json", {})
    meta = _read_json(run / "run.json", {})
    repros = _read_json(run / "repros.json", [])
    date = meta.get("date") or _dt.datetime.fromtimestamp((run / "report.json").stat().st_mtime,
                                                         _dt.timezone.utc).date().isoformat()
    triage = findings()
    items = []
    for r in report.get("results", []):
        item = {"id": r["id"], "case": r["case"], "outcome": r.get("outcome"), "level": r.get("level")}
        if bucket(r) in ("failed", "reference", "error"):
            item["problem"] = _problem(r.get("message") or "")
        items.append(triage_item(item, harness_id, triage))
    glue = _read_json(run / "glue.json", None)
    data = {
        "harness": harness_id,
        "strategy": h["strategy"],
        "date": date,
        "package_version": report.get("package_version"),
        "corpus_version": report.get("corpus_version"),
        "corpus_hash": report.get("corpus_hash"),
        "profile": report.get("profile"),
        "select": meta.get("select"),
        "versions": versions,
        "repros": repros,
        "items": items,
    }
    if glue is not None:
        data["glue"] = glue
    RESULTS.mkdir(parents=True, exist_ok=True)
    results_path(harness_id).write_text(dump_results(data), encoding="utf-8")
    failing = sum(bucket(i) == "failed" for i in items)
    untriaged = sum(bucket(i) == "failed" and not i.get("finding") for i in items)
    print(f"wrote {_rel(results_path(harness_id))}: {len(items)} items, {failing} failing "
          f"({untriaged} not triaged), {len(repros)} reproductions")
    return 0


def store_glue(harness_id: str) -> int:
    """Put the run folder's glue record (harnesses/glue_check.py) into the committed results,
    for a glue check run again without a rerun of the suite."""
    data, path = load_results(harness_id), RUNS / harness_id / "glue.json"
    if data is None or not path.is_file():
        print(f"error: harnesses/results/{harness_id}.json or {_rel(path)} is missing: run "
              f"python -m harnesses.glue_check {harness_id} --out {_rel(path)} in its virtualenv", file=sys.stderr)
        return 1
    data["glue"] = json.loads(path.read_text(encoding="utf-8"))
    results_path(harness_id).write_text(dump_results(data), encoding="utf-8")
    print(f"stored the glue record of {harness_id}: {data['glue']['differences_unlisted']} unlisted difference(s)")
    return 0


def glue_problems(h: dict[str, Any], data: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    """``(problems, notes)`` of a harness's stored glue record: a difference its adapter does not
    list, an adapter file changed since the check, a record of another corpus; none stored: a
    problem for a Python harness, a note for a JavaScript one (its runner comes with its adapters)."""
    if data is None:
        return [], []
    glue = data.get("glue")
    if glue is None:
        what = f"harness {h['id']}: its results hold no glue record: rerun {COMMANDS['run']} {h['id']}"
        return ([], [what]) if is_js(h) else ([what], [])
    problems = []
    for d in glue.get("differences", []):
        if not d.get("listed"):
            problems.append(f"harness {h['id']}: the glue check finds a difference its adapter does not list "
                            f"({d['case']}: {d['key']}: library {d['library']}, adapter {d['adapter']}): fix the glue "
                            f"or list it in GLUE_LISTED with why")
    path = ROOT / glue.get("adapter", "")
    if not path.is_file() or sha256(path) != glue.get("sha256"):
        problems.append(f"harness {h['id']}: {glue.get('adapter')} changed since its glue check: rerun "
                        f"{COMMANDS['run']} {h['id']}")
    if glue.get("corpus_hash") != data.get("corpus_hash"):
        problems.append(f"harness {h['id']}: its glue record is of another corpus than its results")
    return problems, []


def _read_json(path: Path, default: Any) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else default


def stale_triage(harness_ids: list[str] | None = None) -> list[str]:
    """Items whose stored class or finding differs from what the current findings give."""
    triage = findings()
    out = []
    for h in manifest():
        if harness_ids is not None and h["id"] not in harness_ids:
            continue
        data = load_results(h["id"])
        if data is None:
            continue
        for item in data["items"]:
            fresh = triage_item(item, h["id"], triage)
            if (fresh.get("class"), fresh.get("finding")) != (item.get("class"), item.get("finding")):
                out.append(f"{h['id']}: {item['id']}[{item['case']}] is stored as "
                           f"{item.get('class')}/{item.get('finding')}, the findings now give "
                           f"{fresh.get('class')}/{fresh.get('finding')}")
    return out


def retriage() -> int:
    triage, changed = findings(), 0
    for h in manifest():
        data = load_results(h["id"])
        if data is None:
            continue
        items = [triage_item(i, h["id"], triage) for i in data["items"]]
        changed += sum(a != b for a, b in zip(items, data["items"]))
        text = dump_results({**data, "items": items})
        if text != results_path(h["id"]).read_text(encoding="utf-8"):
            results_path(h["id"]).write_text(text, encoding="utf-8")
    print(f"retriaged harnesses/results/: {changed} items changed class or finding"
          + (f"; now run {COMMANDS['write']}" if changed else ""))
    return 0


# -- reproductions ----------------------------------------------------------------------------
def repro_requires(path: Path) -> list[tuple[str, str]] | None:
    """The pins of a reproduction's header (the comment lines before its first import), or
    None when it has none: ``# requires: name==version, ...`` in a ``.py`` file (pip
    distributions), ``// requires: name@version, ...`` in a ``.mjs`` file (npm packages,
    scoped ones as ``@scope/name@version``). A ``python...`` or ``node...`` entry is the
    interpreter's version, not a package, and is not checked."""
    js = path.suffix == ".mjs"
    header, pin, runtime = (JS_REQUIRES, NPM_PIN, "node") if js else (REQUIRES, PIN, "python")
    pins: list[tuple[str, str]] = []
    found = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if js and re.match(r"^\s*(import\b|export\b|const\b|let\b|await\b)", line):
            break
        if not js and line.startswith(("import ", "from ")) and not line.startswith("from __future__"):
            break
        m = header.match(line)
        if m:
            found = True
            for spec in re.split(r"[,\s]+", m.group(1).strip()):
                if spec and not re.match(rf"^{runtime}(?![A-Za-z0-9_.-])", spec, re.I):  # the interpreter's version
                    p = pin.match(spec)
                    pins.append(((p.group(1), p.group(3)) if not js else (p.group(1), p.group(2))) if p else (spec, ""))
    return pins if found else None


def repro_findings(path: str, triage: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    return [f for f in (findings() if triage is None else triage) if f.get("repro") == path]


def npm_versions(modules: Path, names: list[str]) -> dict[str, str | None]:
    """The versions of these npm packages in a node_modules folder (None: not installed)."""
    out: dict[str, str | None] = {}
    for name in names:
        meta = modules / name / "package.json"
        try:
            out[name] = json.loads(meta.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            out[name] = None
    return out


def npm_modules(pins: list[tuple[str, str]], node: str) -> tuple[Path | None, str]:
    """The node_modules folder a ``.mjs`` reproduction runs with, and where it comes from.

    The JavaScript harnesses' own install (``harnesses/js/node_modules``, from its lock) when it
    has every pin of the header, as a Python reproduction runs in its harness's virtualenv;
    otherwise the header's pins alone, installed once with ``npm install`` from the npm
    registry into ``.harness-venvs/npm-repro/<hash of the pins>/`` (git-ignored). (None, why)
    when that install fails."""
    names = [n for n, _ in pins]
    for folder in sorted(HARNESSES.glob("*/package-lock.json")):
        modules = folder.parent / "node_modules"
        if pins and npm_versions(modules, names) == dict(pins):
            return modules, _rel(modules)
    if not pins:
        return None, "no `// requires:` header"
    key = hashlib.sha256(json.dumps(sorted(pins)).encode()).hexdigest()[:16]
    prefix = NPM_REPRO_MODULES / key
    modules = prefix / "node_modules"
    if npm_versions(modules, names) == dict(pins):
        return modules, f"npm install {' '.join(f'{n}@{v}' for n, v in pins)}"
    npm = shutil.which("npm")
    if npm is None:
        return None, "no npm to install the header's pins with"
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(node).parent), os.environ.get("PATH", "")])}
    proc = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-save", "--no-package-lock", "--no-audit",
                           "--no-fund", "--ignore-scripts", "--loglevel=error", *[f"{n}@{v}" for n, v in pins if v]],
                          env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        return None, "npm install failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    return modules, f"npm install {' '.join(f'{n}@{v}' for n, v in pins)}"


def default_node() -> str | None:
    """scripts/node22.sh's node (>= 22), or None when none can be had."""
    try:
        proc = subprocess.run(["bash", str(ROOT / "scripts" / "node22.sh")], capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None


def run_repro(path: str, python: str, shows: str | None, timeout: float = 900, node: str | None = None) -> dict[str, Any]:
    """Runs one reproduction as an upstream maintainer would: the file alone, copied into an
    empty folder; ``python -I`` (no PYTHONPATH, no script folder on sys.path), or for a
    ``.mjs`` file ``node`` with a ``node_modules`` link to the packages of its header
    (``npm_modules``), the folder holding nothing else. ``modules`` says which packages ran."""
    src = ROOT / path
    extra: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="mcs-repro-") as tmp:
        copy = Path(tmp) / src.name
        shutil.copyfile(src, copy)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "NODE_PATH", "NODE_OPTIONS", "MCS_BRIDGE_JS")}
        if src.suffix == ".mjs":
            node = node or default_node()
            if node is None:
                return {"exit": None, "shows": False, "stdout": "", "stderr": "no node >= 22 (scripts/node22.sh)",
                        "modules": None}
            modules, where = npm_modules(repro_requires(src) or [], node)
            extra["modules"] = where
            if modules is None:
                return {"exit": None, "shows": False, "stdout": "", "stderr": where, **extra}
            os.symlink(modules, Path(tmp) / "node_modules", target_is_directory=True)
            argv = [node, str(copy)]
        else:
            argv = [python, "-I", str(copy)]
        try:
            proc = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True,
                                  timeout=timeout, errors="backslashreplace")
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            code, out, err = None, exc.stdout or "", f"timed out after {timeout:.0f} s"
            out = out.decode() if isinstance(out, bytes) else out
    return {"exit": code, "shows": bool(shows) and shows in out, "stdout": out, "stderr": err, **extra}


def pins_unmet(pins: list[tuple[str, str]], python: str, modules: Path | None = None,
               js: bool = False) -> list[str]:
    """The pins of a reproduction's header that the environment it ran in does not have
    (``name have (pinned want)``), e.g. a header left behind a version bump: the
    interpreter's distributions, or for a ``.mjs`` file the node_modules folder it ran with."""
    if not pins:
        return ["no `// requires:` header" if js else "no `# requires:` header"]
    if js:
        have = npm_versions(modules, [n for n, _ in pins]) if modules is not None else {}
    else:
        code = ("import json, sys\nfrom importlib import metadata\nout = {}\nfor n in sys.argv[1:]:\n"
                "    try:\n        out[n] = metadata.version(n)\n    except metadata.PackageNotFoundError:\n"
                "        out[n] = None\nprint(json.dumps(out))")
        proc = subprocess.run([python, "-I", "-c", code, *[n for n, _ in pins]], capture_output=True, text=True)
        have = json.loads(proc.stdout) if proc.returncode == 0 else {}
    return [f"{n} {have.get(n) or 'not installed'} (pinned {v or '?'})" for n, v in pins if have.get(n) != v]


def repro_command(harness_id: str, python: str, node: str | None = None) -> int:
    triage = findings()
    rows = []
    run = RUNS / harness_id
    (run / "repros").mkdir(parents=True, exist_ok=True)
    date = _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    status = 0
    for f in triage:
        if harness_id not in f.get("harnesses", []) or not f.get("repro"):
            continue
        path = f["repro"]
        if not (ROOT / path).is_file():
            print(f"   repro {path}: missing (finding {f['id']})", file=sys.stderr)
            rows.append({"finding": f["id"], "path": path, "sha256": None, "date": date, "exit": None, "shows": False})
            status = 1
            continue
        js = path.endswith(".mjs")
        if js and node is None:
            node = default_node()
        got = run_repro(path, python, f.get("shows"), node=node)
        pins = repro_requires(ROOT / path) or []
        if js:
            modules = npm_modules(pins, node)[0] if node and pins else None
            unmet = pins_unmet(pins, python, modules, js=True)
        else:
            unmet = pins_unmet(pins, python)
        (run / "repros" / f"{Path(path).stem}.log").write_text(got["stdout"] + "\n--- stderr\n" + got["stderr"],
                                                              encoding="utf-8")
        ok = got["exit"] == 1 and got["shows"] and not unmet
        rows.append({"finding": f["id"], "path": path, "sha256": sha256(ROOT / path), "date": date,
                     "exit": got["exit"], "shows": got["shows"], "unpinned": unmet,
                     **({"modules": got.get("modules")} if js else {})})
        print(f"   repro {Path(path).name}: exit {got['exit']}, shows {'found' if got['shows'] else 'NOT found'}"
              + (f", run with {got['modules']}" if js and got.get("modules") else "")
              + (f", run with other versions than its header pins: {', '.join(unmet)}" if unmet else "")
              + ("" if ok else "  <- not verified"))
        status = status if ok else 1
    (run / "repros.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return status


def repro_state(record: dict[str, Any] | None, path: str) -> tuple[bool, str]:
    """(verified, words) for a reproduction's recorded run."""
    if record is None:
        return False, "not run"
    if record.get("sha256") is None:
        return False, "not verified: missing when run"
    if not (ROOT / path).is_file():
        return False, "not verified: the file no longer exists"
    if record["sha256"] != sha256(ROOT / path):
        return False, f"not verified: changed since its run of {record.get('date')}"
    if record.get("unpinned"):
        return False, f"not verified: run with {', '.join(record['unpinned'])} in its run of {record.get('date')}"
    if record.get("exit") == 1 and record.get("shows"):
        return True, f"verified {record.get('date')}: exit 1, the finding's `shows` printed"
    why = [f"exit {record.get('exit')}" if record.get("exit") != 1 else "",
           "the finding's `shows` not printed" if not record.get("shows") else ""]
    return False, f"not verified: {', '.join(w for w in why if w)} in its run of {record.get('date')}"


# -- writing the report -----------------------------------------------------------------------
def _levels_text(counter: Counter) -> str:
    return ", ".join(f"{lv} {counter[lv]}" for lv in LEVEL_ORDER if counter[lv])


def summarize(data: dict[str, Any]) -> dict[str, Any]:
    """Counts of one harness's results: per family, per class (and level for (a) and the
    untriaged), the invariants without failure."""
    items = data.get("items", [])
    families: dict[str, Counter] = defaultdict(Counter)
    by_class: dict[str, Counter] = defaultdict(Counter)  # class -> level -> items
    findings_by_class: dict[str, set] = defaultdict(set)
    failing_ids, all_ids = set(), set()
    for r in items:
        fam = r["id"].rsplit("-", 1)[0]
        b = bucket(r)
        families[fam][b] += 1
        all_ids.add(r["id"])
        if b == "failed":
            cls = r.get("class") or "?"
            level = r.get("level") or "unleveled"
            failing_ids.add(r["id"])
            families[fam][f"class:{cls}"] += 1
            families[fam][f"class:{cls}:{level}"] += 1
            by_class[cls][level] += 1
            findings_by_class[cls].add(r.get("finding") or r["id"])
    return {"families": families, "by_class": by_class, "findings": findings_by_class,
            "invariants": (len(all_ids - failing_ids), len(all_ids)), "items": len(items),
            "reference": sum(c["reference"] for c in families.values()),
            "errors": sum(c["error"] for c in families.values())}


def _cell(c: Counter) -> str:
    """A family cell: passed / failed, the failures by class ((a) and untriaged by level),
    the reference differences apart. Bold where the library's own bugs or untriaged items fail."""
    if not c:
        return "–"
    text = f"{c['passed']} / {c['failed']}"
    parts = []
    for cls in CLASS_ORDER:
        n = c[f"class:{cls}"]
        if not n:
            continue
        if cls in "a?":
            lv = ", ".join(f"{lvl} {c[f'class:{cls}:{lvl}']}" for lvl in LEVEL_ORDER if c[f"class:{cls}:{lvl}"])
            parts.append(f"{'a' if cls == 'a' else 'untriaged'}: {lv}")
        else:
            parts.append(f"{cls} {n}")
    if parts:
        text += f" ({'; '.join(parts)})"
    if c["reference"]:
        text += f" · ref {c['reference']}"
    return f"**{text}**" if c["class:a"] or c["class:?"] else text


def _link(path: str) -> str:
    return f"[{Path(path).name}](../{path})"


def _upstream_text(f: dict[str, Any]) -> str:
    ups = [u for u in f.get("upstream") or [] if isinstance(u, dict)]
    if ups:
        return "upstream " + "; ".join(f"<{u.get('url')}> ({u.get('state', 'state not given')}, searched "
                                       f"{u.get('searched', '?')})" for u in ups)
    s = f.get("searched")
    if isinstance(s, dict):
        return f"no upstream issue found (searched {s.get('date')}: {s.get('query')})"
    return "upstream not searched yet" if f.get("class") == "a" else ""


def _repro_text(f: dict[str, Any], records: list[dict[str, Any]]) -> str:
    if not f.get("repro"):
        return ""
    rec = next((r for r in records if r.get("path") == f["repro"] and r.get("finding") == f["id"]), None)
    rec = rec or next((r for r in records if r.get("path") == f["repro"]), None)
    _, words = repro_state(rec, f["repro"])
    return f"repro {_link(f['repro'])} ({words}{', slow' if f.get('slow') else ''})"


def _weight_text(f: dict[str, Any]) -> str:
    """What a user loses by the finding, its worst case (a) and the link to its upstream issue
    text (a): what a reader ranks the findings by."""
    out = f" · **loses:** {f['loses']}" if f.get("loses") else ""
    if f.get("worst"):
        out += f" · **worst case:** {f['worst']}"
    if f.get("issue"):
        out += f" · issue text, ready to file: {_link(f['issue'])}"
    return out


def behaviours_line(groups: dict[str, list[dict[str, Any]]], by_id: dict[str, dict[str, Any]]) -> str:
    """A harness's failures counted by behaviour first and item second, per class
    (``3 library bugs (45 items)``); untriaged items have no behaviour yet and are counted alone."""
    per: dict[str, list[int]] = defaultdict(list)
    for key, rs in groups.items():
        per[by_id[key]["class"] if key in by_id else "?"].append(len(rs))
    parts = []
    for cls in CLASS_ORDER:
        if cls not in per:
            continue
        n, items = len(per[cls]), sum(per[cls])
        if cls == "?":
            parts.append(f"not triaged yet: {_items(items)}")
        else:
            parts.append(f"{n} {BEHAVIOUR_NAMES[cls][0 if n == 1 else 1]} ({_items(items)})")
    return "- **Behaviours, then items:** " + "; ".join(parts)


BEHAVIOUR_NAMES = {  # one, many: a count of behaviours per class
    "a": ("library bug (a)", "library bugs (a)"),
    "d": ("documented behaviour (d)", "documented behaviours (d)"),
    "s": ("behaviour as the official SDK (s)", "behaviours as the official SDK (s)"),
    "b": ("choice of the reference's (b)", "choices of the reference's (b)"),
    "c": ("glue choice (c)", "glue choices (c)"),
}


def _finding_line(f: dict[str, Any], records: list[dict[str, Any]], head: str) -> str:
    cls = f["class"]
    line = head + _weight_text(f)
    if cls == "d":
        doc = f.get("documented") or {}
        line += f" · the library documents it: “{doc.get('quote', '')}” (<{doc.get('url', '')}>)"
    if f.get("hazard") and cls in "ds":
        line += f" · hazard: {f['hazard']}"
    for extra in (_repro_text(f, records), _upstream_text(f)):
        if extra:
            line += f" · {extra}"
    return line


CLASS_LABELS = {
    "a": "(a) the library's bug:",
    "d": "(d) documented behaviour, not a bug:",
    "s": "(s) as the official SDK:",
    "b": "(b) the reference's choice:",
    "c": "(c) glue:",
}


def _items(n: int, adjective: str = "") -> str:
    return f"{n} {adjective}{'item' if n == 1 else 'items'}"


def headline(harnesses: list[dict[str, Any]], runs: dict[str, dict[str, Any] | None]) -> list[str]:
    """One line per harness with results: its own bugs (a) by level first; then, apart, the
    other classes, each counted on its own (never added into a level figure)."""
    out = []
    for h in harnesses:
        data = runs[h["id"]]
        if data is None:
            out.append(f"- `{h['id']}` ({LANGUAGES[h['language']]}): not run")
            continue
        s = summarize(data)
        a, na = s["by_class"].get("a", Counter()), len(s["findings"].get("a", ()))
        words = (f"its own bugs (a): {na} {'behaviour' if na == 1 else 'behaviours'}, "
                 f"{_items(sum(a.values()), 'failing ')} ({_levels_text(a)})" if na else "its own bugs (a): none")
        q = s["by_class"].get("?", Counter())
        if q:
            words += (f"; not triaged yet: {_items(sum(q.values()), 'failing ')} ({_levels_text(q)}), none of them "
                      "judged yet as the library's, the adapter's glue or a corpus level to relax")
        apart = []
        for cls in "dsbc":
            n = len(s["findings"].get(cls, ()))
            if n:
                items = sum(s["by_class"][cls].values())
                apart.append(f"{CLASS_NAMES[cls]}: {n} {'behaviour' if n == 1 else 'behaviours'} ({_items(items)})")
        words += (". Apart, not its bugs: " + "; ".join(apart)) if apart else ". Nothing else fails"
        out.append(f"- `{h['id']}` ({LANGUAGES[h['language']]}): {words}")
    return out


def language_cell(h: dict[str, Any], data: dict[str, Any] | None) -> str:
    """The language a harness is written in, with the runtime version of its run."""
    name = LANGUAGES[h["language"]]
    versions = (data or {}).get("versions", {})
    if is_js(h):
        return f"{name} (node {versions['node']})" if versions.get("node") else name
    return f"{name} {versions['python']}" if versions.get("python") else name


def _runs_line(runs: dict[str, dict[str, Any] | None]) -> str:
    have = [d for d in runs.values() if d]
    dates = sorted({d.get("date") or "?" for d in have})
    corpora = sorted({f"{d.get('corpus_version')} (`{str(d.get('corpus_hash'))[:23]}…`)" for d in have})
    packages = sorted({str(d.get("package_version")) for d in have})
    profiles = sorted({str(d.get("profile")) for d in have})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    return (f"runs of **{when}** with mcs-conformance {', '.join(packages)}, corpus **{', '.join(corpora)}**, "
            f"hypothesis profile `{', '.join(profiles)}`")


def render() -> tuple[str, str]:
    """(docs/implementations.md, the README's headline block) from harnesses/results/."""
    harnesses, triage = manifest(), findings()
    by_id = {f["id"]: f for f in triage}
    answers = sdk_answers()
    runs = {h["id"]: load_results(h["id"]) for h in harnesses}
    if not any(runs.values()):
        raise SystemExit(f"error: harnesses/results/ holds no results: run {COMMANDS['run']}")
    if len({(d.get("corpus_version"), d.get("corpus_hash")) for d in runs.values() if d}) > 1:
        print("warning: the results are of different corpora; rerun every harness", file=sys.stderr)
    legend = ("(a) the library's own bugs by level, each with a reproduction; then, apart and never counted as its "
              "bugs: (d) documented behaviour, (s) the official SDK's answer where a `should` rule asks more, "
              "(b) a choice of the reference's the suite asks for, (c) the adapter's glue; a count in parentheses is "
              "of failing items")
    heads = headline(harnesses, runs)
    out = [
        "# Implementations",
        "",
        f"The conformance suite run on libraries people already stream with: {_runs_line(runs)}. Generated by "
        f"`{COMMANDS['write']}` from the raw results in [`harnesses/results/`](../harnesses/results/) "
        f"(`{COMMANDS['run']}` reruns the harnesses and writes them). Do not edit by hand.",
        "",
        "Each library runs through a thin adapter in [`harnesses/`](../harnesses/) (the library accumulates and "
        "parses; the adapter converts shapes; every glue choice is in the adapter's docstring): a Python one in a "
        "virtualenv of its own with the versions pinned in the folder's `requirements.txt`, a JavaScript one as a "
        "bridge peer ([bridge.md](bridge.md), `exec:node ...`, node >= 22) with the npm packages of the folder's "
        "`package-lock.json` (`npm ci`). GOLDEN is not run (a library has no reviewed snapshots of its own).",
        "",
        "Verdicts follow the suite's levels: `must` and `should` failures are failures; differences from a choice of "
        "the reference (`reference`) are counted apart (`ref`) and never as failing. Failures are counted by class "
        "(harnesses/findings/): only the library's own bugs (a) are given by level.",
        "",
        "## Headline",
        "",
        f"{legend}.",
        "",
        *heads,
        "",
        "## Summary",
        "",
        "Failing items by class: (a) by level; (d), (s), (b), (c) counted apart, each on its own.",
        "",
        "| implementation | language | format | versions | run | invariants without failure | own bugs (a) | "
        "not triaged | documented (d) | SDK's answer (s) | reference's choice (b) | glue (c) | reference differences "
        "| suite errors |",
        "|---|---|---|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    sums: dict[str, dict[str, Any]] = {}
    for h in harnesses:
        data = runs[h["id"]]
        if data is None:
            out.append(f"| `{h['id']}`: {h['title']} | {language_cell(h, None)} | {h['format']} | | not run "
                       f"| | | | | | | | | |")
            continue
        versions = data.get("versions", {})
        ver = ", ".join(f"{p} {versions.get(p, '?')}" for p in h["packages"])
        s = sums[h["id"]] = summarize(data)
        ok, total = s["invariants"]
        bc = s["by_class"]

        def levelled(cls: str) -> str:
            c = bc.get(cls, Counter())
            return f"{sum(c.values())} ({_levels_text(c)})" if c else "0"

        out.append(f"| `{h['id']}`: {h['title']} | {language_cell(h, data)} | {h['format']} | {ver} | "
                   f"{data.get('date')} | {ok}/{total} | "
                   f"{levelled('a')} | {levelled('?')} | "
                   + " | ".join(str(sum(bc.get(c, Counter()).values())) for c in "dsbc")
                   + f" | {s['reference']} | {s['errors']} |")
    seen = {f for s in sums.values() for f in s["families"]}
    present = [f for f in FAMILY_ORDER if f in seen] + sorted(seen - set(FAMILY_ORDER))  # a new family is never dropped
    out += ["", "## By invariant family", "",
            "Items passed / failed, the failures by class ((a) and the untriaged by level); `ref`: differences from "
            "the reference's choice; bold: the library's own bugs or untriaged items fail. See "
            "[invariants.md](invariants.md) for each family.", "",
            "| implementation | language | " + " | ".join(present) + " |",
            "|---|---|" + "---|" * len(present)]
    for h in harnesses:
        if h["id"] in sums:
            fams = sums[h["id"]]["families"]
            out.append(f"| `{h['id']}` | {LANGUAGES[h['language']]} | "
                       + " | ".join(_cell(fams.get(f, Counter())) for f in present) + " |")
    out += ["", "## Failures, one line per finding", "",
            "Each line is one behaviour ([`harnesses/findings/`](../harnesses/findings/)), with the rules it fails, "
            "their level, and the cases. Class: " + "; ".join(f"**({k})** {v}" for k, v in CLASSES.items())
            + ". A reproduction in [`harnesses/repro/`](../harnesses/repro/) is one file that runs the library alone "
            "(chunks inlined, versions pinned in its header) and prints its answer next to the official SDK's or the "
            "`stream=false` one; its state is that of its last run by the report's command (exit 1 and the "
            "finding's text printed: verified). Upstream issues are given with their state as found on the date of "
            "the search.", ""]
    used: set[str] = set()
    for h in harnesses:
        data = runs[h["id"]]
        out += [f"### `{h['id']}`", ""]
        if data is None:
            out += ["Not run for this report.", ""]
            continue
        items = data.get("items", [])
        records = data.get("repros", [])
        for lo in h["left_out"]:
            out.append(f"- **left out** `{lo['check']}` (not run for this library): {lo['why']}")
        failed = [r for r in items if bucket(r) == "failed"]
        refs = [r for r in items if bucket(r) == "reference"]
        errors = [r for r in items if bucket(r) == "error"]
        if not failed and not refs and not errors:
            out += ["Nothing fails.", ""] if not h["left_out"] else ["- nothing else fails", ""]
            continue
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in failed:
            groups[r.get("finding") or f"?{r['id']}"].append(r)
        if groups:
            out.append(behaviours_line(groups, by_id))

        def order(k: str) -> tuple[int, str]:
            cls = by_id[k]["class"] if k in by_id else "?"
            return (CLASS_ORDER.index(cls) if cls in CLASS_ORDER else len(CLASS_ORDER), k)

        for key in sorted(groups, key=order):
            rs = groups[key]
            rules = sorted({r["id"] for r in rs})
            levels = [lv for lv in LEVEL_ORDER if lv in {r.get("level") or "unleveled" for r in rs}]
            cases = sorted({r["case"] for r in rs})
            shown = ", ".join(f"`{c}`" for c in cases[:3]) + (f" and {len(cases) - 3} more" if len(cases) > 3 else "")
            rule_text = ", ".join(f"`{x}`" for x in rules) + (f" [{'/'.join(levels)}]" if levels else "")
            n = f"{len(rs)} {'item' if len(rs) == 1 else 'items'}"
            if key in by_id:
                f = by_id[key]
                stored = {r.get("class") for r in rs}
                head = f"- **{CLASS_LABELS.get(f['class'], f['class'])}** {f['what']}. Rules {rule_text} on {shown} ({n})"
                measured = sdk_sentence(f, cases, answers)
                head += f" · {measured}" if measured else ""
                if stored != {f["class"]}:
                    head += f" · **stored as class {'/'.join(sorted(map(str, stored)))}: run `{COMMANDS['retriage']}`**"
                if f["class"] == "s" and "must" in levels:
                    head += " · **a must rule fails here too: the class does not cover it (for the suite to settle)**"
                out.append(_finding_line(f, records, head))
                used.add(key)
            elif not key.startswith("?"):
                out.append(f"- **(finding `{key}` is no longer in harnesses/findings/)** {rule_text} on {shown} ({n}): "
                           f"run `{COMMANDS['retriage']}`")
            else:
                out.append(f"- **(not triaged yet)** {rule_text} on {shown} ({n}): {rs[0].get('problem', '')}")
        if refs:
            ref_ids = Counter(r["id"] for r in refs)
            out.append("- differs from the reference's choice (not failing): "
                       + ", ".join(f"`{k}` ×{v}" for k, v in sorted(ref_ids.items())))
        if errors:
            out.append("- the suite's own code broke (a bug in mcs-conformance, not counted against the library): "
                       + ", ".join(f"`{r['id']}[{r['case']}]`" for r in errors[:5])
                       + (f" and {len(errors) - 5} more" if len(errors) > 5 else ""))
        out.append("")
    quiet = [f for f in triage if f.get("class") in ("a", "d") and f.get("repro") and f["id"] not in used
             and any(runs.get(hid) for hid in f.get("harnesses", []))]
    if quiet:
        out += ["## Reproduced, but no verdict of these runs shows it", "",
                "Library behaviour a reproduction shows that no failing item of the runs above carries (the adapter's "
                "glue, or the suite, judges the point elsewhere):", ""]
        for f in quiet:
            records = [r for hid in f["harnesses"] if runs.get(hid) for r in runs[hid].get("repros", [])]
            head = f"- **{CLASS_LABELS[f['class']]}** `{', '.join(f['harnesses'])}`: {f['what']}"
            out.append(_finding_line(f, records, head))
        out.append("")
    out += ["## Reproduce", "",
            "```",
            "bash scripts/implementations.sh                 # every harness (a virtualenv each), its reproductions,",
            "                                                # harnesses/results/<id>.json, then this file",
            "bash scripts/implementations.sh litellm         # one harness; the others keep their committed results",
            "python scripts/implementations_report.py write  # this file from harnesses/results/ alone",
            "python harnesses/repro/<script>.py              # one finding, the library alone (see its header)",
            "node harnesses/repro/<script>.mjs               # the same in JavaScript: npm install its header's pins",
            "                                                # (name@version) next to it first, node >= 22",
            "```", ""]
    doc = "\n".join(out)
    block = "\n".join([
        HEADLINE_START,
        f"Headline of [docs/implementations.md](docs/implementations.md) ({_runs_line(runs)}); {legend}:",
        "",
        *heads,
        HEADLINE_END,
    ])
    return doc, block


def readme_with(block: str, text: str) -> str | None:
    """The README text with its headline block replaced, or None when it has no markers."""
    start, end = text.find(HEADLINE_START), text.find(HEADLINE_END)
    if start < 0 or end < start:
        return None
    return text[:start] + block + text[end + len(HEADLINE_END):]


def write() -> int:
    doc, block = render()
    problems = validate_findings(findings(), {h["id"] for h in manifest()})
    if problems:
        print(f"warning: {len(problems)} problem(s) in harnesses/findings/ (first: {problems[0]}); "
              f"python scripts/implementations_report.py check lists them", file=sys.stderr)
    DOC.write_text(doc, encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    new = readme_with(block, readme)
    if new is None:
        print(f"warning: {_rel(README)} has no {HEADLINE_START} ... {HEADLINE_END} block; headline not written",
              file=sys.stderr)
    elif new != readme:
        README.write_text(new, encoding="utf-8")
    untriaged = doc.count("**(not triaged yet)**")
    print(f"wrote {_rel(DOC)} and the headline of {_rel(README)} "
          f"({sum(1 for h in manifest() if load_results(h['id']))} harnesses with results, "
          f"{untriaged} untriaged failures)")
    return 0


# -- CI ---------------------------------------------------------------------------------------
def check() -> int:
    problems = []
    harnesses = manifest()
    text = DOC.read_text(encoding="utf-8") if DOC.is_file() else ""
    if not text:
        problems.append(f"{_rel(DOC)} is missing: run {COMMANDS['run']}")
    notes = []
    for h in harnesses:
        if f"### `{h['id']}`" not in text or f"| `{h['id']}`" not in text:
            problems.append(f"{_rel(DOC)} does not report harness {h['id']!r} "
                            f"(harnesses/{h['folder']}): rerun {COMMANDS['run']} {h['id']}")
        elif load_results(h["id"]) is None:
            missing = f"harnesses/results/{h['id']}.json is missing: run {COMMANDS['run']} {h['id']}"
            lacking = missing_files(h)
            if lacking:  # listed before its files landed: the report says "not run"; not an error yet
                notes.append(f"{missing} (once {', '.join(lacking)} {'is' if len(lacking) == 1 else 'are'} "
                             f"in the checkout)")
            else:
                problems.append(missing)
    problems += validate_findings(findings(), {h["id"] for h in harnesses})
    problems += sdk_disagreements(findings(), {h["id"]: load_results(h["id"]) for h in harnesses}, sdk_answers())
    for h in harnesses:
        data = load_results(h["id"])
        kept = [lo["check"] for lo in h["left_out"]
                if data and any(r["id"] == lo["check"] for r in data.get("items", []))]
        if kept:
            problems.append(f"harness {h['id']}: harnesses.toml leaves out {', '.join(kept)}, but its results hold "
                            f"items of it: rerun {COMMANDS['run']} {h['id']}")
    glue_notes = []
    for h in harnesses:
        found, noted = glue_problems(h, load_results(h["id"]))
        problems += found
        glue_notes += noted
    runs = [d for d in (load_results(h["id"]) for h in harnesses) if d]
    mixed = sorted({f"{d.get('corpus_version')} {str(d.get('corpus_hash'))[:19]}" for d in runs})
    if len(mixed) > 1:
        problems.append(f"harnesses/results/ mixes corpora ({'; '.join(mixed)}): rerun every harness, {COMMANDS['run']}")
    if text and any(load_results(h["id"]) for h in harnesses):
        stale = stale_triage()
        if stale:
            problems.append(f"{len(stale)} stored triage(s) differ from harnesses/findings/ (first: {stale[0]}): run "
                            f"{COMMANDS['retriage']}, then {COMMANDS['write']}")
        doc, block = render()
        if doc != text:
            problems.append(f"{_rel(DOC)} is not what harnesses/results/ gives: run {COMMANDS['write']}")
        readme = README.read_text(encoding="utf-8")
        if readme_with(block, readme) != readme:
            problems.append(f"the headline block of {_rel(README)} is not what harnesses/results/ gives: "
                            f"run {COMMANDS['write']}")
    ran = 0
    for h in harnesses:
        path = RUNS / h["id"] / "report.json"
        if not path.is_file():
            continue
        report = json.loads(path.read_text(encoding="utf-8"))
        ran += 1
        if not report.get("results"):
            problems.append(f"harness {h['id']}: its report holds no result")
        elif not spec_matches(h, report.get("spec")):
            problems.append(f"harness {h['id']}: the report is of {report.get('spec')!r}, not {h['strategy']!r}")
    if not ran:
        problems.append(f"no harness report in {_rel(RUNS)}: the harnesses did not run")
    for n in notes + glue_notes:
        print(f"note: {n}", file=sys.stderr)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if not problems:
        print(f"ok: {_rel(DOC)} names all {len(harnesses)} harnesses and is what harnesses/results/ gives; {ran} ran here"
              + (f"; {len(notes)} not run yet (their files are not in the checkout)" if notes else ""))
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("--mode", choices=("all", "ci"), default="all")
    ls.add_argument("ids", nargs="*")
    cm = sub.add_parser("command")
    cm.add_argument("--harness", required=True)
    cm.add_argument("--node", default="node")
    v = sub.add_parser("versions")
    v.add_argument("--harness", required=True)
    v.add_argument("--node", default=None)
    r = sub.add_parser("repro")
    r.add_argument("--harness", required=True)
    r.add_argument("--python", default=sys.executable)
    r.add_argument("--node", default=None)
    c = sub.add_parser("collect")
    c.add_argument("--harness", required=True)
    g = sub.add_parser("glue")
    g.add_argument("--harness", required=True)
    sub.add_parser("retriage")
    sub.add_parser("write")
    sub.add_parser("check")
    args = p.parse_args(argv)
    if args.cmd == "list":
        rows = [h for h in manifest() if (args.mode == "all" or h.get("ci")) and (not args.ids or h["id"] in args.ids)]
        unknown = set(args.ids) - {h["id"] for h in manifest()}
        if unknown:
            print(f"error: unknown harness id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 1
        status = 0
        for h in rows:
            lacking = missing_files(h)
            if lacking:  # listed ahead of its files: named, not run
                print(f"{'error' if args.ids else 'note'}: harness {h['id']} cannot run yet: {', '.join(lacking)} "
                      f"{'is' if len(lacking) == 1 else 'are'} not in the checkout", file=sys.stderr)
                status = 1 if args.ids else status
                continue
            print(f"{h['folder']}\t{h['id']}\t{h['language']}\t{h['strategy']}\t{left_out_expr(h)}")
        return status
    if args.cmd == "command":
        h = next((h for h in manifest() if h["id"] == args.harness), None)
        if h is None:
            print(f"error: unknown harness id {args.harness!r}", file=sys.stderr)
            return 1
        print(command_for(h, args.node))
        return 0
    if args.cmd == "versions":
        from importlib import metadata

        h = next(h for h in manifest() if h["id"] == args.harness)
        out = {}
        if is_js(h):
            found = npm_versions(HARNESSES / h["folder"] / "node_modules", h["packages"])
            out.update({name: v or "not installed" for name, v in found.items()})
        else:
            for name in h["packages"]:
                try:
                    out[name] = metadata.version(name)
                except metadata.PackageNotFoundError:
                    out[name] = "not installed"
        try:
            out["mcs-conformance"] = metadata.version("mcs-conformance")
        except metadata.PackageNotFoundError:
            out["mcs-conformance"] = "not installed"
        out["python"] = sys.version.split()[0]
        if is_js(h):
            node = args.node or default_node()
            got = subprocess.run([node, "--version"], capture_output=True, text=True) if node else None
            out["node"] = got.stdout.strip().lstrip("v") if got and got.returncode == 0 else "not installed"
        print(json.dumps(out, indent=2))
        return 0
    if args.cmd == "repro":
        return repro_command(args.harness, args.python, args.node)
    if args.cmd == "collect":
        return collect(args.harness)
    if args.cmd == "glue":
        return store_glue(args.harness)
    if args.cmd == "retriage":
        return retriage()
    return write() if args.cmd == "write" else check()


if __name__ == "__main__":
    raise SystemExit(main())
