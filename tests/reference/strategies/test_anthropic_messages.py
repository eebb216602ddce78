"""anthropic-messages: the reference strategy against the SDK's own accumulator and recorded streams."""

from __future__ import annotations

import copy
import json

import jiter
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.buffer import LLMStreamBuffer
from mcs_conformance.corpus_tools.capture import split_at
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.reference.errors import MalformedChunk, StreamError
from mcs_conformance.suite.generators import char_split
from mcs_conformance.corpus_tools.oracles.anthropic_messages import final_message
from mcs_conformance.reference.protocol import ToolCall, ToolCallRecord
from mcs_conformance.reference.strategies.anthropic_messages import AnthropicMessagesStrategy
from mcs_conformance.reference.strategies.anthropic_messages import chunks as anthropic_chunks
from mcs_conformance.reference.strategies.anthropic_messages import strategy as anthropic_strategy
from mcs_conformance.reference.strategies.anthropic_messages.chunks import _json_bytes
from tests.helpers import realdata

NEGATIVE = ("duplicate-message-start", "spliced-message-start")
TRUNCATED = "anthropic-sdk-python/sse/incomplete_partial_json_response.sse"
THINKING = "vercel-ai/anthropic/anthropic-clear-thinking.1.chunks.jsonl"


def _recordings() -> dict[str, list]:
    """Every recorded Anthropic stream that is a single complete message, by a readable id."""
    out: dict[str, list] = {}
    for rel in realdata.files("anthropic-sdk-python/sse", ".sse"):
        out[rel] = realdata.payloads(rel)
    for rel in realdata.files("anthropic-sdk-python/cassettes", ".json"):
        for n, stream in enumerate(realdata.cassette_streams(rel)):
            out[f"{rel}[{n}]"] = stream
    for rel in realdata.files("vercel-ai/anthropic", ".chunks.jsonl"):
        if any(neg in rel for neg in NEGATIVE):
            continue
        for n, part in enumerate(split_at(realdata.payloads(rel), {"message_start"})):
            out[f"{rel}[{n}]"] = part
    return out


RECORDINGS = _recordings()
IDS = sorted(RECORDINGS)


def _feed(payloads: list) -> LLMStreamBuffer:
    buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
    for p in payloads:
        buf.feed(p)
    return buf


def _sdk_events(payloads: list) -> list:
    from anthropic._models import construct_type
    from anthropic.types.beta import BetaRawMessageStreamEvent

    return [construct_type(type_=BetaRawMessageStreamEvent, value=p) for p in payloads if isinstance(p, dict)]


def _expected(rel: str, payloads: list):
    """The SDK's message: for every recording, the truncated one included, parity is exact."""
    return final_message(payloads)


# -- PARITY, DISPLAY, DONE ---------------------------------------------------------------
def test_recordings_found() -> None:
    assert len(RECORDINGS) >= 25
    assert TRUNCATED in RECORDINGS


@pytest.mark.parametrize("rel", IDS)
def test_parity_with_sdk_accumulator(rel: str) -> None:
    payloads = RECORDINGS[rel]
    buf = _feed(payloads)
    assert buf.as_dict() == _expected(rel, payloads)


@pytest.mark.parametrize("rel", IDS)
def test_parity_with_sdk_event_objects(rel: str) -> None:
    payloads = RECORDINGS[rel]
    buf = _feed(_sdk_events(payloads))
    assert buf.as_dict() == _expected(rel, payloads)


@pytest.mark.parametrize("rel", IDS)
def test_parity_on_every_prefix(rel: str) -> None:
    """Mid-stream reads match the SDK's snapshot too, open tool inputs shown as partial parses."""
    payloads = RECORDINGS[rel]
    buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
    for n, p in enumerate(payloads, 1):
        buf.feed(p)
        assert buf.as_dict() == final_message(payloads[:n]), f"after payload {n}"


