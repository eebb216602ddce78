"""ollama: the reference strategy against the documented examples and the fold docs/spec.md states
(server/routes.go writeChatResponse: the last chunk's fields, content and thinking joined, calls
extended), its refusals, and its reading of finished, cut and request-side messages."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from mcs_conformance import LLMStreamBuffer, MalformedChunk, StreamError
from mcs_conformance.reference.chain import ExtractionChain
from mcs_conformance.reference.protocol import ToolCall, ToolCallRecord
from mcs_conformance.strategies import OllamaStrategy, default_chain
from mcs_conformance.suite.generators import json_values

REC = Path(__file__).resolve().parents[3] / "recordings" / "ollama"


def _lines(name: str) -> list[dict]:
    return [json.loads(s) for s in (REC / name).read_text(encoding="utf-8").splitlines() if s.strip()]


def chunk(content: str = "", done: bool = False, **message: object) -> dict:
    return {"model": "qwen3", "created_at": "2025-10-26T17:21:21Z",
            "message": {"role": "assistant", "content": content, **message}, "done": done}


def done_chunk(reason: str = "stop") -> dict:
    return {**chunk(done=True), "done_reason": reason, "eval_count": 12, "total_duration": 99}


def call(name: str, arguments: object, **extra: object) -> dict:
    return {**extra, "function": {"name": name, "arguments": arguments}}


def feed(chunks: list) -> LLMStreamBuffer:
    buf = LLMStreamBuffer(ExtractionChain([OllamaStrategy()]))
    for c in chunks:
        buf.feed(c)
    return buf


# -- the fold ------------------------------------------------------------------------------------
def test_the_documented_stream_folds_to_the_documented_stream_false_message():
    body = json.loads((REC / "api_chat_nonstream_tools.docexample.json").read_text(encoding="utf-8"))
    buf = feed(_lines("api_chat_stream_tools.docexample.ndjson"))
    assert buf.done and buf.as_dict()["message"] == body["message"]
    assert set(buf.as_dict()) == set(body)  # the same top-level fields: the last chunk's


def test_the_body_is_the_last_chunks_fields_with_the_texts_joined_and_the_calls_extended():
    first = {**chunk(thinking="Hm"), "remote_model": "big", "logprobs": [{"token": "Hm"}]}
    first["message"]["images"] = None
    chunks = [first, chunk(thinking=", two."), chunk("Here: "),
              chunk(tool_calls=[call("a", {"x": 1}), call("b", {})]), chunk(tool_calls=[call("a", {"x": 1})]),
              {**chunk("done."), "logprobs": [{"token": "done."}]}, done_chunk()]
    body = feed(chunks).as_dict()
    assert body == {
        "model": "qwen3", "created_at": "2025-10-26T17:21:21Z", "done": True, "done_reason": "stop",
        "eval_count": 12, "total_duration": 99, "logprobs": [{"token": "Hm"}, {"token": "done."}],
        "message": {"role": "assistant", "content": "Here: done.", "thinking": "Hm, two.",
                    "tool_calls": [call("a", {"x": 1}), call("b", {}), call("a", {"x": 1})]},
    }


def test_empty_thinking_is_left_out_and_content_is_always_there():
    body = feed([chunk(thinking=""), done_chunk()]).as_dict()
    assert body["message"] == {"role": "assistant", "content": ""}


def test_feeding_never_mutates_a_chunk_and_the_body_shares_nothing_with_it():
    chunks = [chunk(tool_calls=[call("a", {"deep": {"x": [1]}})]), done_chunk()]
    kept = copy.deepcopy(chunks)
    body = feed(chunks).as_dict()
    body["message"]["tool_calls"][0]["function"]["arguments"]["deep"]["x"].append(2)
    assert chunks == kept


def test_the_display_is_the_content_pieces():
    buf = feed([chunk(thinking="no"), chunk("Hel"), chunk("lo"), done_chunk()])
    assert buf.display_text == "Hello"


# -- the completion signal and errors ---------------------------------------------------------------
@pytest.mark.parametrize("line,done", [(done_chunk(), True), (done_chunk("length"), False), (chunk(), False),
                                       ({"done": True}, True), ("done", False), (None, False)])
def test_is_done(line, done):
    assert OllamaStrategy().is_done(line) is done


def test_an_error_line_raises_stream_error_with_the_line():
    buf = feed([chunk("a"), chunk(tool_calls=[call("f", {})])])
    with pytest.raises(StreamError) as info:
        buf.feed({"error": "an error was encountered while running the model"})
    assert info.value.payload == {"error": "an error was encountered while running the model"}


@pytest.mark.parametrize("bad,named", [
    (chunk(tool_calls={"function": {"name": "f"}}), "tool_calls"),
    (chunk(tool_calls=["f"]), "tool_calls[0]"),
    (chunk(tool_calls=[{"name": "f"}]), "tool_calls[0]"),
    (chunk(7), "content"),
    (chunk(thinking=["x"]), "thinking"),
    ({"model": "qwen3", "created_at": "t", "done": False}, "message"),
    ({**chunk(), "done": "yes"}, "done"),
    ({**chunk(), "logprobs": {}}, "logprobs"),
    ([chunk()], "JSON object"),
])
def test_a_malformed_line_is_refused_naming_the_field(bad, named):
    buf = feed([chunk("ok")])
    with pytest.raises(MalformedChunk, match="ollama") as info:
        buf.feed(bad)
    assert named in str(info.value)
    assert buf.as_dict()["message"]["content"] == "ok"  # nothing of the line was folded


def test_a_line_after_the_done_line_is_refused():
    buf = feed([chunk("a"), done_chunk()])
    with pytest.raises(MalformedChunk, match="after the done chunk"):
        buf.feed(chunk("b"))


@settings(max_examples=150, derandomize=True, deadline=None)
@given(junk=json_values())
def test_junk_after_resolution_raises_only_documented_errors(junk):
    buf = feed([chunk("a")])
    try:
        buf.feed(junk)
    except (MalformedChunk, StreamError):
        pass
    buf.as_dict()


# -- recognition ---------------------------------------------------------------------------------
def test_recognizes_chunks_bodies_and_pieces_without_done():
    s = OllamaStrategy()
    piece = chunk("x")
    del piece["done"]
    assert s.recognizes(chunk()) and s.recognizes(done_chunk()) and s.recognizes(piece)
    body = json.loads((REC / "api_chat_nonstream_tools.docexample.json").read_text(encoding="utf-8"))
    assert s.recognizes(body)


@pytest.mark.parametrize("shape", [
    {"error": "boom"},
    {"role": "assistant", "content": "", "tool_calls": [call("f", {})]},
    {**chunk(), "object": "chat.completion.chunk"},
    {**chunk(), "type": "message"},
    {"model": "m", "created_at": "t", "response": "hi", "done": False},  # /api/generate
    {**chunk(), "done": "no"},
    "text", None, 3, [chunk()],
])
def test_does_not_claim_other_shapes(shape):
    assert OllamaStrategy().recognizes(shape) is False


def test_the_default_chain_claims_no_ollama_chunk():
    assert not any(s.recognizes(chunk()) for s in default_chain())


# -- reading the message ---------------------------------------------------------------------------
def test_calls_of_a_finished_body_in_order_with_their_ids():
    body = feed([chunk(tool_calls=[call("a", {"x": 1}, id="call_1"), call("b", None)]),
                 chunk(tool_calls=[call("c", "")]), done_chunk()]).as_dict()
    assert OllamaStrategy().extract(body) == [ToolCall("a", {"x": 1}, "call_1"), ToolCall("b", {}), ToolCall("c", {})]


@pytest.mark.parametrize("chunks,why", [
    ([chunk(tool_calls=[call("rm", {"p": "/"})])], "not finished"),
    ([chunk(tool_calls=[call("rm", {"p": "/"})]), done_chunk("length")], "length"),
])
def test_no_call_of_an_unfinished_or_cut_body_is_executable(chunks, why):
    calls = OllamaStrategy().extract(feed(chunks).as_dict())
    assert len(calls) == 1 and not calls[0].executable and why in calls[0].error


def test_a_request_side_turn_is_read_as_finished():
    turn = {"role": "assistant", "content": "hi", "tool_calls": [{"type": "function", "function": {"index": 0, "name": "f", "arguments": {}}}]}
    s = OllamaStrategy()
    assert s.extract(turn) == [ToolCall("f", {})] and s.content_text(turn) == "hi" and s.forming_name(turn) == "f"


@pytest.mark.parametrize("entry,error", [
    (call("f", [1]), "arguments must be a JSON object"),
    (call("f", "[1]"), "do not hold a JSON object"),
    (call("f", "{\"a\": NaN}"), "not JSON"),
    (call("f", "{\"a\": "), "not JSON"),
    (call("", {}), "no name"),
    (call("f", {}, id=7), "id"),
    ({"function": "f"}, "no 'function' object"),
])
def test_unusable_entries_are_error_calls(entry, error):
    body = {**done_chunk(), "message": {"role": "assistant", "content": "", "tool_calls": [entry]}}
    [got] = OllamaStrategy().extract(body)
    assert not got.executable and error in got.error


def test_string_arguments_holding_an_object_are_that_object():
    body = {**done_chunk(), "message": {"role": "assistant", "content": "", "tool_calls": [call("f", "{\"a\": 1}")]}}
    assert OllamaStrategy().extract(body) == [ToolCall("f", {"a": 1}, raw_arguments="{\"a\": 1}")]


def test_an_id_used_twice_makes_the_repeat_an_error_call():
    body = {**done_chunk(), "message": {"role": "assistant", "content": "",
                                        "tool_calls": [call("f", {}, id="c"), call("g", {}, id="c")]}}
    first, second = OllamaStrategy().extract(body)
    assert first.executable and not second.executable


@pytest.mark.parametrize("shape", [None, 3, [1], {}, "text"])
def test_reading_methods_answer_or_refuse_with_value_error(shape):
    s = OllamaStrategy()
    for method in (s.extract, s.content_text, s.forming_name):
        try:
            method(shape)
        except ValueError:
            pass
    with pytest.raises(ValueError):
        s.result_messages(shape, [ToolCallRecord(ToolCall("f"), "r")])


# -- the continuation ------------------------------------------------------------------------------
def test_result_messages_replays_thinking_content_and_calls_with_made_up_ids_where_none_came():
    s = OllamaStrategy()
    body = feed([chunk(thinking="Think."), chunk("Two rolls."),
                 chunk(tool_calls=[call("roll", {"n": 6})]), chunk(tool_calls=[call("roll", {"n": 6})]),
                 chunk(tool_calls=[call("look", {}, id="call_ab12cd34")]), done_chunk()]).as_dict()
    calls = s.extract(body)
    history = s.result_messages(body, [ToolCallRecord(c, f"r{i}") for i, c in enumerate(calls)])
    assert history == [
        {"role": "assistant", "content": "Two rolls.", "thinking": "Think.", "tool_calls": [
            {"type": "function", "id": "call_mcs_0", "function": {"index": 0, "name": "roll", "arguments": {"n": 6}}},
            {"type": "function", "id": "call_mcs_1", "function": {"index": 1, "name": "roll", "arguments": {"n": 6}}},
            {"type": "function", "id": "call_ab12cd34", "function": {"index": 2, "name": "look", "arguments": {}}}]},
        {"role": "tool", "content": "r0", "tool_name": "roll", "tool_call_id": "call_mcs_0"},
        {"role": "tool", "content": "r1", "tool_name": "roll", "tool_call_id": "call_mcs_1"},
        {"role": "tool", "content": "r2", "tool_name": "look", "tool_call_id": "call_ab12cd34"},
    ]
    assert s.extract(history[0]) == [ToolCall("roll", {"n": 6}, "call_mcs_0"), ToolCall("roll", {"n": 6}, "call_mcs_1"),
                                     ToolCall("look", {}, "call_ab12cd34")]


def test_result_messages_refuses_a_record_for_a_call_the_message_lacks():
    s = OllamaStrategy()
    body = feed([chunk(tool_calls=[call("f", {}, id="call_1")]), done_chunk()]).as_dict()
    with pytest.raises(ValueError, match="call_2"):
        s.result_messages(body, [ToolCallRecord(ToolCall("f", {}, "call_2"), "r")])
    with pytest.raises(ValueError):
        s.result_messages(body, [{"call": "f", "result": "r"}])


def test_result_messages_leaves_out_calls_that_may_not_run():
    s = OllamaStrategy()
    body = feed([chunk("cut", tool_calls=[call("f", {})])]).as_dict()
    assert s.result_messages(body, []) == [{"role": "assistant", "content": "cut"}]
