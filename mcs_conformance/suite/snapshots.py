"""Golden outputs as syrupy JSON snapshots, stored in the author's tests folder.

One JSON file per case, in ``tests/mcs-conformance/<strategy>/__snapshots__/golden/``:
a folder of its own per strategy, so a run never touches another strategy's snapshots. Case ids
hold a ``/``, which syrupy removes from file names; the extension below matches files to
items by that cleaned name, and looks for snapshots only in the strategy's own folder, so
syrupy's unused-snapshot report (and --snapshot-update's clean-up) stays exact.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

__all__ = ["GoldenJSONExtension", "golden_snapshot"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class GoldenJSONExtension(JSONSnapshotExtension):
    """syrupy's JSON extension, matching snapshot files by the cleaned item name."""

    def serialize(self, data: Any, **kwargs: Any) -> str:
        """syrupy's JSON text, with lone UTF-16 surrogates written as ``\\uXXXX`` escapes:
        arguments may hold one (a pair cut by the server), and a UTF-8 file cannot."""
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", super().serialize(data, **kwargs))

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
