"""Mistral (``mistral``): ``[TOOL_CALLS]`` then the calls.

Before the v11 tokenizer (Mistral 7B Instruct v0.3, Mixtral) the model writes
``[TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]``, one JSON list of calls; from v11
(Mistral Small 3.2, Magistral, Devstral) ``[TOOL_CALLS]name{...}`` per call, the marker
repeated before each. ``[TOOL_CALLS]`` is a special token of both tokenizers
(mistral-common); vLLM's ``mistral`` parser reads both forms. Text before the marker, and
after a finished list, is content. Rules and sources: docs/spec.md, "mistral".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...protocol import ToolCall
from ..marked_text import EndScanner, Grammar, JsonExtent, MarkedTextStrategy, ToEnd, skip_ws
from ._json_calls import call_from_object, dumps, forming_in, read_json

__all__ = ["MistralGrammar", "MistralStrategy"]

MARKER = "[TOOL_CALLS]"
_WS = " \t\r\n"
_NAME = re.compile(r"[A-Za-z0-9_.\-]*")
_V11 = re.compile(r"\s*([A-Za-z0-9_.\-]+)(?:\[ARGS\])?(\{.*)\Z", re.S)
ARGS = "[ARGS]"


class _MistralEnd(EndScanner):
    """A JSON list or object (before v11), or a name then a JSON object (v11); anything else
    runs to the end of the text."""

    def __init__(self) -> None:
        self.phase, self.json = "lead", JsonExtent()

    def feed(self, s: str, i: int) -> tuple[int, int | None, int | None]:
        n = len(s)
        while i < n:
            if self.phase == "lead":
                i = skip_ws(s, i)
                if i == n:
                    return i, None, None
                self.phase = "json" if s[i] in "[{" else "name"
            elif self.phase == "name":
                i = _NAME.match(s, i).end()
                if i == n or (s[i] == "[" and ARGS.startswith(s[i:])):
                    return i, None, None  # the name, or the [ARGS] token, may go on
                if s.startswith(ARGS, i):
                    i += len(ARGS)
                    if i == n:
                        return i, None, None
                self.phase = "json" if s[i] == "{" else "raw"
            elif self.phase == "json":
                end = self.json.feed(s, i)
                if end is None:
                    return n, None, None
                return end, end, end
            else:
                return ToEnd().feed(s, i)
        return i, None, None


class MistralGrammar(Grammar):
    name = "mistral"
    markers = (MARKER,)

    def end_scanner(self, marker: str) -> EndScanner:
        return _MistralEnd()

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        if not closed:
            return [ToolCall(name=self.forming(body, marker) or "",
                             error="mistral: the call after [TOOL_CALLS] is cut off or malformed: the text ends inside it")]
        head = body.lstrip(_WS)
        if head.startswith(("[", "{")):
            value, problem = read_json(body)
            if problem is not None:
                return [ToolCall(name="", error=f"mistral: the calls after [TOOL_CALLS]: {problem}")]
            items = value if isinstance(value, list) else [value]
            if not items:
                return [ToolCall(name="", error="mistral: [TOOL_CALLS] is followed by an empty list")]
            return [call_from_object(item, "mistral") for item in items]
        m = _V11.match(body)
        obj, problem = read_json(m.group(2)) if m else (None, "no name then a JSON object")
        if problem is not None or not isinstance(obj, dict):
            name = m.group(1) if m else ""
            return [ToolCall(name=name, error=f"mistral: the call after [TOOL_CALLS]: {problem or 'no object'}")]
        return [call_from_object({"name": m.group(1), "arguments": obj}, "mistral")]

    def forming(self, body: str, marker: str) -> str | None:
        head = body.lstrip(_WS)
        if head.startswith("["):
            return forming_in(head, depth=2)
        if head.startswith("{"):
            return forming_in(head)
        name = _NAME.match(head).group()
        return name or None

    def render(self, calls: Sequence[ToolCall]) -> str:
        return MARKER + dumps([{"name": c.name, "arguments": c.arguments} for c in calls])


class MistralStrategy(MarkedTextStrategy):
    """Mistral ``[TOOL_CALLS]`` calls in plain text: a text strategy (it claims ``str``)."""

    name = "mistral"
    grammar = MistralGrammar()
