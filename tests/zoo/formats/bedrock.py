"""One-bug copies of the bedrock reference strategy (Amazon Bedrock ConverseStream).

Each subclass of :class:`BedrockStrategy` does one step the naive way, as the BUG-CLASSES rows
(/work/shared/BUG-CLASSES.md numbering, as docs/spec.md cites them) or the hazards of
docs/spec.md's "bedrock" section name; ``KILLS`` names the check and bundled case that fail it.
"""

from __future__ import annotations

from typing import Any

from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.strategies import BedrockStrategy

FORMAT = "bedrock"
BASE = BedrockStrategy


class JoinsFragmentsByArrival(BedrockStrategy):
    """BUG-CLASSES 1 (fragments joined by position, issue 35): a toolUse input fragment goes to
    the most recently started toolUse block, whatever its contentBlockIndex says."""

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("contentBlockDelta"), dict):
            event = chunk["contentBlockDelta"]
            delta = event.get("delta")
            if isinstance(delta, dict) and "toolUse" in delta and acc.state.get("blocks"):
                uses = [i for i, b in acc.state["blocks"].items() if isinstance(b, dict) and "toolUse" in b]
                if uses:
                    latest = acc.state.setdefault("latest_use", uses[-1])
                    chunk = {"contentBlockDelta": {**event, "contentBlockIndex": latest}}
        if isinstance(chunk, dict) and isinstance(chunk.get("contentBlockStart"), dict):
            acc.state.pop("latest_use", None)
            out = super().accumulate(acc, chunk)
            acc.state["latest_use"] = chunk["contentBlockStart"].get("contentBlockIndex")
            return out
        return super().accumulate(acc, chunk)


