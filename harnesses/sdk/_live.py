"""One SDK stream fed live, an event at a time: what the three SDK adapters share.

The suite hands a strategy one chunk at a time and may read the message after any of
them; the SDKs read the response body themselves, through their own client. So each
adapter opens the SDK's own streaming call once per stream (the SDK's sync client over an
injected ``httpx2.MockTransport``) and answers it with a body that holds only the chunks
fed so far:

* ``client(cls)``: the SDK's client (``OpenAI`` / ``Anthropic``) with ``max_retries=0``,
  a made-up key and base URL, whose transport answers each request with the ``LiveBody``
  the request's ``x-harness-stream`` header names (status 200, ``text/event-stream``).
  One client per adapter module; one request per stream.
* ``LiveBody``: the response body. ``push(data)`` adds the SSE bytes of one chunk
  (``_wire.sse_body([chunk], fmt)``, the bytes the provider sent); the SDK's iterator is
  then stepped (``next``) until the SDK has read every byte pushed, so the SDK has handled
  the chunk before ``accumulate`` returns and every read sees the SDK's own state. A chunk
  the SDK's ``Stream`` reads without yielding anything (Anthropic's ``ping``, an event
  without a name) is pushed with ``yields=False``: its bytes wait for the next chunk's,
  since a step would ask for bytes the body does not have yet. If the SDK asks for bytes
  the body does not have anyway, the body raises ``Starved`` (a fault of this glue, never
  an answer of the SDK's).
* The SDK's iterator ending (``StopIteration``: the openai ``Stream`` stops at
  ``data: [DONE]``) ends the stream: later chunks are not read, as a user's loop never
  reads them. An exception out of the SDK's iterator is its answer for that chunk; the
  stream is over after it (the SDK's generator is finished), and later pushes raise the
  same exception again.

Nothing here accumulates or parses: the SDK reads the bytes.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import httpx2

__all__ = ["HEADER", "LiveBody", "Starved", "client"]

HEADER = "x-harness-stream"
_BODIES: dict[str, LiveBody] = {}
_TOKENS = itertools.count()


class Starved(RuntimeError):
    """The SDK asked for bytes of a chunk not fed yet: the glue's rule of which chunks the
    SDK reads without yielding is wrong."""


class LiveBody:
    """The body of one streamed response, fed a chunk's bytes at a time."""

    def __init__(self) -> None:
        self.token = f"stream-{next(_TOKENS)}"
        self._pending: deque[bytes] = deque()
        self._given = self._taken = 0
        self.events: Iterator[Any] | None = None  # the SDK's iterator, set by the adapter
        self.ended = False
        self.error: BaseException | None = None
        _BODIES[self.token] = self

    @property
    def headers(self) -> dict[str, str]:
        return {HEADER: self.token}

    def __iter__(self) -> Iterator[bytes]:
        while self._pending:
            self._taken += 1
            yield self._pending.popleft()
        raise Starved("the SDK asked for more bytes than the chunks fed so far hold")

    def push(self, data: bytes, yields: bool = True) -> list[Any]:
        """Feed one chunk's bytes; return what the SDK's iterator yielded while reading them
        (nothing when ``yields`` is false: the bytes wait for the next chunk's)."""
        if self.error is not None:
            raise self.error
        if self.ended:
            return []
        self._pending.append(data)
        self._given += 1
        out: list[Any] = []
        if not yields:
            return out
        assert self.events is not None, "the adapter sets events before the first push"
        try:
            while self._taken < self._given:
                out.append(next(self.events))
        except StopIteration:
            self.ended = True
        except BaseException as exc:
            if isinstance(exc, Exception):  # a time-out of the suite's guard is no answer of the SDK
                self.error = exc
            raise
        return out


def _handler(request: httpx2.Request) -> httpx2.Response:
    body = _BODIES.pop(request.headers.get(HEADER, ""), None)
    if body is None:
        return httpx2.Response(404, json={"error": {"message": "no live body for this request"}})
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=iter(body))


def client(cls: Callable[..., Any], base_url: str) -> Any:
    """The SDK's sync client over the live transport."""
    return cls(api_key="sk-harness", base_url=base_url, max_retries=0,
               http_client=httpx2.Client(transport=httpx2.MockTransport(_handler)))
