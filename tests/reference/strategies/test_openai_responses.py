"""The openai-responses strategy against the openai SDK's own accumulator and recorded streams."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.buffer import LLMStreamBuffer
from mcs_conformance.corpus_tools.capture import split_at
from mcs_conformance.reference.errors import MalformedChunk, StreamError
from mcs_conformance.corpus_tools.oracles.openai_responses import final_message
from mcs_conformance.reference.protocol import ToolCall, ToolCallRecord
from mcs_conformance.reference.strategies.openai_responses import OpenAIResponsesStrategy
from tests.helpers import realdata

S = OpenAIResponsesStrategy()
DIR = "vercel-ai/responses"
ERROR = f"{DIR}/openai-error.1.chunks.jsonl"
COPILOT = f"{DIR}/github-copilot-id-rotation.1.chunks.jsonl"
AZURE_TOOL = f"{DIR}/azure-tool-call.1.chunks.jsonl"
REASONING = f"{DIR}/openai-reasoning-encrypted-content.1.chunks.jsonl"
CUSTOM = f"{DIR}/openai-custom-tool.1.chunks.jsonl"


def _streams() -> list[tuple[str, list]]:
    out = []
    for rel in realdata.files(DIR, ".chunks.jsonl"):
        if rel == ERROR:
            continue
        parts = split_at(realdata.payloads(rel), {"response.created"})
        for n, part in enumerate(parts):
            out.append((f"{rel.rsplit('/', 1)[-1].removesuffix('.chunks.jsonl')}#{n}", part))
    return out


STREAMS = _streams()
SDK_STREAMS = [(name, p) for name, p in STREAMS if not name.startswith("github-copilot")]
ALL_IDS = [name for name, _ in STREAMS]
SDK_IDS = [name for name, _ in SDK_STREAMS]


def feed(chunks, strategy=None) -> LLMStreamBuffer:
    buf = LLMStreamBuffer([strategy or OpenAIResponsesStrategy()])
    for chunk in chunks:
        buf.feed(chunk)
    return buf


def sdk_events(payloads):
    from openai._models import construct_type
    from openai.types.responses import ResponseStreamEvent

    return [construct_type(type_=ResponseStreamEvent, value=copy.deepcopy(p)) for p in payloads]


def wire_final(payloads) -> dict:
    """The response of the stream's own response.completed event, as recorded."""
    (event,) = (p for p in payloads if p.get("type") in ("response.completed", "response.incomplete"))
    return event["response"]


def growing_fields(output: list) -> list:
    """Per output item: what the deltas build (texts, arguments, input, summaries, annotations)."""
    out = []
    for item in output:
        out.append(
            (
                item.get("type"),
                item.get("arguments"),
                item.get("input"),
                [(p.get("type"), p.get("text"), p.get("refusal"), p.get("annotations"))
                 for p in item.get("content") or []],
                [p.get("text") for p in item.get("summary") or []],
            )
        )
    return out


# ------------------------------------------------------------------------------ PARITY
@pytest.mark.parametrize("name,payloads", SDK_STREAMS, ids=SDK_IDS)
def test_parity_with_sdk_accumulator(name, payloads):
    expected = final_message(payloads)
    buf = feed(payloads)
    assert buf.as_dict() == expected
    assert buf.done is True
    assert buf.display_text == S.content_text(buf.as_dict())
    json.dumps(buf.as_dict())


@pytest.mark.parametrize("name,payloads", SDK_STREAMS, ids=SDK_IDS)
def test_parity_fed_sdk_event_objects(name, payloads):
    buf = feed(sdk_events(payloads))
    assert buf.as_dict() == final_message(payloads)
    assert buf.display_text == S.content_text(buf.as_dict())


def test_copilot_id_rotation_is_rejected_by_the_sdk_but_not_by_us():
    payloads = realdata.payloads(COPILOT)
    with pytest.raises(ValueError, match="identity changed"):
        final_message(payloads)
    # The completed event's own response is the authoritative stream=false object.
    buf = feed(payloads)
    assert buf.as_dict() == wire_final(payloads)
    assert buf.as_dict()["id"] == "capture-id-69"
    assert S.content_text(buf.as_dict()).startswith("There are **3** letter")
    assert buf.display_text == S.content_text(buf.as_dict())
    assert feed(sdk_events(payloads)).as_dict() == wire_final(payloads)


