"""An OpenAI Responses strategy written from docs/spec.md and the public API alone.

``response.created`` seeds the message (the ``response`` object), item and part events
build ``output`` from the deltas, ``*.done`` events put the finished value in place, and
``response.completed`` / ``response.incomplete`` replace the message with their own
``response`` (the SDK's ``ResponseStreamState`` does the same). Where the spec leaves room
it takes the SDK's answer: events are keyed by ``output_index`` only (an event that
addresses no known index refuses the stream), events after the completion are ignored,
and an item keeps what the wire sent (no status is made up for it).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord, require_records

NAME = "openai-responses"
CALL_TYPES = {"function_call": ("arguments", "function_call_output"), "custom_tool_call": ("input", "custom_tool_call_output")}
ITEM_DELTAS = {  # event -> (the item type it belongs to, the item field it grows)
    "response.function_call_arguments.delta": ("function_call", "arguments"),
    "response.custom_tool_call_input.delta": ("custom_tool_call", "input"),
    "response.mcp_call_arguments.delta": ("mcp_call", "arguments"),
    "response.code_interpreter_call_code.delta": ("code_interpreter_call", "code"),
}
ITEM_DONES = {  # event -> (the item type it belongs to, the item field it sets)
    "response.function_call_arguments.done": ("function_call", "arguments"),
    "response.custom_tool_call_input.done": ("custom_tool_call", "input"),
    "response.mcp_call_arguments.done": ("mcp_call", "arguments"),
    "response.code_interpreter_call_code.done": ("code_interpreter_call", "code"),
}
PART_EVENTS = {  # delta/done event -> (part list, index key, field)
    "response.output_text": ("content", "content_index", "text"),
    "response.refusal": ("content", "content_index", "refusal"),
    "response.reasoning_text": ("content", "content_index", "text"),
    "response.reasoning_summary_text": ("summary", "summary_index", "text"),
}
PART_ADDED = {
    "response.content_part.added": ("content", "content_index"),
    "response.content_part.done": ("content", "content_index"),
    "response.reasoning_summary_part.added": ("summary", "summary_index"),
    "response.reasoning_summary_part.done": ("summary", "summary_index"),
}


def _bad(problem: str) -> MalformedChunk:
    return MalformedChunk(f"{NAME}: {problem}")


def _texts(output: Any) -> str:
    """The output text of a response's output: every output_text part of its message items."""
    out = []
    for item in output if isinstance(output, list) else ():
        if isinstance(item, dict) and item.get("type") == "message" and isinstance(item.get("content"), list):
            out.extend(p["text"] for p in item["content"]
                       if isinstance(p, dict) and p.get("type") == "output_text" and isinstance(p.get("text"), str))
    return "".join(out)


