"""COST: feeding a long stream costs time linear in its length (no quadratic accumulation)."""

from __future__ import annotations

import time
from typing import Any

from ..accumulator import copy_tree
from ..generators import carry_text, delta_sites
from .base import Failure, Subject, check

SMALL, LARGE = 2_000, 16_000  # 8x the chunks: linear costs ~8x, quadratic ~64x
LIMIT = 24.0
PIECE = "chunk of text " * 7  # 98 characters a chunk: enough for quadratic copying to show


def _cost(subject: Subject, chunks: list[Any]) -> float:
    best = float("inf")
    for _ in range(3):
        buf = subject.buffer()
        start = time.process_time()
        for chunk in chunks:
            buf.feed(chunk)
        buf.as_dict()
        best = min(best, time.process_time() - start)
    return max(best, 1e-6)


def _delta_streams(subject: Subject) -> dict[str, Any]:
    """For each delta field of the descriptor: a builder of a long stream that grows only it.

    The builder takes the strategy's own stream holding that field, repeats its last chunk
    with the field n times (each repeat carrying a 98-character piece), then ends it.
    """
    d = subject.descriptor
    builders: dict[str, Any] = {}
    for pattern in d.deltas:
        key = "/".join(map(str, pattern))
        for case in subject.corpus.for_format(subject.name):
            if key in builders or not case.is_stream or case.raises:
                continue
            hits = [j for j, c in enumerate(case.chunks)
                    if any(p == pattern_path for p, _ in delta_sites(c, d) for pattern_path in _concrete(c, pattern))
                    and not d.is_done_chunk(c)]
            if hits:
                builders[key] = _builder(case.chunks, hits[-1], pattern, d)
    return builders


def _concrete(chunk: Any, pattern: list[Any]) -> list[tuple[Any, ...]]:
    from ..jsonpaths import find

    return [p for p, v in find(chunk, pattern) if isinstance(v, str)] if pattern else [()]


def _builder(chunks: list[Any], at: int, pattern: list[Any], d: Any) -> Any:
    from ..jsonpaths import put

    path = _concrete(chunks[at], pattern)[0]

    def build(n: int) -> list[Any]:
        piece = copy_tree(chunks[at])
        if path:
            put(piece, path, PIECE)
        else:
            piece = PIECE
        return chunks[: at + 1] + [copy_tree(piece) for _ in range(n)] + chunks[at + 1 :]

    return build


def _ratio(subject: Subject, build) -> tuple[float, float, float]:
    small, large = build(SMALL), build(LARGE)
    _cost(subject, small)  # warm up
    a, b = _cost(subject, small), _cost(subject, large)
    return a, b, b / a


@check(
    "COST-001",
    f"for each delta field, feeding {LARGE} chunks that grow it costs under {LIMIT:.0f}x feeding {SMALL} "
    "(linear is ~8x, quadratic ~64x)",
    why="s += t on a growing string, or re-parsing partial JSON per chunk, makes long streams crawl",
    adr="DESIGN: Buffer (feeding is linear)",
    scope="strategy",
    applies=lambda s, c: s.descriptor is not None and s.descriptor.chunk_kind == "object" and bool(_delta_streams(s)),
)
def linear_deltas(subject: Subject, case: None) -> None:
    for field, build in _delta_streams(subject).items():
        a, b, r = _ratio(subject, build)
        if r > LIMIT:
            raise Failure(f"feeding cost grew {r:.1f}x for 8x the chunks growing {field} "
                          f"({a * 1e3:.1f} ms -> {b * 1e3:.1f} ms): quadratic accumulation")


@check(
    "COST-002",
    f"feeding {LARGE} text-channel chunks costs under {LIMIT:.0f}x feeding {SMALL}",
    why="content text is the longest field of most streams",
    adr="DESIGN: Buffer (feeding is linear)",
    scope="strategy",
    applies=lambda s, c: s.descriptor is not None and s.descriptor.text_channel is not None,
)
def linear_text(subject: Subject, case: None) -> None:
    a, b, r = _ratio(subject, lambda n: carry_text([PIECE] * n, subject.descriptor))
    if r > LIMIT:
        raise Failure(f"feeding cost grew {r:.1f}x for 8x the chunks ({a * 1e3:.1f} ms -> {b * 1e3:.1f} ms): quadratic accumulation")