def trimmed(payloads) -> bool:
    """True when the recording left events out (its sequence numbers jump): openai-phase.1."""
    seq = [p.get("sequence_number") for p in payloads if isinstance(p.get("sequence_number"), int)]
    return any(b != a + 1 for a, b in zip(seq, seq[1:]))


def assert_built(built: list, final: list, payloads_trimmed: bool) -> None:
    """Delta-built items equal the final ones; on a trimmed recording, each string is a prefix."""
    if not payloads_trimmed:
        assert growing_fields(built) == growing_fields(final)
        return
    assert len(built) == len(final)
    for b, f in zip(growing_fields(built), growing_fields(final)):
        assert len(_strings(b)) == len(_strings(f))
        for bs, fs in zip(_strings(b), _strings(f)):
            assert fs.startswith(bs)


def _strings(value) -> list:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize("name,payloads", STREAMS, ids=ALL_IDS)
def test_deltas_alone_build_the_same_output(name, payloads):
    """Without any *.done event and without response.completed, the deltas give the final values."""
    deltas_only = [p for p in payloads
                   if not p["type"].endswith(".done") and p["type"] != "response.completed"]
    buf = feed(deltas_only)
    assert buf.done is False
    final = wire_final(payloads)
    assert_built(buf.as_dict()["output"], final["output"], trimmed(payloads))
    recorded = "".join(p["delta"] for p in payloads if p["type"] == "response.output_text.delta")
    assert buf.display_text == recorded
    if not trimmed(payloads):
        assert recorded == S.content_text(final)


def test_trimmed_recording_fills_the_display_from_the_done_events():
    payloads = realdata.payloads(f"{DIR}/openai-phase.1.chunks.jsonl")
    assert trimmed(payloads)
    buf = feed(payloads)
    recorded = "".join(p["delta"] for p in payloads if p["type"] == "response.output_text.delta")
    assert len(recorded) < len(buf.display_text)
    assert buf.display_text == S.content_text(final_message(payloads))


@pytest.mark.parametrize("name,payloads", STREAMS, ids=ALL_IDS)
def test_item_built_from_deltas_matches_its_done_item(name, payloads):
    """Peeking right before each output_item.done: the delta-built item has the done item's values."""
    deltas_only = [p for p in payloads
                   if not p["type"].endswith(".done") or p["type"] == "response.output_item.done"]
    buf = LLMStreamBuffer([OpenAIResponsesStrategy()])
    checked = 0
    added: list[int] = []
    for p in deltas_only:
        if p["type"] == "response.output_item.added":
            added.append(p["output_index"])
        if p["type"] == "response.output_item.done":
            position = sorted(added).index(p["output_index"])  # openai-phase.1 skips output_index 1
            built = buf.as_dict()["output"][position]
            assert_built([built], [p["item"]], trimmed(payloads))
            checked += 1
        buf.feed(p)
    assert checked == sum(p["type"] == "response.output_item.done" for p in payloads)


@pytest.mark.parametrize("name,payloads", SDK_STREAMS, ids=SDK_IDS)
def test_cut_after_finished_items_matches_the_sdk_snapshot(name, payloads):
    """A stream cut when every item so far is done: the SDK's own snapshot equals our message."""
    open_items: set[int] = set()
    cuts = 0
    for n, p in enumerate(payloads):
        if p["type"] == "response.output_item.added":
            open_items.add(p["output_index"])
        elif p["type"] == "response.output_item.done":
            open_items.discard(p["output_index"])
            if not open_items:
                cut = payloads[: n + 1]
                buf = feed(cut)
                assert buf.as_dict() == final_message(cut)
                assert buf.done is False
                cuts += 1
    assert cuts >= any(p["type"] == "response.output_item.done" for p in payloads)


@pytest.mark.parametrize("name,payloads", STREAMS, ids=ALL_IDS)
def test_done_only_on_completion(name, payloads):
    flags = [S.is_done(p) for p in payloads]
    assert flags[-1] is True
    assert not any(flags[:-1])


