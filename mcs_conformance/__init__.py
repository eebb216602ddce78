"""mcs-conformance: the reference implementation of MCS ADR-0001 and its conformance suite."""

from __future__ import annotations

from .accumulator import Accumulator
from .buffer import LLMStreamBuffer
from .chain import ExtractionChain
from .errors import MalformedChunk, MCSError, StreamError, UnrecognizedStream
from .extraction import Extraction, extract_calls
from .protocol import ExtractionStrategy, ToolCall, ToolCallRecord, require_records

__version__ = "0.1.0"

__all__ = [
    "Accumulator",
    "Extraction",
    "ExtractionChain",
    "ExtractionStrategy",
    "LLMStreamBuffer",
    "MalformedChunk",
    "MCSError",
    "StreamError",
    "ToolCall",
    "ToolCallRecord",
    "UnrecognizedStream",
    "extract_calls",
    "require_records",
]
