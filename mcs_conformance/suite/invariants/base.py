"""The machinery every invariant shares: the registry, the subject under test, failures."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ...reference.buffer import LLMStreamBuffer
from ...reference.chain import ExtractionChain
from ...corpus_tools.corpus import Case, Corpus, Descriptor
from ...reference.protocol import ExtractionStrategy, ToolCall
from ..exception_marks import mark, marked
from ..made_up_ids import SOURCE, made_up_ids, masked, settled

__all__ = [
    "CHECKS",
    "Check",
    "Failure",
    "LEVELS",
    "Subject",
    "accepted_refusal",
    "calls_level",
    "calls_view",
    "check",
    "comparable",
    "expect_part",
    "feed_all",
    "is_text_strategy",
    "feed_case",
    "refused",
    "json_safe",
    "native_view",
    "note_case",
    "noted_case",
    "same",
]


LEVELS = ("must", "should", "reference")


class Failure(AssertionError):
    """An invariant does not hold. Carries what an author needs to see and reproduce it.

    ``level`` is the level of the rule that broke when it is not the check's own (a check
    whose comparison holds parts of several levels says which part failed).
    """

    def __init__(
        self,
        summary: str,
        *,
        expected: Any = None,
        actual: Any = None,
        chunks: list[Any] | None = None,
        detail: str = "",
        has_diff: bool | None = None,
        level: str | None = None,
    ) -> None:
        super().__init__(summary)
        if level is not None and level not in LEVELS:
            raise ValueError(f"unknown level {level!r}")
        self.level = level
        self.summary = summary
        self.expected = expected
        self.actual = actual
        self.chunks = chunks
        self.detail = detail
        self.has_diff = has_diff if has_diff is not None else (expected is not None or actual is not None)


class NoSnapshot(Exception):
    """A golden snapshot does not exist yet (and the run is not creating snapshots)."""


@dataclass(frozen=True)
class Check:
    """One invariant: a stable public ``id``, its family, what it checks and why.

    ``level`` says how binding the rule is: ``must`` (the provider's API, the official SDK's
    result on the same chunks, or ADR-0001's text), ``should`` (a safety rule against a named
    hazard) or ``reference`` (the reference implementation's choice where those leave room).
    ``sources`` name where the rule comes from; ``parts`` the parts of a case's expectation
    it judges, whose level a case may set (``expect.levels``, with a source).
    """

    id: str
    family: str
    title: str
    why: str
    scope: str  # "case": one item per applicable case; "strategy": one item per strategy
    applies: Callable[["Subject", Case | None], bool]
    run: Callable[["Subject", Case | None], None]
    hypothesis: bool = False
    level: str = "must"
    sources: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()  # the parts of a case's expectation it judges (their ``expect.levels`` apply)
    needs: str = ""  # what kind of case (or descriptor field) gives it an item, for the summary of unrun checks


CHECKS: dict[str, Check] = {}
RETIRED: dict[str, str] = {}  # id -> why it was retired; retired ids are never reused


def check(
    id: str,
    title: str,
    *,
    why: str,
    scope: str = "case",
    applies: Callable[["Subject", Case | None], bool] = lambda s, c: True,
    hypothesis: bool = False,
    level: str = "must",
    sources: tuple[str, ...] = (),
    parts: tuple[str, ...] = (),
    needs: str = "",
) -> Callable[[Callable[["Subject", Case | None], None]], Callable[["Subject", Case | None], None]]:
    """Register an invariant under a stable id (``FAMILY-NNN``) at its level; ``needs`` says what
    kind of case or descriptor field gives it an item (the summary names every check without one)."""
    if level not in LEVELS:
        raise ValueError(f"{id}: unknown level {level!r}")

    def register(fn: Callable[["Subject", Case | None], None]) -> Callable[["Subject", Case | None], None]:
        if id in CHECKS or id in RETIRED:
            raise RuntimeError(f"invariant id {id} is registered twice")
        family = id.rsplit("-", 1)[0]
        CHECKS[id] = Check(id, family, title, why, scope, applies, fn, hypothesis, level, tuple(sources), tuple(parts),
                           needs)
        return fn

    return register


@dataclass
class Subject:
    """The strategy under test, the corpus, and the chain it takes its place in.

    ``chain_factory`` builds the author's declared chain (``--mcs-chain`` / ``chain``: the
    chain their driver ships) and ``backup_factory`` their backup text strategy; without
    them the chain is the reference's default chain.
    """

    strategy: ExtractionStrategy
    corpus: Corpus
    spec: str = ""
    chain_factory: Callable[[], ExtractionChain | Iterable[ExtractionStrategy]] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    backup_factory: Callable[[], ExtractionStrategy] | None = None
    claimed_first: dict[str, str] = field(default_factory=dict)  # own case id -> the reference strategy claiming it first
    stands_for: str | None = None  # the format whose cases it runs under its own name (suite/formats.py)

    @property
    def name(self) -> str:
        return str(getattr(self.strategy, "name", "?"))

    @cached_property
    def is_text(self) -> bool:
        """Text strategies claim bare strings; native ones claim envelopes."""
        return is_text_strategy(self.strategy)

    @property
    def descriptor(self) -> Descriptor | None:
        return self.corpus.descriptors.get(self.name)

    @property
    def declared(self) -> bool:
        """Does the run use the author's own chain rather than the reference's default one?"""
        return self.chain_factory is not None

    def chain(self) -> ExtractionChain:
        """A fresh chain with the strategy in its place (DESIGN: The plugin): the author's
        declared one, else the default chain. The strategy stands in for the member of its
        name (or of the format it stands for); else a native one goes before the first text
        strategy, a text one last."""
        from ...reference.strategies import default_chain

        base = list((self.chain_factory or default_chain)())
        names = [s.name for s in base]
        if self.name in names:
            base[names.index(self.name)] = self.strategy
        elif self.stands_for in names:
            base[names.index(self.stands_for)] = self.strategy
        elif self.is_text:
            base.append(self.strategy)
        else:
            first_text = next((i for i, s in enumerate(base) if is_text_strategy(s)), len(base))
            base.insert(first_text, self.strategy)
        return ExtractionChain(base)

    @cached_property
    def chain_names(self) -> frozenset[str]:
        """The names of the chain's strategies (the subject's among them)."""
        return frozenset(s.name for s in self.chain())

    def backup(self, chain: ExtractionChain) -> ExtractionStrategy | None:
        """The backup text strategy: the strategy itself when it is a text one, else the
        declared backup (the chain's member of that name when it has one), else the chain's
        last text one."""
        if self.is_text:
            return self.strategy
        if self.backup_factory is not None:
            declared = self.backup_factory()
            return self.strategy_named(declared.name, chain) or declared
        texts = [s for s in chain if is_text_strategy(s)]
        return texts[-1] if texts else None

    def passed_over(self, message: object) -> bool:
        """True for bare text and a text strategy the default chain never hands it to: the
        chain gives bare strings to its first text strategy, and an added one (Hermes, ...)
        goes after text-json."""
        if not (self.is_text and isinstance(message, str)):
            return False
        first = next((s.name for s in self.chain() if is_text_strategy(s)), None)
        return self.name != first

    def reads_backup_of(self, case: Case | None) -> bool:
        """False for a leak case (``via_backup``) whose backup is a text strategy that is neither
        this strategy nor a member of its chain: the case states how that format's backup reads
        the leaked text (a Mistral call in an Anthropic message), which says nothing about a
        chain that holds another backup."""
        if case is None or not case.expect.get("via_backup"):
            return True
        reader = case.expect.get("extracted_by")
        return reader is None or reader == self.name or reader in self.chain_names

    def strategy_named(self, name: str | None, chain: ExtractionChain) -> ExtractionStrategy | None:
        for s in chain:
            if s.name == name:
                return s
        return None

    def buffer(self) -> LLMStreamBuffer:
        """A buffer over the strategy alone: reassembly is tested without the chain."""
        return LLMStreamBuffer([self.strategy])

    def own_stream(self, case: Case | None) -> bool:
        return case is not None and case.is_stream and case.format == self.name


def is_text_strategy(strategy: ExtractionStrategy) -> bool:
    """Does the strategy claim bare strings (a text strategy)? A recognizes that raises is no
    text strategy either."""
    try:
        return strategy.recognizes("") is True
    except Exception:
        return False


def with_wire(chain: ExtractionChain, fmt: str) -> ExtractionChain:
    """The chain, with the reference strategy of the wire ``fmt`` before its first text strategy
    when no member has that name: text carried over a native wire outside the default chain
    (ollama) is read by a driver that holds that wire's strategy."""
    members = list(chain)
    if any(s.name == fmt for s in members):
        return chain
    from ...reference.strategies import by_name

    wire = by_name(fmt)
    if wire is None:
        return chain
    first_text = next((i for i, s in enumerate(members) if is_text_strategy(s)), len(members))
    return ExtractionChain([*members[:first_text], wire, *members[first_text:]])


def feed_all(subject: Subject, chunks: Iterable[Any]) -> tuple[LLMStreamBuffer, list[str]]:
    """Feed chunks to a fresh buffer over the strategy; return it and the deltas."""
    buf = subject.buffer()
    deltas = [buf.feed(c) for c in chunks]
    return buf, deltas


def calls_view(calls: Iterable[ToolCall | dict]) -> list[dict[str, Any]]:
    """Calls as comparable dicts: name, arguments, id, and whether they carry an error. An
    error call is never run, so what it holds as arguments is free (and left out)."""
    out = []
    for c in calls:
        if isinstance(c, ToolCall):
            seen = {"name": c.name, "arguments": c.arguments, "id": c.id, "error": c.error is not None}
        else:
            seen = {"name": c["name"], "arguments": c.get("arguments", {}), "id": c.get("id"), "error": bool(c.get("error"))}
        if seen["error"]:
            seen["arguments"] = None
        out.append(seen)
    return out


def native_view(message: Any) -> Any:
    """The message without the strategy's own top-level ``mcs_*`` annotations.

    docs/spec.md lets a strategy mark its live message with top-level ``mcs_*`` keys, which
    the reading methods ignore; the provider's stream=false message never has such keys, so
    PARITY compares without them.
    """
    if isinstance(message, dict) and any(isinstance(k, str) and k.startswith("mcs_") for k in message):
        return {k: v for k, v in message.items() if not (isinstance(k, str) and k.startswith("mcs_"))}
    return message


def same(a: Any, b: Any) -> bool:
    """Equal as data: ``==``, or equal serializations, so that NaN equals NaN (a strategy that
    parses NaN gives the same answer twice, though ``nan != nan``) and tuples equal lists."""
    if a == b:
        return True
    try:
        return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return False


def json_safe(value: Any) -> bool:
    """Does ``value`` survive a JSON round trip unchanged?"""
    try:
        return json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        return False


# -- helpers shared by the check modules ----------------------------------------------------

def outcome(subject: Subject, chunks: list[Any], case: Case | None = None) -> dict[str, Any]:
    """What a stream yields: the message, calls, content text, done -- or the error raised.
    With the ``case`` the stream was made from, each id the strategy made up for a call the
    case has without one is written as its call's placeholder (``made_up_ids``): two runs that
    made up two ids yield the same."""
    from ...reference.errors import MCSError

    try:
        buf, deltas = feed_all(subject, chunks)
    except MCSError as exc:
        return {"error": type(exc).__name__}
    message = buf.as_dict()
    result = {
        "message": message,
        "calls": read_calls(subject, message),
        "display": "".join(deltas),
        "done": buf.done,
    }
    return result if case is None else masked(result, made_up_ids(case, result["calls"]))


def comparable(subject: Subject, case: Case, message: Any) -> Any:
    """``message`` with the ids the strategy made up for calls the case has without one
    written as placeholders (``made_up_ids``), for comparing two runs' messages."""
    try:
        calls = read_calls(subject, message)
    except Exception:  # noqa: BLE001 -- extraction is judged elsewhere; without calls nothing is masked
        return message
    return masked(message, made_up_ids(case, calls))


def read_calls(subject: Subject, message: Any) -> list[dict[str, Any]] | str:
    """The strategy's calls in ``message`` as comparable dicts; "refused" when the strategy
    refuses a message it does not claim."""
    calls = extract_unclaimed(subject, message)
    return "refused" if calls is None else calls_view(calls)


def extract_unclaimed(subject: Subject, message: Any) -> list[ToolCall] | None:
    """``extract(message)``, or None when the strategy refuses with a ValueError a message it
    does not claim (docs/authoring.md allows it: a live message may be another format's
    until its first call arrives)."""
    try:
        return subject.strategy.extract(message)
    except ValueError:
        if subject.strategy.recognizes(message) is True:
            raise
        return None


_READ_CASE = "_mcs_case_read"


def note_case(exc: BaseException, case: Case) -> None:
    """Name on ``exc`` the case whose input the strategy was reading when it raised, for a
    check that reads many cases' messages in one item (CHAIN-002): the failure is weighed at
    the level that case gives the part read (``judging.crash_level``). The first name stays."""
    mark(exc, _READ_CASE, case.id)


def noted_case(exc: BaseException) -> str | None:
    """The case id ``note_case`` put on ``exc`` or an exception it came from, or None."""
    return marked(exc, _READ_CASE)


def expected_error(case: Case) -> str | None:
    return case.raises


def part_level(case: Case, part: str) -> tuple[str | None, str]:
    """(level, why) of one part of the case's expectation where the case sets it
    (``expect.levels``, each with its source); ``(None, "")`` where it does not: the part then
    takes the level of the rule its check enforces, the check's declared level (the plugin
    reads a ``Failure`` without a level so), never ``must`` by default."""
    rule = case.expect.get("levels", {}).get(part)
    return (rule["level"], rule["why"]) if rule else (None, "")


_NEVER_RUN = ("should", "a call the case expects as an error call must never be executable (docs/spec.md C3, C4, "
                        "C6: a lenient parse or an unfinished call runs a tool with arguments the model never sent)")


def calls_level(want: Any, got: Any, level: str | None, why: str) -> tuple[str | None, str]:
    """The level of the rule a difference in the calls breaks. Where every difference is at a
    call the case expects as an error call and the strategy made it executable, the rule is
    C3/C4/C6 (``should``), whatever the part's own level; where such a call runs beside other
    differences, the part's level is at least ``should``; else the part's own level."""
    if not (isinstance(want, list) and isinstance(got, list)):
        return level, why
    unsafe = any(isinstance(w, dict) and isinstance(g, dict) and w.get("error") and not g.get("error")
                 for w, g in zip(want, got))
    if not unsafe:
        return level, why
    differs = [i for i, (w, g) in enumerate(zip(want, got)) if not same(w, g)]
    if len(want) == len(got) and all(want[i].get("error") for i in differs):
        return _NEVER_RUN
    return _NEVER_RUN if level == "reference" else (level, why)


def expect_part(case: Case, part: str, got: Any, summary: str, *, view: Callable[[Any], Any] = lambda v: v,
                calls: Any = None, **evidence: Any) -> None:
    """Judge the strategy's answer ``got`` for one part of the case's expectation.

    The reference's answer passes. Another answer the case accepts (``expect.accept``: the
    SDK's, where the reference chose otherwise), or the same answer with an id the strategy
    made up for a call the wire sends without one (``made_up_ids``; ``calls`` are the
    strategy's calls where ``got`` is not), is a difference at the reference level. Any other
    answer breaks the part's rule: the level the case gives the part (``expect.levels``), else
    the check's own; for calls, the never-executable rule where that is what broke
    (``calls_level``).
    """
    want = view(case.expect.get(part))
    if same(got, want):
        return
    ids = made_up_ids(case, got if part == "calls" else calls)
    answers = [("", None, want)] + [(alt["why"], alt["source"], view(alt[part]))
                                    for alt in case.expect.get("accept", ()) if part in alt]
    for why, source, answer in answers:
        if why and same(got, answer):
            raise Failure(f"{summary}: the answer is another accepted one ({why}; {source})",
                          level="reference", expected=want, actual=got, **evidence)
        if ids and same(settled(got, answer, ids), answer):
            raise Failure(f"{summary}: the answer is " + (f"another accepted one ({why}; {source}) " if why else
                          "the case's ") + f"but for {SOURCE}", level="reference", expected=want, actual=got,
                          **evidence)
    level, why = part_level(case, part)
    if part == "calls":
        level, why = calls_level(want, got, level, why)
    raise Failure(summary + (f" ({level}: {why})" if why else ""), level=level, expected=want, actual=got, **evidence)


def feed_case(subject: Subject, case: Case, chunks: list[Any] | None = None) -> tuple[LLMStreamBuffer, list[str]]:
    """Feed the case's chunks (or ``chunks``); a refusal the case does not expect is judged
    here: another accepted answer (``expect.accept`` with an ``error``) is a difference at
    the reference level, anything else breaks the ``error`` part's rule."""
    from ...reference.errors import MCSError

    chunks = case.chunks if chunks is None else chunks
    try:
        return feed_all(subject, chunks)
    except MCSError as exc:
        judged = refused(case, exc, chunks)
        if judged is exc:
            raise
        raise judged from exc


def accepted_refusal(case: Case, kind: str | None) -> dict[str, Any] | None:
    """The alternative of ``expect.accept`` that accepts a refusal of type ``kind``, or None."""
    return next((alt for alt in case.expect.get("accept", ()) if (alt.get("error") or {}).get("type") == kind), None)


def refused(case: Case, exc: Exception, chunks: list[Any] | None = None) -> BaseException:
    """What an error feeding the case's stream stands for: the error itself when the case
    expects it; a difference at the reference level when the case accepts that refusal
    (``expect.accept`` with an ``error``); else a break of the ``error`` part's rule."""
    kind = type(exc).__name__
    alt = accepted_refusal(case, kind)
    if alt is not None:
        return Failure(f"the strategy refused the stream ({kind}: {exc}), an accepted answer "
                       f"({alt['why']}; {alt['source']})", level="reference")
    if case.raises == kind:
        return exc
    level, why = part_level(case, "error")
    return Failure(f"feeding the stream raised {kind}: {exc}; the case expects "
                   f"{'a ' + case.raises if case.raises else 'no error'}" + (f" ({level}: {why})" if why else ""),
                   level=level, chunks=chunks)


def attempt(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the exception it raised: a refusal is an answer under review too."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 -- what the strategy raises is the answer
        return exc


def executable(case: Case) -> bool:
    """Does the case expect at least one executable call?"""
    return any(not c.get("error") for c in case.expect.get("calls", []))


def own_calls(subject: Subject, case: Case | None) -> bool:
    """The strategy itself extracts the case's message, and it holds an executable call."""
    return (case is not None and case.expect.get("extracted_by") == subject.name and case.final_message is not None
            and executable(case))


def own_unleaked_calls(subject: Subject, case: Case | None) -> bool:
    """As own_calls, and the calls are read from the message itself, not leaked into its text."""
    return own_calls(subject, case) and not case.expect.get("via_backup")


def records_for(calls: Iterable[ToolCall]) -> list[Any]:
    """One made-up result per executable call, in call order; every second one is a failed
    run (``is_error``), so a format's error flag is replayed too."""
    from ...reference.protocol import ToolCallRecord

    executable = [c for c in calls if c.error is None]
    return [ToolCallRecord(call=c, result=f"result {i} of {c.name}", is_error=i % 2 == 1)
            for i, c in enumerate(executable)]


def positional_prefix_violation(got: list[ToolCall], final: list[dict[str, Any]]) -> str | None:
    """Why ``got`` (calls from a prefix) breaks PREFIX against ``final``, or None when it does not."""
    view = calls_view(got)
    for i, (call, seen) in enumerate(zip(got, view)):
        if not call.executable:  # an error, or no name: never run, whatever it holds
            continue
        if i >= len(final) or final[i]["error"]:
            return f"call {i} ({call.name!r}) is executable on a prefix but the finished stream has no executable call {i}"
        want = {k: final[i][k] for k in ("name", "arguments", "id")}
        have = {k: seen[k] for k in ("name", "arguments", "id")}
        if have != want:
            return f"call {i} is executable on a prefix but differs from the final call {i}"
    return None
