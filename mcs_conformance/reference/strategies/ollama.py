"""Ollama ``/api/chat``, the strategy: NDJSON chunks folded into the ``stream=false`` body.

The wire (docs/api.md, "Generate a chat completion"; api/types.go ``ChatResponse``): one JSON
object per line, ``{"model", "created_at", "message": {"role", "content", "thinking"?,
"tool_calls"?}, "done": false}``, and a last one with ``"done": true``, ``done_reason`` and the
timings and counts. Calls arrive whole (``{"id"?, "function": {"index"?, "name", "arguments":
{...}}}``, the arguments an object); a failure mid-stream is a line ``{"error": "..."}``
(docs/api/errors.mdx).

The native message is the ``stream=false`` body, the object that holds ``done_reason``. The
server builds it from the very chunks it would stream (server/routes.go ``writeChatResponse``):
the last chunk's fields, with ``message.content`` and ``message.thinking`` the concatenation of
every chunk's pieces and ``message.tool_calls`` (and ``logprobs``) every chunk's lists extended.
``accumulate`` does that fold; the message of a cut stream is the same fold over the chunks that
came (``done: false``), which ``extract`` reads as unfinished: none of its calls is executable.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..accumulator import Accumulator, copy_tree
from ..errors import MalformedChunk, StreamError
from ..protocol import ToolCall, ToolCallRecord, require_records
from ..wire import describe, reject_json_constant

__all__ = ["OllamaStrategy"]

_GROWING = ("content", "thinking")  # message strings the fold concatenates
_FOREIGN = ("choices", "object", "type", "delta", "output", "response", "error")


class OllamaStrategy:
    """Ollama's native chat stream: NDJSON chunks, whole calls with object arguments."""

    name = "ollama"
    leaks_into_text = True

    # -- recognition ----------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """An ``/api/chat`` chunk or ``stream=false`` body: ``model`` and ``created_at`` strings,
        a ``message`` object, ``done`` a boolean when present (a piece of a chunk cut by a proxy
        may lack it), no key of another wire's envelope. Never raises."""
        try:
            return (
                isinstance(shape, dict)
                and isinstance(shape.get("model"), str)
                and isinstance(shape.get("created_at"), str)
                and isinstance(shape.get("message"), dict)
                and isinstance(shape.get("done", False), bool)
                and not any(k in shape for k in _FOREIGN)
            )
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on the chunk with ``"done": true`` unless its ``done_reason`` is ``"length"``:
        a turn cut by ``num_predict`` did not finish."""
        return isinstance(chunk, dict) and chunk.get("done") is True and chunk.get("done_reason") != "length"

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one NDJSON object into the body; return the content text it added."""
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"ollama: a chunk is a JSON object, got {describe(chunk)}")
        if "error" in chunk:
            raise StreamError(f"ollama: the server reported an error in the stream: {chunk['error']!r}", payload=chunk)
        delta = _checked(chunk)
        if acc.state.get("done"):
            raise MalformedChunk(f"ollama: a chunk after the done chunk: {describe(chunk)}")
        if "started" not in acc.state:
            acc.state["started"] = True
            acc.root = {"message": {"content": ""}}
        body = acc.root
        for key in [k for k in body if k not in ("message", "logprobs") and k not in chunk]:
            del body[key]
        for key, value in chunk.items():
            if key == "logprobs":
                if value:
                    body.setdefault("logprobs", []).extend(copy_tree(value))
            elif key != "message":
                body[key] = copy_tree(value)
        message = body["message"]
        for key in [k for k in message if k not in (*_GROWING, "tool_calls") and k not in delta]:
            del message[key]
        for key, value in delta.items():
            if key in _GROWING:
                if value:
                    message.setdefault(key, "")
                    acc.append(message, key, value)
            elif key == "tool_calls":
                if value:
                    message.setdefault("tool_calls", []).extend(copy_tree(value))
            else:
                message[key] = copy_tree(value)
        if chunk.get("done") is True:
            acc.state["done"] = True
        text = delta.get("content")
        return text if isinstance(text, str) else ""

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``message.tool_calls`` entry, in order. A body that is not done, or
        done with ``done_reason: "length"``, makes every call an error call."""
        entries = _message_of(message).get("tool_calls")
        if not isinstance(entries, list):
            return []
        calls = [_call(i, entry) for i, entry in enumerate(entries)]
        unfinished = _unfinished(message)
        seen: set[str] = set()
        out = []
        for call in calls:
            if call.error is None and unfinished:
                call = ToolCall(call.name, call.arguments, call.id, call.raw_arguments, unfinished)
            elif call.error is None and call.id is not None and call.id in seen:
                call = ToolCall(call.name, call.arguments, call.id, call.raw_arguments, f"id {call.id!r} is used twice")
            if call.id is not None:
                seen.add(call.id)
            out.append(call)
        return out

    def content_text(self, message: object) -> str:
        """``message.content`` ("" when there is none)."""
        text = _message_of(message).get("content")
        return text if isinstance(text, str) else ""

    def forming_name(self, message: object) -> str | None:
        """The first call's name: calls arrive whole, so it is complete or absent."""
        entries = _message_of(message).get("tool_calls")
        if not isinstance(entries, list) or not entries:
            return None
        return _call(0, entries[0]).name or None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant turn as ``/api/chat`` takes it back (content, thinking, the executable
        calls), then one ``tool`` message per record, naming its tool by ``tool_name`` and its
        call by ``tool_call_id``. A call the server sent without an id is replayed under
        ``call_mcs_<n>`` (n its position among the executable calls), the id its result names."""
        inner = _message_of(message)
        records = require_records(records, "ollama")
        calls = [c for c in self.extract(message) if c.error is None]
        ids = [c.id if c.id is not None else f"call_mcs_{i}" for i, c in enumerate(calls)]
        answered: set[int] = set()
        results = []
        for record in records:
            at = next((i for i, c in enumerate(calls) if i not in answered and _answers(record.call, c)), None)
            if at is None:
                at = next((i for i, c in enumerate(calls) if _answers(record.call, c)), None)
            if at is None:
                raise ValueError(f"ollama: the result for {record.call.name!r} (id {record.call.id!r}) answers no call in the message")
            answered.add(at)
            results.append({"role": "tool", "content": record.result, "tool_name": record.call.name, "tool_call_id": ids[at]})
        turn: dict[str, Any] = {"role": "assistant", "content": self.content_text(message)}
        thinking = inner.get("thinking")
        if isinstance(thinking, str) and thinking:
            turn["thinking"] = thinking
        if calls:
            turn["tool_calls"] = [_replayed(i, c, ids[i]) for i, c in enumerate(calls)]
        return [turn, *results]


def _checked(chunk: dict[str, Any]) -> dict[str, Any]:
    """The chunk's ``message``, after checking every field the fold reads (nothing folded yet)."""
    delta = chunk.get("message")
    if not isinstance(delta, dict):
        raise MalformedChunk(f"ollama: a chunk needs a 'message' object: {describe(chunk)}")
    if not isinstance(chunk.get("done", False), bool):
        raise MalformedChunk(f"ollama: 'done' must be a boolean: {describe(chunk)}")
    for key in _GROWING:
        value = delta.get(key)
        if value is not None and not isinstance(value, str):
            raise MalformedChunk(f"ollama: message.{key} must be a string, got {describe(value)}")
    calls = delta.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise MalformedChunk(f"ollama: message.tool_calls must be a list, got {describe(calls)}")
    for i, entry in enumerate(calls or ()):
        if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
            raise MalformedChunk(f"ollama: message.tool_calls[{i}] must be an object with a 'function' object, got {describe(entry)}")
    logprobs = chunk.get("logprobs")
    if logprobs is not None and not isinstance(logprobs, list):
        raise MalformedChunk(f"ollama: 'logprobs' must be a list, got {describe(logprobs)}")
    return delta


