"""StreamFacts: event types, keys, completion signals and coverage, from descriptors and schemas alone."""

from __future__ import annotations

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.corpus_tools.schemas import load_schema
from mcs_conformance.corpus_tools.schema_places import SchemaView
from mcs_conformance.corpus_tools.drift_facts import MAX_DEPTH, FormatFacts, StreamFacts, keys_of

CORPUS = load_corpus()


def facts(fmt: str) -> FormatFacts:
    return FormatFacts(fmt, CORPUS.descriptors[fmt], (f"{fmt}.chunk.schema.json", load_schema(f"{fmt}.chunk")),
                       (f"{fmt}.message.schema.json", load_schema(f"{fmt}.message")))


def test_event_types_come_from_the_switch_the_schemas_use() -> None:
    anthropic, chat, text = facts("anthropic-messages"), facts("openai-chat"), facts("text-json")
    assert anthropic.switches == ["type"] and chat.switches == []
    assert anthropic.kind({"type": "ping"}) == "ping" and anthropic.kind({"index": 0}) == "chunk"
    assert chat.kind({"choices": []}) == "chunk" and chat.kind("[DONE]") == "[DONE]"
    assert text.kind("[DONE]") == "(string)"  # a text wire's chunks are all text
    assert anthropic.kind(5) == "(number)"


def test_free_form_objects_and_echoed_json_schemas_are_not_listed() -> None:
    f = facts("openai-responses")
    created = {"type": "response.created", "response": {
        "id": "r", "object": "response", "output": [], "usage": {"input_tokens": 1},
        "tools": [{"type": "function", "name": "w", "parameters": {
            "type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}]}}
    paths = {p for p, _, _ in keys_of(created, f.chunks.places(created), f.switches)}
    assert "response.tools[]<function>.parameters<object>.properties" in paths
    assert not any("location" in p for p in paths)  # a property name of the request's tool is data
    message = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"city": "P"}}]}
    view = SchemaView(load_schema("anthropic-messages.message"))
    paths = {p for p, _, _ in keys_of(message, view.places(message), ["type"])}
    assert "content[]<tool_use>.input" in paths and "content[]<tool_use>.input.city" not in paths


def test_keys_stop_at_the_depth_limit() -> None:
    deep: dict = {}
    node = deep
    for i in range(MAX_DEPTH + 3):
        node[f"k{i}"] = {}
        node = node[f"k{i}"]
    paths = [p for p, _, _ in keys_of(deep, {}, [])]
    assert len(paths) == MAX_DEPTH and paths[-1].count(".") == MAX_DEPTH - 1


def test_a_stream_of_the_corpus_in_descriptor_terms() -> None:
    case = CORPUS.case("anthropic-messages/tool-use-response")
    sf = StreamFacts(facts("anthropic-messages"))
    sf.add(case.id, case.chunks, case.expect["message"])
    assert set(sf.types) == {"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                             "message_delta", "message_stop", "ping"}
    assert list(sf.signals) == ["message_stop, last"]
    assert ("content_block_start", "content_block<tool_use>.name") in sf.keys
    assert sf.keys[("content_block_delta", "delta<input_json_delta>.partial_json")].types == {"string"}
    assert ("", "content[]<tool_use>.input") in sf.message_keys
    assert sf.gaps == {}  # every event type is named by the schema or the descriptor (ping: noise)


def test_deferred_validation_finds_the_same_gaps() -> None:
    case = CORPUS.case("anthropic-messages/syn-malformed-delta-index-text")
    eager, lazy = StreamFacts(facts("anthropic-messages")), StreamFacts(facts("anthropic-messages"))
    eager.add(case.id, case.chunks)
    lazy.add(case.id, case.chunks, validate=False)
    assert eager.gaps and not lazy.gaps
    lazy.validate(set(lazy.types))
    assert lazy.gaps.keys() == eager.gaps.keys()