@pytest.mark.parametrize("name,payloads", STREAMS, ids=ALL_IDS)
def test_recognizes_every_event_and_the_message(name, payloads):
    assert all(S.recognizes(p) for p in payloads)
    assert S.recognizes(feed(payloads).as_dict())


# ------------------------------------------------------------------------------ facts read by eye
def test_azure_tool_call_extracts_its_function_call():
    calls = S.extract(feed(realdata.payloads(AZURE_TOOL)).as_dict())
    assert calls == [
        ToolCall(
            name="weather",
            arguments={"location": "San Francisco"},
            id="call_H5DxLSFnsGhiROnUiDHmgyc8",
            raw_arguments='{"location":"San Francisco"}',
        )
    ]
    assert calls[0].id != "fc_04041325ab8ae30400698c51c5468c8197a395f18875a5339f"
    assert S.forming_name(feed(realdata.payloads(AZURE_TOOL)).as_dict()) == "weather"


def test_reasoning_recording_has_three_calculator_calls():
    steps = split_at(realdata.payloads(REASONING), {"response.created"})
    assert len(steps) == 4
    calls = [c for step in steps for c in S.extract(feed(step).as_dict())]
    assert [(c.name, c.id, c.arguments) for c in calls] == [
        ("calculator", "call_AB6AaRZ1FYZB2RwS6A5vbdqn", {"a": 12, "b": 7, "op": "add"}),
        ("calculator", "call_Q6pW65MUgW9vF59BmItYGos3", {"a": 19, "b": 3, "op": "multiply"}),
        ("calculator", "call_Zl5vIMnD7dVAjgU6FkhmiCZh", {"a": 57, "b": 10, "op": "multiply"}),
    ]
    assert all(c.error is None for c in calls)
    assert S.content_text(feed(steps[3]).as_dict()) == "The final result is **570**."


def test_reasoning_item_replayed_with_encrypted_content():
    step = split_at(realdata.payloads(REASONING), {"response.created"})[0]
    message = feed(step).as_dict()
    (call,) = S.extract(message)
    history = S.result_messages(message, [ToolCallRecord(call, "19")])
    reasoning, fc, result = history
    wire_reasoning = wire_final(step)["output"][0]
    assert reasoning["type"] == "reasoning"
    assert reasoning["id"] == "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9"
    assert reasoning["encrypted_content"] == wire_reasoning["encrypted_content"]
    assert reasoning["encrypted_content"].startswith("gAAAAAB")
    assert reasoning["summary"][0]["text"].startswith("**Calculating step-by-step using calculator**")
    assert fc["type"] == "function_call" and fc["call_id"] == "call_AB6AaRZ1FYZB2RwS6A5vbdqn"
    assert fc["arguments"] == '{"a":12,"b":7,"op":"add"}'
    assert result == {"type": "function_call_output", "call_id": "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
                      "output": "19"}
    assert all(None not in item.values() for item in history)


def test_openai_error_recording_raises_stream_error_with_payload():
    payloads = realdata.payloads(ERROR)
    buf = LLMStreamBuffer([OpenAIResponsesStrategy()])
    buf.feed(payloads[0])
    buf.feed(payloads[1])
    with pytest.raises(StreamError, match="insufficient_quota") as info:
        buf.feed(payloads[2])
    assert info.value.payload == payloads[2]
    assert info.value.payload["error"]["code"] == "insufficient_quota"
    assert buf.done is False
    assert S.recognizes(payloads[2])


def test_response_failed_raises_stream_error():
    payloads = realdata.payloads(ERROR)
    failed = payloads[3]
    assert failed["type"] == "response.failed"
    buf = feed(payloads[:2])
    with pytest.raises(StreamError, match="You exceeded your current quota") as info:
        buf.feed(failed)
    assert info.value.payload == failed
    assert buf.done is False


def test_custom_tool_call():
    message = feed(realdata.payloads(CUSTOM)).as_dict()
    (call,) = S.extract(message)
    assert call == ToolCall(
        name="write_sql",
        arguments={"input": "SELECT * FROM users WHERE age > 25"},
        id="call_custom_sql_001",
        raw_arguments="SELECT * FROM users WHERE age > 25",
    )
    history = S.result_messages(message, [ToolCallRecord(call, "3 rows")])
    assert history[-1] == {"type": "custom_tool_call_output", "call_id": "call_custom_sql_001",
                           "output": "3 rows"}
    assert history[0]["type"] == "custom_tool_call"