def test_truncated_recording_keeps_the_sdk_partial_input_but_no_executable_call() -> None:
    """The block never ends: its input is the SDK's partial parse, and extract refuses it."""
    payloads = RECORDINGS[TRUNCATED]
    message = _feed(payloads).as_dict()
    assert message["stop_reason"] == "max_tokens"
    assert message["content"][1]["input"]["filename"] == "taxes.txt"
    assert [c.executable for c in AnthropicMessagesStrategy().extract(message)] == [False]


@pytest.mark.parametrize("rel", IDS)
def test_display_text_and_done(rel: str) -> None:
    payloads = RECORDINGS[rel]
    buf = _feed(payloads)
    strategy = AnthropicMessagesStrategy()
    assert buf.display_text == strategy.content_text(buf.as_dict())
    assert buf.done is True
    cut = [p for p in payloads if not (isinstance(p, dict) and p.get("type") == "message_stop")]
    assert _feed(cut).done is False


@pytest.mark.parametrize("rel", IDS)
def test_no_prefix_executes_a_different_call(rel: str) -> None:
    payloads = RECORDINGS[rel]
    strategy = AnthropicMessagesStrategy()
    final = [c for c in strategy.extract(_feed(payloads).as_dict())]
    buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
    for p in payloads:
        buf.feed(p)
        for n, call in enumerate(strategy.extract(buf.as_dict())):
            if call.executable:
                assert n < len(final) and call == final[n]


@pytest.mark.parametrize("rel", IDS)
def test_the_assembled_message_is_claimed_and_json_safe(rel: str) -> None:
    message = _feed(RECORDINGS[rel]).as_dict()
    assert AnthropicMessagesStrategy().recognizes(message)
    assert json.loads(json.dumps(message)) == message


@pytest.mark.parametrize("rel", IDS)
def test_inputs_not_mutated(rel: str) -> None:
    payloads = RECORDINGS[rel]
    before = copy.deepcopy(payloads)
    buf = _feed(payloads)
    buf.as_dict()
    assert payloads == before


# -- facts read from the recordings --------------------------------------------------------
def test_tool_use_response_call() -> None:
    message = _feed(RECORDINGS["anthropic-sdk-python/sse/tool_use_response.sse"]).as_dict()
    calls = AnthropicMessagesStrategy().extract(message)
    assert [(c.name, c.arguments, c.id, c.error) for c in calls] == [
        ("get_weather", {"location": "Paris"}, "toolu_01NRLabsLyVHZPKxbKvkfSMn", None)
    ]
    assert AnthropicMessagesStrategy().forming_name(message) == "get_weather"
    assert AnthropicMessagesStrategy().content_text(message) == "I'll check the current weather in Paris for you."


def test_tool_without_arguments_gives_empty_object() -> None:
    message = _feed(RECORDINGS["vercel-ai/anthropic/anthropic-tool-no-args.chunks.jsonl[0]"]).as_dict()
    calls = AnthropicMessagesStrategy().extract(message)
    assert [(c.name, c.arguments, c.id, c.error) for c in calls] == [
        ("updateIssueList", {}, "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", None)
    ]


def test_server_tool_use_is_not_a_call() -> None:
    message = _feed(RECORDINGS["vercel-ai/anthropic/anthropic-web-search-tool.1.chunks.jsonl[0]"]).as_dict()
    assert any(b["type"] == "server_tool_use" for b in message["content"])
    assert AnthropicMessagesStrategy().extract(message) == []
    assert AnthropicMessagesStrategy().forming_name(message) is None


def test_thinking_signature_survives_and_is_replayed() -> None:
    payloads = RECORDINGS[f"{THINKING}[0]"]
    signature = next(
        p["delta"]["signature"]
        for p in payloads
        if p.get("type") == "content_block_delta" and p["delta"]["type"] == "signature_delta"
    )
    message = _feed(payloads).as_dict()
    assert message["content"][0]["signature"] == signature
    assistant = AnthropicMessagesStrategy().result_messages(message, [])[0]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0]["type"] == "thinking"
    assert assistant["content"][0]["signature"] == signature
    assert assistant["content"][0]["thinking"].startswith("The previous result was 925.")