def _message_of(body: object) -> dict[str, Any]:
    """The body's ``message`` object, or the object itself when it is a request-side assistant
    turn (``{"role", "content", "tool_calls"}``, what ``result_messages`` replays: the reading
    methods read it back, HISTORY-005); ``ValueError`` for anything that is no JSON object."""
    if not isinstance(body, dict):
        raise ValueError(f"ollama: the message is a /api/chat body (a JSON object), got {describe(body)}")
    if "message" not in body and "role" in body:
        return body
    inner = body.get("message", {})
    if not isinstance(inner, dict):
        raise ValueError(f"ollama: the body's 'message' must be an object, got {describe(inner)}")
    return inner


def _unfinished(body: object) -> str | None:
    """Why the body's calls may not run: the stream has not finished, or was cut by length. A
    request-side turn (no ``message`` key) is one the client already holds whole."""
    if isinstance(body, dict) and "message" not in body and "role" in body:
        return None
    if not isinstance(body, dict) or body.get("done") is not True:
        return "the stream has not finished (no chunk with done: true)"
    if body.get("done_reason") == "length":
        return "the output was cut by its length limit (done_reason: length)"
    return None


def _call(i: int, entry: Any) -> ToolCall:
    """One ``tool_calls`` entry as a call; what it lacks makes it an error call."""
    function = entry.get("function") if isinstance(entry, dict) else None
    if not isinstance(function, dict):
        return ToolCall(name="", error=f"tool_calls[{i}] has no 'function' object")
    raw_id = entry.get("id")
    call_id = raw_id if isinstance(raw_id, str) and raw_id else None
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return ToolCall(name="", id=call_id, error=f"tool_calls[{i}].function has no name")
    if raw_id is not None and call_id is None:
        return ToolCall(name=name, id=None, error=f"tool_calls[{i}].id must be a non-empty string, got {describe(raw_id)}")
    args = function.get("arguments")
    if args is None or args == "":
        return ToolCall(name=name, id=call_id)
    if isinstance(args, dict):
        return ToolCall(name=name, arguments=copy_tree(args), id=call_id)
    if isinstance(args, str):  # a server in front of Ollama may send them as JSON text
        try:
            parsed = json.loads(args, parse_constant=reject_json_constant)
        except ValueError as exc:
            return ToolCall(name=name, id=call_id, raw_arguments=args, error=f"arguments are not JSON: {exc}")
        if isinstance(parsed, dict):
            return ToolCall(name=name, arguments=parsed, id=call_id, raw_arguments=args)
        return ToolCall(name=name, id=call_id, raw_arguments=args, error="arguments do not hold a JSON object")
    return ToolCall(name=name, id=call_id, error=f"arguments must be a JSON object, got {describe(args)}")


def _replayed(i: int, call: ToolCall, call_id: str) -> dict[str, Any]:
    """A call as the assistant turn of a request carries it (docs/capabilities/tool-calling.mdx)."""
    entry: dict[str, Any] = {"type": "function", "id": call_id}
    entry["function"] = {"index": i, "name": call.name, "arguments": copy_tree(call.arguments)}
    return entry


def _answers(record_call: ToolCall, call: ToolCall) -> bool:
    """Whether a record's call is this call: by id where both have one, else name and arguments."""
    if record_call.id is not None or call.id is not None:
        return record_call.id == call.id and record_call.name == call.name
    return record_call.name == call.name and record_call.arguments == call.arguments
