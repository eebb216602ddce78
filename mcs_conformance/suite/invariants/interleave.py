"""INTERLEAVE: the fragments of two open calls or blocks, interleaved, fold to the same message."""

from __future__ import annotations

from ...corpus_tools.corpus import Case
from ..derive import agreed, from_public_source, parts
from ..generators import Derived
from ..interleaving import interleaved, pairs
from .base import Failure, Subject, check, outcome, same


def _applies(subject: Subject, case: Case | None) -> bool:
    d = subject.descriptor
    return (subject.own_stream(case) and d is not None and bool((d.data.get("interleave") or {}).get("by"))
            and from_public_source(case) and agreed(case) and bool(pairs(case.chunks, d)))


@check(
    "INTERLEAVE-001",
    "the fragments of two calls or blocks open at the same time, interleaved (each call's own order kept, every "
    "chunk kept), give the same result as the recorded stream, at its end and before its completion",
    why="a wire that names the call each fragment adds to (an index) may interleave two open calls; a strategy that "
        "joins a fragment to the call opened last passes every recording that sends calls one after the other and "
        "mixes the arguments of two calls on a stream that interleaves them",
    level="must",
    sources=("spec openai-chat Fragments (keyed by index), openai-responses Keying (by output_index), "
             "anthropic-messages (a block event adds to the block its index names), at the level the descriptor's "
             "interleave field gives",
             "the SDK oracles give the recorded stream's message on every interleaved stream of the bundled formats "
             "(tests/suite/test_interleave.py)",
             "BUG-CLASSES 1 (QwenLM/Qwen-Agent PR #943; praxis-proxy/ai #266)"),
    applies=_applies,
    needs="a stream case of its format from a public source with two calls or blocks of at least two chunks each, "
          "and a descriptor with interleave",
)
def interleaved_calls(subject: Subject, case: Case) -> None:
    d = subject.descriptor
    _, c = parts(case.chunks, d)
    # after the whole stream, and before its completion: a completion that carries the whole
    # message (Responses' final response) replaces what the fragments built, so the live message
    # after the same body chunks is where a join by position shows on such a wire
    cuts = [(len(case.chunks), "")] + ([(c, f" before its completion (chunks 0-{c - 1})")] if c < len(case.chunks) else [])
    wants = [_folded(outcome(subject, case.chunks[:n], case)) for n, _ in cuts]
    for stream in interleaved(case.chunks, d):
        for (n, where), want in zip(cuts, wants):
            got = _folded(outcome(subject, stream[:n], case))
            if not same(got, want):
                raise _failure(case, stream, n, where, want, got, d.data["interleave"].get("why", ""))


def _failure(case: Case, stream: Derived, n: int, where: str, want: dict, got: dict, why: str) -> Failure:
    level = None if stream.level == "must" else stream.level
    lines = [f"level: {level}: {why}"] if level and why else []
    lines += ["how the stream was made:", *(f"  {r}" for r in stream.recipe)]
    failure = Failure(f"interleaving the fragments of two open calls changed the result{where}", expected=want,
                      actual=got, chunks=Derived(stream[:n], level=stream.level, recipe=stream.recipe),
                      detail="\n".join(lines), level=level)
    if n == len(case.chunks):  # the counterexample keeps the case's expectation: the same message
        failure.derived = {"why": f"{case.id}, " + "; ".join(stream.recipe), "expect": case.expect}
    return failure


def _folded(result: dict) -> dict:
    """What an interleaving leaves alone: the message, the calls, done, or the error. The
    display text is left out: it is the deltas in the order they arrive, so two text blocks
    interleaved show interleaved (DISPLAY-001 judges it on the recorded stream)."""
    return {k: v for k, v in result.items() if k != "display"}
