"""Protocol 1's commands, the schemas and the Python server agree (mcs_conformance/bridge/messages.py)."""

from __future__ import annotations

import json
from pathlib import Path

from mcs_conformance import MalformedChunk, StreamError, ToolCall, ToolCallRecord
from mcs_conformance.bridge import server
from mcs_conformance.bridge.messages import (COMMANDS, PeerError, call_from_wire, call_or_value, call_to_wire,
                                             error_from_wire, error_to_wire, record_or_value, record_to_wire)
from mcs_conformance.strategies import TextStrategy

SCHEMAS = Path(__file__).resolve().parents[2] / "mcs_conformance" / "schemas" / "bridge"


def test_every_command_has_a_request_and_a_reply_schema() -> None:
    request = json.loads((SCHEMAS / "request.schema.json").read_text(encoding="utf-8"))
    reply = json.loads((SCHEMAS / "reply.schema.json").read_text(encoding="utf-8"))
    listed = [ref["$ref"].rsplit("/", 1)[1] for ref in request["oneOf"]]
    assert sorted(listed) == sorted(COMMANDS)
    assert all(request["$defs"][c]["properties"]["cmd"] == {"const": c} for c in COMMANDS)
    assert sorted(k[3:] for k in reply["$defs"] if k.startswith("ok-")) == sorted(COMMANDS)


def test_the_python_server_serves_every_command_for_a_strategy_with_every_member() -> None:
    assert sorted(server._handlers(TextStrategy())) == sorted(COMMANDS)  # TextStrategy has render too


def test_calls_records_and_errors_cross_the_wire_unchanged() -> None:
    call = ToolCall("get_weather", {"city": "Zürich"}, "call_1", '{"city": "Zürich"}', None)
    assert call_from_wire(json.loads(json.dumps(call_to_wire(call)))) == call
    record = ToolCallRecord(call, "sunny", True)
    assert record_or_value(json.loads(json.dumps(record_to_wire(record)))) == record
    assert record_or_value({"tool_call_id": "call_1", "content": "sunny"}) == {"tool_call_id": "call_1", "content": "sunny"}
    assert call_or_value("get_weather") == "get_weather"
    stream = error_from_wire(error_to_wire(StreamError("overloaded", payload={"type": "error"})))
    assert isinstance(stream, StreamError) and stream.payload == {"type": "error"} and str(stream) == "overloaded"
    assert type(error_from_wire(error_to_wire(MalformedChunk("bad")))) is MalformedChunk
    assert type(error_from_wire(error_to_wire(ValueError("no message")))) is ValueError
    other = error_from_wire(error_to_wire(KeyError("k")))
    assert isinstance(other, PeerError) and other.name == "KeyError"


def test_the_marked_form_carries_lone_surrogates_and_reads_back_every_string() -> None:
    from mcs_conformance.bridge.messages import MARK, mark_strings, needs_marks, unmark_strings

    value = {"text": "see you \ud83d", "k\udc00": ["\U0001F600 whole", MARK + "looks marked", "plain"], "n": 1.5}
    marked = mark_strings(value)
    line = json.dumps(marked).encode("ascii")
    read = json.dumps(json.loads(line), ensure_ascii=False)  # as a decoder reads it: pairs joined
    assert not __import__("re").search("[\ud800-\udfff]", read)  # nothing a replacing decoder could spoil
    assert marked["text"] == MARK + "c2VlIHlvdSDtoL0="  # base64 of the WTF-8 bytes: 'see you ' ED A0 BD
    assert unmark_strings(json.loads(line)) == value
    assert needs_marks(json.dumps(value).encode("ascii"))
    assert not needs_marks(b'{"text": "plain", "emoji": "\\u00e9"}')
    # a pair a peer joined from two halves, byte by byte (ED A0 BD ED B8 80), reads back as one character
    joined = MARK + __import__("base64").b64encode(b"\xed\xa0\xbd\xed\xb8\x80").decode()
    assert unmark_strings([joined]) == ["\U0001F600"]


def test_a_marked_string_that_is_no_base64_is_refused() -> None:
    import pytest

    from mcs_conformance.bridge.messages import MARK, unmark_strings

    with pytest.raises(ValueError, match="is not base64 of WTF-8 text"):
        unmark_strings({"a": MARK + "not base64!"})
