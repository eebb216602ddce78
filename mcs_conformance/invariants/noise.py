"""NOISE: pings, keep-alives, usage-only chunks, unknown events and [DONE] change nothing."""

from __future__ import annotations

from ..corpus import Case
from ..generators import with_noise
from .base import Subject, check, given_run
from .split import same_outcome


def _done_index(subject: Subject, case: Case) -> int | None:
    for i, chunk in enumerate(case.chunks):
        if subject.descriptor.is_done_chunk(chunk):
            return i
    return None


@check(
    "NOISE-001",
    "each noise chunk of the format, inserted at each place it may appear, changes nothing",
    why="pings between deltas and a usage chunk after the end crashed real parsers",
    level="must",
    sources=('spec B4', 'spec per-format noise'),
    applies=lambda s, c: s.own_stream(c) and s.descriptor is not None and bool(s.descriptor.noise),
)
def each_noise(subject: Subject, case: Case) -> None:
    done = _done_index(subject, case)
    n = len(case.chunks)
    for item in subject.descriptor.noise:
        where = item.get("position", "after-first")
        start = {"anywhere": 0, "after-first": 1, "after-done": (done if done is not None else n - 1) + 1}.get(where, 1)
        slots = sorted({start, (start + n) // 2, n} & set(range(start, n + 1)))
        for at in slots:
            chunks = case.chunks[:at] + [item["chunk"]] + case.chunks[at:]
            same_outcome(subject, case, chunks, f"noise {item.get('description', '')!r} at {at}")


@check(
    "NOISE-002",
    "random noise insertions (shrunk on failure) change nothing",
    why="noise arrives in bursts and combinations",
    level="must",
    sources=('spec B4', 'spec per-format noise'),
    applies=lambda s, c: s.own_stream(c) and s.descriptor is not None and bool(s.descriptor.noise),
    hypothesis=True,
)
def random_noise(subject: Subject, case: Case) -> None:
    strategy = with_noise(case.chunks, subject.descriptor, _done_index(subject, case))
    given_run(subject, strategy, lambda ch: same_outcome(subject, case, ch, "noise"))
