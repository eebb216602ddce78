"""Shrinking keeps to its budget (suite/invariants/hypothesis_run.py, --mcs-shrink-budget).

A property whose failure takes many steps to shrink stops at the budget and fails with the
smallest failing example seen, saying that shrinking was cut short and with which budget;
without a budget (0) the failure is hypothesis's own, fully shrunk. The clock is the
module's own, replaced here by one that a property call advances by one second, so the
tests count calls instead of timing them.
"""

from __future__ import annotations

import textwrap
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_conformance.suite.invariants import Failure
from mcs_conformance.suite.invariants import hypothesis_run
from mcs_conformance.suite.invariants.hypothesis_run import REPEAT_SHARE, given_run
from mcs_conformance.suite.profiles import SHRINK_BUDGETS, hypothesis_settings, shrink_budget
from mcs_conformance.suite.time_limits import budget_seconds

# lists of non-negative integers with five different values summing to more than 100:
# hypothesis takes over a hundred calls to shrink one to five values summing to 101
VALUES = st.lists(st.integers(0, 10**6), min_size=1)


def fails(values: list[int]) -> bool:
    return len(set(values)) >= 5 and sum(values) > 100


def fully_shrunk(values: list[int]) -> bool:
    """As small as a failing example gets: five values, the least sum that fails."""
    return len(values) == 5 and sum(values) == 101


class Clock:
    """A stand-in for the ``time`` module of hypothesis_run: ``tick`` adds one second."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def tick(self) -> None:
        self.now += 1.0


class Property:
    """Fails (with a Failure carrying the value) as :func:`fails` says; each call takes one
    second of ``clock`` and is recorded."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock, self.calls, self.failing = clock, 0, []

    def __call__(self, values: list[int]) -> None:
        self.calls += 1
        if self.clock is not None:
            self.clock.tick()
        if fails(values):
            self.failing.append(list(values))
            raise Failure(f"five values summing to {sum(values)}", chunks=list(values))


def subject(budget: float | None, profile: str = "ci") -> Any:
    """What given_run reads of a subject: its settings."""
    out: dict[str, Any] = {"hypothesis": hypothesis_settings(profile)}
    if budget is not None:
        out["shrink_budget"] = budget
    return SimpleNamespace(settings=out)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(hypothesis_run, "time", fake)
    return fake


def failure_of(subj: Any, prop: Any) -> Failure:
    with pytest.raises(Failure) as caught:
        given_run(subj, VALUES, prop)
    return caught.value


def test_a_long_shrink_stops_at_the_budget_and_says_so(clock: Clock) -> None:
    unlimited = Property()
    failure_of(subject(0), unlimited)
    assert unlimited.calls > 50, "the property must take many steps to shrink for this test to mean anything"

    prop = Property(clock)
    failure = failure_of(subject(5), prop)
    assert prop.calls < unlimited.calls
    assert "shrinking was cut short" in failure.detail
    assert "budget of 5 s" in failure.detail and "--mcs-shrink-budget" in failure.detail
    # the failure is the last (so the smallest) failing example the property saw, and it fails
    assert failure.chunks == prop.failing[-1]
    assert fails(failure.chunks) and not fully_shrunk(failure.chunks)
    assert f"{len(prop.failing)} failing examples" in failure.detail


def test_calls_after_the_first_failure_are_bounded_by_the_budget(clock: Clock) -> None:
    seen: list[bool] = []  # per call: did it fail

    def prop(values: list[int]) -> None:
        clock.tick()
        seen.append(fails(values))
        if seen[-1]:
            raise Failure("too big", chunks=list(values))

    failure_of(subject(5), prop)
    first = seen.index(True)
    # the call that fails first starts the clock at its end; calls whose start lies within 5
    # ticks of it run, the next one is refused
    assert len(seen) - (first + 1) <= 5


def test_without_a_budget_the_failure_is_hypothesis_own_fully_shrunk(clock: Clock) -> None:
    for budget in (0, None):
        prop = Property(clock)
        failure = failure_of(subject(budget), prop)
        assert fully_shrunk(failure.chunks)
        assert "cut short" not in failure.detail

    # the same as hypothesis alone under the same profile
    seen: list[list[int]] = []

    def plain(values: list[int]) -> None:
        if fails(values):
            seen.append(list(values))
            raise AssertionError

    with pytest.raises(AssertionError):
        settings(hypothesis_settings("ci"))(given(VALUES)(plain))()
    assert seen[-1] == failure.chunks


