"""Shared test setup: pytester, for the tests that run the conformance plugin in a scratch project;
and a guard that no test reads a file beside the clone.

A clone has nothing beside it (CI clones into an empty folder), so data a test reads from a
sibling folder (a steering folder, another checkout) passes here and fails there. Every file the
test process opens is checked by an audit hook (``sys.addaudithook``, the ``open`` event, which
``open``, ``os.open`` and the import system's ``io.open_code`` raise): a path inside the clone's
parent folder but outside the clone raises ``PermissionError`` naming it. Python's own folders,
``sys.path`` and the temporary folder are allowed wherever they are, so the guard does nothing
for a clone placed directly in the temporary folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


def _allowed_prefixes() -> tuple[str, ...]:
    places = {tempfile.gettempdir(), sys.prefix, sys.base_prefix, sys.exec_prefix,
              *(p for p in sys.path if p and os.path.isabs(p))}
    return tuple(os.path.realpath(p).rstrip(os.sep) + os.sep for p in places)


_INSIDE = str(ROOT) + os.sep
_BESIDE = str(ROOT.parent).rstrip(os.sep) + os.sep
_ALLOWED = tuple(p for p in _allowed_prefixes() if not p.startswith(_INSIDE))


def beside_the_clone(path: str) -> bool:
    """Whether ``path`` lies in the clone's parent folder, outside the clone and the allowed places."""
    p = os.path.normpath(os.path.join(os.getcwd(), path)) + os.sep
    return p.startswith(_BESIDE) and not p.startswith(_INSIDE) and not p.startswith(_ALLOWED)


def _guard(event: str, args: tuple) -> None:
    if event != "open" or not args or isinstance(args[0], int) or args[0] is None:
        return
    try:
        path = os.fsdecode(args[0])
    except TypeError:
        return
    if beside_the_clone(path):
        raise PermissionError(f"a test opened {path}, outside the clone {ROOT}: a clone has nothing beside it "
                              "(copy the data into the repository, with its provenance)")


if _BESIDE != os.sep:
    sys.addaudithook(_guard)
