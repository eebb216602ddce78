"""The strategy under test, seen through a guard: time limits, a circuit breaker, and blame.

Every protocol method call of the strategy under test goes through :class:`Guarded`. It

- knows which strategy method is running, so a check that runs past ``--mcs-timeout``
  names the method that hung. After that time-out the method is on a short leash
  (:data:`LEASH` seconds a call): a call on the input it hung on fails at once, a call on
  another input that does not answer within the leash fails, one that answers passes, and
  after :data:`LEASHED_HANGS` such hangs the method is not called again. Which items fail
  so depends on the inputs that hang, not on which items ran before in the same process
  (an xdist worker's share), and a strategy that hangs on everything still ends in minutes;
- marks every exception the strategy raises, so the plugin can tell the strategy's faults
  from the suite's own (an exception no strategy raised is a bug in mcs-conformance).

Time-outs are ``BaseException`` subclasses: neither a strategy's ``except Exception`` nor
hypothesis's shrinking catches them, and the buffer does not turn them into MalformedChunk.
A limit that fires where an exception cannot leave (a finalizer, a garbage-collection
callback: Python reports it as unraisable and goes on) fires again every :data:`REFIRE`
seconds, and a check that ends after its limit fired fails all the same (:func:`deadline`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..reference.protocol import protocol_members
from .exception_marks import mark, marked

__all__ = ["Breaker", "CheckTimeout", "Guarded", "StrategyTripped", "budget_seconds", "deadline", "raised_by_strategy"]

_TAG = "_mcs_raised_by"
LEASH = 2.0  # seconds a call of a method that timed out before may take (never more than the check's limit)
LEASHED_HANGS = 10  # hangs on the leash after which the method is not called again
REFIRE = 0.5  # seconds between alarms once a check's limit has passed, until the check ends
# the members whose answer depends on their arguments alone (docs/spec.md, U1): a call on an
# input that hung is not made again; accumulate's answer depends on the stream so far
_PURE_MEMBERS = ("recognizes", "is_done", "extract", "content_text", "forming_name", "result_messages", "render")


class CheckTimeout(BaseException):
    """A check ran past its time limit (``method`` names the strategy method running then)."""

    def __init__(self, message: str, method: str | None = None) -> None:
        super().__init__(message)
        self.method = method


class LeashTimeout(CheckTimeout):
    """A method that timed out before did not answer within :data:`LEASH` seconds."""


class StrategyTripped(BaseException):
    """A strategy method that timed out earlier was called again (on the input it hung on, or
    after too many hangs): not run."""

    def __init__(self, method: str, first: str, on_input: bool = False) -> None:
        super().__init__(f"{method} is not called again{' on this input' if on_input else ''}: it {first}")
        self.method, self.first = method, first


class Breaker:
    """Which strategy methods are running now, which ones timed out (on a leash since), the
    inputs they hung on, and which ones are not called again."""

    def __init__(self) -> None:
        self.running: list[tuple[str, float, tuple]] = []  # (method, when the call started, its arguments)
        self.tripped: dict[str, str] = {}  # method -> where it first timed out: on the leash since
        self.refused: dict[str, str] = {}  # method -> why it is not called again
        self.hung: dict[str, dict[str, str]] = {}  # method -> {input digest: where it hung on that input}
        self.leashed_hangs: dict[str, int] = {}
        self.leash: tuple[str, float, tuple] | None = None  # the call now on the leash
        self._blamed: tuple[str, float, tuple] | None = None  # the last call blamed for a hang
        self.where = ""  # the item now running, for the pointer in later failures

    def wrap(self, method: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            refused = self.refused.get(method)
            if refused is not None:
                raise StrategyTripped(method, refused)
            first = self.tripped.get(method)
            if first is not None:
                earlier = self.hung.get(method, {}).get(_digest(method, args))
                if earlier is not None:
                    raise StrategyTripped(method, f"hung on this same input in {earlier}", on_input=True)
            return self._call(method, fn, args, kwargs, leashed=first is not None)

        guarded.__name__ = getattr(fn, "__name__", method)
        guarded.__doc__ = getattr(fn, "__doc__", None)
        guarded.__wrapped__ = fn  # type: ignore[attr-defined]  # inspect.signature sees the strategy's own
        return guarded

    def _call(self, method: str, fn: Callable[..., Any], args: tuple, kwargs: dict, leashed: bool) -> Any:
        """Call the strategy's method; one that timed out before gets :data:`LEASH` seconds,
        borrowing the timer of the check's own limit where that runs on this thread (and has
        more than the leash left)."""
        remaining, interval = signal.getitimer(signal.ITIMER_REAL) if leashed and _timer_usable() else (0.0, 0.0)
        started = time.monotonic()
        call = (method, started, args)
        self.running.append(call)
        leash = 0 < LEASH < remaining
        if leash:
            self.leash = call
            signal.setitimer(signal.ITIMER_REAL, LEASH, interval)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            mark(exc, _TAG, method)
            raise
        except BaseException as exc:
            if getattr(exc, "cause", None) == "time":  # the bridge's own clock, where no timer runs
                self._hung(call)
            raise
        finally:
            self.running.pop()
            if leash:
                self.leash = None
                signal.setitimer(signal.ITIMER_REAL, max(remaining - (time.monotonic() - started), 1e-3), interval)

    def _hung(self, call: tuple[str, float, tuple]) -> None:
        """Blame one call that hung (once, however often the alarm fires during it): its method
        is on the leash from now on, its input is remembered, and a method that hangs on the
        leash :data:`LEASHED_HANGS` times is not called again."""
        if call is self._blamed:
            return
        self._blamed = call
        method, _, args = call
        where = self.where or "an earlier check"
        self.hung.setdefault(method, {}).setdefault(_digest(method, args), where)
        first = self.tripped.get(method)
        if first is None:
            self.tripped[method] = f"timed out in {where}"
            return
        count = self.leashed_hangs[method] = self.leashed_hangs.get(method, 0) + 1
        if count >= LEASHED_HANGS:
            self.refused.setdefault(method, f"{first}, then did not answer within {LEASH:g} s {count} times, "
                                            f"the last in {where}")

    def alarm(self, limit: float) -> CheckTimeout:
        """The exception the timer's alarm raises: the leash's, when a leashed call ran out of
        its seconds, else the check's own time-out (:meth:`timed_out`)."""
        leash = self.leash
        if leash is not None:
            self.leash = None
            first = self.tripped[leash[0]]
            self._hung(leash)
            return LeashTimeout(
                f"the strategy's {leash[0]} did not answer within {LEASH:g} s: it {first}, and since then a call of it "
                f"gets {LEASH:g} s (docs/authoring.md: a slow or hanging strategy)", leash[0])
        return self.timed_out(limit)

    def timed_out(self, limit: float) -> CheckTimeout:
        """The exception to raise at a time-out. The strategy method whose one call took most
        of the time (half the limit or more) is blamed (:meth:`_hung`); a fast call that merely
        happened to be running when a slow check ran out of time is not."""
        now = time.monotonic()
        running = next((c for c in reversed(self.running) if now - c[1] >= limit / 2), None)
        text = f"the check did not finish within {limit:g} s (--mcs-timeout)"
        method = None
        if running is not None:
            method = running[0]
            text += f": one call of the strategy's {method} was still running after {now - self.running[0][1]:.1f} s"
            self._hung(running)
        return CheckTimeout(text, method)


