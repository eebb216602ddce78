"""OpenAIChatStrategy against the openai SDK's accumulator, recorded facts and the bug classes."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance import LLMStreamBuffer, MalformedChunk, StreamError, ToolCall, ToolCallRecord, extract_calls
from mcs_conformance.strategies import default_backup, default_chain
from mcs_conformance.corpus_tools.oracles.openai_chat import final_message
from mcs_conformance.reference.strategies.openai_chat import OpenAIChatStrategy
from tests.helpers.realdata import files, payloads

# OpenAI-compatible recordings the SDK refuses or folds otherwise (docs/spec.md, openai-chat,
# "OpenAI-compatible providers"); test_recordings_the_sdk_answers_otherwise checks that it still does.
SDK_OTHERWISE = {
    "vercel-ai/chat/mistral-tool-call.chunks.jsonl": "raises",  # a fragment without index
    "vercel-ai/chat/mistral-reasoning.chunks.jsonl": "raises",  # content parts without index
    "vercel-ai/chat/perplexity-text.chunks.jsonl": "differs",  # role on every delta, concatenated
}
RECORDINGS = [r for r in files("openai-python/chat_stream", ".sse") + files("vercel-ai/chat", ".chunks.jsonl")
              if r not in SDK_OTHERWISE]
PARALLEL = "openai-python/chat_stream/tool_calls_parallel_2__f82268f2fefd.sse"
GROQ = "vercel-ai/chat/groq-tool-call.chunks.jsonl"
LENGTH = "openai-python/chat_stream/finish_length__4cc50a6135d2.sse"
N3 = "openai-python/chat_stream/n3_multiple_choices__a491adda08c3.sse"
AZURE = "vercel-ai/chat/azure-model-router.1.chunks.jsonl"

S = OpenAIChatStrategy()


# -- helpers ---------------------------------------------------------------------------------------
def chunk(delta: dict | None = None, finish: str | None = None, index: object = 0) -> dict:
    """A chat.completion.chunk with one choice."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": index, "delta": {} if delta is None else delta, "finish_reason": finish}],
    }


def calls(*fragments: dict) -> dict:
    """A chunk whose choice-0 delta carries these tool-call fragments."""
    return chunk({"tool_calls": list(fragments)})


def frag(index: object = None, id: str | None = None, name: str | None = None, args: str | None = None,
         type: str | None = None) -> dict:
    """A tool-call fragment with only the given keys."""
    out: dict = {}
    if index is not None:
        out["index"] = index
    if id is not None:
        out["id"] = id
    if type is not None:
        out["type"] = type
    function = {k: v for k, v in (("name", name), ("arguments", args)) if v is not None}
    if function:
        out["function"] = function
    return out


def run(chunks: list) -> LLMStreamBuffer:
    """Feed a stream; check it was not mutated and the display invariant holds."""
    before = copy.deepcopy(chunks)
    buf = LLMStreamBuffer([OpenAIChatStrategy()])
    for c in chunks:
        buf.feed(c)
    assert chunks == before, "the strategy mutated its input"
    assert buf.display_text == S.content_text(buf.as_dict())
    json.dumps(buf.as_dict())
    return buf


START = chunk({"role": "assistant", "content": None})
FINISH = chunk({}, finish="tool_calls")


def call(name: str, arguments: dict, id: str | None, raw: str | None) -> ToolCall:
    return ToolCall(name=name, arguments=arguments, id=id, raw_arguments=raw)


# -- PARITY with the SDK over every recording ------------------------------------------------------
@pytest.mark.parametrize("rel", RECORDINGS)
def test_parity_with_sdk_accumulator(rel):
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    stream = payloads(rel)
    before = copy.deepcopy(stream)
    expected = final_message(stream)
    assert stream == before

    buf = run(stream)
    assert buf.as_dict() == expected
    assert buf.display_text == S.content_text(buf.as_dict())
    assert buf.done is (rel != LENGTH)  # a length finish reports a cut output: not done

    models = [p if isinstance(p, str) else construct_type(type_=ChatCompletionChunk, value=p) for p in stream]
    sdk_buf = LLMStreamBuffer([OpenAIChatStrategy()])
    for m in models:
        sdk_buf.feed(m)
    assert sdk_buf.as_dict() == expected
    assert sdk_buf.done is buf.done


