"""What the fuzzers generate for one case under one descriptor, for a person to check.

``explain(descriptor, case)`` gathers it as JSON-ready data: the delta sites of every chunk
(with the keys each node of the delta's path keeps, moves or fills), one chunk split at every
character, which neighbouring chunks SPLIT-002 merges and why the others stay apart, where
each noise item may go, the stream a text strategy is fed over this wire, and the streams
derived from the case (its head, body and completion; where PREFIX cuts it and the cut
completions PREFIX-003 closes it with; which of its completion chunks a splice keeps when it
is the first turn, and what SPLICE-001 changes in a second turn). ``render``
turns that into bounded text (long strings cut in the middle, long lists cut short).
"""

from __future__ import annotations

import json
from typing import Any

from ..corpus_tools.corpus import Case, Descriptor
from .derive import cut_completions, cut_points, end_rules, kept_completion, parts, pattern_text, shift_offset
from .generators import (
    carry_text,
    delta_sites,
    empty_allowed,
    join,
    noise_level,
    noise_slots,
    split_chunk,
    split_nodes,
)
from .json_patterns import Path
from ..reference.protocol import ToolCall
from ..corpus_tools.schemas import json_path
from .synthesize import channel_problems, synthesize

__all__ = ["ExplainError", "explain", "render"]


class ExplainError(ValueError):
    """The descriptor and the case do not go together (another format, no stream)."""


def explain(descriptor: Descriptor, case: Case, chunk: int | None = None) -> dict[str, Any]:
    """Everything the SPLIT, NOISE and text-channel generators make of ``case``.

    ``chunk`` picks the chunk whose character split is shown (default: the first with a
    delta of two characters or more).
    """
    if case.format != descriptor.format:
        raise ExplainError(f"case {case.id!r} is of format {case.format!r}, but the descriptor "
                           f"({descriptor.source}) describes {descriptor.format!r}")
    if not case.is_stream:
        raise ExplainError(f"case {case.id!r} is an assembled message, not a stream: the fuzzers generate "
                           "nothing from it (SPLIT, NOISE and the text channel work on stream cases)")
    chunks = case.chunks
    sites = [_sites(c, descriptor) for c in chunks]
    if chunk is None:
        chunk = next((i for i, s in enumerate(sites) if any(len(x["text"]) > 1 for x in s)), None)
    elif not 0 <= chunk < len(chunks):
        raise ExplainError(f"--chunk {chunk}: the case has chunks 0 to {len(chunks) - 1}")
    return {
        "descriptor": {"format": descriptor.format, "source": descriptor.source},
        "case": {"id": case.id, "source": case.source, "chunks": len(chunks)},
        "sites": [{"chunk": i, "sites": s} for i, s in enumerate(sites) if s],
        "without_delta": [i for i, s in enumerate(sites) if not s],
        "char_split": _char_split(chunks, chunk, descriptor) if chunk is not None else None,
        "merges": _merges(chunks, descriptor),
        "noise": _noise(chunks, descriptor),
        "text_channel": _text_channel(case, descriptor),
        "call_channel": _call_channel(descriptor),
        "derived": _derived(chunks, descriptor),
    }


def _derived(chunks: list[Any], d: Descriptor) -> dict[str, Any]:
    """What PREFIX-001/003 and SPLICE-001 derive from the case (docs/corpus.md, "Derived streams")."""
    h, c = parts(chunks, d)
    return {
        "head": list(range(h)),
        "body": list(range(h, c)),
        "completion": list(range(c, len(chunks))),
        "cut_after": cut_points(chunks, d),
        "cut_completions": [{"description": desc, "chunks": made} for desc, made in cut_completions(chunks, d)],
        "splice": d.data.get("splice"),
        "end_keys": [{"at": None if r["at"] is None else pattern_text(r["at"]), "keys": r["keys"]} for r in end_rules(d)],
        "splice_kept": [{"chunk": i, "without": keys} for i, keys in kept_completion(chunks, d)],
        "splice_shifts": [{"pattern": pattern_text(p), "shift": shift_offset(chunks, p)}
                          for p in (d.data.get("splice") or {}).get("shift", [])],
        "interleave": _interleave(chunks, d),
    }


