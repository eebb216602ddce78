"""An Ollama ``/api/chat`` strategy, built only on mcs-conformance's public API.

The wire is NDJSON: one object per line, ``{"model", "created_at", "message": {...},
"done": false}``, and a last one with ``"done": true``, ``done_reason`` and timings. An
error during the stream arrives as a line ``{"error": "..."}``.

The native message is the ``message`` object of the ``stream=false`` response:
``content`` and ``thinking`` are the concatenation of the chunks' pieces, and
``tool_calls`` is EXTENDED with each chunk's list (Ollama sends every call whole, with its
arguments as a JSON object, no index to merge on and no id). Other message keys are kept
as first sent.

Claimed shapes: Ollama chunks, and assistant messages with a non-empty ``tool_calls`` list
whose arguments are all JSON objects (OpenAI Chat sends strings there, so the two never
claim the same message). A message without calls, ``{"role": "assistant", "content":
..., "thinking": ...}``, is left to the text strategy: the reference text strategy claims
every dict with string content and no envelope key, and two strategies claiming one shape
would make the chain's answer depend on its order. So a call the model leaked into its
content reaches the text strategy directly, and the fall-through that ``leaks_into_text``
allows never has a call-free Ollama message to start from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord
from mcs_conformance.reference.accumulator import copy_tree

__all__ = ["OllamaStrategy"]

_GROWING = ("content", "thinking")
_ENVELOPE = frozenset({"type", "object", "choices", "delta", "output", "model", "created_at", "message"})


class OllamaStrategy:
    """Ollama's native chat stream: NDJSON chunks, calls with object arguments."""

    name = "ollama"
    leaks_into_text = True

    # -- recognising -------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """An Ollama chat chunk, or an assembled Ollama assistant message. Never raises."""
        try:
            return _is_chunk(shape) or _is_message(shape)
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on the chunk with ``"done": true``, unless its ``done_reason`` is ``"length"``:
        a turn cut by ``num_predict`` is not finished, and the message itself cannot say so
        (``done_reason`` sits beside it), so no call of it may be run."""
        return isinstance(chunk, dict) and chunk.get("done") is True and chunk.get("done_reason") != "length"

    # -- reassembly --------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one NDJSON object into the message; return the content text it added."""
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"ollama: a chunk is a JSON object, got {type(chunk).__name__}")
        if chunk.get("error") is not None:
            raise StreamError(f"ollama: the server reported an error in the stream: {chunk['error']}", payload=chunk)
        if "started" not in acc.state:
            acc.state.update(started=True, keys=set())
            acc.root = {}
        delta = chunk.get("message")
        if delta is None:
            return ""
        if not isinstance(delta, dict):
            raise MalformedChunk(f"ollama: 'message' must be an object, got {type(delta).__name__}")
        calls = _checked(delta)
        seen = acc.state["keys"]
        changes = [
            (key, value) for key, value in delta.items()
            if not (key in _GROWING and value is None)
            and (key not in seen or (key in _GROWING and value) or (key == "tool_calls" and calls))
        ]
        if changes:
            message = acc.root  # reading the root marks the message changed: only when it is
            for key, value in changes:
                if key in _GROWING:
                    message.setdefault(key, "")
                    if value:
                        acc.append(message, key, value)
                elif key == "tool_calls":
                    if calls:  # EXTENDED: every chunk's calls are new, whole calls
                        message.setdefault("tool_calls", []).extend(copy_tree(calls))
                else:
                    message[key] = copy_tree(value)
                seen.add(key)
        text = delta.get("content")
        return text if isinstance(text, str) else ""

    # -- reading the message -----------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``tool_calls`` entry, in order; malformed entries carry ``error``."""
        entries = message.get("tool_calls") if isinstance(message, dict) else None
        if not isinstance(entries, list):
            return []
        return [_call(i, entry) for i, entry in enumerate(entries)]

    def content_text(self, message: object) -> str:
        """The ``content`` text ("" when there is none)."""
        text = message.get("content") if isinstance(message, dict) else None
        return text if isinstance(text, str) else ""

    def forming_name(self, message: object) -> str | None:
        """The first call's name: Ollama sends calls whole, so it is complete or absent."""
        calls = self.extract(message)
        return calls[0].name or None if calls else None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant turn as Ollama takes it back, then one ``tool`` message per record."""
        if not isinstance(message, dict):
            raise ValueError(f"ollama: the message is a JSON object, got {type(message).__name__}")
        calls = self.extract(message)
        for record in records:
            if not isinstance(record, ToolCallRecord):
                raise ValueError(f"ollama: expected ToolCallRecord objects, got {type(record).__name__}")
            if not any(_same(record.call, c) for c in calls if c.error is None):
                raise ValueError(f"ollama: the result for {record.call.name!r} answers no call in the message")
        turn: dict[str, Any] = {"role": "assistant", "content": self.content_text(message)}
        thinking = message.get("thinking")
        if isinstance(thinking, str) and thinking:
            turn["thinking"] = thinking
        if calls:
            turn["tool_calls"] = [
                {"type": "function", "function": {"index": i, "name": c.name, "arguments": copy_tree(c.arguments)}}
                for i, c in enumerate(calls)
            ]
        return [turn] + [{"role": "tool", "content": r.result, "tool_name": r.call.name} for r in records]


def _is_chunk(shape: Any) -> bool:
    return (
        isinstance(shape, dict)
        and isinstance(shape.get("model"), str)
        and isinstance(shape.get("created_at"), str)
        and isinstance(shape.get("message"), dict)
        and isinstance(shape.get("done", False), bool)
        and not any(k in shape for k in ("choices", "object", "type"))
    )


def _is_message(shape: Any) -> bool:
    if not isinstance(shape, dict) or shape.get("role") != "assistant":
        return False
    if not isinstance(shape.get("content", ""), str) or any(k in shape for k in _ENVELOPE):
        return False
    entries = shape.get("tool_calls")
    return isinstance(entries, list) and bool(entries) and all(
        isinstance(e, dict) and isinstance(e.get("function"), dict) and isinstance(e["function"].get("arguments"), dict)
        for e in entries
    )


def _checked(delta: dict[str, Any]) -> list[Any]:
    """The chunk's tool calls, after checking the message's fields (nothing is folded yet)."""
    for key in _GROWING:
        value = delta.get(key)
        if value is not None and not isinstance(value, str):
            raise MalformedChunk(f"ollama: message.{key} must be a string, got {type(value).__name__}")
    calls = delta.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise MalformedChunk(f"ollama: message.tool_calls must be a list, got {type(calls).__name__}")
    for i, entry in enumerate(calls):
        if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
            raise MalformedChunk(f"ollama: message.tool_calls[{i}] must be an object with a 'function' object")
    return calls


def _call(i: int, entry: Any) -> ToolCall:
    function = entry.get("function") if isinstance(entry, dict) else None
    if not isinstance(function, dict):
        return ToolCall(name="", error=f"tool_calls[{i}] has no 'function' object")
    name = function.get("name")
    call_id = entry.get("id") if isinstance(entry.get("id"), str) else None
    if not isinstance(name, str) or not name:
        return ToolCall(name="", id=call_id, error=f"tool_calls[{i}].function has no name")
    args = function.get("arguments")
    if args is None:
        return ToolCall(name=name, id=call_id)
    if isinstance(args, dict):
        return ToolCall(name=name, arguments=copy_tree(args), id=call_id)
    if isinstance(args, str):  # some servers in front of Ollama serialise them
        try:
            parsed = json.loads(args) if args.strip() else {}
        except ValueError as exc:
            return ToolCall(name=name, id=call_id, raw_arguments=args, error=f"arguments are not JSON: {exc}")
        if isinstance(parsed, dict):
            return ToolCall(name=name, arguments=parsed, id=call_id, raw_arguments=args)
        return ToolCall(name=name, id=call_id, raw_arguments=args, error="arguments do not hold a JSON object")
    return ToolCall(name=name, id=call_id, error=f"arguments must be a JSON object, got {type(args).__name__}")


def _same(wanted: ToolCall, found: ToolCall) -> bool:
    if wanted.id is not None and found.id is not None:
        return wanted.id == found.id
    return wanted.name == found.name and wanted.arguments == found.arguments
