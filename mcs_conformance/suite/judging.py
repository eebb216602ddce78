"""Judging one conformance item: run its check on a fresh case, within the time limits, and
conclude a :class:`Verdict`, telling the strategy's faults from the suite's own.

Part of the pytest plugin (:mod:`.plugin` holds the options and the run, :mod:`.collection`
the items, :mod:`.reporting` what the run reports).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..bridge.client import PeerFailure
from .failures import write_counterexample
from .time_limits import CheckTimeout, StrategyTripped, deadline, raised_by_strategy

# the part of a case's expectation each strategy method answers for: a crash or refusal there
# is weighed at that part's level (docs/spec.md, "Which level a failure reports"); the first
# part the case gives a level of its own decides. result_messages answers for no part (the
# continuation's rules are the HISTORY checks' own): a crash there takes the check's level
READS = {
    "extract": ("calls",),
    "content_text": ("content_text",),
    "forming_name": ("forming_name", "calls"),
    "recognizes": ("claimed_by",),
    "is_done": ("done",),
}


# families judged on the chain (GOLDEN records what the chain's driver gets): not run on an
# author's case that a reference strategy of the default chain claims first
CHAIN_LEVEL = ("CHAIN", "HISTORY", "GOLDEN")


class SuiteFault(Exception):
    """The suite's own code raised: a bug in mcs-conformance, never the strategy's fault."""


@dataclass
class Verdict:
    """What a check concluded about the strategy on one case."""

    outcome: str  # passed | failed | differs | no-snapshot | xfailed | stale-xfail | skipped
    level: str | None = None
    failure: Any = None
    note: str = ""


def _subject_for(conf: Any, case: Any) -> Any:
    """The subject a case runs on: for a case that carries its request (``request.tools``), the
    strategy's ``with_request(request)`` when it offers one (a format whose reading depends on
    the request's tools: docs/authoring.md, "A format that reads the request"), else the strategy."""
    request = case.data.get("request") if case is not None else None
    make = getattr(conf.subject.strategy, "with_request", None)
    if request is None or not callable(make):
        return conf.subject
    from dataclasses import replace

    from .time_limits import Guarded

    return replace(conf.subject, strategy=Guarded(make(request), conf.breaker))


def judge(conf: Any, item: Any) -> Verdict:
    """Run the item's check on a fresh copy of its case and conclude; raise SuiteFault
    when the suite's own code broke."""
    from .invariants import LEVELS, Failure
    from .invariants.base import NoSnapshot

    check, label = item.check, item.label
    claimant = conf.subject.claimed_first.get(label) if item.case is not None else None
    if claimant is not None and check.family in CHAIN_LEVEL:
        return Verdict("skipped", note=f"not run: {claimant} claims this case's message before {conf.subject.name} in the "
                                       "default chain; declare the chain your driver ships (--mcs-chain)")
    case = item.case.fresh() if item.case is not None else None
    conf.breaker.where = f"{check.id}[{label}]"
    if check.family == "GOLDEN":
        from .snapshots import golden_snapshot

        conf.subject.settings["snapshot"] = golden_snapshot(item._request)
    failure: Any = None
    try:
        with deadline(conf.timeout, conf.breaker):
            check.run(_subject_for(conf, case), case)
    except NoSnapshot as exc:
        return Verdict("no-snapshot", note=str(exc))
    except (KeyboardInterrupt, SystemExit):
        raise
    except Failure as exc:
        failure = exc
    except CheckTimeout as exc:
        failure = _interrupted(Failure(str(exc)), "time")
    except PeerFailure as exc:
        failure = _interrupted(Failure(f"the strategy's process: {exc}" + (
            " (fix that first: the suite does not call it again)" if exc.cause == "tripped" else ""),
            detail=exc.detail), exc.cause)
    except StrategyTripped as exc:
        failure = _interrupted(Failure(
            f"not run: {exc} (fix that first: after a time-out the suite does not call the method again on the input "
            "it hung on, nor at all once it hung on several, so a hanging strategy's run ends in minutes)"), "tripped")
    except BaseException as exc:  # noqa: BLE001 -- sorted below: the strategy's, or the suite's own
        failure = _strategy_failure(exc, conf.subject.strategy)
        if failure is None:
            raise SuiteFault(
                f"{check.id}[{label}]: the suite's own code raised {type(exc).__name__}: {exc}. This is a bug "
                "in mcs-conformance, not in the strategy under test: please report it with this traceback."
            ) from exc
        read = case_read(exc, case, conf.subject.corpus)
        if read is not None:
            failure.detail = "\n".join(filter(None, [_expected(check, read), failure.detail]))
        failure.level, why = crash_level(check, read, raised_by_strategy(exc))
        if not why and read is not None:  # no part of the method's: the parts the check judges, as a wrong answer
            failure.level = max(_parts_level(check, read) or check.level, check.level, key=LEVELS.index)
        if why:
            failure.detail = f"{failure.detail}\nlevel {failure.level}: {why}".lstrip()
    expected = conf.expected.get((check.id, label))
    if failure is None:
        if expected is not None:
            return Verdict("stale-xfail", note=f"{check.id}[{label}] is declared as an expected failure in "
                                               f"{expected.source} but now passes: remove the entry")
        return Verdict("passed", level=check.level)
    level = failure.level or check.level
    if expected is not None:
        return Verdict("xfailed", level, failure, f"{expected.reason} (declared in {expected.source})")
    if LEVELS.index(level) > LEVELS.index(conf.gate):
        return Verdict("differs", level, failure)
    write_counterexample(conf, check, case, failure)
    return Verdict("failed", level, failure)


