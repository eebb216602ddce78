"""STRUCT: the object has every member of the protocol, with the right types."""

from __future__ import annotations

import inspect
from typing import Any

from ...reference.protocol import ExtractionStrategy, ToolCall, protocol_members
from .base import Failure, Subject, attempt, check, own_unleaked_calls, records_for

# each protocol method and how many arguments it takes, read from the protocol itself
_METHODS = {member: len(inspect.signature(getattr(ExtractionStrategy, member)).parameters) - 1
            for member in protocol_members() if callable(getattr(ExtractionStrategy, member, None))}


@check(
    "STRUCT-001",
    "has every protocol member: name, leaks_into_text and the seven methods with their arities",
    why="the chain, buffer and driver call these members on every strategy",
    level="must",
    sources=('spec P1',),
    scope="strategy",
    needs="nothing: it runs once per strategy",
)
def members(subject: Subject, case: None) -> None:
    s = subject.strategy
    problems = []
    name = getattr(s, "name", None)
    if not isinstance(name, str) or not name:
        problems.append(f"name must be a non-empty str, got {name!r}")
    if not isinstance(getattr(s, "leaks_into_text", None), bool):
        problems.append(f"leaks_into_text must be a bool, got {getattr(s, 'leaks_into_text', None)!r}")
    for method, arity in _METHODS.items():
        fn = getattr(s, method, None)
        if not callable(fn):
            problems.append(f"{method} is missing or not callable")
            continue
        try:
            inspect.signature(fn).bind(*([None] * arity))
        except TypeError:
            problems.append(f"{method} cannot be called with {arity} argument(s)")
        except ValueError:
            pass  # builtins without a signature
    if problems:
        raise Failure("the strategy does not implement the ExtractionStrategy protocol", detail="\n".join(problems))


@check(
    "STRUCT-002",
    "returns the protocol's types on its own cases: bool, str, str|None, list[ToolCall]",
    why="a wrong type surfaces far away, in the driver, as a crash or a silent wrong answer",
    level="must",
    sources=('spec P4', 'spec P5'),
    applies=lambda s, c: c is not None and (c.format == s.name or c.expect.get("extracted_by") == s.name)
    and c.final_message is not None,
    needs="a case of its format, or one it extracts",
)
def return_types(subject: Subject, case) -> None:
    s, message = subject.strategy, case.final_message
    if case.expect.get("via_backup") and case.expect.get("extracted_by") == s.name:
        return  # the strategy reads the leaked text, not this message (EXTRACT-001 covers it)
    problems = []
    # a message the strategy does not claim may be refused with a ValueError (docs/authoring.md)
    refusable = case.expect.get("claimed_by") != s.name
    calls = attempt(lambda: s.extract(message))
    text = attempt(lambda: s.content_text(message))
    name = attempt(lambda: s.forming_name(message))
    for got in (calls, text, name):
        if isinstance(got, BaseException) and not (refusable and isinstance(got, ValueError)):
            raise got
    if isinstance(calls, ValueError):
        pass  # refused, as it may be
    elif not isinstance(calls, list):
        problems.append(f"extract returned {type(calls).__name__}, not list")
    else:
        for i, c in enumerate(calls):
            if not isinstance(c, ToolCall):
                problems.append(f"extract()[{i}] is {type(c).__name__}, not ToolCall")
            elif not isinstance(c.name, str) or not isinstance(c.arguments, dict):
                problems.append(f"extract()[{i}]: name must be str and arguments dict, got {c.name!r}, {c.arguments!r}")
            elif c.id is not None and not isinstance(c.id, str):
                problems.append(f"extract()[{i}].id must be str or None, got {c.id!r}")
    if not isinstance(text, (str, ValueError)):
        problems.append(f"content_text returned {type(text).__name__}, not str")
    if name is not None and not isinstance(name, (str, ValueError)):
        problems.append(f"forming_name returned {type(name).__name__}, not str or None")
    for i, chunk in enumerate(case.chunks or []):
        done = s.is_done(chunk)
        if not isinstance(done, bool):
            problems.append(f"is_done(chunk {i}) returned {type(done).__name__}, not bool")
            break
    if problems:
        raise Failure("a protocol method returned the wrong type", detail="\n".join(problems))


