"""What an author sees when a check fails: the invariant, the case, a diff, the chunks, a command.

A report fits on a screen by default: strings longer than :data:`STRING_LIMIT` characters
are cut in the middle with their length shown (where expected and actual differ, around the
first difference), a chunk line is cut the same way, and a report longer than
:data:`SCREEN_LINES` lines keeps its head and its reproduce line and says how many lines it
left out. ``-vv`` shows everything.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

__all__ = ["Budget", "describe_failure", "reproduce", "shorten", "shorten_pair", "snapshot_update_command",
           "write_counterexample"]

MAX_CHUNKS_SHOWN = 12
STRING_LIMIT = 160
LINE_LIMIT = 240
SCREEN_LINES = 60
COUNTEREXAMPLES = Path(".mcs-conformance") / "counterexamples"
_REWRITES_STREAM = ("SPLIT", "NOISE")  # families whose failing chunks keep the case's expectations


class Budget:
    """How much of a report to show: bounded by default, everything with -vv."""

    def __init__(self, full: bool = False) -> None:
        self.full = full

    @property
    def string(self) -> int | None:
        return None if self.full else STRING_LIMIT

    @property
    def line(self) -> int | None:
        return None if self.full else LINE_LIMIT

    @property
    def lines(self) -> int | None:
        return None if self.full else SCREEN_LINES


def _cut(text: str, limit: int | None, around: int | None = None) -> str:
    """``text`` cut to about ``limit`` characters, the cut marked with the full length;
    with ``around``, the part kept is centred on that offset (a first difference)."""
    if limit is None or len(text) <= limit:
        return text
    mark = f"…[{len(text):,} chars]…"
    keep = max(limit - len(mark), 16)
    if around is None or around < keep // 2:
        head = keep // 2
        return text[:head] + mark + text[len(text) - (keep - head):]
    start = max(0, min(around - keep // 2, len(text) - keep))
    left = f"…[{start:,} chars]" if start else ""
    right = f"[{len(text) - start - keep:,} more chars]…" if start + keep < len(text) else ""
    return f"{left}{text[start:start + keep]}{right} ({len(text):,} chars)"


def shorten(value: Any, limit: int | None = STRING_LIMIT) -> Any:
    """``value`` with every string longer than ``limit`` cut in the middle (for display only)."""
    if limit is None:
        return value
    if isinstance(value, str):
        return _cut(value, limit)
    if isinstance(value, dict):
        return {k: shorten(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [shorten(v, limit) for v in value]
    return value


def _first_difference(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def shorten_pair(expected: Any, actual: Any, limit: int | None = STRING_LIMIT) -> tuple[Any, Any]:
    """Both sides shortened alike, so a diff of the results still shows every difference:
    strings at the same place that differ are both cut around their first difference."""
    if limit is None:
        return expected, actual
    if isinstance(expected, str) and isinstance(actual, str):
        if expected == actual:
            return _cut(expected, limit), _cut(actual, limit)
        at = _first_difference(expected, actual)
        return _cut(expected, limit, at), _cut(actual, limit, at)
    if isinstance(expected, dict) and isinstance(actual, dict):
        e, a = {}, {}
        for k in expected.keys() | actual.keys():
            if k in expected and k in actual:
                e[k], a[k] = shorten_pair(expected[k], actual[k], limit)
            elif k in expected:
                e[k] = shorten(expected[k], limit)
            else:
                a[k] = shorten(actual[k], limit)
        return {k: e[k] for k in expected}, {k: a[k] for k in actual}
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        pairs = [shorten_pair(x, y, limit) for x, y in zip(expected, actual)]
        n = len(pairs)
        return ([p[0] for p in pairs] + [shorten(x, limit) for x in expected[n:]],
                [p[1] for p in pairs] + [shorten(y, limit) for y in actual[n:]])
    return shorten(expected, limit), shorten(actual, limit)


def _pretty(value: Any) -> list[str]:
    try:
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=repr).splitlines()
    except (TypeError, ValueError):
        return repr(value).splitlines()


def diff(expected: Any, actual: Any, budget: Budget | None = None) -> str:
    """A unified diff of the pretty-printed JSON of expected and actual."""
    budget = budget or Budget()
    expected, actual = shorten_pair(expected, actual, budget.string)
    lines = difflib.unified_diff(_pretty(expected), _pretty(actual), "expected", "actual", lineterm="", n=2)
    return "\n".join(_cut(line, budget.line) for line in list(lines)[2:])


def _chunks(chunks: list[Any], budget: Budget) -> list[str]:
    out = [f"chunks ({len(chunks)}):"]
    if budget.full or len(chunks) <= MAX_CHUNKS_SHOWN:
        shown: list[Any] = list(chunks)
    else:
        shown = chunks[:6] + [...] + chunks[-5:]
    index = 0
    for c in shown:
        if c is ...:
            out.append(f"  ... {len(chunks) - 11} more ...")
            index = len(chunks) - 5
            continue
        text = json.dumps(shorten(c, budget.string), ensure_ascii=False, default=repr)
        out.append(f"  [{index}] {_cut(text, budget.line)}")
        index += 1
    return out


def _python_command() -> list[str]:
    """How to start this interpreter's pytest from a shell: ``python -m pytest`` (which, unlike
    the ``pytest`` script, also imports modules from the current folder, as the run may have),
    with the interpreter's full path unless ``python`` on PATH is this interpreter."""
    for name in ("python", "python3"):
        found = shutil.which(name)
        if found and os.path.abspath(found) == os.path.abspath(sys.executable):
            return [name, "-m", "pytest"]
    return [sys.executable, "-m", "pytest"]


