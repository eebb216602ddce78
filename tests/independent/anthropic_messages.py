"""An Anthropic Messages strategy written from docs/spec.md and the public API alone.

Events are folded the way the anthropic SDK's (beta) ``accumulate_event`` folds them: the
message starts as ``message_start.message``, blocks are appended, text and thinking grow,
a ``signature_delta`` sets the signature, ``message_delta`` sets the stop reason and the
usage. Tool input shows the partial parse of the ``partial_json`` received so far, as the
SDK shows it, and is parsed strictly once the block stops. Where the spec leaves room it
takes the SDK's answer: a delta of another block's kind (``text_delta`` for a
``tool_use`` block, say) is ignored, as are events after ``message_stop``; a second
``message_start`` refuses the stream with MalformedChunk.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import jiter

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord, require_records

NAME = "anthropic-messages"
EVENTS = {"message_start", "content_block_start", "content_block_delta", "content_block_stop",
          "message_delta", "message_stop", "ping"}


def _bad(problem: str) -> MalformedChunk:
    return MalformedChunk(f"{NAME}: {problem}")


def _joined(text: str) -> str:
    """The text with surrogate halves that arrived in separate pieces joined into one character."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _partial(text: str) -> Any:
    """What the SDK shows for an open tool input: jiter's partial parse (the raw text when
    it is no JSON at all, so that it can never read as arguments)."""
    if not text.strip():
        return {}
    text = _joined(text)
    try:
        return jiter.from_json(text.encode("utf-8"), partial_mode=True, allow_inf_nan=False)
    except ValueError:
        return text


def _final(text: str) -> Any:
    """The input of a stopped block: the JSON object, ``{}`` for no text, else the raw text."""
    if not text.strip():
        return {}
    text = _joined(text)
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


