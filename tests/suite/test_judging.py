"""The level a failure reports when a strategy method raises (mcs_conformance/suite/judging.py).

docs/spec.md, "Which level a failure reports": an exception out of a reading method (a crash,
or a refusal) is weighed at the level of the part of the case's expectation that method answers
for, never above the check's level. The walk below runs every check on every case of every
bundled format where the spec allows less than the check's own level (a case that gives a part
a reading method answers for a level of its own, or expects only error calls; a report at the
check's level cannot exceed it anywhere else, which ``crash_level`` never does either), with a
strategy whose reading methods raise, through the suite's own judging, and holds each reported
level to that bound. The reference strategy's reading is left in place everywhere else.
"""

from __future__ import annotations

import re
import types

import pytest
from hypothesis import HealthCheck, Phase, settings

import mcs_conformance.suite.invariants  # noqa: F401  (registers the checks)
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.strategies import default_chain
from mcs_conformance.suite.invariants import CHECKS, LEVELS, Subject
from mcs_conformance.suite.judging import judge
from mcs_conformance.suite.time_limits import Breaker, Guarded

CORPUS = load_corpus()
FORMATS = [s.name for s in default_chain()]
# one example per property, no shrinking: a strategy that raises fails on the first one
QUICK = settings(max_examples=1, derandomize=True, database=None, deadline=None,
                 phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
# the parts of a case's expectation each method answers for, as docs/spec.md lists them
ANSWERS_FOR = {"extract": ["calls"], "content_text": ["content_text"], "forming_name": ["forming_name", "calls"]}
RAISED = re.compile(r"the strategy's (\w+) raised (\w+): ")


class Raising:
    """A reference strategy whose reading methods raise ``error`` (on every message, or on
    the messages ``only`` says); reassembly and recognition stay the reference's."""

    def __init__(self, inner, error=RuntimeError, only=None):
        self.inner, self.error, self.only = inner, error, only
        self.name, self.leaks_into_text = inner.name, inner.leaks_into_text

    def recognizes(self, shape):
        return self.inner.recognizes(shape)

    def accumulate(self, acc, chunk):
        return self.inner.accumulate(acc, chunk)

    def is_done(self, chunk):
        return self.inner.is_done(chunk)

    def _read(self, method, message, *rest):
        if self.only is None or self.only(message):
            raise self.error(f"{method} cannot read this")
        return getattr(self.inner, method)(message, *rest)

    def extract(self, message):
        return self._read("extract", message)

    def content_text(self, message):
        return self._read("content_text", message)

    def forming_name(self, message):
        return self._read("forming_name", message)

    def result_messages(self, message, records):
        return self._read("result_messages", message, records)


def _conf(strategy):
    breaker = Breaker()
    subject = Subject(Guarded(strategy, breaker), CORPUS, "test", settings={"hypothesis": QUICK, "shrink_budget": 0})
    return types.SimpleNamespace(subject=subject, breaker=breaker, timeout=0, expected={}, gate="must")


def _judged(conf, check, case):
    label = case.id if case is not None else conf.subject.name
    return judge(conf, types.SimpleNamespace(check=check, label=label, case=case, _request=None))


def _bound(check, case, method) -> tuple[str, str]:
    """The most binding level docs/spec.md allows for ``method`` raising while ``check`` reads
    ``case``, and why."""
    def weaker(a, b):
        return a if LEVELS.index(a) >= LEVELS.index(b) else b

    bound, why = check.level, f"{check.id} is {check.level}"
    if case is None:
        return bound, why
    levels = case.expect.get("levels", {})
    part = next((p for p in ANSWERS_FOR.get(method, []) if p in levels), None)
    if part is not None:
        return weaker(bound, levels[part]["level"]), f"{case.id} rates {part} {levels[part]['level']}"
    calls = case.expect.get("calls")
    if "calls" in ANSWERS_FOR.get(method, []) and calls and all(c.get("error") for c in calls):
        return weaker(bound, "should"), f"every call {case.id} expects is an error call (P5)"
    return bound, why


def _lowered(case) -> bool:
    """Does the spec allow a reading method's exception on this case less than a check's level?"""
    levels = case.expect.get("levels", {})
    calls = case.expect.get("calls")
    return any(p in levels for parts in ANSWERS_FOR.values() for p in parts) or bool(
        calls and all(c.get("error") for c in calls))


LOWERED = [c for c in CORPUS.cases if _lowered(c)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_failure_of_a_raising_method_is_weighed_above_what_the_spec_allows(fmt):
    strategy = Raising(next(s for s in default_chain() if s.name == fmt))
    conf = _conf(strategy)
    walked, raised, wrong = 0, 0, []
    for check in CHECKS.values():
        if check.family in ("GOLDEN", "COST", "DONE"):  # snapshots; timing; DONE feeds and asks is_done, reading nothing
            continue
        cases = [None] if check.scope == "strategy" else LOWERED
        for case in cases:
            if not check.applies(conf.subject, case):
                continue
            walked += 1
            verdict = _judged(conf, check, case)
            if verdict.failure is None:
                continue
            found = RAISED.search(getattr(verdict.failure, "summary", ""))
            if not found or found.group(2) != "RuntimeError":
                continue
            raised += 1
            bound, why = _bound(check, case, found.group(1))
            if LEVELS.index(verdict.level) < LEVELS.index(bound):
                wrong.append(f"{check.id}[{case.id if case else fmt}]: {found.group(1)} raised, reported "
                             f"{verdict.level}, but {why}")
    assert walked > 20 and raised > 10, (walked, raised)  # the walk reached the reading methods
    assert not wrong, f"{len(wrong)} items weighed above the spec's level:\n  " + "\n  ".join(wrong[:30])


def _item(fmt, check_id, case_id, **kw):
    strategy = Raising(next(s for s in default_chain() if s.name == fmt), **kw)
    conf = _conf(strategy)
    check = CHECKS[check_id]
    case = CORPUS.case(case_id) if case_id else None
    return _judged(conf, check, case)


def test_a_crash_on_a_case_that_rates_its_calls_should_is_should():
    # text-json/msg-nested-too-deeply: calls should (P5: model text nested too deeply is read without a crash)
    for check_id in ("EXTRACT-001", "STRUCT-002", "CHAIN-001"):
        verdict = _item("text-json", check_id, "text-json/msg-nested-too-deeply", error=RecursionError)
        assert (verdict.outcome, verdict.level) == ("differs", "should"), (check_id, verdict)
        assert "rates should" in verdict.failure.detail


def test_a_refusal_that_loses_only_error_calls_is_should_and_one_that_loses_a_call_that_runs_is_must():
    # every call of msg-native-unparsable-arguments is an error call: nothing that runs is lost
    verdict = _item("openai-chat", "EXTRACT-001", "openai-chat/msg-native-unparsable-arguments", error=ValueError)
    assert verdict.level == "should" and "P5" in verdict.failure.detail
    # msg-arguments-lone-surrogate's call runs: a crash loses it (C1, must)
    verdict = _item("openai-chat", "EXTRACT-001", "openai-chat/msg-arguments-lone-surrogate", error=TypeError)
    assert (verdict.outcome, verdict.level) == ("failed", "must")


def test_a_check_over_many_messages_weighs_a_crash_at_the_level_of_the_case_read():
    nested = CORPUS.case("text-json/msg-nested-too-deeply").final_message
    verdict = _item("text-json", "CHAIN-002", None, error=RecursionError, only=lambda m: m == nested)
    assert verdict.failure is not None and "RecursionError" in verdict.failure.summary
    assert verdict.level == "should" and "msg-nested-too-deeply" in verdict.failure.detail
    # the same crash on a message whose call runs, of a case that gives its calls no level: the check's own
    surrogate = CORPUS.case("openai-chat/msg-arguments-lone-surrogate").final_message
    verdict = _item("openai-chat", "CHAIN-002", None, error=TypeError, only=lambda m: m == surrogate)
    assert verdict.failure is not None and "TypeError" in verdict.failure.summary
    assert verdict.level == "must"
