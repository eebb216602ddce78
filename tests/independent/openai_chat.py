"""An OpenAI Chat Completions strategy written from docs/spec.md and the public API alone.

It folds ``chat.completion.chunk`` deltas the way the official SDK's accumulator does
(strings concatenated, objects merged, a null never overwriting a value, ``type`` and
``index`` replaced) and keeps the rules docs/spec.md marks ``must`` and ``should``. Where
the spec leaves room it takes the SDK's answer, not the reference's:

* a function name sent again on a later fragment is concatenated, as the SDK does;
* a tool-call fragment without an ``index`` refuses the stream (MalformedChunk), as the
  SDK refuses it, instead of guessing which call it continues;
* ``id: ""`` stays ``""`` in the message and in the extracted call;
* it claims every assistant message with a ``tool_calls`` key (ADR-0001), whatever the
  arguments hold;
* the live message carries no key the provider never sends: whether the stream has
  finished is not written into it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord, require_records

NAME = "openai-chat"
_ENVELOPE_KEYS = ("choices", "object", "delta", "type")


def _bad(problem: str) -> MalformedChunk:
    return MalformedChunk(f"{NAME}: {problem}")


def _int_index(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _bad(f"{where} must be an integer, got {value!r:.40}")


class Strategy:
    """OpenAI Chat Completions: chunks in, ``choices[0].message`` out."""

    name = NAME
    leaks_into_text = False

    # -- recognition ----------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        try:
            if not isinstance(shape, dict):
                return False
            if shape.get("object") == "chat.completion.chunk":
                return True
            choices = shape.get("choices")
            if isinstance(choices, list) and "type" not in shape and shape.get("object") in (None, ""):
                # Azure's leading chunk (object "") and servers that leave "object" out:
                # choices hold deltas (a whole chat.completion holds messages)
                if all(isinstance(c, dict) and "delta" in c for c in choices):
                    return any(k in shape for k in ("id", "model", "prompt_filter_results"))
            if "tool_calls" in shape and not any(k in shape for k in _ENVELOPE_KEYS):
                return shape.get("role", "assistant") == "assistant"
            return False
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        if not isinstance(chunk, dict) or not isinstance(chunk.get("choices"), list):
            return False
        # a length or content_filter finish reports a cut output: the turn did not complete
        # (docs/spec.md, "Where not finished lives"; the SDK refuses to build a completion from it)
        return any(
            isinstance(c, dict) and c.get("index") == 0 and not isinstance(c.get("index"), bool)
            and isinstance(c.get("finish_reason"), str) and bool(c["finish_reason"])
            and c["finish_reason"] not in ("length", "content_filter")
            for c in chunk["choices"]
        )

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if "calls" not in acc.state:
            acc.root = {}
            acc.state["calls"] = {}  # wire index -> the tool_calls entry it currently feeds
            acc.state["ids"] = {}  # call id -> its tool_calls entry
        if chunk == "[DONE]":
            return ""
        if not isinstance(chunk, dict):
            raise _bad(f"a chunk must be an object or \"[DONE]\", got {type(chunk).__name__}")
        if chunk.get("error"):
            raise StreamError(f"{NAME}: the provider sent an error in the stream: {chunk['error']!r:.200}", payload=chunk)
        choices = chunk.get("choices")
        if choices is None:
            return ""
        if not isinstance(choices, list):
            raise _bad("choices must be a list")
        shown = []
        for n, choice in enumerate(choices):
            if not isinstance(choice, dict):
                raise _bad(f"choices[{n}] must be an object")
            if _int_index(choice.get("index"), f"choices[{n}].index") != 0:
                continue
            delta = choice.get("delta")
            if delta is None:
                continue
            if not isinstance(delta, dict):
                raise _bad(f"choices[{n}].delta must be an object")
            shown.append(self._fold_delta(acc, delta))
        return "".join(shown)

    def _fold_delta(self, acc: Accumulator, delta: dict) -> str:
        message = acc.root
        text = ""
        for key, value in delta.items():
            if key == "tool_calls":
                self._fold_tool_calls(acc, message, value)
            elif key == "role":
                if message.get("role") is None:  # set once: the SDK would concatenate a repeated role
                    message["role"] = copy.deepcopy(value)
            else:
                if key == "content" and isinstance(value, str):
                    text = value
                _fold(acc, message, key, value)
        return text

    def _fold_tool_calls(self, acc: Accumulator, message: dict, fragments: Any) -> None:
        if fragments is None:
            message.setdefault("tool_calls", None)
            return
        if not isinstance(fragments, list):
            raise _bad("delta.tool_calls must be a list")
        checked = [self._check_fragment(n, f) for n, f in enumerate(fragments)]
        if not isinstance(message.get("tool_calls"), list):
            message["tool_calls"] = []
        entries, calls, by_id = message["tool_calls"], acc.state["calls"], acc.state["ids"]
        for index, fragment in checked:
            entry = calls.get(index)
            new_id = fragment.get("id")
            if new_id:  # an id names one call: it wins over the index
                if entry is not None and entry.get("id") and new_id != entry["id"]:
                    entry = None  # another call sent at the same index (a compatible server)
                entry = entry or by_id.get(new_id)
            if entry is None:
                entry = {}
                entries.append(entry)
            calls[index] = entry
            for key, value in fragment.items():
                if key == "index":
                    continue
                if key == "id":
                    if value and not entry.get("id"):
                        entry["id"] = value
                        by_id.setdefault(value, entry)
                    else:
                        entry.setdefault("id", value)
                else:
                    _fold(acc, entry, key, value)

    @staticmethod
    def _check_fragment(n: int, fragment: Any) -> tuple[int, dict]:
        where = f"delta.tool_calls[{n}]"
        if not isinstance(fragment, dict):
            raise _bad(f"{where} must be an object")
        if "index" not in fragment:
            raise _bad(f"{where} has no index, so it cannot be told which call it continues")
        index = _int_index(fragment["index"], f"{where}.index")
        if fragment.get("id") is not None and not isinstance(fragment["id"], str):
            raise _bad(f"{where}.id must be a string")
        if fragment.get("type") is not None and not isinstance(fragment["type"], str):
            raise _bad(f"{where}.type must be a string")
        function = fragment.get("function")
        if function is not None:
            if not isinstance(function, dict):
                raise _bad(f"{where}.function must be an object")
            for key in ("name", "arguments"):
                if function.get(key) is not None and not isinstance(function[key], str):
                    raise _bad(f"{where}.function.{key} must be a string (arguments stream as JSON text)")
        return index, fragment

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        entries = _message(message).get("tool_calls")
        if entries is None:
            return []
        if not isinstance(entries, list):
            return [ToolCall(name="", error="tool_calls is not a list")]
        return [_call(n, entry) for n, entry in enumerate(entries)]

    def content_text(self, message: object) -> str:
        if not isinstance(message, dict):
            return ""
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(p["text"] for p in content
                           if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
        return ""

    def forming_name(self, message: object) -> str | None:
        entries = message.get("tool_calls") if isinstance(message, dict) else None
        if not isinstance(entries, list) or not entries or not isinstance(entries[0], dict):
            return None
        function = entries[0].get("function")
        name = function.get("name") if isinstance(function, dict) else None
        return name if isinstance(name, str) and name else None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        message = _message(message)
        records = require_records(records, NAME)
        calls = self.extract(message)
        taken = {c.id for c in calls if c.id}
        replay, ids = [], []
        for n, call in enumerate(calls):
            if not call.executable:
                ids.append(None)  # never run, so never replayed: the API wants a result for every replayed call
                continue
            call_id = call.id or f"call_{n}"
            while not call.id and call_id in taken:
                call_id += "_"
            taken.add(call_id)
            ids.append(call_id)
            replay.append({"id": call_id, "type": "function",
                           "function": {"name": call.name, "arguments": call.raw_arguments or "{}"}})
        turn: dict[str, Any] = {"role": "assistant", "content": self.content_text(message) or None}
        if isinstance(message.get("refusal"), str):
            turn["refusal"] = message["refusal"]
        if replay:
            turn["tool_calls"] = replay
        out = [turn]
        answered: set[int] = set()
        for record in records:
            n = next((n for n, c in enumerate(calls) if ids[n] and n not in answered and _same(c, record.call)), None)
            if n is None:
                raise ValueError(f"{NAME}: the record for call id {record.call.id!r} ({record.call.name!r}) "
                                 f"answers no executable call of the message")
            answered.add(n)
            out.append({"role": "tool", "tool_call_id": ids[n], "content": record.result})
        return out


# -- helpers ------------------------------------------------------------------------------
def _fold(acc: Accumulator, container: dict, key: str, value: Any) -> None:
    """The SDK's delta rule: set what is new or null, concatenate strings, add numbers,
    merge objects, extend lists; ``type`` and ``index`` are replaced, never added up."""
    current = container.get(key)
    if value is None:
        container.setdefault(key, None)
    elif current is None or key in ("type", "index"):
        container[key] = copy.deepcopy(value)
    elif isinstance(current, str) and isinstance(value, str):
        if value:
            acc.append(container, key, value)
    elif isinstance(current, dict) and isinstance(value, dict):
        for k, v in value.items():
            _fold(acc, current, k, v)
    elif isinstance(current, list) and isinstance(value, list):
        for item in value:
            at = item.get("index") if isinstance(item, dict) else None
            target = next((e for e in current if isinstance(e, dict) and at is not None and e.get("index") == at), None)
            if target is None:
                current.append(copy.deepcopy(item))
            else:
                for k, v in item.items():
                    _fold(acc, target, k, v)
    elif isinstance(current, (int, float)) and isinstance(value, (int, float)) \
            and not isinstance(current, bool) and not isinstance(value, bool):
        container[key] = current + value


def _message(message: object) -> dict:
    if not isinstance(message, dict):
        raise ValueError(f"{NAME}: expected an assistant message (a dict), got {type(message).__name__}")
    return message


def _call(n: int, entry: Any) -> ToolCall:
    if not isinstance(entry, dict):
        return ToolCall(name="", error=f"tool_calls[{n}] is not an object")
    call_id = entry.get("id") if isinstance(entry.get("id"), str) else None
    function = entry.get("function")
    if not isinstance(function, dict):
        return ToolCall(name="", id=call_id, error=f"tool_calls[{n}] has no function")
    name = function.get("name") if isinstance(function.get("name"), str) else ""
    raw = function.get("arguments")
    if raw is not None and not isinstance(raw, str):
        return ToolCall(name=name, id=call_id, error=f"tool_calls[{n}]: arguments are not a JSON string")
    if raw is None or not raw.strip():
        arguments: Any = {}
    else:
        try:
            arguments = json.loads(raw, parse_constant=_no_constant)
        except ValueError as exc:
            return ToolCall(name=name, id=call_id, raw_arguments=raw, error=f"arguments are not valid JSON: {exc}")
    if not isinstance(arguments, dict):
        return ToolCall(name=name, id=call_id, raw_arguments=raw, error="arguments are not a JSON object")
    error = None if name else f"tool_calls[{n}] has no function name"
    return ToolCall(name=name, arguments=arguments, id=call_id, raw_arguments=raw, error=error)


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def _same(call: ToolCall, wanted: ToolCall) -> bool:
    if wanted.id:
        return call.id == wanted.id
    return not call.id and call.name == wanted.name and call.arguments == wanted.arguments
