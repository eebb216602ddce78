"""Fixed examples: the inputs a check's documentation promises to catch, run in every profile.

The hypothesis checks (ROUNDTRIP-001/002, NAME-002, PREFIX-002, SPLIT-003, NOISE-002) draw
random inputs; how many depends on the profile (``ci`` 15, ``dev`` 40, ``thorough`` 400).
A bug class the docs name (docs/authoring.md, docs/invariants.md: "a strategy that trims
strings fails ROUNDTRIP-002") must not wait for the profile's luck, so each check runs the
examples built here first, before any random value, in every profile.

``CLASSES`` names each documented class of input and where the docs promise it. ``CALLS``
holds the fixed calls, one entry per shape, each saying which classes it covers; the
builders below shape them for each check's hypothesis strategy, for the format at hand (its
own delimiters, whether its wire carries ids and leading text) through the same descriptor
machinery the random inputs use, so every example is a stream the format's descriptor
allows. No format is named here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..corpus_tools.corpus import Descriptor
from ..reference.accumulator import copy_tree
from ..reference.protocol import ToolCall
from .generators import (Derived, char_split, delta_sites, empty_allowed, join, noise_level, noise_slots, split_chunk,
                         weakest)
from .synthesize import Synthesized, native_delimiters, render_delimiters, synthesize, template_ids

__all__ = [
    "CALLS",
    "CLASSES",
    "RECHUNK_CLASSES",
    "CallExample",
    "call_examples",
    "native_examples",
    "noise_examples",
    "rechunk_examples",
    "rendered_examples",
    "text_carriage_examples",
]

# class id -> the documented promise it keeps (where the docs make it)
CLASSES: dict[str, str] = {
    "spaced-strings": "string values (and keys) with white space at both ends: ROUNDTRIP-002 fails 'a strategy "
                      "that trims strings' (docs/authoring.md); 'white space at a string's ends' (ROUNDTRIP-002)",
    "wire-delimiters": "string values and keys spelling the format's own delimiters (JSON quote and backslash, "
                       "SSE '\\n\\n' and 'data: ', the noise strings such as [DONE], a text codec's tags and "
                       "keys): 'a value spelling the wire's own delimiters' (ROUNDTRIP-002), 'strings holding the "
                       "wire's own delimiters' (docs/authoring.md)",
    "non-bmp": "unicode outside the BMP in values, keys, names and ids, escaped as surrogate pairs and written as "
               "is: 'a codec that ... loses calls with unicode' (ROUNDTRIP-001); 'unicode names' (NAME-002)",
    "empty-strings": "empty string values and an empty key: 'nested, empty and null values' (docs/authoring.md)",
    "empty-arguments": "a call with no arguments ({}): 'loses calls with ... empty arguments' (ROUNDTRIP-001)",
    "nested-empty": "{} and [] nested inside arguments: 'loses calls with unicode, nesting or empty arguments' "
                    "(ROUNDTRIP-001); 'nested, empty and null values' (docs/authoring.md)",
    "null-values": "null values: 'nested, empty and null values' (docs/authoring.md)",
    "name-spelling": "names with dots, dashes and unicode: 'names of any spelling (unicode, dots, escapes cut in "
                     "half) must grow' (NAME-002); 'unicode names, names with dots' (docs/authoring.md)",
    "re-keyed-calls": "several calls of one name with other arguments and their own ids, in order: a strategy "
                      "that 're-keys calls' fails ROUNDTRIP-002 (docs/authoring.md); ids where the rendering "
                      "shows them (ROUNDTRIP-001)",
    "leading-text": "text written before the calls, with white space at its ends and delimiters inside: "
                    "'content_text the text written before them' (ROUNDTRIP-002, docs/authoring.md)",
    "partial-arguments": "the arguments' JSON text a character a delta (so escapes such as \\\" and "
                         "\\uD83D\\uDE00 are cut in half), and whole in one delta: a strategy that 'parses "
                         "arguments before they are whole' fails ROUNDTRIP-002 (docs/authoring.md); 'escapes cut "
                         "in half' (ROUNDTRIP-002, NAME-002); 'a whole call can arrive in one delta' (SPLIT-002)",
    "every-prefix": "a rendered text cut at every character: 'text codecs see every prefix of the model's "
                    "output while it streams' (PREFIX-002)",
}

# the classes of a recorded stream's re-chunking (SPLIT-003) and noise (NOISE-002)
RECHUNK_CLASSES: dict[str, str] = {
    "shifted-cuts": "every delta cut at its middle and each cut-off tail merged with the next chunk's head, so "
                    "chunk boundaries fall where no recording and no SPLIT-001/002 stream puts them: 'the "
                    "combinations of cut points a fixed test never tries' (SPLIT-003)",
    "empty-pieces": "an empty piece before and after every delta whose field allows empty pieces (SPLIT-003)",
    "noise-burst": "every binding noise item of the format inserted at once, at its earliest and at its latest "
                   "place: 'noise arrives in bursts and combinations' (NOISE-002)",
}


@dataclass(frozen=True)
class CallExample:
    """A fixed list of calls: the classes it covers, why it is shaped so, and how to build it
    for a format whose values may spell ``delimiters`` (the format's own); ``text`` is the
    leading text a native wire with a text part writes before the calls (None: no text)."""

    name: str
    covers: tuple[str, ...]
    doc: str
    build: Callable[[Sequence[str]], list[ToolCall]]
    text: str | None = None
    ascii: bool = True  # spell the arguments with \\u escapes (True) or unicode as is


def _spaced(delimiters: Sequence[str]) -> list[ToolCall]:
    return [ToolCall("read_file", {
        " path ": " \t/tmp/x y\n",
        "blank": "  ",
        "newline": "last line\n",
        "wide": "\u00a0wide spaces\u3000",
        "crlf": "\r\nwindows\r\n",
        "items": [" a ", "\tb\t"],
        "inner": {"k": " v "},
    }, id="call_spaced")]


def _delimited(delimiters: Sequence[str]) -> list[ToolCall]:
    ds = [d for d in dict.fromkeys(delimiters) if d]
    return [ToolCall("ns.search-v2", {
        "inside": [f"a{d}b" for d in ds],
        "whole": list(ds),
        "keys": {d: i for i, d in enumerate(ds)},
        "path": "C:\\tmp\\x \"quoted\"",
    }, id="call_delims")]


def _unicode(delimiters: Sequence[str]) -> list[ToolCall]:
    return [ToolCall("ns.tool-\u540d\u524d_\U0001d4bb", {
        "\U0001f600": "smile \U0001f600 e\u0301 \U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001d11e",
        "cjk": "\u65e5\u672c\u8a9e",
        "astral": ["\U00010348", "\U0001f4a9\U0001f4a9"],
    }, id="call_\U0001f600")]


def _empty(delimiters: Sequence[str]) -> list[ToolCall]:
    return [ToolCall("empty.values", {
        "": "",
        "blank": "",
        "obj": {},
        "list": [],
        "none": None,
        "nested": {"a": {"b": [], "c": {}}, "d": [[], {}, [{}], ""], "e": {"": None}},
    }, id="call_empty")]


def _same_name(delimiters: Sequence[str]) -> list[ToolCall]:
    return [ToolCall("get", {}, id="call_a"),
            ToolCall("get", {"n": 1}, id="call_b"),
            ToolCall("get", {"n": 2, "s": " x "}, id="call_c")]


CALLS: tuple[CallExample, ...] = (
    CallExample("spaced", ("spaced-strings", "leading-text"),
                "white space of every kind (space, tab, newline, CRLF, no-break, ideographic) at both ends of "
                "values and a key, nested too; the leading text spaced the same way",
                _spaced, text=" \n  leading text\t \n"),
    CallExample("delimiters", ("wire-delimiters", "leading-text"),
                "each of the format's delimiters inside a value, as a whole value and as a key; leading "
                "text holding SSE framing, a quote and a backslash",
                _delimited, text='say "hi"\\ data: [DONE]\n\n'),
    CallExample("unicode", ("non-bmp", "name-spelling"),
                "characters outside the BMP in a name (with a dot and a dash), a key, values and an id, "
                "spelled as \\u surrogate pairs (which a character-level cut splits)",
                _unicode),
    CallExample("unicode-raw", ("non-bmp",),
                "the same calls with their unicode written as is (multi-byte characters cut apart)",
                _unicode, ascii=False),
    CallExample("empty", ("empty-strings", "nested-empty", "null-values"),
                "an empty key, empty strings, {} and [] nested at several depths, null values",
                _empty),
    CallExample("same-name", ("re-keyed-calls", "empty-arguments"),
                "three calls of one name (the first with no arguments), each its own id, in order",
                _same_name),
)


def call_examples(delimiters: Iterable[str] = (), ids: bool = True) -> list[tuple[CallExample, list[ToolCall]]]:
    """Each fixed example with its calls built for a format with these ``delimiters``;
    without ``ids``, the calls carry none."""
    ds = tuple(delimiters)
    out = []
    for ex in CALLS:
        calls = ex.build(ds)
        out.append((ex, calls if ids else [replace(c, id=None) for c in calls]))
    return out


def _spelled(calls: list[ToolCall], ascii: bool) -> list[str]:
    if ascii:
        return [json.dumps(c.arguments) for c in calls]
    return [json.dumps(c.arguments, separators=(",", ":"), ensure_ascii=False) for c in calls]


def native_examples(descriptor: Descriptor) -> list[Synthesized]:
    """The fixed calls written into a native wire through its ``call_channel`` (ROUNDTRIP-002,
    NAME-002), each as written (every call's arguments whole in one delta) and with every
    delta cut at every character; ids where the wire carries them, the leading text where it
    has a text part."""
    ids = template_ids(descriptor)
    has_text = "text" in (descriptor.call_channel or {})
    out = []
    for ex, calls in call_examples(native_delimiters(descriptor), ids=ids):
        text = ex.text if has_text else None
        stream = synthesize(calls, descriptor, text, _spelled(calls, ex.ascii))
        head = [f"fixed example {ex.name!r}: {ex.doc}"]
        whole = Derived(stream, recipe=head + stream.recipe + ["written as is"])
        cut = char_split(list(stream), descriptor)
        cut = Derived(cut, recipe=head + stream.recipe + ["every delta cut at every character"])
        out += [Synthesized(calls, text, whole, ids), Synthesized(calls, text, cut, ids)]
    return out


def rendered_examples(render: Callable[[list[ToolCall]], str], ids: bool = False) -> list[list[ToolCall]]:
    """The fixed calls for a text format (PREFIX-002, NAME-002 on a rendered text), with the
    delimiters its ``render`` writes."""
    return [calls for _, calls in call_examples(render_delimiters(render), ids=ids)]


def text_carriage_examples(render: Callable[[list[ToolCall]], str], formats: Iterable[str]) -> list[tuple[list, str, list[str]]]:
    """ROUNDTRIP-001 scenarios: the fixed calls (with ids) rendered, carried over each wire
    format of ``formats``, in one piece and a character a piece."""
    out = []
    for calls in rendered_examples(render, ids=True):
        text = render(calls)
        for fmt in formats:
            out.append((calls, fmt, [text]))
            out.append((calls, fmt, list(text)))
    return out


# -- recorded streams: re-chunking and noise ----------------------------------------------------------

def _halves(chunk: Any, descriptor: Descriptor) -> list[Any]:
    """The chunk's first delta longer than one character cut at its middle."""
    sites = [s for s in delta_sites(chunk, descriptor) if len(s[1]) > 1]
    if not sites:
        return [chunk]
    path, text = sites[0]
    return split_chunk(chunk, descriptor, path, [len(text) // 2])


def _shifted(chunks: list[Any], descriptor: Descriptor) -> Derived:
    """Every chunk's first long delta cut at its middle, and each tail merged with the next
    chunk's head where the two can be joined: the boundaries move into the deltas."""
    out: list[Any] = []
    recipe = []
    for i, chunk in enumerate(chunks):
        pieces = _halves(chunk, descriptor)
        if len(pieces) > 1:
            recipe.append(f"chunk {i}: first long delta cut at its middle")
        if out and len(pieces) > 1:
            together, _ = join(out[-1], pieces[0], descriptor)
            if together is not None:
                out[-1] = together
                recipe.append(f"chunk {i}'s head merged into the tail before")
                pieces = pieces[1:]
        out.extend(pieces)
    return Derived(out, recipe=recipe)


def _with_empty_pieces(chunks: list[Any], descriptor: Descriptor) -> Derived:
    """An empty piece before and after each chunk's first delta whose field allows them."""
    out: list[Any] = []
    recipe = []
    for i, chunk in enumerate(chunks):
        sites = [s for s in delta_sites(chunk, descriptor) if s[1] and empty_allowed(chunk, descriptor, s[0])]
        if not sites:
            out.append(chunk)
            continue
        path, text = sites[0]
        out.extend(split_chunk(chunk, descriptor, path, [0, len(text)]))
        recipe.append(f"chunk {i}: empty pieces before and after its delta")
    return Derived(out, recipe=recipe)


def rechunk_examples(chunks: list[Any], descriptor: Descriptor) -> list[Derived]:
    """SPLIT-003's fixed re-chunkings of a recorded stream (``RECHUNK_CLASSES``): shifted
    cuts, and empty pieces where a delta allows them; only those that change the stream."""
    made = [_shifted(chunks, descriptor), _with_empty_pieces(chunks, descriptor)]
    for d, name in zip(made, ("shifted-cuts", "empty-pieces")):
        d.recipe.insert(0, f"fixed example {name!r}")
    return [d for d in made if list(d) != list(chunks)]


def noise_examples(chunks: list[Any], descriptor: Descriptor, done_index: int | None,
                   levels: Iterable[str]) -> list[Derived]:
    """NOISE-002's fixed bursts: every noise item of the given ``levels`` inserted at once, each
    at its earliest place, and all together at their latest (the end of the stream); the
    result's ``level`` is the weakest item's, as for a random insertion."""
    levels, n = tuple(levels), len(chunks)
    noise = [item for item in descriptor.noise if noise_level(item) in levels and noise_slots(item, n, done_index)]
    if not noise:
        return []
    level = weakest(noise_level(i) for i in noise)
    early = list(chunks)
    # insert from the latest slot down, so each earlier slot still means the same place
    for item in sorted(noise, key=lambda i: -noise_slots(i, n, done_index).start):
        early.insert(noise_slots(item, n, done_index).start, copy_tree(item["chunk"]))
    late = list(chunks) + [copy_tree(i["chunk"]) for i in noise]
    desc = ", ".join(repr(i.get("description", "")) for i in noise)
    return [Derived(early, level=level, recipe=[f"fixed example 'noise-burst': {desc}, each at its earliest place"]),
            Derived(late, level=level, recipe=[f"fixed example 'noise-burst': {desc}, together at the end"])]
