"""The strategy under test, seen through a guard: time limits, a circuit breaker, and blame.

Every protocol method call of the strategy under test goes through :class:`Guarded`. It

- knows which strategy method is running, so a check that runs past ``--mcs-timeout``
  names the method that hung, and that method is not called again in this process: the
  items that would call it fail at once with a pointer to the first time-out, so a hanging
  strategy's run ends in minutes instead of waiting out every item;
- marks every exception the strategy raises, so the plugin can tell the strategy's faults
  from the suite's own (an exception no strategy raised is a bug in mcs-conformance).

Time-outs are ``BaseException`` subclasses: neither a strategy's ``except Exception`` nor
hypothesis's shrinking catches them, and the buffer does not turn them into MalformedChunk.
"""

from __future__ import annotations

import argparse
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..reference.protocol import protocol_members

__all__ = ["Breaker", "CheckTimeout", "Guarded", "StrategyTripped", "budget_seconds", "deadline", "raised_by_strategy"]

_TAG = "_mcs_raised_by"


class CheckTimeout(BaseException):
    """A check ran past its time limit (``method`` names the strategy method running then)."""

    def __init__(self, message: str, method: str | None = None) -> None:
        super().__init__(message)
        self.method = method


class StrategyTripped(BaseException):
    """A strategy method that timed out earlier was called again: not run."""

    def __init__(self, method: str, first: str) -> None:
        super().__init__(f"{method} is not called again: it {first}")
        self.method, self.first = method, first


class Breaker:
    """Which strategy methods are running now, and which ones timed out (never called again)."""

    def __init__(self) -> None:
        self.running: list[tuple[str, float]] = []  # (method, when the call started)
        self.tripped: dict[str, str] = {}
        self.where = ""  # the item now running, for the pointer in later failures

    def wrap(self, method: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            first = self.tripped.get(method)
            if first is not None:
                raise StrategyTripped(method, first)
            self.running.append((method, time.monotonic()))
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                _tag(exc, method)
                raise
            finally:
                self.running.pop()

        guarded.__name__ = getattr(fn, "__name__", method)
        guarded.__doc__ = getattr(fn, "__doc__", None)
        guarded.__wrapped__ = fn  # type: ignore[attr-defined]  # inspect.signature sees the strategy's own
        return guarded

    def timed_out(self, limit: float) -> CheckTimeout:
        """The exception to raise at a time-out. The strategy method whose one call took most
        of the time (half the limit or more) is tripped; a fast call that merely happened to
        be running when a slow check ran out of time is not."""
        now = time.monotonic()
        method = next((m for m, started in reversed(self.running) if now - started >= limit / 2), None)
        text = f"the check did not finish within {limit:g} s (--mcs-timeout)"
        if method is not None:
            text += f": one call of the strategy's {method} was still running after {now - self.running[0][1]:.1f} s"
            self.tripped.setdefault(method, f"timed out after {limit:g} s in {self.where or 'an earlier check'}")
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


def _tag(exc: BaseException, method: str) -> None:
    try:
        if not hasattr(exc, _TAG):
            setattr(exc, _TAG, method)
    except Exception:  # noqa: BLE001 -- an exception type that refuses attributes stays untagged
        pass


def raised_by_strategy(exc: BaseException) -> str | None:
    """The strategy method an exception (or one it was raised from) came out of, or None."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        method = getattr(exc, _TAG, None)
        if method is not None:
            return method
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


@contextmanager
def deadline(limit: float, breaker: Breaker) -> Iterator[None]:
    """Raise :class:`CheckTimeout` in this thread once ``limit`` seconds have passed (no
    limit when it is 0, or off the main thread where signals cannot be delivered)."""
    usable = limit > 0 and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not usable:
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise breaker.timed_out(limit)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def budget_seconds(text: str) -> float:
    """A time option's value (``--mcs-shrink-budget``): seconds, 0 or more (0: no limit)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds, 0 (no limit) or more")
    return value
