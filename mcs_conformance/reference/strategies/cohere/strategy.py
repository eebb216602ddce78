"""Cohere v2 chat, the strategy: the protocol methods and the per-event folding
(:data:`_HANDLERS`), on the checks and readers of :mod:`.events`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...accumulator import Accumulator, copy_tree
from ...errors import StreamError
from ...protocol import ToolCall, ToolCallRecord, require_records
from ...wire import describe
from .events import FINISHED, bad, body_parts, delta_message, index_of, piece, read_arguments, unanswerable

EVENT_TYPES = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
    }
)
# Keys of a response body that no Cohere body has: an OpenAI chat completion, an Ollama
# /api/chat body, a Gemini or Bedrock response.
_FOREIGN_BODY_KEYS = ("choices", "object", "done", "model", "candidates", "output", "type")
# The growing field of each content block type.
_BLOCK_TEXT = {"text": "text", "thinking": "thinking"}


class CohereStrategy:
    """The Cohere v2 chat API: ``message-start`` ... ``message-end`` events, v2 chat response bodies."""

    name = "cohere"
    leaks_into_text = True

    # -- recognition ----------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """A v2 chat stream event, or a v2 chat response body. Never raises."""
        try:
            if not isinstance(shape, dict):
                return False
            if shape.get("type") in EVENT_TYPES:
                return True
            if any(k in shape for k in _FOREIGN_BODY_KEYS):
                return False
            inner = shape.get("message")
            if not isinstance(inner, dict) or inner.get("role") != "assistant":
                return False
            if not ("id" in shape or "finish_reason" in shape):
                return False
            return all(inner.get(k) is None or isinstance(inner.get(k), list) for k in ("content", "tool_calls"))
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on ``message-end``: whatever its finish reason, the body has it (extract reads it)."""
        return isinstance(chunk, dict) and chunk.get("type") == "message-end"

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one event into the body; return the text a ``content-delta`` of a text block added."""
        if not isinstance(chunk, dict):
            if chunk == "[DONE]":
                return ""
            raise bad("an event must be a JSON object", chunk)
        kind = chunk.get("type")
        if not isinstance(kind, str):
            raise bad("event without a string type", chunk)
        if kind == "message-start":
            return self._start(acc, chunk)
        handler = _HANDLERS.get(kind)
        if handler is None:  # debug, and event types this client does not know
            return ""
        st = acc.state
        if not st.get("started"):
            raise bad(f"{kind} before message-start", chunk)
        if st.get("ended"):
            raise bad(f"{kind} after message-end", chunk)
        return getattr(self, handler)(acc, chunk)

    def _start(self, acc: Accumulator, event: dict) -> str:
        st = acc.state
        if st.get("started"):
            raise StreamError(
                "cohere: a second message-start in one stream (the stream restarted); "
                "the two messages are not merged",
                payload=event,
            )
        delta = event.get("delta")
        seed = delta.get("message") if isinstance(delta, dict) else None
        if not isinstance(seed, dict):
            raise bad("message-start carries no delta.message object", event)
        message = {k: copy_tree(v) for k, v in seed.items() if v not in ([], "", None)}
        body: dict = {}
        if "id" in event:
            body["id"] = event["id"]
        body["message"] = message
        acc.root = body
        st.update(started=True, ended=False, blocks={}, calls={}, open_blocks=set(), open_calls=set())
        content = message.get("content")
        if content is not None and not isinstance(content, list):
            raise bad("message-start content is not a list", event)
        return "".join(
            b["text"] for b in content or () if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )

    def _content_start(self, acc: Accumulator, event: dict) -> str:
        index = index_of(event)
        block = delta_message(event, "content")
        kind = block.get("type")
        if kind not in _BLOCK_TEXT:
            raise bad(f"content-start of unknown block type {kind!r}", event)
        st = acc.state
        if index in st["blocks"]:
            raise bad(f"content block {index} started twice", event)
        block = copy_tree(block)
        message = acc.root["message"]
        content = message.setdefault("content", [])
        content.append(block)
        st["blocks"][index] = block
        st["open_blocks"].add(index)
        text = block.get(_BLOCK_TEXT[kind])
        return text if kind == "text" and isinstance(text, str) else ""

    def _content_delta(self, acc: Accumulator, event: dict) -> str:
        index = index_of(event)
        st = acc.state
        block = st["blocks"].get(index)
        if block is None:
            raise bad(f"content-delta for content block {index}, never started", event)
        if index not in st["open_blocks"]:
            raise bad(f"content-delta for content block {index} after it ended", event)
        key = _BLOCK_TEXT[block["type"]]
        text = piece(event, delta_message(event, "content"), key)
        acc.append(block, key, text)
        return text if key == "text" else ""

    def _content_end(self, acc: Accumulator, event: dict) -> str:
        index = index_of(event)
        if index not in acc.state["blocks"]:
            raise bad(f"content-end for content block {index}, never started", event)
        acc.state["open_blocks"].discard(index)
        return ""

    def _tool_plan_delta(self, acc: Accumulator, event: dict) -> str:
        text = delta_message(event, "tool_plan", str)
        acc.append(acc.root["message"], "tool_plan", text)
        return ""

    def _call_start(self, acc: Accumulator, event: dict) -> str:
        index = index_of(event)
        call = delta_message(event, "tool_calls")
        function = call.get("function")
        if not isinstance(function, dict):
            raise bad("tool-call-start carries no function object", event)
        arguments = function.get("arguments", "")
        if arguments is not None and not isinstance(arguments, str):
            raise bad("tool-call-start arguments are no string", event)
        st = acc.state
        if index in st["calls"]:
            raise bad(f"tool call {index} started twice", event)
        call = copy_tree(call)
        acc.root["message"].setdefault("tool_calls", []).append(call)
        st["calls"][index] = call
        st["open_calls"].add(index)
        return ""

    def _call_delta(self, acc: Accumulator, event: dict) -> str:
        index = index_of(event)
        st = acc.state
        call = st["calls"].get(index)
        if call is None:
            raise bad(f"tool-call-delta for tool call {index}, never started", event)
        if index not in st["open_calls"]:
            raise bad(f"tool-call-delta for tool call {index} after it ended", event)
        fragment = delta_message(event, "tool_calls")
        function = fragment.get("function")
        if not isinstance(function, dict):
            raise bad("tool-call-delta carries no function object", event)
        acc.root  # noqa: B018 -- reading the live root marks the message changed
        acc.append(call["function"], "arguments", piece(event, function, "arguments"))
        return ""

    def _call_end(self, acc: Accumulator, event: dict) -> str:
        index = index_of(event)
        if index not in acc.state["calls"]:
            raise bad(f"tool-call-end for tool call {index}, never started", event)
        acc.state["open_calls"].discard(index)
        return ""

    def _citation_start(self, acc: Accumulator, event: dict) -> str:
        citation = delta_message(event, "citations")
        acc.root["message"].setdefault("citations", []).append(copy_tree(citation))
        return ""

    def _citation_end(self, acc: Accumulator, event: dict) -> str:
        return ""

    def _message_end(self, acc: Accumulator, event: dict) -> str:
        delta = event.get("delta", {})
        if not isinstance(delta, dict):
            raise bad("message-end delta is not an object", event)
        if delta.get("error") is not None:
            raise StreamError(f"cohere: the stream reported an error ({delta.get('error')!r})", payload=event)
        body = acc.root
        for key in ("finish_reason", "usage"):
            if key in delta:
                body[key] = copy_tree(delta[key])
        acc.state["ended"] = True
        return ""

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``message.tool_calls`` entry, in order.

        Nothing is executable before the body has a ``finish_reason`` (the stream has not
        ended), nor after one that did not finish the turn (MAX_TOKENS cut it, ERROR or
        TIMEOUT broke it). Arguments that are no JSON object, no name, no id or a repeated id
        give error calls.
        """
        inner, finish = body_parts(message)
        calls_in = inner.get("tool_calls") if inner is not None else None
        if not isinstance(calls_in, list):
            return []
        calls: list[ToolCall] = []
        ids: set[str] = set()
        for entry in calls_in:
            if not isinstance(entry, dict):
                calls.append(ToolCall(name="", arguments={}, id=None, error="tool call is not an object"))
                continue
            function = entry.get("function")
            function = function if isinstance(function, dict) else {}
            name = function.get("name")
            call_id = entry.get("id")
            raw = function.get("arguments")
            arguments, error = read_arguments(raw)
            error = unanswerable(entry, ids) or error
            if isinstance(call_id, str):
                ids.add(call_id)
            if finish is None:
                error = "message incomplete: the stream has not ended"
            elif finish not in FINISHED:
                error = f"the turn ended with finish_reason {finish!r}: no call of it is run"
            calls.append(
                ToolCall(
                    name=name if isinstance(name, str) else "",
                    arguments=arguments,
                    id=call_id if isinstance(call_id, str) else None,
                    raw_arguments=raw if isinstance(raw, str) else None,
                    error=error,
                )
            )
        return calls

    def content_text(self, message: object) -> str:
        """The text of the ``text`` content blocks, in order (thinking and the tool plan are not content)."""
        inner, _ = body_parts(message)
        content = inner.get("content") if inner is not None else None
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            return ""
        return "".join(
            b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )

    def forming_name(self, message: object) -> str | None:
        """The name of the first tool call (tool-call-start carries it whole), or None."""
        inner, _ = body_parts(message)
        calls = inner.get("tool_calls") if inner is not None else None
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            return name if isinstance(name, str) else None
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant turn in the v2 request shape, then one ``tool`` message per result.

        The turn replays the tool plan, the content blocks (empty text left out) and the calls a
        result can answer (a name, an id not used before), arguments as their JSON text; each
        result is ``{"role": "tool", "tool_call_id": id, "content": result}``, in call order.
        """
        inner, _ = body_parts(message)
        if inner is None:
            raise ValueError(f"cohere: not a v2 chat response: {describe(message)}")
        records = require_records(records, self.name)
        turn: dict = {"role": "assistant"}
        plan = inner.get("tool_plan")
        if isinstance(plan, str) and plan:
            turn["tool_plan"] = plan
        content = inner.get("content")
        if isinstance(content, list):
            blocks = [
                {k: copy_tree(v) for k, v in b.items() if v is not None}
                for b in content
                if isinstance(b, dict) and not (b.get("type") == "text" and not b.get("text"))
            ]
            if blocks:
                turn["content"] = blocks
        order: dict[str, int] = {}
        replayed = []
        for call in inner.get("tool_calls") or ():
            if not isinstance(call, dict) or unanswerable(call, order) is not None:
                continue
            function = call["function"]
            arguments = function.get("arguments")
            order[call["id"]] = len(order)
            replayed.append(
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": function["name"], "arguments": arguments if isinstance(arguments, str) else ""},
                }
            )
        if replayed:
            turn["tool_calls"] = replayed
        seen: set[str] = set()
        for record in records:
            call_id = record.call.id
            if call_id not in order:
                raise ValueError(
                    f"cohere: result for {record.call.name!r} has id {call_id!r}, which is no tool call id of the message"
                )
            if call_id in seen:
                raise ValueError(f"cohere: two results for tool call id {call_id!r}")
            seen.add(call_id)
        out: list[dict] = [turn]
        for record in sorted(records, key=lambda r: order[r.call.id]):
            out.append({"role": "tool", "tool_call_id": record.call.id, "content": record.result})
        return out


# event type -> the method that folds it (looked up on the instance, so a subclass may override one)
_HANDLERS = {
    "content-start": "_content_start",
    "content-delta": "_content_delta",
    "content-end": "_content_end",
    "tool-plan-delta": "_tool_plan_delta",
    "tool-call-start": "_call_start",
    "tool-call-delta": "_call_delta",
    "tool-call-end": "_call_end",
    "citation-start": "_citation_start",
    "citation-end": "_citation_end",
    "message-end": "_message_end",
}
