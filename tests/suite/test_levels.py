"""Levels come from the rule: every level the suite can report is one docs/spec.md allows.

docs/spec.md gives every rule a level and names the checks that enforce it. A check's
declared level, and every level a case gives a part of its expectation (``expect.levels``),
must be one of the levels of the rules that check enforces; a part without an explicit
level takes the check's declared level (never ``must`` by default).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

import mcs_conformance.suite.invariants  # noqa: F401  (registers the checks)
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.suite.invariants.base import CHECKS, Failure, Subject, calls_level, expect_part, part_level
from mcs_conformance.strategies import BedrockStrategy, CohereStrategy, default_chain

ROOT = Path(__file__).resolve().parents[2]
_LEVEL = re.compile(r"\b(must|should|reference)\b")
_IDS = re.compile(r"\b([A-Z]+)-(\d{3}|\*)((?:(?:\.\.|,\s*-)\d{3})*)")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _checks_named(text: str) -> set[str]:
    out: set[str] = set()
    for family, first, rest in _IDS.findall(text):
        if first == "*":
            out |= {c for c in CHECKS if c.startswith(family + "-")}
            continue
        out.add(f"{family}-{first}")
        for sep, num in re.findall(r"(\.\.|,\s*-)(\d{3})", rest):
            if sep == "..":
                start = int(sorted(x for x in out if x.startswith(family + "-"))[-1].split("-")[1])
                out |= {f"{family}-{n:03d}" for n in range(start, int(num) + 1)}
            else:
                out.add(f"{family}-{num}")
    return out


def spec_levels() -> dict[str, set[str]]:
    """check id -> the levels of the spec rules (table rows) that name it among their checks."""
    allowed: dict[str, set[str]] = defaultdict(set)
    header: list[str] | None = None
    for line in (ROOT / "docs" / "spec.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if all(set(c) <= set("-: ") for c in cells):
            continue
        if header is None:
            header = cells
            continue
        if "level" in header and "checks" in header and len(cells) == len(header):
            levels = set(_LEVEL.findall(cells[header.index("level")]))
            for cid in _checks_named(cells[header.index("checks")]):
                allowed[cid] |= levels
    return allowed


def test_every_row_of_the_spec_tables_has_its_headers_cells():
    """A row that lost a cell separator would be skipped by ``spec_levels`` without a word."""
    bad, header = [], None
    for n, line in enumerate((ROOT / "docs" / "spec.md").read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells
        elif len(cells) != len(header):
            bad.append(f"docs/spec.md:{n}: {len(cells)} cells under a header of {len(header)}")
    assert not bad, "\n".join(bad)


ALLOWED = spec_levels()
SPEC_CITED = sorted(c for c in CHECKS if any(s.startswith("spec ") for s in CHECKS[c].sources))


def test_the_spec_tables_name_every_check_that_cites_them():
    missing = [c for c in SPEC_CITED if c not in ALLOWED]
    assert not missing, f"checks citing docs/spec.md that no rule row of it names: {missing}"


@pytest.mark.parametrize("check_id", SPEC_CITED)
def test_a_checks_declared_level_is_one_its_rules_have(check_id):
    check = CHECKS[check_id]
    assert check.level in ALLOWED[check_id], (
        f"{check_id} is declared {check.level!r}; the rules of docs/spec.md that name it have {sorted(ALLOWED[check_id])}")


def _reference_subjects() -> dict[str, Subject]:
    """The reference strategy of each bundled format as a suite subject (which checks apply to a case)."""
    corpus = load_corpus()
    return {s.name: Subject(s, corpus) for s in [*default_chain(), CohereStrategy(), BedrockStrategy()]}


def _corpus_cases():
    return load_corpus().cases


def test_every_level_a_case_gives_a_part_is_one_the_spec_allows_for_each_check_judging_it():
    judging: dict[str, list[str]] = defaultdict(list)
    for c in CHECKS.values():
        for part in c.parts:
            judging[part].append(c.id)
    wrong = []
    subjects = _reference_subjects()
    for case in _corpus_cases():
        subject = subjects.get(case.format)
        for part, rule in case.expect.get("levels", {}).items():
            if not rule.get("source"):
                wrong.append(f"{case.id}: expect.levels.{part} has no source")
            for cid in judging.get(part, []):
                if subject is not None and not CHECKS[cid].applies(subject, case):
                    continue
                if cid in ALLOWED and rule["level"] not in ALLOWED[cid]:
                    wrong.append(f"{case.id}: expect.levels.{part} is {rule['level']!r}, but {cid} enforces rules "
                                 f"of {sorted(ALLOWED[cid])}")
    assert not wrong, "\n".join(wrong[:40])


def test_every_part_a_case_levels_is_judged_by_some_check():
    judged = {p for c in CHECKS.values() for p in c.parts}
    used = {p for case in _corpus_cases() for p in case.expect.get("levels", {})}
    assert used <= judged, f"parts with a level that no check judges: {sorted(used - judged)}"


# -- what a part without a level reports ----------------------------------------------------------

class _Case:
    def __init__(self, expect):
        self.expect = expect


def test_a_part_without_a_level_takes_the_checks_level_not_must():
    assert part_level(_Case({"calls": []}), "calls") == (None, "")
    with pytest.raises(Failure) as info:
        expect_part(_Case({"calls": [1]}), "calls", [2], "differs")
    assert info.value.level is None  # the plugin reports the running check's declared level


def test_a_part_with_a_level_reports_it():
    case = _Case({"message": {"a": 1}, "levels": {"message": {"level": "reference", "why": "the reference's fold",
                                                                "source": "docs/spec.md"}}})
    with pytest.raises(Failure) as info:
        expect_part(case, "message", {"a": 2}, "differs")
    assert info.value.level == "reference"


def _call(name, error=False):
    return {"name": name, "arguments": None if error else {}, "id": None, "error": error}


def test_running_a_call_the_case_expects_as_an_error_breaks_the_never_executable_rule():
    want = [_call("a"), _call("b", error=True)]
    assert calls_level(want, [_call("a"), _call("b")], None, "")[0] == "should"
    # raised to should over a reference part; another difference keeps the part's own level
    assert calls_level(want, [_call("x"), _call("b")], "reference", "grammar")[0] == "should"
    assert calls_level(want, [_call("x"), _call("b")], None, "") == (None, "")
    # an error call where the case expects one that runs is a lost call: the part's level
    assert calls_level([_call("a")], [_call("a", error=True)], None, "") == (None, "")