def test_later_empty_signature_delta_keeps_the_signature() -> None:
    events = [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig-1"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": ""}},
        {"type": "content_block_stop", "index": 0},
    ]
    assert _feed(events).as_dict()["content"][0]["signature"] == "sig-1"


def test_pings_do_not_matter() -> None:
    for rel in ("vercel-ai/anthropic/anthropic-json-tool.2.chunks.jsonl[0]", "anthropic-sdk-python/sse/basic_response.sse"):
        payloads = RECORDINGS[rel]
        assert any(p.get("type") == "ping" for p in payloads)
        without = [p for p in payloads if p.get("type") != "ping"]
        assert _feed(without).as_dict() == _feed(payloads).as_dict()
        pinged = [q for p in payloads for q in (p, {"type": "ping"})]
        assert _feed([{"type": "ping"}] + pinged + ["[DONE]"]).as_dict() == _feed(payloads).as_dict()


def test_truncated_stream_is_not_executable_at_any_point() -> None:
    payloads = RECORDINGS[TRUNCATED]
    strategy = AnthropicMessagesStrategy()
    buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
    for p in payloads:
        buf.feed(p)
        assert not any(c.executable for c in strategy.extract(buf.as_dict()))
    calls = strategy.extract(buf.as_dict())
    assert [(c.name, c.id) for c in calls] == [("make_file", "toolu_01EKqbqmZrGRXy18eN7m9kvY")]
    assert calls[0].error == "truncated by max_tokens"


def test_error_event_raises_stream_error_with_payload() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
    buf.feed(_start())
    with pytest.raises(StreamError) as info:
        buf.feed(error)
    assert info.value.payload == error
    assert "overloaded_error" in str(info.value)
    assert buf.done is False


@pytest.mark.parametrize("name", NEGATIVE)
def test_restarted_stream_raises(name: str) -> None:
    payloads = realdata.payloads(f"vercel-ai/anthropic/{name}.chunks.jsonl")
    buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
    with pytest.raises(StreamError) as info:
        for p in payloads:
            buf.feed(p)
    assert info.value.payload["type"] == "message_start"
    assert not any(c.executable for c in AnthropicMessagesStrategy().extract(buf.as_dict()))


# -- quirks by hand ------------------------------------------------------------------------
def _start(msg_id: str = "msg_x") -> dict:
    return {
        "type": "message_start",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        },
    }


def _tool_start(index: int, call_id: str, name: str) -> dict:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


def _json(index: int, piece: str) -> dict:
    return {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}


def _stop(index: int) -> dict:
    return {"type": "content_block_stop", "index": index}


def _one_tool(text: str, call_id: str = "toolu_1") -> list[dict]:
    """A whole stream: one tool_use block whose input arrives as ``text``."""
    return [_start(), _tool_start(0, call_id, "f"), _json(0, text), _stop(0), *_end()]


