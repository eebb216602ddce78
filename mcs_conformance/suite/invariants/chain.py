"""CHAIN: in the default chain, each message is extracted by the strategy its case names."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ...corpus_tools.corpus import Case
from ...reference.extraction import extract_calls
from .base import Failure, Subject, calls_view, check, expect_part, note_case, part_level
from .hypothesis_run import given_run


WHOSE = {True: "the author's", False: "the default"}


def _applies(s: Subject, c: Case | None) -> bool:
    if c is None or c.final_message is None or c.raises is not None:
        return False
    if s.passed_over(c.final_message):
        return False  # the chain hands bare strings to the first text strategy, not to this one
    if not s.reads_backup_of(c):
        return False  # a leak read by another text format's backup, which this chain does not hold
    e = c.expect
    if s.name in (c.format, e.get("claimed_by"), e.get("extracted_by")):
        return True
    # a guard case says how the default chain routes another format's message; on the author's
    # chain it holds only where the strategies it names are members
    return "guard" in c.tags and (not s.declared or all(
        n is None or n in s.chain_names for n in (c.format, e.get("claimed_by"), e.get("extracted_by"))))


def _view(message: Any, subject: Subject, chain) -> dict[str, Any]:
    ex = extract_calls(message, chain, subject.backup(chain))
    return {
        "calls": calls_view(ex.calls),
        "extracted_by": ex.strategy.name if ex.strategy is not None and ex.calls else (ex.resolved.name if ex.resolved else None),
        "via_backup": ex.via_backup,
    }


def _misrouted(subject: Subject, case: Case, chain, got: dict[str, Any], want: dict[str, Any]) -> str:
    """In words, which strategy the chain gave the message to and why, where that is not the case's."""
    claimant = chain.resolve(case.final_message)
    where = f"{WHOSE[subject.declared]} chain"
    if claimant is None:
        return f"no strategy of {where} recognizes the message of case {case.id}, so nothing extracts it"
    if want["extracted_by"] is None:
        return (f"{claimant.name}'s recognizes returned True on this message (case {case.id}), which the case says "
                "no strategy claims")
    if claimant.name != want["extracted_by"] and not want["via_backup"]:
        return (f"{claimant.name}'s recognizes returned True on this message (case {case.id}), so the chain gave it "
                f"to {claimant.name} before {want['extracted_by']}")
    if want["via_backup"] and not got["via_backup"]:
        return (f"the case's calls leaked into the text of {claimant.name}'s message, but they did not fall through to "
                f"the backup text strategy ({got['extracted_by']} extracted the message)")
    return (f"the chain extracted the message with {got['extracted_by']}"
            f"{' through the backup' if got['via_backup'] else ''}, where the case says {want['extracted_by']}"
            f"{' through the backup' if want['via_backup'] else ''}")


@check(
    "CHAIN-001",
    "the default chain (or the author's declared one) with the strategy in place extracts each message as its case says",
    why="native wins; the tool_calls: null guard holds; leaks fall through to the backup",
    level="must",
    sources=('spec X1', 'spec X2', 'spec X3'),
    parts=('calls', 'extracted_by', 'via_backup'),
    applies=_applies,
    needs="a case whose message its format claims or extracts (expect.claimed_by / extracted_by naming it)",
)
def routed(subject: Subject, case: Case) -> None:
    chain = subject.chain()
    order = " > ".join(s.name for s in chain)  # before resolving: the chain puts its match in front
    got = _view(case.final_message, subject, chain)
    route = {"extracted_by": case.expect.get("extracted_by"), "via_backup": bool(case.expect.get("via_backup"))}
    if {k: got[k] for k in route} != route:
        # a text strategy under test is the backup that reads the leak: whether it finds the call
        # is its grammar's business (the calls' level); a native one under test routes (X1-X3)
        level, why = part_level(case, "calls" if subject.is_text else "extracted_by")
        raise Failure(_misrouted(subject, case, chain, got, route) + (f" ({level}: {why})" if why else ""),
                      expected=route, actual={k: got[k] for k in route},
                      detail=f"{WHOSE[subject.declared]} chain, in order: {order}\n"
                      f"calls extracted: {got['calls']}", level=level)
    expect_part(case, "calls", got["calls"], "the extraction axis extracted other calls than the case's",
                view=calls_view)


