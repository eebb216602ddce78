"""GOLDEN: the strategy's outputs per case match its reviewed syrupy snapshot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...corpus_tools.corpus import Case
from ...reference.errors import MCSError
from ...reference.extraction import extract_calls
from ...reference.protocol import ToolCall
from .base import Failure, NoSnapshot, Subject, attempt, check, feed_all, records_for

_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # syrupy colours its diff; a report must be plain text


def _calls(calls: Any) -> list[dict[str, Any]]:
    """Calls in full: the error's wording and the raw argument text are reviewed too."""
    return [{"name": c.name, "arguments": c.arguments, "id": c.id, "raw_arguments": c.raw_arguments,
             "error": c.error} for c in calls]


def _error(exc: BaseException) -> dict[str, str]:
    """An exception as reviewed output: its type and its text."""
    return {"error": type(exc).__name__, "detail": str(exc)}


def _extraction(subject: Subject, message: Any) -> dict[str, Any]:
    """What a driver gets with the strategy in the default chain: who claims the message,
    who extracts, and the continuation it shapes for made-up results."""
    chain = subject.chain()
    ex = extract_calls(message, chain, subject.backup(chain))
    out: dict[str, Any] = {
        "resolved": ex.resolved.name if ex.resolved else None,
        "strategy": ex.strategy.name if ex.strategy else None,
        "via_backup": ex.via_backup,
        "source": "the message" if ex.source is message else ex.source,
    }
    records = records_for(ex.calls)
    if records:
        try:
            out["continuation"] = ex.result_messages(records)
        except Exception as exc:  # noqa: BLE001 -- the failure itself is the output under review
            out["continuation"] = _error(exc)
    return out


def outputs(subject: Subject, case: Case) -> dict[str, Any]:
    """Everything a strategy says about a case, as plain JSON, for a snapshot."""
    s = subject.strategy
    out: dict[str, Any] = {}
    message = case.message
    if case.is_stream:
        try:
            buf, deltas = feed_all(subject, case.chunks)
        except MCSError as exc:
            return _error(exc)
        message = buf.as_dict()
        out.update(message=message, display=deltas, done=buf.done)
    if not s.recognizes(message):
        out["claims_message"] = False
        out["extraction"] = _extraction(subject, message)  # who takes it instead, if anyone
        return out
    out["calls"] = _calls(s.extract(message))
    out["content_text"] = s.content_text(message)
    out["forming_name"] = s.forming_name(message)
    out["extraction"] = _extraction(subject, message)
    return out


@check(
    "GOLDEN-001",
    "the strategy's outputs for the case equal its snapshot (refresh with --snapshot-update)",
    why="a change in what a strategy returns shows up as a reviewed diff, not by surprise",
    level="must",
    sources=("the strategy's own reviewed snapshot",),
    applies=lambda s, c: c is not None and s.reads_backup_of(c) and (
        s.own_stream(c) or c.expect.get("claimed_by") == s.name or (c.format == s.name and not c.is_stream)),
    needs="a stream case of its format, or a message case it claims",
)
def golden(subject: Subject, case: Case) -> None:
    _compare(subject, outputs(subject, case))


def _compare(subject: Subject, got: dict[str, Any]) -> None:
    snapshot = subject.settings["snapshot"]
    location = Path(snapshot.extension.get_location(test_location=snapshot.test_location, index=snapshot.index))
    option = snapshot.session.pytest_session.config.option
    updating = getattr(option, "update_snapshots", False) or getattr(option, "update_new_snapshots_only", False)
    if not updating and not location.is_file():
        raise NoSnapshot(f"no golden snapshot yet: {location.name} (create them with --snapshot-update)")
    try:
        assert snapshot == got
    except AssertionError:
        diff = _ANSI.sub("", "\n".join(str(line) for line in snapshot.get_assert_diff()))
        raise Failure(
            "the outputs differ from the reviewed snapshot",
            detail=diff + "\n\nIf the change is intended, accept it with --snapshot-update and commit the __snapshots__ folder.",
        ) from None


def _plain(value: Any) -> Any:
    """An answer as JSON: calls in full, an exception as its type and text."""
    if isinstance(value, BaseException):
        return _error(value)
    if isinstance(value, list) and value and all(isinstance(c, ToolCall) for c in value):
        return _calls(value)
    return value


def non_message_outputs(subject: Subject) -> dict[str, Any]:
    """What the strategy, and a driver with it in the default chain, make of each non-message."""
    from .struct import NON_MESSAGES, answered_message, answers, non_record_answers

    out: dict[str, Any] = {}
    for label, value in NON_MESSAGES:
        chain = subject.chain()
        driver: Any
        try:
            ex = extract_calls(value, chain, subject.backup(chain))
        except Exception as exc:  # noqa: BLE001 -- a refusal is an answer too
            driver = _plain(exc)
        else:
            driver = {"resolved": ex.resolved.name if ex.resolved else None,
                      "strategy": ex.strategy.name if ex.strategy else None,
                      "calls": _calls(ex.calls), "continuation": _plain(attempt(lambda: ex.result_messages([])))}
        out[label] = {**{method: _plain(got) for method, got in answers(subject, value).items()}, "driver": driver}
    message = answered_message(subject)
    if message is not None:
        out["result_messages with a non-record"] = {label: _plain(got) for label, got
                                                    in non_record_answers(subject, message).items()}
        out["result_messages with a record of another turn"] = _stranger_answers(subject, message)
    render = getattr(subject.strategy, "render", None)
    if subject.is_text and callable(render):
        out["render"] = {label: _plain(attempt(lambda: render(calls))) for label, calls in _RENDERED}
    return out


# What a text strategy's render is asked to write: the exact text, and the refusals, are reviewed.
_RENDERED: tuple[tuple[str, list[Any]], ...] = (
    ("two calls, one with an id, not ASCII", [ToolCall("get_weather", {"city": "Zürich"}, "call_1"),
                                               ToolCall("météo", {})]),
    ("a call whose arguments are no JSON (NaN)", [ToolCall("f", {"v": float("nan")})]),
    ("an object that is no call", ["get_weather"]),
)


def _stranger_answers(subject: Subject, message: Any) -> dict[str, Any]:
    """What result_messages makes of the message's records plus one for a call of another turn."""
    from .history import stranger_records

    s = subject.strategy
    records = records_for(s.extract(message))
    return {f"id {extra.call.id!r}": _plain(attempt(lambda: s.result_messages(message, [*records, extra])))
            for extra in stranger_records(records[0].call)}


@check(
    "GOLDEN-002",
    "what the strategy answers, and raises, for objects that are no message (and records that are no "
    "ToolCallRecord) equals its snapshot",
    why="error texts are part of what an author ships: a changed or emptied message shows up as a reviewed "
    "diff, not in a user's log",
    level="must",
    sources=("the strategy's own reviewed snapshot",),
    scope="strategy",
    needs="nothing: it runs once per strategy",
)
def golden_non_messages(subject: Subject, case: None) -> None:
    _compare(subject, non_message_outputs(subject))
