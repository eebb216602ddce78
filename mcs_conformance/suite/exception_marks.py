"""Marks the suite puts on an exception a strategy raised (the method it came out of, the case
whose message was being read) and finds again on it or on an exception raised from it."""

from __future__ import annotations

from typing import Any

__all__ = ["mark", "marked"]


def mark(exc: BaseException, attr: str, value: Any) -> None:
    """Set ``attr`` on ``exc`` unless it is set already (the first mark stays); an exception
    type that refuses attributes stays unmarked."""
    try:
        if not hasattr(exc, attr):
            setattr(exc, attr, value)
    except Exception:  # noqa: BLE001 -- an exception type that refuses attributes stays unmarked
        pass


def marked(exc: BaseException | None, attr: str) -> Any:
    """The value ``mark`` put under ``attr`` on ``exc`` or on an exception it was raised from
    or during (``__cause__``, ``__context__``), or None."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        found = getattr(exc, attr, None)
        if found is not None:
            return found
        exc = exc.__cause__ or exc.__context__
    return None