def test_a_budget_that_does_not_run_out_changes_nothing(clock: Clock) -> None:
    failure = failure_of(subject(10**9), Property(clock))
    assert fully_shrunk(failure.chunks)
    assert "cut short" not in failure.detail


def test_the_same_check_failing_again_gets_a_share_of_the_budget(clock: Clock) -> None:
    subj = subject(5)
    details = []
    for _ in range(2):
        prop = Property(clock)
        failure = failure_of(subj, lambda values, prop=prop: prop(values))  # one lambda, one code: one check
        details.append(failure.detail)
    assert "budget of 5 s (--mcs-shrink-budget)" in details[0]
    assert f"budget of {5 * REPEAT_SHARE:g} s ({REPEAT_SHARE:g} of --mcs-shrink-budget 5" in details[1]
    assert "already failed on another case" in details[1]
    # another property on the same subject still gets the whole budget
    other = Property(clock)
    failure = failure_of(subj, other)
    assert "already failed" not in failure.detail


def test_a_failure_that_is_no_failure_is_passed_on_unchanged(clock: Clock) -> None:
    """An exception the property raises that is not a Failure keeps its type; the note goes
    on it as an exception note."""

    def prop(values: list[int]) -> None:
        clock.tick()
        if fails(values):
            raise KeyError("boom")

    with pytest.raises(KeyError) as caught:
        given_run(subject(3), VALUES, prop)
    assert any("shrinking was cut short" in note for note in getattr(caught.value, "__notes__", []))


def test_profiles_have_documented_budgets() -> None:
    assert shrink_budget("ci") == SHRINK_BUDGETS["ci"] > 0
    assert shrink_budget("thorough") >= shrink_budget("dev") > 0
    with pytest.raises(ValueError, match="unknown hypothesis profile"):
        shrink_budget("nope")


@pytest.mark.parametrize("text", ["-1", "soon", "inf", "nan"])
def test_the_option_refuses_what_is_no_budget(text: str) -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match="not a number of seconds"):
        budget_seconds(text)
    assert budget_seconds("0") == 0 and budget_seconds("2.5") == 2.5


# -- through the plugin -------------------------------------------------------------------

EMPTY_TEXT_ENDS_BLOCK = textwrap.dedent('''
    from mcs_conformance.strategies import AnthropicMessagesStrategy


    class EmptyTextEndsBlock(AnthropicMessagesStrategy):
        """An empty text_delta is taken as the end of its block (one bug)."""

        def accumulate(self, acc, chunk):
            delta = chunk.get("delta") if isinstance(chunk, dict) else None
            if (isinstance(delta, dict) and chunk.get("type") == "content_block_delta"
                    and delta.get("type") == "text_delta" and delta.get("text") == ""):
                self._close(acc, chunk.get("index"))
                return ""
            return super().accumulate(acc, chunk)
''')


def test_a_failing_run_says_shrinking_was_cut_short(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(emptytext=EMPTY_TEXT_ENDS_BLOCK)
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcs-only", "--mcs-profile=ci",
                                "--mcs-strategy=emptytext:EmptyTextEndsBlock", "--mcs-check=ROUNDTRIP-002",
                                "--mcs-shrink-budget=0.5")
    out = result.stdout.str()
    assert result.ret == 1, out
    assert "ROUNDTRIP-002 failed" in out
    assert "shrinking was cut short: its budget of 0.5 s (--mcs-shrink-budget) ran out" in out
    assert "chunks (" in out  # the example is shown
    reproduce = next(line for line in out.splitlines() if line.startswith("reproduce: "))
    assert "--mcs-check=ROUNDTRIP-002" in reproduce and "--mcs-shrink-budget=0.5" in reproduce
    # no wall-clock bound here: the message above is the budget firing; what a budget saves in
    # time is measured by benchmarks/bench_failing.py


def test_the_option_refuses_a_negative_budget(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcs-only",
                                "--mcs-strategy=mcs_conformance.strategies:TextStrategy", "--mcs-shrink-budget=-1")
    assert result.ret != 0
    assert "not a number of seconds" in result.stderr.str()
