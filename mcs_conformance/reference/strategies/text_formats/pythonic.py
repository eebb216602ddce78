"""Pythonic calls (``pythonic``): ``[get_weather(city='SF'), other()]`` as the output.

Llama 3.2's and Llama 4's prompt formats for zero-shot function calling ask the model for a
Python list of calls, ``[func_name1(params_name1=params_value1, ...), func_name2(params)]``;
Llama 4 may wrap it in ``<|python_start|>`` ... ``<|python_end|>``. vLLM's ``pythonic`` and
``llama4_pythonic`` parsers read it with Python's own grammar: keyword arguments whose values
are literals (strings, numbers, ``True``/``False``/``None``, lists, dicts). A list that does
not open the output is prose. Rules and sources: docs/spec.md, "pythonic".
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from ...protocol import ToolCall
from ..marked_text import EndScanner, Grammar, MarkedTextStrategy, PythonExtent, held_tail, skip_ws

__all__ = ["PythonicGrammar", "PythonicStrategy"]

START, END = "<|python_start|>", "<|python_end|>"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


class _ListEnd(EndScanner):
    """A Python list; after ``<|python_start|>``, the ``<|python_end|>`` that follows it too."""

    def __init__(self, marker: str) -> None:
        self.marker, self.phase, self.extent, self.body_end = marker, "lead", PythonExtent(), 0

    def feed(self, s: str, i: int) -> tuple[int, int | None, int | None]:
        n = len(s)
        while i < n:
            if self.phase == "lead":
                i = skip_ws(s, i)
                if i == n:
                    return i, None, None
                if s[i] != "[":  # no list after the marker: the region is raw up to END
                    self.phase = "raw"
                    continue
                self.phase = "list"
            elif self.phase == "list":
                end = self.extent.feed(s, i)
                if end is None:
                    return n, None, None
                if not self.marker:
                    return end, end, end
                i, self.phase, self.body_end = end, "after", end
            elif self.phase == "after":
                j = skip_ws(s, i)
                if s.startswith(END, j):
                    return j + len(END), j, j + len(END)
                if j == n or END.startswith(s[j:]):
                    return i, None, None
                return i, i, i
            else:
                j = s.find(END, i)
                if j >= 0:
                    return j + len(END), j, j + len(END)
                return n - held_tail(s, i, (END,)), None, None
        return i, None, None


class PythonicGrammar(Grammar):
    name = "pythonic"
    markers = (START,)

    def opens_at_start(self, s: str, i: int) -> int | None:
        """The output starts a call when it opens with ``[``, a name and ``(``."""
        k = skip_ws(s, i)
        if k == len(s):
            return None
        if s[k] != "[":
            return -1
        j = skip_ws(s, k + 1)
        m = _NAME.match(s, j)
        if m is None:
            return None if j == len(s) else -1
        j = m.end()
        j = skip_ws(s, j)
        if j == len(s):
            return None
        return k if s[j] == "(" else -1

    def end_scanner(self, marker: str) -> EndScanner:
        return _ListEnd(marker)

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        if not closed:
            return [ToolCall(name=self.forming(body, marker) or "",
                             error="pythonic: the list of calls is cut off: the text ends inside it")]
        try:
            tree = ast.parse(body.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError) as exc:
            return [ToolCall(name="", error=f"pythonic: the list of calls is no Python expression ({exc})")]
        if not isinstance(tree, ast.List) or not tree.elts:
            return [ToolCall(name="", error="pythonic: the output holds no list of calls")]
        return [_call(node) for node in tree.elts]

    def forming(self, body: str, marker: str) -> str | None:
        m = re.match(r"\s*\[\s*([A-Za-z_][A-Za-z0-9_.]*)", body)
        return m.group(1) if m else None

    def render(self, calls: Any) -> str:  # the format cannot write every name: no render
        raise NotImplementedError


def _call(node: ast.expr) -> ToolCall:
    if not isinstance(node, ast.Call):
        return ToolCall(name="", error="pythonic: a list element is no call")
    name = _dotted(node.func)
    if name is None:
        return ToolCall(name="", error="pythonic: a call's function is no name")
    if node.args:
        return ToolCall(name=name, error=f"pythonic: call {name!r} has positional arguments; only keywords name them")
    arguments: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            return ToolCall(name=name, error=f"pythonic: call {name!r} unpacks **arguments")
        try:
            value = ast.literal_eval(kw.value)
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError) as exc:
            return ToolCall(name=name, error=f"pythonic: argument {kw.arg!r} of {name!r} is no literal ({exc})")
        problem = _not_json(value)
        if problem:
            return ToolCall(name=name, error=f"pythonic: argument {kw.arg!r} of {name!r}: {problem}")
        arguments[kw.arg] = value
    return ToolCall(name=name, arguments=arguments)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _not_json(value: Any) -> str | None:
    """Why a literal has no JSON form (bytes, sets, tuples, complex, non-finite numbers), or None."""
    if value is None or isinstance(value, (bool, str, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value!r} is no JSON number"
    if isinstance(value, list):
        return next((p for p in map(_not_json, value) if p), None)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return "a dict key is no string"
        return next((p for p in map(_not_json, value.values()) if p), None)
    return f"a {type(value).__name__} has no JSON form"


class PythonicStrategy(MarkedTextStrategy):
    """Pythonic call lists in plain text: a text strategy (it claims ``str``). It offers no
    ``render``: Python's grammar cannot write every name or argument key a call may have."""

    name = "pythonic"
    grammar = PythonicGrammar()
    render = None  # type: ignore[assignment]
