"""The import paths that moved when the package was split into its three roles.

Until 0.2 every old path keeps working: importing ``mcs_conformance.buffer`` (or any module
under an old path, e.g. ``mcs_conformance.invariants.base``) gives the module at its new path,
with a :class:`DeprecationWarning` naming that path. ``mcs_conformance.strategies`` is a public
path, not a deprecated one: it names :mod:`mcs_conformance.reference.strategies`, silently.

One table, :data:`MOVED`, and one meta-path finder, installed by ``mcs_conformance/__init__.py``.
The old module and the new one are the same object, so classes and registries are shared.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

__all__ = ["ALIASES", "MOVED", "install", "new_name"]

_P = "mcs_conformance"

#: old path -> new path; a path under an old one (``.invariants.base``) moves with it.
MOVED: dict[str, str] = {
    # the reference implementation
    f"{_P}.protocol": f"{_P}.reference.protocol",
    f"{_P}.errors": f"{_P}.reference.errors",
    f"{_P}.accumulator": f"{_P}.reference.accumulator",
    f"{_P}.buffer": f"{_P}.reference.buffer",
    f"{_P}.chain": f"{_P}.reference.chain",
    f"{_P}.extraction": f"{_P}.reference.extraction",
    f"{_P}.shapes": f"{_P}.reference.wire",
    # the conformance suite
    f"{_P}.plugin": f"{_P}.suite.plugin",
    f"{_P}.loader": f"{_P}.suite.loader",
    f"{_P}.settings": f"{_P}.suite.settings",
    f"{_P}.profiles": f"{_P}.suite.profiles",
    f"{_P}.guard": f"{_P}.suite.time_limits",
    f"{_P}.invariants": f"{_P}.suite.invariants",
    f"{_P}.generators": f"{_P}.suite.generators",
    f"{_P}.derive": f"{_P}.suite.derive",
    f"{_P}.synthesize": f"{_P}.suite.synthesize",
    f"{_P}.jsonpaths": f"{_P}.suite.json_patterns",
    f"{_P}.expectations": f"{_P}.suite.expectations",
    f"{_P}.failures": f"{_P}.suite.failures",
    f"{_P}.report": f"{_P}.suite.report",
    f"{_P}.snapshots": f"{_P}.suite.snapshots",
    f"{_P}.explain": f"{_P}.suite.explain",
    # the corpus tooling
    f"{_P}.corpus": f"{_P}.corpus_tools.corpus",
    f"{_P}.schemas": f"{_P}.corpus_tools.schemas",
    f"{_P}.capture": f"{_P}.corpus_tools.capture",
    f"{_P}.importer": f"{_P}.corpus_tools.importer",
    f"{_P}.recording": f"{_P}.corpus_tools.recording",
    f"{_P}.proxy": f"{_P}.corpus_tools.proxy",
    f"{_P}.redaction": f"{_P}.corpus_tools.redaction",
    f"{_P}.drift": f"{_P}.corpus_tools.drift",
    f"{_P}.streamfacts": f"{_P}.corpus_tools.drift_facts",
    f"{_P}.schemaview": f"{_P}.corpus_tools.schema_places",
    f"{_P}.oracles": f"{_P}.corpus_tools.oracles",
}

#: public paths that name a module elsewhere without a warning.
ALIASES: dict[str, str] = {
    f"{_P}.strategies": f"{_P}.reference.strategies",
}


def new_name(fullname: str) -> tuple[str, bool] | None:
    """``(new path, deprecated?)`` of an old import path, or None when it did not move."""
    for table, deprecated in ((MOVED, True), (ALIASES, False)):
        best = None
        for old in table:
            if (fullname == old or fullname.startswith(old + ".")) and (best is None or len(old) > len(best)):
                best = old
        if best is not None:
            new = table[best] + fullname[len(best):]
            # a module under the public alias that itself moved (strategies.openai_chat) is
            # deprecated: the alias covers the package, the moved path names the module.
            return new, deprecated or fullname != best
    return None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, old: str, new: str, deprecated: bool) -> None:
        self.old, self.new, self.deprecated = old, new, deprecated

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        if self.deprecated:
            warnings.warn(
                f"{self.old} moved to {self.new}; the old path goes away in mcs-conformance 0.2",
                DeprecationWarning,
                stacklevel=_caller_level(),
            )
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:  # the new module is already executed
        pass


def _caller_level() -> int:
    """The stack level of the first frame outside the import machinery (the importing line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None:
        name = frame.f_code.co_filename
        if "importlib" not in name and not name.endswith("_moved.py"):
            return level
        frame, level = frame.f_back, level + 1
    return 2


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds every old import path in :data:`MOVED` / :data:`ALIASES`, before the path finders."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: D401
        if not fullname.startswith(_P + "."):
            return None
        found = new_name(fullname)
        if found is None:
            return None
        new, deprecated = found
        if new == fullname or importlib.util.find_spec(new) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(fullname, new, deprecated))


_FINDER = _MovedFinder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _FINDER)
