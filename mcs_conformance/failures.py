"""What an author sees when a check fails: the invariant, the case, a diff, the chunks, a command."""

from __future__ import annotations

import difflib
import json
import re
import shlex
from pathlib import Path
from typing import Any

__all__ = ["CheckTimeout", "describe_failure", "write_counterexample"]

MAX_CHUNKS_SHOWN = 12
COUNTEREXAMPLES = Path(".mcs-conformance") / "counterexamples"
_REWRITES_STREAM = ("SPLIT", "NOISE")  # families whose failing chunks keep the case's expectations


class CheckTimeout(Exception):
    """A check ran past its time limit (the strategy hangs or is very slow)."""


def _pretty(value: Any) -> list[str]:
    try:
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=repr).splitlines()
    except (TypeError, ValueError):
        return repr(value).splitlines()


def diff(expected: Any, actual: Any) -> str:
    """A unified diff of the pretty-printed JSON of expected and actual."""
    lines = difflib.unified_diff(_pretty(expected), _pretty(actual), "expected", "actual", lineterm="", n=2)
    return "\n".join(list(lines)[2:])


def _chunks(chunks: list[Any]) -> list[str]:
    out = [f"chunks ({len(chunks)}):"]
    shown = chunks if len(chunks) <= MAX_CHUNKS_SHOWN else chunks[:6] + [...] + chunks[-5:]
    index = 0
    for c in shown:
        if c is ...:
            out.append(f"  ... {len(chunks) - 11} more ...")
            index = len(chunks) - 5
            continue
        text = json.dumps(c, ensure_ascii=False, default=repr)
        out.append(f"  [{index}] {text if len(text) <= 300 else text[:297] + '...'}")
        index += 1
    return out


def reproduce(conf: Any, check_id: str, label: str, case: Any) -> str:
    parts = ["pytest", "-p", "no:cacheprovider", f"--mcs-strategy={conf.spec}", f"--mcs-check={check_id}"]
    if case is not None:
        parts.append(f"--mcs-case={case.id}")
    for d in conf.config.getoption("mcs_corpus"):
        parts.append(f"--mcs-corpus={d}")
    parts.append(f"--mcs-profile={conf.profile}")
    timeout = conf.config.getoption("mcs_timeout")
    if timeout != 120.0:
        parts.append(f"--mcs-timeout={timeout:g}")
    parts.append("--mcs-only")
    return " ".join(shlex.quote(p) for p in parts)


def describe_failure(conf: Any, check: Any, label: str, case: Any, failure: Any) -> str:
    """The failure report: what broke, on which case, the evidence, and how to rerun it."""
    where = f"case {case.id} ({case.source})" if case is not None else f"strategy {label}"
    lines = [f"{check.id} failed on {where}", f"  invariant: {check.title}", f"  problem:   {failure.summary}"]
    if failure.detail:
        lines += ["", *failure.detail.splitlines()]
    if failure.has_diff:
        lines += ["", "diff (- expected, + actual):", diff(failure.expected, failure.actual) or "  (equal when printed)"]
    if failure.chunks is not None:
        lines += ["", *_chunks(failure.chunks)]
    saved = getattr(failure, "counterexample", None)
    if saved:
        lines += ["", f"counterexample case written to {saved} (ready for --mcs-corpus)"]
    lines += ["", f"why it matters: {check.why}", f"reproduce: {reproduce(conf, check.id, label, case)}"]
    return "\n".join(lines)


def write_counterexample(conf: Any, check: Any, case: Any, failure: Any) -> Path | None:
    """Save a shrunk failing stream as a schema-valid case file; None when there is none to save."""
    if case is None or failure.chunks is None or check.family not in _REWRITES_STREAM or failure.chunks == case.chunks:
        return None
    from .schemas import errors

    slug = re.sub(r"[^a-z0-9._-]+", "-", f"counterexample-{check.id}-{case.id.split('/', 1)[1]}".lower())
    data = {
        "id": f"{case.format}/{slug}",
        "format": case.format,
        "description": f"Counterexample for {check.id} on {case.id}: {failure.summary}",
        "provenance": {
            "kind": "synthetic",
            "source": "mcs-conformance",
            "license": case.provenance.get("license", "unknown"),
            "why": f"re-chunking of {case.id} found by {check.id}; the expectations are the original case's",
        },
        "tags": ["counterexample"],
        "chunks": failure.chunks,
        "expect": case.expect,
    }
    if errors("case.schema.json", data):
        return None
    path = Path(conf.config.rootpath) / COUNTEREXAMPLES / case.format / f"{slug}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8",
                    errors="backslashreplace")  # a lone surrogate becomes its JSON escape
    failure.counterexample = path
    return path
