"""HISTORY: result_messages is a valid request in the format, pairs ids, replays what it must."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from ...reference.chain import ExtractionChain
from ...corpus_tools.corpus import Case
from ...reference.extraction import extract_calls
from ..json_patterns import find, values
from ...reference.protocol import ToolCall
from ...corpus_tools.schemas import load_schema
from .base import Failure, Subject, calls_view, check, executable, own_calls, own_unleaked_calls, records_for


def _history_schema(subject: Subject, fmt: str) -> dict[str, Any] | None:
    if fmt in subject.corpus.history_schemas:
        return subject.corpus.history_schemas[fmt]
    try:
        return load_schema(f"{fmt}.history.schema.json")
    except FileNotFoundError:
        return None


def _continuation(subject: Subject, case: Case) -> tuple[list[ToolCall], list[dict]]:
    """The calls and the continuation a driver gets: through the extraction axis of the
    default chain (``extract_calls(...).result_messages``), as a client builds it."""
    # a text strategy the default chain passes over for bare text is driven by a chain of its own
    chain = ExtractionChain([subject.strategy]) if subject.passed_over(case.final_message) else subject.chain()
    ex = extract_calls(case.final_message, chain, subject.backup(chain))
    if ex.strategy is not subject.strategy:
        raise Failure(f"the default chain's extraction axis handed the message to "
                      f"{ex.strategy.name if ex.strategy else None!r}, not to {subject.name!r}",
                      detail="see the CHAIN and EXTRACT items of this case")
    return list(ex.calls), ex.result_messages(records_for(ex.calls))


def _native_with(s: Subject, c: Case | None, key: str) -> bool:
    """As own_unleaked_calls, and the strategy's descriptor declares ``key`` in ``history``."""
    return own_unleaked_calls(s, c) and s.descriptor is not None and key in s.descriptor.history


@check(
    "HISTORY-001",
    "result_messages validates against the format's request-side history schema",
    why="the provider rejects a continuation it cannot parse; the turn is lost",
    level="must",
    sources=('spec per-format result_messages',),
    applies=lambda s, c: own_calls(s, c) and _history_schema(s, s.name) is not None,
    needs="a case it extracts with an executable call, and a history schema of its format (schemas/<format>.history.schema.json)",
)
def valid_request(subject: Subject, case: Case) -> None:
    _, history = _continuation(subject, case)
    errors = sorted(Draft202012Validator(_history_schema(subject, subject.name)).iter_errors(history), key=lambda e: list(e.path))
    if errors:
        detail = "\n".join(f"at $[{']['.join(map(str, e.path))}]: {e.message}" for e in errors[:5])
        # a schema that is the reference's own shape says so (``x-mcs-level``: level, why, source)
        rule = _history_schema(subject, subject.name).get("x-mcs-level") or {}
        raise Failure(f"result_messages is not a valid {subject.name} history"
                      + (f" ({rule['level']}: {rule['why']}; {rule['source']})" if rule else ""),
                      actual=history, detail=detail, level=rule.get("level"))


@check(
    "HISTORY-002",
    "every tool result's id pairs with a call in the replayed assistant turn, one result per call, "
    "in one message where the format says so",
    why="a result with a wrong or missing id is rejected by the provider or answers the wrong call",
    level="must",
    sources=('spec per-format result_messages', 'spec C4'),
    applies=lambda s, c: own_calls(s, c) and s.descriptor is not None and "result_ids" in s.descriptor.history,
    needs="a case it extracts with an executable call, and history.result_ids and call_ids in its descriptor",
)
def ids_pair(subject: Subject, case: Case) -> None:
    calls, history = _continuation(subject, case)
    h = subject.descriptor.history
    call_ids = values(history, h["call_ids"])
    result_ids = values(history, h["result_ids"])
    want = [c.id for c in calls if c.error is None]
    # a call that came without an id (none, or "") is answered under the id its replayed turn gives it
    own = set(want)
    matched = [w if w else (r if r not in own else None) for w, r in zip(want, result_ids)]
    if len(result_ids) != len(want) or result_ids != matched:
        raise Failure("the tool results do not answer the calls one by one, in order", expected=want, actual=result_ids,
                      detail=f"history: {history}")
    missing = [r for r in result_ids if r not in call_ids]
    if missing:
        raise Failure(f"results answer ids absent from the assistant turn: {missing}", actual=history)
    if h.get("results_in_one_message"):
        holders = sorted({path[0] for path, _ in find(history, h["result_ids"])})
        if len(holders) > 1:
            raise Failure(f"the format wants every tool result in one message; they are spread over messages {holders}",
                          actual=history)


