"""RECOG: recognizes never raises, claims its own shapes and no other native format's."""

from __future__ import annotations

from typing import Any

from ...corpus_tools.corpus import Case
from ...reference.errors import UnrecognizedStream
from ..generators import json_values
from ...reference.wire import describe
from .base import Failure, Subject, check, part_level
from .hypothesis_run import given_run


def _string_kind(subject: Subject, fmt: str | None) -> bool:
    d = subject.corpus.descriptors.get(fmt or "")
    return d is not None and d.chunk_kind == "string"


def _mine_to_refuse(subject: Subject, fmt: str | None) -> bool:
    """Must the strategy refuse shapes of ``fmt``? (a text strategy may share bare strings;
    on the author's declared chain, only the formats of the chain's strategies compete)"""
    if fmt is None or fmt == subject.name:
        return False
    if subject.declared and fmt not in subject.chain_names:
        return False
    return not (subject.is_text and _string_kind(subject, fmt))


@check(
    "RECOG-001",
    "recognizes never raises and returns a bool on arbitrary JSON values",
    why="the chain asks every strategy about every shape; one that raises breaks resolution for all",
    level="should",
    sources=('spec P2',),
    scope="strategy",
    hypothesis=True,
    needs="nothing: it runs once per strategy",
)
def never_raises(subject: Subject, case: None) -> None:
    def probe(value: Any) -> None:
        try:
            got = subject.strategy.recognizes(value)
        except Exception as exc:
            raise Failure(f"recognizes raised {type(exc).__name__}: {exc}", detail=f"on {describe(value)}") from exc
        if not isinstance(got, bool):
            raise Failure(f"recognizes returned {type(got).__name__}, not bool", detail=f"on {describe(value)}")

    given_run(subject, json_values(), probe)


@check(
    "RECOG-002",
    "claims the first chunk of every stream of its format",
    why="the buffer resolves the wire strategy on the first chunk",
    level="must",
    sources=('spec B1',),
    applies=lambda s, c: s.own_stream(c) and bool(c.chunks),
    needs="a stream case of its format",
)
def claims_own_chunk(subject: Subject, case: Case) -> None:
    first = case.chunks[0]
    if subject.strategy.recognizes(first) is not True:
        raise Failure("recognizes(first chunk) is not True for a stream of its own format", chunks=[first])


@check(
    "RECOG-003",
    "claims every assembled message its cases say it claims",
    why="the driver resolves extraction on the assembled message (the second axis)",
    level="must",
    sources=('spec X1',),
    parts=('claimed_by',),
    applies=lambda s, c: c is not None and c.expect.get("claimed_by") == s.name and c.final_message is not None,
    needs="a case whose expect.claimed_by names its format",
)
def claims_own_message(subject: Subject, case: Case) -> None:
    got = subject.strategy.recognizes(case.final_message)
    if got is not True:
        level, why = part_level(case, "claimed_by")
        raise Failure(f"{subject.name}'s recognizes returned {got!r} on the message of case {case.id}, which the case "
                      f"says {subject.name} claims" + (f" ({level}: {why})" if why else ""),
                      detail=f"so the chain never gives it to {subject.name}\nthe message: {_shown(case.final_message)}",
                      level=level)


@check(
    "RECOG-004",
    "claims no other format's chunks or messages (native wins; natives never overlap); a buffer over it "
    "refuses another format's stream up front",
    why="a text strategy claiming an envelope, or two natives claiming one shape, breaks 'native wins'",
    level="must",
    sources=('spec B1', 'spec B6'),
    parts=('claimed_by',),
    applies=lambda s, c: c is not None
    and (
        (c.is_stream and bool(c.chunks) and _mine_to_refuse(s, c.format))
        or (c.final_message is not None and _mine_to_refuse(s, c.expect.get("claimed_by")))
    ),
    needs="a case of another format (the bundled corpus has them)",
)
def refuses_foreign(subject: Subject, case: Case) -> None:
    s = subject.strategy
    if case.is_stream and case.chunks and _mine_to_refuse(subject, case.format):
        first = case.chunks[0]
        if s.recognizes(first):
            raise Failure(f"{subject.name}'s recognizes returned True on the first chunk of a {case.format} stream "
                          f"(case {case.id})", detail=f"a chain holding both may give that stream to {subject.name}",
                          chunks=[first])
        _refused_up_front(subject, case.format, first)
    claimant = case.expect.get("claimed_by")
    if case.final_message is not None and _mine_to_refuse(subject, claimant) and s.recognizes(case.final_message):
        level, why = part_level(case, "claimed_by")
        raise Failure(f"{subject.name}'s recognizes returned True on the message of case {case.id}, which belongs to "
                      f"{claimant}" + (f" ({level}: {why})" if why else ""),
                      detail=f"a chain holding both may give it to {subject.name} instead (natives never overlap, and a "
                      f"native one wins over a text one)\nthe message: {_shown(case.final_message)}",
                      level=level)


def _shown(message: Any, limit: int = 400) -> str:
    """The message as JSON text, cut at ``limit`` characters."""
    import json

    text = json.dumps(message, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _refused_up_front(subject: Subject, fmt: str, first: Any) -> None:
    """Fed to a buffer over the strategy alone, a foreign first chunk raises UnrecognizedStream
    naming the strategy and the chunk: the client learns which stream it mixed up, at once."""
    try:
        subject.buffer().feed(first)
    except UnrecognizedStream as exc:
        text = str(exc)
        if subject.name not in text or describe(first) not in text:
            raise Failure("UnrecognizedStream does not name the strategy asked and the chunk refused",
                          expected=f"mentions {subject.name!r} and {describe(first)}", actual=text) from exc
        return
    except Exception as exc:
        raise Failure(f"feeding the first chunk of a {fmt} stream raised {type(exc).__name__}, not "
                      f"UnrecognizedStream: {exc}", chunks=[first]) from exc
    raise Failure(f"a buffer over the strategy accepted the first chunk of a {fmt} stream", chunks=[first])
