"""COST: feeding a long stream costs time linear in its length (no quadratic accumulation)."""

from __future__ import annotations

import time
from typing import Any

from ...reference.accumulator import copy_tree
from ..generators import carry_text, delta_sites
from .base import Failure, Subject, check

START, LARGE = 250, 16_000  # chunks: the stream grows from START until it is slow enough to measure, or LARGE
SPAN = 8  # the two lengths compared differ 8x: linear costs ~8x, quadratic ~64x
LIMIT = 24.0
ENOUGH = 0.25  # seconds: a feed this slow measures well; a strategy this slow is not fed more
PIECE = "chunk of text " * 7  # 98 characters a chunk: enough for quadratic copying to show


class _Floor:
    """The bridge's own CPU cost per chunk of one stream builder's chunks, measured once (with
    ``ping``, on the first stream the builder gives) and charged to each feed by its length:
    the chunks a builder repeats are copies of one, so the bridge's cost is linear in their
    number, and measuring it again for every feed would double COST's time through the bridge."""

    def __init__(self, strategy: Any) -> None:
        self.measure = getattr(strategy, "floor", None)
        self.rate: float | None = None

    def of(self, chunks: list[Any]) -> float:
        if not callable(self.measure):
            return 0.0
        if self.rate is None:
            self.rate = self.measure(chunks) / max(len(chunks), 1)
        return self.rate * len(chunks)


def _cost(subject: Subject, chunks: list[Any], floor: _Floor, repeat: int = 3) -> float:
    """CPU seconds to feed ``chunks`` and read the message, best of ``repeat``. A strategy
    behind the bridge (docs/bridge.md) that does not time itself (``cpu_time``) is timed on
    its process and this one together, less the bridge's own cost of carrying the same
    chunks (:class:`_Floor`), kept in ``_BRIDGE``."""
    clock = getattr(subject.strategy, "cpu_time", time.process_time)
    best = float("inf")
    pipe = floor.of(chunks)
    for _ in range(repeat):
        buf = subject.buffer()
        start = clock()
        for chunk in chunks:
            buf.feed(chunk)
        buf.as_dict()
        spent = clock() - start
        if callable(floor.measure):
            _BRIDGE.append((spent, pipe))
        best = min(best, spent - pipe)
    # a feed cheaper than the clock can tell counts as the clock's resolution, so a tiny
    # small feed (the bridge's cost subtracted, /proc's ticks) cannot make the ratio explode
    return max(best, getattr(subject.strategy, "clock_resolution", 1e-6))


_BRIDGE: list[tuple[float, float]] = []  # (measured, the bridge's own part) of each bridged feed


def _bridge_note() -> str:
    """What the verdict says of the bridge's share, when the strategy is behind it."""
    if not _BRIDGE:
        return ""
    spent, pipe = sum(a for a, _ in _BRIDGE), sum(b for _, b in _BRIDGE)
    _BRIDGE.clear()
    if not pipe:
        return "; through the bridge: the times are the strategy's own CPU time as its peer measures it (cpu_time), the bridge left out"
    return (f"; through the bridge: its own cost of carrying the same chunks ({pipe * 1e3:.0f} ms of "
            f"{spent * 1e3:.0f} ms measured; ping's cost per chunk on one such stream, times the chunks) is subtracted")


def _delta_streams(subject: Subject) -> dict[str, Any]:
    """For each delta field of the descriptor: a builder of a long stream that grows only it.

    The builder takes the strategy's own stream holding that field, repeats its last chunk
    with the field n times (each repeat carrying a 98-character piece), then ends it.
    """
    d = subject.descriptor
    builders: dict[str, Any] = {}
    for pattern in d.deltas:
        key = "/".join(map(str, pattern))
        # A chunk that carries the field non-empty first: one that carries it empty may be the
        # event that opens its block or call (Cohere's tool-call-start, arguments ""), which a
        # stream cannot repeat.
        for filled in (True, False):
            for case in subject.corpus.for_format(subject.name):
                if key in builders or not case.is_stream or case.raises:
                    continue
                hits = [j for j, c in enumerate(case.chunks)
                        if any(p == pattern_path and (v or not filled) for p, v in delta_sites(c, d)
                               for pattern_path in _concrete(c, pattern))
                        and not d.is_done_chunk(c)]
                if hits:
                    builders[key] = _builder(case.chunks, hits[-1], pattern, d)
    return builders


