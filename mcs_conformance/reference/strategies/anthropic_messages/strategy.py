"""Anthropic Messages, the strategy: the protocol methods and the per-event folding
(:data:`_HANDLERS`), which use the tool-input parsing and event checks of :mod:`.chunks` and
the block readers of :mod:`.message`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...accumulator import Accumulator, copy_tree
from ...errors import StreamError
from ...protocol import ToolCall, ToolCallRecord, require_records
from ...wire import describe
from .chunks import _bad, _changed, _final_input, _GROWING, _index, _misplaced, _no_string, _PartialInput
from .message import _text_of, _unanswerable


EVENT_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)
# message_delta fields the SDK assigns whatever their value; others only when not null.
_ALWAYS_SET = ("stop_reason", "stop_sequence", "stop_details")
_SET_WHEN_GIVEN = ("container",)
_EVENT_FIELDS = ("context_management", "input_transformations")
_USAGE_WHEN_GIVEN = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "server_tool_use",
    "output_tokens_details",
    "iterations",
    "fallback_credit",
)
_RESPONSES_ERROR_KEYS = ("sequence_number", "message", "code")
# content types of an OpenAI Responses message item, which has the same envelope keys.
_FOREIGN_PARTS = frozenset({"output_text", "input_text", "refusal"})


class AnthropicMessagesStrategy:
    """The Anthropic Messages API: ``message_start`` ... ``message_stop`` events, ``Message`` objects."""

    name = "anthropic-messages"
    leaks_into_text = True

    # -- recognition ----------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """An Anthropic stream event, or an assembled assistant ``Message``. Never raises."""
        try:
            if not isinstance(shape, dict):
                return False
            kind = shape.get("type")
            if kind in EVENT_TYPES:
                return True
            if kind == "error":
                # OpenAI Responses has an ``error`` event too: it carries a sequence_number
                # or a top-level message/code; Anthropic's has only the nested ``error``.
                foreign = any(k in shape for k in _RESPONSES_ERROR_KEYS)
                return isinstance(shape.get("error"), dict) and not foreign
            if kind != "message" or shape.get("role") != "assistant":
                return False
            content = shape.get("content")
            if not isinstance(content, list) or "status" in shape:
                return False
            return not any(isinstance(b, dict) and b.get("type") in _FOREIGN_PARTS for b in content)
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on ``message_stop`` only."""
        return isinstance(chunk, dict) and chunk.get("type") == "message_stop"

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one event into the message; return the text a ``text_delta`` added."""
        if not isinstance(chunk, dict):
            if chunk == "[DONE]":
                return ""
            raise _bad("an event must be a JSON object", chunk)
        kind = chunk.get("type")
        if not isinstance(kind, str):
            raise _bad("event without a string type", chunk)
        if kind == "error":
            error = chunk.get("error")
            detail = f"{error.get('type')}: {error.get('message')}" if isinstance(error, dict) else repr(error)
            raise StreamError(f"anthropic-messages: the stream reported an error ({detail})", payload=chunk)
        if kind == "message_start":
            return self._start(acc, chunk)
        handler = _HANDLERS.get(kind)
        if handler is None:  # ping, unknown event types
            return ""
        st = acc.state
        if not st.get("started"):
            raise _bad(f"{kind} before message_start", chunk)
        if st.get("stopped"):
            raise _bad(f"{kind} after message_stop", chunk)
        return handler(self, acc, chunk)

    def _start(self, acc: Accumulator, event: dict) -> str:
        st = acc.state
        if st.get("started"):
            raise StreamError(
                "anthropic-messages: a second message_start in one stream (the stream restarted); "
                "the two messages are not merged",
                payload=event,
            )
        message = event.get("message")
        if not isinstance(message, dict):
            raise _bad("message_start without a message object", event)
        message = copy_tree(message)
        content = message.setdefault("content", [])
        if not isinstance(content, list):
            raise _bad("message_start content is not a list", event)
        acc.root = message
        st.update(started=True, stopped=False, blocks={}, open=set(), views={})
        return _text_of(content)

    def _block_start(self, acc: Accumulator, event: dict) -> str:
        index = _index(event)
        block = event.get("content_block")
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise _bad("content_block_start without a typed block", event)
        st = acc.state
        if index in st["blocks"]:
            raise _bad(f"content block {index} started twice", event)
        block = copy_tree(block)
        message = acc.root
        message["content"].append(block)
        st["blocks"][index] = block
        st["open"].add(index)
        if block["type"] == "fallback":
            target = block.get("to")
            if isinstance(target, dict) and isinstance(target.get("model"), str):
                message["model"] = target["model"]
        text = block.get("text") if block["type"] == "text" else None
        return text if isinstance(text, str) else ""

    def _block_delta(self, acc: Accumulator, event: dict) -> str:
        index = event.get("index")
        if type(index) is not int:
            index = _index(event)
        st = acc.state
        block = st["blocks"].get(index)
        if block is None:
            raise _bad(f"delta for content block {index}, never started", event)
        if index not in st["open"]:
            raise _bad(f"delta for content block {index} after it ended", event)
        delta = event.get("delta")
        kind = delta.get("type") if isinstance(delta, dict) else None
        if not isinstance(kind, str):
            raise _bad("content_block_delta without a typed delta", event)
        block_type = block["type"]
        if kind == "input_json_delta":
            if not block_type.endswith("tool_use"):
                raise _misplaced(kind, index, block_type, event)
            piece = delta.get("partial_json")
            if not isinstance(piece, str):
                raise _no_string(kind, "partial_json", event)
            views = st["views"]
            view = None if index in views else views.setdefault(index, _PartialInput(block.get("input")))
            acc.append(block, "input", piece, view)
            return ""
        grows = _GROWING.get(kind)
        if grows is not None:
            owner, key = grows
            if block_type != owner:
                raise _misplaced(kind, index, block_type, event)
            piece = delta.get(key)
            if not isinstance(piece, str):
                raise _no_string(kind, key, event)
            if piece or key != "signature":  # an empty signature delta leaves the block as it is
                acc.append(block, key, piece)
            return piece if key == "text" else ""
        if kind == "citations_delta":
            if block_type != "text":
                raise _misplaced(kind, index, block_type, event)
            citation = copy_tree(delta.get("citation"))
            _changed(acc)
            if isinstance(block.get("citations"), list):
                block["citations"].append(citation)
            else:
                block["citations"] = [citation]
        elif kind == block_type + "_delta":
            _changed(acc)
            block.update((k, copy_tree(v)) for k, v in delta.items() if k != "type")
        return ""

    def _block_stop(self, acc: Accumulator, event: dict) -> str:
        index = _index(event)
        if index not in acc.state["blocks"]:
            raise _bad(f"content_block_stop for block {index}, never started", event)
        self._close(acc, index)
        return ""

    def _close(self, acc: Accumulator, index: int) -> None:
        st = acc.state
        if index not in st["open"]:
            return
        st["open"].discard(index)
        block = st["blocks"][index]
        text = acc.text(block, "input")
        if text is not None:
            acc.seal(block, "input", _final_input(text))

    def _message_delta(self, acc: Accumulator, event: dict) -> str:
        delta = event.get("delta", {})
        usage = event.get("usage", {})
        if not isinstance(delta, dict) or not isinstance(usage, dict):
            raise _bad("message_delta delta/usage is not an object", event)
        message = acc.root
        for key in _ALWAYS_SET:
            if key in delta:
                message[key] = copy_tree(delta[key])
        for key in _SET_WHEN_GIVEN:
            if delta.get(key) is not None:
                message[key] = copy_tree(delta[key])
        for key in _EVENT_FIELDS:
            if event.get(key) is not None:
                message[key] = copy_tree(event[key])
        if usage:
            totals = message.get("usage")
            if not isinstance(totals, dict):
                totals = message["usage"] = {}
            if "output_tokens" in usage:
                totals["output_tokens"] = usage["output_tokens"]
            for key in _USAGE_WHEN_GIVEN:
                if usage.get(key) is not None:
                    totals[key] = copy_tree(usage[key])
        return ""

    def _message_stop(self, acc: Accumulator, event: dict) -> str:
        acc.state["stopped"] = True
        return ""

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``tool_use`` block, in order; server-side tool blocks are not calls.

        Nothing is executable before the message has a stop reason; with ``max_tokens`` the
        turn was cut: the last block, when it is a ``tool_use``, is marked as cut, and no
        earlier call is executable either (the turn the model meant did not end).
        """
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return []
        stop_reason = message.get("stop_reason")
        last = len(content) - 1
        calls = []
        ids: set[str] = set()
        for position, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name = block.get("name")
            name = name if isinstance(name, str) else ""
            call_id = block.get("id")
            data = block.get("input")
            error = _unanswerable(block, ids)
            if error is None and not isinstance(data, dict):
                error = "tool input is not a JSON object"
            if isinstance(call_id, str):
                ids.add(call_id)
            if stop_reason is None:
                error = "message incomplete"
            elif stop_reason == "max_tokens":
                error = "truncated by max_tokens" if position == last else "the turn was cut by max_tokens: no call of it is run"
            calls.append(
                ToolCall(
                    name=name,
                    arguments=copy_tree(data) if isinstance(data, dict) else {},
                    id=call_id if isinstance(call_id, str) else None,
                    raw_arguments=data if isinstance(data, str) else None,
                    error=error,
                )
            )
        return calls

    def content_text(self, message: object) -> str:
        """The text of all ``text`` blocks, in order."""
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return ""
        return _text_of(content)

    def forming_name(self, message: object) -> str | None:
        """The name of the first ``tool_use`` block (it arrives whole), or None."""
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                name = block.get("name")
                return name if isinstance(name, str) else None
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant turn in request shape, then one user message with every tool_result.

        Blocks are replayed as received minus null fields (thinking keeps its signature);
        ``tool_use`` keeps type, id, name and input (``{}`` when the input never parsed);
        empty text blocks, and ``tool_use`` blocks without a name or an id or repeating an
        earlier block's id (never executable), are dropped, since the API refuses them.
        Results follow the order of the calls in the message.
        """
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            raise ValueError(f"anthropic-messages: not an assembled message: {describe(message)}")
        records = require_records(records, self.name)
        replay: list[dict] = []
        order: dict[str, int] = {}
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and not block.get("text"):
                continue
            if kind == "tool_use":
                if _unanswerable(block, order) is not None:
                    continue
                data = block.get("input")
                order[block["id"]] = len(order)
                replay.append(
                    {
                        "type": "tool_use",
                        "id": block["id"],
                        "name": block["name"],
                        "input": copy_tree(data) if isinstance(data, dict) else {},
                    }
                )
            else:
                replay.append({k: copy_tree(v) for k, v in block.items() if v is not None})
        out: list[dict] = [{"role": "assistant", "content": replay}]
        seen: set[str] = set()
        for record in records:
            call_id = record.call.id
            if call_id not in order:
                raise ValueError(
                    f"anthropic-messages: result for {record.call.name!r} has id {call_id!r}, "
                    "which is no tool_use id of the message"
                )
            if call_id in seen:
                raise ValueError(f"anthropic-messages: two results for tool_use id {call_id!r}")
            seen.add(call_id)
        if records:
            results = []
            for record in sorted(records, key=lambda r: order[r.call.id]):
                result: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": record.call.id,
                    "content": record.result,
                }
                if record.is_error:
                    result["is_error"] = True
                results.append(result)
            out.append({"role": "user", "content": results})
        return out


_HANDLERS = {
    "content_block_start": AnthropicMessagesStrategy._block_start,
    "content_block_delta": AnthropicMessagesStrategy._block_delta,
    "content_block_stop": AnthropicMessagesStrategy._block_stop,
    "message_delta": AnthropicMessagesStrategy._message_delta,
    "message_stop": AnthropicMessagesStrategy._message_stop,
}