@check(
    "HISTORY-003",
    "thinking signatures and reasoning items of the message are replayed in the assistant turn",
    why="providers reject or degrade a tool turn whose reasoning state was dropped",
    level="must",
    sources=('spec per-format result_messages (replayed state)',),
    applies=lambda s, c: own_unleaked_calls(s, c) and s.descriptor is not None and bool(s.descriptor.history.get("replay")),
    needs="a case it reads an executable call from itself, and history.replay in its descriptor",
)
def replayed(subject: Subject, case: Case) -> None:
    _, history = _continuation(subject, case)
    for i, rule in enumerate(subject.descriptor.history["replay"]):
        kept = values(case.final_message, rule["message"])
        if not kept:
            # nothing of it in this message (an optional key): nothing to replay. A path that
            # selects nothing in every case is a descriptor mistake, reported before the run
            # (corpus_tools/lint.py), never a failure of the strategy
            continue
        shown = values(history, rule["history"])
        if kept != shown:
            field = f"history.replay[{i}]"
            raise Failure(f"{rule.get('description', 'replayed state')} was not replayed as it was: the message holds "
                          f"{len(kept)} value(s) at {field}.message {rule['message']!r}, the continuation "
                          f"{len(shown)} at {field}.history {rule['history']!r}",
                          expected=kept, actual=shown)


@check(
    "HISTORY-004",
    "a call leaked as text gets a text-style continuation from the backup, not a native one",
    why="the model opened no native call id; a native tool answer would be rejected",
    level="must",
    sources=('spec X3',),
    applies=lambda s, c: c is not None and c.expect.get("via_backup") is True and c.expect.get("claimed_by") == s.name
    and executable(c) and s.reads_backup_of(c),
    needs="a message it claims whose call leaked into its text (expect.via_backup true)",
)
def leak_continuation(subject: Subject, case: Case) -> None:
    chain = subject.chain()
    backup = subject.backup(chain)
    ex = extract_calls(case.final_message, chain, backup)
    if not ex.via_backup or ex.strategy is not backup:
        raise Failure("the leaked call was not extracted by the backup text strategy",
                      expected=backup.name if backup else None, actual=ex.strategy.name if ex.strategy else None)
    history = ex.result_messages(records_for(ex.calls))
    schema = _history_schema(subject, backup.name)
    if schema is not None:
        errors = list(Draft202012Validator(schema).iter_errors(history))
        if errors:
            raise Failure(f"the leak continuation is not a valid {backup.name} history", actual=history,
                          detail="\n".join(e.message for e in errors[:5]))


@check(
    "HISTORY-005",
    "the replayed assistant turn, read back by the strategy, gives the message's executable calls and text",
    why="a continuation that replays other arguments, names or text than the model produced rewrites the "
    "conversation the model continues from (text dropped beside tool calls: langchain-ai/langchain-google#1706, "
    "vercel/ai PR#17371, HKUDS/nanobot PR#5783)",
    level="should",
    sources=('spec per-format result_messages',),
    applies=lambda s, c: _native_with(s, c, "assistant_turn"),
    needs="a case it reads an executable call from itself, and history.assistant_turn in its descriptor",
)
def reads_back(subject: Subject, case: Case) -> None:
    calls, history = _continuation(subject, case)
    turns = values(history, subject.descriptor.history["assistant_turn"])
    if len(turns) != 1:
        raise Failure(f"the continuation holds {len(turns)} assistant turns, not one", actual=history)
    s = subject.strategy
    want = [c for c in calls_view(calls) if not c["error"]]
    got = [c for c in calls_view(s.extract(turns[0])) if not c["error"]]
    for w, g in zip(want, got):
        if not w["id"]:  # a call that came without an id (none, or "") is replayed under one made up for it
            g["id"] = w["id"]
    if got != want:
        raise Failure("the replayed assistant turn reads back as other calls than the message's", expected=want,
                      actual=got, detail=f"assistant turn: {turns[0]}")
    text, shown = s.content_text(case.final_message), s.content_text(turns[0])
    if text != shown:
        raise Failure("the replayed assistant turn has other text than the message", expected=text, actual=shown)