@pytest.mark.parametrize("rel", sorted(SDK_OTHERWISE))
def test_recordings_the_sdk_answers_otherwise(rel):
    """Mistral's call without index is read as index 0 (the SDK raises); Magistral's content parts are
    refused (the SDK raises too); Perplexity's repeated role is kept once (the SDK concatenates it)."""
    stream = payloads(rel)
    try:
        expected = final_message(stream)
    except Exception:  # noqa: BLE001 - the SDK's refusal is the fact checked
        expected = None
    assert (expected is None) is (SDK_OTHERWISE[rel] == "raises")
    if rel.endswith("mistral-reasoning.chunks.jsonl"):
        with pytest.raises(MalformedChunk, match="delta.content"):
            run(stream)
        return
    buf = run(stream)
    assert buf.done and buf.as_dict() != expected
    assert buf.as_dict()["role"] == "assistant"
    if rel.endswith("mistral-tool-call.chunks.jsonl"):
        assert [(c.name, c.arguments, c.id) for c in S.extract(buf.as_dict())] == [
            ("weather", {"location": "San Francisco"}, "gSIMJiOkT")]


def test_n3_recording_keeps_only_choice_0():
    buf = run(payloads(N3))
    assert buf.as_dict()["content"] == '{"city":"San Francisco","temperature":65,"units":"f"}'
    assert buf.display_text == '{"city":"San Francisco","temperature":65,"units":"f"}'


def test_azure_leading_chunk_is_recognized_and_changes_nothing():
    first = payloads(AZURE)[0]
    assert first["object"] == "" and first["choices"] == []
    assert S.recognizes(first)
    buf = run([first])
    assert buf.as_dict() == {} and not buf.done
    assert run(payloads(AZURE)).as_dict()["content"] == "Capital of Denmark."


# -- facts read from the recordings ---------------------------------------------------------------
def test_parallel_recording_extracts_two_calls():
    buf = run(payloads(PARALLEL))
    message = buf.as_dict()
    assert S.recognizes(message)
    got = S.extract(message)
    assert [(c.name, c.id, c.arguments) for c in got] == [
        ("GetWeatherArgs", "call_JMW1whyEaYG438VE1OIflxA2", {"city": "Edinburgh", "country": "GB", "units": "c"}),
        ("get_stock_price", "call_DNYTawLBoN8fj3KN6qU9N1Ou", {"ticker": "AAPL", "exchange": "NASDAQ"}),
    ]
    assert all(c.executable for c in got)
    assert got[1].raw_arguments == '{"ticker": "AAPL", "exchange": "NASDAQ"}'
    assert S.forming_name(message) == "GetWeatherArgs"
    assert buf.display_text == "" and message["content"] is None


def test_groq_one_chunk_call():
    message = run(payloads(GROQ)).as_dict()
    assert S.extract(message) == [call("weather", {}, "tk85n1k4m", "{}")]


def test_finish_length_is_not_done_and_keeps_the_recorded_content():
    buf = run(payloads(LENGTH))
    assert not buf.done  # the SDK's get_final_completion refuses a length finish too
    assert buf.as_dict()["content"] == '{"'
    assert not S.recognizes(buf.as_dict())  # content-only: the text strategy's
    assert S.extract(buf.as_dict()) == []


def test_every_prefix_of_the_parallel_stream_is_safe():
    """Through the extraction axis, as a driver reads a live message: before the completion
    signal nothing is executable; after it, exactly the final calls."""
    stream = payloads(PARALLEL)
    chain = default_chain()
    final = S.extract(run(stream).as_dict())
    names = []
    for cut in range(1, len(stream) + 1):
        buf = run(stream[:cut])
        prefix = buf.as_dict()
        got = extract_calls(prefix, chain, default_backup(chain), done=buf.done).calls
        assert all(not c.executable for c in got) if not buf.done else list(got) == final
        names.append(S.forming_name(prefix))
    seen = [n for n in names if n is not None]
    assert all(b.startswith(a) for a, b in zip(seen, seen[1:]))
    assert seen[-1] == "GetWeatherArgs"


def test_text_recording_never_forms_a_name():
    buf = LLMStreamBuffer([OpenAIChatStrategy()])
    for p in payloads("openai-python/chat_stream/text_only__e2aad469b71d.sse"):
        buf.feed(p)
        assert S.forming_name(buf.as_dict()) is None