# what a failure that is no answer of the strategy's says in place of the check's rationale
_WHY = {
    "time": "a strategy method that does not return stalls the driver's stream, and the check's own rule could not be "
            "judged (docs/authoring.md: a slow or hanging strategy)",
    "exit": "the strategy's process ended before it answered: a driver running it in-process would have gone down "
            "with it, and the check's own rule could not be judged (docs/bridge.md, What happens when a peer fails)",
    "protocol": "a peer that writes what protocol 1 does not allow cannot be read: its answers are not its "
                "strategy's, so the check's own rule could not be judged (docs/bridge.md, The protocol)",
    "start": "the strategy's process could not be started again, so the check's own rule could not be judged "
             "(docs/bridge.md, What happens when a peer fails)",
    "tripped": "the strategy failed the same way before (the first failure above names where); the check's own rule "
               "was not judged",
}
_WHY["signal"] = _WHY["memory"] = _WHY["exit"]


def _interrupted(failure: Any, cause: str) -> Any:
    """A failure that is no answer of the strategy's (a time-out, a peer that failed): it
    carries its cause, and says why it matters instead of the check's rationale."""
    failure.cause, failure.why = cause, _WHY.get(cause, "")
    return failure


def _parts_level(check: Any, case: Any) -> str | None:
    """The level of a raise on a case: that of the parts the check judges when the case gives
    each a level (the most severe of them), as a wrong answer there would report; else None
    (the check's own level)."""
    from .invariants import LEVELS

    levels = case.expect.get("levels", {})
    judged = [p for p in check.parts if p in case.expect]
    if not judged or any(p not in levels for p in judged):
        return None
    return min((levels[p]["level"] for p in judged), key=LEVELS.index)


def _expected(check: Any, case: Any) -> str:
    """What the case expects of the parts the check judges, and the rules it relies on: shown
    when the strategy raised instead of answering, so the failure says what the answer was to
    be and where the rule is written, not only where the strategy broke."""
    import json

    from .failures import shorten

    expect = case.expect
    parts = [p for p in check.parts if p in expect] or [p for p in ("calls", "message", "error") if p in expect]
    lines = [f"the case expects ({case.description}):"]
    for part in parts:
        text = json.dumps(shorten(expect[part]), ensure_ascii=False, default=repr)
        lines.append(f"  {part}: {text if len(text) <= 600 else text[:600] + ' ...'}")
        rule = expect.get("levels", {}).get(part)
        if rule:
            lines.append(f"    level {rule['level']}: {rule.get('why', '')} (source: {rule.get('source', '')})")
    accepted = [a for a in expect.get("accept", []) if any(p in a for p in parts)]
    if accepted:
        lines.append("  also accepted: " + "; ".join(f"{', '.join(p for p in parts if p in a)} as {a.get('source', '')}"
                                                    for a in accepted))
    rules = [s for s in check.sources if s.startswith("spec ")]
    lines.append(f"the rule: {check.id} ({check.level}): {check.title}"
                 + (f"; docs/spec.md: {', '.join(r[len('spec '):] for r in rules)}" if rules else ""))
    return "\n".join(lines)


