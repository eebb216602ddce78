"""One-bug copies of the reference strategies of the open models' text formats.

Each class takes one format's reference strategy and does one step the naive way, as the
public parsers' histories show it done (BUG-CLASSES rows 10, 11, 19, 24, 25; vllm#45167,
llama.cpp#18183). ``copies(Base)`` makes the seven for one format; ``test_text_formats.py``
runs the bundled cases against each and names the check and case that fail it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.reference.strategies.marked_text import JsonExtent, PythonExtent, Scanner, scan
from mcs_conformance.reference.strategies.text_formats import TEXT_FORMATS
from mcs_conformance.reference.strategies.text_formats._json_calls import call_from_object, read_json
from mcs_conformance.strategies import HermesStrategy

BASES = {s.name: s for s in TEXT_FORMATS}


def _heal(body: str) -> str:
    """The body with its open strings and brackets closed: a lenient parser's repair."""
    stack, quote, escape = [], "", False
    for c in body:
        if quote:
            if escape:
                escape = False
            elif c == "\\":
                escape = True
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "[({":
            stack.append({"[": "]", "(": ")", "{": "}"}[c])
        elif c in "])}" and stack:
            stack.pop()
    return body + quote + "".join(reversed(stack))


class _MarkerSplitNotJoined:
    """The display scans each delta alone: a region whose marker and body arrive in two deltas
    leaks its body into the content (BUG-CLASSES 24: vllm PR #38168, vllm#11392)."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        super().accumulate(acc, chunk)  # type: ignore[misc]
        return Scanner(self.grammar).feed(chunk) if isinstance(chunk, str) else ""  # type: ignore[attr-defined]


class _EndsAtDelimiterInString:
    """A call's text is cut at the first closing delimiter, inside a string too (BUG-CLASSES
    25: vllm#45167, a </tool_call> inside an argument; a value read as ``[^<]*``)."""

    def extract(self, message: object) -> list[ToolCall]:
        text = self._text(message)  # type: ignore[attr-defined]
        out: list[ToolCall] = []
        for region in scan(self.grammar, text)[1]:  # type: ignore[attr-defined]
            body = _cut_at_delimiter(self.name, text[region.body: region.body_end if region.closed else len(text)])  # type: ignore[attr-defined]
            out.extend(self.grammar.parse(body, region.closed, region.marker))  # type: ignore[attr-defined]
        if self.name in ("qwen3-coder", "glm45", "kimi-k2"):  # type: ignore[attr-defined]
            out = [replace(c, arguments=_cut_strings(c.arguments)) for c in out]
        return out


def _cut_at_delimiter(fmt: str, body: str) -> str:
    if fmt == "hermes" and "</tool_call>" in body:
        return body[: body.index("</tool_call>")]
    if fmt in ("llama3-json", "mistral") and "}" in body:
        return body[: body.index("}") + 1]
    if fmt == "pythonic":  # a quote escaped inside a string read as the string's end
        return body.replace("\\'", "'")
    if fmt == "deepseek" and "```json" in body:  # the fenced JSON ends at the next fence, inside a string too
        head, opening, rest = body.partition("```json")
        return head + opening + rest.partition("```")[0] + "```<｜tool▁call▁end｜>"
    return body


def _cut_strings(value: Any) -> Any:
    if isinstance(value, str):
        return value.split("<")[0]
    if isinstance(value, dict):
        return {k: _cut_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_strings(v) for v in value]
    return value


class _CutCallExecuted:
    """An unclosed region (the text ended inside it: a token limit) is repaired and read as a
    finished call (BUG-CLASSES 19: vercel/ai PR #13137)."""

    CLOSERS = {"deepseek": "<｜tool▁call▁end｜>", "kimi-k2": "<|tool_call_end|>",
               "qwen3-coder": "\n</parameter>\n</function>"}

    def extract(self, message: object) -> list[ToolCall]:
        text = self._text(message)  # type: ignore[attr-defined]
        out: list[ToolCall] = []
        for region in scan(self.grammar, text)[1]:  # type: ignore[attr-defined]
            if region.closed:
                body = text[region.body: region.body_end]
            else:
                body = _heal(text[region.body:]) + self.CLOSERS.get(self.name, "")  # type: ignore[attr-defined]
            out.extend(self.grammar.parse(body, True, region.marker))  # type: ignore[attr-defined]
        return out


