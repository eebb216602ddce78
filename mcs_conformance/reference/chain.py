"""ExtractionChain: the one ordered list of strategies shared by buffer and driver."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .protocol import ExtractionStrategy

__all__ = ["ExtractionChain"]


class ExtractionChain:
    """Ordered strategies; :meth:`resolve` returns the first that claims a shape.

    Native strategies go before text ones. The strategy that matched is promoted to the
    front, on the bet that a stream keeps its format; native and text shapes never
    overlap, so promotion changes no result, only the number of ``recognizes`` calls.
    """

    def __init__(self, strategies: Iterable[ExtractionStrategy]) -> None:
        self._items: list[ExtractionStrategy] = list(strategies)
        names = [getattr(s, "name", None) for s in self._items]
        dupes = sorted({n for n in names if names.count(n) > 1 and n is not None})
        if dupes:
            raise ValueError(f"ExtractionChain: two strategies share the name {dupes[0]!r}")

    def resolve(self, shape: object) -> ExtractionStrategy | None:
        """The first strategy that recognizes ``shape``, promoted to the front; or None."""
        for i, strategy in enumerate(self._items):
            if _claims(strategy, shape):
                if i:
                    del self._items[i]
                    self._items.insert(0, strategy)
                return strategy
        return None

    @property
    def strategies(self) -> tuple[ExtractionStrategy, ...]:
        """The strategies in their current order."""
        return tuple(self._items)

    def __iter__(self) -> Iterator[ExtractionStrategy]:
        return iter(tuple(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"ExtractionChain([{', '.join(repr(s.name) for s in self._items)}])"


def _claims(strategy: ExtractionStrategy, shape: object) -> bool:
    try:
        return strategy.recognizes(shape) is True
    except Exception:  # recognizes must never raise; a strategy that does claims nothing
        return False
