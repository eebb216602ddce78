"""Thin adapters that run widely used stream accumulators through the conformance suite.

Not part of the mcs-conformance wheel: ``bash scripts/implementations.sh`` installs each
harness's pinned requirements in a virtualenv of its own and writes docs/implementations.md.
"""
