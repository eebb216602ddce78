"""What a set of streams of one format shows, read through the format's descriptor and schemas only.

For each format, :class:`FormatFacts` holds what the corpus says of it: the descriptor
(completion signal, error rule, noise and text-channel chunks, terminal keys) and the
chunk and message JSON Schemas (which type cases they name, where an object is free-form).
:class:`StreamFacts` gathers, over streams, what they show in those terms: event types
(the value of the property the schemas switch on, e.g. ``type``; ``chunk`` for a format
that has none), key paths per event type with their JSON value types, completion signals,
terminal values, the final message's key paths, and what the descriptor and schema do not
cover. No format is named here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from .corpus import Descriptor
from .schemas import json_path
from .schema_places import Place, SchemaView, spec_matches, spec_values

__all__ = ["FormatFacts", "Gap", "Seen", "StreamFacts"]

MAX_DEPTH = 6  # key levels below a chunk that are listed; deeper keys are request echoes and data
_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


def jtype(value: Any) -> str:
    """The JSON type of a value: object, array, string, number, boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _join(label: str, key: str) -> str:
    step = key if _IDENT.match(key) else json.dumps(key)
    return f"{label}.{step}" if label else step


@dataclass
class Seen:
    """How often something was seen, where first, and (for keys) with which value types."""

    count: int = 0
    first: str = ""
    types: set[str] = field(default_factory=set)
    described: bool = False

    def add(self, where: str, types: set[str] | None = None, described: bool = False) -> None:
        if not self.count:
            self.first = where
        self.count += 1
        if types:
            self.types |= types
        self.described = self.described or described


@dataclass
class Gap:
    """Something the descriptor or chunk schema does not cover, with where it was seen."""

    what: str  # "event-type", "type", "schema", "no-schema", "no-descriptor"
    detail: str
    seen: Seen = field(default_factory=Seen)


