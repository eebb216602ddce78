"""cohere: the reference strategy on the recorded streams and bodies, and on broken events."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings

from mcs_conformance import LLMStreamBuffer, MalformedChunk, StreamError
from mcs_conformance.reference.chain import ExtractionChain
from mcs_conformance.reference.protocol import ToolCallRecord
from mcs_conformance.strategies import CohereStrategy, default_chain
from mcs_conformance.suite.generators import json_values
from tests.helpers import realdata

TOOL_CALL = "vercel-ai/cohere/cohere-tool-call.chunks.jsonl"
START = {"id": "m1", "type": "message-start",
         "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}}


def _feed(chunks: list) -> LLMStreamBuffer:
    buf = LLMStreamBuffer(ExtractionChain([CohereStrategy()]))
    for chunk in chunks:
        buf.feed(chunk)
    return buf


def _call_start(index: int, call_id: str, name: str, arguments: str = "") -> dict:
    return {"type": "tool-call-start", "index": index,
            "delta": {"message": {"tool_calls": {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}}}}


def _call_delta(index: int, piece: str) -> dict:
    return {"type": "tool-call-delta", "index": index, "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}}}


END = {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {"tokens": {"input_tokens": 1, "output_tokens": 2}}}}


@pytest.mark.parametrize("rel", realdata.files("vercel-ai/cohere", ".chunks.jsonl"))
def test_recorded_streams_fold_to_a_body_of_the_stream_false_shape(rel):
    buf = _feed(realdata.payloads(rel))
    body = buf.as_dict()
    assert buf.done
    assert set(body) == {"id", "message", "finish_reason", "usage"}
    # a stream=false body leaves out what is empty (recordings/vercel-ai/cohere/*.nonstream.json)
    assert all(v not in ([], "", None) for v in body["message"].values())


def test_the_tool_call_recording_gives_both_calls_with_their_ids():
    buf = _feed(realdata.payloads(TOOL_CALL))
    calls = CohereStrategy().extract(buf.as_dict())
    assert [(c.id, c.name, c.arguments, c.executable) for c in calls] == [
        ("weather_e8p4pn45zt0t", "weather", {"location": "San Francisco"}, True),
        ("cityAttractions_pyxssbwnq9fq", "cityAttractions", {"city": "San Francisco"}, True),
    ]
    assert buf.as_dict()["message"]["tool_plan"].startswith("I will use the weather tool")
    assert buf.display_text == ""  # the tool plan is no content text


@pytest.mark.parametrize("rel", realdata.files("vercel-ai/cohere", ".nonstream.json"))
def test_recorded_bodies_are_recognized_and_read(rel):
    body = json.loads(realdata.path(rel).read_text(encoding="utf-8"))
    strategy = CohereStrategy()
    assert strategy.recognizes(body)
    assert not any(s.recognizes(body) for s in default_chain())
    for call in strategy.extract(body):
        assert call.executable and isinstance(call.arguments, dict)


def test_null_arguments_of_a_stream_false_body_are_no_arguments():
    body = json.loads(realdata.path("vercel-ai/cohere/cohere-null-args.nonstream.json").read_text(encoding="utf-8"))
    (call,) = CohereStrategy().extract(body)
    assert call.arguments == {} and call.executable


def test_interleaved_fragments_go_to_the_call_their_index_names():
    buf = _feed([START, _call_start(0, "a", "f"), _call_start(1, "b", "g"), _call_delta(1, '{"y"'), _call_delta(0, '{"x"'),
                 _call_delta(0, ": 1}"), _call_delta(1, ": 2}"), {"type": "tool-call-end", "index": 0},
                 {"type": "tool-call-end", "index": 1}, END])
    assert [(c.name, c.arguments) for c in CohereStrategy().extract(buf.as_dict())] == [("f", {"x": 1}), ("g", {"y": 2})]


@pytest.mark.parametrize("finish", [None, "MAX_TOKENS", "ERROR", "TIMEOUT", "SOMETHING_NEW"])
def test_no_call_runs_from_a_turn_that_did_not_finish(finish):
    chunks = [START, _call_start(0, "a", "f"), _call_delta(0, "{}")]
    if finish is not None:
        chunks.append({"type": "message-end", "delta": {"finish_reason": finish}})
    (call,) = CohereStrategy().extract(_feed(chunks).as_dict())
    assert not call.executable


@pytest.mark.parametrize("raw", ['{"a": 1', "[1]", "3", '"x"', '{"a": NaN}'])
def test_arguments_that_are_no_object_give_an_error_call(raw):
    (call,) = CohereStrategy().extract(_feed([START, _call_start(0, "a", "f", raw), END]).as_dict())
    assert not call.executable and call.raw_arguments == raw


def test_a_repeated_id_and_a_missing_name_are_error_calls():
    buf = _feed([START, _call_start(0, "a", "f", "{}"), _call_start(1, "a", "g", "{}"), _call_start(2, "c", "", "{}"), END])
    assert [c.executable for c in CohereStrategy().extract(buf.as_dict())] == [True, False, False]


def test_content_text_is_the_text_blocks_and_display_follows_it():
    rel = "vercel-ai/cohere/cohere-reasoning.chunks.jsonl"
    buf = _feed(realdata.payloads(rel))
    assert CohereStrategy().content_text(buf.as_dict()) == buf.display_text == "The answer to 2 + 2 is 4."


def test_an_error_in_message_end_raises_stream_error_with_the_event():
    failed = {"type": "message-end", "delta": {"error": "boom", "finish_reason": "ERROR"}}
    with pytest.raises(StreamError) as info:
        _feed([START, failed])
    assert info.value.payload == failed


def test_a_second_message_start_is_refused():
    with pytest.raises(StreamError, match="second message-start"):
        _feed([START, START])


@pytest.mark.parametrize(
    ("chunks", "words"),
    [
        ([{"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}}], "before message-start"),
        ([START, _call_delta(0, "{}")], "never started"),
        ([START, _call_start(0, "a", "f"), {"type": "tool-call-end", "index": 0}, _call_delta(0, "{}")], "after it ended"),
        ([START, _call_start(0, "a", "f"), _call_start(0, "a", "f")], "started twice"),
        ([START, _call_start(0, "a", "f"), {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": 5}}}}}], "no string 'arguments'"),
        ([START, {"type": "tool-call-delta", "index": "0", "delta": {}}], "no integer index"),
        ([START, {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "x"}}}}], "never started"),
        ([START, {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": 3}}}], "delta.message.tool_plan"),
        ([START, END, {"type": "content-end", "index": 0}], "after message-end"),
        ([START, "not an event"], "JSON object"),
        ([{"type": "message-start", "delta": {}}], "delta.message"),
    ],
)
def test_malformed_events_are_refused_naming_the_event(chunks, words):
    with pytest.raises(MalformedChunk) as info:
        _feed(chunks)
    text = str(info.value)
    assert text.startswith("cohere: ") and words in text, text


@settings(max_examples=150, derandomize=True, deadline=None)
@given(junk=json_values())
def test_junk_after_the_start_raises_only_documented_errors(junk):
    buf = _feed([START, _call_start(0, "a", "f")])
    try:
        buf.feed(junk)
    except (MalformedChunk, StreamError):
        pass
    buf.as_dict()


def test_noise_changes_nothing():
    plain = _feed(realdata.payloads(TOOL_CALL)).as_dict()
    chunks = realdata.payloads(TOOL_CALL)
    noisy = chunks[:1] + [{"type": "debug", "prompt": "p"}, {"type": "future-event"}] + chunks[1:] + ["[DONE]"]
    assert _feed(noisy).as_dict() == plain


def test_recognizes_never_raises_and_claims_no_other_wire():
    strategy = CohereStrategy()
    for shape in (None, 3, "text", [], {}, {"type": "message_start"}, {"message": "x"},
                  {"model": "llama3", "message": {"role": "assistant", "content": "hi"}, "done": True},
                  {"role": "assistant", "tool_calls": []}):
        assert strategy.recognizes(shape) is False


def test_result_messages_replay_the_turn_and_answer_each_call_in_order():
    body = _feed(realdata.payloads(TOOL_CALL)).as_dict()
    strategy = CohereStrategy()
    first, second = strategy.extract(body)
    history = strategy.result_messages(body, [ToolCallRecord(second, "sunny"), ToolCallRecord(first, "20C")])
    assert history[0]["role"] == "assistant" and history[0]["tool_plan"] == body["message"]["tool_plan"]
    assert [c["id"] for c in history[0]["tool_calls"]] == [first.id, second.id]
    assert history[1:] == [{"role": "tool", "tool_call_id": first.id, "content": "20C"},
                           {"role": "tool", "tool_call_id": second.id, "content": "sunny"}]
    # the replayed turn reads back as the same calls
    assert [c.id for c in strategy.extract(history[0])] == [first.id, second.id]
    stranger = dataclasses.replace(first, id="nope")
    with pytest.raises(ValueError, match="nope"):
        strategy.result_messages(body, [ToolCallRecord(stranger, "x")])


def test_the_bundled_cases_are_what_the_builder_writes():
    """scripts/build_cohere_corpus.py builds every cohere case from recordings/vercel-ai/cohere/."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, str(root / "scripts" / "build_cohere_corpus.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
