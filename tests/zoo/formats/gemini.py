"""One-bug copies of the reference Gemini strategy (mcs_conformance.strategies:GeminiStrategy),
each failed by a bundled gemini case at a level that fails the default gate.

Each class's docstring names its bug: the BUG-CLASSES row (/work/shared/BUG-CLASSES.md in the
design notes; numbers as there) or the hazard docs/spec.md, gemini, names.
"""

from __future__ import annotations

import re
from typing import Any

from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.reference.strategies.gemini import strategy as gemini_strategy
from mcs_conformance.strategies import GeminiStrategy


class CutArgumentsExecuted(GeminiStrategy):
    """BUG-CLASSES 19 (cut arguments executed): a streamed call whose last part said
    willContinue is run as if its arguments were whole."""

    def extract(self, message: object) -> list[ToolCall]:
        return [ToolCall(c.name, c.arguments, c.id, c.raw_arguments, None)
                if c.error and "never ended" in c.error else c for c in super().extract(message)]


class MaxTokensTrusted(GeminiStrategy):
    """BUG-CLASSES 15/19 (finish reason wrong): a turn cut by MAX_TOKENS is taken as finished,
    so its calls run."""

    def extract(self, message: object) -> list[ToolCall]:
        return [ToolCall(c.name, c.arguments, c.id, c.raw_arguments, None)
                if c.error and "MAX_TOKENS" in c.error else c for c in super().extract(message)]


class TextPartsOverwritten(GeminiStrategy):
    """Text lost: a text part that joins the previous one replaces its text instead of
    growing it (fragments not accumulated, BUG-CLASSES 18 on the text channel)."""

    def _part(self, acc: Accumulator, parts: list, part: dict, where: tuple, chunk: dict) -> str:
        last = parts[-1] if parts else None
        text = super()._part(acc, parts, part, where, chunk)
        if parts and parts[-1] is last and isinstance(last, dict) and part.get("text"):
            acc.seal(last, "text", part["text"])
        return text


class ThoughtShownAsText(GeminiStrategy):
    """Thought text (parts with thought: true) shown as the answer text."""

    def content_text(self, message: object) -> str:
        content, _ = gemini_strategy._turn(message)
        parts = content.get("parts") if isinstance(content, dict) else None
        return "".join(p["text"] for p in parts or () if isinstance(p, dict) and isinstance(p.get("text"), str))


class IdsDropped(GeminiStrategy):
    """BUG-CLASSES 8 (ids lost): the wire's functionCall.id is not read, so a result cannot go
    back with the id the API asks for."""

    def extract(self, message: object) -> list[ToolCall]:
        return [ToolCall(c.name, c.arguments, None, c.raw_arguments, c.error) for c in super().extract(message)]


class SameNameCallsMerged(GeminiStrategy):
    """BUG-CLASSES 2 (two calls of one name merged): a whole call whose name is the previous
    call's updates that call's arguments instead of adding a call."""

    def _call_part(self, acc: Accumulator, parts: list, part: dict, index: Any, st: dict, chunk: dict) -> str:
        fc = part["functionCall"]
        last = parts[-1] if parts else None
        if (isinstance(last, dict) and isinstance(last.get("functionCall"), dict) and isinstance(fc.get("args"), dict)
                and last["functionCall"].get("name") == fc.get("name") and index not in st["open"]):
            last["functionCall"].setdefault("args", {}).update(fc["args"])
            return ""
        return super()._call_part(acc, parts, part, index, st, chunk)


class StreamedStringReplaced(GeminiStrategy):
    """Fragments not accumulated (BUG-CLASSES 18, on Vertex AI's partialArgs): each streamed
    stringValue replaces the value at its jsonPath instead of growing it."""

    def _call_part(self, acc: Accumulator, parts: list, part: dict, index: Any, st: dict, chunk: dict) -> str:
        opened = st["open"].get(index)
        if opened is not None:
            opened["open_string"] = None
        return super()._call_part(acc, parts, part, index, st, chunk)


class ErrorPayloadSwallowed(GeminiStrategy):
    """BUG-CLASSES 14 (mid-stream error swallowed): an {"error": ...} payload is ignored, and the
    truncated turn looks complete."""

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if isinstance(chunk, dict) and chunk.get("error") is not None:
            return ""
        return super().accumulate(acc, chunk)


class TextAfterCallLost(GeminiStrategy):
    """BUG-CLASSES 11 (text after a tool call lost): a text part that comes after a
    functionCall part is dropped."""

    def _part(self, acc: Accumulator, parts: list, part: dict, where: tuple, chunk: dict) -> str:
        if "text" in part and any(isinstance(p, dict) and "functionCall" in p for p in parts):
            return ""
        return super()._part(acc, parts, part, where, chunk)


class NestedPathFlattened(GeminiStrategy):
    """A streamed argument's nested jsonPath ($.recipe.ingredients[0].name) written as one
    top-level key named by its last step: the arguments' structure is lost."""

    def _call_part(self, acc: Accumulator, parts: list, part: dict, index: Any, st: dict, chunk: dict) -> str:
        fc = part.get("functionCall")
        if isinstance(fc, dict) and isinstance(fc.get("partialArgs"), list):
            items = [{**item, "jsonPath": "$." + re.split(r"[.\[\]']+", item["jsonPath"].rstrip("]'"))[-1]}
                     if isinstance(item, dict) and isinstance(item.get("jsonPath"), str) else item
                     for item in fc["partialArgs"]]
            part = {**part, "functionCall": {**fc, "partialArgs": items}}
        return super()._call_part(acc, parts, part, index, st, chunk)


FORMAT = "gemini"
BASE = GeminiStrategy

BUGS: dict[str, type] = {
    "cut-arguments-executed": CutArgumentsExecuted,
    "max-tokens-trusted": MaxTokensTrusted,
    "text-parts-overwritten": TextPartsOverwritten,
    "thought-shown-as-text": ThoughtShownAsText,
    "ids-dropped": IdsDropped,
    "same-name-calls-merged": SameNameCallsMerged,
    "streamed-string-replaced": StreamedStringReplaced,
    "error-payload-swallowed": ErrorPayloadSwallowed,
    "text-after-call-lost": TextAfterCallLost,
    "nested-path-flattened": NestedPathFlattened,
}

KILLS: dict[str, tuple[str, str | None]] = {
    "cut-arguments-executed": ("EXTRACT-001", "syn-finish-while-call-open"),
    "max-tokens-trusted": ("PREFIX-003", "vertex-streamed-nested-arguments"),
    "text-parts-overwritten": ("PARITY-001", "text"),
    "thought-shown-as-text": ("DISPLAY-001", "vertex-no-args-and-streamed-calls"),
    "ids-dropped": ("EXTRACT-001", "syn-thought-text-and-calls-with-ids"),
    "same-name-calls-merged": ("PARITY-001", "syn-thought-text-and-calls-with-ids"),
    "streamed-string-replaced": ("PARITY-001", "vertex-streamed-arguments-two-calls"),
    "error-payload-swallowed": ("DONE-003", "syn-error-mid-stream"),
    "text-after-call-lost": ("SPLICE-001", "tool-call"),
    "nested-path-flattened": ("PARITY-001", "vertex-streamed-nested-arguments"),
}