# ------------------------------------------------------------------------------ prefixes
@pytest.mark.parametrize("name,payloads", STREAMS, ids=ALL_IDS)
def test_prefix_never_executes_a_different_call(name, payloads):
    final_calls = S.extract(wire_final(payloads))
    names = []
    buf = LLMStreamBuffer([OpenAIResponsesStrategy()])
    for p in payloads:
        buf.feed(p)
        message = buf.as_dict()
        for n, call in enumerate(S.extract(message)):
            if call.error is None:
                assert call == final_calls[n]
        names.append(S.forming_name(message))
    first = final_calls[0].name if final_calls else None
    assert names[-1] == first
    assert all(n in (None, first) for n in names)
    if first is not None:
        assert names.index(first) == len(names) - names[::-1].index(None)


def test_stream_cut_before_item_done_gives_only_error_calls():
    payloads = realdata.payloads(AZURE_TOOL)
    cut = [p for p in payloads if p["type"] not in ("response.output_item.done", "response.completed")]
    message = feed(cut).as_dict()
    assert message["output"][0]["arguments"] == '{"location":"San Francisco"}'
    (call,) = S.extract(message)
    assert call.error is not None and "in_progress" in call.error
    assert call.id == "call_H5DxLSFnsGhiROnUiDHmgyc8"


def test_custom_tool_without_status_is_unfinished_until_done():
    payloads = realdata.payloads(CUSTOM)
    assert "status" not in payloads[2]["item"]
    message = feed(payloads[:5]).as_dict()
    (call,) = S.extract(message)
    assert call.error is not None
    assert payloads[2]["item"] == {"type": "custom_tool_call", "id": "ct_abc123def456",
                                   "call_id": "call_custom_sql_001", "name": "write_sql", "input": ""}


# ------------------------------------------------------------------------------ hand-made quirks
def created(rid="resp_1"):
    return {"type": "response.created", "sequence_number": 0,
            "response": {"id": rid, "object": "response", "status": "in_progress", "output": []}}


def fc_added(index, call_id, name, item_id=None, status="in_progress"):
    item = {"id": item_id or f"fc_{index}", "type": "function_call", "status": status,
            "arguments": "", "call_id": call_id, "name": name}
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def args_delta(index, delta, item_id=None):
    return {"type": "response.function_call_arguments.delta", "output_index": index,
            "item_id": item_id or f"fc_{index}", "delta": delta}


def fc_done(index, call_id, name, arguments):
    item = {"id": f"fc_{index}", "type": "function_call", "status": "completed",
            "arguments": arguments, "call_id": call_id, "name": name}
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def completed(output, rid="resp_1", status="completed"):
    return {"type": f"response.{status}", "response": {"id": rid, "object": "response", "status": status,
                                                       "output": output}}


def test_parallel_calls_with_interleaved_argument_deltas():
    chunks = [
        created(),
        fc_added(0, "call_a", "get_weather"),
        fc_added(1, "call_b", "get_time"),
        args_delta(0, '{"x'),
        args_delta(1, '{"y'),
        args_delta(0, '":1}'),
        args_delta(1, '":2}'),
    ]
    buf = feed(chunks)
    assert [i["arguments"] for i in buf.as_dict()["output"]] == ['{"x":1}', '{"y":2}']
    buf.feed(fc_done(0, "call_a", "get_weather", '{"x":1}'))
    buf.feed(fc_done(1, "call_b", "get_time", '{"y":2}'))
    calls = S.extract(buf.as_dict())
    assert [(c.name, c.id, c.arguments, c.error) for c in calls] == [
        ("get_weather", "call_a", {"x": 1}, None),
        ("get_time", "call_b", {"y": 2}, None),
    ]


