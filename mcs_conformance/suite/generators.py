"""Hypothesis strategies and plain functions that re-chunk, add noise and synthesize streams.

Everything here is driven by a format descriptor (corpus/descriptors/*.json; every field is
documented in docs/descriptors.md): which fields are concatenable deltas, which keys route a
piece at which node of a delta's path (kept on every piece), which end a chunk's job (moved to
the last piece), which values the other pieces get instead of the chunk's own (a continuation
marker, an empty list the wire requires), what noise may be inserted and how text rides in the
format's text channel. No format is named here.

A split keeps the order of everything in the chunk: what precedes the delta (earlier list
entries, earlier keys of each dict along its path) stays on the first piece, what follows it
goes with the last piece. A merge joins a delta to the one before only when nothing of either
chunk moves past the other's text or is lost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from ..reference.accumulator import copy_tree
from ..corpus_tools.corpus import Descriptor
from .json_patterns import Path, doc_order, find, get, matches
from ..reference.protocol import ToolCall
from ..corpus_tools.schemas import json_path

__all__ = [
    "LEVELS",
    "Derived",
    "Node",
    "call_strings",
    "carry_text",
    "char_split",
    "delta_sites",
    "empty_allowed",
    "join",
    "json_values",
    "merged",
    "noise_level",
    "noise_slots",
    "rechunked",
    "split_chunk",
    "split_nodes",
    "tool_calls",
    "weakest",
    "with_noise",
]

LEVELS = ("must", "should", "reference")  # strongest first


def weakest(levels: Iterable[str]) -> str:
    """The least binding of ``levels`` (``must`` when there are none): a stream made with a
    ``reference`` noise item holds its expectation only at ``reference`` level."""
    return max(levels, key=LEVELS.index, default="must")


class Derived(list):
    """A generated stream: the chunks (it is a list), the ``level`` at which "same result as
    the source stream" holds for it, and the ``recipe`` that made it, one step a line."""

    def __init__(self, chunks: Iterable[Any] = (), *, level: str = "must", recipe: Iterable[str] = ()) -> None:
        super().__init__(chunks)
        self.level = level
        self.recipe = list(recipe)


# -- where the deltas are, and what each node along their path keeps -----------------------------

def delta_sites(chunk: Any, descriptor: Descriptor) -> list[tuple[Path, str]]:
    """The concrete paths in ``chunk`` that hold a concatenable delta string, in document order."""
    if descriptor.chunk_kind == "string":
        return [((), chunk)] if isinstance(chunk, str) else []
    found: dict[Path, str] = {}
    for pattern in descriptor.deltas:
        for path, value in find(chunk, pattern):
            if isinstance(value, str):
                found.setdefault(path, value)
    return sorted(found.items(), key=lambda site: doc_order(chunk, site[0]))


def empty_allowed(chunk: Any, descriptor: Descriptor, path: Path) -> bool:
    """May a re-chunking give the delta at ``path`` an empty piece (its ``empty`` flag)?"""
    for item in descriptor.data.get("deltas", []):
        if item.get("empty") and (descriptor.chunk_kind == "string" or matches(chunk, item["path"], path)):
            return True
    return False


@dataclass(frozen=True)
class Node:
    """The keys a split treats apart at one dict along a delta's path: ``routing`` keys go on
    every piece, ``terminal`` keys on the last piece only; a key with a ``fill`` value gets it
    on every piece that does not get the chunk's own value (for a terminal key, every piece
    but the last, even when the chunk lacks the key: a continuation marker)."""

    path: Path
    routing: frozenset[str] = frozenset()
    terminal: frozenset[str] = frozenset()
    fill: dict[str, Any] = field(default_factory=dict)
    last: frozenset[str] = frozenset()  # last-value-wins keys: a merge takes the second chunk's value

    def role(self, key: str) -> str:
        """``terminal``, ``routing`` (in that precedence) or ``other``."""
        if key in self.terminal:
            return "terminal"
        return "routing" if key in self.routing else "other"

    def filler(self, key: str, value: Any) -> bool:
        """Is ``value`` this node's fill value for ``key`` (it carries nothing of its own)?"""
        return key in self.fill and value == self.fill[key]


_NO_ROLES = Node(())


