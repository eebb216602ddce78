"""The time limits of a check (mcs_conformance/suite/time_limits.py): the limit fires even
where an exception cannot leave, and a method that timed out is put on a leash whose
verdicts depend on the inputs that hang, not on which items ran before.

No test here asserts how long anything took: the waits are bounded by the limits under
test, and each verdict is an exception raised or not."""

from __future__ import annotations

import time

import pytest

from mcs_conformance.suite import time_limits
from mcs_conformance.suite.time_limits import Breaker, CheckTimeout, Guarded, LeashTimeout, StrategyTripped, deadline


class _SlowFinalizer:
    """An object whose finalizer runs for a while: a check's time spent where an exception
    raised by the alarm cannot leave (Python reports it as unraisable and goes on)."""

    def __del__(self) -> None:
        end = time.monotonic() + 0.05
        while time.monotonic() < end:
            pass


def test_a_limit_that_fires_inside_a_finalizer_is_not_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr("sys.unraisablehook", lambda info: seen.append(info.exc_value))
    body_ended = False
    with pytest.raises(CheckTimeout, match=r"did not finish within 0.3 s"):
        with deadline(0.3, Breaker()):
            end = time.monotonic() + 1.2
            while time.monotonic() < end:
                _SlowFinalizer()  # dropped at once: nearly all the time is spent in __del__
            body_ended = True
    assert body_ended  # every alarm landed in a finalizer; the block's end raised the time-out
    assert not [e for e in seen if isinstance(e, CheckTimeout)]  # not reported as unraisable either


def test_a_limit_caught_by_the_checked_code_fires_again() -> None:
    caught = 0
    with pytest.raises(CheckTimeout):
        with deadline(0.2, Breaker()):
            for _ in range(40):  # 20 s at most, should the alarm not fire again
                try:
                    time.sleep(0.5)
                except BaseException:  # noqa: BLE001 -- a strategy that swallows everything
                    caught += 1
                    if caught > 2:
                        break
    assert caught > 2  # it fired again after the first was swallowed


def test_an_unraisable_exception_of_another_kind_still_reaches_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr("sys.unraisablehook", lambda info: seen.append(type(info.exc_value)))

    class Bad:
        def __del__(self) -> None:
            raise KeyError("from a finalizer")

    with deadline(30, Breaker()):
        Bad()
    assert seen == [KeyError]


class _Hangs:
    """A strategy whose extract hangs on a message holding "hang"; accumulate on "stuck"."""

    name, leaks_into_text = "hangs", False

    def extract(self, message):
        if "hang" in message:
            time.sleep(60)
        return []

    def accumulate(self, acc, chunk):
        if chunk == "stuck":
            time.sleep(60)
        return ""


@pytest.fixture
def leash(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(time_limits, "LEASH", 1.0)
    monkeypatch.setattr(time_limits, "LEASHED_HANGS", 2)
    breaker = Breaker()
    return breaker, Guarded(_Hangs(), breaker)


LIMIT = 3.0  # seconds; the leash of 1 s fits in it, with room for a loaded machine


def _judged(breaker: Breaker, where: str, call) -> str:
    breaker.where = where
    try:
        with deadline(LIMIT, breaker):
            call()
    except LeashTimeout as exc:
        return f"leash: {exc}"
    except CheckTimeout as exc:
        return f"timeout: {exc}"
    except StrategyTripped as exc:
        return f"refused: {exc}"
    return "passed"


def test_a_method_that_timed_out_is_leashed_and_refused_only_on_the_input_it_hung_on(leash) -> None:
    breaker, strategy = leash
    first = _judged(breaker, "EXTRACT-001[a]", lambda: strategy.extract("hang one"))
    assert first.startswith("timeout:") and "one call of the strategy's extract was still running" in first, first
    # another input answers within the leash: it passes, whichever item asks
    assert _judged(breaker, "EXTRACT-001[b]", lambda: strategy.extract("fine")) == "passed"
    # the same input fails at once, naming where it hung
    again = _judged(breaker, "CHAIN-001[a]", lambda: strategy.extract("hang one"))
    assert again == "refused: extract is not called again on this input: it hung on this same input in EXTRACT-001[a]"
    # another input that hangs gets the leash, not the whole limit
    leashed = _judged(breaker, "EXTRACT-001[c]", lambda: strategy.extract("hang two"))
    assert leashed.startswith("leash: the strategy's extract did not answer within 1 s: it timed out in "
                              "EXTRACT-001[a]"), leashed
    assert _judged(breaker, "EXTRACT-001[d]", lambda: strategy.extract("fine too")) == "passed"
    # after LEASHED_HANGS hangs on the leash, the method is not called at all
    assert _judged(breaker, "EXTRACT-001[e]", lambda: strategy.extract("hang three")).startswith("leash:")
    refused = _judged(breaker, "EXTRACT-001[f]", lambda: strategy.extract("fine"))
    assert refused.startswith("refused: extract is not called again: it timed out in EXTRACT-001[a], then did not "
                              "answer within 1 s 2 times, the last in EXTRACT-001[e]"), refused


def test_accumulate_is_leashed_but_never_refused_for_a_chunk_alone(leash) -> None:
    from mcs_conformance.reference.accumulator import Accumulator

    breaker, strategy = leash
    assert _judged(breaker, "DISPLAY-001[a]", lambda: strategy.accumulate(Accumulator(), "stuck")).startswith("timeout:")
    # its answer depends on the stream so far: the same chunk on another stream is called again, on the leash
    assert _judged(breaker, "DISPLAY-001[b]", lambda: strategy.accumulate(Accumulator(), "stuck")).startswith("leash:")
    assert _judged(breaker, "DISPLAY-001[c]", lambda: strategy.accumulate(Accumulator(), "fine")) == "passed"


def test_the_check_limit_still_holds_around_a_leashed_call(leash) -> None:
    breaker, strategy = leash
    assert _judged(breaker, "EXTRACT-001[a]", lambda: strategy.extract("hang")).startswith("timeout:")

    def slow_check():  # answers within the leash each time, but the check as a whole runs out of time
        while True:
            strategy.extract("fine")
            time.sleep(0.05)

    assert _judged(breaker, "SPLIT-001[b]", slow_check).startswith("timeout: the check did not finish within 3 s")


def test_where_the_limit_is_shorter_than_the_leash_a_hang_on_the_leash_still_counts(leash, monkeypatch) -> None:
    breaker, strategy = leash
    monkeypatch.setattr(time_limits, "LEASH", LIMIT * 2)  # no leash fits in the check's limit
    verdicts = [_judged(breaker, f"EXTRACT-001[{n}]", lambda n=n: strategy.extract(f"hang {n}")) for n in range(3)]
    assert [v.split(":")[0] for v in verdicts] == ["timeout", "timeout", "timeout"], verdicts
    refused = _judged(breaker, "EXTRACT-001[x]", lambda: strategy.extract("fine"))
    assert refused.startswith("refused: extract is not called again: it timed out in EXTRACT-001[0], then"), refused
