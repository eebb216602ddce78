"""``corpus diff OLD NEW``: what changed between two captures, two cases or two corpus versions.

Each side is read into streams per format (a capture folder, a folder of captures, a case
file, a corpus folder, ``bundled``, or a raw SSE/JSONL file with ``--format``) and each
format's streams are compared through that format's descriptor and schemas
(drift_facts.py): event types and keys never seen before, keys that disappeared, value
types that changed, completion signals and terminal values, the final message's keys and
summary (its calls, completion, routing), case by case changes, and everything the
descriptor or chunk schema does not cover yet. A single stream is not expected to show
everything a corpus holds, so disappearances are only reported between like and like (two
streams, or two corpora). :func:`findings` counts what the report lists as drift.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .capture import read_capture
from .corpus import Descriptor, bundled_corpus_dir
from .recording import CaptureError, find_captures, is_capture, load_capture
from .schemas import UnknownSchema, errors as schema_errors, load_schema
from .drift_facts import FormatFacts, StreamFacts

__all__ = ["DriftInputError", "Side", "Stream", "compare", "findings", "load_side", "render"]

SHOWN = 15  # lines per list in the text report (--json lists everything)


class DriftInputError(ValueError):
    """An argument of ``corpus diff`` is not something it can read; the message says what it expected."""


@dataclass
class Stream:
    """One stream to compare: a capture, a raw file or a corpus case."""

    name: str
    format: str
    chunks: list[Any]
    case: dict[str, Any] | None = None  # the case file's data, when it is a case

    @property
    def expect(self) -> dict[str, Any] | None:
        return self.case.get("expect") if self.case else None


@dataclass
class Side:
    """OLD or NEW: its streams (and, for cases and corpora, every case by id)."""

    arg: str
    kind: str  # "capture", "captures", "case", "file", "corpus"
    streams: list[Stream]
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    version: str | None = None
    folder: Path | None = None
    about: str = ""

    @property
    def single(self) -> bool:
        return self.kind in ("capture", "case", "file")


# -- reading the arguments -----------------------------------------------------------------------

def load_side(arg: str, fmt: str | None = None) -> Side:
    """Read one argument of ``corpus diff``: ``bundled``, a capture folder, a folder of captures, a corpus
    folder, a case file, or a raw SSE/JSONL file (its format from ``fmt``)."""
    if arg == "bundled":
        return _corpus(bundled_corpus_dir(), arg)
    path = Path(arg)
    if not path.exists():
        raise DriftInputError(f"{arg}: no such file or folder")
    if path.is_dir():
        if is_capture(path):
            return _captures([path], arg, "capture", fmt)
        captures = find_captures(path)
        if captures:
            return _captures(captures, arg, "captures", fmt)
        if (path / "cases").is_dir() or (path / "manifest.json").is_file():
            return _corpus(path, arg)
        raise DriftInputError(f"{arg}: neither a capture folder (request.json, meta.json), a folder of captures, "
                              "nor a corpus folder (cases/<format>/*.json)")
    if path.suffix == ".json":
        data = _read_json(path)
        if isinstance(data, dict) and "id" in data and "format" in data:
            case = _valid_case(data, path)
            streams = [Stream(case["id"], case["format"], case["chunks"], case)] if "chunks" in case else []
            return Side(arg, "case", streams, {case["id"]: case}, about=f"case {case['id']} ({path})")
    if fmt is None:
        raise DriftInputError(f"{arg}: a raw stream file says nothing of its format; pass --format")
    try:
        chunks = read_capture(path)
    except (OSError, ValueError) as exc:
        raise DriftInputError(f"{arg}: {exc}") from None
    return Side(arg, "file", [Stream(path.name, fmt, chunks)], about=f"stream file {path} ({fmt}, {len(chunks)} chunks)")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DriftInputError(f"{path}: cannot be read as JSON ({exc})") from None


def _valid_case(data: Any, path: Path) -> dict[str, Any]:
    problems = schema_errors("case.schema.json", data)
    if problems:
        raise DriftInputError(f"{path}: not a valid case: {'; '.join(problems[:3])}")
    return data


def _captures(folders: list[Path], arg: str, kind: str, fmt: str | None) -> Side:
    streams = []
    for folder in folders:
        try:
            capture = load_capture(folder)
            chunks = capture.payloads()
        except CaptureError as exc:
            if kind == "capture":
                raise DriftInputError(str(exc)) from None
            continue  # a failed request among others: nothing to compare
        f = fmt or capture.format
        if f is None:
            raise DriftInputError(f"{folder}: the format cannot be told from the request URL "
                                  f"{capture.request.get('url')!r}; pass --format")
        streams.append(Stream(folder.name, f, chunks))
    if not streams:
        raise DriftInputError(f"{arg}: no capture in it holds a stream")
    if kind == "capture":
        meta = capture.meta
        about = (f"capture {arg} ({streams[0].format}, {len(streams[0].chunks)} chunks, "
                 f"recorded {meta.get('started', '?')} from {meta.get('upstream', '?')})")
    else:
        about = f"{len(streams)} captures in {arg} (of {len(folders)})"
    return Side(arg, kind, streams, about=about)


def _corpus(folder: Path, arg: str) -> Side:
    cases: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.rglob("*.json")):
        rel = path.relative_to(folder).as_posix()
        if rel == "manifest.json" or rel.startswith(("descriptors/", "schemas/")):
            continue
        case = _valid_case(_read_json(path), path)
        if case["id"] in cases:
            raise DriftInputError(f"{path}: case id {case['id']!r} is used twice in {arg}")
        cases[case["id"]] = case
    version = None
    if (folder / "manifest.json").is_file():
        version = (_read_json(folder / "manifest.json") or {}).get("version")
    streams = [Stream(c["id"], c["format"], c["chunks"], c) for c in cases.values() if "chunks" in c]
    about = f"corpus {version or '(unversioned)'} at {folder} ({len(cases)} cases, {len(streams)} streams)"
    return Side(arg, "corpus", streams, cases, version, folder, about)


# -- format facts: NEW's folder, then OLD's, then what ships -------------------------------------

def _facts(fmt: str, sides: list[Side]) -> FormatFacts:
    folders = [s.folder for s in sides if s.folder is not None] + [bundled_corpus_dir()]
    descriptor = None
    for folder in folders:
        path = folder / "descriptors" / f"{fmt}.json"
        if path.is_file():
            data = _read_json(path)
            problems = schema_errors("descriptor.schema.json", data)
            if problems:
                raise DriftInputError(f"{path}: not a valid descriptor: {'; '.join(problems[:3])}")
            descriptor = Descriptor(fmt, data, str(path))
            break
    return FormatFacts(fmt, descriptor, _schema(fmt, "chunk", folders), _schema(fmt, "message", folders))


def _schema(fmt: str, part: str, folders: list[Path]) -> tuple[str, dict[str, Any]] | None:
    name = f"{fmt}.{part}.schema.json"
    for folder in folders[:-1]:
        if (folder / "schemas" / name).is_file():
            return name, _read_json(folder / "schemas" / name)
    try:
        return name, load_schema(name)
    except UnknownSchema:
        return None


def _final(stream: Stream) -> tuple[dict[str, Any] | None, str | None]:
    """A stream's expectations: the case's own, or the SDK oracle's (a note says why there are none)."""
    if stream.expect is not None:
        return stream.expect, None
    from .importer import ImportProblem, expectations

    try:
        with warnings.catch_warnings():  # an SDK's model warnings on unknown shapes: the report says it better
            warnings.simplefilter("ignore")
            return expectations(stream.format, stream.chunks), None
    except ImportProblem as exc:
        return None, f"{stream.name}: final message not assembled: {exc}"
    except Exception as exc:  # an SDK accumulator refusing the stream is itself worth reading
        return None, f"{stream.name}: the SDK accumulator failed on it: {type(exc).__name__}: {exc}"


