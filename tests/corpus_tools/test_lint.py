"""The descriptor lint: a misspelled path is named by field, descriptor and case; the bundled
corpus and the examples' corpora lint clean."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcs_conformance.corpus_tools.corpus import Descriptor, load_corpus
from mcs_conformance.corpus_tools.lint import lint_corpus, lint_descriptor
from mcs_conformance.corpus_tools.schemas import load_schema
from tests.helpers.limits import HANG

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def _lint(corpus, fmt: str, change) -> list:
    d = corpus.descriptors[fmt]
    data = copy.deepcopy(d.data)
    change(data)
    return lint_descriptor(Descriptor(fmt, data, d.source), corpus.for_format(fmt), load_schema(f"{fmt}.history.schema.json"))


@pytest.mark.parametrize("dirs", [[], ["examples/hermes/corpus"], ["examples/ollama/corpus"]])
def test_the_bundled_corpus_and_the_examples_lint_clean(dirs: list[str]) -> None:
    findings = lint_corpus(load_corpus([ROOT / d for d in dirs]))
    assert findings == [], "\n".join(map(str, findings))


def test_a_misspelled_replay_message_path_is_named(corpus) -> None:
    def typo(data):
        data["history"]["replay"][0]["message"][-1] = "signatur"

    findings = _lint(corpus, "anthropic-messages", typo)
    assert [f.field for f in findings] == ["history.replay[0].message"]
    text = str(findings[0])
    assert "anthropic-messages" in text and "signatur" in text and "anthropic-messages.json" in text
    assert findings[0].cases and all(c.startswith("anthropic-messages/") for c in findings[0].cases)


@pytest.mark.parametrize("fmt, change, field", [
    ("openai-chat", lambda d: d["deltas"][2]["path"].__setitem__(4, "functon"), "deltas[2].path"),
    ("anthropic-messages", lambda d: d["routing"][0]["keys"].__setitem__(1, "indx"), "routing[0].keys"),
    ("openai-chat", lambda d: d["cut"][0]["set"][0]["path"].__setitem__(2, "finish"), "cut[0].set[0].path"),
    ("anthropic-messages", lambda d: d["splice"]["unique"][0].__setitem__(0, "content_blok"), "splice.unique[0]"),
    ("openai-chat", lambda d: d["last_value_wins"][0]["at"].append("usge"), "last_value_wins[0].at"),
])
def test_a_misspelled_chunk_path_is_named(corpus, fmt, change, field) -> None:
    findings = _lint(corpus, fmt, change)
    assert [f.field for f in findings] == [field], findings
    assert findings[0].format == fmt and findings[0].cases


def test_a_where_value_outside_the_history_schemas_enum_is_named(corpus) -> None:
    findings = _lint(corpus, "anthropic-messages",
                     lambda d: d["history"]["call_ids"][0]["where"].__setitem__("role", "asistant"))
    assert [f.field for f in findings] == ["history.call_ids"], findings
    assert "history schema" in str(findings[0]) and "'asistant'" in str(findings[0])


def test_a_key_a_strict_history_schema_forbids_is_named() -> None:
    # the Ollama example's history schema lists every key (additionalProperties: false)
    corpus = load_corpus([ROOT / "examples" / "ollama" / "corpus"])
    d = corpus.descriptors["ollama"]
    data = copy.deepcopy(d.data)
    data["history"]["replay"][0]["history"][-1] = "thinkin"
    findings = lint_descriptor(Descriptor("ollama", data, d.source), corpus.for_format("ollama"),
                               corpus.history_schemas["ollama"])
    assert [f.field for f in findings] == ["history.replay[0].history"], findings
    assert "'thinkin'" in str(findings[0])


def test_a_permissive_history_schema_concludes_nothing(corpus) -> None:
    # the bundled schemas allow keys they do not list: a history path is not ruled out by them
    findings = _lint(corpus, "openai-chat", lambda d: d["history"]["result_ids"].__setitem__(1, "tool_call_idx"))
    assert findings == []


def test_an_optional_key_absent_from_most_cases_is_no_finding(corpus) -> None:
    # the refusal delta and the thinking signature are in a few cases only: that is normal
    with_refusal = [c for c in corpus.for_format("openai-chat") if c.chunks and "refusal" in json.dumps(c.chunks)]
    assert 0 < len(with_refusal) < len(corpus.for_format("openai-chat"))
    assert _lint(corpus, "openai-chat", lambda d: None) == []


def test_a_stream_of_the_wrong_chunk_kind_cannot_be_routed(corpus) -> None:
    d = corpus.descriptors["text-json"]
    data = {**copy.deepcopy(d.data), "chunk_kind": "object", "deltas": [{"path": ["text"]}]}
    findings = lint_descriptor(Descriptor("text-json", data, d.source), corpus.for_format("text-json"))
    routed = [f for f in findings if f.field == "chunk_kind"]
    assert routed and all(len(f.cases) == 1 for f in routed)
    assert "cannot route" in str(routed[0])


def test_corpus_validate_warns_of_a_path_that_selects_nothing_and_strict_exits_1(tmp_path: Path) -> None:
    src = ROOT / "examples" / "ollama" / "corpus"
    folder = tmp_path / "corpus"
    for path in src.rglob("*.json"):
        target = folder / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    descriptor = folder / "descriptors" / "ollama.json"
    data = json.loads(descriptor.read_text())
    data["history"]["replay"][0]["message"] = ["thinkng"]
    descriptor.write_text(json.dumps(data))
    command = [sys.executable, "-m", "mcs_conformance.cli", "corpus", "validate", str(folder), "--with-bundled"]
    r = subprocess.run(command, capture_output=True, text=True, timeout=HANG)
    assert r.returncode == 0, r.stdout + r.stderr  # a path that selects nothing is a warning
    assert "warning: " in r.stderr and "history.replay[0].message" in r.stderr and "'ollama'" in r.stderr
    assert "thinkng" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run(command + ["--strict"], capture_output=True, text=True, timeout=HANG)
    assert r.returncode == 1 and "(--strict)" in r.stderr, r.stdout + r.stderr
