"""The driver's extraction axis: resolve on the assembled message, extract, fall through.

Reassembly resolves on a raw chunk; extraction resolves again on the assembled message,
because a call can sit in a different format (text) from the wire's (ADR-0001, two axes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .chain import ExtractionChain
from .protocol import ExtractionStrategy, ToolCall, ToolCallRecord

__all__ = ["Extraction", "extract_calls"]


@dataclass(frozen=True)
class Extraction:
    """What the extraction axis found, and who shapes the continuation.

    ``resolved`` claimed the message; ``strategy`` extracted the calls (the backup on the
    leak path, when ``via_backup`` is true); ``source`` is what ``strategy`` read: the
    message itself, or its content text on the leak path.
    """

    calls: tuple[ToolCall, ...]
    strategy: ExtractionStrategy | None
    resolved: ExtractionStrategy | None
    via_backup: bool
    source: Any

    def result_messages(self, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The continuation shaped by the strategy that extracted the calls."""
        if self.strategy is None:
            raise ValueError("no strategy claimed the message, so there is no continuation to shape")
        return self.strategy.result_messages(self.source, records)


UNFINISHED = "the stream has not finished (no completion signal): a call of an unfinished turn is never run"


def extract_calls(
    message: Any, chain: ExtractionChain, backup: ExtractionStrategy | None = None, *, done: bool = True
) -> Extraction:
    """Resolve ``message`` on ``chain``, extract its calls, and apply the leak fall-through.

    The fall-through fires only when the resolved strategy extracted nothing, declares
    ``leaks_into_text`` and a backup text strategy is given; then the backup reads the
    message's content text and, if it finds calls, shapes the history.

    ``done`` says whether the stream carried its completion signal (``buffer.done``): when it
    did not, every call comes back with ``error`` set, so nothing executes from a stream the
    network or the client cut short, whatever the strategy read from the message so far.
    """
    found = _extract(message, chain, backup)
    if done or not found.calls:
        return found
    return replace(found, calls=tuple(c if c.error else replace(c, error=UNFINISHED) for c in found.calls))


def _extract(message: Any, chain: ExtractionChain, backup: ExtractionStrategy | None) -> Extraction:
    resolved = chain.resolve(message)
    if resolved is None:
        return Extraction((), None, None, False, message)
    calls = tuple(resolved.extract(message))
    if calls or backup is None or backup is resolved or not resolved.leaks_into_text:
        return Extraction(calls, resolved, resolved, False, message)
    text = resolved.content_text(message)
    leaked = tuple(backup.extract(text)) if text else ()
    if leaked:
        return Extraction(leaked, backup, resolved, True, text)
    return Extraction((), resolved, resolved, False, message)
