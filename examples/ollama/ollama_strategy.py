"""An Ollama ``/api/chat`` strategy, built only on mcs-conformance's public API.

The wire is NDJSON: one object per line, ``{"model", "created_at", "message": {"role",
"content", "thinking"?, "tool_calls"?}, "done": false}``, and a last one with ``"done": true``,
``done_reason`` and the timings. A call arrives whole in one line, its arguments a JSON object.
An error during the stream arrives as a line ``{"error": "..."}``.

The native message is the WHOLE ``stream=false`` body, not its inner ``message``: the body holds
``done`` and ``done_reason``, and without them nobody can tell a finished turn from a cut one.
The server builds that body from the very chunks it would have streamed (server/routes.go
``writeChatResponse``), so ``accumulate`` does the same fold:

- every field is the LAST chunk's (``created_at``, ``done``, ``done_reason``, the counts, and
  ``message.role``), so a field an earlier chunk had and the last one lacks is gone;
- except ``message.content`` and ``message.thinking``, every chunk's pieces joined, and
  ``message.tool_calls`` (and ``logprobs``), every chunk's list EXTENDED: calls carry no key
  to merge on (``function.index`` is ``0`` on every call some models send), so two equal calls
  are two calls.

Every body of this wire is claimed, text answers too; ``leaks_into_text`` lets the chain hand
the content of a body without calls to the text strategy, for a call the model leaked there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord
from mcs_conformance.reference.accumulator import copy_tree

__all__ = ["OllamaStrategy"]

_JOINED = ("content", "thinking")  # message strings the server concatenates
_EXTENDED = ("tool_calls",)  # message lists the server extends (logprobs sits beside message)
_OTHER_WIRES = ("choices", "object", "type", "delta", "output", "response", "error")


class OllamaStrategy:
    """Ollama's native chat stream: NDJSON chunks folded into the ``stream=false`` body."""

    name = "ollama"
    leaks_into_text = True

    # -- recognising -------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """A chunk or a body: ``model`` and ``created_at`` strings, a ``message`` object, a
        boolean ``done`` if any, and no key of another wire's envelope. Never raises."""
        try:
            return (
                isinstance(shape, dict)
                and isinstance(shape.get("model"), str)
                and isinstance(shape.get("created_at"), str)
                and isinstance(shape.get("message"), dict)
                and isinstance(shape.get("done", False), bool)
                and not any(key in shape for key in _OTHER_WIRES)
            )
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on the chunk with ``"done": true``, unless its ``done_reason`` is ``"length"``:
        a turn cut by ``num_predict`` did not finish, so none of its calls may run."""
        return isinstance(chunk, dict) and chunk.get("done") is True and chunk.get("done_reason") != "length"

    # -- reassembly --------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one NDJSON object into the body; return the content text it added."""
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"ollama: a chunk is a JSON object, got {_describe(chunk)}")
        if "error" in chunk:  # the server gave up mid-stream: what came before is no answer
            raise StreamError(f"ollama: the server reported an error in the stream: {chunk['error']!r}", payload=chunk)
        delta = _checked(chunk)  # refuse a bad line before any of it is folded
        if acc.state.get("done"):
            raise MalformedChunk(f"ollama: a chunk after the done chunk: {_describe(chunk)}")
        if not acc.state:
            acc.state["started"] = True
            acc.root = {"message": {"content": ""}}  # the server's body always has content
        body = acc.root

        # The top level is the last chunk's, except logprobs, which the server extends.
        for key in [k for k in body if k not in ("message", "logprobs") and k not in chunk]:
            del body[key]
        for key, value in chunk.items():
            if key == "logprobs":
                if value:
                    body.setdefault("logprobs", []).extend(copy_tree(value))
            elif key != "message":
                body[key] = copy_tree(value)

        # So is the message, except the joined texts and the extended calls.
        message = body["message"]
        for key in [k for k in message if k not in (*_JOINED, *_EXTENDED) and k not in delta]:
            del message[key]
        for key, value in delta.items():
            if key in _JOINED:
                if value:  # an empty thinking stays out of the body, as the server leaves it out
                    message.setdefault(key, "")
                    acc.append(message, key, value)  # linear growth, however many chunks
            elif key in _EXTENDED:
                if value:
                    message.setdefault(key, []).extend(copy_tree(value))
            else:
                message[key] = copy_tree(value)

        if chunk.get("done") is True:
            acc.state["done"] = True
        text = delta.get("content")
        return text if isinstance(text, str) else ""

    # -- reading the message -----------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``message.tool_calls`` entry, in order. Malformed entries, and every
        call of a body that is not done (or done by length), are error calls: never run."""
        entries = _inner(message).get("tool_calls")
        if not isinstance(entries, list):
            return []
        why_not = _unfinished(message)
        calls, ids = [], set()
        for i, entry in enumerate(entries):
            call = _call(i, entry)
            if call.error is None and why_not:
                call = _with_error(call, why_not)
            elif call.error is None and call.id is not None and call.id in ids:
                call = _with_error(call, f"id {call.id!r} is used twice")  # a result could answer either
            if call.id is not None:
                ids.add(call.id)
            calls.append(call)
        return calls

    def content_text(self, message: object) -> str:
        """``message.content`` ("" when there is none)."""
        text = _inner(message).get("content")
        return text if isinstance(text, str) else ""

    def forming_name(self, message: object) -> str | None:
        """The first call's name: calls arrive whole, so it is complete or absent."""
        entries = _inner(message).get("tool_calls")
        if not isinstance(entries, list) or not entries:
            return None
        return _call(0, entries[0]).name or None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant turn as ``/api/chat`` takes it back (content, thinking, the calls that
        may run), then one ``tool`` message per record with ``tool_name`` and ``tool_call_id``.
        A call the server sent without an id is replayed as ``call_mcs_<n>`` (its position
        among the runnable calls), so that its result can name it."""
        inner = _inner(message)
        if isinstance(records, (str, bytes, dict)) or not isinstance(records, Sequence):
            raise ValueError(f"ollama: records must be a sequence of ToolCallRecord, got {type(records).__name__}")
        for i, record in enumerate(records):
            if not isinstance(record, ToolCallRecord):
                raise ValueError(f"ollama: records[{i}] is {type(record).__name__}, not a ToolCallRecord")
        calls = [c for c in self.extract(message) if c.error is None]
        ids = [c.id if c.id is not None else f"call_mcs_{i}" for i, c in enumerate(calls)]

        # Each record answers one call: the first it matches that no earlier record answered
        # (two equal calls without ids get one result each), else the first it matches at all.
        answered: set[int] = set()
        results = []
        for record in records:
            matching = [i for i, c in enumerate(calls) if _answers(record.call, c)]
            if not matching:
                raise ValueError(f"ollama: the result for {record.call.name!r} (id {record.call.id!r}) answers no call in the message")
            at = next((i for i in matching if i not in answered), matching[0])
            answered.add(at)
            results.append({"role": "tool", "content": record.result, "tool_name": record.call.name, "tool_call_id": ids[at]})

        turn: dict[str, Any] = {"role": "assistant", "content": self.content_text(message)}
        thinking = inner.get("thinking")
        if isinstance(thinking, str) and thinking:
            turn["thinking"] = thinking  # the docs replay the thinking with the calls
        if calls:
            turn["tool_calls"] = [
                {"type": "function", "id": ids[i],
                 "function": {"index": i, "name": c.name, "arguments": copy_tree(c.arguments)}}
                for i, c in enumerate(calls)
            ]
        return [turn, *results]


def _describe(value: Any) -> str:
    """A short description of a value for an error text."""
    if isinstance(value, dict):
        keys = ", ".join(repr(k) for k in list(value)[:8])
        text = f"dict with keys [{keys}{', ...' if len(value) > 8 else ''}]"
        hints = [f"{k}={value[k]!r}" for k in ("type", "object") if isinstance(value.get(k), str)]
        text += f" ({', '.join(hints)})" if hints else ""
    elif isinstance(value, str):
        text = f"str {value[:60]!r}{'...' if len(value) > 60 else ''}"
    else:
        text = f"{type(value).__name__} {value!r}"
    return text if len(text) <= 120 else text[:117] + "..."


def _checked(chunk: dict[str, Any]) -> dict[str, Any]:
    """The chunk's ``message``, once every field the fold reads has the type the server writes."""
    delta = chunk.get("message")
    if not isinstance(delta, dict):
        raise MalformedChunk(f"ollama: a chunk needs a 'message' object: {_describe(chunk)}")
    if not isinstance(chunk.get("done", False), bool):
        raise MalformedChunk(f"ollama: 'done' must be a boolean: {_describe(chunk)}")
    for key in _JOINED:
        value = delta.get(key)
        if value is not None and not isinstance(value, str):
            raise MalformedChunk(f"ollama: message.{key} must be a string, got {_describe(value)}")
    calls = delta.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise MalformedChunk(f"ollama: message.tool_calls must be a list, got {_describe(calls)}")
    for i, entry in enumerate(calls or ()):
        if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
            raise MalformedChunk(f"ollama: message.tool_calls[{i}] must be an object with a 'function' object, got {_describe(entry)}")
    logprobs = chunk.get("logprobs")
    if logprobs is not None and not isinstance(logprobs, list):
        raise MalformedChunk(f"ollama: 'logprobs' must be a list, got {_describe(logprobs)}")
    return delta