class FormatFacts:
    """A format's descriptor and schemas, read for drift: event kinds, type cases, completion."""

    def __init__(
        self,
        fmt: str,
        descriptor: Descriptor | None,
        chunk_schema: tuple[str, dict[str, Any]] | None,
        message_schema: tuple[str, dict[str, Any]] | None,
    ) -> None:
        self.format = fmt
        self.descriptor = descriptor
        self.chunk_schema_name = chunk_schema[0] if chunk_schema else None
        self.chunks = SchemaView(chunk_schema[1]) if chunk_schema else None
        self.messages = SchemaView(message_schema[1]) if message_schema else None
        data = descriptor.data if descriptor else {}
        self._done = Draft202012Validator(data["done"]) if isinstance(data.get("done"), dict) else None
        self._error = Draft202012Validator(data["error"]) if isinstance(data.get("error"), dict) else None
        self.terminal = set(descriptor.terminal) if descriptor else set()
        root_specs: list[tuple[str, Any]] = []
        for rule in (data.get("done"), data.get("error")):
            if isinstance(rule, dict):
                root_specs += list(SchemaView(rule).names_in(rule))
        self.switches = sorted((self.chunks.switches if self.chunks else frozenset()) | {p for p, _ in root_specs})
        self._root_specs = root_specs
        self._memo: dict[str, Analysis] = {}
        self._examples: set[tuple[str, str, str, Any]] = set()  # (event type, place label, property, value)
        for chunk in self._example_chunks(data):
            root = self.kind(chunk)
            for label, _loc, prop, value in self.tags(chunk):
                self._examples.add((root if label else "", label, prop, value))

    @property
    def descriptor_name(self) -> str:
        return f"descriptors/{self.format}.json"

    @staticmethod
    def _example_chunks(data: dict[str, Any]) -> list[Any]:
        out = [n.get("chunk") for n in data.get("noise", []) if isinstance(n, dict)]
        tc = data.get("text_channel") or {}
        out += list(tc.get("start") or []) + [tc.get("delta")] + list(tc.get("end") or [])
        return [c for c in out if c is not None]

    def kind(self, chunk: Any) -> str:
        """A chunk's event type: its switch property's value, ``chunk`` for an object without one, a short string itself."""
        if isinstance(chunk, dict):
            for prop in self.switches:
                if isinstance(chunk.get(prop), str):
                    return chunk[prop]
            return "chunk"
        if isinstance(chunk, str):
            short = len(chunk) <= 40 and not any(c.isspace() for c in chunk)
            return chunk if short and self.descriptor is not None and self.descriptor.chunk_kind != "string" else "(string)"
        return f"({jtype(chunk)})"

    def is_done(self, chunk: Any) -> bool:
        return self._done is not None and self._done.is_valid(chunk)

    def is_error(self, chunk: Any) -> bool:
        return self._error is not None and self._error.is_valid(chunk)

    def tags(self, value: Any, loc: tuple[Any, ...] = (), label: str = "") -> list[tuple[str, tuple[Any, ...], str, Any]]:
        """Every (place label, place, switch property, value) in ``value``; the root has label ""."""
        out: list[tuple[str, tuple[Any, ...], str, Any]] = []
        if isinstance(value, dict):
            here = label
            for prop in self.switches:
                if isinstance(value.get(prop), str):
                    out.append((label, loc, prop, value[prop]))
                    if loc:
                        here = f"{label}<{value[prop]}>"
                    break
            for k, v in value.items():
                out += self.tags(v, loc + (k,), _join(here, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                out += self.tags(v, loc + (i,), f"{label}[]")
        return out

    def named_by_descriptor(self, root: str, label: str, prop: str, value: Any) -> bool:
        if not label and any(p == prop and spec_matches(s, value) for p, s in self._root_specs):
            return True
        return (root if label else "", label, prop, value) in self._examples

    def describes_root(self, prop: str) -> bool:
        """Does the descriptor name any event type on ``prop`` (a done or error rule, a noise chunk)?"""
        return any(p == prop for p, _ in self._root_specs) or any(e[1] == "" and e[2] == prop for e in self._examples)

    def analyse(self, chunk: Any, *, validate: bool = True) -> Analysis:
        """A chunk's event type, keys and coverage gaps (memoised: corpora repeat chunks)."""
        key = json.dumps(chunk, sort_keys=True)
        a = self._memo.get(key)
        if a is None:
            root = self.kind(chunk)
            places = self.chunks.places(chunk) if self.chunks else {}
            a = self._memo[key] = Analysis(root, keys_of(chunk, places, self.switches),
                                           self._type_gaps(chunk, root, places), self._terminal_values(chunk))
        if validate and a.schema_gaps is None:
            a.schema_gaps = self._schema_gaps(chunk, a.root)
        return a

    def _schema_gaps(self, chunk: Any, root: str) -> list[tuple[tuple[Any, ...], str, str]]:
        if self.chunks is None:
            return []
        out = []
        what = "chunks" if root == "chunk" else f"{root} chunks"
        for e in self.chunks.errors(chunk):
            path = _general(e.absolute_path)
            message = e.message if len(e.message) <= 120 else e.message[:117] + "..."
            out.append((("schema", root, path, e.validator), "schema",
                        f"{what} fail {self.chunk_schema_name}: at {path}: {message}"))
        return out

    def _type_gaps(self, chunk: Any, root: str, places: dict[tuple[Any, ...], Place]) -> list[tuple[tuple[Any, ...], str, str]]:
        out = []
        for label, loc, prop, value in self.tags(chunk):
            named = places.get(loc, Place()).named.get(prop, [])
            if any(spec_matches(s, value) for s in named) or self.named_by_descriptor(root, label, prop, value):
                continue
            if not label:
                if named or self.describes_root(prop):
                    out.append((("event-type", prop, value), "event-type",
                                f"event type {value!r}: no done, error, noise or text-channel chunk of "
                                f"{self.descriptor_name} names it, and {self.chunk_schema_name or 'no chunk schema'} "
                                "has no case for it (it passes unchecked, and the generators never produce it)"))
            elif named:
                known = ", ".join(sorted({v for s in named for v in spec_values(s)}))
                out.append((("type", root, label, prop, value), "type",
                            f"{prop} {value!r} at {root}: {label}: {self.chunk_schema_name} has cases for {known} "
                            "there, not this one"))
        return out

    def terminal_paths(self, value: Any, label: str = "") -> list[tuple[str, Any]]:
        """(path, value) of every terminal key (descriptor ``terminal``) with a value, in a chunk."""
        out: list[tuple[str, Any]] = []
        if isinstance(value, dict):
            for k, v in value.items():
                path = _join(label, k)
                if k in self.terminal and v is not None:
                    out.append((path, v))
                out += self.terminal_paths(v, path)
        elif isinstance(value, list):
            for v in value:
                out += self.terminal_paths(v, f"{label}[]")
        return out

    def _terminal_values(self, chunk: Any) -> list[tuple[str, str]]:
        return [(k, json.dumps(v)) for k, v in self.terminal_paths(chunk)] if self.terminal else []


@dataclass
class Analysis:
    """What one chunk shows: event type, keys, type gaps, terminal values; schema gaps once validated."""

    root: str
    keys: list[tuple[str, str, bool]]
    type_gaps: list[tuple[tuple[Any, ...], str, str]]
    terminal: list[tuple[str, str]]
    schema_gaps: list[tuple[tuple[Any, ...], str, str]] | None = None


def keys_of(value: Any, places: dict[tuple[Any, ...], Place], switches: list[str]) -> list[tuple[str, str, bool]]:
    """(path, JSON type, described by the schema) for the keys of a chunk or message, to MAX_DEPTH.

    Paths qualify objects by their switch value (``content_block<tool_use>.id``) and write
    list items as ``[]``. Not descended into: objects the schema declares free-form, the
    property maps of JSON Schemas echoed from the request, and anything deeper than MAX_DEPTH.
    """
    out: list[tuple[str, str, bool]] = []

    def walk(v: Any, loc: tuple[Any, ...], label: str, depth: int) -> None:
        if isinstance(v, dict):
            place = places.get(loc)
            if place is not None and place.opaque:
                return
            if loc:
                tag = next((v[p] for p in switches if isinstance(v.get(p), str)), None)
                if tag is not None:
                    label = f"{label}<{tag}>"
            schema_like = v.get("type") == "object" and isinstance(v.get("properties"), dict)
            for k, x in v.items():
                path = _join(label, k)
                out.append((path, jtype(x), place is not None and k in place.described))
                if depth + 1 < MAX_DEPTH and not (schema_like and k == "properties"):
                    walk(x, loc + (k,), path, depth + 1)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                out.append((f"{label}[]", jtype(x), False))
                walk(x, loc + (i,), f"{label}[]", depth)

    walk(value, (), "", 0)
    return out


def _general(path: Any) -> str:
    """A JSON path with list indexes written ``[]``: one name for the same place in every chunk."""
    return re.sub(r"\[\d+\]", "[]", json_path(path))


class StreamFacts:
    """What some streams of one format show, in the format's own terms (see the module docstring)."""

    def __init__(self, facts: FormatFacts) -> None:
        self.facts = facts
        self.streams = 0
        self.types: dict[str, Seen] = {}
        self.keys: dict[tuple[str, str], Seen] = {}
        self.signals: dict[str, Seen] = {}
        self.terminal: dict[tuple[str, str], Seen] = {}
        self.message_keys: dict[tuple[str, str], Seen] = {}
        self.gaps: dict[tuple[Any, ...], Gap] = {}
        self._unvalidated: dict[str, list[tuple[str, Any]]] = {}

    def add(self, name: str, chunks: list[Any], message: Any = None, *, validate: bool = True) -> None:
        """Take in one stream (``message``: its final message when known).

        ``validate=False`` defers checking chunks against the chunk schema until
        :meth:`validate` asks for some event types (OLD's gaps only matter where NEW has one).
        """
        f = self.facts
        self.streams += 1
        if f.chunks is None:
            self._gap(("no-schema",), "no-schema", f"no chunk schema for {f.format}: nothing checks the shape of its chunks", name)
        if f.descriptor is None:
            self._gap(("no-descriptor",), "no-descriptor",
                      f"no descriptor for {f.format}: no completion signal, noise or error rule is known", name)
        for i, chunk in enumerate(chunks):
            where = f"{name} #{i}"
            a = f.analyse(chunk, validate=validate)
            self.types.setdefault(a.root, Seen()).add(where)
            for path, t, described in a.keys:
                self.keys.setdefault((a.root, path), Seen()).add(where, {t}, described)
            for key, what, detail in a.type_gaps + (a.schema_gaps or []):
                self._gap(key, what, detail, where)
            if a.schema_gaps is None:
                self._unvalidated.setdefault(a.root, []).append((where, chunk))
            for key in a.terminal:
                self.terminal.setdefault(key, Seen()).add(where)
        self.signals.setdefault(self.signal(chunks), Seen()).add(name)
        if message is not None:
            places = f.messages.places(message) if f.messages else {}
            for path, t, described in keys_of(message, places, f.switches):
                self.message_keys.setdefault(("", path), Seen()).add(name, {t}, described)

    def validate(self, roots: set[str]) -> None:
        """Check the deferred chunks of these event types against the chunk schema."""
        for root in roots:
            for where, chunk in self._unvalidated.pop(root, []):
                for key, what, detail in self.facts.analyse(chunk).schema_gaps or []:
                    self._gap(key, what, detail, where)

    def signal(self, chunks: list[Any]) -> str:
        """How a stream ends, in descriptor terms: the done chunk, its terminal keys, what follows it, an error."""
        f = self.facts
        if f.descriptor is None:
            return "unknown (no descriptor)"
        at = next((i for i, c in enumerate(chunks) if f.is_done(c)), None)
        if at is None:
            text = "no completion signal"
        else:
            terms = sorted({p for p, _ in f.terminal_paths(chunks[at])})
            text = f.kind(chunks[at]) + (f" with {', '.join(terms)}" if terms else "")
            after: list[str] = []
            for c in chunks[at + 1:]:
                k = f.kind(c)
                if not after or after[-1] != k:
                    after.append(k)
            text += f", then {', '.join(after)}" if after else ", last"
        error = next((f.kind(c) for c in chunks if f.is_error(c)), None)
        return text + (f"; error event {error}" if error else "")

    def _gap(self, key: tuple[Any, ...], what: str, detail: str, where: str) -> None:
        self.gaps.setdefault(key, Gap(what, detail)).seen.add(where)
