"""Expected failures: declared per (invariant id, case id), each with a mandatory reason.

Read from a TOML or JSON file (``--mcs-expect-fail FILE``) and from ``[tool.mcs-conformance]``
in the project's pyproject.toml; both hold an ``expect-fail`` list of tables::

    [tool.mcs-conformance]
    expect-fail = [
      { id = "SPLIT-003", case = "openai-chat/parallel-tool-calls", reason = "upstream bug #12" },
    ]

``case`` is a corpus case id, or the strategy's name for strategy-wide checks.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ExpectedFailure", "ExpectationError", "load_expectations"]


class ExpectationError(ValueError):
    """An expected-failure entry is malformed or names nothing that exists."""


@dataclass(frozen=True)
class ExpectedFailure:
    id: str
    case: str
    reason: str
    source: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.id, self.case)


def _entries(data: Any, source: str) -> list[ExpectedFailure]:
    raw = data.get("expect-fail", []) if isinstance(data, dict) else None
    if not isinstance(raw, list):
        raise ExpectationError(f"{source}: 'expect-fail' must be a list of tables with id, case and reason")
    out = []
    for i, entry in enumerate(raw):
        where = f"{source}: expect-fail[{i}]"
        if not isinstance(entry, dict):
            raise ExpectationError(f"{where} must be a table with id, case and reason")
        unknown = set(entry) - {"id", "case", "reason"}
        if unknown:
            raise ExpectationError(f"{where} has unknown keys {sorted(unknown)} (allowed: id, case, reason)")
        for key in ("id", "case", "reason"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise ExpectationError(f"{where} needs a non-empty string {key!r}")
        out.append(ExpectedFailure(entry["id"], entry["case"], entry["reason"].strip(), source))
    return out


def load_expectations(file: str | None, pyproject: Path | None) -> dict[tuple[str, str], ExpectedFailure]:
    """All declared expected failures, keyed by (id, case); duplicates are an error."""
    found: list[ExpectedFailure] = []
    if pyproject is not None and pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ExpectationError(f"{pyproject}: not valid TOML: {exc}") from None
        section = data.get("tool", {}).get("mcs-conformance")
        if section is not None:
            found += _entries(section, f"{pyproject} [tool.mcs-conformance]")
    if file:
        path = Path(file)
        if not path.is_file():
            raise ExpectationError(f"--mcs-expect-fail {file}: no such file")
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
        except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ExpectationError(f"{file}: cannot be parsed: {exc}") from None
        found += _entries(data, str(path))
    out: dict[tuple[str, str], ExpectedFailure] = {}
    for e in found:
        if e.key in out:
            raise ExpectationError(f"{e.source}: {e.id}[{e.case}] is declared twice (also in {out[e.key].source})")
        out[e.key] = e
    return out