def _is_turn(message: object) -> bool:
    """A request-side assistant turn, ``{"role", "content", "tool_calls"}``: what
    ``result_messages`` replays, which the reading methods must read back whole."""
    return isinstance(message, dict) and "message" not in message and "role" in message


def _inner(message: object) -> dict[str, Any]:
    """The body's ``message`` object (or the replayed turn itself)."""
    if not isinstance(message, dict):
        raise ValueError(f"ollama: the message is a /api/chat body (a JSON object), got {_describe(message)}")
    if _is_turn(message):
        return message
    inner = message.get("message", {})
    if not isinstance(inner, dict):
        raise ValueError(f"ollama: the body's 'message' must be an object, got {_describe(inner)}")
    return inner


def _unfinished(body: object) -> str | None:
    """Why no call of the body may run, or None. The body says it: ``done`` and ``done_reason``."""
    if _is_turn(body):
        return None  # a turn the client replays is one it already held whole
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
    raw_id = entry.get("id")  # current servers send one; older ones none
    call_id = raw_id if isinstance(raw_id, str) and raw_id else None
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return ToolCall(name="", id=call_id, error=f"tool_calls[{i}].function has no name")
    if raw_id is not None and call_id is None:
        return ToolCall(name=name, error=f"tool_calls[{i}].id must be a non-empty string, got {_describe(raw_id)}")
    args = function.get("arguments")
    if args is None or args == "":  # a tool without parameters
        return ToolCall(name=name, id=call_id)
    if isinstance(args, dict):
        return ToolCall(name=name, arguments=copy_tree(args), id=call_id)
    if isinstance(args, str):  # a server in front of Ollama may send them as JSON text
        try:
            parsed = json.loads(args, parse_constant=_no_constant)
        except ValueError as exc:
            return ToolCall(name=name, id=call_id, raw_arguments=args, error=f"arguments are not JSON: {exc}")
        if isinstance(parsed, dict):
            return ToolCall(name=name, arguments=parsed, id=call_id, raw_arguments=args)
        return ToolCall(name=name, id=call_id, raw_arguments=args, error="arguments do not hold a JSON object")
    return ToolCall(name=name, id=call_id, error=f"arguments must be a JSON object, got {_describe(args)}")


def _no_constant(token: str) -> Any:
    """Python's json reads NaN and Infinity; JSON has neither."""
    raise ValueError(f"{token} is not valid JSON")


def _with_error(call: ToolCall, error: str) -> ToolCall:
    return ToolCall(call.name, call.arguments, call.id, call.raw_arguments, error)


def _answers(record_call: ToolCall, call: ToolCall) -> bool:
    """Whether a record's call is this call: by id where either has one, else by name and arguments."""
    if record_call.id is not None or call.id is not None:
        return record_call.id == call.id and record_call.name == call.name
    return record_call.name == call.name and record_call.arguments == call.arguments