# -- completion signal -----------------------------------------------------------------------------
def test_is_done_only_on_choice_0_finish():
    stream = payloads(PARALLEL)
    flags = [S.is_done(p) for p in stream]
    finish_at = next(i for i, p in enumerate(stream)
                     if isinstance(p, dict) and p["choices"] and p["choices"][0]["finish_reason"])
    assert flags == [i == finish_at for i in range(len(stream))]
    assert stream[-1] == "[DONE]" and stream[-2]["choices"] == []


# -- the bug classes (BUG-CLASSES.md), one synthetic stream each ----------------------------------
def test_row1_interleaved_parallel_deltas_keyed_by_index():
    stream = [
        START,
        calls(frag(0, "a", "f", '{"x', "function")),
        calls(frag(1, "b", "g", '{"y', "function")),
        calls(frag(0, args='":1}')),
        calls(frag(1, args='":2}')),
        FINISH,
    ]
    message = run(stream).as_dict()
    assert message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": '{"y":2}'}},
        ],
    }
    assert message == final_message(stream)
    assert S.extract(message) == [call("f", {"x": 1}, "a", '{"x":1}'), call("g", {"y": 2}, "b", '{"y":2}')]


def test_row2_same_index_new_id_is_a_new_call():
    stream = [
        START,
        calls(frag(0, "a", "get_weather", '{"city":"Paris"}', "function")),
        calls(frag(0, "b", "get_time", '{}', "function")),
        FINISH,
    ]
    got = S.extract(run(stream).as_dict())
    assert got == [call("get_weather", {"city": "Paris"}, "a", '{"city":"Paris"}'), call("get_time", {}, "b", "{}")]


def test_row2_same_index_new_id_with_continuations():
    stream = [
        START,
        calls(frag(0, "a", "get_weather", '{"ci')),
        calls(frag(0, args='ty":"Paris"}')),
        calls(frag(0, "b", "get_time", "")),
        calls(frag(0, args="{}")),
        FINISH,
    ]
    got = S.extract(run(stream).as_dict())
    assert got == [call("get_weather", {"city": "Paris"}, "a", '{"city":"Paris"}'), call("get_time", {}, "b", "{}")]


def test_row3_fragments_without_index():
    stream = [
        START,
        calls(frag(None, "a", "f", '{"q')),
        calls(frag(None, args='":1}')),
        calls(frag(None, "b", "g", "{}")),
        FINISH,
    ]
    assert S.extract(run(stream).as_dict()) == [call("f", {"q": 1}, "a", '{"q":1}'), call("g", {}, "b", "{}")]


def test_row3_two_whole_calls_without_index_in_one_delta():
    stream = [START, calls(frag(None, "a", "f", "{}"), frag(None, "b", "g", '{"z":0}')), FINISH]
    assert S.extract(run(stream).as_dict()) == [call("f", {}, "a", "{}"), call("g", {"z": 0}, "b", '{"z":0}')]


def test_row3_no_index_and_no_id_is_one_call():
    stream = [START, calls(frag(name="f", args='{"a')), calls(frag(args='":1}')), FINISH]
    assert S.extract(run(stream).as_dict()) == [call("f", {"a": 1}, None, '{"a":1}')]