# Objects that are no assembled message of any format: what a driver hands a strategy by
# mistake, or before the first chunk (as_dict() is None then). GOLDEN-002 reviews the answers.
NON_MESSAGES: tuple[tuple[str, object], ...] = (
    ("None", None),
    ("a number", 0),
    ("a list", ["a", 1]),
    ("an empty object", {}),
)


def answers(subject: Subject, value: object) -> dict[str, object]:
    """What each reading method makes of ``value``: its result, or the exception it raised."""
    s = subject.strategy
    calls = (
        ("extract", lambda: s.extract(value)),
        ("content_text", lambda: s.content_text(value)),
        ("forming_name", lambda: s.forming_name(value)),
        ("result_messages", lambda: s.result_messages(value, [])),
    )
    return {method: attempt(call) for method, call in calls}


_RETURNS = {
    "extract": lambda v: isinstance(v, list) and all(isinstance(c, ToolCall) for c in v),
    "content_text": lambda v: isinstance(v, str),
    "forming_name": lambda v: v is None or isinstance(v, str),
    "result_messages": lambda v: isinstance(v, list) and all(isinstance(m, dict) for m in v),
}


@check(
    "STRUCT-003",
    "extract, content_text, forming_name and result_messages given a non-message (None, a number, a list, "
    "an empty object) return the protocol's type or raise ValueError, never another exception",
    why="a driver reads as_dict() before the first chunk (None) and may hand over the wrong object; it must "
    "get an answer or a clear error, never a crash from deep inside the strategy",
    level="should",
    sources=('spec P5',),
    scope="strategy",
    needs="nothing: it runs once per strategy",
)
def non_messages(subject: Subject, case: None) -> None:
    problems = []
    for label, value in NON_MESSAGES:
        for method, got in answers(subject, value).items():
            if isinstance(got, ValueError):
                continue
            if isinstance(got, BaseException):
                problems.append(f"{method}({label}: {value!r}) raised {type(got).__name__}: {got}")
            elif not _RETURNS[method](got):
                problems.append(f"{method}({label}: {value!r}) returned {got!r}, not the protocol's type")
    if problems:
        raise Failure("a reading method crashed on, or mistyped its answer to, an object that is no message",
                      detail="\n".join(problems))


# What a driver passes as records by mistake: its own result dicts, or bare ids.
NON_RECORDS: tuple[tuple[str, object], ...] = (
    ("a string", "call_1"),
    ("a dict", {"call": {"name": "get_weather", "arguments": {}}, "result": "21 C"}),
)


def answered_message(subject: Subject) -> Any:
    """The first message (by case id) whose executable calls the strategy itself extracts, or None."""
    for case in sorted(subject.corpus.cases, key=lambda c: c.id):
        if own_unleaked_calls(subject, case):
            return case.final_message
    return None


def non_record_answers(subject: Subject, message: Any) -> dict[str, object]:
    """What result_messages makes of each non-record placed after the message's own records."""
    s = subject.strategy
    records = records_for(s.extract(message))
    return {label: attempt(lambda: s.result_messages(message, [*records, bad])) for label, bad in NON_RECORDS}


@check(
    "STRUCT-004",
    "result_messages given a record that is no ToolCallRecord (a string, a dict) raises ValueError",
    why="a driver that passes its own result dicts must hear so at once, not meet an AttributeError from deep "
    "inside the strategy or a continuation that drops the result",
    level="reference",
    sources=('spec P6',),
    scope="strategy",
    applies=lambda s, c: answered_message(s) is not None,
    needs="a case it reads an executable call from itself",
)
def non_records(subject: Subject, case: None) -> None:
    problems = []
    for label, got in non_record_answers(subject, answered_message(subject)).items():
        if isinstance(got, ValueError) and str(got):
            continue
        if isinstance(got, BaseException):
            problems.append(f"a record that is {label} raised {type(got).__name__}: {got}")
        else:
            problems.append(f"a record that is {label} was accepted: {got!r}"[:300])
    if problems:
        raise Failure("result_messages did not refuse records that are no ToolCallRecord with a ValueError",
                      detail="\n".join(problems))