def _interleave(chunks: list[Any], d: Descriptor) -> dict[str, Any] | None:
    """The calls INTERLEAVE-001 keys this case's body chunks to, and the streams it derives."""
    from .interleaving import groups, interleaved, key_text

    if not (d.data.get("interleave") or {}).get("by"):
        return None
    return {"groups": [{"key": key_text(key, d), "chunks": at} for key, at in groups(chunks, d)],
            "streams": [s.recipe for s in interleaved(chunks, d)]}


def _sites(chunk: Any, d: Descriptor) -> list[dict[str, Any]]:
    out = []
    for path, text in delta_sites(chunk, d):
        entry: dict[str, Any] = {"path": json_path(path), "text": text, "empty_pieces": empty_allowed(chunk, d, path)}
        if d.chunk_kind == "object":
            entry["nodes"] = _nodes(chunk, d, path)
        out.append(entry)
    return out


def _nodes(chunk: Any, d: Descriptor, path: Path) -> list[dict[str, Any]]:
    """For each dict along the path: which of its keys go on every piece, on the first, on
    the last, and which pieces get a fill value."""
    out = []
    here: Any = chunk
    for depth, step in enumerate(path):
        if isinstance(here, list) and len(here) > 1:
            out.append({"path": json_path(path[:depth]), "next": step, "every_piece": [], "terminal": [], "fill": {},
                        "first_piece": [f"[{i}]" for i in range(step)],
                        "last_piece": [f"[{i}]" for i in range(step + 1, len(here))]})
        here = here[step]
    for node in split_nodes(chunk, d, path):
        here = chunk
        for step in node.path:
            here = here[step]
        step = path[len(node.path)]
        at = list(here).index(step)
        roles: dict[str, list[str]] = {"every_piece": [], "first_piece": [], "last_piece": [], "terminal": []}
        for i, k in enumerate(here):
            if k == step:
                continue
            role = node.role(k)
            if role == "routing":
                roles["every_piece"].append(k)
            elif role == "terminal":
                roles["terminal"].append(k)
            else:
                roles["first_piece" if i < at else "last_piece"].append(k)
        fill = {k: v for k, v in node.fill.items() if k in here or k in node.terminal}
        out.append({"path": json_path(node.path), "next": step, **roles, "fill": fill})
    return sorted(out, key=lambda n: len(n["path"]))


def _char_split(chunks: list[Any], i: int, d: Descriptor) -> dict[str, Any]:
    sites = [(p, t) for p, t in delta_sites(chunks[i], d) if len(t) > 1]
    if not sites:
        return {"chunk": i, "path": None, "pieces": [chunks[i]]}
    path, text = sites[0]
    return {"chunk": i, "path": json_path(path), "pieces": split_chunk(chunks[i], d, path, list(range(1, len(text))))}


def _merges(chunks: list[Any], d: Descriptor) -> list[dict[str, Any]]:
    out = []
    for i in range(len(chunks) - 1):
        together, why = join(chunks[i], chunks[i + 1], d)
        out.append({"chunks": [i, i + 1], "merged": together is not None, "why_not": why or None})
    return out


def _noise(chunks: list[Any], d: Descriptor) -> list[dict[str, Any]]:
    done = next((i for i, c in enumerate(chunks) if d.is_done_chunk(c)), None)
    out = []
    for item in d.noise:
        slots = noise_slots(item, len(chunks), done)
        out.append({
            "description": item.get("description", ""),
            "level": noise_level(item),
            "why": item.get("why"),
            "position": item.get("position", "after-first"),
            "slots": [slots.start, slots.stop - 1],
            "chunk": item["chunk"],
        })
    return out


