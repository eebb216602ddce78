"""Amazon Bedrock ConverseStream, the strategy: the per-event folding into a
``ConverseResponse`` and the protocol methods that read it (docs/spec.md, "bedrock")."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Container, Sequence
from typing import Any

from ...accumulator import Accumulator, copy_tree
from ...errors import StreamError
from ...protocol import ToolCall, ToolCallRecord, require_records
from ...wire import describe
from ..anthropic_messages.chunks import _final_input, _PartialInput
from .events import CUT_REASONS, ERRORS, EVENTS, MALFORMED_REASONS, METADATA_FIELDS, NAME, bad, block_index, split, text_field


def _content(message: object) -> list | None:
    """``output.message.content`` of a ConverseResponse, or the ``content`` of a request-shape
    assistant ``Message`` (the turn result_messages replays), or None."""
    if not isinstance(message, dict):
        return None
    if "output" in message:
        output = message["output"]
        inner = output.get("message") if isinstance(output, dict) else None
    else:
        inner = message if message.get("role") == "assistant" else None
    content = inner.get("content") if isinstance(inner, dict) else None
    return content if isinstance(content, list) else None


def _stop_reason(message: dict) -> str | None:
    """The response's stop reason; a request-shape turn (no ``output``) is a finished one."""
    return message.get("stopReason") if "output" in message else "end_turn"


def _is_turn(shape: dict) -> bool:
    """A request-shape assistant ``Message``: role assistant, a non-empty content list of
    blocks that each hold one key and no ``type`` (Converse blocks are keyed by kind)."""
    content = shape.get("content")
    return (
        set(shape) == {"role", "content"}
        and shape.get("role") == "assistant"
        and isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and len(b) == 1 and "type" not in b for b in content)
    )


def _tool_uses(content: list) -> list[dict]:
    """The ``toolUse`` payloads of the content blocks, in order."""
    return [b["toolUse"] for b in content if isinstance(b, dict) and isinstance(b.get("toolUse"), dict)]


def _unanswerable(use: dict, taken: Container[str]) -> str | None:
    """Why no result could be sent back for a ``toolUse``, or None: no name, no id, or an id
    an earlier block already has. Such a call is never executable and never replayed."""
    name, call_id = use.get("name"), use.get("toolUseId")
    if not isinstance(name, str) or not name:
        return "toolUse has no name"
    if not isinstance(call_id, str) or not call_id:
        return "toolUse has no toolUseId, so its result cannot be sent back"
    if call_id in taken:
        return f"toolUseId {call_id!r} repeats an earlier block's, so its result cannot be told apart"
    return None