@check(
    "CHAIN-002",
    "promotion on match never changes a result over any sequence of messages, and puts the match in front",
    why="the chain reorders itself; correctness must not depend on what came before",
    level="must",
    sources=('spec B6',),
    scope="strategy",
    hypothesis=True,
    needs="a case whose message its format claims or extracts",
)
def promotion(subject: Subject, case: None) -> None:
    _buffer_shares_chain(subject)
    # a message a reference strategy claims before the strategy under test would differ after
    # promotion through no fault of it: those cases are left to the one line of chain advice
    cases = [c for c in subject.corpus.cases if _applies(subject, c) and c.id not in subject.claimed_first]
    messages = [c.final_message for c in cases]
    if not messages:
        return

    def read(i: int, chain) -> dict[str, Any]:
        try:
            return _view(messages[i], subject, chain)
        except Exception as exc:  # the strategy raised reading this case's message: weighed at its level
            note_case(exc, cases[i])
            raise

    def run(sequence: list[int]) -> None:
        shared = subject.chain()  # a fresh chain per example: the printed sequence reproduces alone
        for i in sequence:
            fresh = read(i, subject.chain())
            promoted = read(i, shared)
            if fresh != promoted:
                raise Failure(
                    "a chain promoted by earlier messages extracted differently from a fresh chain",
                    expected=fresh, actual=promoted, detail=f"message sequence (indexes): {sequence}",
                )
            claimant = subject.chain().resolve(messages[i])
            lead = shared.strategies[0]
            if claimant is not None and lead.name != claimant.name:
                raise Failure(  # a harness check: it fails with a broken reference chain, not a strategy
                    "after resolving a message the chain's front is not the strategy that claimed it",
                    expected=claimant.name, actual=lead.name, detail=f"message sequence (indexes): {sequence}",
                )

    for primer in _primers(messages, subject):  # every message after each claimant is put in front
        for i in range(len(messages)):
            run([primer, i])
    given_run(subject, st.lists(st.integers(0, len(messages) - 1), min_size=1, max_size=12), run)


def _primers(messages: list[Any], subject: Subject) -> list[int]:
    """The first message each strategy of the chain claims: resolving it puts that one in front.

    Random sequences find an order-dependent answer less often as the corpus grows; every
    claimant in front, then every message, is a sweep that does not.
    """
    first: dict[str, int] = {}
    for i, message in enumerate(messages):
        claimant = subject.chain().resolve(message)
        if claimant is not None:
            first.setdefault(claimant.name, i)
    return sorted(first.values())


def _buffer_shares_chain(subject: Subject) -> None:
    """A buffer built on a chain resolves on that chain (DESIGN: one ordered list shared by
    buffer and driver), so the stream's claimant is in front for the driver afterwards. A
    harness check: it fails with a broken reference buffer, not with a broken strategy."""
    from ...reference.buffer import LLMStreamBuffer
    from ...reference.errors import MCSError

    first = next((c.chunks[0] for c in subject.corpus.cases if subject.own_stream(c) and c.chunks), None)
    if first is None:
        return
    chain = subject.chain()
    buf = LLMStreamBuffer(chain)
    try:
        buf.feed(first)
    except MCSError:
        return  # RECOG and STRUCT report a first chunk the strategy refuses
    claimant = subject.chain().resolve(first)
    if claimant is not None and (buf.chain is not chain or chain.strategies[0].name != claimant.name):
        raise Failure("a buffer built on the default chain did not resolve on that chain: the driver's chain "
                      "does not have the stream's strategy in front",
                      expected=claimant.name, actual=[s.name for s in chain.strategies])
