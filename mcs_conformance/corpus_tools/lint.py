"""Descriptor mistakes the schemas cannot see: paths that select nothing, chunks that cannot be routed.

A descriptor is schema-valid with a misspelled key in a path: the re-chunker then finds no
delta to split, a routing key is never kept, a replayed field is read as absent. The checks
that read through such a path report it as the strategy's failure. This lint finds those
mistakes from the corpus alone, so the plugin and ``mcs-conformance corpus validate`` report
them as corpus errors before any check runs.

Two severities. A path that selects nothing in any case is a **warning**: a misspelled key, or a
field no case has yet (a forward-looking entry), which can blame no strategy (the plugin runs
without a ``history.replay`` rule whose message path selects nothing, the one such field a check
would compare against the strategy's output). A history path that the history schema rules out,
and a stream no chunk of which the descriptor can route, are **errors**: the checks that read
through them would fail the strategy for the descriptor's mistake.

The rule for a path is "selects nothing in any case it applies to", never "in one case": an
optional key (a refusal text, a thinking signature) is absent from most cases of a format,
and that is normal; a path that no recording of the format ever fills is a typo (or a field
no case exercises, which the suite could not check anyway). Paths into the request-side
history are checked against the format's history schema, where it says the path can never
select anything (a key the schema forbids, a ``where`` value outside an enum).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .corpus import Case, Corpus, Descriptor

__all__ = ["Finding", "lint_corpus", "lint_descriptor"]


@dataclass(frozen=True)
class Finding:
    """One descriptor mistake: the descriptor field (a JSON path into the descriptor), the
    descriptor, the case (or cases) it was tried on, and what is wrong."""

    format: str
    descriptor: str  # the descriptor file
    field: str  # e.g. history.replay[0].message
    problem: str
    cases: tuple[str, ...] = ()
    severity: str = "error"  # "warning": the path selects nothing in any case (see the module text)

    def __str__(self) -> str:
        shown = ", ".join(self.cases[:3]) + (f" and {len(self.cases) - 3} more" if len(self.cases) > 3 else "")
        where = f" (case{'s' if len(self.cases) > 1 else ''} {shown})" if self.cases else ""
        return f"{self.descriptor}: descriptor {self.format!r} field {self.field}: {self.problem}{where}"


def lint_corpus(corpus: Corpus, history_schemas: dict[str, Any] | None = None) -> list[Finding]:
    """Every finding over every descriptor of ``corpus``, each against the cases of its format.

    ``history_schemas`` maps a format to its request-side history schema (default: the
    corpus's own, then the bundled ``<format>.history.schema.json``).
    """
    out: list[Finding] = []
    for fmt, descriptor in sorted(corpus.descriptors.items()):
        schema = (history_schemas or {}).get(fmt) or corpus.history_schemas.get(fmt) or _bundled_history(fmt)
        out.extend(lint_descriptor(descriptor, corpus.for_format(fmt), schema))
    return out


def lint_descriptor(descriptor: Descriptor, cases: Iterable[Case], history_schema: Any = None) -> list[Finding]:
    """The findings for one descriptor over the cases of its format (see the module text)."""
    cases = [c for c in cases if c.format == descriptor.format]
    streams = [c for c in cases if c.is_stream and c.chunks]
    out = [*_unroutable(descriptor, streams)]
    if descriptor.chunk_kind == "object" and streams:
        chunks = [(c.id, ch) for c in streams for ch in c.chunks if isinstance(ch, dict)]
        for field, pattern, keys in _chunk_paths(descriptor.data):
            out.extend(_unmatched(descriptor, field, pattern, keys, chunks, [c.id for c in streams], "chunk"))
    messages = [(c.id, c.final_message) for c in cases if c.final_message is not None]
    if messages:
        for i, rule in enumerate(descriptor.history.get("replay", [])):
            out.extend(_unmatched(descriptor, f"history.replay[{i}].message", rule["message"], (), messages,
                                  [cid for cid, _ in messages], "assembled message"))
    if isinstance(history_schema, (dict, bool)):
        for field, pattern in _history_paths(descriptor.history):
            why = _impossible(history_schema, list(pattern), history_schema)
            if why:
                out.append(Finding(descriptor.format, descriptor.source, field,
                                   f"{pattern!r} can never select anything in a history the format's history schema "
                                   f"accepts: {why}"))
    return out


# -- chunk-side and message-side paths: each must select something in some case ----------------

def _chunk_paths(data: dict[str, Any]) -> Iterator[tuple[str, list[Any], tuple[str, ...]]]:
    """(field, pattern, keys that must sit at the node it selects) for every chunk-side path."""
    for i, d in enumerate(data.get("deltas", [])):
        yield f"deltas[{i}].path", d["path"], ()
    for name in ("routing", "terminal"):
        for i, rule in enumerate(data.get(name, [])):
            if isinstance(rule, dict):
                yield f"{name}[{i}].at", rule["at"], tuple(rule["keys"])
    for i, rule in enumerate(data.get("fill", [])):
        yield f"fill[{i}].at", rule["at"], ()
    for i, rule in enumerate(data.get("last_value_wins", [])):
        yield f"last_value_wins[{i}].at", rule["at"], ()
    for i, item in enumerate(data.get("cut", [])):
        for j, s in enumerate(item["set"]):
            yield f"cut[{i}].set[{j}].path", s["path"], ()
    for name, paths in sorted((data.get("splice") or {}).items()):
        if isinstance(paths, list):
            for i, p in enumerate(paths):
                if isinstance(p, dict):  # end_keys: {"at", "keys"}, like a routing rule
                    yield f"splice.{name}[{i}].at", p["at"], tuple(p["keys"])
                else:
                    yield f"splice.{name}[{i}]", p, ()
    for name in ("by", "renumber"):
        for i, p in enumerate((data.get("interleave") or {}).get(name, [])):
            yield f"interleave.{name}[{i}]", p, ()


def _unmatched(descriptor: Descriptor, field: str, pattern: list[Any], keys: tuple[str, ...],
               trees: list[tuple[str, Any]], case_ids: list[str], what: str) -> list[Finding]:
    from ..suite.json_patterns import find

    seen_node, seen_keys = False, set()
    for _, tree in trees:
        for _, node in find(tree, pattern):
            seen_node = True
            if isinstance(node, dict):
                seen_keys.update(k for k in keys if k in node)
        if seen_node and seen_keys >= set(keys):
            return []
    ids = tuple(dict.fromkeys(case_ids))
    if not seen_node:
        return [Finding(descriptor.format, descriptor.source, field,
                        f"{pattern!r} selects nothing in any {what} of the {len(ids)} {descriptor.format} case(s) it "
                        f"applies to: a misspelled key, or a field none of the cases has (add a case that has it, or drop the "
                        f"entry)", ids, "warning")]
    missing = [k for k in keys if k not in seen_keys]
    return [Finding(descriptor.format, descriptor.source, field.replace(".at", ".keys"),
                    f"{', '.join(map(repr, missing))} at {pattern!r} is in no chunk of the {len(ids)} "
                    f"{descriptor.format} case(s) it applies to: a misspelled key?", ids, "warning")]


def _unroutable(descriptor: Descriptor, streams: list[Case]) -> Iterator[Finding]:
    """A stream case none of whose chunks is of the descriptor's ``chunk_kind``: the
    re-chunkers and the noise checks cannot place a piece anywhere in it. (One odd chunk is
    normal: a ``[DONE]`` sentinel line, a malformed event a case is about.)"""
    want = dict if descriptor.chunk_kind == "object" else str
    for case in streams:
        if not any(isinstance(ch, want) for ch in case.chunks):
            kinds = ", ".join(sorted({type(ch).__name__ for ch in case.chunks}))
            yield Finding(descriptor.format, descriptor.source, "chunk_kind",
                          f"is {descriptor.chunk_kind!r}, but every chunk of the case is {kinds}: the descriptor "
                          "cannot route any of them", (case.id,))


# -- history-side paths: checked against the format's history schema ---------------------------

def _history_paths(history: dict[str, Any]) -> Iterator[tuple[str, list[Any]]]:
    for key in ("call_ids", "result_ids", "assistant_turn"):
        if key in history:
            yield f"history.{key}", history[key]
    for i, rule in enumerate(history.get("replay", [])):
        yield f"history.replay[{i}].history", rule["history"]


def _bundled_history(fmt: str) -> Any:
    from .schemas import load_schema

    try:
        return load_schema(f"{fmt}.history.schema.json")
    except (FileNotFoundError, OSError, ValueError):
        return None


def _impossible(schema: Any, pattern: list[Any], root: Any, depth: int = 0) -> str | None:
    """Why no instance of ``schema`` has a node at ``pattern`` (None when one may: the walk
    only concludes from what the schema states outright, and gives up on what it cannot read)."""
    schema = _resolve(schema, root)
    if depth > 40 or schema is True or not isinstance(schema, dict) and schema is not False:
        return None
    if schema is False:
        return "the schema allows no value here"
    if not pattern:
        return None
    for sub in schema.get("allOf", []):
        why = _impossible(sub, pattern, root, depth + 1)
        if why:
            return why
    for key in ("anyOf", "oneOf"):
        if key in schema:
            reasons = [_impossible(sub, pattern, root, depth + 1) for sub in schema[key]]
            if all(reasons):
                return reasons[0]
    step, rest = pattern[0], pattern[1:]
    types = schema.get("type")
    types = {types} if isinstance(types, str) else set(types) if isinstance(types, list) else None
    if isinstance(step, str) and step != "*":
        if types is not None and "object" not in types:
            return f"{step!r} is a key, but the schema there allows only {', '.join(sorted(types))}"
        return _into_key(schema, step, rest, root, depth)
    if types is not None and "array" not in types and not (step == "*" and "object" in types):
        return f"{step!r} selects list elements, but the schema there allows only {', '.join(sorted(types))}"
    if types is not None and "array" not in types:
        return None  # "*" over an object's values: not followed
    elements = _elements(schema, step)
    reasons = []
    for element in elements:
        why = None
        if isinstance(step, dict):
            for k, v in step.get("where", {}).items():
                why = why or _value_impossible(element, k, v, root, depth)
            why = why and f"no list element holds {', '.join(f'{k!r}: {v!r}' for k, v in step['where'].items())} ({why})"
        reasons.append(why or _impossible(element, rest, root, depth + 1))
    return reasons[0] if reasons and all(reasons) else None


def _elements(schema: dict[str, Any], step: Any) -> list[Any]:
    """The schemas a list step may land on: ``prefixItems`` by position, then ``items``."""
    prefix, items = schema.get("prefixItems", []), schema.get("items", True)
    if isinstance(step, int) and not isinstance(step, bool) and step >= 0:
        return [prefix[step] if step < len(prefix) else items]
    return [*prefix, items]


def _into_key(schema: dict[str, Any], key: str, rest: list[Any], root: Any, depth: int) -> str | None:
    props = schema.get("properties", {})
    if key in props:
        return _impossible(props[key], rest, root, depth + 1)
    for pattern, sub in schema.get("patternProperties", {}).items():
        if re.search(pattern, key):
            return _impossible(sub, rest, root, depth + 1)
    extra = schema.get("additionalProperties", True)
    if extra is False:
        known = sorted(props)
        return f"the schema allows no key {key!r} there (known: {', '.join(known)})"
    return _impossible(extra, rest, root, depth + 1)


def _value_impossible(schema: Any, key: str, wanted: Any, root: Any, depth: int) -> str | None:
    """Why no element of ``schema`` holds ``key`` with the ``where`` value ``wanted``."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > 40:
        return None
    options = wanted["in"] if isinstance(wanted, dict) and set(wanted) == {"in"} else [wanted]
    for sub in schema.get("allOf", []):
        why = _value_impossible(sub, key, wanted, root, depth + 1)
        if why:
            return why
    if _impossible(schema, [key], root, depth + 1):
        return _impossible(schema, [key], root, depth + 1)
    prop = _resolve(schema.get("properties", {}).get(key), root)
    if not isinstance(prop, dict):
        return None
    allowed = [prop["const"]] if "const" in prop else prop.get("enum")
    if allowed is not None and not any(o in allowed for o in options):
        return f"the schema allows only {', '.join(map(repr, allowed))}"
    return None


def _resolve(schema: Any, root: Any) -> Any:
    """Follow a local ``$ref`` (``#/...``); any other reference reads as "anything"."""
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 20:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            return True
        node = root
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            else:
                return True
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {"allOf": [node, siblings]} if siblings else node
        seen += 1
    return schema
