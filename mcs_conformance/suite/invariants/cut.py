"""PREFIX-003: a stream cut short and closed with the format's cut completion runs nothing."""

from __future__ import annotations

from ...reference.chain import ExtractionChain
from ...corpus_tools.corpus import Case
from ..derive import cut_completions, cut_points, with_calls, with_cut_completion
from ...reference.errors import MCSError
from ...reference.extraction import extract_calls
from .base import Failure, Subject, calls_view, check, feed_all, positional_prefix_violation

_WHY_CUT = ("a turn whose output was cut (a length limit, a content filter) did not end as the model meant: "
            "running its calls runs a plan the model never finished")


def _applies(subject: Subject, case: Case | None) -> bool:
    d = subject.descriptor
    return (subject.own_stream(case) and d is not None and bool(d.data.get("cut"))
            and with_calls(case, d, subject.name))


@check(
    "PREFIX-003",
    "cut after any chunk before its completion and closed with the format's cut completion (a length limit, a "
    "content filter), the extraction axis (given buffer.done) yields no executable call (where the completion "
    "signal is in the stream, none that differs from the finished turn's; the reference runs none at all)",
    why="a truncated stream that reports calls executes a call, or a turn, the model never finished",
    level="should",
    sources=("spec C6", "spec 'Where not finished lives'", "vercel/ai PR #13137 (reverted in #13172)",
             "openai-python ChatCompletionStreamState.get_final_completion: LengthFinishReasonError, "
             "ContentFilterFinishReasonError"),
    applies=_applies,
    needs="a finished stream of its format from a public source whose calls are all executable, and a descriptor with cut (and roles.completion)",
)
def cut_with_completion(subject: Subject, case: Case) -> None:
    d = subject.descriptor
    alone = ExtractionChain([subject.strategy])
    final = calls_view(case.expect.get("calls", []))
    for description, completion in cut_completions(case.chunks, d):
        for after in cut_points(case.chunks, d):
            stream = with_cut_completion(case.chunks, after, description, completion)
            try:
                buf, _ = feed_all(subject, stream)
            except MCSError:
                continue  # a refused stream runs nothing
            read = list(extract_calls(buf.as_dict(), alone, done=buf.done).calls)
            live = [c for c in read if c.executable]
            if not live:
                continue
            where = f"cut after chunk {after} and closed with a cut completion ({description})"
            if not any(d.is_done_chunk(c) for c in stream):
                # the descriptor says this stream never completed: nothing may run (should)
                problem, level = f"{where}: the turn never completed, yet {len(live)} call(s) are executable " \
                                 f"(buffer.done is {buf.done})", None
            elif (why := positional_prefix_violation(read, final)) is not None:
                problem, level = f"{where}: {why}", None  # a call cut short, or one the turn never had (should)
            else:
                # the message says it was cut and the calls so far are the finished turn's: running them is
                # the reference's refusal to make (the SDKs of these formats leave it to the client)
                problem, level = (f"{where}: {len(live)} call(s) of the cut turn are executable; the reference "
                                  f"runs no call of a turn cut short"), "reference"
            failure = Failure(problem, expected=[], actual=calls_view(live), chunks=stream, level=level,
                              detail="\n".join(["how the stream was made:", *(f"  {r}" for r in stream.recipe),
                                                f"why: {_WHY_CUT}"]))
            failure.derived = {"why": f"{case.id}: {'; '.join(stream.recipe)}",
                               "expect": _expectation(subject, stream, buf.as_dict())}
            raise failure


def _expectation(subject: Subject, stream: list, message: object) -> dict:
    """What a case file of the cut stream expects. Where the descriptor's completion signal is
    in the stream (Anthropic's message_stop after max_tokens), the message itself says the
    turn was cut: every call is an error (the reference's reading). Where it is not (a length
    finish), the cut lives in buffer.done (PREFIX-001 holds it), and the message's calls are
    the strategy's own reading."""
    own = "the strategy's own reading of a derived stream"
    done = any(subject.descriptor.is_done_chunk(c) for c in stream)
    calls = [{"name": c.name, "arguments": c.arguments if c.error is None else {}, "id": c.id,
              "error": done or c.error is not None} for c in subject.strategy.extract(message)]
    source = "docs/spec.md, Where \"not finished\" lives (PREFIX-003)"
    levels = {p: {"level": "reference", "why": own, "source": source} for p in ("message", "content_text")}
    levels["calls"] = {"level": "reference", "why": own if not done else
                       "the reference runs no call of a turn cut short; the SDKs leave it to the client", "source": source}
    return {"message": message, "calls": calls, "content_text": subject.strategy.content_text(message), "done": done,
            "claimed_by": subject.name, "extracted_by": subject.name, "via_backup": False, "levels": levels}
