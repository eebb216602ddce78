"""LLMStreamBuffer: reassembles a stream into its native message, knowing no format."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .accumulator import Accumulator
from .chain import ExtractionChain
from .errors import MalformedChunk, MCSError, UnrecognizedStream
from .protocol import ExtractionStrategy
from .wire import describe, to_wire

__all__ = ["LLMStreamBuffer"]


class LLMStreamBuffer:
    """Feed raw chunks; read the native message with :meth:`as_dict`.

    The wire strategy is resolved once, on the first chunk, through the chain; every
    later chunk goes to that strategy's ``accumulate``. The content deltas it returns
    form ``display_text``.
    """

    def __init__(self, chain: ExtractionChain | Iterable[ExtractionStrategy]) -> None:
        self.chain = chain if isinstance(chain, ExtractionChain) else ExtractionChain(chain)
        self.reset()

    def reset(self) -> None:
        """Forget the stream: the next chunk starts a new one (and is resolved again)."""
        self._strategy: ExtractionStrategy | None = None
        self._acc: Accumulator | None = None
        self._display: list[str] = []
        self.done = False
        self.chunks = 0

    def feed(self, chunk: Any) -> str:
        """Accumulate one chunk (a wire dict or str, or an SDK object); return its content delta."""
        chunk = to_wire(chunk)
        if self._strategy is None:
            strategy = self.chain.resolve(chunk)
            if strategy is None:
                names = ", ".join(s.name for s in self.chain) or "none"
                raise UnrecognizedStream(
                    f"no strategy in the chain ({names}) recognizes the first chunk: {describe(chunk)}"
                )
            self._strategy, self._acc = strategy, Accumulator()
        assert self._acc is not None
        try:
            delta = self._strategy.accumulate(self._acc, chunk)
        except MCSError:
            raise
        except Exception as exc:
            raise MalformedChunk(
                f"{self._strategy.name}: chunk {self.chunks} cannot be accumulated "
                f"({type(exc).__name__}: {exc}): {describe(chunk)}"
            ) from exc
        self.chunks += 1
        if not isinstance(delta, str):
            raise MalformedChunk(
                f"{self._strategy.name}.accumulate returned {type(delta).__name__}, not str, "
                f"for chunk {self.chunks - 1}: {describe(chunk)}"
            )
        if delta:
            self._display.append(delta)
        if not self.done and self._strategy.is_done(chunk):
            self.done = True
        return delta

    def as_dict(self) -> Any:
        """The native message so far (a dict, or a str for text wires); None before any chunk.

        Cheap to call after every chunk; treat the result as read-only.
        """
        return None if self._acc is None else self._acc.message

    @property
    def display_text(self) -> str:
        """Every content delta so far, in order."""
        if len(self._display) > 1:
            self._display = ["".join(self._display)]
        return self._display[0] if self._display else ""
