"""EXTRACT: calls equal the case's calls: names, parsed arguments, ids, order, errors."""

from __future__ import annotations

from ...corpus_tools.corpus import Case
from .base import Failure, Subject, calls_view, check, expect_part


def source_for(subject: Subject, case: Case) -> object:
    """What the strategy reads: the message, or its content text when the case is a leak."""
    message = case.final_message
    if case.expect.get("via_backup"):
        chain = subject.chain()
        claimant = subject.strategy_named(case.expect.get("claimed_by"), chain)
        if claimant is None:
            raise Failure(f"the case's claiming strategy {case.expect.get('claimed_by')!r} is not in the chain")
        return claimant.content_text(message)
    return message


@check(
    "EXTRACT-001",
    "extract() returns exactly the case's calls (name, arguments, id, order; errors as errors)",
    why="a merged, dropped, reordered or leniently parsed call executes the wrong thing",
    level="must",
    sources=('spec C1', 'spec C2', 'spec C3', 'spec C4'),
    parts=('calls',),
    applies=lambda s, c: c is not None and c.expect.get("extracted_by") == s.name and c.final_message is not None,
    needs="a case whose expect.extracted_by names its format",
)
def calls_match(subject: Subject, case: Case) -> None:
    got = calls_view(subject.strategy.extract(source_for(subject, case)))
    expect_part(case, "calls", got, "extract() differs from the case's calls", view=calls_view, chunks=case.chunks)