# -- comparing -----------------------------------------------------------------------------------

def compare(old: Side, new: Side) -> dict[str, Any]:
    """The drift report of NEW against OLD, as JSON-ready data (see :func:`render`)."""
    like = (old.single and new.single) or (old.kind == new.kind == "corpus")
    formats = {s.format for s in new.streams} | ({s.format for s in old.streams} if like else set())
    report: dict[str, Any] = {
        "old": {"arg": old.arg, "kind": old.kind, "about": old.about, "streams": len(old.streams)},
        "new": {"arg": new.arg, "kind": new.kind, "about": new.about, "streams": len(new.streams)},
        "disappearances_compared": like,
        "formats": {},
    }
    for fmt in sorted(formats):
        facts = _facts(fmt, [new, old])
        o, n = StreamFacts(facts), StreamFacts(facts)
        finals: dict[int, dict[str, Any] | None] = {}
        notes: list[str] = []
        for side, into in ((old, o), (new, n)):
            for s in side.streams:
                if s.format != fmt:
                    continue
                expect, note = _final(s)
                finals[id(s)] = expect
                if note:
                    notes.append(note)
                into.add(s.name, s.chunks, (expect or {}).get("message"), validate=into is n)
        o.validate({key[1] for key in n.gaps if key[0] == "schema"})  # OLD's schema gaps, where NEW has one
        entry = _format_entry(o, n, like)
        entry["final_message"]["notes"] = notes
        pair = [s for s in old.streams if s.format == fmt], [s for s in new.streams if s.format == fmt]
        if old.single and new.single and len(pair[0]) == len(pair[1]) == 1:
            a, b = pair[0][0], pair[1][0]
            entry["final_message"]["old"] = _summary(finals[id(a)])
            entry["final_message"]["new"] = _summary(finals[id(b)])
            entry["final_message"]["changes"] = (
                _case_changes(a.case, b.case) if a.case is not None and b.case is not None  # the same data: every value
                else _summary_changes(entry["final_message"]["old"], entry["final_message"]["new"]))
        report["formats"][fmt] = entry
    if old.kind == new.kind == "corpus":
        report["cases"] = {
            "added": sorted(set(new.cases) - set(old.cases)),
            "removed": sorted(set(old.cases) - set(new.cases)),
            "changed": [{"id": i, "what": _case_changes(old.cases[i], new.cases[i])}
                        for i in sorted(set(old.cases) & set(new.cases)) if _case_changes(old.cases[i], new.cases[i])],
        }
    report["findings"] = findings(report)
    report["drift"] = report["findings"] > 0
    return report


