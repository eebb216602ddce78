"""Golden outputs as syrupy JSON snapshots, stored in the author's tests folder.

One JSON file per case, in ``tests/mcs-conformance/<strategy>/__snapshots__/golden/``:
a folder of its own per strategy, so a run never touches another strategy's snapshots.

A file is named for its item, ``GOLDEN-001[<case id>].json``, with every character a file
name cannot hold written as percent escapes of its UTF-8 bytes, ``%`` itself included: the
``/`` of a case id becomes ``%2F`` (``GOLDEN-001[openai-chat%2Ftwo-calls].json``). The name
stays readable, and no two item names share a file (the escaping is injective: every
``%`` starts an escape). syrupy's own cleaning dropped the ``/`` instead, so
``openai-chat/x-y`` and ``openai-chatx/-y`` would have shared one file; snapshots found
under those names of before are renamed when a run starts (:func:`rename_legacy_snapshots`),
unless two items claim the same old file.

The extension matches files to items by that name, and looks for snapshots only in the
strategy's own folder, so syrupy's unused-snapshot report (and --snapshot-update's
clean-up) stays exact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from unicodedata import category

import pytest
from syrupy.extensions.base import AbstractSyrupyExtension
from syrupy.extensions.json import JSONSnapshotExtension

__all__ = ["GoldenJSONExtension", "file_stem", "golden_snapshot", "legacy_stem", "rename_legacy_snapshots",
           "unescape_stem"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED = frozenset('\\/?*:|"<>%')  # what syrupy drops from a file name, and the escape character itself
_MAX_STEM = 255 - len(".json")


def _escaped(c: str) -> bool:
    return c in _ESCAPED or category(c).startswith("C")


def file_stem(name: str) -> str:
    """The file name (without ``.json``) of an item's snapshot: ``name`` with ``\\ / ? * : | " < > %``
    and control characters percent-escaped as UTF-8 bytes (``/`` is ``%2F``)."""
    return "".join("".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass")) if _escaped(c) else c
                   for c in name)


def unescape_stem(stem: str) -> str:
    """The item name a snapshot file stem stands for (the inverse of :func:`file_stem`)."""
    return re.sub(r"(?:%[0-9A-F]{2})+", lambda m: bytes.fromhex(m.group().replace("%", "")).decode("utf-8", "surrogatepass"),
                  stem)


def legacy_stem(name: str) -> str:
    """The file name syrupy gave an item's snapshot before (the characters above dropped)."""
    return "".join(c for c in name if c == "%" or not _escaped(c))[:_MAX_STEM]


class GoldenJSONExtension(JSONSnapshotExtension):
    """syrupy's JSON extension, naming and matching snapshot files by the escaped item name."""

    def serialize(self, data: Any, **kwargs: Any) -> str:
        """syrupy's JSON text, with lone UTF-16 surrogates written as ``\\uXXXX`` escapes:
        arguments may hold one (a pair cut by the server), and a UTF-8 file cannot."""
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", super().serialize(data, **kwargs))

    @classmethod
    def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
        """The item's name, escaped for a file name (:func:`file_stem`)."""
        return file_stem(AbstractSyrupyExtension.get_snapshot_name(test_location=test_location, index=index))[:_MAX_STEM]

    @classmethod
    def discovery_dirname(cls, *, test_location: Any) -> str:
        """Only this strategy's folder: a run never judges another strategy's snapshots."""
        return cls.dirname(test_location=test_location)

    @classmethod
    def matches_test_location(cls, *, test_location: Any, snapshot_location: str) -> bool:
        loc = Path(snapshot_location)
        return loc.parent.name == test_location.basename and loc.stem == cls.get_snapshot_name(
            test_location=test_location, index=0
        )


def golden_snapshot(request: pytest.FixtureRequest) -> Any:
    """The ``snapshot`` fixture of syrupy, set to store one JSON file per (strategy, case)."""
    return request.getfixturevalue("snapshot").use_extension(GoldenJSONExtension)


def rename_legacy_snapshots(folder: Path, names: Iterable[str]) -> list[tuple[str, str]]:
    """Rename the snapshots of these item names that are stored under their names of before
    (:func:`legacy_stem`) to the current ones; returns (old, new) file names.

    Content is kept as it was reviewed. A file two items would claim, or whose new name is
    taken, is left alone (its item reports a missing snapshot, and --snapshot-update writes it).
    """
    claims: dict[str, list[str]] = {}
    for name in names:
        claims.setdefault(legacy_stem(name), []).append(name)
    renamed = []
    for old, claimed in sorted(claims.items()):
        new = file_stem(claimed[0])[:_MAX_STEM]
        src, dst = folder / f"{old}.json", folder / f"{new}.json"
        if len(claimed) != 1 or old == new or not src.is_file() or dst.exists():
            continue
        try:
            src.rename(dst)
        except OSError:
            continue
        renamed.append((src.name, dst.name))
    return renamed