def test_deltas_keyed_by_item_id_when_output_index_is_missing():
    chunks = [created(), fc_added(0, "call_a", "a"), fc_added(1, "call_b", "b")]
    chunks += [{"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '{"k":'},
               {"type": "response.function_call_arguments.delta", "item_id": "fc_0", "delta": "{}"},
               {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "2}"}]
    assert [i["arguments"] for i in feed(chunks).as_dict()["output"]] == ["{}", '{"k":2}']


def test_rotating_item_ids_follow_output_index():
    chunks = [created(), fc_added(0, "call_a", "a", item_id="fc_first"),
              args_delta(0, '{"q":', item_id="rotated-1"), args_delta(0, '"v"}', item_id="rotated-2")]
    assert feed(chunks).as_dict()["output"][0]["arguments"] == '{"q":"v"}'


@pytest.mark.parametrize("pieces", [
    ['{"s": "\\uD83D', '\\uDE00"}'],
    ['{"s": "\\uD8', '3D\\uDE', '00"}'],
    ['{"s": "\\', 'uD83D\\', 'uDE00"}'],
])
def test_surrogate_pair_escape_split_across_argument_deltas(pieces):
    raw = "".join(pieces)
    chunks = [created(), fc_added(0, "call_e", "emoji")] + [args_delta(0, p) for p in pieces]
    chunks += [fc_done(0, "call_e", "emoji", raw)]
    (call,) = S.extract(feed(chunks).as_dict())
    assert call.arguments == {"s": "\U0001F600"}
    assert call.raw_arguments == raw
    assert call.error is None


def test_fc_item_id_is_never_the_call_id():
    chunks = [created(), fc_added(0, "call_real", "f", item_id="fc_item"), args_delta(0, "{}", "fc_item"),
              fc_done(0, "call_real", "f", "{}")]
    message = feed(chunks).as_dict()
    (call,) = S.extract(message)
    assert call.id == "call_real"
    assert call.arguments == {}
    history = S.result_messages(message, [ToolCallRecord(call, "ok")])
    assert history[-1] == {"type": "function_call_output", "call_id": "call_real", "output": "ok"}
    wrong = ToolCall(name="f", arguments={}, id="fc_0")
    with pytest.raises(ValueError, match="call_id"):
        S.result_messages(message, [ToolCallRecord(wrong, "ok")])


def test_completed_snapshot_replaces_the_deltas_never_appends():
    item = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "Hello world", "annotations": []}]}
    chunks = [
        created(),
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**item, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", "output_index": 0, "content_index": 0,
         "part": {"type": "output_text", "text": "", "annotations": []}},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hello"},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": " world"},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        completed([item]),
    ]
    buf = feed(chunks)
    assert buf.as_dict()["output"] == [item]
    assert S.content_text(buf.as_dict()) == "Hello world"
    assert buf.display_text == "Hello world"


def test_snapshot_only_stream_still_displays_its_text():
    item = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "only in the snapshot", "annotations": []}]}
    buf = feed([created(), completed([item])])
    assert buf.display_text == "only in the snapshot" == S.content_text(buf.as_dict())


def test_completed_without_output_keeps_the_finished_items():
    done = fc_done(0, "call_a", "f", '{"a":1}')
    event = completed(None)
    del event["response"]["output"]
    buf = feed([created(), fc_added(0, "call_a", "f"), args_delta(0, '{"a":1}'), done, event])
    assert buf.as_dict()["output"] == [done["item"]]
    assert buf.done


def test_incomplete_response_gives_error_calls():
    item = {"id": "fc_0", "type": "function_call", "status": "incomplete", "arguments": '{"a":',
            "call_id": "call_a", "name": "f"}
    chunks = [created(), fc_added(0, "call_a", "f"), args_delta(0, '{"a":'),
              {"type": "response.output_item.done", "output_index": 0, "item": item},
              completed([item], status="incomplete")]
    buf = feed(chunks)
    assert buf.done
    assert S.is_done(chunks[-1])
    (call,) = S.extract(buf.as_dict())
    assert call.error is not None and call.raw_arguments == '{"a":'


def test_a_finished_call_of_an_incomplete_response_is_not_run():
    item = {"id": "fc_0", "type": "function_call", "status": "completed", "arguments": '{"a":1}',
            "call_id": "call_a", "name": "f"}
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    head = [created(), fc_added(0, "call_a", "f"), args_delta(0, '{"a":1}'), done]
    (call,) = S.extract(feed([*head, completed([item], status="incomplete")]).as_dict())
    assert call.error and "incomplete" in call.error and not call.executable
    (call,) = S.extract(feed([*head, completed([item])]).as_dict())
    assert call.executable and call.arguments == {"a": 1}


