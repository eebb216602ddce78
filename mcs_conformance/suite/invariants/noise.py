"""NOISE: pings, keep-alives, usage-only chunks, unknown events and [DONE] change nothing."""

from __future__ import annotations

from ...corpus_tools.corpus import Case
from ..examples import noise_examples
from ..generators import LEVELS, noise_level, noise_places, with_noise
from .base import Subject, check
from .hypothesis_run import given_run
from .split import same_outcome

_GATE = ("must", "should")  # the levels NOISE-002 draws from; reference items are tried by NOISE-001


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
    needs="a stream case of its format, and noise items in its descriptor",
)
def each_noise(subject: Subject, case: Case) -> None:
    done = _done_index(subject, case)
    n = len(case.chunks)
    # the binding items first: a reference item's difference never hides a must item's
    for item in sorted(subject.descriptor.noise, key=lambda i: LEVELS.index(noise_level(i))):
        for at in noise_places(item, n, done):
            chunks = case.chunks[:at] + [item["chunk"]] + case.chunks[at:]
            same_outcome(subject, case, chunks, f"noise {item.get('description', '')!r} at {at}",
                         level=noise_level(item), why=item.get("why", ""))


@check(
    "NOISE-002",
    "random noise insertions (shrunk on failure) change nothing",
    why="noise arrives in bursts and combinations",
    level="must",
    sources=('spec B4', 'spec per-format noise'),
    applies=lambda s, c: s.own_stream(c) and s.descriptor is not None
    and any(noise_level(i) in _GATE for i in s.descriptor.noise),
    hypothesis=True,
    needs="a stream case of its format, and noise items of level must or should in its descriptor",
)
def random_noise(subject: Subject, case: Case) -> None:
    done = _done_index(subject, case)
    strategy = with_noise(case.chunks, subject.descriptor, done, levels=_GATE)
    given_run(subject, strategy, lambda ch: same_outcome(subject, case, ch, "noise"),
              examples=noise_examples(case.chunks, subject.descriptor, done, _GATE))
