"""The JSON Schemas shipped in the package (Draft 2020-12): load, validate, report readably.

Schemas live in ``mcs_conformance/schemas/<name>.schema.json`` and are read through
``importlib.resources``, so they work from a checkout and from an installed wheel. A name is
given with or without the suffix: ``"case"``, ``"case.schema.json"``,
``"openai-chat.history"``.
"""

from __future__ import annotations

import copy
import json
import reprlib
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

__all__ = ["UnknownSchema", "check_shipped", "errors", "json_path", "load_schema", "names", "validator"]

_SUFFIX = ".schema.json"
_DIR = "schemas"


class UnknownSchema(FileNotFoundError, ValueError):
    """No schema of that name ships with the package (a format without a shipped schema)."""


def _stem(name: str) -> str:
    if not isinstance(name, str) or not name:
        raise ValueError(f"a schema name is a non-empty string, not {name!r}")
    return name[: -len(_SUFFIX)] if name.endswith(_SUFFIX) else name


def names() -> list[str]:
    """The names of every shipped schema (without the suffix), sorted."""
    folder = resources.files("mcs_conformance").joinpath(_DIR)
    return sorted(p.name[: -len(_SUFFIX)] for p in folder.iterdir() if p.name.endswith(_SUFFIX))


@lru_cache(maxsize=None)
def _load(stem: str) -> dict[str, Any]:
    res = resources.files("mcs_conformance").joinpath(_DIR).joinpath(stem + _SUFFIX)
    if not res.is_file():
        raise UnknownSchema(f"no schema named {stem!r}; shipped schemas: {', '.join(names())}")
    return json.loads(res.read_text(encoding="utf-8"))


def load_schema(name: str) -> dict[str, Any]:
    """A shipped schema as a dict (a private copy: the cached one is never exposed)."""
    return copy.deepcopy(_load(_stem(name)))


@lru_cache(maxsize=None)
def _validator(stem: str) -> Draft202012Validator:
    return Draft202012Validator(_load(stem), format_checker=Draft202012Validator.FORMAT_CHECKER)


def validator(name: str) -> Draft202012Validator:
    """A cached Draft 2020-12 validator for a shipped schema, with format checking on."""
    return _validator(_stem(name))


def errors(name: str, instance: Any) -> list[str]:
    """Every reason ``instance`` fails the schema, as ``"at $.a.b[0]: message"``, sorted by path.

    An empty list means the instance is valid.
    """
    found = sorted(validator(name).iter_errors(instance), key=_sort_key)
    return [f"at {json_path(e.absolute_path)}: {_message(e)}" for e in found]


def check_shipped() -> dict[str, list[str]]:
    """Check every shipped schema against the Draft 2020-12 meta-schema, without raising.

    Returns ``{name: [problems]}`` for the schemas that are not valid schemas (empty when
    all are).
    """
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    out: dict[str, list[str]] = {}
    for stem in names():
        try:
            schema = _load(stem)
        except (ValueError, OSError) as exc:  # unreadable or not JSON
            out[stem] = [f"cannot be read: {exc}"]
            continue
        problems = [f"at {json_path(e.absolute_path)}: {_message(e)}" for e in meta.iter_errors(schema)]
        if problems:
            out[stem] = problems
    return out


def json_path(path: Any) -> str:
    """A JSONPath for a sequence of keys and indexes: ``$.expect.calls[0].name``."""
    out = "$"
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif isinstance(step, str) and step.isidentifier():
            out += f".{step}"
        else:
            out += f"[{json.dumps(step)}]"
    return out


_short = reprlib.Repr()
_short.maxstring = 40
_short.maxother = 40
_short.maxlist = 3
_short.maxdict = 4
_short.maxlevel = 2


def _sort_key(e: ValidationError) -> tuple[Any, ...]:
    return (tuple((0, s, "") if isinstance(s, int) else (1, 0, str(s)) for s in e.absolute_path), e.message)


def _message(e: ValidationError) -> str:
    """jsonschema's message, with the offending value abbreviated and unions explained."""
    if e.validator in ("oneOf", "anyOf") and _all_required(e.validator_value):
        wanted = [b["required"][0] for b in e.validator_value]
        present = [k for k in wanted if isinstance(e.instance, dict) and k in e.instance]
        how = "exactly" if e.validator == "oneOf" else "at least"
        found = ", ".join(map(repr, present)) or "none"
        return f"needs {how} one of {', '.join(map(repr, wanted))}; found {found}"
    full = repr(e.instance)
    if len(full) > 60 and full in e.message:
        return e.message.replace(full, _short.repr(e.instance), 1)
    return e.message


def _all_required(branches: Any) -> bool:
    return isinstance(branches, list) and all(
        isinstance(b, dict) and list(b) == ["required"] and len(b["required"]) == 1 for b in branches
    )