def _command(conf: Any, checks: list[str], cases: list[str], extra: list[str] = ()) -> str:  # type: ignore[assignment]
    """A pytest command line of this run's environment and options, for these checks and cases."""
    config = conf.config
    env = [f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])}"] if os.environ.get("PYTHONPATH") else []
    parts = [*_python_command(), "-p", "no:cacheprovider"]
    if config.option.rootdir:
        parts.append(f"--rootdir={config.option.rootdir}")
    if getattr(config.option, "inifilename", None):
        parts += ["-c", str(config.option.inifilename)]
    parts.append(f"--mcs-strategy={conf.spec}")
    if config.getoption("mcs_isolate", None):
        parts.append("--mcs-isolate")
    if config.getoption("mcs_memory_limit", None) is not None:
        parts.append(f"--mcs-memory-limit={config.getoption('mcs_memory_limit'):g}")
    parts += [f"--mcs-check={c}" for c in checks]
    parts += [f"--mcs-case={c}" for c in cases]
    for d in config.getoption("mcs_corpus"):
        parts.append(f"--mcs-corpus={d}")
    parts += [f"--mcs-chain={c}" for c in config.getoption("mcs_chain", None) or ()]  # the chain the item ran on
    if config.getoption("mcs_backup", None):
        parts.append(f"--mcs-backup={config.getoption('mcs_backup')}")
    parts.append(f"--mcs-profile={conf.profile}")
    if config.getoption("mcs_gate"):
        parts.append(f"--mcs-gate={config.getoption('mcs_gate')}")
    if config.getoption("mcs_snapshot_dir"):
        parts.append(f"--mcs-snapshot-dir={config.getoption('mcs_snapshot_dir')}")
    timeout = config.getoption("mcs_timeout")
    if timeout != 120.0:
        parts.append(f"--mcs-timeout={timeout:g}")
    budget = config.getoption("mcs_shrink_budget", None)
    if budget is not None:
        parts.append(f"--mcs-shrink-budget={budget:g}")
    parts.append("--mcs-only")
    return " ".join([*env, *(shlex.quote(p) for p in [*parts, *extra])])


def reproduce(conf: Any, check_id: str, label: str, case: Any) -> str:
    """One command, to paste into the shell the run was started from, that runs this item
    again: the environment and options the run needed, and this check on this case only."""
    return _command(conf, [check_id], [case.id] if case is not None else [])