def split_nodes(chunk: Any, descriptor: Descriptor, path: Path) -> list[Node]:
    """The dicts along ``path`` (the chunk itself first), each with the keys its rules name.

    A rule applies to a node when its ``at`` pattern selects that node; a rule without ``at``
    (the flat form, a bare key) applies to every node of the path.
    """
    out = []
    node: Any = chunk
    for i in range(len(path)):
        prefix = path[:i]
        if isinstance(node, dict):

            def here(rule: dict[str, Any]) -> bool:
                return rule["at"] is None or matches(chunk, rule["at"], prefix)

            fill: dict[str, Any] = {}
            for rule in descriptor.fill:
                if matches(chunk, rule["at"], prefix):
                    fill.update(rule["set"])
            out.append(Node(
                prefix,
                routing=frozenset(k for r in descriptor.routing_rules if here(r) for k in r["keys"]),
                terminal=frozenset(k for r in descriptor.terminal_rules if here(r) for k in r["keys"]),
                fill=fill,
                last=frozenset(k for r in descriptor.data.get("last_value_wins", []) if matches(chunk, r["at"], prefix)
                               for k in r["keys"]),
            ))
        node = node[path[i]]
    return out


# -- splitting ------------------------------------------------------------------------------------

def split_chunk(chunk: Any, descriptor: Descriptor, path: Path, cuts: list[int]) -> list[Any]:
    """Split the delta at ``path`` at the given character offsets into several chunks.

    ``cuts`` are sorted offsets; equal offsets, 0 or the text's length give empty pieces.
    Every piece holds the path to the delta, the routing keys of each node along it and its
    share of the text; the first piece also holds everything that precedes the delta in the
    chunk, the last one everything that follows it and the terminal keys.
    """
    text = chunk if descriptor.chunk_kind == "string" else get(chunk, path)
    bounds = [0, *cuts, len(text)]
    texts = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    if descriptor.chunk_kind == "string":
        return texts
    nodes = {n.path: n for n in split_nodes(chunk, descriptor, path)}
    last = len(texts) - 1
    return [_piece(chunk, path, 0, nodes, t, j == 0, j == last) for j, t in enumerate(texts)]


def _piece(node: Any, path: Path, depth: int, nodes: dict[Path, Node], text: str, first: bool, last: bool) -> Any:
    if depth == len(path):
        return text
    step = path[depth]
    child = _piece(node[step], path, depth + 1, nodes, text, first, last)
    if isinstance(node, list):
        before = [copy_tree(x) for x in node[:step]] if first else []
        after = [copy_tree(x) for x in node[step + 1:]] if last else []
        return [*before, child, *after]
    roles = nodes.get(path[:depth], _NO_ROLES)
    at = list(node).index(step)
    out: dict[Any, Any] = {}
    for i, (k, v) in enumerate(node.items()):
        role = roles.role(k)
        if k == step:
            out[k] = child
        elif role == "routing" or (role == "terminal" and last) or (role == "other" and (first if i < at else last)):
            out[k] = copy_tree(v)
        elif k in roles.fill:
            out[k] = copy_tree(roles.fill[k])
    if not last:  # a continuation marker the chunk itself lacks: every piece but the last says it continues
        out.update({k: copy_tree(v) for k, v in roles.fill.items() if k not in node and k in roles.terminal})
    return out


def char_split(chunks: list[Any], descriptor: Descriptor) -> Derived:
    """Every delta of every chunk split at every character."""
    out: list[Any] = []
    recipe = []
    for i, chunk in enumerate(chunks):
        pieces = _char_pieces(chunk, descriptor)
        if len(pieces) > 1:
            recipe.append(f"chunk {i}: split into {len(pieces)} chunks, one character each")
        out.extend(pieces)
    return Derived(out, recipe=recipe)


def _char_pieces(chunk: Any, descriptor: Descriptor) -> list[Any]:
    """The chunk's first long delta split at every character; the last piece, which holds
    whatever followed that delta, split the same way in turn."""
    sites = [s for s in delta_sites(chunk, descriptor) if len(s[1]) > 1]
    if not sites:
        return [chunk]
    path, text = sites[0]
    pieces = split_chunk(chunk, descriptor, path, list(range(1, len(text))))
    return pieces[:-1] + _char_pieces(pieces[-1], descriptor)


# -- merging --------------------------------------------------------------------------------------

class _Apart(Exception):
    """Why two chunks cannot be merged."""


