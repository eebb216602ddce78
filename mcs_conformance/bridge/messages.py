"""Protocol version 1 of the bridge (docs/bridge.md): commands, values and errors on the wire.

One JSON object per line each way. These functions turn the protocol's Python types into
the wire's JSON and back, for the client and the Python server alike.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from ..reference.errors import MalformedChunk, StreamError
from ..reference.protocol import ToolCall, ToolCallRecord

__all__ = [
    "COMMANDS",
    "ERROR_TYPES",
    "MEASURES",
    "MEMBERS",
    "OPTIONAL_MEMBERS",
    "PROTOCOL",
    "STRING_FORMS",
    "PeerError",
    "call_from_wire",
    "call_or_value",
    "record_or_value",
    "call_to_wire",
    "decode",
    "encode",
    "error_from_wire",
    "error_to_wire",
    "mark_strings",
    "needs_marks",
    "record_from_wire",
    "record_to_wire",
    "unmark_strings",
]

PROTOCOL = 1
MEMBERS = ("recognizes", "accumulate", "is_done", "extract", "content_text", "forming_name", "result_messages")
OPTIONAL_MEMBERS = ("render",)
MEASURES = ("cpu_time",)  # optional: the CPU seconds the strategy's own code has used in the peer
COMMANDS = ("start", *MEMBERS, "as_dict", *OPTIONAL_MEMBERS, "ping", *MEASURES)
ERROR_TYPES = ("MalformedChunk", "StreamError", "ValueError", "Error")
# how text that is not valid Unicode crosses (docs/bridge.md, "Text that is not valid Unicode"):
# "json", as JSON escapes (\ud83d), or "wtf8-marked", which a peer asks for in its handshake
STRING_FORMS = ("json", "wtf8-marked")
MARK = "\u0000wtf8:"  # a marked string: this, then the base64 of the text's WTF-8 bytes
_LONE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


class PeerError(Exception):
    """An error of the strategy's own that the peer reported as data (``type: "Error"``);
    ``name`` is its class name in the peer's language."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}" if message else name)
        self.name = name


def encode(message: dict[str, Any]) -> bytes:
    """One line of the wire: compact JSON, ASCII-escaped, ended by a newline."""
    return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


def decode(line: bytes) -> Any:
    """A line of the wire as JSON (ValueError when it is none)."""
    return json.loads(line)


def needs_marks(line: bytes) -> bool:
    """Might this encoded line hold a string the ``wtf8-marked`` form writes otherwise (a
    surrogate escape, or a string that looks marked)? A cheap look before a walk."""
    return _ESCAPED_SURROGATE.search(line) is not None or b"\\u0000wtf8:" in line


def _paired(text: str) -> str:
    """``text`` with every high-low surrogate pair joined into the character it stands for."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _mark(text: str) -> str:
    text = _paired(text)
    if _LONE.search(text) is None and not text.startswith(MARK):
        return text
    return MARK + base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def _unmark(text: str) -> str:
    if not text.startswith(MARK):
        return text
    try:
        raw = base64.b64decode(text[len(MARK):], validate=True)
        return _paired(raw.decode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise ValueError(f"a marked string ({text[:40]!r}) is not base64 of WTF-8 text: {exc}") from None


def _walk(value: Any, each: Any) -> Any:
    if isinstance(value, str):
        return each(value)
    if isinstance(value, dict):
        return {each(k): _walk(v, each) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, each) for v in value]
    return value


def mark_strings(value: Any) -> Any:
    """``value`` with every string (and object key) that holds a lone surrogate, or begins
    with :data:`MARK`, written in the ``wtf8-marked`` form: :data:`MARK` and the base64 of its
    WTF-8 bytes (UTF-8, a lone surrogate as the three bytes of its code point)."""
    return _walk(value, _mark)


def unmark_strings(value: Any) -> Any:
    """The inverse of :func:`mark_strings` (ValueError on a marked string that is no base64
    of WTF-8); surrogate pairs a peer joined byte by byte come back as one character."""
    return _walk(value, _unmark)


def call_to_wire(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "arguments": call.arguments, "id": call.id,
            "raw_arguments": call.raw_arguments, "error": call.error}


def call_from_wire(value: Any) -> ToolCall:
    """A tool call object as a ToolCall; ValueError naming what is wrong when it is none."""
    if not isinstance(value, dict):
        raise ValueError(f"a tool call is an object, got {type(value).__name__}")
    unknown = sorted(set(value) - {"name", "arguments", "id", "raw_arguments", "error"})
    if unknown:
        raise ValueError(f"a tool call has no member {unknown[0]!r}")
    name, arguments = value.get("name"), value.get("arguments", {})
    if not isinstance(name, str):
        raise ValueError(f"a tool call's name is a string, got {type(name).__name__}")
    if not isinstance(arguments, dict):
        raise ValueError(f"a tool call's arguments are an object, got {type(arguments).__name__}")
    for key in ("id", "raw_arguments", "error"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise ValueError(f"a tool call's {key} is a string or null, got {type(value[key]).__name__}")
    return ToolCall(name=name, arguments=arguments, id=value.get("id"), raw_arguments=value.get("raw_arguments"),
                    error=value.get("error"))


def record_to_wire(record: ToolCallRecord) -> dict[str, Any]:
    return {"call": call_to_wire(record.call), "result": record.result, "is_error": record.is_error}


def record_from_wire(value: Any) -> ToolCallRecord:
    if not isinstance(value, dict) or set(value) != {"call", "result", "is_error"} \
            or not isinstance(value["result"], str) or not isinstance(value["is_error"], bool):
        raise ValueError("a record is an object with exactly a call, a string result and is_error")
    return ToolCallRecord(call=call_from_wire(value["call"]), result=value["result"], is_error=value["is_error"])


def call_or_value(value: Any) -> Any:
    """A tool call object as a ToolCall; any other value as it is (the suite probes how a
    strategy refuses what is no call)."""
    try:
        return call_from_wire(value)
    except ValueError:
        return value


def record_or_value(value: Any) -> Any:
    """A record object as a ToolCallRecord; any other value as it is (a driver's own result
    dict, which the strategy should refuse)."""
    try:
        return record_from_wire(value)
    except ValueError:
        return value


def error_to_wire(exc: BaseException) -> dict[str, Any]:
    """An exception the strategy raised, as the reply's ``error`` object."""
    if isinstance(exc, MalformedChunk):
        kind = "MalformedChunk"
    elif isinstance(exc, StreamError):
        kind = "StreamError"
    elif isinstance(exc, ValueError):
        kind = "ValueError"
    else:
        kind = "Error"
    out: dict[str, Any] = {"type": kind, "name": type(exc).__name__, "message": str(exc)}
    if kind == "StreamError":
        out["payload"] = exc.payload  # type: ignore[attr-defined]
    return out


def error_from_wire(error: Any) -> Exception:
    """The reply's ``error`` object as the exception to raise (ValueError when malformed)."""
    if not isinstance(error, dict) or error.get("type") not in ERROR_TYPES or not isinstance(error.get("message"), str):
        raise ValueError(f"an error is an object with a type among {', '.join(ERROR_TYPES)} and a message")
    kind, text = error["type"], error["message"]
    if kind == "MalformedChunk":
        return MalformedChunk(text)
    if kind == "StreamError":
        return StreamError(text, payload=error.get("payload"))
    if kind == "ValueError":
        return ValueError(text)
    return PeerError(str(error.get("name") or "Error"), text)
