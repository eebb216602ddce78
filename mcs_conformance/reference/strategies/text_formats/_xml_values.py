"""What the XML-like formats share (Qwen3-Coder's ``<parameter=...>``, GLM's ``<arg_value>``):
argument values are text, typed by the JSON Schema of the request's tools where it gives a
type, and text where it gives none."""

from __future__ import annotations

import ast
import json
from typing import Any

__all__ = ["ToolSchemas", "typed_value"]


class ToolSchemas:
    """The request's function tools, by name: each tool's ``parameters.properties``."""

    def __init__(self, tools: Any = None) -> None:
        self.properties: dict[str, dict[str, Any]] = {}
        for tool in tools or ():
            fn = tool.get("function") if isinstance(tool, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                params = fn.get("parameters") if isinstance(fn.get("parameters"), dict) else {}
                props = params.get("properties") if isinstance(params.get("properties"), dict) else {}
                self.properties[fn["name"]] = props

    def type_of(self, tool: str, key: str) -> str | None:
        """The JSON type the schema gives the argument (the non-null one of ``anyOf``), or None."""
        schema = self.properties.get(tool, {}).get(key)
        if not isinstance(schema, dict):
            return None
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind is None:
            for option in schema.get("anyOf") or schema.get("oneOf") or ():
                if isinstance(option, dict) and option.get("type") not in (None, "null"):
                    kind = option["type"]
                    break
        return kind if isinstance(kind, str) else None


def typed_value(text: str, kind: str | None) -> Any:
    """An argument's text read as the schema's type says (vLLM's qwen3_coder and glm4_moe
    parsers): no type or a string type keeps the text; ``null`` is None for a typed argument;
    integers, numbers and booleans are read when they parse; objects and arrays as JSON, then
    as a Python literal. A text that does not parse as its type stays text."""
    if kind is None or kind in ("string", "str", "text", "varchar", "char", "enum"):
        return text
    if text.strip().lower() == "null":
        return None
    value = text.strip()
    if kind in ("integer", "int") or kind.startswith("int"):
        try:
            return int(value)
        except ValueError:
            return text
    if kind in ("number", "float", "num", "double"):
        try:
            number = float(value)
        except ValueError:
            return text
        return int(number) if number.is_integer() and "." not in value and "e" not in value.lower() else number
    if kind in ("boolean", "bool", "binary"):
        return {"true": True, "false": False}.get(value.lower(), text)
    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