def join(a: Any, b: Any, descriptor: Descriptor) -> tuple[Any, str]:
    """``(merged, "")`` when ``b``'s delta can be appended to ``a``'s in one chunk; else
    ``(None, why not)``.

    Each chunk must hold exactly one delta, of the same field. The merged chunk is ``a`` with
    the two texts joined and ``b``'s terminal values. Nothing may be lost, doubled or moved
    past the other chunk's text: along the delta's path ``b`` holds only routing keys (equal
    to ``a``'s), terminal keys, nulls, fill values and keys where ``a`` holds only the fill
    value; ``a`` ends nothing (its terminal keys are null, or hold their fill value: it
    continues) and holds nothing after its delta but nulls and fill values. (A value both
    hold is not shared: an accumulator that concatenates every string would see it twice
    before and once after.) A ``last_value_wins`` key may differ, or be on one chunk only:
    the merged chunk holds the second's value where it has one.
    """
    if descriptor.chunk_kind == "string":
        if isinstance(a, str) and isinstance(b, str):
            return a + b, ""
        return None, "not both text chunks"
    sa, sb = delta_sites(a, descriptor), delta_sites(b, descriptor)
    for name, sites in (("the first", sa), ("the second", sb)):
        if len(sites) != 1:
            return None, f"{name} holds {'no delta' if not sites else f'{len(sites)} deltas, not one'}"
    if descriptor.is_done_chunk(a):
        return None, "the first is the completion signal"
    (pa, _), (pb, _) = sa[0], sb[0]
    if len(pa) != len(pb):
        return None, f"different delta fields ({json_path(pa)}, {json_path(pb)})"
    roles = {}
    for n in split_nodes(a, descriptor, pa) + split_nodes(b, descriptor, pb):
        key = len(n.path)
        old = roles.get(key, _NO_ROLES)
        roles[key] = Node(n.path, old.routing | n.routing, old.terminal | n.terminal, {**old.fill, **n.fill},
                          old.last | n.last)
    try:
        return _join(a, b, pa, pb, 0, roles), ""
    except _Apart as why:
        return None, str(why)


def _join(a: Any, b: Any, pa: Path, pb: Path, depth: int, roles: dict[int, Node]) -> Any:
    if depth == len(pa):
        return a + b
    sa, sb = pa[depth], pb[depth]
    where = json_path(pa[:depth])
    if isinstance(a, list) and isinstance(b, list):
        if len(b) != 1:
            raise _Apart(f"the second holds other entries beside its delta in {where}")
        if sa != len(a) - 1:
            raise _Apart(f"the first holds entries after its delta in {where}")
        return [copy_tree(x) for x in a[:-1]] + [_join(a[sa], b[0], pa, pb, depth + 1, roles)]
    if not (isinstance(a, dict) and isinstance(b, dict)) or sa != sb:
        raise _Apart(f"different delta fields ({json_path(pa)}, {json_path(pb)})")
    r = roles.get(depth, _NO_ROLES)
    at = list(a).index(sa)
    out: dict[Any, Any] = {}
    for i, (k, v) in enumerate(a.items()):
        role = r.role(k)
        if k == sa:
            out[k] = _join(v, b[sb], pa, pb, depth + 1, roles)
        elif role == "routing" and k in r.last:
            out[k] = copy_tree(b.get(k, v))  # last value wins: the second's, where it has one
        elif role == "routing":
            if k not in b or b[k] != v:
                raise _Apart(f"routing key {where}.{k} differs ({_short(v)}, then {_short(b.get(k, '(absent)'))})")
            out[k] = copy_tree(v)
        elif role == "terminal":
            if v is not None and not r.filler(k, v):
                raise _Apart(f"the first ends something: {where}.{k} is {_short(v)}")
            if k in b or k not in r.fill:
                out[k] = copy_tree(b.get(k, v))
        elif i > at and v is not None and not r.filler(k, v) and k not in r.last:
            raise _Apart(f"the first holds {where}.{k} after its delta, which would move past the second's text")
        else:
            out[k] = copy_tree(v)
    for k, v in r.fill.items():
        if k in r.terminal and k not in a:
            raise _Apart(f"the first ends something: {where}.{k} is absent, not {_short(v)}")
    for k, v in b.items():
        role = r.role(k)
        if k == sb or (k in a and role != "other"):
            continue
        if k in r.last and role != "terminal":
            out[k] = copy_tree(v)  # last value wins
        elif role == "terminal":
            out[k] = copy_tree(v)
        elif role == "routing":
            raise _Apart(f"routing key {where}.{k} is only on the second")
        elif v is None or r.filler(k, v):
            out.setdefault(k, copy_tree(v))
        elif k in a and r.filler(k, a[k]):
            out[k] = copy_tree(v)  # the first held only the fill value: the second's own value takes its place
        else:
            raise _Apart(f"the second holds {where}.{k} ({_short(v)}), which a merge would drop or double")
    return out


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit // 2]}...{text[-limit // 2:]} ({len(text)} chars)"


