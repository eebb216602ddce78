"""The upstream issue texts of harnesses/findings/issues/: every library bug (a) has one, ready
to file (harnesses/findings/README.md, "Issue texts").

For every (a) finding: its ``issue`` key names ``harnesses/findings/issues/<id>.md``; the text
has a title and the sections a maintainer needs (what happens, the reproduction inline,
expected, actual, versions, related issues); it inlines every version its reproduction's
header pins (``name==version`` or ``name@version``), prints the run's output with the finding's
``shows`` in it, names no folder of this checkout, and cites every upstream thread the finding
cites (or the search that found none). No text is left for a finding that is gone or no longer (a).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ISSUES = ROOT / "harnesses" / "findings" / "issues"
SECTIONS = ("## What happens", "## Reproduction", "## Expected", "## Actual", "## Versions", "## Related")


def _load_report():
    spec = importlib.util.spec_from_file_location("implementations_report", ROOT / "scripts" / "implementations_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REPORT = _load_report()
BUGS = [f for f in REPORT.findings() if f.get("class") == "a"]


def test_there_are_library_bugs_to_file():
    assert BUGS, "no (a) finding in harnesses/findings/"


@pytest.mark.parametrize("finding", BUGS, ids=[f["id"] for f in BUGS])
def test_every_library_bug_has_its_issue_text_with_the_pinned_reproduction(finding: dict[str, Any]):
    want = f"harnesses/findings/issues/{finding['id']}.md"
    assert finding.get("issue") == want, f"finding {finding['id']}: `issue` must be {want!r}"
    path = ROOT / want
    assert path.is_file(), f"{want} is missing"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ") and len(text.splitlines()[0]) > 10, f"{want}: the first line is the issue's title"
    for section in SECTIONS:
        assert f"\n{section}\n" in text, f"{want}: no {section!r} section"
    repro = ROOT / finding["repro"]
    pins = REPORT.repro_requires(repro)
    assert pins, f"{finding['repro']}: no requires header"
    sep = "@" if repro.suffix == ".mjs" else "=="
    for name, version in pins:
        assert f"{name}{sep}{version}" in text, f"{want}: does not inline the pinned {name}{sep}{version}"
    assert ".harness-venvs" not in text and ".harness-runs" not in text, f"{want}: names a folder of this checkout"
    actual = text.split("\n## Actual\n", 1)[1].split("\n## Versions\n", 1)[0]
    assert finding["shows"] in actual, f"{want}: the run's output under Actual does not show {finding['shows']!r}"
    for up in finding.get("upstream") or []:
        assert up["url"] in text, f"{want}: does not cite {up['url']}"
    if not finding.get("upstream"):
        assert finding["searched"]["query"] in text, f"{want}: does not give the search that found no upstream issue"


def test_no_issue_text_without_its_library_bug():
    bugs = {f["id"] for f in BUGS}
    left = sorted(p.name for p in ISSUES.glob("*.md") if p.stem not in bugs) if ISSUES.is_dir() else []
    assert not left, f"issue texts of no (a) finding: {left}"
