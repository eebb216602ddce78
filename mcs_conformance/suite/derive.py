"""Streams derived from recorded ones by changing what they say: cut, cut with a cut
completion, and spliced.

Everything here is driven by the format's descriptor (docs/descriptors.md): ``roles`` says
which chunks are the stream's head, body and completion; ``cut`` how a completion says the
output was cut (a length limit, a content filter); ``splice`` which integer positions of a
second stream count on from the first's, which of its string ids must be made unique,
which counters are renumbered, which lists of a final snapshot hold both streams' entries,
and which keys end a turn (a completion chunk of the first stream that also carries content,
the last text or a whole call, keeps it without them). No format is named here. Every derived stream is a :class:`~.generators.Derived`
whose ``recipe`` says how it was made, so a failure on it can be reproduced and saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..reference.accumulator import copy_tree
from ..corpus_tools.corpus import Descriptor
from .generators import Derived
from .json_patterns import find, matches

__all__ = [
    "Spliced",
    "agreed",
    "cut_completions",
    "cut_points",
    "end_rules",
    "kept_completion",
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


def shift_offset(first: list[Any], pattern: list[Any]) -> int:
    """How far a splice raises the positions ``pattern`` selects in the second turn: one more
    than the largest integer it selects in ``first`` (0 when it selects none). Each ``shift``
    pattern has its own offset: a block index and an output index count apart."""
    taken = [v for chunk in first for _, v in find(chunk, pattern) if isinstance(v, int) and not isinstance(v, bool)]
    return max(taken) + 1 if taken else 0


def splice(first: list[Any], second: list[Any], descriptor: Descriptor, names: tuple[str, str] = ("A", "B")) -> Spliced:
    """The content of ``first`` placed before the content of ``second``: the head and body of
    the first, the content its completion chunks carry beside their end keys
    (:func:`kept_completion`), the body of the second (its positions shifted past the first's,
    its ids made unique, the keys that name the turn taken from the first), then the second's
    completion (its snapshot lists holding the first's entries too). On a string wire, the two
    texts one after the other."""
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
        offset = shift_offset(first, pattern)
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
    kept = kept_completion(first, descriptor)
    for i, keys in kept:
        recipe.append(f"completion chunk {i} of {names[0]} kept without its end keys ({', '.join(keys)}): it carries "
                      f"content beside them")
    out = [copy_tree(c) for c in first[:ca]] + [_without_end_keys(first[i], descriptor)[0] for i, _ in kept] + tail
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


def end_rules(descriptor: Descriptor) -> list[dict[str, Any]]:
    """The keys that end a turn in a completion chunk, as ``{"at": pattern or None, "keys":
    [...]}``: ``splice.end_keys`` when the descriptor declares it, else its ``terminal`` keys
    that have no ``fill`` value at the same ``at`` (a fill value marks a continuation, such as
    Gemini's ``willContinue``, not the turn's end). ``at`` None (a bare terminal key) is the key
    in every dict of the chunk."""
    declared = (descriptor.data.get("splice") or {}).get("end_keys")
    if declared is not None:
        return [{"at": r["at"], "keys": list(r["keys"])} for r in declared]
    out = []
    for rule in descriptor.terminal_rules:
        filled = {k for f in descriptor.fill if rule["at"] is not None and f["at"] == rule["at"] for k in f["set"]}
        keys = [k for k in rule["keys"] if k not in filled]
        if keys:
            out.append({"at": rule["at"], "keys": keys})
    return out


def kept_completion(chunks: list[Any], descriptor: Descriptor) -> list[tuple[int, list[str]]]:
    """``(i, end keys)`` for every completion chunk ``chunks[i]`` that a splice keeps when the
    stream comes first: one that holds an end key (:func:`end_rules`) and, beside it, content
    (a non-empty value, other than a routing, last-value-wins or end key, in a dict that holds
    a declared delta: a Gemini part, an OpenAI choice's delta, an Ollama message). On Gemini the
    chunk with ``finishReason`` often carries the last text or a whole call; dropping it would
    drop them. The other completion chunks (a bare finish, the usage chunk, the done line) are
    the turn's end and are left out."""
    if descriptor.chunk_kind == "string":
        return []
    _, c = parts(chunks, descriptor)
    out = []
    for i in range(c, len(chunks)):
        stripped, keys = _without_end_keys(chunks[i], descriptor)
        if keys and _carries_content(stripped, descriptor):
            out.append((i, keys))
    return out


def _without_end_keys(chunk: Any, descriptor: Descriptor) -> tuple[Any, list[str]]:
    """A copy of the chunk without its end keys, and the names of those it held."""
    chunk = copy_tree(chunk)
    taken: list[str] = []
    for rule in end_rules(descriptor):
        nodes = [n for _, n in find(chunk, rule["at"])] if rule["at"] is not None else list(_dicts(chunk))
        for node in nodes:
            if isinstance(node, dict):
                for key in rule["keys"]:
                    if key in node:
                        del node[key]
                        taken.append(key)
    return chunk, list(dict.fromkeys(taken))


def _dicts(tree: Any) -> Any:
    if isinstance(tree, dict):
        yield tree
        for v in tree.values():
            yield from _dicts(v)
    elif isinstance(tree, list):
        for v in tree:
            yield from _dicts(v)


def _carries_content(chunk: Any, descriptor: Descriptor) -> bool:
    """Does a dict that holds a declared delta hold a non-empty value other than its routing
    and last-value-wins keys?"""
    for pattern in descriptor.deltas:
        for path, node in find(chunk, pattern[:-1]):
            if not isinstance(node, dict):
                continue
            skip = _keys_at(chunk, descriptor.routing_rules, path) | _keys_at(
                chunk, descriptor.data.get("last_value_wins", []), path)
            if any(not _empty(v) for k, v in node.items() if k not in skip):
                return True
    return False


def _keys_at(chunk: Any, rules: list[dict[str, Any]], path: tuple) -> set[str]:
    return {k for r in rules if r["at"] is None or matches(chunk, r["at"], path) for k in r["keys"]}


def _empty(value: Any) -> bool:
    """Null, an empty string, or a list or dict of such values only."""
    if isinstance(value, dict):
        return all(_empty(v) for v in value.values())
    if isinstance(value, list):
        return all(_empty(v) for v in value)
    return value is None or value == ""


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
