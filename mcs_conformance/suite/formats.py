"""Which format's cases are the strategy's own: by its name, by ``--mcs-format``, or by the
bundled format whose streams it recognizes.

The suite judges a strategy on the cases of its format. That format is, in order:

1. its ``name``, when the loaded corpus (bundled or the author's) has that format;
2. the format the author declares (``--mcs-format FORMAT``, or ``format`` in
   ``[tool.mcs-conformance]``): a strategy whose name is no format's (``my-gemini``, or a text
   strategy ``qwen-hermes`` for the bundled ``hermes`` cases);
3. the one bundled native format whose streams it recognizes: ``recognizes`` is True on the
   first chunk of every one of that format's streams that ends without an error. A text
   strategy is never matched this way: every text strategy claims every string, so a string
   chunk tells one text format from another no better than a coin.

When the format is not the strategy's name, the run reads the cases as if that format were
named after the strategy (:func:`adopt`): its cases, the names the cases give the strategy
that claims or extracts a message, its descriptor and history schema all take the strategy's
name, and in the chain the strategy stands in for that format's member. The author's own
cases of that format add to the bundled ones.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Any

from ..corpus_tools.corpus import Case, Corpus, bundled_corpus_dir

__all__ = ["FormatChoice", "FormatError", "adopt", "choose_format"]


class FormatError(ValueError):
    """The declared format cannot be used; the message says why and what is loaded."""


@dataclass(frozen=True)
class FormatChoice:
    """The format whose cases are the strategy's own, and how it was found.

    ``how`` is ``name``, ``declared``, ``recognized`` or ``none``; ``note`` says, when no format
    was found, why, and how to declare one.
    """

    strategy: str
    format: str | None
    how: str
    note: str = ""

    @property
    def adopted(self) -> str | None:
        """The format the strategy stands in for under its own name, when that is not its name."""
        return self.format if self.format is not None and self.format != self.strategy else None


def bundled_formats(corpus: Corpus) -> list[str]:
    """The formats of the bundled corpus: those with a bundled descriptor."""
    return sorted(f for f, d in corpus.descriptors.items() if _bundled(d.source))


def _bundled(source: str) -> bool:
    return os.path.realpath(source).startswith(os.path.realpath(bundled_corpus_dir()) + os.sep)


def _has_cases(corpus: Corpus, fmt: str) -> bool:
    return fmt in corpus.descriptors or any(c.format == fmt for c in corpus.cases)


def choose_format(strategy: Any, corpus: Corpus, declared: str | None, *, is_text: bool) -> FormatChoice:
    """The strategy's format (see the module's docstring). Raises :class:`FormatError` for a
    declared format that is not loaded, or one declared beside a name that is a format."""
    name = str(getattr(strategy, "name", "?"))
    if declared:
        if not _has_cases(corpus, declared):
            raise FormatError(f"{declared!r} is no format of the loaded corpus (formats: {', '.join(corpus.formats)})")
        if declared != name and _has_cases(corpus, name):
            raise FormatError(f"the strategy is named {name!r}, which is a format of the loaded corpus too; a strategy "
                              f"is judged as one format: name it {declared!r}, or leave the format undeclared")
        return FormatChoice(name, declared, "name" if declared == name else "declared")
    if _has_cases(corpus, name):
        return FormatChoice(name, name, "name")
    bundled = bundled_formats(corpus)
    if is_text:
        return FormatChoice(name, None, "none", (
            f"no loaded format is named {name!r}, and a text strategy is matched by its name only (every text strategy "
            f"claims every string); bundled formats: {', '.join(bundled)}. Declare yours with --mcs-format FORMAT "
            "(or format = \"...\" in [tool.mcs-conformance])"))
    found = [f for f in bundled if corpus.descriptors[f].chunk_kind == "object" and _recognizes_streams(strategy, corpus, f)]
    if len(found) == 1:
        return FormatChoice(name, found[0], "recognized")
    why = (f"it recognizes the streams of several ({', '.join(found)})" if found
           else "it recognizes the streams of none of the bundled formats")
    return FormatChoice(name, None, "none", (
        f"no loaded format is named {name!r}, and {why}; bundled formats: {', '.join(bundled)}. Declare yours with "
        "--mcs-format FORMAT (or format = \"...\" in [tool.mcs-conformance])"))


def _recognizes_streams(strategy: Any, corpus: Corpus, fmt: str) -> bool:
    """Does ``recognizes`` claim the first chunk of every ``fmt`` stream that ends without an
    error (and is there one)? A recognizes that raises claims nothing."""
    firsts = [c.chunks[0] for c in corpus.for_format(fmt) if c.is_stream and c.chunks and c.raises is None]
    if not firsts:
        return False
    for chunk in firsts:
        try:
            if strategy.recognizes(json.loads(json.dumps(chunk))) is not True:
                return False
        except Exception:  # noqa: BLE001 -- RECOG-001 reports a recognizes that raises
            return False
    return True


def adopt(corpus: Corpus, choice: FormatChoice) -> Corpus:
    """The corpus as this run reads it: the adopted format's cases, descriptor and history
    schema under the strategy's name, and every case's ``claimed_by`` / ``extracted_by`` of
    that format too. The corpus itself when the format is the strategy's name (or none)."""
    old, new = choice.adopted, choice.strategy
    if old is None:
        return corpus
    cases = [_renamed(c, old, new) for c in corpus.cases]
    descriptors = dict(corpus.descriptors)
    if old in descriptors:
        d = descriptors.pop(old)
        descriptors[new] = replace(d, format=new, data={**d.data, "format": new})
    schemas = dict(corpus.history_schemas)
    if old in schemas:
        schemas[new] = schemas.pop(old)
    else:
        bundled = _bundled_history(old)
        if bundled is not None:
            schemas[new] = bundled
    return Corpus(cases=cases, descriptors=descriptors, history_schemas=schemas, version=corpus.version,
                  content_hash=corpus.content_hash)


def _bundled_history(fmt: str) -> Any:
    """The request-side history schema the package ships for ``fmt`` (schemas/), or None."""
    from ..corpus_tools.schemas import load_schema

    try:
        return load_schema(f"{fmt}.history.schema.json")
    except (FileNotFoundError, OSError, ValueError):
        return None


_NAMED = ("claimed_by", "extracted_by")


def _renamed(case: Case, old: str, new: str) -> Case:
    """``case`` with format ``old`` read as ``new`` (its id is kept: ids are stable)."""
    data = json.loads(case.pristine) if case.pristine else json.loads(json.dumps(case.data))
    touched = data.get("format") == old
    if touched:
        data["format"] = new
    expect = data.get("expect", {})
    for part in (expect, *expect.get("accept", ())):
        for key in _NAMED:
            if part.get(key) == old:
                part[key] = new
                touched = True
    if not touched:
        return case
    return replace(case, format=data["format"], expect=data["expect"], data=data, pristine=json.dumps(data))