class BedrockStrategy:
    """Amazon Bedrock Runtime Converse: ConverseStream events, ``ConverseResponse`` objects."""

    name = NAME
    leaks_into_text = True

    # -- recognition ----------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """A ConverseStream event (one key, a known event name, an object payload), or a
        ``ConverseResponse`` (``output.message.content`` a list, and a ``stopReason`` key), or
        the request-shape assistant turn that result_messages writes. Never raises."""
        try:
            if not isinstance(shape, dict):
                return False
            if len(shape) == 1:
                ((key, value),) = shape.items()
                return (key in EVENTS or key in ERRORS) and isinstance(value, dict)
            if "output" in shape:
                return "stopReason" in shape and _content(shape) is not None
            return _is_turn(shape)
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on ``messageStop`` only (``metadata`` may follow it)."""
        return isinstance(chunk, dict) and len(chunk) == 1 and "messageStop" in chunk

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one event into the ConverseResponse; return the text a text delta added."""
        name, payload = split(chunk)
        if name in ERRORS:
            detail = payload.get("message")
            raise StreamError(f"{NAME}: the stream reported {name} ({detail})", payload=chunk)
        handler = _HANDLERS.get(name)
        if handler is None:  # an event this client does not know
            return ""
        st = acc.state
        if name == "messageStart":
            return self._message_start(acc, payload, chunk)
        if not st:
            self._begin(acc, "assistant")
        if st["stopped"] and name != "metadata":
            raise bad(f"{name} after messageStop", chunk)
        return getattr(self, handler)(acc, payload, chunk)

    def _begin(self, acc: Accumulator, role: str) -> None:
        acc.root = {"output": {"message": {"role": role, "content": []}}, "stopReason": None}
        acc.state.update(blocks={}, order=[], started=set(), closed=set(), views={}, stopped=False, head=False)

    def _message_start(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        st = acc.state
        if st.get("head"):
            raise StreamError(
                f"{NAME}: a second messageStart in one stream (the stream restarted); the two turns are not merged",
                payload=chunk,
            )
        if st:
            raise bad("messageStart after other events", chunk)
        role = payload.get("role")
        if not isinstance(role, str) or not role:
            raise bad("messageStart has no string role", chunk)
        self._begin(acc, role)
        st["head"] = True
        return ""

    def _place(self, acc: Accumulator, index: int, block: dict) -> dict:
        """Put ``block`` into the content at the position of ``index`` (content is in
        ``contentBlockIndex`` order, whatever order the blocks arrive in)."""
        st = acc.state
        order = st["order"]
        at = bisect_left(order, index)
        order.insert(at, index)
        acc.root["output"]["message"]["content"].insert(at, block)
        st["blocks"][index] = block
        return block

    def _block_start(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        index = block_index("contentBlockStart", payload, chunk)
        st = acc.state
        start = payload.get("start", {})
        if not isinstance(start, dict):
            raise bad("contentBlockStart start is not an object", chunk)
        if index in st["started"] or index in st["blocks"]:
            raise bad(f"content block {index} started twice", chunk)
        st["started"].add(index)
        if "toolUse" in start:
            use = start["toolUse"]
            if not isinstance(use, dict):
                raise bad("contentBlockStart toolUse is not an object", chunk)
            use = copy_tree(use)
            use["input"] = {}
            self._place(acc, index, {"toolUse": use})
        elif start:  # a block kind this client does not know: kept as it started
            self._place(acc, index, copy_tree(start))
        return ""

    def _block_delta(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        index = block_index("contentBlockDelta", payload, chunk)
        st = acc.state
        if index in st["closed"]:
            raise bad(f"delta for content block {index} after its contentBlockStop", chunk)
        delta = payload.get("delta")
        if not isinstance(delta, dict):
            raise bad("contentBlockDelta delta is not an object", chunk)
        kinds = [k for k in ("text", "toolUse", "reasoningContent") if k in delta]
        if len(kinds) > 1:
            raise bad(f"contentBlockDelta delta carries {' and '.join(kinds)} at once", chunk)
        if not kinds:
            return ""  # a delta kind this client does not know (citation, image, ...)
        kind = kinds[0]
        block = st["blocks"].get(index)
        if kind == "toolUse":
            use = block.get("toolUse") if isinstance(block, dict) else None
            if not isinstance(use, dict):
                raise bad(f"toolUse delta for content block {index}, which no toolUse contentBlockStart opened", chunk)
            piece = text_field("toolUse delta", delta["toolUse"], "input", chunk)
            views = st["views"]
            view = None if index in views else views.setdefault(index, _PartialInput({}))
            acc.append(use, "input", piece, view)
            return ""
        if block is None:
            block = self._place(acc, index, {"text": ""} if kind == "text" else {"reasoningContent": {}})
        elif kind not in block:
            raise bad(f"{kind} delta for content block {index} of kind {'/'.join(block) or 'none'}", chunk)
        if kind == "text":
            piece = text_field("text delta", delta, "text", chunk)
            acc.append(block, "text", piece)
            return piece
        reasoning = delta["reasoningContent"]
        if not isinstance(reasoning, dict):
            raise bad("reasoningContent delta is not an object", chunk)
        holder = block["reasoningContent"]
        for key in ("text", "signature"):
            if key in reasoning:
                piece = text_field("reasoningContent delta", reasoning, key, chunk)
                inner = holder.get("reasoningText")
                if not isinstance(inner, dict):
                    acc.root  # noqa: B018 -- marks the message changed before the in-place edit
                    inner = holder["reasoningText"] = {"text": ""}
                if piece or key == "text":
                    acc.append(inner, key, piece)
        if "redactedContent" in reasoning:
            acc.append(holder, "redactedContent", text_field("reasoningContent delta", reasoning, "redactedContent", chunk))
        return ""

    def _block_stop(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        index = block_index("contentBlockStop", payload, chunk)
        st = acc.state
        if index not in st["started"] and index not in st["blocks"]:
            raise bad(f"contentBlockStop for content block {index}, never started", chunk)
        if index in st["closed"]:
            raise bad(f"content block {index} stopped twice", chunk)
        st["closed"].add(index)
        self._seal(acc, index)
        return ""

    def _seal(self, acc: Accumulator, index: int) -> None:
        """Parse a finished tool input: ``""`` is ``{}``, an object is itself, else the raw text."""
        block = acc.state["blocks"].get(index)
        use = block.get("toolUse") if isinstance(block, dict) else None
        if isinstance(use, dict):
            text = acc.text(use, "input")
            if text is not None:
                acc.seal(use, "input", _final_input(text))

    def _message_stop(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        reason = payload.get("stopReason")
        if not isinstance(reason, str) or not reason:
            raise bad("messageStop has no string stopReason", chunk)
        st = acc.state
        for index in st["order"]:
            if index not in st["closed"]:
                st["closed"].add(index)
                self._seal(acc, index)
        message = acc.root
        message["stopReason"] = reason
        if payload.get("additionalModelResponseFields") is not None:
            message["additionalModelResponseFields"] = copy_tree(payload["additionalModelResponseFields"])
        st["stopped"] = True
        return ""

    def _metadata(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        message = acc.root
        for key in METADATA_FIELDS:
            if payload.get(key) is not None:
                message[key] = copy_tree(payload[key])
        return ""

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``toolUse`` block, in content order.

        Nothing is executable before the response has a stop reason; a turn cut by
        ``max_tokens`` (or the context window) runs no call: the last block, when it is a
        ``toolUse``, is the cut one, and the earlier ones belong to a turn that did not end; nor
        does a turn the service stopped as ``malformed_tool_use`` or ``malformed_model_output``.
        """
        content = _content(message)
        if content is None:
            return []
        reason = _stop_reason(message)
        last = len(content) - 1
        calls: list[ToolCall] = []
        ids: set[str] = set()
        for position, block in enumerate(content):
            use = block.get("toolUse") if isinstance(block, dict) else None
            if not isinstance(use, dict):
                continue
            name, call_id, data = use.get("name"), use.get("toolUseId"), use.get("input")
            error = _unanswerable(use, ids)
            if error is None and not isinstance(data, dict):
                error = "tool input is not a JSON object"
            if isinstance(call_id, str):
                ids.add(call_id)
            if reason is None:
                error = "message incomplete"
            elif reason in CUT_REASONS:
                error = f"truncated by {reason}" if position == last else f"the turn was cut by {reason}: no call of it is run"
            elif reason in MALFORMED_REASONS:
                error = f"the service stopped the turn with {reason}: no call of it is run"
            calls.append(
                ToolCall(
                    name=name if isinstance(name, str) else "",
                    arguments=copy_tree(data) if isinstance(data, dict) else {},
                    id=call_id if isinstance(call_id, str) else None,
                    raw_arguments=data if isinstance(data, str) else None,
                    error=error,
                )
            )
        return calls

    def content_text(self, message: object) -> str:
        """The ``text`` of the text blocks, in order."""
        content = _content(message) or []
        return "".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))

    def forming_name(self, message: object) -> str | None:
        """The first ``toolUse`` block's name (names arrive whole in contentBlockStart), or None."""
        uses = _tool_uses(_content(message) or [])
        name = uses[0].get("name") if uses else None
        return name if isinstance(name, str) else None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant turn as a Converse request ``Message``, then one ``user`` message with
        a ``toolResult`` block per record, in the calls' order.

        Blocks are replayed as received (reasoning with its signature); empty text blocks and
        ``toolUse`` blocks that are never executable (no name, no id, a repeated id) are left
        out, since the API refuses them; ``toolUse`` keeps toolUseId, name and input (``{}``
        when the input never parsed).
        """
        content = _content(message)
        if content is None:
            raise ValueError(f"{NAME}: not an assembled ConverseResponse: {describe(message)}")
        records = require_records(records, NAME)
        replay: list[dict] = []
        order: dict[str, int] = {}
        for block in content:
            if not isinstance(block, dict):
                continue
            use = block.get("toolUse")
            if isinstance(use, dict):
                if _unanswerable(use, order) is not None:
                    continue
                order[use["toolUseId"]] = len(order)
                data = use.get("input")
                replay.append(
                    {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"], "input": copy_tree(data) if isinstance(data, dict) else {}}}
                )
            elif "text" in block and not block.get("text"):
                continue
            else:
                replay.append(copy_tree(block))
        out: list[dict] = [{"role": "assistant", "content": replay}]
        seen: set[str] = set()
        for record in records:
            call_id = record.call.id
            if call_id not in order:
                raise ValueError(f"{NAME}: result for {record.call.name!r} has id {call_id!r}, which is no toolUseId of the message")
            if call_id in seen:
                raise ValueError(f"{NAME}: two results for toolUseId {call_id!r}")
            seen.add(call_id)
        if records:
            results: list[dict[str, Any]] = []
            for record in sorted(records, key=lambda r: order[r.call.id]):
                result: dict[str, Any] = {"toolUseId": record.call.id, "content": [{"text": record.result}]}
                if record.is_error:
                    result["status"] = "error"
                results.append({"toolResult": result})
            out.append({"role": "user", "content": results})
        return out


# event name -> the method that folds it (looked up on the instance, so a subclass may override one)
_HANDLERS = {
    "messageStart": "_message_start",
    "contentBlockStart": "_block_start",
    "contentBlockDelta": "_block_delta",
    "contentBlockStop": "_block_stop",
    "messageStop": "_message_stop",
    "metadata": "_metadata",
}