def test_row4_index_starting_at_1_after_text_makes_no_phantom():
    stream = [
        chunk({"role": "assistant", "content": "Let me check."}),
        calls(frag(1, "a", "f", '{"a', "function")),
        calls(frag(1, args='":1}')),
        FINISH,
    ]
    buf = run(stream)
    message = buf.as_dict()
    assert message["tool_calls"] == [{"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}]
    assert S.extract(message) == [call("f", {"a": 1}, "a", '{"a":1}')]
    assert buf.display_text == "Let me check."


def test_row4_string_index_counts_as_the_number():
    stream = [START, calls(frag("0", "a", "f", "{")), calls(frag(0, args="}")), FINISH]
    message = run(stream).as_dict()
    assert len(message["tool_calls"]) == 1
    assert S.extract(message) == [call("f", {}, "a", "{}")]


def test_row5_name_repeated_on_every_fragment_is_kept_once():
    stream = [
        START,
        calls(frag(0, "a", "get_weather", '{"c')),
        calls(frag(0, name="get_weather", args='ity":"Oslo"}')),
        calls(frag(0, name="get_weather", args="")),
        FINISH,
    ]
    assert S.extract(run(stream).as_dict()) == [call("get_weather", {"city": "Oslo"}, "a", '{"city":"Oslo"}')]


def test_row6_name_and_id_after_the_arguments():
    stream = [START, calls(frag(0, args='{"a":1}')), calls(frag(0, "a", "f", type="function")), FINISH]
    buf = LLMStreamBuffer([OpenAIChatStrategy()])
    buf.feed(stream[0])
    buf.feed(stream[1])
    early = S.extract(buf.as_dict())
    assert S.forming_name(buf.as_dict()) is None
    assert len(early) == 1 and early[0].error and not early[0].executable
    assert S.extract(run(stream).as_dict()) == [call("f", {"a": 1}, "a", '{"a":1}')]


def test_row6_late_id_without_index():
    stream = [START, calls(frag(name="f", args="{}")), calls(frag(id="a")), FINISH]
    assert S.extract(run(stream).as_dict()) == [call("f", {}, "a", "{}")]


def test_fragments_without_type_match_the_sdk():
    stream = [START, calls(frag(0, "a", "f", '{"k":')), calls(frag(0, args=' "v"}')), FINISH]
    message = run(stream).as_dict()
    assert message["tool_calls"] == [{"id": "a", "function": {"name": "f", "arguments": '{"k": "v"}'}}]
    assert message == final_message(stream)


def test_row7_whole_call_in_the_opening_delta():
    stream = [START, calls(frag(0, "call_9", "get_weather", '{"city":"Rome"}', "function")), FINISH]
    message = run(stream).as_dict()
    assert message == final_message(stream)
    assert S.extract(message) == [call("get_weather", {"city": "Rome"}, "call_9", '{"city":"Rome"}')]


def test_row8_id_repeated_on_every_fragment_is_one_call():
    stream = [START, calls(frag(0, "a", "f", '{"x')), calls(frag(0, "a", args='":1}')), FINISH]
    message = run(stream).as_dict()
    assert message["tool_calls"][0]["id"] == "a"
    assert S.extract(message) == [call("f", {"x": 1}, "a", '{"x":1}')]


def test_row8_empty_id_is_no_id():
    stream = [START, calls(frag(0, "a", "f", '{"x')), calls(frag(0, "", args='":1}')), FINISH]
    assert S.extract(run(stream).as_dict()) == [call("f", {"x": 1}, "a", '{"x":1}')]


def test_row8_empty_id_without_index_is_not_a_boundary():
    stream = [START, calls(frag(None, "a", "f", '{"x')), calls(frag(None, "", args='":1}')), FINISH]
    assert S.extract(run(stream).as_dict()) == [call("f", {"x": 1}, "a", '{"x":1}')]


def test_row15_tool_calls_with_finish_stop_are_done():
    stream = [START, calls(frag(0, "a", "f", "{}", "function")), chunk({}, finish="stop"),
              {**chunk(), "choices": [], "usage": {"total_tokens": 3}}, "[DONE]"]
    assert [S.is_done(c) for c in stream] == [False, False, True, False, False]
    buf = run(stream)
    assert buf.done
    assert S.extract(buf.as_dict()) == [call("f", {}, "a", "{}")]
    assert buf.as_dict() == final_message(stream)


def test_row15_finish_of_another_choice_does_not_end_choice_0():
    other = chunk({"content": "other"}, finish="stop", index=1)
    buf = run([START, calls(frag(0, "a", "f", '{"x')), other])
    assert not buf.done
    assert "other" not in json.dumps(buf.as_dict())


@pytest.mark.parametrize("pieces", [
    ['{"face": "\\uD83D', '\\uDE00"}'],
    ['{"face": "\\uD8', '3D\\uDE00"}'],
    ['{"face": "\\', 'uD83D\\u', 'DE00"}'],
])
def test_row20_escape_split_across_fragments(pieces):
    stream = [START, calls(frag(0, "a", "f", pieces[0], "function"))] + [calls(frag(0, args=p)) for p in pieces[1:]] + [FINISH]
    message = run(stream).as_dict()
    assert message == final_message(stream)
    assert S.extract(message) == [call("f", {"face": "\U0001F600"}, "a", '{"face": "\\uD83D\\uDE00"}')]


def test_row20_surrogate_pair_split_between_chunks():
    stream = [START, calls(frag(0, "a", "f", '{"face": "\ud83d')), calls(frag(0, args='\ude00"}')), FINISH]
    (got,) = S.extract(run(stream).as_dict())
    assert got.arguments == {"face": "\U0001F600"} and got.executable


def test_row19_truncated_stream_never_yields_an_executable_call():
    """The message reads as the SDK reads it (arguments "" are a call without arguments);
    the stream is not done, so the extraction axis marks the call."""
    stream = [START, calls(frag(0, "a", "f", "", "function")), "[DONE]"]
    buf = run(stream)
    assert not buf.done
    (read,) = S.extract(buf.as_dict())
    assert read.executable and read.arguments == {}
    chain = default_chain()
    (got,) = extract_calls(buf.as_dict(), chain, default_backup(chain), done=buf.done).calls
    assert got.name == "f" and got.id == "a" and got.error and not got.executable


@pytest.mark.parametrize("finish", ["length", "content_filter"])
def test_row19_a_cut_finish_is_not_done_so_no_call_runs(finish):
    stream = [START, calls(frag(0, "a", "f", "", "function")), chunk({}, finish=finish)]
    buf = run(stream)
    assert not buf.done and not S.is_done(stream[-1])
    chain = default_chain()
    (got,) = extract_calls(buf.as_dict(), chain, default_backup(chain), done=buf.done).calls
    assert "has not finished" in got.error and not got.executable


# -- extraction and the false-positive guard ------------------------------------------------------
def test_tool_calls_null_guards_call_looking_content():
    message = {"role": "assistant", "content": '{"tool":"x","arguments":{}}', "tool_calls": None}
    assert S.recognizes(message)
    assert S.extract(message) == []
    assert S.content_text(message) == '{"tool":"x","arguments":{}}'


def test_tool_calls_empty_list_is_claimed_with_no_call():
    assert S.recognizes({"role": "assistant", "content": "hi", "tool_calls": []})
    assert S.extract({"role": "assistant", "content": "hi", "tool_calls": []}) == []


def test_content_only_message_is_not_claimed():
    assert not S.recognizes({"role": "assistant", "content": '{"tool":"x","arguments":{}}'})


def _message(arguments: object, name: str = "f") -> dict:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}]}


