"""The official SDKs' stored answers (scripts/sdk_answers.py, harnesses/results/sdk-answers.json)
and the findings' `sdk` claims: a statement of the report about an SDK is what the SDK, run,
answered on the cases of its line."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report():
    return _load("implementations_report")


@pytest.fixture(scope="module")
def answers():
    return _load("sdk_answers")


def _runs(report) -> dict:
    return {h["id"]: report.load_results(h["id"]) for h in report.manifest()}


def test_the_stored_answers_are_of_the_current_corpus_and_pins_for_every_case(answers):
    assert answers.problems() == [], "run python scripts/sdk_answers.py write"


def test_the_stored_answers_are_of_the_corpus_of_the_harness_results(report):
    stored = report.sdk_answers()
    assert stored is not None
    assert {d["corpus_hash"] for d in _runs(report).values() if d} == {stored["corpus_hash"]}


def test_every_sdk_claim_of_a_finding_is_what_the_stored_answers_show_on_its_cases(report):
    triage = report.findings()
    assert report.sdk_disagreements(triage, _runs(report), report.sdk_answers()) == []


def test_the_report_knows_the_sdks_the_script_runs(report, answers):
    assert set(report.SDK_IDS) == set(answers.SDKS)


def test_the_python_answers_are_reproduced_by_running_the_sdks_again(answers):
    """The Python half of the file, run again here (a few seconds): an SDK or corpus change
    that the stored file does not have yet fails. The JavaScript half runs with node
    (python scripts/sdk_answers.py write)."""
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    stored = answers.load()
    have = answers.installed()
    pins = answers.pins()
    sdks = [s for s, spec in answers.SDKS.items() if spec["language"] == "python"]
    if any(have[s] != pins[s] for s in sdks):
        pytest.skip("the installed Python SDKs are not the pinned ones")
    _, selected = answers.cases()
    differ = []
    for case in selected:
        sdk = next(s for s in sdks if case.format in answers.SDKS[s]["formats"])
        got = answers.python_answer(case)
        if got != stored["answers"][case.id][sdk]:
            differ.append(f"{case.id} ({sdk}): stored {stored['answers'][case.id][sdk]}, now {got}")
    assert not differ, "\n".join(differ[:10])


def test_the_file_is_sorted_one_case_a_line(answers):
    text = answers.ANSWERS.read_text(encoding="utf-8")
    assert text == answers.dump(json.loads(text))


# -- the claims, on made-up answers -----------------------------------------------------------
STORED = {
    "corpus_hash": "sha256:x",
    "sdks": {"openai-python": {"package": "openai", "version": "3.57.0", "language": "python", "formats": ["c"]},
             "openai-node": {"package": "openai", "version": "7.59.0", "language": "javascript", "formats": ["c"]}},
    "answers": {"c/a": {"openai-python": {"answer": "raises", "error": "TypeError: x"},
                        "openai-node": {"answer": "folds", "equals": None}},
                "c/b": {"openai-python": {"answer": "raises", "error": "TypeError: y"},
                        "openai-node": {"answer": "folds", "equals": False}}},
}
RUNS = {"h1": {"corpus_hash": "sha256:x", "items": [
    {"id": "DONE-003", "case": "c/a", "outcome": "failed", "level": "should", "class": "s", "finding": "f"},
    {"id": "DONE-003", "case": "c/b", "outcome": "failed", "level": "should", "class": "s", "finding": "f"},
]}}


@pytest.mark.parametrize(("claims", "wrong"), [
    ([{"claim": "refuses", "sdks": ["openai-python"]}, {"claim": "accepts", "sdks": ["openai-node"]}], 0),
    ([{"claim": "accepts", "sdks": ["openai-python"]}], 1),
    ([{"claim": "refuses", "sdks": ["openai-python", "openai-node"]}], 1),
    ([{"claim": "differs", "sdks": ["openai-node"]}], 1),
    ([{"claim": "differs", "sdks": ["openai-node"], "cases": ["c/b"]}], 0),
    ([{"claim": "matches", "sdks": ["openai-node"], "cases": ["c/b"]}], 1),
    ([{"claim": "unmeasured", "sdks": ["openai-node"], "why": "a derived stream"}], 0),
])
def test_a_claim_the_stored_answers_contradict_is_named(report, claims, wrong):
    finding = {"id": "f", "harnesses": ["h1"], "what": "w", "class": "s", "sdk": claims}
    found = report.sdk_disagreements([finding], RUNS, STORED)
    assert len(found) == wrong, found


def test_answers_of_another_corpus_are_named(report):
    found = report.sdk_disagreements([], RUNS, {**STORED, "corpus_hash": "sha256:y"})
    assert len(found) == 1 and "run python scripts/sdk_answers.py write" in found[0]


def test_the_sentence_names_which_sdk_gave_which_answer_with_counts(report):
    finding = {"id": "f", "sdk": [{"claim": "refuses", "sdks": ["openai-python"]},
                                  {"claim": "accepts", "sdks": ["openai-node"]}]}
    text = report.sdk_sentence(finding, ["c/a", "c/b"], STORED)
    assert "openai 3.57.0 (Python) raises on 2 of 2 cases" in text
    assert ("openai 7.59.0 (JavaScript) folds into another message on 1 and reads without an error on 1 of 2 cases"
            in text)
    assert report.sdk_sentence({"id": "g"}, ["c/a"], STORED) == ""
    tally = report.sdk_tally("openai-node", ["c/a", "c/b", "d/x"], STORED)
    assert tally == Counter(folds=1, other=1)  # d/x is of no format of the SDK's


@pytest.mark.parametrize(("finding", "problem"), [
    ({"class": "s"}, "an (s) finding: needs `sdk"),
    ({"what": "the library reads it, as both official SDKs' accumulators read it"}, "says what an official SDK does"),
    ({"what": "the official SDK accumulator accepts them"}, "says what an official SDK does"),
    ({"sdk": {"claim": "keeps", "sdks": ["openai-python"]}}, "claim must be one of"),
    ({"sdk": {"claim": "accepts", "sdks": ["openai-ruby"]}}, "sdks must be a non-empty list"),
    ({"sdk": {"claim": "unmeasured", "sdks": ["openai-python"]}}, "an unmeasured claim needs `why`"),
    ({"sdk": {"claim": "accepts", "sdks": ["openai-python"], "case": ["x"]}}, "unknown key(s) case"),
])
def test_the_sdk_key_is_required_and_well_formed(report, finding, problem):
    base = {"id": "f", "harnesses": ["h1"], "what": "the library drops a field", "class": "b",
            "loses": "nothing: the suite's choice"}
    assert report.validate_findings([base], {"h1"}) == []
    problems = report.validate_findings([{**base, **finding}], {"h1"})
    assert any(problem in p for p in problems), problems
