"""The shipped JSON Schemas: valid schemas, true to recorded provider data, strict where it matters."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mcs_conformance.corpus_tools import schemas
from mcs_conformance.corpus_tools.capture import split_at
from mcs_conformance.corpus_tools.oracles import oracle_for
from tests.helpers import realdata

FORMATS = ["openai-chat", "openai-responses", "anthropic-messages", "text-json", "hermes", "llama3-json", "mistral", "pythonic",
           "qwen3-coder", "deepseek", "kimi-k2", "glm45", "cohere", "gemini", "ollama", "bedrock"]
EXPECTED = {"case", "descriptor"} | {f"{f}.{k}" for f in FORMATS for k in ("chunk", "message", "history")}

CHUNK_FILES = (
    [("openai-chat", p) for p in realdata.files("openai-python/chat_stream", ".sse")]
    + [("openai-chat", p) for p in realdata.files("vercel-ai/chat", ".chunks.jsonl")]
    + [("openai-responses", p) for p in realdata.files("vercel-ai/responses", ".chunks.jsonl")]
    + [("anthropic-messages", p) for p in realdata.files("anthropic-sdk-python/sse", ".sse")]
    + [("anthropic-messages", p) for p in realdata.files("vercel-ai/anthropic", ".chunks.jsonl")]
    + [("cohere", p) for p in realdata.files("vercel-ai/cohere", ".chunks.jsonl")]
    + [("gemini", p) for p in realdata.files("vercel-ai/google", ".chunks.jsonl")]
    + [("bedrock", p) for p in realdata.files("vercel-ai/bedrock", ".chunks.jsonl")]
)

# An HTTP error body, not a message: the recording has no stream=false message to check.
ERROR_BODY = "vercel-ai/responses/openai-error.1.nonstream.json"
# Provider recordings outside OpenAI's wire, on purpose: the schemas are strict on the fields
# reassembly reads, and these are the differences the openai-chat corpus records (docs/spec.md,
# openai-chat, "OpenAI-compatible providers"). Each must fail at exactly these places.
OFF_SCHEMA = {
    "vercel-ai/chat/mistral-tool-call.chunks.jsonl": {"'index' is a required property"},
    "vercel-ai/chat/mistral-reasoning.chunks.jsonl": {"content: [", "is not of type 'string', 'null'"},
    "vercel-ai/chat/mistral-reasoning.nonstream.json": {"content: [", "is not of type 'string', 'null'"},
}


def _json(rel: str):
    return json.loads(realdata.path(rel).read_text(encoding="utf-8"))


def _message_bodies() -> list[tuple[str, str]]:
    out = [("openai-chat", p) for p in realdata.files("openai-python/chat_nonstream", ".json")]
    out += [("openai-chat", p) for p in realdata.files("vercel-ai/chat", ".nonstream.json")]
    responses = realdata.files("vercel-ai/responses", ".nonstream.json")
    out += [("openai-responses", p) for p in responses if p != ERROR_BODY]
    out += [("openai-responses", p) for p in realdata.files("openai-python/responses_nonstream", ".json")]
    out += [("anthropic-messages", p) for p in realdata.files("vercel-ai/anthropic", ".nonstream.json")]
    out += [("cohere", p) for p in realdata.files("vercel-ai/cohere", ".nonstream.json")]
    out += [("gemini", p) for p in realdata.files("vercel-ai/google", ".nonstream.json")]
    out += [("bedrock", p) for p in realdata.files("vercel-ai/bedrock", ".nonstream.json")]
    return out


def _native_message(fmt: str, body: dict):
    return body["choices"][0]["message"] if fmt == "openai-chat" else body


# ---------------------------------------------------------------- the schemas themselves


def test_every_expected_schema_ships():
    assert set(schemas.names()) == EXPECTED
    folder = Path(schemas.__file__).parents[1] / "schemas"
    assert {p.name[: -len(".schema.json")] for p in folder.glob("*.schema.json")} == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_schema_is_a_valid_draft_2020_12_schema(name):
    schema = schemas.load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"urn:mcs-conformance:schema:{name}"
    assert len(schema.get("description", "")) > 20


def test_check_shipped_reports_no_problem():
    assert schemas.check_shipped() == {}


def test_check_schema_would_catch_a_broken_schema():
    broken = schemas.load_schema("case")
    broken["properties"]["tags"]["type"] = "list"
    with pytest.raises(SchemaError):
        Draft202012Validator.check_schema(broken)


def test_names_with_and_without_suffix_are_the_same_schema():
    assert schemas.load_schema("case") == schemas.load_schema("case.schema.json")
    assert schemas.validator("case") is schemas.validator("case.schema.json")


def test_load_schema_returns_a_private_copy():
    mine = schemas.load_schema("text-json.chunk")
    mine["type"] = "integer"
    assert schemas.errors("text-json.chunk", "abc") == []
    assert schemas.load_schema("text-json.chunk")["type"] == "string"


def test_unknown_schema_name_is_a_clear_error():
    with pytest.raises(ValueError, match="no schema named 'nope'.*case"):
        schemas.load_schema("nope")
    with pytest.raises(FileNotFoundError):  # what a caller probing for a format's schema catches
        schemas.load_schema("no-such-format.history.schema.json")
    with pytest.raises(ValueError, match="non-empty string"):
        schemas.validator("")


# ---------------------------------------------------------------- recorded data


@pytest.mark.parametrize(("fmt", "rel"), CHUNK_FILES, ids=[rel for _, rel in CHUNK_FILES])
def test_recorded_chunks_validate(fmt, rel):
    payloads = realdata.payloads(rel)
    assert payloads
    for i, p in enumerate(payloads):
        _assert_valid(schemas.errors(f"{fmt}.chunk", p), rel, f"payload {i}")


def _assert_valid(problems: list[str], rel: str, where: str = "") -> None:
    """No problem, or (for a recording listed in OFF_SCHEMA) only the listed ones."""
    if rel not in OFF_SCHEMA:
        assert problems == [], f"{rel} {where}"
        return
    assert all(all(part in p for part in OFF_SCHEMA[rel]) for p in problems), f"{rel} {where}: {problems}"


@pytest.mark.parametrize(("fmt", "rel"), _message_bodies(), ids=[rel for _, rel in _message_bodies()])
def test_recorded_stream_false_messages_validate(fmt, rel):
    _assert_valid(schemas.errors(f"{fmt}.message", _native_message(fmt, _json(rel))), rel)


def test_off_schema_recordings_are_off_schema():
    """Each OFF_SCHEMA entry still fails its schema (the list cannot outlive the difference)."""
    for rel in OFF_SCHEMA:
        if rel.endswith(".nonstream.json"):
            problems = schemas.errors("openai-chat.message", _native_message("openai-chat", _json(rel)))
        else:
            problems = [e for p in realdata.payloads(rel) for e in schemas.errors("openai-chat.chunk", p)]
        assert problems, rel


def test_recorded_error_body_is_not_a_responses_message():
    problems = schemas.errors("openai-responses.message", _json(ERROR_BODY))
    assert "at $: 'output' is a required property" in problems


def test_responses_completed_events_carry_a_valid_message():
    seen = 0
    for _, rel in CHUNK_FILES:
        for p in realdata.payloads(rel):
            if isinstance(p, dict) and p.get("type") == "response.completed":
                seen += 1
                assert schemas.errors("openai-responses.message", p["response"]) == [], rel
    assert seen >= 5


SDK_ACCUMULATED = {
    "openai-chat": [
        "openai-python/chat_stream/tool_calls_parallel_2__f82268f2fefd.sse",
        "openai-python/chat_stream/refusal__173417d55340.sse",
        "vercel-ai/chat/openai-text.chunks.jsonl",
    ],
    "anthropic-messages": [
        "vercel-ai/anthropic/anthropic-clear-thinking.1.chunks.jsonl",
        "anthropic-sdk-python/sse/tool_use_response.sse",
    ],
    "openai-responses": ["vercel-ai/responses/azure-tool-call.1.chunks.jsonl"],
}


def _first_response(rel: str) -> list:
    """The first of the responses a recording holds (some hold several, back to back)."""
    return split_at(realdata.payloads(rel), {"response.created"})[0]


def test_sdk_accumulated_messages_validate():
    """What each official SDK accumulator builds from real streams is a valid message of its format."""
    for fmt, recordings in SDK_ACCUMULATED.items():
        for rel in recordings:
            assert schemas.errors(f"{fmt}.message", oracle_for(fmt)(realdata.payloads(rel))) == [], rel
    cassette = realdata.cassette_streams(
        "anthropic-sdk-python/cassettes/test_runners__TestSyncRunTools__555fb399-a54c-455b-9ac5-2c9673f18e12.json")
    assert schemas.errors("anthropic-messages.message", oracle_for("anthropic-messages")(cassette[0])) == []
    reasoning = _first_response("vercel-ai/responses/openai-reasoning-encrypted-content.1.chunks.jsonl")
    assert schemas.errors("openai-responses.message", oracle_for("openai-responses")(reasoning)) == []


def test_anthropic_cassettes_requests_and_bodies_validate():
    histories = bodies = 0
    for rel in realdata.files("anthropic-sdk-python/cassettes", ".json"):
        for turn in realdata.cassette(rel):
            request = turn["request"].get("body")
            if isinstance(request, dict) and "messages" in request:
                histories += 1
                assert schemas.errors("anthropic-messages.history", request["messages"]) == [], rel
            body = turn["response"]["body"]
            if isinstance(body, dict) and body.get("type") == "message":
                bodies += 1
                assert schemas.errors("anthropic-messages.message", body) == [], rel
        for stream in realdata.cassette_streams(rel):
            for p in stream:
                assert schemas.errors("anthropic-messages.chunk", p) == [], rel
    assert histories >= 20 and bodies >= 15


def test_recorded_anthropic_history_with_tool_result_is_checked():
    """A real request (tool_use then tool_result), broken the two ways the schema must catch."""
    request = realdata.cassette(
        "anthropic-sdk-python/cassettes/test_runners__TestSyncRunTools__b38bbf6c-9a76-40ca-b09d-7a3911776e0f.json"
    )[1]["request"]["body"]["messages"]
    assert [m["role"] for m in request] == ["user", "assistant", "user"]
    assert request[2]["content"][0]["type"] == "tool_result"
    assert schemas.errors("anthropic-messages.history", request) == []
    lost_id = copy.deepcopy(request)
    del lost_id[2]["content"][0]["tool_use_id"]
    assert schemas.errors("anthropic-messages.history", lost_id) == [
        "at $[2].content[0]: 'tool_use_id' is a required property"
    ]
    moved = copy.deepcopy(request)
    moved[1]["content"].append(moved[2]["content"].pop(0))
    assert [e.split(":")[0] for e in schemas.errors("anthropic-messages.history", moved)] == [
        "at $[1].content[1].type",
        "at $[2].content",
    ]


def test_ollama_style_history_is_not_an_openai_history():
    """Ollama replays arguments as an object and without ids; OpenAI requires both as strings."""
    problems = schemas.errors("openai-chat.history", _json("ollama/assistant_tool_calls_history.docexample.json"))
    assert "at $[0].tool_calls[0]: 'id' is a required property" in problems
    assert "at $[0].tool_calls[0].function.arguments: {'city': 'New York'} is not of type 'string'" in problems


def test_broken_real_chunks_are_rejected_at_the_broken_field():
    chat = next(
        p
        for p in realdata.payloads("openai-python/chat_stream/tool_calls_parallel_2__f82268f2fefd.sse")
        if isinstance(p, dict) and p["choices"] and p["choices"][0]["delta"].get("tool_calls")
    )
    no_index = copy.deepcopy(chat)
    del no_index["choices"][0]["delta"]["tool_calls"][0]["index"]
    assert schemas.errors("openai-chat.chunk", no_index) == [
        "at $.choices[0].delta.tool_calls[0]: 'index' is a required property"
    ]

    anth = next(
        p
        for p in realdata.payloads("vercel-ai/anthropic/anthropic-json-tool.1.chunks.jsonl")
        if p.get("type") == "content_block_delta"
    )
    parsed = copy.deepcopy(anth)
    parsed["delta"]["partial_json"] = {"a": 1}
    assert schemas.errors("anthropic-messages.chunk", parsed) == [
        "at $.delta.partial_json: {'a': 1} is not of type 'string'"
    ]

    resp = next(
        p
        for p in realdata.payloads("vercel-ai/responses/azure-tool-call.1.chunks.jsonl")
        if p.get("type") == "response.output_item.added"
    )
    no_call_id = copy.deepcopy(resp)
    del no_call_id["item"]["call_id"]
    assert schemas.errors("openai-responses.chunk", no_call_id) == [
        "at $.item: 'call_id' is a required property"
    ]


def test_done_sentinel_belongs_to_openai_chat_only():
    assert schemas.errors("openai-chat.chunk", "[DONE]") == []
    assert schemas.errors("openai-chat.chunk", "data") == ["at $: '[DONE]' was expected"]
    assert schemas.errors("anthropic-messages.chunk", "[DONE]") == ["at $: '[DONE]' is not of type 'object'"]
    assert schemas.errors("openai-responses.chunk", "[DONE]") == ["at $: '[DONE]' is not of type 'object'"]


# ---------------------------------------------------------------- the case schema

MINIMAL_STREAM_CASE = {
    "id": "openai-chat/parallel-tool-calls",
    "format": "openai-chat",
    "description": "Two parallel tool calls interleaved by index.",
    "provenance": {
        "kind": "recorded",
        "source": "openai/openai-python",
        "commit": "0123456789abcdef0123456789abcdef01234567",
        "license": "Apache-2.0",
        "captured": "2024-09-26",
    },
    "tags": ["parallel", "tool-call"],
    "chunks": [{"choices": []}, "[DONE]"],
    "expect": {
        "message": {"role": "assistant", "content": None, "tool_calls": []},
        "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}],
        "content_text": "",
        "done": True,
        "error": None,
        "extracted_by": "openai-chat",
        "via_backup": False,
    },
}

MINIMAL_MESSAGE_CASE = {
    "id": "text-json/fenced-call",
    "format": "text-json",
    "description": "A call inside a markdown fence.",
    "provenance": {
        "kind": "synthetic",
        "source": "mcs-conformance",
        "license": "Apache-2.0",
        "why": "No public recording shows a fenced call with this exact shape.",
    },
    "tags": [],
    "message": '```json\n{"tool": "f", "arguments": {}}\n```',
    "expect": {
        "calls": [{"name": "f", "arguments": {}, "id": None}],
        "content_text": "x",
        "extracted_by": "text-json",
    },
}


def test_minimal_cases_are_valid():
    assert schemas.errors("case", MINIMAL_STREAM_CASE) == []
    assert schemas.errors("case", MINIMAL_MESSAGE_CASE) == []


def test_stream_case_ending_in_error_needs_no_message():
    case = copy.deepcopy(MINIMAL_STREAM_CASE)
    del case["expect"]["message"]
    assert schemas.errors("case", case) == ["at $.expect: 'message' is a required property"]
    case["expect"]["error"] = {"type": "StreamError", "payload": {"type": "error"}}
    assert schemas.errors("case", case) == []


def test_case_without_provenance_is_rejected():
    case = copy.deepcopy(MINIMAL_STREAM_CASE)
    del case["provenance"]
    assert schemas.errors("case", case) == ["at $: 'provenance' is a required property"]


def test_synthetic_case_without_why_is_rejected():
    case = copy.deepcopy(MINIMAL_MESSAGE_CASE)
    del case["provenance"]["why"]
    assert schemas.errors("case", case) == ["at $.provenance: 'why' is a required property"]


def test_recorded_case_without_commit_is_rejected():
    case = copy.deepcopy(MINIMAL_STREAM_CASE)
    del case["provenance"]["commit"]
    assert schemas.errors("case", case) == ["at $.provenance: 'commit' is a required property"]


def test_case_with_both_chunks_and_message_is_rejected():
    case = copy.deepcopy(MINIMAL_STREAM_CASE)
    case["message"] = {"role": "assistant", "content": "hi"}
    assert schemas.errors("case", case) == [
        "at $: needs exactly one of 'chunks', 'message'; found 'chunks', 'message'"
    ]


def test_case_with_neither_chunks_nor_message_is_rejected():
    case = copy.deepcopy(MINIMAL_MESSAGE_CASE)
    del case["message"]
    assert schemas.errors("case", case) == ["at $: needs exactly one of 'chunks', 'message'; found none"]


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        (("id",), "OpenAI/x", "at $.id: 'OpenAI/x' does not match"),
        (("format",), "open_ai", "at $.format: 'open_ai' does not match"),
        (("description",), "short", "at $.description: 'short' is too short"),
        (("tags",), ["a", "a"], "at $.tags: ['a', 'a'] has non-unique elements"),
        (("provenance", "kind"), "guessed", "at $.provenance.kind: 'guessed' is not one of"),
        (("provenance", "captured"), "2024-13-45", "at $.provenance.captured: '2024-13-45' is not a 'date'"),
        (("provenance", "commit"), "abc123", "at $.provenance.commit: 'abc123' does not match"),
        (("provenance", "source"), "openai", "at $.provenance.source: 'openai' does not match"),
        (("expect", "calls"), [{"name": "f", "arguments": "{}"}], "at $.expect.calls[0].arguments: '{}' is not"),
        (("expect", "calls"), [{"name": "f", "arguments": {}, "args": 1}], "at $.expect.calls[0]: Additional"),
        (("expect", "error"), {"type": "KeyError"}, "at $.expect.error.type: 'KeyError' is not one of"),
        (("expect", "surprise"), 1, "at $.expect: Additional properties are not allowed ('surprise' was"),
        (("extra",), 1, "at $: Additional properties are not allowed ('extra' was unexpected)"),
    ],
)
def test_case_field_errors_name_the_path(where, value, expected):
    case = copy.deepcopy(MINIMAL_STREAM_CASE)
    target = case
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    problems = schemas.errors("case", case)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_errors_are_sorted_by_path_and_abbreviate_long_values():
    case = copy.deepcopy(MINIMAL_STREAM_CASE)
    case["expect"]["calls"] = [{"name": 1, "arguments": {}}, {"name": "g", "arguments": []}]
    case["description"] = 7
    case["chunks"] = "x" * 500
    problems = schemas.errors("case", case)
    assert [p.split(":")[0] for p in problems] == [
        "at $.chunks",
        "at $.description",
        "at $.expect.calls[0].name",
        "at $.expect.calls[1].arguments",
    ]
    assert problems[2] == "at $.expect.calls[0].name: 1 is not of type 'string'"
    assert len(problems[0]) < 120


def test_json_path_quotes_keys_that_are_not_identifiers():
    assert schemas.json_path(["a", 0, "b-c", "$schema"]) == '$.a[0]["b-c"]["$schema"]'


# ---------------------------------------------------------------- the descriptor schema

OBJECT_DESCRIPTOR = {
    "format": "openai-chat",
    "description": "OpenAI Chat Completions chunks.",
    "chunk_kind": "object",
    "deltas": [
        {"path": ["choices", "*", "delta", "content"]},
        {"path": ["choices", {"where": {"index": 0}}, "delta", "tool_calls", "*", "function", "arguments"]},
    ],
    "routing": ["id", "object", "index", "type"],
    "terminal": ["finish_reason"],
    "noise": [{"description": "the SSE sentinel", "chunk": "[DONE]", "position": "after-done"}],
    "done": {"type": "object", "required": ["choices"]},
    "error": {"type": "object", "required": ["error"]},
    "text_channel": {"start": [], "delta": {"choices": [{"index": 0, "delta": {"content": "$TEXT"}}]}, "end": []},
    "history": {
        "call_ids": [{"where": {"role": "assistant"}}, "tool_calls", "*", "id"],
        "result_ids": [{"where": {"role": "tool"}}, "tool_call_id"],
        "replay": [{"description": "refusal", "message": ["refusal"], "history": [0, "refusal"]}],
    },
}

STRING_DESCRIPTOR = {
    "format": "text-json",
    "description": "A plain text stream.",
    "chunk_kind": "string",
    "deltas": [{"path": []}],
    "routing": [],
    "terminal": [],
    "noise": [],
    "done": False,
    "text_channel": {"start": [], "delta": "$TEXT", "end": []},
}


def test_minimal_descriptors_are_valid():
    assert schemas.errors("descriptor", OBJECT_DESCRIPTOR) == []
    assert schemas.errors("descriptor", STRING_DESCRIPTOR) == []


@pytest.mark.parametrize(
    ("base", "key", "value", "expected"),
    [
        (STRING_DESCRIPTOR, "deltas", [{"path": ["text"]}], "at $.deltas[0].path: ['text'] is expected to be"),
        (STRING_DESCRIPTOR, "routing", ["id"], "at $.routing: ['id'] is expected to be empty"),
        (OBJECT_DESCRIPTOR, "deltas", [{"path": []}], "at $.deltas[0].path: [] should be non-empty"),
        (OBJECT_DESCRIPTOR, "deltas", [{"path": [1.5]}], "at $.deltas[0].path[0]: 1.5 is not valid under any"),
        (OBJECT_DESCRIPTOR, "done", {"type": 12}, "at $.done.type: 12 is not valid under any"),
        (OBJECT_DESCRIPTOR, "chunk_kind", "bytes", "at $.chunk_kind: 'bytes' is not one of"),
        (OBJECT_DESCRIPTOR, "noise", [{"description": "x", "chunk": 1, "position": "1st"}], "at $.noise[0].position"),
        (OBJECT_DESCRIPTOR, "text_channel", {"start": [], "end": []}, "at $.text_channel: 'delta' is a required"),
        (OBJECT_DESCRIPTOR, "history", {"result_id": []}, "at $.history: 'result_id' does not match any"),
        (OBJECT_DESCRIPTOR, "history", {"result_ids": ["x"]}, "at $.history: 'call_ids' is a dependency"),
        (OBJECT_DESCRIPTOR, "history", {"replay": [{"message": ["a"]}]}, "at $.history.replay[0]: 'history' is"),
        (OBJECT_DESCRIPTOR, "extra", 1, "at $: 'extra' does not match any of the regexes: '^x-'"),
    ],
)
def test_descriptor_errors_name_the_path(base, key, value, expected):
    desc = copy.deepcopy(base)
    desc[key] = value
    problems = schemas.errors("descriptor", desc)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_descriptor_rules_per_node_and_the_flat_form_are_both_valid():
    per_node = {
        **OBJECT_DESCRIPTOR,
        "routing": [{"at": [], "keys": ["id"]}, {"at": ["choices", "*"], "keys": ["index"], "description": "choice"}],
        "terminal": [{"at": ["choices", "*"], "keys": ["finish_reason"]}],
        "fill": [{"at": [], "set": {"logprobs": []}}],
        "deltas": [{"path": ["choices", "*", "delta", "content"], "empty": True}],
        "noise": [{"description": "x", "chunk": {}, "position": "anywhere", "level": "reference",
                   "why": "a client of this request never receives it"}],
    }
    assert schemas.errors("descriptor", per_node) == []
    mixed = {**OBJECT_DESCRIPTOR, "routing": ["object", {"at": [], "keys": ["id"]}]}
    assert schemas.errors("descriptor", mixed) == []


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("routing", [{"at": [], "key": ["id"]}], "at $.routing[0]:"),
        ("terminal", [{"keys": ["done"]}], "at $.terminal[0]:"),
        ("fill", [{"at": [], "set": {}}], "at $.fill[0].set: {} should be non-empty"),
        ("noise", [{"description": "x", "chunk": 1, "position": "anywhere", "level": "reference"}],
         "at $.noise[0]: 'why' is a required property"),
        ("noise", [{"description": "x", "chunk": 1, "position": "anywhere", "level": "may"}], "at $.noise[0].level"),
        ("deltas", [{"path": ["text"], "empty": "yes"}], "at $.deltas[0].empty: 'yes' is not of type 'boolean'"),
    ],
)
def test_descriptor_rule_errors_name_the_path(key, value, expected):
    problems = schemas.errors("descriptor", {**OBJECT_DESCRIPTOR, key: value})
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_descriptor_extension_keys_are_allowed():
    assert schemas.errors("descriptor", {**STRING_DESCRIPTOR, "x-note": {"anything": 1}}) == []


# ---------------------------------------------------------------- request-side histories

OPENAI_HISTORY = [
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
]

ANTHROPIC_HISTORY = [
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "use the tool", "signature": "sig"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
        ],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]},
]

RESPONSES_HISTORY = [
    {"role": "user", "content": "weather?"},
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    {"id": "msg_1"},
]

TEXT_HISTORY = [
    {"role": "assistant", "content": '{"tool": "get_weather", "arguments": {}}'},
    {"role": "user", "content": "get_weather returned: sunny"},
]


def test_minimal_histories_are_valid():
    assert schemas.errors("openai-chat.history", OPENAI_HISTORY) == []
    assert schemas.errors("anthropic-messages.history", ANTHROPIC_HISTORY) == []
    assert schemas.errors("openai-responses.history", RESPONSES_HISTORY) == []
    assert schemas.errors("text-json.history", TEXT_HISTORY) == []


def test_openai_tool_message_without_tool_call_id_is_rejected():
    history = copy.deepcopy(OPENAI_HISTORY)
    del history[2]["tool_call_id"]
    assert schemas.errors("openai-chat.history", history) == ["at $[2]: 'tool_call_id' is a required property"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda h: h[1]["tool_calls"][0].pop("id"), "at $[1].tool_calls[0]: 'id' is a required property"),
        (lambda h: h[1]["tool_calls"][0].pop("type"), "at $[1].tool_calls[0]: 'type' is a required property"),
        (
            lambda h: h[1]["tool_calls"][0]["function"].update(arguments={}),
            "at $[1].tool_calls[0].function.arguments: {} is not of type 'string'",
        ),
        (lambda h: h[2].update(tool_call_id=7), "at $[2].tool_call_id: 7 is not of type 'string'"),
        (lambda h: h[1].update(role="model"), "at $[1].role: 'model' is not one of"),
        (lambda h: h[1].update(tool_calls=[]), "at $[1].tool_calls: [] should be non-empty"),
        (lambda h: h[0].pop("content"), "at $[0]: 'content' is a required property"),
    ],
)
def test_openai_history_strictness(edit, expected):
    history = copy.deepcopy(OPENAI_HISTORY)
    edit(history)
    problems = schemas.errors("openai-chat.history", history)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_openai_history_allows_provider_extras():
    history = copy.deepcopy(OPENAI_HISTORY)
    history[1]["refusal"] = None
    history[1]["tool_calls"][0]["function"]["x_extra"] = True
    history[2]["name"] = "get_weather"
    assert schemas.errors("openai-chat.history", history) == []


def test_anthropic_tool_result_in_assistant_message_is_rejected():
    history = copy.deepcopy(ANTHROPIC_HISTORY)
    history[1]["content"].append(history[2]["content"][0])
    del history[2]
    problems = schemas.errors("anthropic-messages.history", history)
    assert len(problems) == 1
    assert problems[0].startswith("at $[1].content[3].type: 'tool_result' should not be valid")


def test_anthropic_tool_use_in_user_message_is_rejected():
    history = copy.deepcopy(ANTHROPIC_HISTORY)
    history[2]["content"].append(history[1]["content"].pop())
    problems = schemas.errors("anthropic-messages.history", history)
    assert len(problems) == 1 and problems[0].startswith("at $[2].content[1].type: 'tool_use' should not be valid")


def test_anthropic_thinking_block_without_signature_is_rejected():
    history = copy.deepcopy(ANTHROPIC_HISTORY)
    del history[1]["content"][0]["signature"]
    assert schemas.errors("anthropic-messages.history", history) == [
        "at $[1].content[0]: 'signature' is a required property"
    ]
    message = {"type": "message", "role": "assistant", "content": history[1]["content"]}
    assert schemas.errors("anthropic-messages.message", message) == [
        "at $.content[0]: 'signature' is a required property"
    ]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda h: h[2]["content"][0].pop("tool_use_id"), "at $[2].content[0]: 'tool_use_id' is a required"),
        (lambda h: h[1]["content"][2].update(input="{}"), "at $[1].content[2].input: '{}' is not of type 'object'"),
        (lambda h: h[1]["content"][2].pop("id"), "at $[1].content[2]: 'id' is a required property"),
        (lambda h: h[1].update(role="tool"), "at $[1].role: 'tool' is not one of"),
        (lambda h: h[2].update(content=[]), "at $[2].content: [] should be non-empty"),
    ],
)
def test_anthropic_history_strictness(edit, expected):
    history = copy.deepcopy(ANTHROPIC_HISTORY)
    edit(history)
    problems = schemas.errors("anthropic-messages.history", history)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_anthropic_unknown_blocks_and_extras_are_allowed():
    history = copy.deepcopy(ANTHROPIC_HISTORY)
    history[1]["content"].insert(0, {"type": "compaction", "content": "summary"})
    history[1]["content"][3]["caller"] = {"type": "direct"}
    history[2]["content"][0]["cache_control"] = {"type": "ephemeral"}
    assert schemas.errors("anthropic-messages.history", history) == []


def test_responses_function_call_output_without_call_id_is_rejected():
    history = copy.deepcopy(RESPONSES_HISTORY)
    del history[3]["call_id"]
    assert schemas.errors("openai-responses.history", history) == ["at $[3]: 'call_id' is a required property"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda h: h[3].pop("output"), "at $[3]: 'output' is a required property"),
        (lambda h: h[2].pop("call_id"), "at $[2]: 'call_id' is a required property"),
        (lambda h: h[2].update(arguments={}), "at $[2].arguments: {} is not of type 'string'"),
        (lambda h: h[1].pop("id"), "at $[1]: 'id' is a required property"),
        (lambda h: h[0].pop("role"), "at $[0]: 'role' is a required property"),
        (lambda h: h[0].update(role="tool"), "at $[0].role: 'tool' is not one of"),
    ],
)
def test_responses_history_strictness(edit, expected):
    history = copy.deepcopy(RESPONSES_HISTORY)
    edit(history)
    problems = schemas.errors("openai-responses.history", history)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_responses_history_accepts_replayed_output_items():
    """The output of a real response, replayed as input, then the results: what result_messages returns."""
    final = oracle_for("openai-responses")(_first_response("vercel-ai/responses/openai-reasoning-encrypted-content.1.chunks.jsonl"))
    replay = [{k: v for k, v in item.items() if k != "parsed_arguments"} for item in final["output"]]
    calls = [item for item in replay if item["type"] == "function_call"]
    assert calls
    history = replay + [{"type": "function_call_output", "call_id": c["call_id"], "output": "1"} for c in calls]
    assert schemas.errors("openai-responses.history", history) == []


def test_text_history_refuses_native_fields():
    history = copy.deepcopy(TEXT_HISTORY)
    history[1]["tool_call_id"] = "call_1"
    assert schemas.errors("text-json.history", history) == [
        "at $[1]: Additional properties are not allowed ('tool_call_id' was unexpected)"
    ]
    assert schemas.errors("text-json.history", [{"role": "tool", "content": "x"}])[0].startswith("at $[0].role")


# ---------------------------------------------------------------- messages and chunks, hand-written


def test_minimal_messages_are_valid():
    assert schemas.errors("openai-chat.message", {"role": "assistant", "content": "hi", "tool_calls": None}) == []
    empty = {"type": "message", "role": "assistant", "content": []}
    assert schemas.errors("anthropic-messages.message", empty) == []
    assert schemas.errors("openai-responses.message", {"object": "response", "output": []}) == []
    assert schemas.errors("text-json.message", "plain text") == []
    assert schemas.errors("text-json.message", {"role": "assistant", "content": "text", "refusal": None}) == []


def test_message_strictness():
    assert schemas.errors("openai-chat.message", {"role": "user", "content": "x"}) == [
        "at $.role: 'assistant' was expected"
    ]
    assert schemas.errors(
        "openai-chat.message", {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f"}}]}
    ) == ["at $.tool_calls[0].function: 'arguments' is a required property"]
    assert schemas.errors(
        "anthropic-messages.message",
        {"type": "message", "role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
    )[0].startswith("at $.content[0].type: 'tool_result' should not be valid")
    assert schemas.errors(
        "openai-responses.message",
        {"object": "response", "output": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
    ) == ["at $.output[0]: 'call_id' is a required property"]
    assert schemas.errors("text-json.message", {"role": "assistant", "content": ["x"]}) == [
        "at $.content: ['x'] is not of type 'string'"
    ]
    assert schemas.errors("text-json.message", 3) == ["at $: 3 is not of type 'string'"]


def test_unknown_event_types_are_allowed_in_chunks():
    assert schemas.errors("anthropic-messages.chunk", {"type": "ping"}) == []
    assert schemas.errors("anthropic-messages.chunk", {"type": "future_event", "x": 1}) == []
    assert schemas.errors("openai-responses.chunk", {"type": "response.future.delta", "delta": 1}) == []
    assert schemas.errors("openai-chat.chunk", {"choices": [], "usage": {"total_tokens": 3}}) == []
