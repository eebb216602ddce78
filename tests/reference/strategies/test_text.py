"""The text strategy ("text-json"): str streams, content-only messages, the continuation."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.buffer import LLMStreamBuffer
from mcs_conformance.reference.chain import ExtractionChain
from mcs_conformance.reference.errors import MalformedChunk, UnrecognizedStream
from mcs_conformance.reference.protocol import ExtractionStrategy, ToolCall, ToolCallRecord
from mcs_conformance.reference.strategies.json_codec import JsonCodec
from mcs_conformance.reference.strategies.text import TextStrategy
from tests.helpers import realdata
from tests.reference.strategies.test_json_codec import json_values, keys, tool_calls

text = TextStrategy()

CALL_TEXT = 'Checking. {"tool": "get_weather", "id": "c1", "arguments": {"city": "Oslo"}} Done.'


# -- the protocol members ---------------------------------------------------------------------
def test_members() -> None:
    assert isinstance(text, ExtractionStrategy)
    assert TextStrategy.name == "text-json"
    assert TextStrategy.leaks_into_text is False
    assert isinstance(text.codec, JsonCodec)
    own = JsonCodec()
    assert TextStrategy(own).codec is own


# -- recognizes ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shape",
    [
        "",
        "plain text",
        CALL_TEXT,
        {"role": "assistant", "content": "hello"},
        {"role": "assistant", "content": CALL_TEXT, "refusal": None, "annotations": []},
        {"content": ""},
    ],
)
def test_recognizes_text_and_content_only_messages(shape: object) -> None:
    assert text.recognizes(shape) is True


NATIVE_SHAPES = {
    "openai chunk": {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}],
    },
    "openai message, tool_calls null": {
        "role": "assistant",
        "content": '{"tool": "f", "arguments": {}}',
        "tool_calls": None,
    },
    "openai message with calls": {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    },
    "openai legacy function_call": {"role": "assistant", "content": "", "function_call": {"name": "f"}},
    "anthropic message": {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    },
    "anthropic event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
    "anthropic ping": {"type": "ping"},
    "responses object": {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "hi", "annotations": []}],
            }
        ],
    },
    "responses event": {"type": "response.output_text.delta", "item_id": "msg_1", "delta": "hi"},
    "responses output message": {"type": "message", "role": "assistant", "content": "hi"},
    "chat completion": {"object": "chat.completion", "choices": [], "content": "x"},
}


@pytest.mark.parametrize("shape", NATIVE_SHAPES.values(), ids=list(NATIVE_SHAPES))
def test_never_claims_native_shapes(shape: object) -> None:
    assert text.recognizes(shape) is False


@pytest.mark.parametrize("shape", [None, 0, 1.5, [], ["a"], {}, {"content": None}, {"content": ["x"]}, b"x", object()])
def test_rejects_other_shapes(shape: object) -> None:
    assert text.recognizes(shape) is False


def _recorded_native_payloads() -> list[object]:
    shapes: list[object] = []
    for rel in (
        realdata.files("vercel-ai", ".jsonl")
        + realdata.files("openai-python/chat_stream", ".sse")
        + realdata.files("anthropic-sdk-python/sse", ".sse")
    ):
        shapes.extend(p for p in realdata.payloads(rel) if isinstance(p, dict))
    for rel in realdata.files("vercel-ai", ".json") + realdata.files("openai-python", ".json"):
        body = json.loads(realdata.path(rel).read_text("utf-8"))
        shapes.append(body)
    return shapes


def test_never_claims_recorded_native_payloads() -> None:
    shapes = _recorded_native_payloads()
    assert len(shapes) > 100
    claimed = [s for s in shapes if text.recognizes(s)]
    assert claimed == []


def test_recorded_content_only_message_is_claimed() -> None:
    body = json.loads(realdata.path("openai-python/chat_nonstream/test_parse_nothing.json").read_text("utf-8"))
    assert text.recognizes(body["choices"][0]["message"]) is True
    body = json.loads(realdata.path("vercel-ai/chat/groq-tool-call.nonstream.json").read_text("utf-8"))
    assert text.recognizes(body["choices"][0]["message"]) is False  # carries tool_calls


@given(json_values)
def test_recognizes_never_raises(shape: object) -> None:
    assert text.recognizes(shape) in (True, False)


# -- accumulate, is_done, the buffer ------------------------------------------------------------
def test_accumulate_builds_the_string() -> None:
    acc = Accumulator()
    assert text.accumulate(acc, "Hel") == "Hel"
    assert text.accumulate(acc, "") == ""
    assert text.accumulate(acc, "lo") == "lo"
    assert acc.message == "Hello"


def test_accumulate_rejects_non_text_chunk() -> None:
    acc = Accumulator()
    with pytest.raises(MalformedChunk, match="str"):
        text.accumulate(acc, {"role": "assistant", "content": "x"})
    buf = LLMStreamBuffer([TextStrategy()])
    buf.feed("a")
    with pytest.raises(MalformedChunk, match="text-json"):
        buf.feed({"content": "b"})


def test_is_done_never() -> None:
    assert text.is_done("") is False
    assert text.is_done(CALL_TEXT) is False
    assert text.is_done("[DONE]") is False


def test_buffer_streams_text() -> None:
    buf = LLMStreamBuffer([TextStrategy()])
    pieces = ['Checking. {"to', 'ol": "get_wea', 'ther", "id": "c1", "argu', 'ments": {"city": "Oslo"}} Done.']
    names = []
    for piece in pieces:
        assert buf.feed(piece) == piece
        names.append(text.forming_name(buf.as_dict()))
    assert buf.as_dict() == CALL_TEXT
    assert buf.display_text == CALL_TEXT
    assert buf.done is False
    assert names == [None, "get_wea", "get_weather", "get_weather"]
    assert keys(text.extract(buf.as_dict())) == [("get_weather", {"city": "Oslo"}, "c1")]


def test_buffer_refuses_a_first_chunk_nobody_claims() -> None:
    with pytest.raises(UnrecognizedStream):
        LLMStreamBuffer([TextStrategy()]).feed(42)


# -- extract, content_text, forming_name ----------------------------------------------------------
def test_extract_from_str_and_message() -> None:
    expected = [("get_weather", {"city": "Oslo"}, "c1")]
    assert keys(text.extract(CALL_TEXT)) == expected
    assert keys(text.extract({"role": "assistant", "content": CALL_TEXT})) == expected
    assert text.extract("nothing to see") == []
    assert text.extract(None) == []


def test_content_text() -> None:
    assert text.content_text("abc") == "abc"
    assert text.content_text({"role": "assistant", "content": "abc"}) == "abc"
    with pytest.raises(ValueError, match="text-json"):
        text.content_text({"content": [{"type": "text", "text": "x"}]})
    with pytest.raises(ValueError, match="text-json"):
        text.content_text(3)


def test_forming_name() -> None:
    assert text.forming_name('Let me {"tool": "sea') == "sea"
    assert text.forming_name({"role": "assistant", "content": '{"tool": "search", "arg'}) == "search"
    assert text.forming_name("no call here") is None


def test_chain_routes_content_only_message_to_text() -> None:
    chain = ExtractionChain([TextStrategy()])
    message = {"role": "assistant", "content": CALL_TEXT}
    strategy = chain.resolve(message)
    assert strategy is not None and strategy.name == "text-json"
    assert chain.resolve(NATIVE_SHAPES["openai message, tool_calls null"]) is None


# -- result_messages ----------------------------------------------------------------------------
TWO_CALLS = 'First {"tool": "a", "id": "x1", "arguments": {"n": 1}} then {"tool": "b", "arguments": {"m": [2]}}.'


def test_result_messages() -> None:
    records = [
        ToolCallRecord(ToolCall("a", {"n": 1}, "x1"), "one"),
        ToolCallRecord(ToolCall("b", {"m": [2]}), "failed", is_error=True),
    ]
    out = text.result_messages({"role": "assistant", "content": TWO_CALLS}, records)
    assert out[0] == {"role": "assistant", "content": TWO_CALLS}
    assert out[1]["role"] == "user" and set(out[1]) == {"role", "content"}
    assert [json.loads(line) for line in out[1]["content"].split("\n")] == [
        {"tool_result": "a", "id": "x1", "result": "one"},
        {"tool_result": "b", "result": "failed", "is_error": True},
    ]
    assert len(out) == 2
    assert text.result_messages(TWO_CALLS, records) == out


def test_result_messages_follow_record_order() -> None:
    records = [
        ToolCallRecord(ToolCall("b", {"m": [2]}), "B"),
        ToolCallRecord(ToolCall("a", {"n": 1}, "x1"), "A"),
    ]
    lines = text.result_messages(TWO_CALLS, records)[1]["content"].split("\n")
    assert [json.loads(line)["result"] for line in lines] == ["B", "A"]


@pytest.mark.parametrize(
    "call",
    [
        ToolCall("a", {"n": 1}, "other-id"),
        ToolCall("b", {"m": [3]}),
        ToolCall("c", {}),
    ],
)
def test_result_for_unknown_call_is_refused(call: ToolCall) -> None:
    with pytest.raises(ValueError, match="answers no call"):
        text.result_messages(TWO_CALLS, [ToolCallRecord(call, "r")])


def test_result_messages_rejects_non_records() -> None:
    with pytest.raises(ValueError, match="ToolCallRecord"):
        text.result_messages(TWO_CALLS, [("a", "r")])  # type: ignore[list-item]


def test_result_for_broken_call_is_allowed() -> None:
    broken = '{"tool": "f", "arguments": {"a": 1,}}'
    [call] = text.extract(broken)
    assert call.error
    out = text.result_messages(broken, [ToolCallRecord(call, "arguments were not valid JSON", is_error=True)])
    assert json.loads(out[1]["content"]) == {
        "tool_result": "f",
        "result": "arguments were not valid JSON",
        "is_error": True,
    }


def test_inputs_not_mutated() -> None:
    message = {"role": "assistant", "content": TWO_CALLS, "refusal": None, "annotations": []}
    args = {"n": 1}
    records = [ToolCallRecord(ToolCall("a", args, "x1"), "one")]
    before_message, before_records = copy.deepcopy(message), copy.deepcopy(records)
    text.recognizes(message)
    text.extract(message)
    text.forming_name(message)
    text.result_messages(message, records)
    text.render([records[0].call])
    assert message == before_message
    assert records == before_records and args == {"n": 1}


# -- round trip through the buffer ----------------------------------------------------------------
@settings(deadline=None)
@given(st.lists(tool_calls, max_size=4), st.data())
def test_round_trip_through_buffer(calls: list[ToolCall], data: st.DataObject) -> None:
    rendered = text.render(calls)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(rendered)), max_size=12)))
    bounds = [0, *cuts, len(rendered)]
    chunks = [rendered[a:b] for a, b in zip(bounds, bounds[1:])]
    buf = LLMStreamBuffer([TextStrategy()])
    for chunk in chunks:
        buf.feed(chunk)
    assert buf.as_dict() == rendered
    assert buf.display_text == rendered
    found = text.extract(buf.as_dict())
    assert keys(found) == keys(calls)
    assert all(c.error is None for c in found)
