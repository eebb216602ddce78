"""STRUCT: the object has every member of the protocol, with the right types."""

from __future__ import annotations

import inspect

from ..protocol import ToolCall
from .base import Failure, Subject, check

_METHODS = {
    "recognizes": 1,
    "accumulate": 2,
    "is_done": 1,
    "extract": 1,
    "content_text": 1,
    "forming_name": 1,
    "result_messages": 2,
}


@check(
    "STRUCT-001",
    "has every protocol member: name, leaks_into_text and the seven methods with their arities",
    why="the chain, buffer and driver call these members on every strategy",
    adr="Decision: Responsibilities",
    scope="strategy",
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
    adr="Decision: Responsibilities",
    applies=lambda s, c: c is not None and (c.format == s.name or c.expect.get("extracted_by") == s.name)
    and c.final_message is not None,
)
def return_types(subject: Subject, case) -> None:
    s, message = subject.strategy, case.final_message
    if case.expect.get("via_backup") and case.expect.get("extracted_by") == s.name:
        return  # the strategy reads the leaked text, not this message (EXTRACT-001 covers it)
    problems = []
    calls = s.extract(message)
    if not isinstance(calls, list):
        problems.append(f"extract returned {type(calls).__name__}, not list")
    else:
        for i, c in enumerate(calls):
            if not isinstance(c, ToolCall):
                problems.append(f"extract()[{i}] is {type(c).__name__}, not ToolCall")
            elif not isinstance(c.name, str) or not isinstance(c.arguments, dict):
                problems.append(f"extract()[{i}]: name must be str and arguments dict, got {c.name!r}, {c.arguments!r}")
            elif c.id is not None and not isinstance(c.id, str):
                problems.append(f"extract()[{i}].id must be str or None, got {c.id!r}")
    text = s.content_text(message)
    if not isinstance(text, str):
        problems.append(f"content_text returned {type(text).__name__}, not str")
    name = s.forming_name(message)
    if name is not None and not isinstance(name, str):
        problems.append(f"forming_name returned {type(name).__name__}, not str or None")
    for i, chunk in enumerate(case.chunks or []):
        done = s.is_done(chunk)
        if not isinstance(done, bool):
            problems.append(f"is_done(chunk {i}) returned {type(done).__name__}, not bool")
            break
    if problems:
        raise Failure("a protocol method returned the wrong type", detail="\n".join(problems))
