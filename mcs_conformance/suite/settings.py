"""The ``[tool.mcs-conformance]`` table of the project's pyproject.toml.

Everything a run can be told on the command line that belongs to the project rather than
to one run lives here too, so CI and a developer's shell run the same suite::

    [tool.mcs-conformance]
    corpus = ["tests/mcs-corpus"]               # author corpus folders, relative to this file
    gate = "should"                             # must | should | reference
    snapshot-dir = "tests/mcs-conformance/hermes"
    expect-fail = [{ id = "...", case = "...", reason = "..." }]
    chain = ["my_pkg:CohereStrategy", "mcs_conformance.strategies:TextStrategy"]
    backup = "mcs_conformance.strategies:TextStrategy"
    format = "anthropic-messages"               # the format whose cases are the strategy's own
    isolate = false                             # true: the strategy runs in a child process
    memory-limit = 2048                         # MiB, for a strategy in a child process

``chain`` is the extraction chain the author's driver ships, in order (``--mcs-chain
MODULE:ATTR``, repeatable): the chain-level checks (CHAIN, HISTORY, RECOG-004, the leak
fall-through) run on it instead of the reference chain. The strategy under test is named in
it by its spec, or stands in for the member of its name, or is put in as in the default
chain (a native before the first text strategy, a text one last). ``backup`` is the text
strategy a leaked call falls through to (``--mcs-backup MODULE:ATTR``; default: the chain's
last text strategy). ``format`` names the format whose cases are the strategy's own when its
``name`` is no format's (``--mcs-format FORMAT``; :mod:`.formats`).

Command-line options win over the table; corpus folders from both are loaded. The suite
still runs only with ``--mcs-strategy`` (or ``mcs-conformance check``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["GATES", "ProjectSettings", "SettingsError", "load_settings"]

GATES = ("must", "should", "reference")
_KEYS = {"corpus", "gate", "snapshot-dir", "expect-fail", "chain", "backup", "format", "isolate", "memory-limit"}
MEMORY_LIMIT = 2048.0  # MiB: a bridged strategy's process past this resident memory is killed


class SettingsError(ValueError):
    """The table is malformed; the message names the key and what it must be."""


@dataclass(frozen=True)
class ProjectSettings:
    source: str = ""
    corpus: tuple[Path, ...] = ()
    gate: str | None = None
    snapshot_dir: Path | None = None
    chain: tuple[str, ...] = ()  # MODULE:ATTR specs of the author's chain, in order
    backup: str | None = None  # MODULE:ATTR of the backup text strategy
    format: str | None = None  # the format whose cases are the strategy's own, when its name is no format's
    isolate: bool = False  # run a MODULE:ATTR strategy in a child process, through the bridge
    memory_limit: float = MEMORY_LIMIT
    raw: dict[str, Any] = field(default_factory=dict)


def load_settings(pyproject: Path) -> ProjectSettings:
    """The table's settings, with paths resolved against the pyproject's folder (empty when
    there is no pyproject.toml or no table)."""
    if not pyproject.is_file():
        return ProjectSettings()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{pyproject}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("mcs-conformance")
    if table is None:
        return ProjectSettings()
    where = f"{pyproject} [tool.mcs-conformance]"
    if not isinstance(table, dict):
        raise SettingsError(f"{where} must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise SettingsError(f"{where} has unknown keys {unknown} (known: {', '.join(sorted(_KEYS))})")
    base = pyproject.parent
    corpus = table.get("corpus", [])
    if isinstance(corpus, str):
        corpus = [corpus]
    if not isinstance(corpus, list) or not all(isinstance(c, str) and c for c in corpus):
        raise SettingsError(f"{where}: corpus must be a folder or a list of folders")
    gate = table.get("gate")
    if gate is not None and gate not in GATES:
        raise SettingsError(f"{where}: gate must be one of {', '.join(GATES)}, got {gate!r}")
    snapshots = table.get("snapshot-dir")
    if snapshots is not None and (not isinstance(snapshots, str) or not snapshots):
        raise SettingsError(f"{where}: snapshot-dir must be a folder")
    chain = table.get("chain", [])
    if not isinstance(chain, list) or not all(isinstance(c, str) and ":" in c for c in chain):
        raise SettingsError(f"{where}: chain must be a list of 'package.module:Attr' strategy paths, in order")
    backup = table.get("backup")
    if backup is not None and (not isinstance(backup, str) or ":" not in backup):
        raise SettingsError(f"{where}: backup must be a 'package.module:Attr' path of a text strategy")
    fmt = table.get("format")
    if fmt is not None and (not isinstance(fmt, str) or not fmt):
        raise SettingsError(f"{where}: format must be a format name, such as \"gemini\"")
    isolate = table.get("isolate", False)
    if not isinstance(isolate, bool):
        raise SettingsError(f"{where}: isolate must be true or false")
    memory = table.get("memory-limit", MEMORY_LIMIT)
    if isinstance(memory, bool) or not isinstance(memory, (int, float)) or not memory >= 0:
        raise SettingsError(f"{where}: memory-limit must be a number of MiB, 0 (no limit) or more")
    return ProjectSettings(
        source=where,
        isolate=isolate,
        memory_limit=float(memory),
        chain=tuple(chain),
        backup=backup,
        format=fmt,
        corpus=tuple(base / c for c in corpus),
        gate=gate,
        snapshot_dir=base / snapshots if snapshots else None,
        raw=table,
    )
