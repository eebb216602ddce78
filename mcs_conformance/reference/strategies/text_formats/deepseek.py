"""DeepSeek V3 / V3.1 (``deepseek``): calls between ``<｜tool▁calls▁begin｜>`` and ``<｜tool▁calls▁end｜>``.

Each call is ``<｜tool▁call▁begin｜>...<｜tool▁sep｜>...<｜tool▁call▁end｜>``: DeepSeek-V3's chat
template writes ``function<｜tool▁sep｜>NAME`` then the arguments in a fenced JSON block
(```` ```json ````), DeepSeek-V3.1's ``NAME<｜tool▁sep｜>`` then the JSON arguments; all the
markers are special tokens of their tokenizers. vLLM's ``deepseek_v3`` and ``deepseek_v31``
parsers read them. Rules and sources: docs/spec.md, "deepseek".
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ...protocol import ToolCall
from ..marked_text import EndScanner, Grammar, MarkedTextStrategy, UntilMarker
from ._json_calls import call_from_object, read_json

__all__ = ["DeepSeekGrammar", "DeepSeekStrategy"]

CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, SEP, CALL_END = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
_CALL = re.compile(re.escape(CALL_BEGIN) + "(.*?)" + re.escape(SEP) + "(.*?)(?:" + re.escape(CALL_END) + r"|\Z)", re.S)
_FENCED = re.compile(r"\s*([^\n`]+?)\s*\n\s*```(?:json)?\s*\n?(.*?)\n?\s*```\s*\Z", re.S)


class DeepSeekGrammar(Grammar):
    name = "deepseek"
    markers = (CALLS_BEGIN,)

    def end_scanner(self, marker: str) -> EndScanner:
        return UntilMarker(CALLS_END)

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        found = list(_CALL.finditer(body))
        if not found:
            why = "the text ends inside it" if not closed else "it holds no <｜tool▁call▁begin｜> ... <｜tool▁sep｜> call"
            return [ToolCall(name="", error=f"deepseek: the tool-calls block is cut off or malformed: {why}")]
        calls = []
        for i, m in enumerate(found):
            whole = m.group(0).endswith(CALL_END) and (closed or i < len(found) - 1)
            calls.append(self._call(m.group(1), m.group(2), whole))
        return calls

    def _call(self, head: str, rest: str, whole: bool) -> ToolCall:
        if head.strip() == "function":  # V3: the name, then the arguments fenced as JSON
            m = _FENCED.match(rest)
            name = (m.group(1) if m else rest.split("\n", 1)[0]).strip()
            text = m.group(2) if m else None
        else:  # V3.1: the name before the separator
            name, text = head.strip(), rest
        if not whole:
            return ToolCall(name=name, error="deepseek: the call is cut off: the text ends inside it")
        if text is None:
            return ToolCall(name=name, error="deepseek: the arguments are not a fenced JSON block")
        obj, problem = read_json(text)
        if problem is not None:
            return ToolCall(name=name, error=f"deepseek: the arguments of {name!r}: {problem}")
        return call_from_object({"name": name, "arguments": obj}, "deepseek")

    def forming(self, body: str, marker: str) -> str | None:
        m = _CALL.search(body)
        if m is not None:
            head = m.group(1).strip()
            if head != "function":
                return head or None
            name = m.group(2).split("\n", 1)[0].strip()
            return name if "\n" in m.group(2) else None
        return None

    def render(self, calls: Sequence[ToolCall]) -> str:
        """V3.1 calls; the arguments' JSON escapes every character outside ASCII, so no marker
        (all of them hold fullwidth bars) can stand inside a string."""
        inner = "".join(f"{CALL_BEGIN}{c.name}{SEP}{json.dumps(c.arguments)}{CALL_END}" for c in calls)
        return f"{CALLS_BEGIN}{inner}{CALLS_END}"


class DeepSeekStrategy(MarkedTextStrategy):
    """DeepSeek V3 / V3.1 tool-call blocks in plain text: a text strategy (it claims ``str``)."""

    name = "deepseek"
    grammar = DeepSeekGrammar()
