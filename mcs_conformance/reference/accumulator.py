"""Per-stream state that the buffer creates and a strategy fills.

The buffer never looks inside. A strategy edits ``acc.root`` (the native message under
construction) and hands growing strings to :meth:`Accumulator.append`, which keeps the
pieces in a list and joins them only when the message is read: feeding stays linear in
the stream's size, and a read (``acc.message``) costs one join per changed string and
one copy of the message's containers, nothing when nothing changed since the last read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Accumulator", "copy_tree"]


def copy_tree(value: Any) -> Any:
    """A copy of a JSON tree: new dicts and lists, the (immutable) leaves shared."""
    if isinstance(value, dict):
        return {k: copy_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_tree(v) for v in value]
    return value


class _Slot:
    __slots__ = ("container", "key", "pieces", "finish", "dirty")

    def __init__(self, container: Any, key: Any, finish: Callable[[str], Any] | None) -> None:
        self.container = container
        self.key = key
        self.pieces: list[str] = []
        self.finish = finish
        self.dirty = False

    def joined(self) -> str:
        if len(self.pieces) != 1:
            self.pieces = ["".join(self.pieces)]
        return self.pieces[0]


class Accumulator:
    """The native message under construction (``root``) and the strategy's scratch (``state``)."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self._root: Any = None
        self._slots: dict[tuple[int, Any], _Slot] = {}
        self._dirty: list[_Slot] = []
        self._snapshot: Any = None
        self._stale = True
        self._read: Callable[[], Any] | None = None

    # -- the live structure, for the strategy -------------------------------------------
    @property
    def root(self) -> Any:
        """The live message: the strategy edits it in place. Reading it marks it changed."""
        self._stale = True
        return self._root

    @root.setter
    def root(self, value: Any) -> None:
        self._root = value
        self._slots.clear()
        self._dirty.clear()
        self._stale = True

    def append(
        self,
        container: dict | list | None,
        key: Any,
        piece: str,
        finish: Callable[[str], Any] | None = None,
    ) -> None:
        """Grow the string at ``container[key]`` (the root string when container is None).

        The value already there, if it is a string, is the start of the text. ``finish``
        turns the joined text into the value stored at read time (a partial JSON parse,
        say); the text itself stays available through :meth:`text`.
        """
        slot_key = (id(container), key)
        slot = self._slots.get(slot_key)
        if slot is None:
            slot = self._slots[slot_key] = _Slot(container, key, finish)
            current = self._root if container is None else _get(container, key)
            if isinstance(current, str) and current and finish is None:
                slot.pieces.append(current)
        elif finish is not None:
            slot.finish = finish
        slot.pieces.append(piece)
        if not slot.dirty:
            slot.dirty = True
            self._dirty.append(slot)
        self._stale = True

    def text(self, container: dict | list | None, key: Any) -> str | None:
        """The text appended so far at ``container[key]``, or None when nothing was appended."""
        slot = self._slots.get((id(container), key))
        return None if slot is None else slot.joined()

    def seal(self, container: dict | list | None, key: Any, value: Any = None) -> str | None:
        """Stop growing ``container[key]``: store ``value`` (default: the text) and return the text."""
        slot = self._slots.pop((id(container), key), None)
        text = None if slot is None else slot.joined()
        if slot is not None and slot.dirty:
            self._dirty.remove(slot)
        final = text if value is None else value
        if slot is not None or value is not None:
            self._store(container, key, final)
        self._stale = True
        return text

    def defer(self, read: Callable[[], Any]) -> None:
        """Let the message live elsewhere: the next read of :attr:`message` returns ``read()``.
        A strategy whose stream another process holds (the bridge's, docs/bridge.md) calls this
        after each chunk, so the message is fetched only when it is read."""
        self._read = read
        self._stale = True

    # -- the read side, for the buffer ----------------------------------------------------
    @property
    def message(self) -> Any:
        """A snapshot of the message: a valid partial message, read-only by convention."""
        if self._stale and self._read is not None:
            self._snapshot = self._read()
            self._stale = False
        if self._stale:
            for slot in self._dirty:
                text = slot.joined()
                self._store(slot.container, slot.key, slot.finish(text) if slot.finish else text)
                slot.dirty = False
            self._dirty.clear()
            self._snapshot = copy_tree(self._root)
            self._stale = False
        return self._snapshot

    def _store(self, container: Any, key: Any, value: Any) -> None:
        if container is None:
            self._root = value
        else:
            container[key] = value


def _get(container: Any, key: Any) -> Any:
    if isinstance(container, dict):
        return container.get(key)
    try:
        return container[key]
    except (IndexError, TypeError):
        return None
