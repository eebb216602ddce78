"""Synthesized streams: arbitrary calls written into a native wire through its descriptor.

A descriptor's ``call_channel`` (docs/descriptors.md) says how a wire carries tool calls and
the text before them: chunk templates for the stream's start, the leading text, each call and
the end, with placeholders for a call's position, id, name and arguments. :func:`synthesize`
fills them in; :func:`synthesized_streams` draws calls and text with hypothesis, writes them,
and re-chunks the result with :func:`generators.rechunked`, so the arguments' JSON text (which
sits in a declared delta) is cut anywhere, into empty pieces too where the delta allows.

The stream is one the provider could send for a stream=false message holding exactly these
calls: the project's tests prove it for every bundled format with the official SDK's own
accumulator. No format is named here.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from ..corpus_tools.corpus import Descriptor
from .generators import Derived, rechunked, tool_calls
from .json_patterns import Path, matches
from ..reference.protocol import ToolCall

__all__ = [
    "PLACEHOLDERS",
    "Synthesized",
    "channel_problems",
    "native_delimiters",
    "render_delimiters",
    "synthesize",
    "synthesized_streams",
    "template_ids",
]

PLACEHOLDERS = ("FULLTEXT", "TEXT", "INDEX", "BLOCK", "ID", "NAME", "ARGUMENTS", "ARGS", "ITEMS")
_TOKEN = re.compile(r"\$(" + "|".join(PLACEHOLDERS) + r")(?![A-Za-z0-9_])")
# the characters a native wire's JSON text is made of, and SSE framing: a value holding them
# must come back unchanged however the arguments' text is cut
_JSON_DELIMITERS = ('"', "\\", "{", "}", "[", "]", ",", ":", '"}', '\\"', "\\u0000", "\n", "\r\n", "data: ", "\n\n")


@dataclass(frozen=True)
class Synthesized:
    """A drawn scenario: the calls and leading text written, and the stream (re-chunked)."""

    calls: list[ToolCall]
    text: str | None
    chunks: Derived
    ids: bool  # does the wire carry the calls' ids (the template says $ID)?


def _walk(template: Any) -> list[tuple[Path, str]]:
    """Every string of a template with its path."""
    out: list[tuple[Path, str]] = []

    def go(node: Any, path: Path) -> None:
        if isinstance(node, str):
            out.append((path, node))
        elif isinstance(node, dict):
            for k, v in node.items():
                go(v, (*path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                go(v, (*path, i))

    go(template, ())
    return out


def _uses(template: Any, name: str) -> bool:
    return any(name in _TOKEN.findall(s) for _, s in _walk(template))


def template_ids(descriptor: Descriptor) -> bool:
    """Does the wire carry a call's id (its call template says ``$ID``)?"""
    channel = descriptor.call_channel or {}
    return _uses(channel.get("call"), "ID")


def channel_problems(descriptor: Descriptor) -> list[str]:
    """What is wrong with a descriptor's ``call_channel``: a growing text ($TEXT, $ARGS) that
    no declared delta holds (the re-chunkers would never cut it), a part without the
    placeholder its delta needs, or a call part that writes neither name nor arguments."""
    channel = descriptor.call_channel
    if channel is None:
        return []
    problems = []
    for part, token in (("text", "TEXT"), ("call", "ARGS")):
        spec = channel.get(part)
        if spec is None or "delta" not in spec:
            continue
        delta = spec["delta"]
        sites = [path for path, s in _walk(delta) if s == f"${token}"]
        if not sites:
            problems.append(f"call_channel.{part}.delta has no string that is exactly ${token}")
        for path in sites:
            if descriptor.chunk_kind == "object" and not any(matches(delta, p, path) for p in descriptor.deltas):
                problems.append(f"call_channel.{part}.delta holds ${token} at {list(path)}, which no declared "
                                "delta matches, so no re-chunking would cut it")
    call = channel.get("call", {})
    every = [call.get("start", []), call.get("delta"), call.get("end", [])]
    if not _uses(every, "NAME"):
        problems.append("call_channel.call writes no $NAME")
    if not (_uses(every, "ARGS") or _uses(every, "ARGUMENTS")):
        problems.append("call_channel.call writes neither $ARGS nor $ARGUMENTS")
    return problems


def _fill(template: Any, values: dict[str, Any]) -> Any:
    """The template with its placeholders filled in (one pass: a value is never scanned)."""
    if isinstance(template, str):
        whole = _TOKEN.fullmatch(template)
        if whole and whole.group(1) in values:
            return copy.deepcopy(values[whole.group(1)])

        def text(m: re.Match[str]) -> str:
            value = values.get(m.group(1))
            return m.group(0) if value is None or isinstance(value, (dict, list)) else str(value)

        return _TOKEN.sub(text, template)
    if isinstance(template, dict):
        return {k: _fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, values) for v in template]
    return template