def merged(chunks: list[Any], descriptor: Descriptor) -> Derived:
    """Every run of neighbouring chunks whose deltas can be joined (see :func:`join`), merged into one."""
    out: list[Any] = []
    recipe = []
    for i, chunk in enumerate(chunks):
        if out:
            together, _ = join(out[-1], chunk, descriptor)
            if together is not None:
                out[-1] = together
                recipe.append(f"chunk {i} merged into the chunk before")
                continue
        out.append(chunk)
    return Derived(out, recipe=recipe)


@st.composite
def rechunked(draw: st.DrawFn, chunks: list[Any], descriptor: Descriptor) -> Derived:
    """A random re-chunking: some deltas split at random offsets (into empty pieces too, where
    the delta's ``empty`` flag allows), some neighbours merged."""
    out: list[Any] = []
    recipe = []
    for i, chunk in enumerate(chunks):
        sites = [s for s in delta_sites(chunk, descriptor)
                 if len(s[1]) > 1 or (s[1] and empty_allowed(chunk, descriptor, s[0]))]
        pieces = [chunk]
        if sites and draw(st.booleans()):
            path, text = draw(st.sampled_from(sites))
            if empty_allowed(chunk, descriptor, path):
                cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=6)))
            else:
                inner = st.integers(1, len(text) - 1)
                cuts = sorted(draw(st.sets(inner, min_size=1, max_size=min(6, len(text) - 1))))
            pieces = split_chunk(chunk, descriptor, path, cuts)
            recipe.append(f"chunk {i}: {json_path(path)} split at {cuts}")
        for j, piece in enumerate(pieces):
            # merging is the draw hypothesis shrinks away from (towards 0), so a shrunk
            # example keeps the chunks as recorded except where the bug needs them merged
            if out and draw(st.integers(0, 3)) == 3:
                together, _ = join(out[-1], piece, descriptor)
                if together is not None:
                    out[-1] = together
                    recipe.append(f"chunk {i}" + (f" piece {j}" if len(pieces) > 1 else "") + " merged into the one before")
                    continue
            out.append(piece)
    return Derived(out, recipe=recipe)


# -- noise ----------------------------------------------------------------------------------------

def noise_level(item: dict[str, Any]) -> str:
    """The level of a noise item: does a conforming strategy have to ignore it (``must``, the
    default), should it for safety (``should``), or is ignoring it the reference's choice?"""
    return item.get("level", "must")


def noise_slots(item: dict[str, Any], n: int, done_index: int | None) -> range:
    """The places (0..n, before the chunk of that index) where a noise item may go in a
    stream of ``n`` chunks whose completion signal is at ``done_index`` (None: it has none,
    and ``after-done`` items go after its last chunk). An ``end`` item, the wire's
    end-of-stream sentinel, goes after the last chunk only, and nowhere in a stream without
    a completion signal: there it would turn a cut stream into one that ended."""
    position = item.get("position", "after-first")
    if position == "end":
        return range(n, n + 1) if done_index is not None else range(0)
    done_at = done_index if done_index is not None else n - 1
    lo = {"anywhere": 0, "after-first": 1, "after-done": done_at + 1}.get(position, 1)
    return range(min(lo, n), n + 1)