def snapshot_update_command(conf: Any) -> str:
    """The command that writes the golden snapshots this run found missing, and no others: the
    run's selection (--mcs-case, node ids, -k, -m) kept, its --mcs-check narrowed to the
    golden checks that had a snapshot missing, ``--snapshot-update`` last."""
    config = conf.config
    checks = sorted({r["id"] for r in conf.summary.results.values() if r["outcome"] == "no-snapshot"})
    extra = []
    if getattr(config.option, "keyword", ""):
        extra += ["-k", config.option.keyword]
    if getattr(config.option, "markexpr", ""):
        extra += ["-m", config.option.markexpr]
    extra += sorted(n for n in getattr(conf, "selected", ()) if n.split("::", 1)[1].partition("[")[0] in checks)
    return _command(conf, checks, list(config.getoption("mcs_case")), [*extra, "--snapshot-update"])


def describe_failure(conf: Any, check: Any, label: str, case: Any, failure: Any, budget: Budget | None = None) -> str:
    """The failure report: what broke, on which case, the evidence, and how to rerun it."""
    budget = budget or Budget()
    where = f"case {case.id} ({case.source})" if case is not None else f"strategy {label}"
    level = getattr(failure, "level", None) or check.level
    head = [f"{check.id} failed on {where}", f"  invariant: {check.title}", f"  level:     {level}",
            f"  problem:   {_cut(failure.summary, budget.line)}"]
    body: list[str] = []
    if failure.detail:
        body += ["", *(_cut(line, budget.line) for line in failure.detail.splitlines())]
    if failure.has_diff:
        body += ["", "diff (- expected, + actual):", diff(failure.expected, failure.actual, budget) or "  (equal when printed)"]
    if failure.chunks is not None:
        body += ["", *_chunks(failure.chunks, budget)]
    saved = getattr(failure, "counterexample", None)
    if saved:
        body += ["", f"counterexample case written to {saved} (ready for --mcs-corpus)"]
    why = getattr(failure, "why", "") or check.why  # a time-out or a peer that failed says why of its own
    tail = ["", f"why it matters: {why}", f"reproduce: {reproduce(conf, check.id, label, case)}"]
    if budget.lines is not None and len(head) + len(body) + len(tail) > budget.lines:
        keep = max(budget.lines - len(head) - len(tail) - 1, 5)
        left = len(body) - keep
        body = body[:keep] + [f"... {left} more lines of this report (run with -vv to see everything)"]
    return "\n".join(head + body + tail)


def write_counterexample(conf: Any, check: Any, case: Any, failure: Any) -> Path | None:
    """Save a shrunk failing stream as a schema-valid case file; None when there is none to save."""
    derived = getattr(failure, "derived", None)  # a stream derived by a rule of its own, with its own expectation
    if failure.chunks is None:
        return None
    if case is None:  # a stream the check made from nothing (ROUNDTRIP-002): the derivation names its format
        if derived is None or "format" not in derived:
            return None
        fmt, about = derived["format"], check.id
        name = hashlib.sha256(repr(failure.chunks).encode()).hexdigest()[:10]
        license_ = "Apache-2.0"  # the suite's own data, under the project's license
    else:
        if failure.chunks == case.chunks or (derived is None and check.family not in _REWRITES_STREAM):
            return None
        fmt, name, license_ = case.format, case.id.split("/", 1)[1], case.provenance.get("license", "unknown")
        about = f"{check.id} on {case.id}"
    from ..corpus_tools.schemas import errors

    slug = re.sub(r"[^a-z0-9._-]+", "-", f"counterexample-{check.id}-{name}".lower())
    data = {
        "id": f"{fmt}/{slug}",
        "format": fmt,
        "description": f"Counterexample for {about}: {failure.summary}",
        "provenance": {
            "kind": "synthetic",
            "source": "mcs-conformance",
            "license": license_,
            "why": (f"derived by {check.id}: {derived['why']}; the expectations are the rule's" if derived else
                    f"re-chunking of {case.id} found by {check.id}; the expectations are the original case's"),
        },
        "tags": ["counterexample"],
        "chunks": list(failure.chunks),
        "expect": derived["expect"] if derived else case.expect,
    }
    if errors("case.schema.json", data):
        return None
    path = Path(conf.config.rootpath) / COUNTEREXAMPLES / fmt / f"{slug}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8",
                    errors="backslashreplace")  # a lone surrogate becomes its JSON escape
    failure.counterexample = path
    return path
