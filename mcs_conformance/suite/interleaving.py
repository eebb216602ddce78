"""Streams derived from recorded ones by interleaving the fragments of two calls or blocks.

A wire that names, on every fragment, the call or block it adds to (OpenAI Chat's
``tool_calls[].index``, Responses' ``output_index``, Anthropic's event ``index``) lets the
fragments of two open calls arrive in any interleaving: a client must join them by that
name, not by where they arrive. Recordings seldom show it (most providers finish one call
before they start the next), so a strategy that joins a fragment to the call opened last
passes every one of them. This module derives the interleavings from the recordings.

Everything is driven by the descriptor's ``interleave`` field (docs/descriptors.md): ``by``
names the values that together key a chunk to its call or block, ``renumber`` the counters
that must keep counting up in stream order. Only body chunks (``roles``) are moved; every
chunk is kept, each call's own chunks stay in their order, and a call still opens before the
next one, so the message the stream folds to is the same. No format is named here.
"""

from __future__ import annotations

import json
from typing import Any

from ..corpus_tools.corpus import Descriptor
from ..reference.accumulator import copy_tree
from .derive import _matches, parts, pattern_text
from .generators import Derived, delta_sites
from .json_patterns import find, put

__all__ = ["Group", "chunk_key", "groups", "interleaved", "key_text", "pairs"]

_MAX_PAIRS = 3  # pairs of neighbouring calls interleaved per stream

Group = tuple[tuple[str, ...], list[int]]  # (key, positions of its chunks in the stream)


def chunk_key(chunk: Any, descriptor: Descriptor) -> tuple[str, ...] | None:
    """The key of the call or block ``chunk`` adds to: one value per ``interleave.by``
    pattern (as JSON text), or None when a pattern selects no value or several distinct
    ones (the chunk is nobody's, or several calls'), or when the chunk does not match the
    JSON Schema ``interleave.only`` (a wire whose index counts one kind of event apart)."""
    rules = descriptor.data.get("interleave") or {}
    patterns = rules.get("by") or []
    if not patterns or not isinstance(chunk, dict):
        return None
    if rules.get("only") and not _matches(rules["only"], chunk):
        return None
    key = []
    for pattern in patterns:
        seen = {json.dumps(v, sort_keys=True) for _, v in find(chunk, pattern) if v is not None}
        if len(seen) != 1:
            return None
        key.append(seen.pop())
    return tuple(key)


def groups(chunks: list[Any], descriptor: Descriptor) -> list[Group]:
    """The body's chunks grouped by :func:`chunk_key`, each group in stream order, the groups
    in the order their first chunk arrives. Chunks without a key are in no group."""
    h, c = parts(chunks, descriptor)
    out: dict[tuple[str, ...], list[int]] = {}
    for i in range(h, c):
        key = chunk_key(chunks[i], descriptor)
        if key is not None:
            out.setdefault(key, []).append(i)
    return list(out.items())


def pairs(chunks: list[Any], descriptor: Descriptor, limit: int = _MAX_PAIRS) -> list[tuple[Group, Group]]:
    """The pairs of calls interleaved: two that open one after the other (no call opens
    between them, so interleaving keeps the order the calls open in), each with at least
    two chunks, with no chunk between the first's first chunk and the second's last that
    carries a delta but no key (its owner is unknown, so moving the calls around it could
    change what it joins). At most ``limit`` pairs, the first ones."""
    found = groups(chunks, descriptor)
    out = []
    for a, b in zip(found, found[1:]):
        if len(a[1]) < 2 or len(b[1]) < 2:
            continue
        lo, hi = a[1][0], max(a[1][-1], b[1][-1])
        if any(chunk_key(chunks[i], descriptor) is None and _carries_delta(chunks[i], descriptor)
               for i in range(lo, hi + 1)):
            continue
        out.append((a, b))
        if len(out) == limit:
            break
    return out


def _carries_delta(chunk: Any, descriptor: Descriptor) -> bool:
    return any(text for _, text in delta_sites(chunk, descriptor))


def interleaved(chunks: list[Any], descriptor: Descriptor) -> list[Derived]:
    """The interleaved streams of ``chunks``: for every pair of :func:`pairs`, the two calls'
    chunks alternated (a, b, a, b, ...) and nested (the first chunk of a, all of b, the rest of
    a), placed in the positions the two calls' chunks held; every other chunk stays where it
    was. A stream equal to the recorded one is left out. Each carries the level the
    descriptor gives ``interleave`` and a recipe."""
    rules = descriptor.data.get("interleave") or {}
    level = rules.get("level", "must")
    out = []
    for (ka, a), (kb, b) in pairs(chunks, descriptor):
        slots = sorted(a + b)
        alternated = [x for pair in _zip_longest(a, b) for x in pair]
        nested = [a[0], *b, *a[1:]]
        for how, order in (("alternated", alternated), ("nested: the second opened inside the first", nested)):
            if order == slots:
                continue
            moved = {slot: src for slot, src in zip(slots, order)}
            stream = [copy_tree(chunks[moved.get(i, i)]) for i in range(len(chunks))]
            recipe = [f"interleave ({how}): the {len(a)} chunks of {_name(ka, rules)} (chunks {_span(a)}) and the "
                      f"{len(b)} of {_name(kb, rules)} (chunks {_span(b)}), each in its own order",
                      f"chunks {_span(slots)} now hold, in order, the recorded chunks " + (
                          " ".join(str(i) for i in order) if len(order) <= 24 else
                          " ".join(str(i) for i in order[:20]) + f" ... ({len(order) - 20} more)")]
            for pattern in rules.get("renumber", []):
                if _renumber(chunks, stream, pattern):
                    recipe.append(f"counters {pattern_text(pattern)} renumbered in stream order")
            out.append(Derived(stream, level=level, recipe=recipe))
    return out


def _zip_longest(a: list[int], b: list[int]) -> list[list[int]]:
    return [[x for x in (a[i] if i < len(a) else None, b[i] if i < len(b) else None) if x is not None]
            for i in range(max(len(a), len(b)))]


def _renumber(source: list[Any], stream: list[Any], pattern: list[Any]) -> bool:
    """Give the integers ``pattern`` selects in ``stream`` the values it selects in ``source``,
    in stream order: a counter keeps counting up where the chunks moved. True when any
    changed."""
    wanted = [v for chunk in source for _, v in find(chunk, pattern) if _is_int(v)]
    changed = False
    at = iter(wanted)
    for chunk in stream:
        for path, v in list(find(chunk, pattern)):
            if _is_int(v):
                new = next(at)
                if new != v:
                    put(chunk, path, new)
                    changed = True
    return changed


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def key_text(key: tuple[str, ...], descriptor: Descriptor) -> str:
    """A key as text: each ``by`` pattern with its value (``$.index = 1``)."""
    return _name(key, descriptor.data.get("interleave") or {})


def _name(key: tuple[str, ...], rules: dict[str, Any]) -> str:
    return ", ".join(f"{pattern_text(p)} = {v}" for p, v in zip(rules.get("by", []), key))


def _span(positions: list[int]) -> str:
    return ", ".join(str(i) for i in positions) if len(positions) <= 6 else \
        f"{positions[0]}, {positions[1]}, ... {positions[-1]}"
