"""The extraction axis on real formats: native wins, the null guard, the leak fall-through."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_conformance import ToolCall, ToolCallRecord, extract_calls
from mcs_conformance.strategies import default_backup, default_chain

CALL_TEXT = 'Let me check. {"tool": "get_weather", "arguments": {"city": "Paris"}}'
CALL = ToolCall(name="get_weather", arguments={"city": "Paris"})


def extract(message):
    chain = default_chain()
    return extract_calls(message, chain, default_backup(chain))


def anthropic_message(text: str) -> dict:
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
    }


def responses_message(text: str) -> dict:
    return {
        "id": "resp_01", "object": "response", "status": "completed", "model": "gpt-4.1",
        "output": [{"id": "msg_01", "type": "message", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
    }


def names_and_args(calls):
    return [(c.name, c.arguments, c.error) for c in calls]


def test_anthropic_leak_goes_to_the_backup_with_a_text_continuation():
    found = extract(anthropic_message(CALL_TEXT))
    assert found.resolved.name == "anthropic-messages"
    assert found.via_backup and found.strategy.name == "text-json"
    assert names_and_args(found.calls) == [("get_weather", {"city": "Paris"}, None)]
    history = found.result_messages([ToolCallRecord(found.calls[0], "18 degrees")])
    assert [m["role"] for m in history] == ["assistant", "user"]
    assert all(isinstance(m["content"], str) for m in history)  # text-style, no tool_use / tool_result blocks
    assert history[0]["content"] == CALL_TEXT and "18 degrees" in history[1]["content"]


def test_responses_leak_goes_to_the_backup_with_a_text_continuation():
    found = extract(responses_message(CALL_TEXT))
    assert found.resolved.name == "openai-responses"
    assert found.via_backup and found.strategy.name == "text-json"
    assert names_and_args(found.calls) == [("get_weather", {"city": "Paris"}, None)]
    history = found.result_messages([ToolCallRecord(found.calls[0], "18 degrees")])
    assert not any("call_id" in m or m.get("type") == "function_call_output" for m in history)


def test_null_and_empty_tool_calls_are_authoritative_no_call():
    for tool_calls in (None, []):
        message = {"role": "assistant", "content": CALL_TEXT, "tool_calls": tool_calls}
        found = extract(message)
        assert found.calls == () and found.resolved.name == "openai-chat" and not found.via_backup


def test_content_only_openai_message_goes_to_text_directly():
    found = extract({"role": "assistant", "content": CALL_TEXT, "refusal": None})
    assert found.resolved.name == "text-json" and not found.via_backup
    assert names_and_args(found.calls) == [("get_weather", {"city": "Paris"}, None)]


def test_native_call_wins_over_text_in_the_same_message():
    message = anthropic_message(CALL_TEXT)
    message["content"].append({"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}})
    message["stop_reason"] = "tool_use"
    found = extract(message)
    assert not found.via_backup and found.strategy.name == "anthropic-messages"
    assert [(c.name, c.id) for c in found.calls] == [("lookup", "toolu_1")]


MESSAGES = [
    anthropic_message(CALL_TEXT),
    anthropic_message("no call here"),
    responses_message(CALL_TEXT),
    {"role": "assistant", "content": CALL_TEXT, "tool_calls": None},
    {"role": "assistant", "content": CALL_TEXT},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
    CALL_TEXT,
    "plain text",
    {"unknown": "shape"},
]


def view(found):
    return (json.dumps([(c.name, c.arguments, c.id, c.error) for c in found.calls]),
            found.strategy.name if found.strategy else None, found.via_backup)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.integers(0, len(MESSAGES) - 1), max_size=20))
def test_promotion_on_match_never_changes_a_result(sequence):
    shared = default_chain()
    backup = default_backup(shared)
    for i in sequence:
        fresh = default_chain()
        assert view(extract_calls(MESSAGES[i], shared, backup)) == view(extract_calls(MESSAGES[i], fresh, default_backup(fresh)))