class Guarded:
    """A transparent stand-in for the strategy under test whose protocol methods (and
    ``render``) go through a :class:`Breaker`; every other attribute is the strategy's own."""

    def __init__(self, strategy: Any, breaker: Breaker) -> None:
        self.__dict__["_mcs_inner"] = strategy
        self.__dict__["_mcs_breaker"] = breaker
        for method in (*protocol_members(), "render"):
            fn = getattr(strategy, method, None)
            if callable(fn) and method not in ("name", "leaks_into_text"):
                self.__dict__[method] = breaker.wrap(method, fn)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.__dict__["_mcs_inner"], attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(self.__dict__["_mcs_inner"], attr, value)

    def __repr__(self) -> str:
        return repr(self.__dict__["_mcs_inner"])


def raised_by_strategy(exc: BaseException) -> str | None:
    """The strategy method an exception (or one it was raised from) came out of, or None."""
    return marked(exc, _TAG)


def _digest(method: str, args: tuple) -> str:
    """The input of a call, for telling a call on an input that hung from one on another:
    the JSON of its arguments (the stream's chunk for ``accumulate``, whose answer also
    depends on the chunks before it, so that it is never refused for an input alone)."""
    if method not in _PURE_MEMBERS:
        return f"{method}:{time.monotonic_ns()}"  # never equal: accumulate is only leashed
    try:
        text = json.dumps(args, sort_keys=True, default=repr, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(args)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def _timer_usable() -> bool:
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


@contextmanager
def deadline(limit: float, breaker: Breaker) -> Iterator[None]:
    """Raise :class:`CheckTimeout` in this thread once ``limit`` seconds have passed (no
    limit when it is 0, or off the main thread where signals cannot be delivered).

    The limit cannot be swallowed: the alarm fires again every :data:`REFIRE` seconds until
    the block ends, and a block that ends normally after the limit fired (every alarm landed
    where an exception cannot leave, such as a garbage-collection callback, which Python
    reports as unraisable and goes on) raises the time-out at its end. Such a swallowed
    time-out is not reported as an unraisable exception."""
    if not (limit > 0 and _timer_usable()):
        yield
        return
    fired: list[CheckTimeout] = []

    def on_alarm(signum: int, frame: Any) -> None:
        exc = breaker.alarm(limit)
        if not isinstance(exc, LeashTimeout):
            if fired:
                exc = fired[0]  # the first time-out, raised again
            fired.append(exc)
        raise exc

    hook = sys.unraisablehook

    def unraisable(info: Any) -> None:
        if not isinstance(info.exc_value, CheckTimeout):  # one is raised again: REFIRE, or the block's end
            hook(info)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    sys.unraisablehook = unraisable
    signal.setitimer(signal.ITIMER_REAL, limit, REFIRE)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if sys.unraisablehook is unraisable:
            sys.unraisablehook = hook
    if fired:
        raise fired[0].with_traceback(None)


def budget_seconds(text: str) -> float:
    """A time option's value (``--mcs-shrink-budget``): seconds, 0 or more (0: no limit)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds, 0 (no limit) or more")
    return value