def _end(stop_reason: str = "tool_use") -> list[dict]:
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    return [
        {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]


def test_parallel_tool_use_blocks_with_interleaved_deltas() -> None:
    events = [
        _start(),
        _tool_start(0, "toolu_a", "get_weather"),
        _tool_start(1, "toolu_b", "get_time"),
        _json(0, '{"city'),
        _json(1, '{"zone'),
        _json(0, '": "Paris"}'),
        _json(1, '": "CET"}'),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_stop", "index": 0},
        *_end(),
    ]
    message = _feed(events).as_dict()
    assert message == final_message(events)
    calls = AnthropicMessagesStrategy().extract(message)
    assert [(c.name, c.arguments, c.id, c.error) for c in calls] == [
        ("get_weather", {"city": "Paris"}, "toolu_a", None),
        ("get_time", {"zone": "CET"}, "toolu_b", None),
    ]


def test_surrogate_escape_split_across_pieces() -> None:
    text = '{"face": "\\uD83D\\uDE00"}'
    for cut in range(1, len(text)):
        events = [_start(), _tool_start(0, "toolu_e", "emote"), _json(0, text[:cut]), _json(0, text[cut:])]
        events += [{"type": "content_block_stop", "index": 0}, *_end()]
        message = _feed(events).as_dict()
        assert message["content"][0]["input"] == {"face": "\U0001F600"}
        assert message == final_message(events)


def test_start_input_is_not_a_prefix_of_the_text() -> None:
    events = _one_tool('{"a": 1}')
    calls = AnthropicMessagesStrategy().extract(_feed(events).as_dict())
    assert [(c.arguments, c.error) for c in calls] == [({"a": 1}, None)]


def test_each_fragment_is_accumulated_not_parsed_alone() -> None:
    pieces = ['{"', "a", '": ', "1", ', "b"', ": [2", "]}"]
    events = [_start(), _tool_start(0, "toolu_f", "f"), *[_json(0, p) for p in pieces]]
    events += [{"type": "content_block_stop", "index": 0}, *_end()]
    assert AnthropicMessagesStrategy().extract(_feed(events).as_dict())[0].arguments == {"a": 1, "b": [2]}


def test_invalid_json_at_block_end_is_an_error_call() -> None:
    events = _one_tool('{"a": 1, "b": ', "toolu_i")
    message = _feed(events).as_dict()
    assert message["content"][0]["input"] == '{"a": 1, "b": '
    (call,) = AnthropicMessagesStrategy().extract(message)
    assert not call.executable and call.raw_arguments == '{"a": 1, "b": ' and call.id == "toolu_i"


def test_json_that_is_not_an_object_is_an_error_call() -> None:
    events = _one_tool("[1, 2]")
    (call,) = AnthropicMessagesStrategy().extract(_feed(events).as_dict())
    assert not call.executable and call.raw_arguments == "[1, 2]" and call.arguments == {}


def test_mcp_tool_use_input_is_accumulated_but_not_a_call() -> None:
    events = [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {
            "type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search", "server_name": "docs", "input": {}}},
        _json(0, '{"q": '),
        _json(0, '"mcs"}'),
        {"type": "content_block_stop", "index": 0},
        *_end("end_turn"),
    ]
    message = _feed(events).as_dict()
    assert message == final_message(events)
    assert message["content"][0]["input"] == {"q": "mcs"}
    assert AnthropicMessagesStrategy().extract(message) == []


def test_open_tool_input_shows_the_partial_parse_but_is_not_executable() -> None:
    events = [_start(), _tool_start(0, "toolu_p", "f"), _json(0, '{"a": 1, "b": "par')]
    buf = _feed(events)
    assert buf.as_dict() == final_message(events)
    assert buf.as_dict()["content"][0]["input"] == {"a": 1}
    assert [c.error for c in AnthropicMessagesStrategy().extract(buf.as_dict())] == ["message incomplete"]
    buf.feed(_json(0, "}}}"))  # cannot be parsed even leniently: the last view stays
    assert buf.as_dict()["content"][0]["input"] == {"a": 1}


def test_max_tokens_makes_every_call_of_the_cut_turn_an_error() -> None:
    done = [_tool_start(0, "toolu_1", "f"), _json(0, '{"a": 1}'), {"type": "content_block_stop", "index": 0}]
    text = [
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "and"}},
        {"type": "content_block_stop", "index": 1},
    ]
    # a finished tool_use before the cut is not run either: the turn the model meant did not end
    calls = AnthropicMessagesStrategy().extract(_feed([_start(), *done, *text, *_end("max_tokens")]).as_dict())
    assert [c.error for c in calls] == ["the turn was cut by max_tokens: no call of it is run"]
    calls = AnthropicMessagesStrategy().extract(_feed([_start(), *done, *text, *_end("end_turn")]).as_dict())
    assert [c.error for c in calls] == [None]
    calls = AnthropicMessagesStrategy().extract(_feed([_start(), *done, *_end("max_tokens")]).as_dict())
    assert [c.error for c in calls] == ["truncated by max_tokens"]