class Strategy:
    name = NAME
    leaks_into_text = True

    def recognizes(self, shape: object) -> bool:
        try:
            if not isinstance(shape, dict):
                return False
            kind = shape.get("type")
            if kind in EVENTS:
                return True
            if kind == "error":  # Responses' error event carries sequence_number / message / code at the top
                return isinstance(shape.get("error"), dict) and not any(k in shape for k in ("sequence_number", "message", "code"))
            content = shape.get("content")
            return (kind == "message" and shape.get("role") == "assistant" and isinstance(content, list)
                    and "status" not in shape
                    and not any(isinstance(b, dict) and b.get("type") in ("output_text", "input_text", "refusal")
                                for b in content))
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        return isinstance(chunk, dict) and chunk.get("type") == "message_stop"

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if chunk == "[DONE]":
            return ""
        if not isinstance(chunk, dict):
            raise _bad(f"an event must be an object, got {type(chunk).__name__}")
        kind = chunk.get("type")
        if kind == "error":
            raise StreamError(f"{NAME}: the stream reported an error: {chunk.get('error')!r:.200}", payload=chunk)
        if kind == "message_start":
            if acc.state.get("started"):
                raise _bad("a second message_start: the stream restarted, the two messages are not merged")
            message = chunk.get("message")
            if not isinstance(message, dict):
                raise _bad("message_start carries no message object")
            message = copy.deepcopy(message)
            if message.get("content") is None:
                message["content"] = []
            if not isinstance(message["content"], list):
                raise _bad("message_start's content is not a list")
            acc.root = message
            acc.state.update(started=True, stopped=False, blocks={})
            return "".join(b["text"] for b in message["content"]
                           if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
        if kind not in EVENTS or kind == "ping" or acc.state.get("stopped"):
            return ""  # pings, unknown events, and what follows message_stop change nothing
        if not acc.state.get("started"):
            raise _bad(f"{kind} before message_start")
        if kind == "message_stop":
            acc.state["stopped"] = True
            return ""
        if kind == "message_delta":
            self._message_delta(acc, chunk)
            return ""
        index = chunk.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise _bad(f"{kind} has no integer index")
        blocks = acc.state["blocks"]
        if kind == "content_block_start":
            block = chunk.get("content_block")
            if not isinstance(block, dict):
                raise _bad("content_block_start carries no block")
            block = copy.deepcopy(block)
            acc.root["content"].append(block)
            blocks[index] = block
            if block.get("type") == "fallback" and isinstance(block.get("to"), dict) and "model" in block["to"]:
                acc.root["model"] = block["to"]["model"]
            text = block.get("text") if block.get("type") == "text" else None
            return text if isinstance(text, str) else ""
        block = blocks.get(index)
        if block is None:
            raise _bad(f"{kind} for content block {index}, which never started")
        if kind == "content_block_stop":
            text = acc.text(block, "input")
            if text is not None:
                acc.seal(block, "input", _final(text))
            return ""
        return self._block_delta(acc, block, chunk.get("delta"))

    @staticmethod
    def _block_delta(acc: Accumulator, block: dict, delta: Any) -> str:
        if not isinstance(delta, dict):
            raise _bad("content_block_delta carries no delta object")
        kind, owner = delta.get("type"), block.get("type")
        acc.root  # noqa: B018 -- the block is edited in place: mark the message changed
        if kind == "text_delta" and owner == "text":
            if not isinstance(delta.get("text"), str):
                raise _bad("text_delta carries no text")
            acc.append(block, "text", delta["text"])
            return delta["text"]
        if kind == "thinking_delta" and owner == "thinking":
            if not isinstance(delta.get("thinking"), str):
                raise _bad("thinking_delta carries no thinking")
            acc.append(block, "thinking", delta["thinking"])
        elif kind == "signature_delta" and owner == "thinking":
            block["signature"] = delta.get("signature")
        elif kind == "input_json_delta" and isinstance(owner, str) and owner.endswith("tool_use"):
            if not isinstance(delta.get("partial_json"), str):
                raise _bad("input_json_delta carries no partial_json")
            acc.append(block, "input", delta["partial_json"], _partial)
        elif kind == "citations_delta" and owner == "text":
            block.setdefault("citations", None)
            block["citations"] = (block["citations"] or []) + [copy.deepcopy(delta.get("citation"))]
        elif isinstance(kind, str) and kind == f"{owner}_delta":
            block.update((k, copy.deepcopy(v)) for k, v in delta.items() if k != "type")
        return ""

    @staticmethod
    def _message_delta(acc: Accumulator, event: dict) -> None:
        delta, usage = event.get("delta") or {}, event.get("usage") or {}
        if not isinstance(delta, dict) or not isinstance(usage, dict):
            raise _bad("message_delta's delta and usage must be objects")
        message = acc.root
        for key in ("stop_reason", "stop_sequence", "stop_details"):
            if key in delta:
                message[key] = copy.deepcopy(delta[key])
        if delta.get("container") is not None:
            message["container"] = copy.deepcopy(delta["container"])
        for key in ("context_management", "input_transformations"):
            if event.get(key) is not None:
                message[key] = copy.deepcopy(event[key])
        if usage:
            totals = message["usage"] if isinstance(message.get("usage"), dict) else message.setdefault("usage", {})
            for key, value in usage.items():
                if value is not None or key == "output_tokens":
                    totals[key] = copy.deepcopy(value)

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return []
        stop = message.get("stop_reason")
        calls, ids = [], set()
        for position, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name = block.get("name") if isinstance(block.get("name"), str) else ""
            call_id = block.get("id") if isinstance(block.get("id"), str) and block.get("id") else None
            data = block.get("input")
            error = None
            if stop is None:
                error = "the message has no stop_reason yet: it has not finished"
            elif stop == "max_tokens" and position == len(content) - 1:
                error = "the output was cut by max_tokens inside this call"
            elif not name:
                error = "tool_use block without a name"
            elif call_id is None:
                error = "tool_use block without an id: its result could not be sent back"
            elif call_id in ids:
                error = f"tool_use id {call_id!r} is used twice: the results could not be told apart"
            elif not isinstance(data, dict):
                error = "tool input is not a JSON object"
            if call_id:
                ids.add(call_id)
            calls.append(ToolCall(name=name, arguments=copy.deepcopy(data) if isinstance(data, dict) else {},
                                  id=call_id, raw_arguments=data if isinstance(data, str) else None, error=error))
        return calls

    def content_text(self, message: object) -> str:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return ""
        return "".join(b["text"] for b in content
                       if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))

    def forming_name(self, message: object) -> str | None:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                return block["name"] if isinstance(block.get("name"), str) and block["name"] else None
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            raise ValueError(f"{NAME}: expected an assembled Message, got {type(message).__name__}")
        records = require_records(records, NAME)
        runnable = {c.id: c for c in self.extract(message) if c.executable}
        replay: list[dict] = []
        for block in message["content"]:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                if block.get("id") in runnable:  # a call that was never runnable gets no result, so it is not replayed
                    replay.append({"type": "tool_use", "id": block["id"], "name": block["name"], "input": block["input"]})
            elif not (block.get("type") == "text" and not block.get("text")):
                replay.append({k: v for k, v in block.items() if v is not None})
        out: list[dict] = [{"role": "assistant", "content": replay}]
        order = list(runnable)
        seen = set()
        for record in records:
            if record.call.id not in runnable or record.call.id in seen:
                raise ValueError(f"{NAME}: the result for call id {record.call.id!r} answers no tool_use of the message "
                                 f"(or answers it twice)")
            seen.add(record.call.id)
        if records:
            results = []
            for record in sorted(records, key=lambda r: order.index(r.call.id)):
                result: dict[str, Any] = {"type": "tool_result", "tool_use_id": record.call.id, "content": record.result}
                if record.is_error:
                    result["is_error"] = True
                results.append(result)
            out.append({"role": "user", "content": results})
        return out