def _text_channel(case: Case, d: Descriptor) -> dict[str, Any] | None:
    if d.text_channel is None:
        return None
    text = case.expect.get("content_text") or ""
    source = "the case's content text" if text else "a sample text (the case has no content text)"
    text = text or '{"tool": "get_weather", "arguments": {"city": "Paris"}}'
    third = max(1, len(text) // 3)
    pieces = [p for p in (text[:third], text[third:2 * third], text[2 * third:]) if p]
    return {"text": text, "source": source, "pieces": pieces, "stream": carry_text(pieces, d)}


def _call_channel(d: Descriptor) -> dict[str, Any] | None:
    """Two sample calls after a sample text, written through the call channel (before any
    re-chunking), or the reasons the channel cannot be used."""
    if d.call_channel is None:
        return None
    problems = channel_problems(d)
    calls = [ToolCall("get_weather", {"city": "Paris"}, id="call_1"), ToolCall("get_time", {}, id="call_2")]
    text = "Let me check." if "text" in d.call_channel else None
    return {"problems": problems, "text": text, "calls": [c.name for c in calls],
            "stream": [] if problems else list(synthesize(calls, d, text))}


# -- text ------------------------------------------------------------------------------------------

_STRING = 48    # longest string shown whole
_LINE = 160     # longest chunk line
_LIST = 12      # most entries of a list shown


def short(value: Any) -> Any:
    """``value`` with every long string cut in the middle, its length shown."""
    if isinstance(value, str) and len(value) > _STRING:
        half = _STRING // 2 - 2
        return f"{value[:half]}...{value[-half:]} ({len(value)} chars)"
    if isinstance(value, dict):
        return {k: short(v) for k, v in value.items()}
    if isinstance(value, list):
        return [short(v) for v in value]
    return value


def _text(text: str) -> str:
    """A string quoted, cut in the middle when long, with its length."""
    if len(text) <= _STRING:
        return f"{json.dumps(text, ensure_ascii=False)} ({len(text)} chars)"
    half = _STRING // 2
    return (f"{json.dumps(text[:half], ensure_ascii=False)} ... {json.dumps(text[-half:], ensure_ascii=False)} "
            f"({len(text)} chars)")


def _line(value: Any) -> str:
    text = json.dumps(short(value), ensure_ascii=False)
    if len(text) > _LINE:
        half = _LINE // 2 - 12
        text = f"{text[:half]} ... {text[-half:]} ({len(text)} chars)"
    return text


def _some(items: list[Any]) -> tuple[list[Any], str]:
    if len(items) <= _LIST:
        return items, ""
    return items[:_LIST], f"  ... and {len(items) - _LIST} more (--json shows all)"


def render(data: dict[str, Any]) -> str:
    """The explanation as text a person reads in a terminal."""
    d, c = data["descriptor"], data["case"]
    out = [f"descriptor {d['format']} ({d['source']})", f"case {c['id']} ({c['source']}): {c['chunks']} chunks", ""]
    out.append("Delta sites (SPLIT cuts these; the other keys of each node along the path go as shown):")
    shown, more = _some(data["sites"])
    before: list[str] = []
    for entry in shown:
        for site in entry["sites"]:
            empty = ", empty pieces allowed" if site["empty_pieces"] else ""
            out.append(f"  chunk {entry['chunk']}: {site['path']}  {_text(site['text'])}{empty}")
            lines = []
            for node in site.get("nodes", []):
                parts = [f"{label}: {', '.join(node[key])}" for key, label in
                         (("every_piece", "every piece"), ("first_piece", "first piece"),
                          ("last_piece", "last piece"), ("terminal", "last piece (terminal)")) if node[key]]
                parts += [f"fill {k}={json.dumps(v)} on the other pieces" for k, v in node["fill"].items()]
                if parts:
                    lines.append(f"      at {node['path']}: " + "; ".join(parts))
            out += lines if lines != before else ["      (keys as above)"]
            before = lines
    out += [more] if more else []
    if data["without_delta"]:
        out.append(f"  chunks without a delta (never split): {_ranges(data['without_delta'])}")
    out.append("")
    split = data["char_split"]
    if split is None:
        out.append("Character split (SPLIT-001): no chunk has a delta of two characters or more.")
    else:
        out.append(f"Character split of chunk {split['chunk']} at {split['path']} (SPLIT-001), "
                   f"{len(split['pieces'])} pieces:")
        out += _stream(split["pieces"])
    out.append("")
    merges = data["merges"]
    joined = [m["chunks"] for m in merges if m["merged"]]
    out.append(f"Merges (SPLIT-002): {len(joined)} of {len(merges)} neighbouring pairs can be merged")
    if joined:
        out.append(f"  merged: {', '.join(f'{a}+{b}' for a, b in joined[:_LIST])}" + (" ..." if len(joined) > _LIST else ""))
    reasons: dict[str, list[str]] = {}
    for m in merges:
        if not m["merged"]:
            reasons.setdefault(m["why_not"], []).append("{}+{}".format(*m["chunks"]))
    shown, more = _some(list(reasons.items()))
    for why, pairs in shown:
        listed = ", ".join(pairs[:_LIST]) + (f" and {len(pairs) - _LIST} more" if len(pairs) > _LIST else "")
        out.append(f"  not {listed}: {why}")
    out += [more] if more else []
    out.append("")
    out.append("Noise (NOISE-001 tries each item at its first, middle and last place; NOISE-002 random bursts "
               "of the must/should items):")
    if not data["noise"]:
        out.append("  none declared")
    n = c["chunks"]
    if data["noise"]:
        out.append(f"  (place i is before chunk i; place {n} is after the last chunk)")
    for item in data["noise"]:
        lo, hi = item["slots"]
        where = f"place {lo}" if lo == hi else f"places {lo}..{hi}"
        out.append(f"  {item['description']!r} [{item['level']}] {item['position']}: {where}")
        if item["why"]:
            out.append(f"      why {item['level']}: {item['why']}")
        out.append(f"      {_line(item['chunk'])}")
    out.append("")
    text = data["text_channel"]
    if text is None:
        out.append("Text channel: none declared (text strategies are not carried over this wire)")
    else:
        out.append(f"Text channel (ROUNDTRIP and COST-002 feed text strategies this way), {text['source']} "
                   f"in {len(text['pieces'])} pieces: {_text(text['text'])}")
        out += _stream(text["stream"])
    out += _render_derived(data.get("derived"))
    calls = data.get("call_channel")
    if calls is not None:  # said only when declared: most text wires have none
        out.append("")
        if calls["problems"]:
            out.append("Call channel: cannot be used (ROUNDTRIP-002 and NAME-002 would refuse it):")
            out += [f"  {p}" for p in calls["problems"]]
        else:
            lead = f"after the text {calls['text']!r}" if calls["text"] is not None else "(no text part declared)"
            out.append(f"Call channel (ROUNDTRIP-002 and NAME-002 write arbitrary calls this way, then re-chunk at "
                       f"random), the sample calls {', '.join(calls['calls'])} {lead}:")
            out += _stream(calls["stream"])
    return "\n".join(out) + "\n"


def _render_derived(derived: dict[str, Any] | None) -> list[str]:
    if derived is None:
        return []
    roles = ", ".join(f"{name} {_ranges(derived[name]) if derived[name] else 'none'}"
                      for name in ("head", "body", "completion"))
    out = ["", f"Derived streams (docs/corpus.md, \"Derived streams\"): chunks by role: {roles}"]
    if derived["completion"]:
        out.append(f"  PREFIX-003 cuts the stream after chunk {_ranges(derived['cut_after'])} (PREFIX-001 reads it after "
                   f"every chunk)")
    else:
        out.append("  no chunk matches roles.completion: the stream is not cut (nor spliced)")
    for item in derived["cut_completions"]:
        out.append(f"  PREFIX-003 closes each cut with the cut completion {item['description']!r}:")
        out += _stream(item["chunks"])
    if derived["completion"] and not derived["cut_completions"]:
        out.append("  no cut completion changes this stream's completion (descriptor: cut)")
    splice = derived["splice"]
    if splice is None:
        out.append("  SPLICE-001: no splice block declared")
    else:
        said = [f"{key}: {', '.join(pattern_text(x) for x in splice[key])}" for key in
                ("same", "shift", "unique", "renumber", "concat") if splice.get(key)]
        out.append("  SPLICE-001 places this case's body before or after another case's; in the second turn "
                   + ("; ".join(said) if said else "nothing is changed"))
        for item in derived["splice_shifts"]:
            out.append(f"  as the first turn, the second turn's {item['pattern']} is raised by {item['shift']} (each "
                       "shift pattern on its own: one more than the largest value it selects in this case)")
        out += _render_kept(derived)
    out += _render_interleave(derived.get("interleave"))
    return out


def _render_interleave(found: dict[str, Any] | None) -> list[str]:
    if found is None:  # said only when declared: most wires name no call on their fragments
        return []
    out = [f"  INTERLEAVE-001 keys body chunks {_ranges(g['chunks'])} to {g['key']}" for g in found["groups"]]
    if not found["streams"]:
        return out + ["  INTERLEAVE-001 derives nothing from this case: it needs two calls or blocks, opened one after "
                      "the other, of at least two chunks each"]
    for recipe in found["streams"]:
        out += [f"  INTERLEAVE-001: {recipe[0]}", *(f"    {line}" for line in recipe[1:])]
    return out


def _render_kept(derived: dict[str, Any]) -> list[str]:
    """Which completion chunks a splice keeps when the case is the first turn, and why."""
    if not derived["completion"]:
        return []
    ends = ", ".join(k if r["at"] is None else f"{r['at']}.{k}" for r in derived["end_keys"] for k in r["keys"])
    out = [f"  as the first turn, completion chunk {k['chunk']} stays without {', '.join(k['without'])}: it carries "
           f"content beside them" for k in derived["splice_kept"]]
    kept = {k["chunk"] for k in derived["splice_kept"]}
    left = [i for i in derived["completion"] if i not in kept]
    if left:
        why = f"nothing beside the end keys ({ends})" if ends else "no end keys declared"
        which = f"chunk {left[0]} is" if len(left) == 1 else f"chunks {_ranges(left)} are"
        out.append(f"  as the first turn, completion {which} left out: {why}")
    return out


def _stream(chunks: list[Any]) -> list[str]:
    """Chunk lines, the top-level keys every dict chunk holds alike said once, not on each line."""
    dicts = [c for c in chunks if isinstance(c, dict)]
    common = [k for k in (dicts[0] if len(dicts) > 1 else {}) if all(k in c and c[k] == dicts[0][k] for c in dicts)]
    out = [f"  (every chunk below also holds {', '.join(f'{k}={_line(dicts[0][k])}' for k in common)})"] if common else []
    shown = list(enumerate(chunks))
    if len(shown) > _LIST:  # the first and the last pieces say the most: what stays before, what goes after
        shown = shown[: _LIST - 4] + [(None, None)] + shown[-3:]
    for j, chunk in shown:
        if j is None:
            out.append(f"  ... {len(chunks) - _LIST + 1} more (--json shows all)")
            continue
        rest = {k: v for k, v in chunk.items() if k not in common} if isinstance(chunk, dict) else chunk
        out.append(f"  [{j}] {_line(rest)}")
    return out


def _ranges(numbers: list[int]) -> str:
    spans: list[list[int]] = []
    for n in numbers:
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)
    return text if len(text) <= _LINE else text[: _LINE - 4] + " ..."
