"""Streams derived from recorded ones by changing what they say: cut, cut with a cut
completion, and spliced.

Everything here is driven by the format's descriptor (docs/descriptors.md): ``roles`` says
which chunks are the stream's head, body and completion; ``cut`` how a completion says the
output was cut (a length limit, a content filter); ``splice`` which integer positions of a
second stream count on from the first's, which of its string ids must be made unique,
which counters are renumbered and which lists of a final snapshot hold both streams'
entries. No format is named here. Every derived stream is a :class:`~.generators.Derived`
whose ``recipe`` says how it was made, so a failure on it can be reproduced and saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..reference.accumulator import copy_tree
from ..corpus_tools.corpus import Descriptor
from .generators import Derived
from .json_patterns import find

__all__ = [
    "Spliced",
    "agreed",
    "cut_completions",
    "cut_points",
    "from_public_source",
    "parts",
    "pattern_text",
    "splice",
    "splice_pairs",
    "spliced_calls",
    "text_only",
    "with_calls",
    "with_cut_completion",
]

_MAX_CUTS = 24  # cut points tried per stream: every chunk up to this many, else evenly spread


def _matches(schema: Any, chunk: Any) -> bool:
    if not schema:
        return False
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema).is_valid(chunk)


def parts(chunks: list[Any], descriptor: Descriptor) -> tuple[int, int]:
    """``(h, c)``: ``chunks[:h]`` is the head, ``chunks[h:c]`` the body, ``chunks[c:]`` the
    completion (``c == len(chunks)`` when no chunk matches ``roles.completion``)."""
    roles = descriptor.data.get("roles") or {}
    h = 0
    while h < len(chunks) and _matches(roles.get("head"), chunks[h]):
        h += 1
    c = next((i for i in range(h, len(chunks)) if _matches(roles.get("completion"), chunks[i])), len(chunks))
    return h, c


def cut_points(chunks: list[Any], descriptor: Descriptor, limit: int = _MAX_CUTS) -> list[int]:
    """Where a stream is cut: after chunk ``i`` for every ``i`` before its completion (at most
    ``limit`` of them, evenly spread, the last one always kept)."""
    _, c = parts(chunks, descriptor)
    points = list(range(c))
    if len(points) <= limit:
        return points
    step = len(points) / limit
    return sorted({points[int(k * step)] for k in range(limit)} | {points[-1]})


def cut_completions(chunks: list[Any], descriptor: Descriptor) -> list[tuple[str, list[Any]]]:
    """``(description, completion)`` for every ``cut`` item of the descriptor: the stream's own
    completion chunks with the item's values set in those that match ``roles.completion``. An
    item that changes nothing there (the stream has no such field) is left out."""
    _, c = parts(chunks, descriptor)
    own = chunks[c:]
    schema = (descriptor.data.get("roles") or {}).get("completion")
    out = []
    for item in descriptor.data.get("cut", []):
        changed = False
        made = []
        for chunk in own:
            chunk = copy_tree(chunk)
            if _matches(schema, chunk):
                for rule in item["set"]:
                    for path, value in find(chunk, rule["path"]):
                        if value != rule["value"]:
                            _put(chunk, path, copy_tree(rule["value"]))
                            changed = True
            made.append(chunk)
        if changed:
            out.append((item["description"], made))
    return out


def with_cut_completion(chunks: list[Any], after: int, description: str, completion: list[Any]) -> Derived:
    """The stream cut after chunk ``after`` and closed with a cut completion."""
    return Derived([copy_tree(c) for c in chunks[: after + 1]] + copy_tree(completion),
                   recipe=[f"cut after chunk {after} of {len(chunks)}", f"closed with the cut completion: {description}"])


def _put(root: Any, path: tuple, value: Any) -> None:
    node = root
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


# -- splicing -------------------------------------------------------------------------------------

@dataclass
class Spliced:
    """A spliced stream, and the ids of the second stream that were renamed to stay unique."""

    chunks: Derived
    renamed: dict[str, str] = field(default_factory=dict)


def splice(first: list[Any], second: list[Any], descriptor: Descriptor, names: tuple[str, str] = ("A", "B")) -> Spliced:
    """The content of ``first`` placed before the content of ``second``: the head and body of
    the first, the body of the second (its positions shifted past the first's, its ids made
    unique, the keys that name the turn taken from the first), then the second's completion
    (its snapshot lists holding the first's entries too). On a string wire, the two texts one
    after the other."""
    recipe = [f"splice: head and body of {names[0]} ({len(first)} chunks), body and completion of {names[1]} "
              f"({len(second)} chunks)"]
    if descriptor.chunk_kind == "string":
        return Spliced(Derived([*first, *second], recipe=recipe))
    rules = descriptor.data.get("splice") or {}
    ha, ca = parts(first, descriptor)
    hb, cb = parts(second, descriptor)
    tail = copy_tree(second[hb:])
    renamed = _unique(first, tail, rules.get("unique", []))
    for pattern in rules.get("shift", []):
        taken = [v for chunk in first for _, v in find(chunk, pattern) if isinstance(v, int) and not isinstance(v, bool)]
        offset = max(taken) + 1 if taken else 0
        if offset:
            for chunk in tail:
                for path, v in find(chunk, pattern):
                    if isinstance(v, int) and not isinstance(v, bool):
                        _put(chunk, path, v + offset)
            recipe.append(f"positions {pattern_text(pattern)} of {names[1]} shifted by {offset}")
    if renamed:
        recipe.append(f"ids of {names[1]} renamed to stay unique: {renamed}")
    for pattern in rules.get("same", []):
        own = next((v for chunk in first for _, v in find(chunk, pattern)), None)
        if own is not None:
            for chunk in tail:
                for path, _ in find(chunk, pattern):
                    _put(chunk, path, copy_tree(own))
    own_completion = first[ca:]
    for pattern in rules.get("concat", []):
        for j, chunk in enumerate(tail):
            if j < cb - hb:
                continue
            for path, value in find(chunk, pattern):
                earlier = next((v for c in own_completion for p, v in find(c, pattern) if p == path), None)
                if isinstance(value, list) and isinstance(earlier, list):
                    _put(chunk, path, copy_tree(earlier) + value)
    out = [copy_tree(c) for c in first[:ca]] + tail
    for pattern in rules.get("renumber", []):
        counter = None
        for chunk in out:
            for path, v in find(chunk, pattern):
                if isinstance(v, int) and not isinstance(v, bool):
                    counter = v if counter is None else counter + 1
                    _put(chunk, path, counter)
        if counter is not None:
            recipe.append(f"counters {pattern_text(pattern)} renumbered in order")
    return Spliced(Derived(out, recipe=recipe), renamed)


def _unique(first: list[Any], tail: list[Any], patterns: list[list[Any]]) -> dict[str, str]:
    """Rename, in ``tail``, every string id a pattern selects that the first stream holds
    too; the same id gets the same new name everywhere. Returns the renaming."""
    taken = {v for p in patterns for chunk in first for _, v in find(chunk, p) if isinstance(v, str) and v}
    renamed: dict[str, str] = {}
    for pattern in patterns:
        for chunk in tail:
            for path, v in find(chunk, pattern):
                if not isinstance(v, str) or not v or v not in taken and v not in renamed:
                    continue
                if v not in renamed:
                    new, n = f"{v}_2", 2
                    while new in taken or new in renamed.values():
                        n += 1
                        new = f"{v}_{n}"
                    renamed[v] = new
                _put(chunk, path, renamed[v])
    return renamed


def pattern_text(pattern: list[Any]) -> str:
    """A path pattern as text (``$.choices[*].delta.tool_calls[*].index``)."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else ("[*]" if p == "*" else f".{p}") for p in pattern
                         if not isinstance(p, dict))


