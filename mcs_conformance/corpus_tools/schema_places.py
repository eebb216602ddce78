"""What a JSON Schema says about each place of one instance: the type cases it names, free-form objects.

Format schemas switch on a property with ``if``/``then`` (``"if": {"properties": {"type":
{"const": "message_start"}}}``). :class:`SchemaView` walks a schema along an instance and
reports, for every place (a tuple of keys and indexes), which values each such property is
named with there, which keys the schema describes there, and whether the schema declares
the object free-form (``{"type": "object"}`` and nothing more: tool inputs, usage). The
drift report reads format facts this way instead of knowing any format. Only local
``$ref`` (``#/...``) is followed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["Place", "SchemaView", "Spec"]

Spec = tuple[str, Any]  # ("const", value) | ("enum", [values]) | ("pattern", regex)
_STRUCTURE = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
              "allOf", "anyOf", "oneOf", "if", "$ref")


@dataclass
class Place:
    """What the schema says at one place of the instance."""

    named: dict[str, list[Spec]] = field(default_factory=dict)  # property -> the values if-cases name
    described: set[str] = field(default_factory=set)  # keys a subschema here lists in properties
    free: bool = False  # a subschema here is a bare object type

    @property
    def opaque(self) -> bool:
        """Free-form and no subschema here names any key: its keys are data, not fields."""
        return self.free and not self.described


def spec_matches(spec: Spec, value: Any) -> bool:
    kind, want = spec
    if kind == "const":
        return value == want
    if kind == "enum":
        return value in want
    return isinstance(value, str) and re.search(want, value) is not None


def spec_values(spec: Spec) -> list[str]:
    """The values a spec names, for messages (a pattern is shown as /regex/)."""
    kind, want = spec
    if kind == "const":
        return [str(want)]
    if kind == "enum":
        return [str(v) for v in want]
    return [f"/{want}/"]


class SchemaView:
    """A schema, walked along instances (validators for ``if`` conditions are built once and cached)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self._validator = Draft202012Validator(schema)
        self._cache: dict[int, Callable[[Any], bool]] = {}
        self.switches = frozenset(p for s in self._all_ifs() for p, _ in self.names_in(s))

    def places(self, instance: Any) -> dict[tuple[Any, ...], Place]:
        """Every place of ``instance`` the schema reaches, with what it says there."""
        out: dict[tuple[Any, ...], Place] = {}
        self._walk(self.schema, instance, (), out, 0)
        return out

    def errors(self, instance: Any) -> Iterator[Any]:
        """The jsonschema ValidationErrors of ``instance``."""
        return self._validator.iter_errors(instance)

    # -- internals -------------------------------------------------------------------------------
    def _deref(self, s: Any) -> Any:
        seen = 0
        while isinstance(s, dict) and isinstance(s.get("$ref"), str) and s["$ref"].startswith("#") and len(s) == 1:
            s = self._pointer(s["$ref"])
            seen += 1
            if seen > 32:
                return {}
        return s

    def _pointer(self, ref: str) -> Any:
        node: Any = self.schema
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return {}
        return node

    def _valid(self, sub: Any, instance: Any) -> bool:
        check = self._cache.get(id(sub))
        if check is None:
            check = self._cache[id(sub)] = _simple(self._deref(sub)) or self._validator.evolve(schema=sub).is_valid
        return bool(check(instance))

    def names_in(self, cond: Any) -> Iterator[tuple[str, Spec]]:
        cond = self._deref(cond)
        if not isinstance(cond, dict):
            return
        for prop, spec in (cond.get("properties") or {}).items():
            spec = self._deref(spec)
            if not isinstance(spec, dict):
                continue
            if "const" in spec:
                yield prop, ("const", spec["const"])
            elif isinstance(spec.get("enum"), list):
                yield prop, ("enum", spec["enum"])
            elif isinstance(spec.get("pattern"), str):
                yield prop, ("pattern", spec["pattern"])
        for sub in cond.get("allOf") or []:
            yield from self.names_in(sub)

    def _all_ifs(self) -> Iterator[Any]:
        stack = [self.schema]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if "if" in node:
                    yield node["if"]
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)

    def _walk(self, s: Any, inst: Any, loc: tuple[Any, ...], out: dict[tuple[Any, ...], Place], depth: int) -> None:
        if depth > 64 or not isinstance(s, dict):
            return
        place = out.setdefault(loc, Place())
        if isinstance(s.get("$ref"), str) and s["$ref"].startswith("#"):
            self._walk(self._pointer(s["$ref"]), inst, loc, out, depth + 1)
        if "if" in s:
            for prop, spec in self.names_in(s["if"]):
                place.named.setdefault(prop, []).append(spec)
            branch = s.get("then") if self._valid(s["if"], inst) else s.get("else")
            self._walk(branch, inst, loc, out, depth + 1)
        for sub in s.get("allOf") or []:
            self._walk(sub, inst, loc, out, depth + 1)
        for key in ("anyOf", "oneOf"):
            subs = s.get(key) or []
            for sub in [x for x in subs if self._valid(x, inst)] or subs:
                self._walk(sub, inst, loc, out, depth + 1)
        if isinstance(inst, dict):
            props = s.get("properties") or {}
            place.described.update(props)
            types = s.get("type")
            if "object" in (types if isinstance(types, list) else [types]) and not any(k in s for k in _STRUCTURE):
                place.free = True
            for key, value in inst.items():
                if key in props:
                    self._walk(props[key], value, loc + (key,), out, depth + 1)
                    continue
                matched = False
                for pattern, sub in (s.get("patternProperties") or {}).items():
                    if re.search(pattern, key):
                        matched = True
                        self._walk(sub, value, loc + (key,), out, depth + 1)
                if not matched and isinstance(s.get("additionalProperties"), dict):
                    self._walk(s["additionalProperties"], value, loc + (key,), out, depth + 1)
        elif isinstance(inst, list) and isinstance(s.get("items"), dict):
            for i, value in enumerate(inst):
                self._walk(s["items"], value, loc + (i,), out, depth + 1)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


