"""Hermes / Qwen2.5 (``hermes``): ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.

The format of NousResearch's Hermes 2 Pro and of Qwen2.5 / Qwen3's chat templates (each
call a JSON object between ``<tool_call>`` and ``</tool_call>``, one block per call, results
in ``<tool_response>`` blocks of a user turn); served by vLLM's ``hermes`` parser. A block
ends where its JSON value ends: a ``</tool_call>`` inside an argument string is data
(vllm#45167). Rules and sources: docs/spec.md, "hermes".
"""

from __future__ import annotations

from collections.abc import Sequence

from ...protocol import ToolCall, ToolCallRecord
from ..marked_text import EndScanner, Grammar, JsonThenMarker, MarkedTextStrategy
from ._json_calls import call_from_object, dumps, forming_in, read_json

__all__ = ["HermesGrammar", "HermesStrategy"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"


class HermesGrammar(Grammar):
    name = "hermes"
    markers = (OPEN,)

    def end_scanner(self, marker: str) -> EndScanner:
        return JsonThenMarker(CLOSE)

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        obj, problem = read_json(body)
        if not closed:
            return [ToolCall(name=self.forming(body, marker) or "",
                             error="hermes: the <tool_call> block is not closed: the text ends inside it")]
        if problem is not None:
            return [ToolCall(name=self.forming(body, marker) or "", error=f"hermes: the <tool_call> block: {problem}")]
        return [call_from_object(obj, "hermes")]

    def forming(self, body: str, marker: str) -> str | None:
        return forming_in(body)

    def render(self, calls: Sequence[ToolCall]) -> str:
        return "\n".join(f"{OPEN}\n{dumps({'name': c.name, 'arguments': c.arguments})}\n{CLOSE}" for c in calls)

    def render_result(self, record: ToolCallRecord) -> str:
        return f"<tool_response>\n{super().render_result(record)}\n</tool_response>"


class HermesStrategy(MarkedTextStrategy):
    """Hermes ``<tool_call>`` blocks in plain text: a text strategy (it claims ``str``)."""

    name = "hermes"
    grammar = HermesGrammar()