def crash_level(check: Any, case: Any, method: str | None) -> tuple[str, str]:
    """(level, why) of an exception a strategy method raised (a crash, or a refusal such as a
    ``ValueError``) while the check read ``case``: the level of the part of the case's
    expectation the method answers for (``READS``) where the case gives it one
    (``expect.levels``); else, for a reading of calls where every call the case expects is an
    error call (nothing that runs is lost), P5's ``should`` (the reading methods answer or
    raise ``ValueError``; C3, C4, C6); else the check's own level. Never above the check's
    level (docs/spec.md, "Which level a failure reports")."""
    from .invariants import LEVELS
    from .invariants.base import part_level

    def weaker(level: str) -> str:
        return max(level, check.level, key=LEVELS.index)

    parts = READS.get(method or "", ())
    if case is None or not parts:
        return check.level, ""
    for part in parts:
        level, why = part_level(case, part)
        if level is not None:
            return weaker(level), f"{method} answers for the {part} of {case.id}, which the case rates {level} ({why})"
    calls = case.expect.get("calls")
    if "calls" in parts and isinstance(calls, list) and calls and all(isinstance(c, dict) and c.get("error")
                                                                       for c in calls):
        return weaker("should"), (f"every call of {case.id} is an error call, so the {method} that raised loses "
                                  "no call that runs: docs/spec.md P5 (answer or raise ValueError naming the problem)")
    return check.level, ""


def case_read(exc: BaseException, case: Any, corpus: Any) -> Any:
    """The case whose input the strategy read when it raised ``exc``: the item's own case, or
    for a check over many messages the case the check named on the exception
    (``base.note_case``)."""
    from .invariants.base import noted_case

    noted = noted_case(exc)
    if noted is not None:
        try:
            return corpus.case(noted)
        except KeyError:
            return case
    return case


def _strategy_failure(exc: BaseException, strategy: Any) -> Any:
    """The failure an exception out of a check stands for, when the strategy caused it (it
    raised it, code of its own ran when it was raised, such as a ``finish`` callback the
    accumulator calls when the message is read, or the buffer or hypothesis reported what
    it did); None when the suite's own code raised it."""
    import traceback

    from hypothesis.errors import HypothesisException

    from ..reference.errors import MCSError
    from .invariants import Failure

    method = raised_by_strategy(exc)
    own_code = method is None and _ran_strategy_code(exc, strategy)
    if method is None and not own_code and not isinstance(exc, (MCSError, HypothesisException, BaseExceptionGroup)):
        return None
    tb = traceback.extract_tb(exc.__traceback__)
    where = "".join(traceback.format_list(tb[-3:])) if tb else ""
    if getattr(exc, "from_peer", False):  # the suite's bridge frames would say nothing of where the peer broke
        where = "  in the strategy's process: its peer answered the error as data (no traceback crosses the bridge)\n"
    who = f"the strategy's {method}" if method else ("the strategy's code" if own_code else "the strategy")
    return Failure(f"{who} raised {type(exc).__name__}: {exc}", detail=f"most recent calls:\n{where}".rstrip())


def _ran_strategy_code(exc: BaseException, strategy: Any) -> bool:
    """Does the traceback of ``exc`` (or of an exception it came from) pass through a module
    that defines the strategy's class or one of its bases?"""
    import inspect
    import sys
    import traceback

    inner = getattr(strategy, "__dict__", {}).get("_mcs_inner", strategy)
    files = set()
    for cls in inspect.getmro(type(inner)):
        module = sys.modules.get(cls.__module__)
        if cls is not object and getattr(module, "__file__", None):
            files.add(os.path.realpath(module.__file__))
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if any(os.path.realpath(frame.filename) in files for frame in traceback.extract_tb(exc.__traceback__)):
            return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False
