"""The data types and the strategy protocol of ADR-0001 (see DESIGN.md, Core contracts)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .errors import MalformedChunk, MCSError, StreamError, UnrecognizedStream

if TYPE_CHECKING:
    from .accumulator import Accumulator

__all__ = [
    "ExtractionStrategy",
    "MalformedChunk",
    "MCSError",
    "StreamError",
    "ToolCall",
    "ToolCallRecord",
    "UnrecognizedStream",
    "protocol_members",
    "require_records",
]


@dataclass(frozen=True)
class ToolCall:
    """One tool call read from a message.

    ``arguments`` is the parsed JSON object (``{}`` when the call has none). A call whose
    arguments could not be parsed carries ``error`` and must never be executed.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    raw_arguments: str | None = None
    error: str | None = None

    @property
    def executable(self) -> bool:
        """True when the call may be run: it has a name and no error."""
        return self.error is None and bool(self.name)


@dataclass(frozen=True)
class ToolCallRecord:
    """A call together with the result the client produced for it."""

    call: ToolCall
    result: str
    is_error: bool = False


def require_records(records: object, who: str) -> list[ToolCallRecord]:
    """``records`` as a list, or a ValueError that names the first item that is no
    ToolCallRecord (a driver passing its own result dicts hears so at once)."""
    if isinstance(records, (str, bytes, dict)) or not isinstance(records, Sequence):
        raise ValueError(f"{who}: records must be a sequence of ToolCallRecord, got {type(records).__name__}")
    for i, record in enumerate(records):
        if not isinstance(record, ToolCallRecord):
            raise ValueError(f"{who}: records[{i}] is {type(record).__name__}, not a ToolCallRecord")
    return list(records)


@runtime_checkable
class ExtractionStrategy(Protocol):
    """A format expert: recognises, reassembles, extracts and replays one format."""

    name: str
    leaks_into_text: bool

    def recognizes(self, shape: object) -> bool:
        """Is this raw chunk or assembled message of my format? Never raises."""
        ...

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold ``chunk`` into ``acc.root`` (the live message; ``acc.state`` is scratch); return
        the content text it added."""
        ...

    def is_done(self, chunk: object) -> bool:
        """Is ``chunk`` my format's completion signal?"""
        ...

    def extract(self, message: object) -> list[ToolCall]:
        """The calls in an assembled message, in order; ``[]`` when there are none."""
        ...

    def content_text(self, message: object) -> str:
        """The text of the message's content channel (where a leaked call would sit)."""
        ...

    def forming_name(self, message: object) -> str | None:
        """The first call's name as far as it has arrived, or None."""
        ...

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The continuation: the assistant turn in request shape, then the tool results."""
        ...


def protocol_members() -> dict[str, str]:
    """Every member of :class:`ExtractionStrategy` and how it is declared, read from the
    protocol itself: ``{"name": "name: str", "accumulate": "accumulate(acc, chunk) -> str", ...}``."""
    import inspect

    out = {attr: f"{attr}: {kind}" for attr, kind in (("name", "str"), ("leaks_into_text", "bool"))}
    for member, fn in vars(ExtractionStrategy).items():
        if callable(fn) and not member.startswith("_"):
            sig = inspect.signature(fn)
            params = ", ".join(p for p in sig.parameters if p != "self")
            out[member] = f"{member}({params}) -> {sig.return_annotation}"
    return out