def noise_places(item: dict[str, Any], n: int, done_index: int | None) -> list[int]:
    """The places NOISE-001 tries for a noise item: its first place, the middle of its range
    and the end of the stream (none when the item has no place in this stream)."""
    slots = noise_slots(item, n, done_index)
    return sorted({slots.start, (slots.start + n) // 2, n}) if slots else []


@st.composite
def with_noise(draw: st.DrawFn, chunks: list[Any], descriptor: Descriptor, done_index: int | None,
               levels: Iterable[str] = LEVELS) -> Derived:
    """The stream with noise chunks of the given levels inserted where each may appear; the
    result's ``level`` is the weakest of the items inserted."""
    levels = tuple(levels)
    noise = [item for item in descriptor.noise
             if noise_level(item) in levels and noise_slots(item, len(chunks), done_index)]
    if not noise:
        return Derived(chunks)
    out = list(chunks)
    used, recipe = [], []
    for _ in range(draw(st.integers(1, 6))):
        item = draw(st.sampled_from(noise))
        slots = noise_slots(item, len(out), done_index)
        at = draw(st.integers(slots.start, slots.stop - 1))
        out.insert(at, copy_tree(item["chunk"]))
        used.append(noise_level(item))
        recipe.append(f"noise {item.get('description', '')!r} inserted at {at}")
        if done_index is not None and at <= done_index:
            done_index += 1
    return Derived(out, level=weakest(used), recipe=recipe)


# -- text carriage and synthesized values -----------------------------------------------------------

def carry_text(pieces: list[str], descriptor: Descriptor) -> list[Any]:
    """A stream of the descriptor's wire whose text channel carries ``pieces`` in order.

    In the channel's templates "$TEXT" stands for one piece and "$FULLTEXT" for the whole
    text (for the end events that repeat it, such as a final snapshot).
    """
    channel = descriptor.text_channel
    if channel is None:
        raise ValueError(f"descriptor {descriptor.format!r} has no text_channel")
    full = "".join(pieces)
    out = [_fill(c, "", full) for c in channel.get("start", [])]
    out += [_fill(channel["delta"], p, full) for p in pieces]
    out += [_fill(c, "", full) for c in channel.get("end", [])]
    return out


def _fill(template: Any, text: str, full: str) -> Any:
    """The template with "$TEXT" replaced by this piece and "$FULLTEXT" by the whole text."""
    if template == "$TEXT":
        return text
    if template == "$FULLTEXT":
        return full
    if isinstance(template, dict):
        return {k: _fill(v, text, full) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, text, full) for v in template]
    return template


def json_values(max_leaves: int = 12, strings: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[Any]:
    """Arbitrary JSON values: the junk a strategy must survive. ``strings`` draws the string
    leaves and keys (default: any text)."""
    strings = st.text() if strings is None else strings
    empty = st.just("") | st.just([]) | st.just({})
    scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
               | strings | empty)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=4),
        max_leaves=max_leaves,
    )


_NAME = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N"), include_characters="_-."),
    min_size=1,
    max_size=24,
).filter(lambda n: not n.startswith("."))
_SPACE = st.sampled_from([" ", "  ", "\t", "\n", " \n ", "\u00a0", "\u3000"])


def call_strings(delimiters: Iterable[str] = ()) -> st.SearchStrategy[str]:
    """Argument strings a codec gets wrong: any unicode text, text with leading and trailing
    white space (a strategy that strips loses it), and text holding one of ``delimiters``
    (the format's own closing tag, quotes, escapes, an SSE sentinel) somewhere inside."""
    text = st.text(max_size=10)
    spaced = st.builds(lambda a, t, b: a + t + b, _SPACE, text, _SPACE | st.just(""))
    options = text | spaced
    delimiters = [d for d in delimiters if d]
    if delimiters:
        options |= st.builds(lambda a, d, b: a + d + b, text, st.sampled_from(delimiters), text)
    return options


def tool_calls(max_calls: int = 3, ids: bool = False, delimiters: Iterable[str] = ()) -> st.SearchStrategy[list[ToolCall]]:
    """Arbitrary executable calls: unicode names and values, strings with leading and trailing
    white space or holding one of ``delimiters``, nesting, empty values and empty arguments;
    with ``ids``, some calls carry an id (any non-empty text)."""
    strings = call_strings(tuple(delimiters))
    args = st.dictionaries(strings, json_values(8, strings), max_size=4)
    call_id = st.none() | st.text(min_size=1, max_size=12) if ids else st.none()
    call = st.builds(lambda n, a, i: ToolCall(name=n, arguments=a, id=i), _NAME, args, call_id)
    return st.lists(call, min_size=1, max_size=max_calls)
