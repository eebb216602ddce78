"""One-bug copies of the ollama reference strategy (Ollama ``/api/chat``, docs/spec.md "ollama").

Each class does one step of the fold or the reading the naive way a client of this wire does it:
BUG-CLASSES rows 2/8 (calls merged), 9 (calls replaced instead of extended), 10 (text lost beside
calls), 14 (error swallowed), 15 (a cut finish taken as the end), 19 (calls run before the end),
21/22 (thinking not replayed), ids lost, and a malformed line read leniently (docs/spec.md P4).
"""

from __future__ import annotations

from typing import Any

from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.reference.strategies.ollama import OllamaStrategy

FORMAT = "ollama"
BASE = OllamaStrategy


class CallsReplacedPerChunk(OllamaStrategy):
    """BUG-CLASSES 9 (the reverse): each chunk's ``tool_calls`` replaces the list instead of
    extending it (the documentation says streamed calls are extended), so calls sent in several
    chunks lose all but the last chunk's."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        calls = chunk.get("message", {}).get("tool_calls") if isinstance(chunk, dict) and isinstance(chunk.get("message"), dict) else None
        if calls and "started" in acc.state:
            acc.root["message"].pop("tool_calls", None)
        return super().accumulate(acc, chunk)


class CallsRunBeforeTheEnd(OllamaStrategy):
    """BUG-CLASSES 19, the hazard "calls run before the stream's end": a call that arrived whole
    is read as executable though the body never got its done line."""

    def extract(self, message: object) -> list[ToolCall]:
        if isinstance(message, dict) and isinstance(message.get("message"), dict):
            message = {**message, "done": True}
        return super().extract(message)


class LengthCutIsDone(OllamaStrategy):
    """BUG-CLASSES 15: any ``done: true`` line ends the turn, ``done_reason: "length"`` too, so a
    turn cut by ``num_predict`` is reported finished."""

    def is_done(self, chunk: object) -> bool:
        return isinstance(chunk, dict) and chunk.get("done") is True


class ErrorLineSwallowed(OllamaStrategy):
    """BUG-CLASSES 14: an ``{"error"}`` line mid-stream is skipped as noise, so a failed turn
    looks like one still going (and its calls may later be run)."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        if isinstance(chunk, dict) and "error" in chunk:
            return ""
        return super().accumulate(acc, chunk)


class SameCallsMerged(OllamaStrategy):
    """BUG-CLASSES 2/8: calls without ids are deduplicated by name and arguments, so a model that
    asks for the same call twice gets one run."""

    def extract(self, message: object) -> list[ToolCall]:
        out: list[ToolCall] = []
        for call in super().extract(message):
            if call.id is None and any(c.name == call.name and c.arguments == call.arguments for c in out):
                continue
            out.append(call)
        return out


class ContentLostBesideCalls(OllamaStrategy):
    """BUG-CLASSES 10: a chunk that carries calls resets the content to its own (empty) content,
    so the text sent before the calls vanishes from the message."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        message = chunk.get("message") if isinstance(chunk, dict) else None
        if isinstance(message, dict) and message.get("tool_calls") and "started" in acc.state:
            acc.seal(acc.root["message"], "content", "")
        return super().accumulate(acc, chunk)


class ThinkingNotReplayed(OllamaStrategy):
    """BUG-CLASSES 21/22: the continuation leaves the streamed thinking out of the assistant turn
    (the documentation sends it back with the content and the calls)."""

    def result_messages(self, message: object, records: Any) -> list[dict]:
        out = super().result_messages(message, records)
        out[0].pop("thinking", None)
        return out


class IdsLost(OllamaStrategy):
    """Ids lost: the ``id`` a current server gives every call is not read, so the results cannot
    name the calls the server knows."""

    def extract(self, message: object) -> list[ToolCall]:
        return [ToolCall(c.name, c.arguments, None, c.raw_arguments, c.error) for c in super().extract(message)]


class MalformedCallsReadLeniently(OllamaStrategy):
    """docs/spec.md P4 (a malformed chunk gets a refusal naming it, never a silent wrong call):
    a ``tool_calls`` object that is no list is taken as a list of that one call."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        message = chunk.get("message") if isinstance(chunk, dict) else None
        if isinstance(message, dict) and isinstance(message.get("tool_calls"), dict):
            chunk = {**chunk, "message": {**message, "tool_calls": [message["tool_calls"]]}}
        return super().accumulate(acc, chunk)


BUGS: dict[str, type] = {
    "calls-replaced-per-chunk": CallsReplacedPerChunk,
    "calls-run-before-the-end": CallsRunBeforeTheEnd,
    "length-cut-is-done": LengthCutIsDone,
    "error-line-swallowed": ErrorLineSwallowed,
    "same-calls-merged": SameCallsMerged,
    "content-lost-beside-calls": ContentLostBesideCalls,
    "thinking-not-replayed": ThinkingNotReplayed,
    "ids-lost": IdsLost,
    "malformed-calls-read-leniently": MalformedCallsReadLeniently,
}

KILLS: dict[str, tuple[str, str | None]] = {
    "calls-replaced-per-chunk": ("PARITY-001", "doc-parallel-calls-in-three-chunks"),
    "calls-run-before-the-end": ("EXTRACT-001", "syn-cut-before-done-with-calls"),
    "length-cut-is-done": ("DONE-002", "syn-cut-by-length-after-call"),
    "error-line-swallowed": ("DONE-003", "syn-error-after-call"),
    "same-calls-merged": ("EXTRACT-001", "syn-same-call-twice-no-ids"),
    "content-lost-beside-calls": ("PARITY-001", "syn-thinking-content-calls-with-ids"),
    "thinking-not-replayed": ("HISTORY-003", "syn-thinking-content-calls-with-ids"),
    "ids-lost": ("EXTRACT-001", "syn-thinking-content-calls-with-ids"),
    "malformed-calls-read-leniently": ("DONE-003", "syn-malformed-tool-calls-not-list"),
}


class CallsKeyedByIndex(OllamaStrategy):
    """BUG-CLASSES 2: calls keyed by ``function.index``, as OpenAI Chat fragments are: a call whose
    index was seen replaces the earlier one, and the server's built-in parsers send index 0 on
    every call."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        message = chunk.get("message") if isinstance(chunk, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        if isinstance(calls, list) and "started" in acc.state:
            new = {c["function"].get("index") for c in calls if isinstance(c, dict) and isinstance(c.get("function"), dict)}
            kept = [c for c in acc.root["message"].get("tool_calls", []) if c["function"].get("index") not in new]
            if "tool_calls" in acc.root["message"]:
                acc.root["message"]["tool_calls"] = kept
        return super().accumulate(acc, chunk)


BUGS["calls-keyed-by-index"] = CallsKeyedByIndex
KILLS["calls-keyed-by-index"] = ("PARITY-001", "syn-calls-all-index-0")
