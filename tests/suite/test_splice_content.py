"""A splice keeps what the first stream's completion chunk carries beside its end keys.

On Gemini the chunk with ``finishReason`` usually also carries the last text or a whole
``functionCall`` part; a splice that dropped the first stream's completion would drop them (a
one-call recording would lose its only call), and SPLICE-001 would fail a correct strategy.
These tests use the Gemini descriptor of docs/descriptors.md's worked example, Gemini-shaped
cases written here, and a small Gemini strategy written here (parts appended in order,
neighbouring text parts joined): what the SPLICE-001 rule expects is each case's own
``expect`` (hand-written), never the derivation's output. An OpenAI Chat finish chunk that
carries the last text is checked with the official SDK's accumulator.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mcs_conformance import Accumulator, MalformedChunk, ToolCall, ToolCallRecord
from mcs_conformance.corpus_tools.corpus import CorpusError, Descriptor, load_corpus
from mcs_conformance.corpus_tools.oracles import oracle_module
from mcs_conformance.reference.accumulator import copy_tree
from mcs_conformance.suite.derive import end_rules, kept_completion, splice
from mcs_conformance.suite.explain import explain, render
from mcs_conformance.suite.invariants import Failure
from mcs_conformance.suite.invariants.base import Subject
from mcs_conformance.suite.invariants.splice import judge_splice

from tests.suite.test_generators import GEMINI_CASE, GEMINI_DATA

BUNDLED = load_corpus()
_ENVELOPE = {"usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 9, "totalTokenCount": 29},
             "modelVersion": "gemini-2.5-flash"}


def _chunk(response: str, parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if finish:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    return {"candidates": [candidate], **copy.deepcopy(_ENVELOPE), "responseId": response}


def _case(name: str, chunks: list[dict[str, Any]], parts: list[dict[str, Any]], calls: list[dict[str, Any]],
          text: str) -> dict[str, Any]:
    """A case; ``parts`` are the parts of the assembled (stream=false) message."""
    message = _chunk(chunks[0]["responseId"], parts, "STOP")
    return {
        "id": f"gemini/{name}", "format": "gemini", "description": f"Gemini stream: {name}.",
        "provenance": {"kind": "synthetic", "source": "mcs-conformance", "license": "Apache-2.0",
                       "why": "a Gemini stream whose last chunk carries content, for the splice's own tests"},
        "tags": ["tool-call"], "chunks": chunks,
        "expect": {"message": message, "calls": [{**c, "id": None, "error": False} for c in calls], "content_text": text,
                   "done": True},
    }


WEATHER = {"name": "get_weather", "arguments": {"city": "Paris"}}
TIME = {"name": "get_time", "arguments": {"tz": "CET"}}
CASES = {
    # the only call rides in the chunk that ends the turn
    "one-call": _case("one-call", [_chunk("r1", [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
                                          "STOP")],
                      [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}], [WEATHER], ""),
    # the last text and a call ride in the chunk that ends the turn
    "call-after-text": _case("call-after-text", [
        _chunk("r2", [{"text": "Let me check"}]),
        _chunk("r2", [{"text": " the time."}, {"functionCall": {"name": "get_time", "args": {"tz": "CET"}}}], "STOP"),
    ], [{"text": "Let me check the time."}, {"functionCall": {"name": "get_time", "args": {"tz": "CET"}}}], [TIME],
        "Let me check the time."),
    # the last text rides in the chunk that ends the turn
    "text-only": _case("text-only", [_chunk("r3", [{"text": "It is"}]), _chunk("r3", [{"text": " sunny."}], "STOP")],
                       [{"text": "It is sunny."}], [], "It is sunny."),
    # docs/descriptors.md's worked example (gemini/text-then-call): the finish chunk carries only an empty text part
    "text-then-call": GEMINI_CASE,
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The worked example's descriptor and the cases above, loaded (and schema-validated) as an author corpus."""
    root = tmp_path_factory.mktemp("gemini-corpus")
    (root / "descriptors").mkdir()
    (root / "cases" / "gemini").mkdir(parents=True)
    (root / "descriptors" / "gemini.json").write_text(json.dumps(GEMINI_DATA), encoding="utf-8")
    for name, data in CASES.items():
        (root / "cases" / "gemini" / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return load_corpus([root], bundled=False)


class GeminiStrategy:
    """Gemini ``streamGenerateContent`` read as its documentation says: the parts of every
    chunk appended in order (a text part joined to the text part before it, an empty one
    skipped), the finish reason kept; the message is the ``stream=false`` response."""

    name = "gemini"
    leaks_into_text = False

    def recognizes(self, shape: object) -> bool:
        return isinstance(shape, dict) and isinstance(shape.get("candidates"), list)

    def is_done(self, chunk: object) -> bool:
        return self.recognizes(chunk) and any(isinstance(c, dict) and c.get("finishReason")
                                              for c in chunk["candidates"])  # type: ignore[index]

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if not self.recognizes(chunk):
            raise MalformedChunk("gemini: a chunk is an object with a candidates list")
        assert isinstance(chunk, dict)
        if "parts" not in acc.state:
            acc.state["parts"] = []
            acc.root = {"candidates": [{"content": {"parts": acc.state["parts"], "role": "model"}, "index": 0}]}
        message, parts, text = acc.root, acc.state["parts"], ""
        for key in ("usageMetadata", "modelVersion", "responseId"):
            if key in chunk:
                message[key] = copy_tree(chunk[key])
        for candidate in chunk["candidates"]:
            for part in (candidate.get("content") or {}).get("parts") or []:
                if part == {"text": ""}:
                    continue  # an empty text part adds nothing (the worked example's message has none)
                joins = (set(part) == {"text"} and parts and set(parts[-1]) == {"text"})
                if joins:
                    parts[-1]["text"] += part["text"]
                else:
                    parts.append(copy_tree(part))
                text += part.get("text", "") if not part.get("thought") else ""
            if candidate.get("finishReason"):
                message["candidates"][0]["finishReason"] = candidate["finishReason"]
        return text

    def _parts(self, message: object) -> list[dict[str, Any]]:
        try:
            return list(message["candidates"][0]["content"]["parts"])  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return []

    def extract(self, message: object) -> list[ToolCall]:
        return [ToolCall(name=p["functionCall"]["name"], arguments=copy_tree(p["functionCall"].get("args") or {}))
                for p in self._parts(message) if "functionCall" in p]

    def content_text(self, message: object) -> str:
        return "".join(p.get("text", "") for p in self._parts(message) if not p.get("thought"))

    def forming_name(self, message: object) -> str | None:
        calls = self.extract(message)
        return calls[0].name if calls else None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        turn = {"role": "model", "parts": self._parts(message)}
        answers = [{"functionResponse": {"name": r.call.name, "response": {"result": r.result}}} for r in records]
        return [turn, {"role": "user", "parts": answers}]


class LastCallOnly(GeminiStrategy):
    """A broken strategy: each functionCall part replaces the one before it."""

    def extract(self, message: object) -> list[ToolCall]:
        return super().extract(message)[-1:]


def _pairs(corpus: Any) -> list[tuple[Any, Any]]:
    cases = {c.id: c for c in corpus.cases}
    return [(cases[f"gemini/{a}"], cases[f"gemini/{b}"]) for a in CASES for b in CASES]


def test_the_strategy_written_here_reads_each_case_as_its_expectation(corpus: Any) -> None:
    from mcs_conformance import LLMStreamBuffer

    strategy = GeminiStrategy()
    for case in corpus.cases:
        buf = LLMStreamBuffer([strategy])
        for chunk in case.chunks:
            buf.feed(chunk)
        message = buf.as_dict()
        assert message == case.expect["message"], case.id
        assert [{"name": c.name, "arguments": c.arguments} for c in strategy.extract(message)] == \
            [{"name": c["name"], "arguments": c["arguments"]} for c in case.expect["calls"]]
        assert strategy.content_text(message) == case.expect["content_text"] and buf.done


def test_the_end_keys_default_to_the_terminal_keys_without_a_fill_value() -> None:
    gemini = Descriptor("gemini", GEMINI_DATA, "docs")
    # willContinue is terminal too, but its fill value marks a continuation, not the turn's end
    assert end_rules(gemini) == [{"at": ["candidates", "*"], "keys": ["finishReason", "finishMessage"]}]
    assert end_rules(BUNDLED.descriptors["openai-chat"]) == [{"at": ["choices", "*"], "keys": ["finish_reason"]}]
    assert end_rules(BUNDLED.descriptors["anthropic-messages"]) == []
    declared = Descriptor("gemini", {**GEMINI_DATA, "splice": {"end_keys": [{"at": [], "keys": ["done"]}]}}, "t")
    assert end_rules(declared) == [{"at": [], "keys": ["done"]}]


def test_a_completion_chunk_that_carries_a_call_is_kept_without_its_end_keys(corpus: Any) -> None:
    d = corpus.descriptors["gemini"]
    one = next(c for c in corpus.cases if c.id == "gemini/one-call")
    assert kept_completion(one.chunks, d) == [(0, ["finishReason"])]
    made = splice(one.chunks, one.chunks, d, names=("A", "B"))
    assert len(made.chunks) == 2
    first, second = made.chunks
    assert "finishReason" not in first["candidates"][0]
    assert first["candidates"][0]["content"]["parts"] == one.chunks[0]["candidates"][0]["content"]["parts"]
    assert second["candidates"][0]["finishReason"] == "STOP"
    assert [d.is_done_chunk(c) for c in made.chunks] == [False, True]
    assert "completion chunk 0 of A kept without its end keys (finishReason): it carries content beside them" \
        in made.chunks.recipe
    assert "finishReason" in one.chunks[0]["candidates"][0]  # the source is untouched


def test_a_completion_chunk_with_nothing_beside_its_end_keys_is_left_out(corpus: Any) -> None:
    d = corpus.descriptors["gemini"]
    example = next(c for c in corpus.cases if c.id == "gemini/text-then-call")  # the docs' worked example
    assert len(example.chunks) == 3 and kept_completion(example.chunks, d) == []
    made = splice(example.chunks, example.chunks, d)
    assert len(made.chunks) == 2 + 3 and sum(d.is_done_chunk(c) for c in made.chunks) == 1


def test_a_correct_strategy_passes_splice_001_on_every_pair(corpus: Any) -> None:
    subject = Subject(GeminiStrategy(), corpus)
    for first, second in _pairs(corpus):
        judge_splice(subject, first, second)  # raises the check's Failure on a wrong reading


def test_dropping_the_completion_chunk_would_fail_the_correct_strategy(corpus: Any) -> None:
    """The rule before end keys: the first stream's completion left out whole. The correct
    strategy then fails where that chunk carried content (the failure a Gemini author met)."""
    data = json.loads(json.dumps(GEMINI_DATA))
    data["splice"]["end_keys"] = []
    old = copy.copy(corpus)
    old.descriptors = {"gemini": Descriptor("gemini", data, "test")}
    subject = Subject(GeminiStrategy(), old)
    failed = []
    for first, second in _pairs(old):
        try:
            judge_splice(subject, first, second)
        except Failure as failure:
            failed.append((first.id, failure.summary))
    assert {f for f, _ in failed} == {"gemini/one-call", "gemini/call-after-text", "gemini/text-only"}
    assert any("calls are not the calls of both streams" in why for _, why in failed)


def test_splice_001_fails_a_strategy_that_keeps_only_the_last_call(corpus: Any) -> None:
    cases = {c.id: c for c in corpus.cases}
    with pytest.raises(Failure, match="calls are not the calls of both streams"):
        judge_splice(Subject(LastCallOnly(), corpus), cases["gemini/one-call"], cases["gemini/call-after-text"])


def test_an_openai_finish_chunk_that_carries_the_last_text_keeps_it_for_the_sdk() -> None:
    """Some compatible servers send the last text with finish_reason: the splice keeps the text,
    takes finish_reason out, and the official SDK reads both streams' text in order."""
    d = BUNDLED.descriptors["openai-chat"]
    calls = BUNDLED.case("openai-chat/groq-tool-call")
    text = copy.deepcopy(BUNDLED.case("openai-chat/text-only").chunks)
    at = next(i for i, c in enumerate(text) if isinstance(c, dict) and c["choices"] and c["choices"][0]["finish_reason"])
    text[at]["choices"][0]["delta"] = {"content": " And that is all."}
    assert kept_completion(text, d) == [(at, ["finish_reason"])]
    made = splice(text, calls.chunks, d)
    oracle = oracle_module("openai-chat")
    message = oracle.final_message(list(made.chunks))
    want = BUNDLED.case("openai-chat/text-only").expect["content_text"] + " And that is all."
    assert oracle.content_text(message).startswith(want)
    assert [c["name"] for c in oracle.calls(message)] == [c["name"] for c in calls.expect["calls"]]


def test_an_invalid_end_keys_entry_is_refused_by_the_schema(tmp_path: Path) -> None:
    data = json.loads(json.dumps(GEMINI_DATA))
    data["splice"]["end_keys"] = [{"at": ["candidates", "*"], "key": ["finishReason"]}]
    (tmp_path / "descriptors").mkdir()
    (tmp_path / "descriptors" / "gemini.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CorpusError, match=r"splice\.end_keys"):
        load_corpus([tmp_path], bundled=False)


def test_explain_says_which_completion_chunks_a_splice_keeps(corpus: Any) -> None:
    d = corpus.descriptors["gemini"]
    cases = {c.id: c for c in corpus.cases}
    kept = explain(d, cases["gemini/call-after-text"])["derived"]
    assert kept["splice_kept"] == [{"chunk": 1, "without": ["finishReason"]}]
    assert kept["end_keys"] == [{"at": "$.candidates[*]", "keys": ["finishReason", "finishMessage"]}]
    assert ("as the first turn, completion chunk 1 stays without finishReason: it carries content beside them"
            in render(explain(d, cases["gemini/call-after-text"])))
    assert ("as the first turn, completion chunk 2 is left out: nothing beside the end keys "
            "($.candidates[*].finishReason, $.candidates[*].finishMessage)") in render(explain(d, cases["gemini/text-then-call"]))


def test_the_lint_reads_declared_end_keys_as_node_rules(corpus: Any) -> None:
    from mcs_conformance.corpus_tools.lint import lint_descriptor

    def findings(end_keys: list[dict[str, Any]]) -> list[Any]:
        data = json.loads(json.dumps(GEMINI_DATA))
        data["splice"]["end_keys"] = end_keys
        return [f for f in lint_descriptor(Descriptor("gemini", data, "test"), corpus.cases)
                if "end_keys" in f.field]

    assert findings([{"at": ["candidates", "*"], "keys": ["finishReason"]}]) == []
    wrong = findings([{"at": ["candidates", "*"], "keys": ["finish_reason"]}])
    assert [f.field for f in wrong] == ["splice.end_keys[0].keys"] and "finish_reason" in wrong[0].problem
