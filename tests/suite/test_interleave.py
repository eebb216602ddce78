"""INTERLEAVE-001 and the interleaved streams it judges (mcs_conformance/suite/interleaving.py).

The derivation keeps every chunk and each call's own order, and moves only the two calls'
chunks; the official SDK accumulators fold every interleaved stream of the bundled formats to
the message they fold the recorded stream to, and hold the same live message before the
completion (so the derived streams mean what the recorded ones mean); the reference strategies pass every item; a strategy that joins a fragment to the
call opened last (the zoo's position-joining copies) folds every recorded stream of its
format as the reference does, and INTERLEAVE-001 tells it apart. The derivation knows no
format: an author's wire gets it from its descriptor, a text wire gets none.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from typing import Any

import pytest

from mcs_conformance import Accumulator, ToolCall
from mcs_conformance.corpus_tools.corpus import Case, Corpus, Descriptor, load_corpus
from mcs_conformance.corpus_tools.oracles import oracle_module
from mcs_conformance.strategies import (
    AnthropicMessagesStrategy,
    BedrockStrategy,
    CohereStrategy,
    OpenAIChatStrategy,
    OpenAIResponsesStrategy,
)
from mcs_conformance.suite.derive import from_public_source, parts
from mcs_conformance.suite.interleaving import chunk_key, groups, interleaved, pairs
from mcs_conformance.suite.invariants import CHECKS, Failure, Subject
from mcs_conformance.suite.invariants.base import outcome
from tests.zoo import broken
from tests.zoo.formats import bedrock as bedrock_zoo
from tests.zoo.formats import cohere as cohere_zoo

CORPUS = load_corpus()
CHECK = CHECKS["INTERLEAVE-001"]
REFERENCES = {
    "openai-chat": OpenAIChatStrategy,
    "openai-responses": OpenAIResponsesStrategy,
    "anthropic-messages": AnthropicMessagesStrategy,
}
# the zoo's one-bug copies that join a fragment to the call or block opened last (BUG-CLASSES 1)
BY_POSITION = {
    "openai-chat": broken.ChatAppendsToLatestCall,
    "openai-responses": broken.ResponsesAppendsToLatestItem,
    "anthropic-messages": broken.AnthropicAppendsToLatestBlock,
}
# the native formats beside the default chain whose descriptors have `interleave` (no SDK folds
# their streams: the reference and its position-joining zoo copy only)
BESIDE = {"bedrock": BedrockStrategy, "cohere": CohereStrategy}
BESIDE_BY_POSITION = {"bedrock": bedrock_zoo.JoinsFragmentsByArrival, "cohere": cohere_zoo.FragmentsToLastCall}


def _items(fmt: str, strategy: Any = None) -> list[Case]:
    subject = Subject((strategy or {**REFERENCES, **BESIDE}[fmt])(), CORPUS)
    return [c for c in CORPUS.cases if CHECK.applies(subject, c)]


def _streams(fmt: str) -> list[tuple[Case, list[Any]]]:
    d = CORPUS.descriptors[fmt]
    return [(c, s) for c in CORPUS.cases if c.format == fmt and c.is_stream and c.chunks
            for s in interleaved(c.chunks, d)]


def _renumbered(fmt: str) -> list[list[Any]]:
    return (CORPUS.descriptors[fmt].data.get("interleave") or {}).get("renumber", [])


def _without(chunk: Any, patterns: list[list[Any]]) -> str:
    """The chunk as text, with the counters a renumbering may change taken out."""
    if not patterns or not isinstance(chunk, dict):
        return json.dumps(chunk, sort_keys=True)
    chunk = dict(chunk)
    for pattern in patterns:
        if len(pattern) == 1:
            chunk.pop(pattern[0], None)
    return json.dumps(chunk, sort_keys=True)


# -------------------------------------------------------------------------- the derivation


@pytest.mark.parametrize("fmt", REFERENCES)
def test_every_chunk_is_kept_and_each_call_keeps_its_order(fmt: str) -> None:
    d = CORPUS.descriptors[fmt]
    made = _streams(fmt)
    assert made, f"no interleaved stream for {fmt}"
    for case, stream in made:
        source = case.chunks
        renumber = _renumbered(fmt)
        assert len(stream) == len(source)
        assert Counter(_without(c, renumber) for c in stream) == Counter(_without(c, renumber) for c in source)
        # each call's own chunks, in its own order; the calls open in the same order
        assert [(k, [_without(source[i], renumber) for i in pos]) for k, pos in groups(source, d)] == \
            [(k, [_without(stream[i], renumber) for i in pos]) for k, pos in groups(stream, d)]
        # head, completion and every chunk of no call stay where they were
        h, c = parts(source, d)
        same = [_without(x, renumber) == _without(y, renumber) for x, y in zip(stream, source)]
        assert all(same[:h]) and all(same[c:]), case.id
        for i, chunk in enumerate(source):
            if h <= i < c and chunk_key(chunk, d) is None:
                assert _without(stream[i], renumber) == _without(chunk, renumber), (case.id, i)
        assert list(stream) != list(source) and stream.recipe and stream.level == "must"


def test_counters_keep_counting_up() -> None:
    for case, stream in _streams("openai-responses"):
        numbers = [c["sequence_number"] for c in stream if isinstance(c, dict) and "sequence_number" in c]
        assert numbers == sorted(numbers), case.id


def test_a_stream_without_two_calls_of_several_chunks_gives_none() -> None:
    d = CORPUS.descriptors["openai-chat"]
    one_call = CORPUS.case("openai-chat/tool-call-non-strict")
    assert len(groups(one_call.chunks, d)) == 1 and pairs(one_call.chunks, d) == [] and interleaved(one_call.chunks, d) == []
    assert not CHECK.applies(Subject(OpenAIChatStrategy(), CORPUS), one_call)
    assert "two calls or blocks" in CHECK.needs and "interleave" in CHECK.needs


@pytest.mark.parametrize("fmt", [f for f, d in CORPUS.descriptors.items() if d.chunk_kind == "string"])
def test_a_text_wire_gets_no_interleaving(fmt: str) -> None:
    d = CORPUS.descriptors[fmt]
    assert "interleave" not in d.data
    assert all(interleaved(c.chunks, d) == [] for c in CORPUS.for_format(fmt) if c.is_stream and c.chunks)


# -------------------------------------------------------------------------- the SDKs agree


@pytest.mark.parametrize("fmt", REFERENCES)
def test_the_sdk_folds_each_interleaved_stream_to_the_recorded_message(fmt: str) -> None:
    oracle = oracle_module(fmt)
    seen = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in _items(fmt):
            _, c = parts(case.chunks, CORPUS.descriptors[fmt])
            want, live = oracle.final_message(case.chunks), oracle.final_message(case.chunks[:c])
            for stream in interleaved(case.chunks, CORPUS.descriptors[fmt]):
                assert oracle.final_message(stream) == want, (case.id, stream.recipe)
                # and before the completion: the SDK's live message after the same chunks
                assert oracle.final_message(stream[:c]) == live, (case.id, stream.recipe)
                seen += 1
    assert seen >= 2


# -------------------------------------------------------------------------- the check


@pytest.mark.parametrize("fmt", [*REFERENCES, *BESIDE])
def test_the_reference_passes_every_item(fmt: str) -> None:
    subject = Subject({**REFERENCES, **BESIDE}[fmt](), CORPUS)
    items = _items(fmt)
    assert items and all(from_public_source(c) for c in items)
    for case in items:
        CHECK.run(subject, case.fresh())


@pytest.mark.parametrize("fmt", [*REFERENCES, *BESIDE])
def test_a_copy_that_joins_by_position_passes_the_recorded_streams_and_fails_an_interleaved_one(fmt: str) -> None:
    """On every recorded case of its format the copy folds the recorded stream to the
    reference's message, calls and done (the full suite, run on it without INTERLEAVE-001,
    fails no recorded case: docs/invariants.md); INTERLEAVE-001 fails it."""
    copies, references = {**BY_POSITION, **BESIDE_BY_POSITION}, {**REFERENCES, **BESIDE}
    bad, good = Subject(copies[fmt](), CORPUS), Subject(references[fmt](), CORPUS)
    recorded = [c for c in CORPUS.for_format(fmt) if c.is_stream and c.chunks and from_public_source(c)]
    for case in recorded:
        want, got = outcome(good, case.chunks, case), outcome(bad, case.chunks, case)
        assert {k: got.get(k) for k in ("message", "calls", "done", "error")} == \
            {k: want.get(k) for k in ("message", "calls", "done", "error")}, case.id
    failed = []
    for case in _items(fmt, copies[fmt]):
        try:
            CHECK.run(bad, case.fresh())
        except Failure as failure:
            assert failure.level is None and "interleave" in failure.detail
            failed.append(case.id)
    assert failed, f"INTERLEAVE-001 does not tell {copies[fmt].__name__} from the reference"


# -------------------------------------------------------------------------- an author's own wire


class _Blocks:
    """An author's wire: {"block": n, "start": name} opens block n, {"block": n, "args": piece}
    adds to it, {"end": true} ends the turn; the message is {"calls": {n: {name, args}}}."""

    name = "toy-blocks"
    leaks_into_text = False
    by_position = False

    def recognizes(self, shape: object) -> bool:
        return isinstance(shape, dict) and ("block" in shape or "end" in shape or "calls" in shape)

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        assert isinstance(chunk, dict)
        if acc.root is None:
            acc.root = {"calls": []}
            acc.state["at"] = {}
        calls = acc.root["calls"]
        if "start" in chunk:
            acc.state["at"][chunk["block"]] = len(calls)
            calls.append({"name": chunk["start"], "args": ""})
        elif "args" in chunk:
            at = len(calls) - 1 if self.by_position else acc.state["at"][chunk["block"]]
            acc.append(calls[at], "args", chunk["args"])
        return ""

    def is_done(self, chunk: object) -> bool:
        return isinstance(chunk, dict) and chunk.get("end") is True

    def extract(self, message: object) -> list[ToolCall]:
        return [self._call(c) for c in message["calls"]]  # type: ignore[index]

    @staticmethod
    def _call(entry: dict) -> ToolCall:
        try:
            return ToolCall(name=entry["name"], arguments=json.loads(entry["args"]))
        except ValueError as exc:
            return ToolCall(name=entry["name"], raw_arguments=entry["args"], error=str(exc))

    def content_text(self, message: object) -> str:
        return ""

    def forming_name(self, message: object) -> str | None:
        calls = message["calls"]  # type: ignore[index]
        return calls[0]["name"] if calls else None

    def result_messages(self, message: object, records: Any) -> list[Any]:
        return []


class _BlocksByPosition(_Blocks):
    by_position = True


_BLOCKS_DESCRIPTOR = {
    "format": "toy-blocks",
    "description": "An author's wire whose fragments name their block.",
    "chunk_kind": "object",
    "deltas": [{"path": ["args"], "description": "argument text"}],
    "routing": [{"at": [], "keys": ["block"]}],
    "terminal": [],
    "noise": [],
    "done": {"type": "object", "required": ["end"]},
    "roles": {"completion": {"type": "object", "required": ["end"]}},
    "interleave": {"by": [["block"]], "description": "a fragment adds to the block its block key names"},
}


def _blocks_corpus() -> Corpus:
    chunks = [{"block": 0, "start": "a"}, {"block": 0, "args": '{"x": '}, {"block": 0, "args": "1}"},
              {"block": 1, "start": "b"}, {"block": 1, "args": '{"y": '}, {"block": 1, "args": "2}"}, {"end": True}]
    case = Case(id="toy-blocks/two-calls", format="toy-blocks", description="two calls, one after the other",
                provenance={"kind": "recorded", "source": "an author's capture"}, tags=(),
                expect={"done": True, "calls": [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": 2}}]},
                source="", chunks=chunks)
    from mcs_conformance.corpus_tools.corpus import _validate

    _validate("descriptor.schema.json", _BLOCKS_DESCRIPTOR, "toy-blocks.json")
    return Corpus([case], {"toy-blocks": Descriptor("toy-blocks", _BLOCKS_DESCRIPTOR, "")}, {}, "0", "")


def test_an_authors_wire_is_interleaved_through_its_descriptor() -> None:
    corpus = _blocks_corpus()
    case = corpus.cases[0]
    good, bad = Subject(_Blocks(), corpus), Subject(_BlocksByPosition(), corpus)
    assert CHECK.applies(good, case) and CHECK.applies(bad, case)
    made = interleaved(case.chunks, corpus.descriptors["toy-blocks"])
    assert [[c.get("block") for c in s] for s in made] == [[0, 1, 0, 1, 0, 1, None], [0, 1, 1, 1, 0, 0, None]]
    CHECK.run(good, case.fresh())
    assert outcome(bad, case.chunks, case) == outcome(good, case.chunks, case)
    with pytest.raises(Failure):
        CHECK.run(bad, case.fresh())
    # without the field the check collects nothing
    data = {k: v for k, v in _BLOCKS_DESCRIPTOR.items() if k != "interleave"}
    corpus.descriptors["toy-blocks"] = Descriptor("toy-blocks", data, "")
    assert not CHECK.applies(good, case) and interleaved(case.chunks, corpus.descriptors["toy-blocks"]) == []


def test_descriptor_explain_says_which_calls_it_interleaves() -> None:
    from mcs_conformance.suite.explain import explain, render

    d = CORPUS.descriptors["anthropic-messages"]
    data = explain(d, CORPUS.case("anthropic-messages/tool-use-response"))
    assert [g["chunks"] for g in data["derived"]["interleave"]["groups"]] == [[1, 3, 4, 5], [6, 7, 8, 9, 10, 11, 12]]
    text = render(data)
    assert "INTERLEAVE-001 keys body chunks 1, 3-5 to $.index = 0" in text
    assert "INTERLEAVE-001: interleave (alternated)" in text
    one = render(explain(CORPUS.descriptors["openai-chat"], CORPUS.case("openai-chat/tool-call-non-strict")))
    assert "INTERLEAVE-001 derives nothing from this case" in one


def test_only_the_chunks_the_only_schema_matches_are_keyed() -> None:
    """Cohere numbers its content blocks and its calls apart: `interleave.only` keys the
    tool-call events alone, so a content block at index 0 never joins call 0's group."""
    d = CORPUS.descriptors["cohere"]
    case = CORPUS.case("cohere/cohere-tool-call")
    keyed = {i for _, positions in groups(case.chunks, d) for i in positions}
    assert keyed and all(case.chunks[i]["type"].startswith("tool-call-") for i in keyed)
    content = [c for c in CORPUS.for_format("cohere") if c.is_stream and c.chunks
               and any(ch.get("type") == "content-delta" for ch in c.chunks)]
    assert content and all(chunk_key(ch, d) is None for c in content for ch in c.chunks
                           if ch.get("type", "").startswith("content-"))
