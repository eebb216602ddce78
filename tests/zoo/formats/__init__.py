"""One-bug copies of the reference strategies of the further native formats (Gemini, Bedrock,
Cohere, Ollama), one module per format.

Each module holds ``FORMAT`` (the format name), ``BASE`` (its reference strategy class),
``BUGS`` (bug slug -> a subclass of that format's reference strategy with
exactly one bug, its docstring naming the bug class or the hazard of docs/spec.md it shows) and
``KILLS`` (bug slug -> the check and bundled case slug that fail it; None as the slug: a check
run once per strategy). ``ZOOS`` gathers them by format name for ``tests/zoo/test_formats.py``.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def _zoos() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[module.FORMAT] = module
    return found


ZOOS: dict[str, ModuleType] = _zoos()
