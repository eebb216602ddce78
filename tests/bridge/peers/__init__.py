"""Hostile strategies and peers for tests/bridge/test_hostile.py.

Each Python module holds a subclass of the reference text strategy that misbehaves only
on what carries :data:`MARKER` (one chunk, or the message made of it, in one case of the
bundled corpus), so a run has items that pass beside the one that fails. ``raw.py`` is a
peer that speaks the protocol by hand and breaks it in a way chosen on its command line.
"""

MARKER = "zoo"  # only text-json/syn-hermes-tag-split's third chunk (and its message) holds it


def marked(value: object) -> bool:
    """Does this chunk or message carry the marker?"""
    return isinstance(value, str) and MARKER in value