def test_leaked_call_in_text_is_not_extracted_here() -> None:
    leak = '{"tool": "x", "arguments": {"a": 1}}'
    events = [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": leak}},
        {"type": "content_block_stop", "index": 0},
        *_end("end_turn"),
    ]
    buf = _feed(events)
    strategy = AnthropicMessagesStrategy()
    assert strategy.extract(buf.as_dict()) == []
    assert strategy.content_text(buf.as_dict()) == leak == buf.display_text
    assert strategy.leaks_into_text is True


def test_malformed_events_name_the_problem() -> None:
    cases = [
        ({"type": "content_block_delta", "index": 5, "delta": {"type": "text_delta", "text": "x"}}, "never started"),
        ({"type": "content_block_delta", "index": 0, "delta": "x"}, "delta"),
        (_json(0, "{"), "input_json_delta for content block 0 of type 'text'"),
        ({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, "started twice"),
        ({"type": "content_block_stop", "index": "0"}, "index"),
        (42, "must be a JSON object"),
    ]
    for event, words in cases:
        acc = Accumulator()
        strategy = AnthropicMessagesStrategy()
        strategy.accumulate(acc, _start())
        strategy.accumulate(acc, {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        with pytest.raises(MalformedChunk, match=words):
            strategy.accumulate(acc, event)
    with pytest.raises(MalformedChunk, match="before message_start"):
        AnthropicMessagesStrategy().accumulate(Accumulator(), {"type": "content_block_stop", "index": 0})


# -- result_messages -------------------------------------------------------------------------
def _two_calls() -> dict:
    events = [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking."}},
        {"type": "content_block_stop", "index": 0},
        _tool_start(1, "toolu_a", "get_weather"),
        _json(1, '{"city": "Paris"}'),
        {"type": "content_block_stop", "index": 1},
        _tool_start(2, "toolu_b", "get_time"),
        {"type": "content_block_stop", "index": 2},
        *_end(),
    ]
    return _feed(events).as_dict()


def test_result_messages_one_user_turn_in_call_order() -> None:
    message = _two_calls()
    strategy = AnthropicMessagesStrategy()
    a, b = strategy.extract(message)
    out = strategy.result_messages(message, [ToolCallRecord(b, "12:00", is_error=True), ToolCallRecord(a, "sunny")])
    assert out == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_b", "name": "get_time", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "toolu_b", "content": "12:00", "is_error": True},
            ],
        },
    ]


def test_result_messages_rejects_unknown_ids() -> None:
    message = _two_calls()
    with pytest.raises(ValueError, match="toolu_zzz"):
        AnthropicMessagesStrategy().result_messages(message, [ToolCallRecord(ToolCall("f", {}, "toolu_zzz"), "x")])


def test_result_messages_replays_server_tool_blocks_without_nulls() -> None:
    message = _feed(RECORDINGS["anthropic-sdk-python/sse/stream-a-toolrefusal.sse"]).as_dict()
    assistant = AnthropicMessagesStrategy().result_messages(message, [])[0]
    kinds = [b["type"] for b in assistant["content"]]
    assert kinds == ["server_tool_use", "web_search_tool_result", "text"]
    assert assistant["content"][0]["input"] == {"query": "solar eclipse viewing safety news 2026"}
    assert all(v is not None for b in assistant["content"] for v in b.values())


# -- recognition and junk --------------------------------------------------------------------
FOREIGN = [
    {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "hi"}}]},
    {"role": "assistant", "content": "hi", "tool_calls": None},
    {"type": "response.created", "response": {"id": "resp_1", "object": "response", "output": []}},
    {"type": "error", "message": "bad", "code": "server_error", "param": None, "sequence_number": 3},
    *realdata.payloads("vercel-ai/responses/openai-error.1.chunks.jsonl"),
    {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
     "content": [{"type": "output_text", "text": "hi", "annotations": []}]},
    {"id": "resp_1", "object": "response", "output": []},
    {"type": "message", "role": "user", "content": []},
    "[DONE]",
    "hello",
    None,
    [],
]


@pytest.mark.parametrize("shape", FOREIGN, ids=range(len(FOREIGN)))
def test_foreign_shapes_are_not_claimed(shape: object) -> None:
    assert AnthropicMessagesStrategy().recognizes(shape) is False


