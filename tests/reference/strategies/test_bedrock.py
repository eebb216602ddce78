"""bedrock: the reference strategy on the recorded ConverseStream fixtures and on the hazards its
spec section names (fragments keyed by contentBlockIndex, cut turns, malformed events)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.buffer import LLMStreamBuffer
from mcs_conformance.reference.errors import MalformedChunk, StreamError
from mcs_conformance.reference.protocol import ToolCallRecord
from mcs_conformance.strategies import BedrockStrategy, default_chain
from mcs_conformance.suite.generators import json_values
from tests.helpers import realdata

MATCHED = "vercel-ai/bedrock/amazon-bedrock-json-other-tool.1"


def _feed(chunks: list) -> LLMStreamBuffer:
    buf = LLMStreamBuffer([BedrockStrategy()])
    for chunk in chunks:
        buf.feed(chunk)
    return buf


def start(index: int, tid: str, name: str) -> dict:
    return {"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": tid, "name": name}}}}


def piece(index: int, text: str) -> dict:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": text}}}}


def stop(index: int) -> dict:
    return {"contentBlockStop": {"contentBlockIndex": index}}


END = {"messageStop": {"stopReason": "tool_use"}}


@pytest.mark.parametrize("rel", realdata.files("vercel-ai/bedrock", ".chunks.jsonl"))
def test_every_recorded_stream_folds_and_is_done(rel):
    buf = _feed(realdata.payloads(rel))
    assert buf.done
    assert BedrockStrategy().recognizes(buf.as_dict())


def test_the_folded_stream_equals_its_recorded_stream_false_body():
    message = _feed(realdata.payloads(MATCHED + ".chunks.jsonl")).as_dict()
    body = json.loads(realdata.path(MATCHED + ".nonstream.json").read_text(encoding="utf-8"))
    assert message == body
    assert BedrockStrategy().recognizes(body)


def test_fragments_are_joined_by_content_block_index_not_by_arrival():
    chunks = [start(0, "a", "f"), start(1, "b", "f"), piece(1, '{"x": '), piece(0, '{"x": '), piece(0, "1}"), piece(1, "2}"),
              stop(1), stop(0), END]
    got = [(c.id, c.arguments, c.executable) for c in _extract(chunks)]
    assert got == [("a", {"x": 1}, True), ("b", {"x": 2}, True)]


def test_blocks_sit_in_index_order_whatever_order_they_start_in():
    strategy, acc = BedrockStrategy(), Accumulator()
    for chunk in [start(1, "b", "g"), {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "hi"}}}, piece(1, "{}"), stop(1), END]:
        strategy.accumulate(acc, chunk)
    content = acc.message["output"]["message"]["content"]
    assert content[0] == {"text": "hi"} and content[1]["toolUse"]["toolUseId"] == "b"


def _extract(chunks: list) -> list:
    strategy, acc = BedrockStrategy(), Accumulator()
    for chunk in chunks:
        strategy.accumulate(acc, chunk)
    return strategy.extract(acc.message)


def test_nothing_runs_before_message_stop():
    calls = _extract([start(0, "a", "f"), piece(0, '{"x": 1}'), stop(0)])
    assert [c.error for c in calls] == ["message incomplete"]


@pytest.mark.parametrize("reason", ["max_tokens", "model_context_window_exceeded", "malformed_tool_use"])
def test_a_cut_or_malformed_turn_runs_no_call(reason):
    calls = _extract([start(0, "a", "f"), piece(0, '{"x": 1}'), stop(0), start(1, "b", "f"), piece(1, '{"x": '),
                      {"messageStop": {"stopReason": reason}}])
    assert len(calls) == 2 and not any(c.executable for c in calls)


@pytest.mark.parametrize("text,arguments,ok", [("", {}, True), ('{"a": [1]}', {"a": [1]}, True), ("[1]", {}, False), ("{", {}, False)])
def test_the_input_is_parsed_when_its_block_stops(text, arguments, ok):
    (call,) = _extract([start(0, "a", "f"), piece(0, text), stop(0), END])
    assert call.arguments == arguments and call.executable is ok


@pytest.mark.parametrize(
    "chunk,says",
    [
        ("text", "JSON object"),
        ({}, "exactly one key"),
        ({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}, "messageStop": {}}, "exactly one key"),
        ({"contentBlockDelta": []}, "not an object"),
        ({"contentBlockDelta": {"contentBlockIndex": "0", "delta": {"text": "x"}}}, "contentBlockIndex"),
        (piece(5, "{}"), "no toolUse contentBlockStart"),
        ({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}}, "text delta for content block 0"),
        ({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": 3}}}}, "no string 'input'"),
        ({"messageStop": {}}, "stopReason"),
        (stop(7), "never started"),
    ],
)
def test_a_malformed_event_is_refused_naming_it(chunk, says):
    buf = LLMStreamBuffer([BedrockStrategy()])
    buf.feed({"messageStart": {"role": "assistant"}})
    buf.feed(start(0, "a", "f"))
    with pytest.raises(MalformedChunk) as info:
        buf.feed(chunk)
    assert says in str(info.value) and "bedrock" in str(info.value)


def test_an_exception_event_raises_stream_error_with_the_event():
    event = {"throttlingException": {"message": "slow down"}}
    buf = LLMStreamBuffer([BedrockStrategy()])
    buf.feed({"messageStart": {"role": "assistant"}})
    with pytest.raises(StreamError) as info:
        buf.feed(event)
    assert info.value.payload == event


def test_a_second_message_start_is_refused():
    buf = LLMStreamBuffer([BedrockStrategy()])
    buf.feed({"messageStart": {"role": "assistant"}})
    with pytest.raises(StreamError):
        buf.feed({"messageStart": {"role": "assistant"}})


def test_unknown_events_and_delta_kinds_change_nothing():
    with_noise = [start(0, "a", "f"), {"mcsNew": {"x": 1}}, piece(0, "{}"),
                  {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": {"x": 1}}}}, stop(0), END]
    assert [c.arguments for c in _extract(with_noise)] == [{}]


def test_result_messages_replay_reasoning_and_answer_in_one_user_message():
    strategy, acc = BedrockStrategy(), Accumulator()
    chunks = [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "think"}}}},
              {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig"}}}}, stop(0),
              start(1, "a", "f"), piece(1, "{}"), stop(1), start(2, "b", "g"), piece(2, "{}"), stop(2), END]
    for chunk in chunks:
        strategy.accumulate(acc, chunk)
    message = acc.message
    a, b = strategy.extract(message)
    history = strategy.result_messages(message, [ToolCallRecord(b, "2", True), ToolCallRecord(a, "1")])
    assert history[0]["content"][0] == {"reasoningContent": {"reasoningText": {"text": "think", "signature": "sig"}}}
    assert history[1] == {"role": "user", "content": [{"toolResult": {"toolUseId": "a", "content": [{"text": "1"}]}},
                                                     {"toolResult": {"toolUseId": "b", "content": [{"text": "2"}], "status": "error"}}]}
    assert strategy.recognizes(history[0]) and [c.id for c in strategy.extract(history[0])] == ["a", "b"]
    with pytest.raises(ValueError, match="no toolUseId"):
        strategy.result_messages(message, [ToolCallRecord(a.__class__(name="f", id="zz"), "x")])


def test_not_in_the_default_chain_and_claims_no_other_format():
    assert not any(isinstance(s, BedrockStrategy) for s in default_chain())
    strategy = BedrockStrategy()
    for shape in ({"type": "message_start", "message": {}}, {"choices": []}, {"role": "assistant", "content": "hi"},
                  {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "x"}]}):
        assert not strategy.recognizes(shape)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(junk=json_values())
def test_junk_after_the_first_event_raises_only_documented_errors(junk):
    buf = LLMStreamBuffer([BedrockStrategy()])
    buf.feed({"messageStart": {"role": "assistant"}})
    try:
        buf.feed(junk)
    except (MalformedChunk, StreamError):
        pass
    buf.as_dict()


@settings(max_examples=150, derandomize=True, deadline=None)
@given(name=st.sampled_from(["contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"]),
       payload=json_values())
def test_junk_payloads_of_known_events_raise_only_documented_errors(name, payload):
    buf = LLMStreamBuffer([BedrockStrategy()])
    buf.feed({"messageStart": {"role": "assistant"}})
    buf.feed(start(0, "a", "f"))
    try:
        buf.feed({name: payload})
    except (MalformedChunk, StreamError):
        pass
    BedrockStrategy().extract(buf.as_dict())


def test_the_bundled_cases_are_what_the_build_script_writes():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    run = subprocess.run([sys.executable, str(root / "scripts" / "build_bedrock.py"), "--check"],
                         capture_output=True, text=True, cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
