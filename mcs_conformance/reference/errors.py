"""The errors the reference implementation raises, all under one base class."""

from __future__ import annotations

from typing import Any


class MCSError(Exception):
    """Base class of every error raised on purpose by mcs_conformance."""


class UnrecognizedStream(MCSError, ValueError):
    """The first chunk of a stream is claimed by no strategy in the chain."""


class MalformedChunk(MCSError, ValueError):
    """A chunk of a resolved stream cannot be accumulated: its shape is wrong."""


class StreamError(MCSError, RuntimeError):
    """The provider reported an error inside the stream; the turn is not complete.

    ``payload`` holds the provider's error event exactly as received.
    """

    def __init__(self, message: str, payload: Any = None) -> None:
        super().__init__(message)
        self.payload = payload