def _same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1."""
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def _simple(cond: Any) -> Callable[[Any], bool] | None:
    """A plain-Python test for the common ``if`` (a type, required keys, properties with const/enum/pattern/type);
    None for anything else (jsonschema decides those)."""
    if not isinstance(cond, dict) or not set(cond) <= {"required", "properties", "type"}:
        return None
    kinds = cond.get("type", list(_TYPES))
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if not all(k in _TYPES for k in kinds):
        return None
    required = cond.get("required", [])
    tests: list[tuple[str, Callable[[Any], bool]]] = []
    for prop, spec in (cond.get("properties") or {}).items():
        if not isinstance(spec, dict) or not set(spec) <= {"const", "enum", "pattern", "type"}:
            return None
        parts: list[Callable[[Any], bool]] = []
        if "const" in spec:
            parts.append(lambda v, c=spec["const"]: _same(v, c))
        if "enum" in spec:
            parts.append(lambda v, e=spec["enum"]: any(_same(v, x) for x in e))
        if "pattern" in spec:
            parts.append(lambda v, r=re.compile(spec["pattern"]): not isinstance(v, str) or r.search(v) is not None)
        if "type" in spec:
            names = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
            if not all(n in _TYPES for n in names):
                return None
            parts.append(lambda v, ns=names: any(_TYPES[n](v) for n in ns))
        tests.append((prop, lambda v, ps=parts: all(p(v) for p in ps)))
    if not isinstance(required, list):
        return None

    def check(instance: Any) -> bool:
        if not any(_TYPES[k](instance) for k in kinds):
            return False
        if not isinstance(instance, dict):
            return True
        return all(k in instance for k in required) and all(t(instance[p]) for p, t in tests if p in instance)

    return check