def test_unparsable_arguments_give_an_error_call():
    (got,) = S.extract(_message('{"a":'))
    assert got.error and "not valid JSON" in got.error
    assert got.arguments == {} and got.raw_arguments == '{"a":' and got.name == "f" and got.id == "c1"
    assert not got.executable


@pytest.mark.parametrize("raw", ["", "   "])
def test_empty_arguments_give_an_empty_object(raw):
    assert S.extract(_message(raw)) == [call("f", {}, "c1", raw)]


@pytest.mark.parametrize("raw, word", [("[1, 2]", "list"), ("3", "int"), ('"x"', "str"), ("null", "NoneType")])
def test_non_object_arguments_give_an_error_call(raw, word):
    (got,) = S.extract(_message(raw))
    assert got.error and word in got.error and got.arguments == {} and not got.executable


def test_nan_arguments_are_not_json():
    (got,) = S.extract(_message('{"a": NaN}'))
    assert got.error and not got.executable


def test_empty_name_gives_an_error_call():
    (got,) = S.extract(_message("{}", name=""))
    assert got.error and "name" in got.error and not got.executable


def test_malformed_entries_give_error_calls_not_exceptions():
    got = S.extract({"role": "assistant", "tool_calls": ["x", {"id": "c", "type": "custom"}]})
    assert len(got) == 2 and all(c.error and not c.executable for c in got)


# -- history ---------------------------------------------------------------------------------------
def test_result_messages_for_the_parallel_recording():
    message = run(payloads(PARALLEL)).as_dict()
    a, b = S.extract(message)
    out = S.result_messages(message, [ToolCallRecord(b, "190.5"), ToolCallRecord(a, "12C", is_error=False)])
    assert out == [
        {"role": "assistant", "tool_calls": [
            {"id": "call_JMW1whyEaYG438VE1OIflxA2", "type": "function", "function": {
                "name": "GetWeatherArgs", "arguments": '{"city": "Edinburgh", "country": "GB", "units": "c"}'}},
            {"id": "call_DNYTawLBoN8fj3KN6qU9N1Ou", "type": "function", "function": {
                "name": "get_stock_price", "arguments": '{"ticker": "AAPL", "exchange": "NASDAQ"}'}},
        ]},
        {"role": "tool", "tool_call_id": "call_DNYTawLBoN8fj3KN6qU9N1Ou", "content": "190.5"},
        {"role": "tool", "tool_call_id": "call_JMW1whyEaYG438VE1OIflxA2", "content": "12C"},
    ]