@pytest.mark.parametrize("arguments,ok", [("", True), ("{}", True), ("[1]", False), ('{"a":', False),
                                          ('{"a": NaN}', False), ("null", False)])
def test_argument_parsing(arguments, ok):
    message = {"object": "response", "output": [
        {"type": "function_call", "status": "completed", "call_id": "c", "name": "f",
         "arguments": arguments}]}
    (call,) = S.extract(message)
    assert (call.error is None) is ok
    if ok:
        assert call.arguments == {}
    else:
        assert call.arguments == {} and call.raw_arguments == arguments


def test_builtin_tool_items_are_not_calls():
    payloads = realdata.payloads(f"{DIR}/openai-web-search-tool.1.chunks.jsonl")
    message = feed(payloads).as_dict()
    assert sum(i["type"] == "web_search_call" for i in message["output"]) == 6
    assert S.extract(message) == []
    assert S.forming_name(message) is None
    assert len(message["output"][-1]["content"][0]["annotations"]) == 12


@pytest.mark.parametrize("chunk,problem", [
    (args_delta(7, "x"), "point to no output item"),
    ({**args_delta(0, "x"), "delta": 3}, "'delta' is not a string"),
    ({"type": "response.output_item.added", "output_index": 0}, "without an 'item'"),
    ({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "x"},
     "targets a 'function_call' item"),
    (["not", "an", "event"], "must be a dict"),
    ({"no": "type"}, "without a string 'type'"),
])
def test_malformed_chunks_name_the_problem(chunk, problem):
    buf = feed([created(), fc_added(0, "call_a", "f")])
    with pytest.raises(MalformedChunk, match=problem):
        buf.feed(chunk)


def test_events_before_created_are_malformed_but_noise_is_ignored():
    buf = LLMStreamBuffer([OpenAIResponsesStrategy()])
    assert buf.feed({"type": "response.future_event", "x": 1}) == ""
    assert buf.as_dict() is None
    with pytest.raises(MalformedChunk, match="before response.created"):
        buf.feed(args_delta(0, "x"))


def test_noise_changes_nothing():
    payloads = realdata.payloads(AZURE_TOOL)
    noisy = []
    for p in payloads:
        noisy += [{"type": "response.keepalive"}, p, "[DONE]"]
    assert feed(noisy).as_dict() == feed(payloads).as_dict() == final_message(payloads)