def _seen(s: Any) -> dict[str, Any]:
    return {"count": s.count, "first": s.first}


def _format_entry(o: StreamFacts, n: StreamFacts, like: bool) -> dict[str, Any]:
    new_types = [t for t in n.types if t not in o.types]
    entry: dict[str, Any] = {
        "old_streams": o.streams,
        "new_streams": n.streams,
        "new_event_types": [{"type": t, **_seen(n.types[t]),
                             "keys": sorted({p for (et, p) in n.keys if et == t and "." not in p and "[" not in p})}
                            for t in new_types],
        "gone_event_types": [{"type": t, **_seen(s)} for t, s in o.types.items() if t not in n.types] if like else [],
        "new_keys": [{"event_type": t, "path": p, "types": sorted(s.types), "described": s.described, **_seen(s)}
                     for (t, p), s in n.keys.items() if (t, p) not in o.keys and t in o.types],
        "gone_keys": [{"event_type": t, "path": p, "types": sorted(s.types), **_seen(s)}
                      for (t, p), s in o.keys.items() if (t, p) not in n.keys and t in n.types] if like else [],
        "new_value_types": [{"event_type": t, "path": p, "old": sorted(o.keys[(t, p)].types),
                             "new": sorted(s.types - o.keys[(t, p)].types), **_seen(s)}
                            for (t, p), s in n.keys.items() if (t, p) in o.keys and s.types - o.keys[(t, p)].types],
        "completion": {
            "old": sorted(o.signals),
            "new": sorted(n.signals),
            "new_signals": [{"signal": k, **_seen(s)} for k, s in n.signals.items() if k not in o.signals],
            "gone_signals": [{"signal": k, **_seen(s)} for k, s in o.signals.items() if k not in n.signals] if like else [],
            "new_terminal_values": [{"key": k, "value": json.loads(v), **_seen(s)}
                                    for (k, v), s in n.terminal.items() if (k, v) not in o.terminal],
        },
        "final_message": {
            "new_keys": [{"path": p, "types": sorted(s.types), **_seen(s)}
                         for (_, p), s in n.message_keys.items() if ("", p) not in o.message_keys],
            "gone_keys": [{"path": p, "types": sorted(s.types), **_seen(s)}
                          for (_, p), s in o.message_keys.items() if ("", p) not in n.message_keys] if like else [],
            "new_value_types": [{"path": p, "old": sorted(o.message_keys[k].types),
                                 "new": sorted(s.types - o.message_keys[k].types), **_seen(s)}
                                for k, s in n.message_keys.items() for p in [k[1]]
                                if k in o.message_keys and s.types - o.message_keys[k].types],
            "changes": [],
        },
        "coverage": [{"what": g.what, "detail": g.detail, **_seen(g.seen), "also_in_old": key in o.gaps}
                     for key, g in n.gaps.items()],
    }
    return entry


