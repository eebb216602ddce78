"""The reference implementation of MCS ADR-0001: what a driver embeds to read a tool-call stream.

The protocol a strategy implements (:mod:`.protocol`, :mod:`.errors`), the buffer that feeds a
stream to one (:mod:`.buffer`, :mod:`.accumulator`), the chain that picks the strategy
(:mod:`.chain`), the one-call extraction (:mod:`.extraction`), the format-free wire helpers
(:mod:`.wire`) and the reference strategies, one per wire format (:mod:`.strategies`).

May import: the standard library, ``jiter``, and its own modules. Must not import the suite
(:mod:`mcs_conformance.suite`), the corpus tooling (:mod:`mcs_conformance.corpus_tools`),
pytest, hypothesis or syrupy; ``tests/reference/test_boundary.py`` imports it with those
blocked.
"""
