"""Hypothesis strategies and plain functions that re-chunk, add noise and synthesize streams.

Everything here is driven by a format descriptor (corpus/descriptors/*.json): which fields
are concatenable deltas, which keys route a fragment to its place (kept on every piece),
which keys end a chunk's job (kept for the last piece), what noise may be inserted and how
text rides in the format's text channel. No format is named here.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from .accumulator import copy_tree
from .corpus import Descriptor
from .jsonpaths import Path, find, get, put
from .protocol import ToolCall

__all__ = [
    "carry_text",
    "char_split",
    "delta_sites",
    "json_values",
    "merged",
    "rechunked",
    "split_chunk",
    "tool_calls",
    "with_noise",
]


def delta_sites(chunk: Any, descriptor: Descriptor) -> list[tuple[Path, str]]:
    """The concrete paths in ``chunk`` that hold a concatenable delta string."""
    if descriptor.chunk_kind == "string":
        return [((), chunk)] if isinstance(chunk, str) else []
    sites = []
    for pattern in descriptor.deltas:
        for path, value in find(chunk, pattern):
            if isinstance(value, str):
                sites.append((path, value))
    return sites


def _skeleton(chunk: Any, path: Path, text: str, keep: set[str]) -> Any:
    """A chunk holding only the keys in ``keep`` along ``path``, and ``text`` at its end."""
    if not path:
        return text
    step, rest = path[0], path[1:]
    if isinstance(chunk, list):
        return [_skeleton(chunk[step], rest, text, keep)]
    out = {k: copy_tree(v) for k, v in chunk.items() if k in keep and k != step}
    out[step] = _skeleton(chunk[step], rest, text, keep)
    return out


def _without(chunk: Any, path: Path, drop: set[str]) -> tuple[Any, bool]:
    """A copy of ``chunk`` with the ``drop`` keys removed along ``path``; and whether any had a value."""
    out = copy_tree(chunk)
    node, dropped = out, False
    for step in (None, *path):
        if step is not None:
            node = node[step]
        if isinstance(node, dict):
            for k in drop & set(node):
                dropped = dropped or node[k] is not None
                del node[k]
    return out, dropped


def split_chunk(chunk: Any, descriptor: Descriptor, path: Path, cuts: list[int]) -> list[Any]:
    """Split the delta at ``path`` at the given character offsets into several chunks.

    The first piece is the chunk itself (its terminal keys held back), the others carry
    only the routing keys and their text; the last piece gets the terminal keys back.
    """
    if descriptor.chunk_kind == "string":
        text, bounds = chunk, [0, *cuts, len(chunk)]
        return [text[a:b] for a, b in zip(bounds, bounds[1:])]
    text = get(chunk, path)
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    terminal = set(descriptor.terminal)
    first, held = _without(chunk, path, terminal)
    put(first, path, pieces[0])
    routing = set(descriptor.routing)
    out = [first]
    for i, piece in enumerate(pieces[1:], 1):
        last = i == len(pieces) - 1
        out.append(_skeleton(chunk, path, piece, routing | (terminal if last and held else set())))
    return out


def char_split(chunks: list[Any], descriptor: Descriptor) -> list[Any]:
    """Every delta split at every character (each chunk's first delta site)."""
    out: list[Any] = []
    for chunk in chunks:
        sites = [s for s in delta_sites(chunk, descriptor) if len(s[1]) > 1]
        if not sites:
            out.append(chunk)
            continue
        path, text = sites[0]
        out.extend(split_chunk(chunk, descriptor, path, list(range(1, len(text)))))
    return out


def _mergeable(a: Any, b: Any, descriptor: Descriptor) -> Path | None:
    sa, sb = delta_sites(a, descriptor), delta_sites(b, descriptor)
    if len(sa) != 1 or len(sb) != 1 or sa[0][0] != sb[0][0]:
        return None
    path = sa[0][0]
    if descriptor.chunk_kind == "string":
        return path
    keep = set(descriptor.routing)
    if _skeleton(b, path, "", keep) != _replace(b, path, ""):
        return None  # b carries more than routing keys and text: merging would move it
    if _skeleton(a, path, "", keep) != _skeleton(b, path, "", keep):
        return None
    if _without(a, path, set(descriptor.terminal))[1]:
        return None  # a ends something (finish_reason...): text after it must stay after it
    return path


def _replace(chunk: Any, path: Path, text: str) -> Any:
    out = copy_tree(chunk)
    put(out, path, text)
    return out


def merged(chunks: list[Any], descriptor: Descriptor) -> list[Any]:
    """Neighbouring pure-delta chunks of the same field merged into one."""
    out: list[Any] = []
    for chunk in chunks:
        if out:
            path = _mergeable(out[-1], chunk, descriptor)
            if path is not None:
                if descriptor.chunk_kind == "string":
                    out[-1] = out[-1] + chunk
                else:
                    out[-1] = _replace(out[-1], path, get(out[-1], path) + get(chunk, path))
                continue
        out.append(chunk)
    return out


@st.composite
def rechunked(draw: st.DrawFn, chunks: list[Any], descriptor: Descriptor) -> list[Any]:
    """A random re-chunking: some deltas split at random offsets, some neighbours merged."""
    out: list[Any] = []
    for chunk in chunks:
        sites = [s for s in delta_sites(chunk, descriptor) if len(s[1]) > 1]
        if sites and draw(st.booleans()):
            path, text = draw(st.sampled_from(sites))
            cuts = draw(st.sets(st.integers(1, len(text) - 1), min_size=1, max_size=min(6, len(text) - 1)))
            pieces = split_chunk(chunk, descriptor, path, sorted(cuts))
        else:
            pieces = [chunk]
        for piece in pieces:
            if out and draw(st.integers(0, 3)) == 0:
                path = _mergeable(out[-1], piece, descriptor)
                if path is not None:
                    if descriptor.chunk_kind == "string":
                        out[-1] = out[-1] + piece
                    else:
                        out[-1] = _replace(out[-1], path, get(out[-1], path) + get(piece, path))
                    continue
            out.append(piece)
    return out


@st.composite
def with_noise(draw: st.DrawFn, chunks: list[Any], descriptor: Descriptor, done_index: int | None) -> list[Any]:
    """The stream with the descriptor's noise chunks inserted where each may appear."""
    noise = descriptor.noise
    if not noise:
        return list(chunks)
    out = list(chunks)
    for _ in range(draw(st.integers(1, 6))):
        item = draw(st.sampled_from(noise))
        where = item.get("position", "after-first")
        done_at = done_index if done_index is not None else len(chunks) - 1
        lo = {"anywhere": 0, "after-first": 1, "after-done": done_at + 1}.get(where, 1)
        lo = min(lo, len(out))
        at = draw(st.integers(lo, len(out)))
        out.insert(at, copy_tree(item["chunk"]))
        if done_index is not None and at <= done_index:
            done_index += 1
    return out


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


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Arbitrary JSON values: the junk a strategy must survive."""
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
        max_leaves=max_leaves,
    )


_NAME = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N"), include_characters="_-"),
    min_size=1,
    max_size=24,
)


def tool_calls(max_calls: int = 3, ids: bool = False) -> st.SearchStrategy[list[ToolCall]]:
    """Arbitrary executable calls: unicode names and values, nesting, empty arguments; with
    ``ids``, some calls carry an id (any non-empty text)."""
    args = st.dictionaries(st.text(max_size=10), json_values(8), max_size=4)
    call_id = st.none() | st.text(min_size=1, max_size=12) if ids else st.none()
    call = st.builds(lambda n, a, i: ToolCall(name=n, arguments=a, id=i), _NAME, args, call_id)
    return st.lists(call, min_size=1, max_size=max_calls)
