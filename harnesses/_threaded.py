"""A library's own streaming loop run live in a worker thread: what the LangChain and litellm
adapters share.

The suite hands a strategy one chunk at a time; LangChain's ``llm.stream()`` and litellm's
``completion(stream=True)`` read the response body themselves, and may read several
chunks' bytes before they yield (or yield nothing for some). So each buffer's stream runs
its loop in a worker thread of its own over a body that waits for bytes:

* ``LiveStream(loop, name)``: starts ``loop(body)`` in a thread; ``loop`` installs ``body``
  (an iterator of the bytes fed so far, blocking for more) as the response its mock
  transport gives on that thread, and runs the library's own loop over it.
* ``feed(data)`` hands over one chunk's SSE bytes and waits until the library asks for more
  (or its loop has ended), so only one side runs at a time and the library has read exactly
  the chunks fed so far, each once, as from a live connection. ``end()`` ends the body (the
  provider closing the stream).
* ``raised``: what the library's loop raised (an ``Exception``: what the library's user
  gets); ``finished``: the loop is over, later bytes are not read.
* When the buffer holding the stream is dropped, the body raises a private
  ``BaseException`` that no ``except Exception`` of the library catches, and the worker stops.
* A library that neither yields nor asks for bytes within ``wait`` seconds is reported as
  ``raised`` (a ``TimeoutError``) and the stream as finished.

Nothing here reads the bytes: the library does.
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["LiveStream"]

_END, _CLOSE = object(), object()


class _Gone(BaseException):
    """The buffer was dropped while its stream was open: the worker stops."""


class _Pipe:
    """What the worker thread and the stream share (the stream holds it; the worker never
    holds the stream, so dropping the buffer lets the stream go)."""

    def __init__(self) -> None:
        self.bytes: queue.SimpleQueue = queue.SimpleQueue()
        self.settled = threading.Event()
        self.raised: BaseException | None = None
        self.finished = False

    def body(self) -> Iterator[bytes]:
        while True:
            self.settled.set()  # everything handed over so far is read: ask for more
            piece = self.bytes.get()
            if piece is _END:
                return
            if piece is _CLOSE:
                raise _Gone()
            yield piece

    def run(self, loop: Callable[[Iterator[bytes]], None]) -> None:
        try:
            loop(self.body())
        except _Gone:
            pass
        except Exception as exc:  # the library's loop raised: what its user's loop gets
            self.raised = exc
        finally:
            self.finished = True
            self.settled.set()


class LiveStream:
    """One live stream: ``loop(body)`` in a worker thread, fed a chunk's bytes at a time."""

    def __init__(self, loop: Callable[[Iterator[bytes]], None], name: str, wait: float = 120.0) -> None:
        self._pipe = pipe = _Pipe()
        self._wait = wait
        self._name = name
        weakref.finalize(self, pipe.bytes.put, _CLOSE)
        threading.Thread(target=pipe.run, args=(loop,), name=name, daemon=True).start()
        self._settle()

    @property
    def raised(self) -> BaseException | None:
        return self._pipe.raised

    @property
    def finished(self) -> bool:
        return self._pipe.finished

    def feed(self, data: Any) -> None:
        """Hand over one chunk's bytes; return once the library has read them."""
        if self._pipe.finished:
            return  # the stream is over: later bytes are not read
        self._pipe.settled.clear()
        self._pipe.bytes.put(data)
        self._settle()

    def end(self) -> None:
        """End the body: the provider closed the stream."""
        self.feed(_END)

    def _settle(self) -> None:
        if not self._pipe.settled.wait(self._wait) and self._pipe.raised is None:
            self._pipe.raised = TimeoutError(f"{self._name}: the library took more than {self._wait:.0f} s over one chunk")
            self._pipe.finished = True