# ------------------------------------------------------------------------------ leak
def test_call_leaked_into_text_is_not_extracted_here():
    text = '{"tool": "x", "arguments": {"a": 1}}'
    message = {"id": "resp_l", "object": "response", "status": "completed", "output": [
        {"id": "msg_l", "type": "message", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": text, "annotations": []}]}]}
    assert S.recognizes(message)
    assert S.leaks_into_text is True
    assert S.extract(message) == []
    assert S.content_text(message) == text


# ------------------------------------------------------------------------------ recognition
def test_recognizes_only_its_own_shapes():
    assert S.name == "openai-responses"
    assert not S.recognizes({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert not S.recognizes({"type": "message_start", "message": {}})
    assert not S.recognizes({"object": "chat.completion.chunk", "choices": []})
    assert not S.recognizes({"role": "assistant", "content": "hi"})
    assert not S.recognizes("[DONE]")
    assert not S.recognizes({"object": "response", "output": None})
    assert S.recognizes({"type": "error", "code": "server_error", "message": "boom", "sequence_number": 3})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
EVENT_TYPES = [
    "response.created", "response.in_progress", "response.completed", "response.incomplete",
    "response.output_item.added", "response.output_item.done", "response.content_part.added",
    "response.content_part.done", "response.output_text.delta", "response.output_text.done",
    "response.output_text.annotation.added", "response.function_call_arguments.delta",
    "response.function_call_arguments.done", "response.reasoning_summary_part.added",
    "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
    "response.custom_tool_call_input.delta", "response.refusal.delta", "response.unknown",
]
SMALL = st.one_of(JSON, st.integers(min_value=-1, max_value=3), st.sampled_from(["fc_0", "msg_0", "call_a"]))
EVENTS = st.fixed_dictionaries(
    {"type": st.sampled_from(EVENT_TYPES)},
    optional={k: SMALL for k in ("output_index", "content_index", "summary_index", "item_id", "delta",
                                 "item", "part", "response", "text", "arguments", "annotation")},
)


@settings(max_examples=300, deadline=None)
@given(JSON | EVENTS)
def test_recognizes_never_raises(shape):
    assert S.recognizes(shape) in (True, False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JSON | EVENTS, min_size=1, max_size=6))
def test_junk_after_created_is_malformed_or_ignored(junk):
    acc = Accumulator()
    strategy = OpenAIResponsesStrategy()
    start = [created(), fc_added(0, "call_a", "f"),
             {"type": "response.output_item.added", "output_index": 1,
              "item": {"id": "msg_0", "type": "message", "role": "assistant", "content": []}}]
    for chunk in start:
        strategy.accumulate(acc, chunk)
    before = copy.deepcopy(junk)
    for chunk in junk:
        try:
            delta = strategy.accumulate(acc, chunk)
        except MalformedChunk:
            continue
        assert isinstance(delta, str)
        json.dumps(acc.message)
        strategy.content_text(acc.message)
        strategy.extract(acc.message)
    assert junk == before


# ------------------------------------------------------------------------------ purity
@pytest.mark.parametrize("name,payloads", STREAMS, ids=ALL_IDS)
def test_inputs_are_not_mutated(name, payloads):
    before = copy.deepcopy(payloads)
    buf = feed(payloads)
    assert payloads == before
    message = buf.as_dict()
    snapshot = copy.deepcopy(message)
    calls = S.extract(message)
    S.result_messages(message, [ToolCallRecord(c, "r") for c in calls if c.id])
    S.content_text(message)
    assert message == snapshot


def test_message_does_not_alias_the_chunks():
    payloads = copy.deepcopy(realdata.payloads(AZURE_TOOL))
    buf = LLMStreamBuffer([OpenAIResponsesStrategy()])
    for p in payloads[:4]:
        buf.feed(p)
    payloads[2]["item"]["name"] = "changed"
    payloads[0]["response"]["model"] = "changed"
    message = buf.as_dict()
    assert message["output"][0]["name"] == "weather"
    assert message["model"] == "gpt-5.1"


def test_in_progress_refreshes_fields_by_json_value_without_aliasing_the_event():
    """Unchanged fields keep their value, changed ones (a type change too) take the event's;
    the event is never mutated and the message holds none of its containers."""
    def lifecycle(kind, **fields):
        response = {"id": "resp_1", "object": "response", "output": [], **fields}
        return {"type": kind, "response": response}

    created = lifecycle("response.created", status="queued", tools=[{"type": "function", "name": "f"}],
                        text={"format": {"type": "text"}}, usage=None, metadata={"n": 1})
    progress = lifecycle("response.in_progress", status="in_progress", tools=[{"type": "function", "name": "f"}],
                         text={"format": {"type": "json"}}, usage={"total": 2}, metadata={"n": True})
    before = copy.deepcopy(progress)
    buf = LLMStreamBuffer([OpenAIResponsesStrategy()])
    buf.feed(created)
    buf.feed(progress)
    message = buf.as_dict()
    assert progress == before
    assert list(message) == ["output", "id", "object", "status", "tools", "text", "usage", "metadata"]
    assert message["status"] == "in_progress" and message["text"] == {"format": {"type": "json"}}
    assert message["usage"] == {"total": 2} and message["tools"] == [{"type": "function", "name": "f"}]
    assert message["metadata"]["n"] is True  # equal to 1 for ==, but not the same JSON
    live = buf._acc.root
    for key in ("tools", "text", "usage", "metadata"):
        assert live[key] is not progress["response"][key] and live[key] is not created["response"][key]
    live["tools"][0]["name"] = "changed"
    assert progress == before and created["response"]["tools"][0]["name"] == "f"


def test_done_sentinel_is_skipped_and_other_text_refused() -> None:
    strategy = OpenAIResponsesStrategy()
    acc = Accumulator()
    assert strategy.accumulate(acc, " [DONE]\n") == ""
    with pytest.raises(MalformedChunk, match=r'a dict or "\[DONE\]", got str'):
        strategy.accumulate(acc, 'data: {"type": "response.output_text.delta"}')
