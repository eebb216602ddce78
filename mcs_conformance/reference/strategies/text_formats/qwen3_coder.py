"""Qwen3-Coder XML (``qwen3-coder``): ``<tool_call><function=NAME><parameter=KEY>VALUE</parameter>...``.

Qwen3-Coder's chat template writes each call as
``<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n</function>\\n</tool_call>``
and states each parameter's type from the request's tools; vLLM's ``qwen3_coder`` parser reads a
value as its tool's JSON Schema types it (an integer, a boolean, an object as JSON), and as text
where the schema gives no type. So the reading depends on the request: the strategy takes the
request's tools through ``with_request`` (docs/authoring.md, "A format that reads the request").
Rules and sources: docs/spec.md, "qwen3-coder".
"""

from __future__ import annotations

import re
from typing import Any

from ...protocol import ToolCall
from ..marked_text import EndScanner, Grammar, MarkedTextStrategy, UntilMarker
from ._xml_values import ToolSchemas, typed_value

__all__ = ["Qwen3CoderGrammar", "Qwen3CoderStrategy"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
FUNCTION = "<function="
_FUNCTION = re.compile(r"<function=([^>\n]*)>(.*?)(?:</function>|\Z)", re.S)
_PARAMETER = re.compile(r"<parameter=([^>\n]*)>(.*?)(?:</parameter>|(?=<parameter=)|(?=</function>)|\Z)", re.S)
_NAME = re.compile(r"\s*<function=([^>\n]*)")


class Qwen3CoderGrammar(Grammar):
    name = "qwen3-coder"
    markers = (OPEN, FUNCTION)

    def __init__(self, tools: Any = None) -> None:
        self.schemas = ToolSchemas(tools)

    def end_scanner(self, marker: str) -> EndScanner:
        return UntilMarker(CLOSE if marker == OPEN else "</function>")

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        text = body if marker == OPEN else FUNCTION + body + "</function>"
        if not closed:
            return [ToolCall(name=self.forming(body, marker) or "",
                             error="qwen3-coder: the call is cut off: the text ends inside it")]
        calls = [self._call(m.group(1).strip(), m.group(2)) for m in _FUNCTION.finditer(text)]
        return calls or [ToolCall(name="", error="qwen3-coder: the <tool_call> block holds no <function=...>")]

    def _call(self, name: str, inner: str) -> ToolCall:
        if not name:
            return ToolCall(name="", error="qwen3-coder: a <function=> without a name")
        arguments: dict[str, Any] = {}
        for m in _PARAMETER.finditer(inner):
            value = m.group(2)
            value = value[1:] if value.startswith("\n") else value
            value = value[:-1] if value.endswith("\n") else value
            key = m.group(1).strip()
            arguments[key] = typed_value(value, self.schemas.type_of(name, key))
        return ToolCall(name=name, arguments=arguments)

    def forming(self, body: str, marker: str) -> str | None:
        if marker == FUNCTION:
            m = re.match(r"([^>\n]*)", body)
            return m.group(1) if m and m.group(1) else None
        m = _NAME.match(body)
        return m.group(1) if m and m.group(1) else None


class Qwen3CoderStrategy(MarkedTextStrategy):
    """Qwen3-Coder's XML calls in plain text: a text strategy (it claims ``str``). Argument values
    are typed by the request's tools (``with_request``); without them they are text. It offers
    no ``render``: a value's text does not say its type."""

    name = "qwen3-coder"
    render = None  # type: ignore[assignment]

    def __init__(self, tools: Any = None) -> None:
        self.grammar = Qwen3CoderGrammar(tools)

    def with_request(self, request: dict[str, Any]) -> "Qwen3CoderStrategy":
        """A strategy for one request: its ``tools`` type the argument values."""
        return type(self)(request.get("tools") if isinstance(request, dict) else None)
