"""OpenAI Responses, the strategy: the protocol methods, which fold events through
:mod:`.chunks` and read the response object through :mod:`.message`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...accumulator import Accumulator
from ...errors import MalformedChunk, StreamError
from ...protocol import ToolCall, ToolCallRecord, require_records
from ...wire import describe
from .chunks import _FINAL, _HANDLERS
from .message import _call, _CALL_TYPES, _drop_none, _error_text, _NAME, _output, _replayable, _texts


_CUT = "the response is incomplete (its output was cut): no call of a cut turn is run"

_OUTPUT_TYPES = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}


class OpenAIResponsesStrategy:
    """The OpenAI Responses format: ``response.*`` events in, the ``response`` object out."""

    name = _NAME
    leaks_into_text = True

    # -- recognition --------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """A ``response.*`` event, a Responses ``error`` event, or an assembled response."""
        try:
            if not isinstance(shape, dict):
                return False
            kind = shape.get("type")
            if isinstance(kind, str):
                if kind.startswith("response."):
                    return True
                if kind == "error":
                    # Responses error events carry a sequence_number or a top-level
                    # message/code; Anthropic's error event has only a nested `error`.
                    return any(k in shape for k in ("sequence_number", "message", "code"))
                return False
            return shape.get("object") == "response" and isinstance(shape.get("output"), list)
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on ``response.completed`` and ``response.incomplete``."""
        return isinstance(chunk, dict) and chunk.get("type") in _FINAL

    # -- reassembly ---------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one event into the response; return the output text it added."""
        if isinstance(chunk, str) and chunk.strip() == "[DONE]":
            return ""  # the sentinel some proxies add; any other text is an event left unparsed
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"{_NAME}: an event must be a dict or \"[DONE]\", got {describe(chunk)}")
        kind = chunk.get("type")
        if not isinstance(kind, str):
            raise MalformedChunk(f"{_NAME}: event without a string 'type': {describe(chunk)}")
        if kind == "error":
            raise StreamError(_error_text(chunk, chunk), payload=chunk)
        if kind == "response.failed":
            response = chunk.get("response")
            err = response.get("error") if isinstance(response, dict) else None
            raise StreamError(_error_text(err, chunk, "response.failed"), payload=chunk)
        handler = _HANDLERS.get(kind)
        # unknown or purely informative events (web_search_call.*, ...) change nothing
        return "" if handler is None else handler(acc, chunk, kind)

    # -- reading the message ------------------------------------------------------------
    def content_text(self, message: object) -> str:
        """Every ``output_text`` part of every ``message`` item, in order."""
        return "".join(_texts(_output(message)))

    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``function_call`` / ``custom_tool_call`` item, in output order.

        A response whose ``status`` is ``incomplete`` was cut (``max_output_tokens``, the
        content filter): none of its calls is executable, finished items included, since the
        turn the model meant did not end (docs/spec.md, "Where not finished lives").
        """
        items = _output(message)
        calls = [_call(item) for item in items if isinstance(item, dict) and item.get("type") in _CALL_TYPES]
        if isinstance(message, dict) and message.get("status") == "incomplete":
            calls = [c if c.error else replace(c, error=_CUT) for c in calls]
        return calls

    def forming_name(self, message: object) -> str | None:
        """The name of the first call item, or None."""
        try:
            for item in _output(message):
                if isinstance(item, dict) and item.get("type") in _CALL_TYPES:
                    name = item.get("name")
                    return name if isinstance(name, str) else None
        except ValueError:
            pass
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The output items replayed as input items, then one tool output per record.

        A call item without a name, a call_id or a string of arguments (input, for a custom
        tool) was never executable, and the API refuses it as input: it is left out.
        """
        items = _output(message)
        kinds: dict[str, str] = {}
        records = require_records(records, self.name)
        replay: list[dict] = []
        for item in items:
            if not isinstance(item, dict):
                continue
            if item.get("type") in _CALL_TYPES:
                if not _replayable(item):
                    continue
                kinds.setdefault(item["call_id"], item["type"])
            replay.append(_drop_none(item))
        for record in records:
            call_id = record.call.id
            if call_id not in kinds:
                raise ValueError(
                    f"{_NAME}: record for {record.call.name!r} has id {call_id!r}, which is not the "
                    f"call_id of any call item in the message (known: {sorted(kinds)})"
                )
            kind = _OUTPUT_TYPES[kinds[call_id]]
            replay.append({"type": kind, "call_id": call_id, "output": record.result})
        return replay