def test_result_messages_keep_text_and_refusal():
    message = {"role": "assistant", "content": "Checking.", "refusal": None,
               "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    out = S.result_messages(message, [ToolCallRecord(S.extract(message)[0], "ok")])
    assert out[0] == {"role": "assistant", "content": "Checking.",
                      "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    assert out[1] == {"role": "tool", "tool_call_id": "c1", "content": "ok"}


def test_result_messages_reject_an_unknown_call_id():
    message = _message("{}")
    with pytest.raises(ValueError, match="nope"):
        S.result_messages(message, [ToolCallRecord(ToolCall(name="f", id="nope"), "x")])


def test_result_messages_make_up_ids_for_calls_without_one():
    """id "" or no id: replayed as call_mcs_<position>, clear of the message's own ids; each
    record of such a call answers the made-up id once."""
    def call(name, **extra):
        return {"type": "function", "function": {"name": name, "arguments": "{}"}, **extra}

    message = {"role": "assistant", "tool_calls": [call("a", id=""), call("a"), call("c", id="call_mcs_0")]}
    first, second, third = S.extract(message)
    assert first.id is None and second.id is None and first == second
    out = S.result_messages(message, [ToolCallRecord(third, "3"), ToolCallRecord(first, "1"),
                                      ToolCallRecord(second, "2")])
    assert [c["id"] for c in out[0]["tool_calls"]] == ["call_mcs_0_", "call_mcs_1", "call_mcs_0"]
    assert [(m["tool_call_id"], m["content"]) for m in out[1:]] == [
        ("call_mcs_0", "3"), ("call_mcs_0_", "1"), ("call_mcs_1", "2")]
    with pytest.raises(ValueError, match="answered once"):
        S.result_messages(message, [ToolCallRecord(first, "1"), ToolCallRecord(first, "1"),
                                    ToolCallRecord(first, "1")])
    with pytest.raises(ValueError, match="None"):
        S.result_messages(message, [ToolCallRecord(ToolCall(name="b"), "x")])


# -- recognition -----------------------------------------------------------------------------------
def test_recognizes_its_chunks_and_nothing_else():
    for rel in RECORDINGS:
        for p in payloads(rel):
            assert S.recognizes(p) is (p != "[DONE]")
    others = [
        "[DONE]",
        "plain text",
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "response.output_text.delta", "delta": "hi", "output_index": 0},
        {"id": "chatcmpl-1", "object": "chat.completion",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}]},
        {"model": "llama3.2", "message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "f", "arguments": {"a": 1}}}]}, "done": False},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "x", "tool_calls": None},
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    ]
    for shape in others:
        assert S.recognizes(shape) is False, shape


def _json(keys: st.SearchStrategy[str]) -> st.SearchStrategy:
    return st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
        max_leaves=20,
    )


JSON = _json(st.text())
# the keys that make a shape this format's: a chunk's object/choices, a message's tool_calls
CLAIMING_KEYS = {"object", "choices", "tool_calls"}
JUNK = _json(st.text().filter(lambda k: k not in CLAIMING_KEYS))


@given(JUNK)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_recognizes_junk_is_false_and_never_raises(value):
    assert S.recognizes(value) is False


@given(st.dictionaries(st.sampled_from(sorted(CLAIMING_KEYS)), JSON, min_size=1))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_recognizes_never_raises_on_near_misses(value):
    assert isinstance(S.recognizes(value), bool)


def _opt(**fields):
    return st.fixed_dictionaries({}, optional=fields)


_FRAGMENT = _opt(index=st.just(0) | st.just("0") | JSON, id=JSON, type=JSON,
                 function=JSON | _opt(name=JSON, arguments=JSON))
_DELTA = JSON | _opt(role=JSON, content=JSON, refusal=JSON, reasoning_content=JSON,
                     tool_calls=JSON | st.lists(_FRAGMENT | JSON, max_size=3))