class Strategy:
    name = NAME
    leaks_into_text = True

    def recognizes(self, shape: object) -> bool:
        try:
            if not isinstance(shape, dict):
                return False
            kind = shape.get("type")
            if isinstance(kind, str):
                if kind.startswith("response."):
                    return True
                return kind == "error" and any(k in shape for k in ("sequence_number", "message", "code"))
            return shape.get("object") == "response" and isinstance(shape.get("output"), list)
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        return isinstance(chunk, dict) and chunk.get("type") in ("response.completed", "response.incomplete")

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if chunk == "[DONE]":
            return ""
        if not isinstance(chunk, dict) or not isinstance(chunk.get("type"), str):
            raise _bad("an event must be an object with a string type")
        kind, st = chunk["type"], acc.state
        if kind == "error":
            raise StreamError(f"{NAME}: the stream reported an error: {chunk!r:.200}", payload=chunk)
        if kind == "response.failed":
            raise StreamError(f"{NAME}: the response failed", payload=chunk)
        if st.get("final") and kind != "response.created":
            return ""  # the completed response is the message; nothing after it edits it
        if kind in ("response.created", "response.queued", "response.in_progress", "response.completed",
                    "response.incomplete"):
            return self._lifecycle(acc, chunk, kind)
        if kind.startswith("response.") and "live" not in st:
            raise _bad(f"{kind} before response.created")
        if kind == "response.output_item.added":
            index, item = self._indexed_item(chunk)
            if index in st["items"]:
                raise _bad(f"output_index {index} is added twice")
            acc.root["output"].append(item)
            st["items"][index] = item
            return self._tail(acc)
        if kind == "response.output_item.done":
            index, item = self._indexed_item(chunk)
            return self._replace_item(acc, index, item)
        if kind in ITEM_DELTAS or kind in ITEM_DONES:
            item = self._item(acc, chunk)
            owner, field = ITEM_DELTAS.get(kind) or ITEM_DONES[kind]
            if item.get("type") != owner:
                raise _bad(f"{kind} addresses a {item.get('type')!r} item, not a {owner} item")
            value = chunk.get("delta" if kind in ITEM_DELTAS else field)
            if not isinstance(value, str):
                raise _bad(f"{kind} carries no string")
            acc.root  # noqa: B018 -- the item is edited in place: mark the message changed
            if kind in ITEM_DELTAS:
                if isinstance(item.get(field), str):
                    acc.append(item, field, value)
                else:
                    item[field] = value
            else:
                acc.seal(item, field, value)
            return ""
        if kind in PART_ADDED:
            return self._part_added(acc, chunk, kind)
        stem, _, step = kind.rpartition(".")
        if stem in PART_EVENTS and step in ("delta", "done"):
            return self._part_text(acc, chunk, stem, step)
        if kind == "response.output_text.annotation.added":
            part = self._part(acc, chunk, "content", "content_index")
            if not isinstance(chunk.get("annotation"), dict):
                raise _bad(f"{kind} carries no annotation object")
            acc.root  # noqa: B018
            part["annotations"] = (part.get("annotations") or []) + [copy.deepcopy(chunk.get("annotation"))]
        return ""  # other events (web_search_call.*, ...) change nothing

    def _lifecycle(self, acc: Accumulator, chunk: dict, kind: str) -> str:
        response = chunk.get("response")
        if not isinstance(response, dict) or not isinstance(response.get("output", []), (list, type(None))):
            raise _bad(f"{kind} carries no response object")
        st = acc.state
        if kind in ("response.completed", "response.incomplete"):
            final = copy.deepcopy(response)
            if final.get("output") is None:  # the items the stream finished stand for it, as the SDK does
                done = st.get("done", {})
                final["output"] = [copy.deepcopy(done[i]) for i in sorted(done)]
            acc.root = final
            st["final"] = True
        elif kind == "response.created" or "live" not in st:
            acc.root = copy.deepcopy(response)
            if not isinstance(acc.root.get("output"), list):
                acc.root["output"] = []
            st.clear()
            st.update(live=True, items=dict(enumerate(acc.root["output"])), done={}, shown=[])
        else:
            root = acc.root
            for key, value in response.items():
                if key != "output":
                    root[key] = copy.deepcopy(value)
            return ""
        return self._tail(acc)

    @staticmethod
    def _tail(acc: Accumulator) -> str:
        """After an event that puts whole values in place: the output text the message now
        holds beyond what the deltas showed (kept as pieces, joined only here)."""
        shown = "".join(acc.state.get("shown", ()))
        full = _texts(acc.message.get("output"))
        tail = full[len(shown):] if full.startswith(shown) else ""
        acc.state["shown"] = [shown + tail]
        return tail

    @staticmethod
    def _indexed_item(chunk: dict) -> tuple[int, dict]:
        index, item = chunk.get("output_index"), chunk.get("item")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise _bad(f"{chunk['type']} has no output_index")
        if not isinstance(item, dict):
            raise _bad(f"{chunk['type']} carries no item")
        return index, copy.deepcopy(item)

    def _replace_item(self, acc: Accumulator, index: int, item: dict) -> str:
        st = acc.state
        old = st["items"].get(index)
        output = acc.root["output"]
        if old is None:
            output.append(item)
        else:
            for key in list(old):
                acc.seal(old, key)
            output[next(i for i, x in enumerate(output) if x is old)] = item
        st["items"][index] = st["done"][index] = item
        return self._tail(acc)

    def _item(self, acc: Accumulator, chunk: dict) -> dict:
        item = acc.state["items"].get(chunk.get("output_index"))
        if item is None:
            raise _bad(f"{chunk['type']} addresses output_index {chunk.get('output_index')!r}, which holds no item")
        return item

    def _part(self, acc: Accumulator, chunk: dict, lst: str, idx: str) -> dict:
        parts = self._item(acc, chunk).get(lst)
        at = chunk.get(idx)
        if not isinstance(parts, list) or not isinstance(at, int) or isinstance(at, bool) or not 0 <= at < len(parts) \
                or not isinstance(parts[at], dict):
            raise _bad(f"{chunk['type']} addresses {idx} {at!r}, which holds no part")
        return parts[at]

    def _part_added(self, acc: Accumulator, chunk: dict, kind: str) -> str:
        lst, idx = PART_ADDED[kind]
        item, part, at = self._item(acc, chunk), chunk.get("part"), chunk.get(idx)
        if not isinstance(part, dict) or not isinstance(at, int) or isinstance(at, bool) or at < 0:
            raise _bad(f"{kind} carries no part or no {idx}")
        acc.root  # noqa: B018
        parts = item.get(lst)
        if parts is None:
            parts = item[lst] = []
        if not isinstance(parts, list):
            raise _bad(f"{kind}: the item's {lst} is not a list")
        if at < len(parts):
            for key in list(parts[at]) if isinstance(parts[at], dict) else ():
                acc.seal(parts[at], key)
            parts[at] = copy.deepcopy(part)
        else:
            parts.append(copy.deepcopy(part))
        return self._tail(acc)

    def _part_text(self, acc: Accumulator, chunk: dict, stem: str, step: str) -> str:
        lst, idx, field = PART_EVENTS[stem]
        text = stem == "response.output_text"
        if text and self._item(acc, chunk).get("type") != "message":
            raise _bad(f"{chunk['type']} addresses an item that is no message")
        part = self._part(acc, chunk, lst, idx)
        value = chunk.get("delta" if step == "delta" else field)
        if not isinstance(value, str):
            raise _bad(f"{chunk['type']} carries no string")
        if text and part.get("type") != "output_text":
            raise _bad(f"{chunk['type']} addresses a {part.get('type')!r} part")
        acc.root  # noqa: B018
        if step == "delta":
            if isinstance(part.get(field), str):
                acc.append(part, field, value)
            else:
                part[field] = value
            if text:
                acc.state["shown"].append(value)
                return value
            return ""
        acc.seal(part, field, value)
        return self._tail(acc) if text else ""

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        output = _output(message)
        open_response = message.get("status") in ("in_progress", "queued")
        calls = [_call(item) for item in output if isinstance(item, dict) and item.get("type") in CALL_TYPES]
        if open_response:
            return [ToolCall(c.name, c.arguments, c.id, c.raw_arguments, c.error or "the response is still in progress")
                    for c in calls]
        return calls

    def content_text(self, message: object) -> str:
        return _texts(_output(message))

    def forming_name(self, message: object) -> str | None:
        for item in _output(message) if isinstance(message, dict) else ():
            if isinstance(item, dict) and item.get("type") in CALL_TYPES:
                return item["name"] if isinstance(item.get("name"), str) and item["name"] else None
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        output = _output(message)
        records = require_records(records, NAME)
        runnable = {c.id for c in self.extract(message) if c.executable}
        replay, kinds = [], {}
        for item in output:
            if not isinstance(item, dict):
                continue
            if item.get("type") in CALL_TYPES:
                if item.get("call_id") not in runnable or item["call_id"] in kinds:
                    continue  # never runnable, so it gets no output and is not replayed
                kinds[item["call_id"]] = CALL_TYPES[item["type"]][1]
            replay.append(_without_nulls(item))
        answered = set()
        for record in records:
            if record.call.id not in kinds or record.call.id in answered:
                raise ValueError(f"{NAME}: the record for call_id {record.call.id!r} answers no call item of the "
                                 f"response (or answers it twice)")
            answered.add(record.call.id)
            replay.append({"type": kinds[record.call.id], "call_id": record.call.id, "output": record.result})
        return replay


