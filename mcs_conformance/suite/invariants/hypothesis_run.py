"""How an invariant runs a property under hypothesis: the subject's profile, explicit examples
first, the shrunk failure passed on as the check's own, and shrinking kept to a time budget.

Shrinking a failure on a long stream can take minutes (each candidate draws a whole
re-chunking again), and an author whose strategy has a bug is the one who reruns the suite
most. So a failing item shrinks for at most ``subject.settings["shrink_budget"]`` seconds
(``--mcs-shrink-budget``; 0 or absent: no limit, hypothesis's own behaviour), counted from
its first failing example. A property that already failed on another item of this run (the
same check on another case: most often the same bug, whose first example is the one to
read) gets :data:`REPEAT_SHARE` of the budget. When the budget runs out, the run stops and
the failure is the smallest failing example found by then, its detail saying that shrinking
was cut short and with what budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Subject

__all__ = ["REPEAT_SHARE", "ShrinkBudgetSpent", "given_run", "item_budget"]

REPEAT_SHARE = 0.1  # of the budget, for a property that already failed on another item
_FAILED_KEY = "shrink_failed"  # subject.settings: the properties that failed so far in this run


class ShrinkBudgetSpent(BaseException):
    """Raised out of the property once the shrink budget is spent. A ``BaseException``, so
    hypothesis does not take it for a failure of the property and stops at once."""


class _Budgeted:
    """The property under a shrink budget: it remembers the failing examples it saw and,
    once ``budget`` seconds have passed since the first, refuses to run another."""

    def __init__(self, test: Callable[[Any], None], budget: float, why: str) -> None:
        self.test, self.budget, self.why = test, budget, why
        self.first: float | None = None  # when the first failing example was seen
        self.failing = 0
        self.last: Exception | None = None

    def __call__(self, value: Any) -> None:
        if self.first is not None and time.monotonic() - self.first >= self.budget:
            raise ShrinkBudgetSpent
        try:
            self.test(value)
        except Exception as exc:  # what hypothesis counts as a failing example
            if self.first is None:
                self.first = time.monotonic()
            # with report_multiple_bugs off, hypothesis tries only candidates smaller than its
            # smallest failure so far and takes each one that fails: the last is the smallest
            self.failing += 1
            self.last = exc
            raise

    def cut_short(self) -> Exception:
        """The smallest failure found, its detail saying that shrinking was cut short."""
        from .base import Failure

        exc = self.last
        assert exc is not None, "the shrink budget runs only from a failing example"
        note = (f"shrinking was cut short: its budget of {self.budget:g} s ({self.why}) ran out; this is the "
                f"smallest of the {self.failing} failing examples found by then (--mcs-shrink-budget 0 "
                "shrinks without a limit)")
        if isinstance(exc, Failure):
            exc.detail = f"{exc.detail}\n{note}" if exc.detail else note
        else:
            exc.add_note(note)
        return exc


def item_budget(subject: "Subject", test: Callable[[Any], None]) -> tuple[float, str]:
    """The shrink budget of one run of ``test`` in seconds (0: no limit) and where it comes
    from: the subject's budget, or :data:`REPEAT_SHARE` of it when the same property (the
    same code: one check's) already failed on another item of this run."""
    budget = float(subject.settings.get("shrink_budget") or 0)
    if budget <= 0:
        return 0.0, ""
    if _code(test) in subject.settings.get(_FAILED_KEY, ()):
        return budget * REPEAT_SHARE, (f"{REPEAT_SHARE:g} of --mcs-shrink-budget {budget:g}: this check "
                                       "already failed on another case")
    return budget, "--mcs-shrink-budget"


def _code(test: Callable[[Any], None]) -> Any:
    """What identifies a property across items: its function's code (the closures differ)."""
    fn = getattr(test, "__func__", test)
    return getattr(fn, "__code__", fn)


def given_run(subject: "Subject", strategy: Any, test: Callable[[Any], None], examples: Sequence[Any] = ()) -> None:
    """Run ``test`` under hypothesis with the subject's profile; the shrunk failure propagates.

    ``examples`` run first, in every profile, before any random value: the inputs a check's
    documentation promises to catch must not depend on the profile's luck. Shrinking keeps
    to the item's budget (:func:`item_budget`; see the module docstring)."""
    from hypothesis import Phase, example, given, settings

    budget, why = item_budget(subject, test)
    run = _Budgeted(test, budget, why) if budget > 0 else None
    inner = run if run is not None else test
    wrapped = given(strategy)(lambda value: inner(value))
    for value in reversed(list(examples)):
        wrapped = example(value)(wrapped)
    profile = subject.settings.get("hypothesis")
    if run is not None:
        # The explain phase replays variations of the shrunk example to annotate it: time the
        # budget would spend on notes the suite's report does not show, on examples that are
        # not smaller. One bug reported keeps "the last failing example is the smallest" true.
        base = profile if profile is not None else settings.default
        profile = settings(base, phases=[p for p in base.phases if p is not Phase.explain], report_multiple_bugs=False)
    if profile is not None:
        wrapped = settings(profile)(wrapped)
    if run is None:
        wrapped()
        return
    try:
        wrapped()
    except ShrinkBudgetSpent:
        pass
    except BaseException:
        if run.last is not None:
            subject.settings.setdefault(_FAILED_KEY, set()).add(_code(test))
        raise
    else:
        return
    subject.settings.setdefault(_FAILED_KEY, set()).add(_code(test))
    # raised outside the handler, so the failure's own cause and context stay as they were
    raise run.cut_short()