_CHOICE = JSON | _opt(index=st.just(0) | JSON, delta=_DELTA, finish_reason=JSON)
JUNK_CHUNK = st.one_of(
    JSON,
    _opt(object=st.just("chat.completion.chunk") | JSON, choices=JSON | st.lists(_CHOICE, max_size=3)),
)


@given(st.lists(JUNK_CHUNK, min_size=1, max_size=4))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_junk_after_a_valid_chunk_is_rejected_or_ignored(junk):
    buf = LLMStreamBuffer([OpenAIChatStrategy()])
    buf.feed(START)
    buf.feed(calls(frag(0, "a", "f", '{"x":')))
    before = copy.deepcopy(junk)
    for j in junk:
        try:
            delta = buf.feed(j)
        except MalformedChunk:
            continue
        except StreamError:
            assert isinstance(j, dict) and j.get("error")
            continue
        assert isinstance(delta, str)
    assert junk == before
    message = buf.as_dict()
    json.dumps(message)
    assert buf.display_text == S.content_text(message)
    for c in S.extract(message):
        assert isinstance(c, ToolCall)
    buf.feed(calls(frag(0, args="1}")))


# -- malformed chunks and provider errors ---------------------------------------------------------
@pytest.mark.parametrize("bad, field", [
    ({**chunk(), "choices": {"0": {}}}, "choices"),
    ({**chunk(), "choices": ["x"]}, r"choices\[0\]"),
    (chunk(delta="text"), r"choices\[0\]\.delta"),
    (chunk({"content": 5}), r"delta\.content"),
    (chunk({"role": ["assistant"]}), r"delta\.role"),
    (chunk({"tool_calls": {"index": 0}}), r"delta\.tool_calls"),
    (chunk({"tool_calls": [7]}), r"tool_calls\[0\]"),
    (calls(frag(0, "a", "f", None) | {"function": {"arguments": {"a": 1}}}), r"function\.arguments"),
    (calls({"index": 0, "function": {"name": 3}}), r"function\.name"),
    (calls({"index": 0, "function": "f"}), r"tool_calls\[0\]\.function"),
    (calls({"index": "first"}), r"tool_calls\[0\]\.index"),
    (calls({"index": 0, "id": 12}), r"tool_calls\[0\]\.id"),
    (chunk({"content": "x"}, index="zero"), r"choices\[0\]\.index"),
    (42, "JSON object"),
    ("data: nope", "JSON object"),
])
def test_malformed_chunks_name_the_field(bad, field):
    buf = LLMStreamBuffer([OpenAIChatStrategy()])
    buf.feed(START)
    buf.feed(chunk({"content": "ok"}))
    with pytest.raises(MalformedChunk, match=field):
        buf.feed(bad)
    assert buf.as_dict() == {"role": "assistant", "content": "ok"}


def test_in_stream_error_raises_stream_error():
    error = {"error": {"message": "The server had an error", "type": "server_error"}}
    buf = LLMStreamBuffer([OpenAIChatStrategy()])
    buf.feed(START)
    with pytest.raises(StreamError, match="server had an error") as info:
        buf.feed(error)
    assert info.value.payload == error
    assert not buf.done


# -- carriage of other keys -------------------------------------------------------------------------
def test_unknown_delta_keys_are_carried_like_the_sdk():
    stream = [
        chunk({"role": "assistant", "content": "", "reasoning_content": "Think"}),
        chunk({"reasoning_content": "ing.", "obfuscation": "ab"}),
        chunk({"content": "Hi", "obfuscation": "cd", "meta": {"tags": ["a"], "n": 1}}),
        chunk({"meta": {"tags": ["b"], "n": 2}, "content": None}),
        chunk({}, finish="stop"),
    ]
    message = run(stream).as_dict()
    assert message == {"role": "assistant", "content": "Hi", "reasoning_content": "Thinking.",
                       "obfuscation": "abcd", "meta": {"tags": ["a", "b"], "n": 3}}
    assert message == final_message(stream)


def test_usage_only_done_and_other_choices_change_nothing():
    base = [START, chunk({"content": "Hello"})]
    noisy = [START, {**chunk(), "choices": []}, chunk({"content": "Hello"}), "[DONE]",
             chunk({"content": " there"}, index=2), {**chunk(), "choices": [], "usage": {"total_tokens": 1}}]
    assert run(noisy).as_dict() == run(base).as_dict() == {"role": "assistant", "content": "Hello"}
