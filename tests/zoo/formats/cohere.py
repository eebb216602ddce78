"""One-bug copies of the cohere reference strategy (CohereStrategy), each failed by a bundled
cohere case at a level that fails the default gate.

Each class does one step the naive way, as the public clients' histories show it done: the
BUG-CLASSES row (the shared list of streaming tool-call bugs) or the hazard docs/spec.md's
cohere section names is in its docstring. ``KILLS`` names the check and the case that fail it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcs_conformance.reference.errors import MalformedChunk
from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.reference.strategies.cohere import events
from mcs_conformance.strategies import CohereStrategy


class FragmentsToLastCall(CohereStrategy):
    """BUG-CLASSES 1 (interleaved parallel deltas appended to the most recent call): every
    tool-call-delta grows the call opened last, whatever its index, as vercel/ai's Cohere provider
    keeps one pending call."""

    def _call_delta(self, acc: Any, event: dict) -> str:
        calls = acc.state["calls"]
        if calls:
            event = {**event, "index": max(calls)}
        return super()._call_delta(acc, event)


class StrayFragmentRouted(CohereStrategy):
    """BUG-CLASSES 4 (index space mismatch): a fragment whose index names no started call is added
    to the call opened last instead of being refused."""

    def _call_delta(self, acc: Any, event: dict) -> str:
        calls = acc.state["calls"]
        if calls and event.get("index") not in calls:
            event = {**event, "index": max(calls)}
        return super()._call_delta(acc, event)


class IdsLost(CohereStrategy):
    """BUG-CLASSES 8 (bad id handling): the calls come back without the ids the wire gave them, so
    no result can answer its tool_call_id."""

    def extract(self, message: object) -> list[ToolCall]:
        return [replace(c, id=None) for c in super().extract(message)]


class CutArgumentsExecuted(CohereStrategy):
    """BUG-CLASSES 19 (premature finalization): a body without a finish_reason (the stream has not
    ended) is read as finished, so a call whose arguments already parse runs."""

    def extract(self, message: object) -> list[ToolCall]:
        if isinstance(message, dict) and "finish_reason" not in message and isinstance(message.get("message"), dict):
            message = {**message, "finish_reason": "TOOL_CALL"}
        return super().extract(message)


class MaxTokensTakenAsFinished(CohereStrategy):
    """BUG-CLASSES 15 and 19 (finish-reason handling): finish_reason MAX_TOKENS is taken for a
    finished turn, so the calls of a turn the token limit cut run."""

    def extract(self, message: object) -> list[ToolCall]:
        if isinstance(message, dict) and message.get("finish_reason") == "MAX_TOKENS":
            message = {**message, "finish_reason": "COMPLETE"}
        return super().extract(message)


class LenientArguments(CohereStrategy):
    """docs/spec.md C3 (BUG-CLASSES 16, 19): arguments that parse to no object run as ``{}``."""

    def extract(self, message: object) -> list[ToolCall]:
        return [replace(c, arguments={}, error=None) if c.error and c.error.startswith("arguments") else c
                for c in super().extract(message)]


class NullArgumentsRefused(CohereStrategy):
    """BUG-CLASSES 16 (a call without arguments yields a parse error instead of ``{}``): the
    stream=false body's ``"null"`` arguments make an error call."""

    def extract(self, message: object) -> list[ToolCall]:
        return [replace(c, error="arguments are null") if c.raw_arguments == "null" else c
                for c in super().extract(message)]


class ErrorSwallowed(CohereStrategy):
    """BUG-CLASSES 14 (mid-stream error swallowed): a message-end carrying an error is folded as
    an ordinary end, so the broken turn looks complete."""

    def _message_end(self, acc: Any, event: dict) -> str:
        delta = event.get("delta")
        if isinstance(delta, dict) and "error" in delta:
            event = {**event, "delta": {k: v for k, v in delta.items() if k != "error"}}
        return super()._message_end(acc, event)


class NoiseBreaksStream(CohereStrategy):
    """BUG-CLASSES 13 (an unknown event type breaks parsing): an event type outside the known ones
    (debug, one the API adds later) is refused."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        if isinstance(chunk, dict) and chunk.get("type") not in _KNOWN:
            raise MalformedChunk(f"cohere: unknown event type {chunk.get('type')!r}")
        return super().accumulate(acc, chunk)


class DoneAtToolCallEnd(CohereStrategy):
    """Calls run before the stream's end (docs/spec.md C6): ``is_done`` fires on tool-call-end,
    before message-end brings the finish reason."""

    def is_done(self, chunk: object) -> bool:
        return super().is_done(chunk) or (isinstance(chunk, dict) and chunk.get("type") == "tool-call-end")


class ThinkingShownAsText(CohereStrategy):
    """Text lost or mixed around the answer (BUG-CLASSES 10, 11: the content channel misread): a
    thinking block's text is taken for content text, in the display and in ``content_text``."""

    def _content_delta(self, acc: Any, event: dict) -> str:
        shown = super()._content_delta(acc, event)
        block = acc.state["blocks"].get(event.get("index"))
        return event["delta"]["message"]["content"].get("thinking", "") if block and block["type"] == "thinking" else shown

    def content_text(self, message: object) -> str:
        inner, _ = events.body_parts(message)
        content = inner.get("content") if inner is not None else None
        if not isinstance(content, list):
            return super().content_text(message)
        return "".join(b.get("text") or b.get("thinking") or "" for b in content if isinstance(b, dict))


FORMAT = "cohere"
BASE = CohereStrategy

_KNOWN = {"message-start", "content-start", "content-delta", "content-end", "tool-plan-delta", "tool-call-start",
          "tool-call-delta", "tool-call-end", "citation-start", "citation-end", "message-end"}

BUGS: dict[str, type] = {
    "fragments-to-last-call": FragmentsToLastCall,
    "stray-fragment-routed": StrayFragmentRouted,
    "ids-lost": IdsLost,
    "cut-arguments-executed": CutArgumentsExecuted,
    "max-tokens-taken-as-finished": MaxTokensTakenAsFinished,
    "lenient-arguments": LenientArguments,
    "null-arguments-refused": NullArgumentsRefused,
    "error-swallowed": ErrorSwallowed,
    "noise-breaks-stream": NoiseBreaksStream,
    "done-at-tool-call-end": DoneAtToolCallEnd,
    "thinking-shown-as-text": ThinkingShownAsText,
}

# bug slug -> (check id, case slug) that fails it at a level that fails the default gate
KILLS: dict[str, tuple[str, str | None]] = {
    "fragments-to-last-call": ("PARITY-001", "syn-interleaved-calls"),
    "stray-fragment-routed": ("DONE-003", "syn-malformed-delta-for-unknown-call"),
    "ids-lost": ("EXTRACT-001", "cohere-tool-call"),
    "cut-arguments-executed": ("EXTRACT-001", "syn-cut-in-arguments"),
    "max-tokens-taken-as-finished": ("EXTRACT-001", "syn-max-tokens-in-arguments"),
    "lenient-arguments": ("EXTRACT-001", "syn-arguments-not-object"),
    "null-arguments-refused": ("EXTRACT-001", "nonstream-cohere-null-args"),
    "error-swallowed": ("DONE-003", "syn-error-in-message-end"),
    "noise-breaks-stream": ("NOISE-001", "cohere-tool-call"),
    "done-at-tool-call-end": ("DONE-001", "cohere-tool-call"),
    "thinking-shown-as-text": ("DISPLAY-001", "cohere-reasoning"),
}
