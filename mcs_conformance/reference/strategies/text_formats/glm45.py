"""GLM-4.5 / 4.6 (``glm45``): ``<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>``.

GLM-4.5's and GLM-4.6's chat templates write each call as the name after ``<tool_call>``, then
one ``<arg_key>`` / ``<arg_value>`` pair per argument, and state the argument types from the
request's tools; vLLM's ``glm45`` parser (``glm4_moe_tool_parser``) reads a value that its tool's
schema does not type as a string as JSON. The strategy takes the request's tools through
``with_request``. Rules and sources: docs/spec.md, "glm45".
"""

from __future__ import annotations

import re
from typing import Any

from ...protocol import ToolCall
from ..marked_text import EndScanner, Grammar, MarkedTextStrategy, UntilMarker
from ._xml_values import ToolSchemas, typed_value

__all__ = ["Glm45Grammar", "Glm45Strategy"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
_PAIR = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", re.S)
_NAME = re.compile(r"\s*([^<\n]*)")


class Glm45Grammar(Grammar):
    name = "glm45"
    markers = (OPEN,)

    def __init__(self, tools: Any = None) -> None:
        self.schemas = ToolSchemas(tools)

    def end_scanner(self, marker: str) -> EndScanner:
        return UntilMarker(CLOSE)

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        name = self.forming(body, marker) or ""
        if not closed:
            return [ToolCall(name=name, error="glm45: the <tool_call> block is not closed: the text ends inside it")]
        if not name:
            return [ToolCall(name="", error="glm45: the <tool_call> block names no function")]
        rest = body[_NAME.match(body).end():]
        pairs = list(_PAIR.finditer(rest))
        leftover = _PAIR.sub("", rest).strip()
        if leftover:
            return [ToolCall(name=name, error=f"glm45: the arguments of {name!r} are malformed near {leftover[:40]!r}")]
        arguments = {m.group(1).strip(): typed_value(m.group(2), self.schemas.type_of(name, m.group(1).strip()))
                     for m in pairs}
        return [ToolCall(name=name, arguments=arguments)]

    def forming(self, body: str, marker: str) -> str | None:
        m = _NAME.match(body)
        name = m.group(1).strip() if m else ""
        return name or None


class Glm45Strategy(MarkedTextStrategy):
    """GLM-4.5 / 4.6 calls in plain text: a text strategy (it claims ``str``). Argument values are
    typed by the request's tools (``with_request``); without them they are text. No ``render``:
    a value's text does not say its type."""

    name = "glm45"
    render = None  # type: ignore[assignment]

    def __init__(self, tools: Any = None) -> None:
        self.grammar = Glm45Grammar(tools)

    def with_request(self, request: dict[str, Any]) -> "Glm45Strategy":
        """A strategy for one request: its ``tools`` type the argument values."""
        return type(self)(request.get("tools") if isinstance(request, dict) else None)
