"""The fixture corpus: load, validate (JSON Schema) and select cases and format descriptors.

Layout of a corpus folder (the bundled one, or an author's ``--mcs-corpus DIR``)::

    manifest.json                      version, case count, content hash (bundled corpus)
    descriptors/<format>.json          one format descriptor per wire format
    schemas/<format>.history.schema.json   optional: request-side history shape of a new format
    cases/<format>/<slug>.json         one case per file (any other *.json counts as a case)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from .schemas import errors as schema_errors

__all__ = ["Case", "Corpus", "CorpusError", "Descriptor", "bundled_corpus_dir", "load_corpus", "read_case",
           "read_descriptor"]


class CorpusError(ValueError):
    """A corpus file is unreadable or invalid; the message names the file and the JSON path."""


@dataclass(frozen=True)
class Descriptor:
    """Format facts for the fuzzers: deltas, noise, completion signal, text channel."""

    format: str
    data: dict[str, Any]
    source: str

    @property
    def chunk_kind(self) -> str:
        return self.data["chunk_kind"]

    @property
    def deltas(self) -> list[list[Any]]:
        return [d["path"] for d in self.data.get("deltas", [])]

    @property
    def routing(self) -> list[str]:
        """Every routing key name, whatever node it routes at (see :attr:`routing_rules`)."""
        return _names(self.routing_rules)

    @property
    def terminal(self) -> list[str]:
        """Every terminal key name, whatever node it ends (see :attr:`terminal_rules`)."""
        return _names(self.terminal_rules)

    @property
    def routing_rules(self) -> list[dict[str, Any]]:
        """Routing rules ``{"at": pattern, "keys": [...]}``; ``at`` is None for a bare key
        (the flat form: the key routes at every node of a split path)."""
        return _node_rules(self.data.get("routing", []))

    @property
    def terminal_rules(self) -> list[dict[str, Any]]:
        """Terminal rules, in the form of :attr:`routing_rules`."""
        return _node_rules(self.data.get("terminal", []))

    @property
    def fill(self) -> list[dict[str, Any]]:
        """Fill values ``{"at": pattern, "set": {key: value}}`` for the pieces of a split that
        do not get the chunk's own value of a key."""
        return list(self.data.get("fill", []))

    @property
    def noise(self) -> list[dict[str, Any]]:
        return list(self.data.get("noise", []))

    @property
    def text_channel(self) -> dict[str, Any] | None:
        return self.data.get("text_channel")

    @property
    def call_channel(self) -> dict[str, Any] | None:
        """How calls (and leading text) are written into this wire, for synthesized streams."""
        return self.data.get("call_channel")

    @property
    def history(self) -> dict[str, Any]:
        return self.data.get("history", {})

    def is_done_chunk(self, chunk: Any) -> bool:
        """Does ``chunk`` match the descriptor's completion-signal schema?"""
        return _matches(self.data.get("done"), chunk)

    def is_error_chunk(self, chunk: Any) -> bool:
        """Does ``chunk`` match the descriptor's in-stream error schema?"""
        return _matches(self.data.get("error"), chunk)


def _names(rules: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for rule in rules for k in rule["keys"]))


def _node_rules(rules: list[Any]) -> list[dict[str, Any]]:
    return [{"at": None, "keys": [r]} if isinstance(r, str) else {"at": r["at"], "keys": list(r["keys"])} for r in rules]


def _matches(schema: Any, instance: Any) -> bool:
    if not schema:
        return False
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema).is_valid(instance)


@dataclass(frozen=True)
class Case:
    """One corpus case: a stream (``chunks``) or an assembled ``message``, and what to expect."""

    id: str
    format: str
    description: str
    provenance: dict[str, Any]
    tags: tuple[str, ...]
    expect: dict[str, Any]
    source: str
    chunks: list[Any] | None = None
    message: Any = None
    data: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    pristine: str = field(default="", repr=False, compare=False)  # the case as loaded, serialized

    def fresh(self) -> "Case":
        """A copy of the case as it was loaded, sharing nothing with this one or any other
        copy: each check gets its own, so a strategy that mutates a chunk spoils no other."""
        if not self.pristine:
            return self
        data = json.loads(self.pristine)
        return replace(self, provenance=data["provenance"], expect=data["expect"], chunks=data.get("chunks"),
                       message=data.get("message"), data=data)

    @property
    def is_stream(self) -> bool:
        return self.chunks is not None

    @property
    def final_message(self) -> Any:
        """The assembled message the extraction checks read (stream cases: the expected one)."""
        return self.expect.get("message") if self.is_stream else self.message

    @property
    def raises(self) -> str | None:
        err = self.expect.get("error")
        return err.get("type") if isinstance(err, dict) else None


@dataclass
class Corpus:
    """Cases and descriptors from one or more folders, with the bundled manifest's version."""

    cases: list[Case]
    descriptors: dict[str, Descriptor]
    history_schemas: dict[str, dict[str, Any]]
    version: str
    content_hash: str

    def case(self, case_id: str) -> Case:
        for c in self.cases:
            if c.id == case_id:
                return c
        raise KeyError(case_id)

    def for_format(self, fmt: str) -> list[Case]:
        return [c for c in self.cases if c.format == fmt]

    @cached_property
    def formats(self) -> list[str]:
        return sorted({c.format for c in self.cases} | set(self.descriptors))


