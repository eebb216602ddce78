"""SPLICE: two recorded turns of a format, one after the other, keep every call and all text."""

from __future__ import annotations

from typing import Any

from ...corpus_tools.corpus import Case
from ..derive import splice, splice_pairs, spliced_calls, with_calls
from ...reference.errors import MCSError
from ..json_patterns import values
from .base import Failure, Subject, calls_view, check, feed_all, records_for, same


def _applies(subject: Subject, case: Case | None) -> bool:
    d = subject.descriptor
    return subject.own_stream(case) and d is not None and "splice" in d.data and with_calls(case, d, subject.name)


def _in_order(text: str, first: str, second: str) -> bool:
    at = text.find(first)
    return at >= 0 and text.find(second, at + len(first)) >= 0


@check(
    "SPLICE-001",
    "the content of two recorded streams of the format, one after the other, gives the calls of both in order "
    "(none merged, none lost), the text of both, and a continuation that answers each call once",
    why="a turn holds any number of calls before and after text: strategies that merge parallel calls, drop the "
        "text after a call or lose the text before one fail real turns no single recording shows",
    level="must",
    sources=("the wire: a turn's blocks, items and calls follow one another in any number and order",
             "the SDK oracles accept the spliced streams of the bundled formats and give both streams' calls "
             "(tests/suite/test_derive_oracle.py)", "BUG-CLASSES 1, 10, 11 (QwenLM/Qwen-Agent PR #943; BerriAI/litellm "
             "#2716; vllm-project/vllm #56263)"),
    applies=_applies,
    needs="a finished stream of its format from a public source whose calls are all executable, and a descriptor with splice",
)
def spliced(subject: Subject, case: Case) -> None:
    for first, second in splice_pairs(case, subject.corpus.cases, subject.descriptor, subject.name):
        judge_splice(subject, first, second)


def judge_splice(subject: Subject, first: Case, second: Case) -> None:
    """Splice ``first`` before ``second`` (derive.splice) and judge the strategy on the result:
    both cases' calls in order, both texts in order, each call answered once. Raises the
    check's :class:`Failure`."""
    d = subject.descriptor
    first, second = first.fresh(), second.fresh()
    made = splice(first.chunks, second.chunks, d, names=(first.id, second.id))
    want_calls = spliced_calls(first, second, made.renamed)
    want_text = (first.expect.get("content_text", ""), second.expect.get("content_text", ""))
    expect = {"calls": want_calls, "content_text": "".join(want_text), "claimed_by": subject.name,
              "extracted_by": subject.name, "via_backup": False,
              "done": any(d.is_done_chunk(c) for c in made.chunks)}
    _judge(subject, made.chunks, calls_view(want_calls), want_text, expect)


def _fail(summary: str, stream: Any, expect: dict[str, Any], message: Any, **evidence: Any) -> Failure:
    failure = Failure(summary, chunks=stream, detail="\n".join(["how the stream was made:",
                                                               *(f"  {r}" for r in stream.recipe)]), **evidence)
    failure.derived = {
        "why": "; ".join(stream.recipe),
        "expect": {**expect, "message": message,
                   "levels": {"message": {"level": "reference",
                                          "why": "the strategy's own assembly of a derived stream",
                                          "source": "docs/spec.md C8 (the calls and text are the rule's)"}}},
    }
    return failure


def _judge(subject: Subject, stream: Any, want: list[dict[str, Any]], texts: tuple[str, str],
           expect: dict[str, Any]) -> None:
    try:
        buf, _ = feed_all(subject, stream)
    except MCSError as exc:
        raise _fail(f"feeding the spliced stream raised {type(exc).__name__}: {exc}", stream, expect, None) from exc
    message = buf.as_dict()
    got = calls_view(subject.strategy.extract(message))
    if not same(got, want):
        raise _fail("the spliced stream's calls are not the calls of both streams in order", stream, expect, message,
                    expected=want, actual=got)
    text = subject.strategy.content_text(message)
    if not _in_order(text, *texts):
        raise _fail("content_text does not hold the text of both streams in order", stream, expect, message,
                    expected=list(texts), actual=text)
    calls = [c for c in subject.strategy.extract(message) if c.error is None]
    history = subject.strategy.result_messages(message, records_for(calls))
    h = subject.descriptor.history
    if "result_ids" in h:
        answered = values(history, h["result_ids"])
        ids = [c.id for c in calls]
        if len(answered) != len(calls) or any(i and answered.count(i) != 1 for i in ids):
            raise _fail("result_messages does not answer each call of the spliced stream once", stream, expect,
                        message, expected=ids, actual=answered)
