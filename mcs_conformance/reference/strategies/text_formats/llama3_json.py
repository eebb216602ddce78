"""Llama 3.x JSON (``llama3-json``): ``{"name": ..., "parameters": {...}}`` as the output.

Meta's Llama 3.1 / 3.2 / 3.3 chat templates ask the model to answer a tool call "in the format
{"name": function name, "parameters": dictionary of argument name and its value}"; the call
is the output itself, or follows ``<|python_tag|>``. vLLM's ``llama3_json`` parser reads
several calls separated by ``;`` (or white space) and takes ``"arguments"`` for
``"parameters"``. Text after the calls is content. Rules and sources: docs/spec.md,
"llama3-json".
"""

from __future__ import annotations

from collections.abc import Sequence

from ...protocol import ToolCall
from ..marked_text import DECODER, EndScanner, Grammar, JsonExtent, MarkedTextStrategy, ToEnd, skip_ws
from ._json_calls import call_from_object, dumps, forming_in

__all__ = ["Llama3JsonGrammar", "Llama3JsonStrategy"]

PYTHON_TAG = "<|python_tag|>"
_WS = " \t\r\n"
_KEYS = ("parameters", "arguments")


class _JsonSequence(EndScanner):
    """JSON objects separated by white space or ``;``; the region ends before the first other
    text after a value. What follows ``<|python_tag|>`` and is no JSON runs to the end."""

    def __init__(self) -> None:
        self.phase, self.json, self.last = "lead", JsonExtent(), 0

    def feed(self, s: str, i: int) -> tuple[int, int | None, int | None]:
        n = len(s)
        while i < n:
            if self.phase == "lead":
                i = skip_ws(s, i)
                if i == n:
                    return i, None, None
                if s[i] != "{":
                    self.phase = "raw"
                    continue
                self.phase, self.json = "json", JsonExtent()
            elif self.phase == "json":
                end = self.json.feed(s, i)
                if end is None:
                    return n, None, None
                i, self.phase = end, "between"
            elif self.phase == "between":
                j = i
                while j < n and (s[j] in _WS or s[j] == ";"):
                    j += 1
                if j == n:
                    return i, None, None  # another call may follow: hold the separator back
                if s[j] == "{":
                    self.phase, self.json, i = "json", JsonExtent(), j
                else:
                    return i, i, i
            else:
                return ToEnd().feed(s, i)
        return i, None, None


class Llama3JsonGrammar(Grammar):
    name = "llama3-json"
    markers = (PYTHON_TAG,)

    def opens_at_start(self, s: str, i: int) -> int | None:
        """The output starts a call when it opens with ``{`` then the key ``"name"`` (or
        ``"type"``, as in ``{"type": "function", "name": ...}``)."""
        k = skip_ws(s, i)
        if k == len(s):
            return None
        if s[k] != "{":
            return -1
        j = skip_ws(s, k + 1)
        head = s[j : j + 6]
        if head in ('"name"', '"type"'):
            return k
        if any(key.startswith(head) for key in ('"name"', '"type"')):
            return None
        return -1

    def end_scanner(self, marker: str) -> EndScanner:
        return _JsonSequence()

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        calls: list[ToolCall] = []
        i, n = 0, len(body)
        while True:
            while i < n and (body[i] in _WS or body[i] == ";"):
                i += 1
            if i == n:
                return calls
            try:
                obj, i = DECODER.raw_decode(body, i)
            except (ValueError, RecursionError) as exc:
                name = forming_in(body[i:]) or ""
                why = "the text ends inside it" if not closed else f"it is no JSON call ({exc})"
                return [*calls, ToolCall(name=name, error=f"llama3-json: a call is cut off or malformed: {why}")]
            call = call_from_object(obj, "llama3-json", _KEYS)
            if call.error is None and not any(k in obj for k in _KEYS):
                call = ToolCall(name=call.name, error='llama3-json: the call object has no "parameters"')
            calls.append(call)

    def forming(self, body: str, marker: str) -> str | None:
        return forming_in(body.lstrip(_WS + ";"))

    def render(self, calls: Sequence[ToolCall]) -> str:
        return "; ".join(dumps({"name": c.name, "parameters": c.arguments}) for c in calls)


class Llama3JsonStrategy(MarkedTextStrategy):
    """Llama 3.x JSON calls in plain text: a text strategy (it claims ``str``)."""

    name = "llama3-json"
    grammar = Llama3JsonGrammar()