def synthesize(calls: list[ToolCall], descriptor: Descriptor, text: str | None = None,
               arguments_text: list[str] | None = None) -> Derived:
    """The wire stream that carries ``text`` (when not None) and then ``calls``, written
    through the descriptor's ``call_channel``. ``arguments_text`` gives each call's
    arguments as JSON text (default: ``json.dumps``), so callers can vary the spelling."""
    channel = descriptor.call_channel
    if channel is None:
        raise ValueError(f"descriptor {descriptor.format!r} has no call_channel")
    problems = channel_problems(descriptor)
    if problems:
        raise ValueError(f"descriptor {descriptor.format!r}: " + "; ".join(problems))
    if text is not None and "text" not in channel:
        raise ValueError(f"descriptor {descriptor.format!r}: call_channel has no text part for leading text")
    args = arguments_text or [json.dumps(c.arguments) for c in calls]
    shift = 0 if text is None else 1
    out: list[Any] = [_fill(c, {}) for c in channel.get("start", [])]
    items: list[Any] = []
    recipe = []

    def part(spec: dict[str, Any], grow: str, token: str, values: dict[str, Any]) -> None:
        quiet = {**values, token: ""}
        out.extend(_fill(c, quiet) for c in spec.get("start", []))
        if "delta" in spec:
            out.append(_fill(spec["delta"], {**values, token: grow}))
        out.extend(_fill(c, quiet) for c in spec.get("end", []))
        if "item" in spec:
            items.append(_fill(spec["item"], quiet))

    if text is not None:
        part(channel["text"], text, "TEXT", {"FULLTEXT": text, "BLOCK": 0, "INDEX": 0})
        recipe.append(f"leading text {text!r}")
    for i, (call, raw) in enumerate(zip(calls, args)):
        values = {"INDEX": i, "BLOCK": i + shift, "ID": call.id or "", "NAME": call.name,
                  "ARGUMENTS": call.arguments, "FULLTEXT": raw}
        part(channel["call"], raw, "ARGS", values)
        recipe.append(f"call {i}: {call.name!r} id={call.id!r} arguments {raw}")
    out.extend(_fill(c, {"ITEMS": items}) for c in channel.get("end", []))
    return Derived(out, recipe=recipe)


def render_delimiters(render: Callable[[list[ToolCall]], str]) -> list[str]:
    """The text format's own delimiters, taken from its ``render``: every white-space
    separated token of a rendered sample call (an opening and a closing tag, a key with its
    quotes) and the whole rendered call."""
    sample = render([ToolCall("f", {"k": "v"}, id="c1")])
    return list(dict.fromkeys([*sample.split(), sample]))


def native_delimiters(descriptor: Descriptor) -> list[str]:
    """Strings a value may hold that spell the wire's own structure: JSON and SSE delimiters,
    and the noise strings the descriptor lists (an SSE sentinel such as ``[DONE]``)."""
    noise = [n["chunk"] for n in descriptor.noise if isinstance(n.get("chunk"), str)]
    return list(dict.fromkeys([*_JSON_DELIMITERS, *noise]))


def _spellings(arguments: dict[str, Any]) -> st.SearchStrategy[str]:
    """The arguments as JSON text, spelled as providers do: compact or spaced, unicode as is
    or escaped."""
    return st.sampled_from([
        json.dumps(arguments),
        json.dumps(arguments, separators=(",", ":"), ensure_ascii=False),
        json.dumps(arguments, ensure_ascii=False, indent=1),
    ])


@st.composite
def synthesized_streams(draw: st.DrawFn, descriptor: Descriptor, max_calls: int = 3) -> Synthesized:
    """Arbitrary calls (and leading text, where the wire has a text part) written into the
    descriptor's wire and re-chunked at random."""
    ids = template_ids(descriptor)
    calls = draw(tool_calls(max_calls=max_calls, delimiters=native_delimiters(descriptor)))
    if ids:
        wanted = draw(st.lists(st.text(min_size=1, max_size=16).filter(str.strip), min_size=len(calls),
                               max_size=len(calls), unique=True))
        calls = [replace(c, id=i) for c, i in zip(calls, wanted)]
    else:
        calls = [replace(c, id=None) for c in calls]
    has_text = "text" in (descriptor.call_channel or {})
    text = draw(st.none() | st.text(max_size=24)) if has_text else None
    spelled = [draw(_spellings(c.arguments)) for c in calls]
    stream = synthesize(calls, descriptor, text, spelled)
    chunks = draw(rechunked(stream, descriptor))
    chunks = Derived(chunks, recipe=stream.recipe + chunks.recipe)
    return Synthesized(calls, text, chunks, ids)
