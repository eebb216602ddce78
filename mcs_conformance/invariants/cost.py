"""COST: feeding a long stream costs time linear in its length (no quadratic accumulation)."""

from __future__ import annotations

import time
from typing import Any

from ..accumulator import copy_tree
from ..generators import carry_text, delta_sites
from .base import Failure, Subject, check

SMALL, LARGE = 2_000, 16_000  # 8x the chunks: linear costs ~8x, quadratic ~64x
LIMIT = 24.0


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


def _long_delta_stream(subject: Subject, n: int) -> list[Any] | None:
    """The strategy's own stream with its longest-running delta chunk repeated ``n`` times."""
    d = subject.descriptor
    best = None
    for case in subject.corpus.for_format(subject.name):
        if not case.is_stream or case.raises:
            continue
        for i, chunk in enumerate(case.chunks):
            if delta_sites(chunk, d) and not d.is_done_chunk(chunk):
                if best is None or len(case.chunks) > len(best[0].chunks):
                    best = (case, i)
                break
    if best is None:
        return None
    case, i = best
    # repeat the LAST delta chunk before the end, so every repeat extends one growing field
    last = max(j for j, c in enumerate(case.chunks) if delta_sites(c, d) and not d.is_done_chunk(c))
    return case.chunks[: last + 1] + [copy_tree(case.chunks[last]) for _ in range(n)] + case.chunks[last + 1 :]


def _ratio(subject: Subject, build) -> tuple[float, float, float]:
    small, large = build(SMALL), build(LARGE)
    _cost(subject, small)  # warm up
    a, b = _cost(subject, small), _cost(subject, large)
    return a, b, b / a


@check(
    "COST-001",
    f"feeding {LARGE} delta chunks costs under {LIMIT:.0f}x feeding {SMALL} (linear is ~8x, quadratic ~64x)",
    why="s += t on a growing string, or re-parsing partial JSON per chunk, makes long streams crawl",
    adr="DESIGN: Buffer (feeding is linear)",
    scope="strategy",
    applies=lambda s, c: s.descriptor is not None and _long_delta_stream(s, 1) is not None,
)
def linear_deltas(subject: Subject, case: None) -> None:
    a, b, r = _ratio(subject, lambda n: _long_delta_stream(subject, n))
    if r > LIMIT:
        raise Failure(f"feeding cost grew {r:.1f}x for 8x the chunks ({a * 1e3:.1f} ms -> {b * 1e3:.1f} ms): quadratic accumulation")


@check(
    "COST-002",
    f"feeding {LARGE} text-channel chunks costs under {LIMIT:.0f}x feeding {SMALL}",
    why="content text is the longest field of most streams",
    adr="DESIGN: Buffer (feeding is linear)",
    scope="strategy",
    applies=lambda s, c: s.descriptor is not None and s.descriptor.text_channel is not None,
)
def linear_text(subject: Subject, case: None) -> None:
    a, b, r = _ratio(subject, lambda n: carry_text(["chunk of text "] * n, subject.descriptor))
    if r > LIMIT:
        raise Failure(f"feeding cost grew {r:.1f}x for 8x the chunks ({a * 1e3:.1f} ms -> {b * 1e3:.1f} ms): quadratic accumulation")