def test_own_events_are_claimed() -> None:
    strategy = AnthropicMessagesStrategy()
    for rel in IDS:
        assert all(strategy.recognizes(p) for p in RECORDINGS[rel] if isinstance(p, dict))
    assert strategy.recognizes({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
EVENT_TYPES = [
    "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping", "mystery"
]
DELTA_TYPES = [
    "text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta", "compaction_delta", "x_delta"
]
BLOCK_TYPES = ["text", "tool_use", "thinking", "server_tool_use", "compaction", "fallback", "x"]
JUNK_EVENT = st.fixed_dictionaries(
    {"type": st.sampled_from(EVENT_TYPES)},
    optional={
        "index": st.integers(-1, 3) | JSON,
        "delta": st.fixed_dictionaries({"type": st.sampled_from(DELTA_TYPES)}, optional={
            "text": JSON, "partial_json": st.text(max_size=6) | JSON, "thinking": JSON, "signature": JSON,
            "citation": JSON, "content": JSON, "stop_reason": JSON}) | JSON,
        "content_block": st.fixed_dictionaries({"type": st.sampled_from(BLOCK_TYPES)}, optional={
            "text": JSON, "input": JSON, "to": JSON, "id": JSON, "name": JSON}) | JSON,
        "usage": JSON,
        "context_management": JSON,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON | JUNK_EVENT)
def test_recognizes_never_raises(shape: object) -> None:
    assert AnthropicMessagesStrategy().recognizes(shape) in (True, False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JSON | JUNK_EVENT, max_size=12))
def test_junk_after_message_start_raises_only_malformed_chunk(junk: list) -> None:
    strategy = AnthropicMessagesStrategy()
    acc = Accumulator()
    strategy.accumulate(acc, _start())
    strategy.accumulate(acc, _tool_start(0, "toolu_j", "f"))
    strategy.accumulate(acc, {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}})
    before = copy.deepcopy(junk)
    for chunk in junk:
        try:
            delta = strategy.accumulate(acc, chunk)
        except MalformedChunk:
            continue
        except StreamError:  # only an error event or a restart may end the stream
            assert isinstance(chunk, dict) and chunk.get("type") in ("error", "message_start")
            continue
        assert isinstance(delta, str)
        message = acc.message
        assert isinstance(message, dict) and isinstance(message["content"], list)
        for call in strategy.extract(message):
            assert isinstance(call, ToolCall)
        strategy.content_text(message)
        strategy.forming_name(message)
    assert junk == before


# -- THE PEEK AT AN OPEN TOOL INPUT SKIPS NO CHANGE --------------------------------------
class _ParseEveryRead:
    """The open-input view without the skip: a full partial parse of the text on every read;
    for a text that does not parse, the parse of its longest prefix that does (found here by
    trying every prefix, longest first)."""

    def __init__(self, start: object) -> None:
        self.start = start

    def __call__(self, text: str) -> object:
        for end in range(len(text), 0, -1):
            try:
                return jiter.from_json(_json_bytes(text[:end]), partial_mode=True, allow_inf_nan=False)
            except ValueError:
                continue
        return self.start


def _peeks(events: list, parse_every_read: bool = False) -> list:
    """The message read after every event (a raised error ends the list with its type)."""
    with pytest.MonkeyPatch.context() as patch:
        if parse_every_read:
            patch.setattr(anthropic_strategy, "_PartialInput", _ParseEveryRead)  # the name the strategy reads
        buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
        out: list = []
        for event in events:
            try:
                buf.feed(event)
            except Exception as exc:  # noqa: BLE001 -- both sides must fail the same way
                out.append(type(exc).__name__)
                break
            out.append(copy.deepcopy(buf.as_dict()))
    return out


CORPUS = load_corpus()
CORPUS_STREAMS = {c.id: c.chunks for c in CORPUS.for_format("anthropic-messages") if c.is_stream}
DESCRIPTOR = CORPUS.descriptors["anthropic-messages"]


def test_corpus_has_anthropic_streams() -> None:
    assert len(CORPUS_STREAMS) >= 20


@pytest.mark.parametrize("case_id", sorted(CORPUS_STREAMS))
@pytest.mark.parametrize("split", ["as-recorded", "every-character"])
def test_peek_equals_a_full_parse_on_every_prefix(case_id: str, split: str) -> None:
    """Skipping the parse while the text stays inside a string changes no read of the message."""
    events = CORPUS_STREAMS[case_id]
    if split == "every-character":
        events = char_split(events, DESCRIPTOR)
    optimized = _peeks(events)
    assert optimized == _peeks(events, parse_every_read=True)
    assert len(optimized) > 1 or CORPUS.case(case_id).raises  # a malformed first event ends it at once


def test_the_skip_is_taken_and_follows_escapes() -> None:
    """Inside a string the parse is skipped; an escaped quote does not close the string."""
    view = anthropic_chunks._PartialInput({})
    calls: list[str] = []
    real = jiter.from_json

    def counting(data: bytes, **kwargs: object) -> object:
        calls.append(data.decode())
        return real(data, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(anthropic_chunks.jiter, "from_json", counting)
        pieces = ['{"a": 1, "b": "x', "yz", '\\"still', " in\\\\", "\\", 'n"', ', "c": 2}']
        texts = ["".join(pieces[:n]) for n in range(1, len(pieces) + 1)]
        for text in texts:
            view(text)
    assert view.last == {"a": 1, "b": 'xyz"still in\\\n', "c": 2}
    assert calls == [texts[0], texts[5], texts[6]]


ESCAPED_TEXT = st.text(alphabet=st.sampled_from(['"', "\\", "a", "n", "u", "0", "{", "}", ":", ",", " ", "\n", "é", "\ud83d"]),
                       max_size=10)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON | ESCAPED_TEXT | st.dictionaries(ESCAPED_TEXT, JSON | ESCAPED_TEXT, max_size=3), st.booleans(),
       st.lists(st.integers(0, 60), max_size=12), st.data())
def test_view_equals_a_full_parse_on_any_split(value: object, ascii_only: bool, cuts: list, data: st.DataObject) -> None:
    """Any JSON text (or junk after it), cut anywhere: every read equals the full parse."""
    text = json.dumps(value, ensure_ascii=ascii_only) if not isinstance(value, str) or data.draw(st.booleans()) else value
    text += data.draw(st.sampled_from(["", '"', "\\", ' "x', "}", "\\u12"]))
    bounds = sorted({min(c, len(text)) for c in cuts} | {len(text)})
    view, reference = anthropic_chunks._PartialInput({}), _ParseEveryRead({})
    for end in bounds:
        assert view(text[:end]) == reference(text[:end]), text[:end]


def test_result_messages_drops_tool_use_blocks_without_name_or_id() -> None:
    message = {"role": "assistant", "stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_a", "input": {}},
        {"type": "tool_use", "name": "f", "input": {}},
        {"type": "tool_use", "id": "toolu_b", "name": "g", "input": {"x": 1}},
    ]}
    strategy = AnthropicMessagesStrategy()
    (_, _, good) = strategy.extract(message)
    turn, results = strategy.result_messages(message, [ToolCallRecord(good, "ok")])
    assert turn["content"] == [{"type": "tool_use", "id": "toolu_b", "name": "g", "input": {"x": 1}}]
    assert results["content"] == [{"type": "tool_result", "tool_use_id": "toolu_b", "content": "ok"}]


def test_an_unparsable_input_reads_the_same_whatever_was_read_before() -> None:
    pieces = ['{"a": 1, ', '"b": 2, "c": ', "NaN, ", '"d": 4}']
    text = "".join(pieces)
    live = anthropic_chunks._PartialInput({})
    for i in range(1, len(pieces) + 1):
        got = live("".join(pieces[:i]))
    assert got == anthropic_chunks._PartialInput({})(text) == {"a": 1, "b": 2}
    assert anthropic_chunks._PartialInput({})("NaN") == {}  # no prefix parses: the start input