class _ProseMentionTakenAsCall:
    """Call-shaped text anywhere in the prose is read as a call too: a JSON object with a name
    and arguments, or a call list (llama.cpp#18183: any JSON with a name key taken as a call)."""

    def extract(self, message: object) -> list[ToolCall]:
        calls = super().extract(message)  # type: ignore[misc]
        prose = self.content_text(message)  # type: ignore[attr-defined]
        pythonic = self.name == "pythonic"  # type: ignore[attr-defined]
        for i, c in enumerate(prose):
            if c != ("[" if pythonic else "{"):
                continue
            end = (PythonExtent() if pythonic else JsonExtent()).feed(prose, i)
            if end is None:
                continue
            if pythonic:
                found = self.grammar.parse(prose[i:end], True, "")  # type: ignore[attr-defined]
            else:
                obj, _ = read_json(prose[i:end])
                keys = ("arguments", "parameters")
                found = [call_from_object(obj, self.name, keys)] if isinstance(obj, dict) and "name" in obj else []  # type: ignore[attr-defined]
            found = [c for c in found if c.error is None]
            if found:
                return calls + found
        return calls


class _SecondCallDropped:
    """Only the first call of the text is read (BUG-CLASSES 10, 11)."""

    def extract(self, message: object) -> list[ToolCall]:
        return super().extract(message)[:1]  # type: ignore[misc]


class _ArgumentsTrimmed:
    """String arguments come back with the white space at their ends stripped."""

    def extract(self, message: object) -> list[ToolCall]:
        return [replace(c, arguments=_trimmed(c.arguments)) for c in super().extract(message)]  # type: ignore[misc]


def _trimmed(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return {k: _trimmed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_trimmed(v) for v in value]
    return value


class _ContentBeforeCallLost:
    """The text before the first call is dropped from the display and the content (BUG-CLASSES
    10: litellm#2716)."""

    def accumulate(self, acc: Any, chunk: object) -> str:
        shown = super().accumulate(acc, chunk)  # type: ignore[misc]
        return shown if acc.state["scanner"].regions else ""

    def content_text(self, message: object) -> str:
        prose, regions = scan(self.grammar, self._text(message))  # type: ignore[attr-defined]
        if not regions:
            return prose
        text = self._text(message)  # type: ignore[attr-defined]
        before = len(text[: regions[0].start])
        return prose[before:]


BUGS = {
    "marker-split-not-joined": _MarkerSplitNotJoined,
    "ends-at-delimiter-in-string": _EndsAtDelimiterInString,
    "cut-call-executed": _CutCallExecuted,
    "prose-mention-taken-as-call": _ProseMentionTakenAsCall,
    "second-call-dropped": _SecondCallDropped,
    "arguments-trimmed": _ArgumentsTrimmed,
    "content-before-call-lost": _ContentBeforeCallLost,
}


def broken(fmt: str, bug: str) -> Any:
    """A fresh instance of ``fmt``'s reference strategy with ``bug`` in it."""
    base = BASES[fmt]
    cls = type(f"{base.__name__}_{bug.replace('-', '_')}", (BUGS[bug], base), {"__doc__": BUGS[bug].__doc__})
    return cls()


# for an in-process suite run by module:attr (docs/invariants.md's captured examples)
HermesEndsAtClosingTagInString = type("HermesEndsAtClosingTagInString", (_EndsAtDelimiterInString, HermesStrategy),
                                      {"__doc__": _EndsAtDelimiterInString.__doc__})
__all__ = ["BUGS", "BASES", "HermesEndsAtClosingTagInString", "broken"]
