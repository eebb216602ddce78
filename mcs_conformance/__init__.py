"""mcs-conformance: the reference implementation of MCS ADR-0001 and its conformance suite.

The package has three roles, one subpackage each, and the bridge between the suite and a
strategy in another process:

- :mod:`mcs_conformance.reference`: the reference implementation (buffer, chain, strategies),
  importable without pytest, hypothesis, syrupy or the recording tools;
- :mod:`mcs_conformance.suite`: the conformance suite (the pytest plugin and the invariants);
- :mod:`mcs_conformance.corpus_tools`: loading, recording, importing and comparing the corpus;
- :mod:`mcs_conformance.bridge`: the strategy bridge (docs/bridge.md): a peer process in any
  language stands for the strategy under test; it imports only the reference.

The data sit beside them: ``corpus/`` (cases, descriptors, manifest) and ``schemas/`` (JSON
Schemas). This module re-exports the public API of the reference; it imports no suite module.
``mcs_conformance.strategies`` names :mod:`mcs_conformance.reference.strategies`; the paths of
the modules before the split keep working until 0.2 with a ``DeprecationWarning``
(:mod:`mcs_conformance._moved`).
"""

from __future__ import annotations

from . import _moved

_moved.install()

from .reference.accumulator import Accumulator
from .reference.buffer import LLMStreamBuffer
from .reference.chain import ExtractionChain
from .reference.errors import MalformedChunk, MCSError, StreamError, UnrecognizedStream
from .reference.extraction import Extraction, extract_calls
from .reference.protocol import ExtractionStrategy, ToolCall, ToolCallRecord, require_records

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
