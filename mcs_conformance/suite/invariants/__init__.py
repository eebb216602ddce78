"""The invariants, one module per family, each check under a stable public id.

Importing this package registers every check in :data:`CHECKS`.
"""

from __future__ import annotations

from . import (  # noqa: F401  (imported to register their checks)
    chain,
    cost,
    cut,
    display,
    done,
    extract,
    golden,
    history,
    interleave,
    name,
    noise,
    parity,
    prefix,
    pure,
    recog,
    roundtrip,
    splice,
    split,
    struct,
    synthesized,
)
from .base import CHECKS, LEVELS, RETIRED, Check, Failure, Subject

FAMILIES = (
    "STRUCT", "RECOG", "PARITY", "SPLIT", "NOISE", "PURE", "DONE", "DISPLAY",
    "EXTRACT", "CHAIN", "NAME", "HISTORY", "ROUNDTRIP", "PREFIX", "SPLICE", "INTERLEAVE", "COST", "GOLDEN",
)

__all__ = ["CHECKS", "Check", "FAMILIES", "Failure", "LEVELS", "RETIRED", "Subject"]
