"""Kimi K2 (``kimi-k2``): a section of calls, each with its own id.

Kimi K2's chat template writes ``<|tool_calls_section_begin|>`` then, per call,
``<|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>{...}<|tool_call_end|>``,
then ``<|tool_calls_section_end|>``; every marker is a special token. The call's id is
``functions.NAME:INDEX`` and the template replays it with the result (``## Return of
functions.NAME:INDEX``), so ``extract`` returns it as the call's id. vLLM's ``kimi_k2`` parser
reads the same. Rules and sources: docs/spec.md, "kimi-k2".
"""

from __future__ import annotations

import re

from ...protocol import ToolCall, ToolCallRecord
from ..marked_text import EndScanner, Grammar, MarkedTextStrategy, UntilMarker
from ._json_calls import call_from_object, read_json

__all__ = ["KimiK2Grammar", "KimiK2Strategy"]

SECTION_BEGIN, SECTION_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CALL_BEGIN, ARGUMENTS, CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
_CALL = re.compile(re.escape(CALL_BEGIN) + r"(.*?)(?:" + re.escape(ARGUMENTS) + r"(.*?))?(?:" + re.escape(CALL_END)
                   + r"|(?=" + re.escape(CALL_BEGIN) + r")|\Z)", re.S)
_ID = re.compile(r"(?:functions\.)?(.+):(\d+)\Z", re.S)


class KimiK2Grammar(Grammar):
    name = "kimi-k2"
    markers = (SECTION_BEGIN,)

    def end_scanner(self, marker: str) -> EndScanner:
        return UntilMarker(SECTION_END)

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        found = list(_CALL.finditer(body))
        if not found:
            why = "the text ends inside it" if not closed else "it holds no <|tool_call_begin|> call"
            return [ToolCall(name="", error=f"kimi-k2: the tool-calls section is cut off or malformed: {why}")]
        return [self._call(m, closed or i < len(found) - 1) for i, m in enumerate(found)]

    def _call(self, m: re.Match[str], finished: bool) -> ToolCall:
        call_id = m.group(1).strip()
        ident = _ID.match(call_id)
        name = ident.group(1) if ident else ""
        if not (finished and m.group(0).endswith(CALL_END)):
            return ToolCall(name=name, id=call_id or None, error="kimi-k2: the call is cut off: the text ends inside it")
        if ident is None:
            return ToolCall(name="", id=call_id or None,
                            error=f"kimi-k2: the call id {call_id!r} is not functions.NAME:INDEX")
        obj, problem = read_json(m.group(2) or "")
        if problem is not None:
            return ToolCall(name=name, id=call_id, error=f"kimi-k2: the arguments of {name!r}: {problem}")
        call = call_from_object({"name": name, "arguments": obj}, "kimi-k2")
        return ToolCall(name=call.name, arguments=call.arguments, id=call_id, error=call.error)

    def forming(self, body: str, marker: str) -> str | None:
        m = re.match(r"\s*" + re.escape(CALL_BEGIN) + r"\s*(?:functions\.)?([^:<\s]*)", body)
        if m is None or not m.group(1):
            return None
        head = body[m.end():]
        return m.group(1) if head.startswith(":") else None

    def render_result(self, record: ToolCallRecord) -> str:
        return f"## Return of {record.call.id}\n{record.result}"


class KimiK2Strategy(MarkedTextStrategy):
    """Kimi K2 tool-call sections in plain text: a text strategy (it claims ``str``). It offers no
    ``render``: a call's id spells its name (``functions.NAME:INDEX``), which not every name fits."""

    name = "kimi-k2"
    grammar = KimiK2Grammar()
    render = None  # type: ignore[assignment]