_STRANGER = "call_mcs_not_in_this_message"


@check(
    "HISTORY-006",
    "a result for a call the message does not hold (with an id, or without one) is refused with a ValueError "
    "naming that id, or at least never answers an id absent from the assistant turn; a text strategy refuses "
    "the one without an id",
    why="a driver that mixes up results between turns must hear about it, and which record was wrong; a tool "
    "answer for an id the assistant turn lacks is rejected by the provider and loses the turn",
    level="should",
    sources=('spec P6',),
    applies=lambda s, c: _native_with(s, c, "result_ids") or (s.is_text and own_unleaked_calls(s, c)),
    needs="a case it reads an executable call from itself, and history.result_ids in its descriptor (a text strategy: the case alone)",
)
def stranger_refused(subject: Subject, case: Case) -> None:
    calls, _ = _continuation(subject, case)
    records = records_for(calls)
    paired = subject.descriptor is not None and "result_ids" in subject.descriptor.history
    # the strangers are made from the case's first executable call, so the check runs even
    # when the strategy extracted fewer calls than the case holds (EXTRACT-001 reports that)
    first = next(c for c in case.expect["calls"] if not c.get("error"))
    model = ToolCall(name=first["name"], arguments=first.get("arguments") or {}, id=first.get("id"))
    for extra in stranger_records(records[0].call if records else model):
        # without id paths, only a refusal can be checked: the id-less stranger (other
        # arguments) answers no call of the text whatever the format's ids
        if paired or extra.call.id is None:
            _refuses(subject, case, records, extra, paired)


def stranger_records(first: ToolCall) -> list[Any]:
    """Records for calls of another turn: ``first`` under an id the message lacks, and an
    id-less call of the same name with other arguments."""
    from ...reference.protocol import ToolCallRecord

    calls = (
        ToolCall(name=first.name, arguments=first.arguments, id=_STRANGER),
        ToolCall(name=first.name, arguments={"mcs": "a call of another turn, without an id"}, id=None),
    )
    return [ToolCallRecord(call=c, result="a result for a call of another turn") for c in calls]


def _refuses(subject: Subject, case: Case, records: list, extra: Any, paired: bool) -> None:
    stranger = extra.call
    try:
        history = subject.strategy.result_messages(case.final_message, [*records, extra])
    except ValueError as exc:
        if stranger.id is not None and stranger.id not in str(exc):
            raise Failure(f"result_messages refused a record of another turn (call id {stranger.id!r}) without "
                          f"naming the id: {exc!r}") from None
        return
    except Exception as exc:  # noqa: BLE001 -- the wrong exception type is the finding
        raise Failure(f"result_messages raised {type(exc).__name__} for a record of another turn (call id "
                      f"{stranger.id!r}), not ValueError: {exc}") from None
    if not paired:
        raise Failure(f"result_messages answered a record of another turn (a call of {stranger.name!r} with other "
                      f"arguments and no id): a text continuation must refuse it", actual=history)
    h = subject.descriptor.history
    call_ids, result_ids = values(history, h["call_ids"]), values(history, h["result_ids"])
    unpaired = [r for r in result_ids if r not in call_ids]
    if unpaired or len(result_ids) > len(records):
        raise Failure(f"result_messages answered a record of another turn (call id {stranger.id!r})",
                      detail=f"the records answered {[r.call.id for r in records]} and a call of another turn; "
                      f"results answering ids the turn does not hold: {unpaired}", actual=history)