def _output(message: object) -> list:
    if not isinstance(message, dict):
        raise ValueError(f"{NAME}: expected a response object (a dict), got {type(message).__name__}")
    output = message.get("output")
    if output is None:
        return []
    if not isinstance(output, list):
        raise ValueError(f"{NAME}: the response's output is not a list")
    return output


def _call(item: dict) -> ToolCall:
    field = CALL_TYPES[item["type"]][0]
    name = item.get("name") if isinstance(item.get("name"), str) else ""
    call_id = item.get("call_id") if isinstance(item.get("call_id"), str) and item.get("call_id") else None
    raw = item.get(field)
    raw = raw if isinstance(raw, str) else None

    def broken(why: str) -> ToolCall:
        return ToolCall(name=name, id=call_id, raw_arguments=raw, error=why)

    if item.get("status") not in (None, "completed"):
        return broken(f"the call item's status is {item.get('status')!r}: it did not finish")
    if not name:
        return broken("the call item has no name")
    if call_id is None:
        return broken("the call item has no call_id: its output could not be sent back")
    if raw is None:
        return broken(f"the call item's {field} is not a string")
    if item["type"] == "custom_tool_call":
        return ToolCall(name=name, arguments={"input": raw}, id=call_id, raw_arguments=raw)
    if not raw.strip():
        return ToolCall(name=name, arguments={}, id=call_id, raw_arguments=raw)
    try:
        arguments = json.loads(raw, parse_constant=_no_constant)
    except ValueError as exc:
        return broken(f"arguments are not valid JSON: {exc}")
    if not isinstance(arguments, dict):
        return broken("arguments are not a JSON object")
    return ToolCall(name=name, arguments=arguments, id=call_id, raw_arguments=raw)


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value