def bundled_corpus_dir() -> Path:
    """The corpus shipped inside the package (works from a wheel and from a checkout)."""
    return Path(str(resources.files("mcs_conformance") / "corpus"))


def load_corpus(extra_dirs: Iterable[str | Path] = (), *, bundled: bool = True) -> Corpus:
    """Load the bundled corpus and any author folders; every file is schema-validated."""
    dirs = ([bundled_corpus_dir()] if bundled else []) + [Path(d) for d in extra_dirs]
    cases: dict[str, Case] = {}
    descriptors: dict[str, Descriptor] = {}
    history: dict[str, dict[str, Any]] = {}
    for d in dirs:
        if not d.is_dir():
            raise CorpusError(f"corpus folder {d} does not exist or is not a folder")
        for path in sorted(d.rglob("*.json")):
            rel = path.relative_to(d).as_posix()
            if rel == "manifest.json":
                continue
            data, text = _read(path)
            if rel.startswith("descriptors/"):
                _validate("descriptor.schema.json", data, path, text)
                descriptors[data["format"]] = Descriptor(data["format"], data, str(path))
            elif rel.startswith("schemas/"):
                if path.name.endswith(".history.schema.json"):
                    history[path.name[: -len(".history.schema.json")]] = data
            else:
                case = _case(data, path, text)
                if case.id in cases:
                    raise CorpusError(f"{path}: case id {case.id!r} is also used by {cases[case.id].source}")
                cases[case.id] = case
    for case in cases.values():
        if case.is_stream and case.format not in descriptors:
            raise CorpusError(
                f"{case.source}: stream case {case.id!r} has format {case.format!r} but no descriptor "
                f"for it is loaded (add descriptors/{case.format}.json to the corpus folder)"
            )
    version = "unversioned"
    if bundled:
        version = _read_json(bundled_corpus_dir() / "manifest.json").get("version", version)
    return Corpus(
        cases=sorted(cases.values(), key=lambda c: c.id),
        descriptors=descriptors,
        history_schemas=history,
        version=version,
        content_hash=content_hash(dirs),
    )


def content_hash(dirs: Iterable[Path]) -> str:
    """sha256 over every corpus file (path and bytes) but the manifest, in path order."""
    h = hashlib.sha256()
    for d in dirs:
        for path in sorted(Path(d).rglob("*.json")):
            rel = path.relative_to(d).as_posix()
            if rel == "manifest.json":
                continue
            h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + h.hexdigest()


def _read_json(path: Path) -> Any:
    return _read(path)[0]


def _read(path: Path) -> tuple[Any, str]:
    """A JSON file's document and its text."""
    try:
        text = path.read_text(encoding="utf-8")
        return json.loads(text), text
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None


# (schema, digest of a file's text) pairs found valid in this process. Validation is most of
# loading's cost (and of a filtered run's start); a process that loads the corpus again
# (pytester runs, an IDE's reruns) checks each distinct file once.
_VALID: set[tuple[str, bytes]] = set()


def _validate(schema: str, data: Any, path: Path, text: str | None = None) -> None:
    """Raise a CorpusError naming the file and the first problems when ``data`` fails ``schema``.

    ``text``, the file's text ``data`` was parsed from, lets a file already found valid in this
    process skip the check."""
    key = (schema, hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()) if text is not None else None
    if key in _VALID:
        return
    problems = schema_errors(schema, data)
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise CorpusError(f"{path}: invalid against {schema}: " + "; ".join(problems[:3]) + more)
    if key is not None:
        _VALID.add(key)


def _case(data: Any, path: Path, text: str | None = None) -> Case:
    _validate("case.schema.json", data, path, text)
    prefix = data["id"].split("/", 1)[0]
    if prefix != data["format"]:
        raise CorpusError(f"{path}: at $.id: {data['id']!r} must start with its format {data['format']!r}/")
    return Case(
        id=data["id"],
        format=data["format"],
        description=data["description"],
        provenance=data["provenance"],
        tags=tuple(data.get("tags", ())),
        expect=data["expect"],
        source=str(path),
        chunks=data.get("chunks"),
        message=data.get("message"),
        data=data,
        pristine=text if text is not None else json.dumps(data),  # the file's text parses to data
    )


def read_descriptor(path: str | Path) -> Descriptor:
    """One descriptor file, schema-validated (a :class:`CorpusError` names the problem)."""
    path = Path(path)
    data, text = _read(path)
    _validate("descriptor.schema.json", data, path, text)
    return Descriptor(data["format"], data, str(path))


def read_case(path: str | Path) -> Case:
    """One case file, schema-validated (a :class:`CorpusError` names the problem)."""
    path = Path(path)
    data, text = _read(path)
    return _case(data, path, text)