def _concrete(chunk: Any, pattern: list[Any]) -> list[tuple[Any, ...]]:
    from ..json_patterns import find

    return [p for p, v in find(chunk, pattern) if isinstance(v, str)] if pattern else [()]


def _builder(chunks: list[Any], at: int, pattern: list[Any], d: Any) -> Any:
    from ..json_patterns import put

    path = _concrete(chunks[at], pattern)[0]

    def build(n: int) -> list[Any]:
        piece = copy_tree(chunks[at])
        if path:
            put(piece, path, PIECE)
        else:
            piece = PIECE
        return chunks[: at + 1] + [copy_tree(piece) for _ in range(n)] + chunks[at + 1 :]

    return build


def _ratio(subject: Subject, build) -> tuple[int, float, float, float]:
    """(n, cost of n/SPAN chunks, cost of n chunks, their ratio), n grown by doubling from
    START until one feed takes ENOUGH seconds or n reaches LARGE: a linear strategy is
    measured at LARGE as before, a quadratic one is caught as soon as it is slow, within
    seconds instead of minutes."""
    n = START * SPAN
    floor = _Floor(subject.strategy)
    while n < LARGE and _cost(subject, build(n), floor, repeat=1) < ENOUGH:
        n *= 2
    n = min(n, LARGE)
    small, large = build(n // SPAN), build(n)
    _cost(subject, small, floor, repeat=1)  # warm up
    # a peer that times its strategy itself (cpu_time) measures no pipe and no scheduling:
    # one feed of the long stream is as good as the best of three, and the pipe's time is spared
    repeat = 1 if getattr(subject.strategy, "measures_itself", False) else 3
    a, b = _cost(subject, small, floor), _cost(subject, large, floor, repeat=repeat)
    return n, a, b, b / a


@check(
    "COST-001",
    f"for each delta field, feeding n chunks that grow it costs under {LIMIT:.0f}x feeding n/{SPAN} "
    f"(n up to {LARGE}; linear is ~{SPAN}x, quadratic ~{SPAN * SPAN}x)",
    why="s += t on a growing string, or re-parsing partial JSON per chunk, makes long streams crawl",
    level="should",
    sources=('spec P3', 'spec text-json linear scanning'),
    scope="strategy",
    applies=lambda s, c: s.descriptor is not None and s.descriptor.chunk_kind == "object" and bool(_delta_streams(s)),
    needs="a descriptor of its format (chunk_kind object) whose deltas a stream case of it holds",
)
def linear_deltas(subject: Subject, case: None) -> None:
    _BRIDGE.clear()
    for field, build in _delta_streams(subject).items():
        n, a, b, r = _ratio(subject, build)
        if r > LIMIT:
            raise Failure(f"feeding cost grew {r:.1f}x for {SPAN}x the chunks growing {field} "
                          f"({n // SPAN} -> {n} chunks: {a * 1e3:.1f} ms -> {b * 1e3:.1f} ms): quadratic accumulation"
                          + _bridge_note())


@check(
    "COST-002",
    f"feeding n text-channel chunks costs under {LIMIT:.0f}x feeding n/{SPAN} (n up to {LARGE})",
    why="content text is the longest field of most streams",
    level="should",
    sources=('spec P3',),
    scope="strategy",
    applies=lambda s, c: s.descriptor is not None and s.descriptor.text_channel is not None,
    needs="a descriptor of its format with a text_channel",
)
def linear_text(subject: Subject, case: None) -> None:
    _BRIDGE.clear()
    n, a, b, r = _ratio(subject, lambda n: carry_text([PIECE] * n, subject.descriptor))
    if r > LIMIT:
        raise Failure(f"feeding cost grew {r:.1f}x for {SPAN}x the chunks ({n // SPAN} -> {n} chunks: "
                      f"{a * 1e3:.1f} ms -> {b * 1e3:.1f} ms): quadratic accumulation" + _bridge_note())