def _summary(expect: dict[str, Any] | None) -> dict[str, Any] | None:
    if expect is None:
        return None
    return {
        "calls": [c.get("name") for c in expect.get("calls", [])],
        "done": expect.get("done"),
        "error": (expect.get("error") or {}).get("type"),
        "content_text_chars": len(expect.get("content_text") or ""),
        "claimed_by": expect.get("claimed_by"),
        "extracted_by": expect.get("extracted_by"),
        "via_backup": expect.get("via_backup"),
    }


def _summary_changes(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    if a is None or b is None:
        return []
    return [f"{k}: {a[k]!r} -> {b[k]!r}" for k in a if k != "content_text_chars" and a[k] != b[k]]


def _first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}"
            d = _first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None if len(a) == len(b) else f"{path}[{min(len(a), len(b))}]"
    return None if a == b else path


def _case_changes(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """What differs between two versions of a case, by field (the first differing place of each)."""
    out = []
    for key in ("format", "chunks", "message"):
        if a.get(key) != b.get(key):
            out.append(f"{key} at {_first_difference(a.get(key), b.get(key))}")
    ea, eb = a.get("expect", {}), b.get("expect", {})
    for key in sorted(set(ea) | set(eb)):
        if ea.get(key) != eb.get(key):
            out.append(f"expect.{key} at {_first_difference(ea.get(key), eb.get(key))}")
    return out


def findings(report: dict[str, Any]) -> int:
    """How many things the report lists as drift (coverage gaps OLD already had do not count)."""
    n = 0
    for entry in report["formats"].values():
        n += sum(len(entry[k]) for k in ("new_event_types", "gone_event_types", "new_keys", "gone_keys", "new_value_types"))
        n += sum(len(entry["completion"][k]) for k in ("new_signals", "gone_signals", "new_terminal_values"))
        n += sum(len(entry["final_message"][k]) for k in ("new_keys", "gone_keys", "new_value_types", "changes"))
        n += sum(1 for g in entry["coverage"] if not g["also_in_old"])
    cases = report.get("cases") or {}
    return n + sum(len(cases.get(k, [])) for k in ("added", "removed", "changed"))


# -- the text report -----------------------------------------------------------------------------

def _lines(title: str, items: list[Any], fmt_item: Any, out: list[str]) -> None:
    if not items:
        return
    out.append(f"  {title}:")
    for item in items[:SHOWN]:
        out.append(f"    {fmt_item(item)}")
    if len(items) > SHOWN:
        out.append(f"    ... and {len(items) - SHOWN} more (--json lists all)")


def _key(item: dict[str, Any]) -> str:
    et = item.get("event_type")
    return f"{et}: {item['path']}" if et and et != "chunk" else item["path"]


def _count(item: dict[str, Any], what: str = "chunk") -> str:
    n = item["count"]
    return f"{n} {what}{'' if n == 1 else 's'}, first {item['first']}"


def render(report: dict[str, Any]) -> str:
    """The report as text for a terminal or a CI log."""
    out = [f"OLD: {report['old']['about']}", f"NEW: {report['new']['about']}"]
    if not report["disappearances_compared"]:
        out.append("(a single stream is compared with a collection: only what NEW shows and OLD never did is listed)")
    for fmt, e in report["formats"].items():
        out += ["", f"{fmt}: {e['old_streams']} OLD stream(s), {e['new_streams']} NEW stream(s)"]
        if not e["old_streams"]:
            out.append(f"  OLD has no {fmt} stream: everything NEW shows is new")
        _lines(f"event types never seen before in {fmt}", e["new_event_types"],
               lambda i: f"{i['type']}  ({_count(i)}; keys: {', '.join(i['keys']) or '-'})", out)
        _lines("event types that disappeared", e["gone_event_types"], lambda i: f"{i['type']}  ({_count(i)} in OLD)", out)
        _lines("keys never seen before", e["new_keys"],
               lambda i: f"{_key(i)}  {'|'.join(i['types'])}  ({_count(i)}"
                         f"{'' if i['described'] else '; the chunk schema does not describe it'})", out)
        _lines("keys that disappeared", e["gone_keys"], lambda i: f"{_key(i)}  ({_count(i)} in OLD)", out)
        _lines("keys with a value type never seen before", e["new_value_types"],
               lambda i: f"{_key(i)}  was {'|'.join(i['old'])}, now also {'|'.join(i['new'])}  ({_count(i)})", out)
        c = e["completion"]
        if c["new_signals"] or c["gone_signals"] or c["new_terminal_values"]:
            out.append("  completion signal changed:" if c["new_signals"] or c["gone_signals"]
                       else "  completion signal: as before, with a terminal value never seen before")
            out += [f"    OLD: {s}" for s in c["old"][:SHOWN]] or ["    OLD: (no stream)"]
            out += [f"    NEW: {s}" for s in c["new"][:SHOWN]]
            out += [f"    never seen before: {s['signal']}  ({_count(s, 'stream')})" for s in c["new_signals"]]
            out += [f"    no longer seen: {s['signal']}" for s in c["gone_signals"]]
            out += [f"    {t['key']} value never seen before: {json.dumps(t['value'])}  ({_count(t)})"
                    for t in c["new_terminal_values"]]
        m = e["final_message"]
        _lines("final message: keys never seen before", m["new_keys"],
               lambda i: f"{i['path']}  {'|'.join(i['types'])}  ({_count(i, 'stream')})", out)
        _lines("final message: keys that disappeared", m["gone_keys"], lambda i: i["path"], out)
        _lines("final message: keys with a value type never seen before", m["new_value_types"],
               lambda i: f"{i['path']}  was {'|'.join(i['old'])}, now also {'|'.join(i['new'])}", out)
        _lines("final message changed", m["changes"], str, out)
        if m.get("old") and m.get("new") and not m["changes"]:
            out.append(f"  final message: same calls {m['new']['calls']}, done={m['new']['done']}, "
                       f"extracted by {m['new']['extracted_by']}")
        _lines("notes", m["notes"], str, out)
        gaps = [g for g in e["coverage"] if not g["also_in_old"]]
        old_gaps = [g for g in e["coverage"] if g["also_in_old"]]
        _lines("not covered by the descriptor or chunk schema", gaps, lambda g: f"{g['detail']}  ({_count(g)})", out)
        _lines("not covered, as in OLD already", old_gaps, lambda g: f"{g['detail']}  ({_count(g)})", out)
    cases = report.get("cases")
    if cases:
        out.append("")
        _lines("cases added", cases["added"], str, out)
        _lines("cases removed", cases["removed"], str, out)
        _lines("cases changed", cases["changed"], lambda c: f"{c['id']}: {'; '.join(c['what'])}", out)
    out.append("")
    n = report["findings"]
    out.append(f"drift: {n} finding{'' if n == 1 else 's'}" if n else "no drift: NEW shows nothing OLD does not")
    return "\n".join(out) + "\n"