class SeedsInputWithStartObject(BedrockStrategy):
    """BUG-CLASSES 17: the toolUse input text starts with the ``{}`` the block was opened with,
    so the joined input is ``{}{...}`` and never parses."""

    def _block_start(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        out = super()._block_start(acc, payload, chunk)
        block = acc.state["blocks"].get(payload.get("contentBlockIndex"))
        if isinstance(block, dict) and "toolUse" in block:
            acc.append(block["toolUse"], "input", "{}")
        return out


class EmptyInputIsEmptyString(BedrockStrategy):
    """BUG-CLASSES 16: a call whose only input fragment is ``""`` keeps ``""`` as its input
    instead of ``{}``, and becomes an error call."""

    def _seal(self, acc: Accumulator, index: int) -> None:
        block = acc.state["blocks"].get(index)
        use = block.get("toolUse") if isinstance(block, dict) else None
        if isinstance(use, dict) and acc.text(use, "input") == "":
            acc.seal(use, "input", "")
            return
        super()._seal(acc, index)


class RunsCallsBeforeMessageStop(BedrockStrategy):
    """BUG-CLASSES 19 (calls run before the stream's end): a call whose block stopped is
    executable although the response has no stopReason yet."""

    def extract(self, message: object) -> list[ToolCall]:
        if isinstance(message, dict) and message.get("stopReason") is None and "output" in message:
            message = {**message, "stopReason": "tool_use"}
        return super().extract(message)


class RunsFinishedCallsOfCutTurn(BedrockStrategy):
    """BUG-CLASSES 19 (cut arguments executed): stopReason max_tokens is treated as a normal
    end, so the finished calls of a cut turn run."""

    def extract(self, message: object) -> list[ToolCall]:
        if isinstance(message, dict) and message.get("stopReason") == "max_tokens":
            message = {**message, "stopReason": "tool_use"}
        return super().extract(message)


class DoneOnMetadata(BedrockStrategy):
    """BUG-CLASSES 15 (finish reason / completion wrong): the metadata event is taken as the end
    of the stream, though it may come before messageStop."""

    def is_done(self, chunk: object) -> bool:
        return super().is_done(chunk) or (isinstance(chunk, dict) and "metadata" in chunk)


class RejectsUnknownEvents(BedrockStrategy):
    """BUG-CLASSES 13 (noise events breaking the stream): an event name added to the union after
    the client was written is refused."""

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        from mcs_conformance.reference.errors import MalformedChunk

        if isinstance(chunk, dict) and len(chunk) == 1 and next(iter(chunk)).startswith("mcs"):
            raise MalformedChunk(f"bedrock: unknown event {next(iter(chunk))!r}")
        return super().accumulate(acc, chunk)


class SwallowsExceptionEvents(BedrockStrategy):
    """BUG-CLASSES 14 (mid-stream error swallowed): an exception event is ignored, so a turn cut
    by a model stream error looks like one that only has not finished yet."""

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if isinstance(chunk, dict) and any(k.endswith("Exception") for k in chunk):
            return ""
        return super().accumulate(acc, chunk)


class TextAfterCallLost(BedrockStrategy):
    """BUG-CLASSES 10/11 (text around calls lost): text blocks after the first toolUse are left
    out of content_text."""

    def content_text(self, message: object) -> str:
        try:
            content = message["output"]["message"]["content"]
        except (KeyError, TypeError):
            return super().content_text(message)
        out = []
        for block in content:
            if isinstance(block, dict) and "toolUse" in block:
                break
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                out.append(block["text"])
        return "".join(out)


class DropsReasoningFromHistory(BedrockStrategy):
    """BUG-CLASSES 21/22 (reasoning not replayed): the continuation leaves the reasoningContent
    blocks, with their signatures, out of the assistant turn."""

    def result_messages(self, message: object, records: Any) -> list[dict]:
        out = super().result_messages(message, records)
        out[0]["content"] = [b for b in out[0]["content"] if "reasoningContent" not in b]
        return out


class LosesToolUseIds(BedrockStrategy):
    """BUG-CLASSES 8 (ids lost): calls come back without their toolUseId, so their results
    cannot be sent back under it."""

    def extract(self, message: object) -> list[ToolCall]:
        from dataclasses import replace

        return [replace(c, id=None) for c in super().extract(message)]


class OpensCallForStrayFragment(BedrockStrategy):
    """A silent wrong call (docs/spec.md, bedrock, malformed events): a toolUse input fragment
    for an index no toolUse contentBlockStart opened becomes a call with no id and no name
    instead of a refusal naming the event."""

    def _block_delta(self, acc: Accumulator, payload: dict, chunk: object) -> str:
        delta = payload.get("delta")
        index = payload.get("contentBlockIndex")
        if isinstance(delta, dict) and "toolUse" in delta and index not in acc.state["blocks"]:
            self._place(acc, index, {"toolUse": {"input": {}}})
        return super()._block_delta(acc, payload, chunk)


BUGS: dict[str, type] = {
    "fragments-joined-by-arrival": JoinsFragmentsByArrival,
    "input-seeded-with-start-object": SeedsInputWithStartObject,
    "empty-input-is-empty-string": EmptyInputIsEmptyString,
    "calls-run-before-message-stop": RunsCallsBeforeMessageStop,
    "finished-calls-of-cut-turn-run": RunsFinishedCallsOfCutTurn,
    "done-on-metadata": DoneOnMetadata,
    "unknown-events-rejected": RejectsUnknownEvents,
    "exception-events-swallowed": SwallowsExceptionEvents,
    "text-after-call-lost": TextAfterCallLost,
    "reasoning-dropped-from-history": DropsReasoningFromHistory,
    "tool-use-ids-lost": LosesToolUseIds,
    "stray-fragment-opens-a-call": OpensCallForStrayFragment,
}

KILLS: dict[str, tuple[str, str | None]] = {
    "fragments-joined-by-arrival": ("PARITY-001", "syn-parallel-tool-use-interleaved"),
    "input-seeded-with-start-object": ("PARITY-001", "tool-call-1"),
    "empty-input-is-empty-string": ("PARITY-001", "tool-no-args"),
    "calls-run-before-message-stop": ("EXTRACT-001", "syn-stream-cut-after-tool-block-stop"),
    "finished-calls-of-cut-turn-run": ("EXTRACT-001", "syn-max-tokens-cut-in-second-call"),
    "done-on-metadata": ("DONE-001", "tool-call-1"),
    "unknown-events-rejected": ("NOISE-001", "json-other-tool-1"),
    "exception-events-swallowed": ("DONE-003", "syn-error-mid-stream"),
    "text-after-call-lost": ("DISPLAY-001", "json-with-tool-1"),
    "reasoning-dropped-from-history": ("HISTORY-003", "syn-reasoning-then-tool-use"),
    "tool-use-ids-lost": ("EXTRACT-001", "json-other-tool-1"),
    "stray-fragment-opens-a-call": ("DONE-003", "syn-malformed-tool-delta-without-start"),
}