# -- which streams are spliced --------------------------------------------------------------------

def from_public_source(case: Any) -> bool:
    """Is the case a stream taken from a public source (a recording, or a provider's or a
    parser's own example), not one written for this suite? Hand-written cases are edge cases
    on purpose (a call without index, an id on every fragment) whose meaning depends on
    what surrounds them, so no stream is derived from them."""
    return case.provenance.get("source") != "mcs-conformance"


def agreed(case: Any) -> bool:
    """Do the sources read the case alike? A case that lists another accepted answer or lowers
    the level of a part (the official SDK refuses it, or answers otherwise) is no base for a
    derived stream: the derived rule's expectation assumes the one answer every source gives.
    Levels that concern only how another strategy reads the message's text (a leak read by
    the text codec, whose grammar is the reference's) leave the wire's reading alone."""
    if case.expect.get("accept"):
        return False
    levels = case.expect.get("levels") or {}
    read_by_another = case.expect.get("extracted_by") not in (None, case.format)
    return all(read_by_another and part in ("calls", "extracted_by", "via_backup") for part in levels)


def _finished(case: Any, descriptor: Descriptor) -> bool:
    """A stream case from a public source, read alike by every source, that ends as the
    provider ends a turn: no error, and its completion signal arrived (any end, on a wire
    without a signal)."""
    return (case.is_stream and case.raises is None and len(case.chunks) > 0 and from_public_source(case)
            and agreed(case) and (case.expect.get("done") is True or not descriptor.data.get("done")))


def with_calls(case: Any, descriptor: Descriptor, strategy: str) -> bool:
    """A finished stream whose calls the strategy reads from the message itself, every one
    executable: the calls a splice must keep."""
    calls = case.expect.get("calls", [])
    return (_finished(case, descriptor) and case.expect.get("extracted_by") == strategy
            and not case.expect.get("via_backup") and bool(calls) and not any(c.get("error") for c in calls))


def text_only(case: Any, descriptor: Descriptor) -> bool:
    """A finished stream with text and no call: the text a splice puts beside calls."""
    return _finished(case, descriptor) and not case.expect.get("calls") and bool(case.expect.get("content_text"))


def splice_pairs(case: Any, cases: list[Any], descriptor: Descriptor, strategy: str) -> list[tuple[Any, Any]]:
    """The (first, second) pairs spliced for ``case`` (a stream :func:`with_calls`), at most
    three, chosen by id order (the next cases after it, wrapping around): the case before the
    next one with calls (itself when it is the only one), before the next text-only one, and
    after it."""
    ordered = sorted((c for c in cases if c.format == case.format), key=lambda c: c.id)
    at = next(i for i, c in enumerate(ordered) if c.id == case.id)
    after = ordered[at + 1:] + ordered[: at + 1]
    pairs = []
    calls = next((c for c in after if with_calls(c, descriptor, strategy)), None)
    if calls is not None:
        pairs.append((case, calls))
    text = next((c for c in after if text_only(c, descriptor)), None)
    if text is not None:
        pairs += [(case, text), (text, case)]
    return pairs


def spliced_calls(first: Any, second: Any, renamed: dict[str, str]) -> list[dict[str, Any]]:
    """The calls a splice must give: the first case's, then the second's under their new ids."""
    out = [dict(c) for c in first.expect.get("calls", [])]
    for c in second.expect.get("calls", []):
        c = dict(c)
        if isinstance(c.get("id"), str):
            c["id"] = renamed.get(c["id"], c["id"])
        out.append(c)
    return out
