"""Detection does not depend on the profile's luck: every documented bug class fails its check
under the ``ci`` and ``dev`` profiles, and with the fixed examples alone.

``DETECTIONS`` is the table: the class of input a check's documentation promises to catch
(docs/authoring.md, docs/invariants.md), a strategy with that one bug (the copies below, or
the zoo's), and the check that must fail it. Each row runs the check as the plugin does, with
the ``ci`` and the ``dev`` profile's settings and with hypothesis's explicit phase only (no
random draw), so a failure is proven to come from the fixed examples
(mcs_conformance.suite.examples); the issue's own case, a string-trimming copy of each
reference strategy, also runs through the plugin in-process (``--mcs-profile=ci`` and
``dev``, restricted with ``--mcs-check``). The unit tests at the end check that the fixed
examples hold each class they are named for, so a removed or reshaped example is noticed.
"""

from __future__ import annotations

import importlib
import json
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, settings

import mcs_conformance.suite.invariants  # noqa: F401  (imported once, so in-process runs start warm)
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.corpus_tools.oracles import ORACLE_MODULES, oracle_module
from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.strategies import (
    AnthropicMessagesStrategy,
    OpenAIChatStrategy,
    OpenAIResponsesStrategy,
    TextStrategy,
)
from mcs_conformance.suite import examples as ex
from mcs_conformance.suite import plugin, profiles
from mcs_conformance.suite.generators import delta_sites, empty_allowed
from mcs_conformance.suite.invariants import CHECKS, Failure
from mcs_conformance.suite.invariants.base import Subject, calls_view, same
from mcs_conformance.suite.synthesize import native_delimiters, render_delimiters, template_ids
from tests.zoo.broken import _ChatSteps

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests.suite.test_detection_profiles"
CORPUS = load_corpus()


# -------------------------------------------------------------------------- one-bug copies

def _map_strings(value: Any, fn) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {fn(k): _map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    return value


def _pruned(value: Any, drop) -> Any:
    """``value`` with every nested entry for which ``drop(key, value)`` holds left out."""
    if isinstance(value, dict):
        return {k: _pruned(v, drop) for k, v in value.items() if not drop(k, v)}
    if isinstance(value, list):
        return [_pruned(v, drop) for v in value]
    return value


class _ArgumentsCleanUp:
    """``extract`` passes every executable call's arguments through ``clean``: a clean-up step
    on the way out (the bug each subclass names)."""

    def clean(self, arguments: dict) -> dict:
        raise NotImplementedError

    def extract(self, message):
        return [replace(c, arguments=self.clean(c.arguments)) if c.error is None else c
                for c in super().extract(message)]


class _Trims(_ArgumentsCleanUp):
    """Every string argument (and key) is trimmed: ``"  "`` and a snippet's final newline become
    something the model never sent."""

    def clean(self, arguments):
        return {k: _map_strings(v, str.strip) for k, v in arguments.items()}


class ChatTrimsStrings(_Trims, OpenAIChatStrategy):
    """The reference OpenAI Chat strategy whose ``extract`` trims every string argument."""


class ResponsesTrimsStrings(_Trims, OpenAIResponsesStrategy):
    """The reference OpenAI Responses strategy whose ``extract`` trims every string argument."""


class TextTrimsStrings(_Trims, TextStrategy):
    """The reference text codec whose ``extract`` trims every string argument."""


class ChatDropsAstralCharacters(_ArgumentsCleanUp, OpenAIChatStrategy):
    """Characters outside the BMP are dropped from every string argument (as a store whose
    text columns hold at most three UTF-8 bytes a character does)."""

    def clean(self, arguments):
        return _map_strings(arguments, lambda s: "".join(ch for ch in s if ord(ch) <= 0xFFFF))


class ChatDropsEmptyStrings(_ArgumentsCleanUp, OpenAIChatStrategy):
    """Entries whose value or key is an empty string are dropped ("nothing to pass")."""

    def clean(self, arguments):
        return _pruned(arguments, lambda k, v: k == "" or v == "")


class ChatDropsEmptyContainers(_ArgumentsCleanUp, OpenAIChatStrategy):
    """Entries whose value is ``{}`` or ``[]`` are dropped at every depth."""

    def clean(self, arguments):
        return _pruned(arguments, lambda k, v: v == {} or v == [])


class ChatDropsNulls(_ArgumentsCleanUp, OpenAIChatStrategy):
    """Entries whose value is null are dropped, so that the tool's defaults apply."""

    def clean(self, arguments):
        return _pruned(arguments, lambda k, v: v is None)


class ChatMergesCallsByName(OpenAIChatStrategy):
    """Calls are keyed by name: a later call of the same name replaces the earlier one in its
    place (a dict from tool name to call)."""

    def extract(self, message):
        by_name: dict[str, ToolCall] = {}
        for call in super().extract(message):
            by_name[call.name] = call
        return list(by_name.values())


class ChatStripsContentText(OpenAIChatStrategy):
    """``content_text`` trims the text before the calls (a tidy display)."""

    def content_text(self, message):
        return super().content_text(message).strip()


class ChatScrubsSseFraming(_ChatSteps):
    """Each arguments fragment has SSE framing (``data: ``) removed once more, as if the
    transport had not already taken it off: a value holding the wire's own delimiter loses it."""

    def _fold_arguments(self, acc, function, piece):
        super()._fold_arguments(acc, function, piece.replace("data: ", ""))


class ChatTrimsEachFragment(_ChatSteps):
    """Each arguments fragment is trimmed as it arrives (white space "between tokens"): white
    space inside a string value is lost whenever a cut puts it at a fragment's end."""

    def _fold_arguments(self, acc, function, piece):
        super()._fold_arguments(acc, function, piece.strip())


class TextFormingNameSanitized(TextStrategy):
    """``forming_name`` shows only ``[A-Za-z0-9_-]`` (every other character becomes ``_``): a
    name with a dot or a letter outside ASCII is shown as no prefix of itself."""

    def forming_name(self, message):
        name = super().forming_name(message)
        return re.sub(r"[^A-Za-z0-9_-]", "_", name) if name is not None else None


class ChatRestartsOnEmptyArguments(_ChatSteps):
    """An arguments fragment of ``""`` is taken for a call's opening fragment (the one the
    provider sends with the id and name) and restarts the arguments: an empty piece after
    the text, which a server or proxy may send, drops what came before."""

    def _fold_arguments(self, acc, function, piece):
        if piece == "":
            acc.seal(function, "arguments", "")
            return
        super()._fold_arguments(acc, function, piece)


# -------------------------------------------------------------------------- the table

@dataclass(frozen=True)
class Detection:
    """A documented class of input, a strategy with the one bug it shows, the check that must
    fail it (on ``case``; None: the check runs once per strategy)."""

    klass: str
    strategy: str
    check: str
    case: str | None = None

    @property
    def id(self) -> str:
        return f"{self.klass}-{self.strategy.rsplit(':', 1)[1]}-{self.check}"


D = Detection
Z = "tests.zoo.broken:"
M = f"{HERE}:"
DETECTIONS: list[Detection] = [
    # docs/authoring.md: ROUNDTRIP-002 fails "a strategy that trims strings" (each reference's copy;
    # a text format has no call_channel: ROUNDTRIP-001 carries its rendered calls)
    D("spaced-strings", M + "ChatTrimsStrings", "ROUNDTRIP-002"),
    D("spaced-strings", M + "ResponsesTrimsStrings", "ROUNDTRIP-002"),
    D("spaced-strings", Z + "AnthropicTrimsStringArguments", "ROUNDTRIP-002"),
    D("spaced-strings", M + "TextTrimsStrings", "ROUNDTRIP-001"),
    D("spaced-strings", M + "ChatTrimsEachFragment", "ROUNDTRIP-002"),
    # "a value spelling the wire's own delimiters"
    D("wire-delimiters", M + "ChatScrubsSseFraming", "ROUNDTRIP-002"),
    # "loses calls with unicode, nesting or empty arguments"; "nested, empty and null values"
    D("non-bmp", M + "ChatDropsAstralCharacters", "ROUNDTRIP-002"),
    D("empty-strings", M + "ChatDropsEmptyStrings", "ROUNDTRIP-002"),
    D("nested-empty", M + "ChatDropsEmptyContainers", "ROUNDTRIP-002"),
    D("null-values", M + "ChatDropsNulls", "ROUNDTRIP-002"),
    D("empty-arguments", Z + "TextRendersWithoutEmptyArguments", "ROUNDTRIP-001"),
    # "names of any spelling (unicode, dots, escapes cut in half)"
    D("name-spelling", Z + "ChatFormingNameSanitized", "NAME-002"),
    D("name-spelling", M + "TextFormingNameSanitized", "NAME-002"),
    # "re-keys calls"; ids where the rendering shows them
    D("re-keyed-calls", M + "ChatMergesCallsByName", "ROUNDTRIP-002"),
    D("re-keyed-calls", Z + "TextReadsNoIds", "ROUNDTRIP-001"),
    # "content_text the text written before them"
    D("leading-text", M + "ChatStripsContentText", "ROUNDTRIP-002"),
    # "parses arguments before they are whole", "escapes cut in half"
    D("partial-arguments", Z + "AnthropicParsesEachFragment", "ROUNDTRIP-002"),
    # PREFIX-002: "text codecs see every prefix"
    D("every-prefix", Z + "TextHealsCutOffCalls", "PREFIX-002"),
    # SPLIT-003 and NOISE-002 on a recorded stream
    D("shifted-cuts", Z + "TextStripsTagsPerChunk", "SPLIT-003", "text-json/syn-hermes-tag-split"),
    D("empty-pieces", M + "ChatRestartsOnEmptyArguments", "SPLIT-003", "openai-chat/tool-call-non-strict"),
    D("noise-burst", Z + "AnthropicRejectsUnknownEvents", "NOISE-002", "anthropic-messages/fallback-response"),
    # docs/authoring.md, "What the suite derives from your cases": checks without random draws,
    # shown here to fail the same in every profile
    D("cut-finish", Z + "ChatDoneOnCutFinish", "PREFIX-003", "openai-chat/tool-call-non-strict"),
    D("early-done", Z + "ChatDoneOnFinishKey", "PREFIX-001", "openai-chat/tool-call-non-strict"),
    D("spliced-turns", Z + "ChatContentMeansNoCalls", "SPLICE-001", "openai-chat/tool-call-non-strict"),
]
# the checks that draw at random: their failure must come from a fixed example
RANDOM_CHECKS = {"ROUNDTRIP-001", "ROUNDTRIP-002", "NAME-002", "PREFIX-002", "SPLIT-003", "NOISE-002"}
EXPLICIT_ONLY = settings(profiles.hypothesis_settings("ci"), phases=[Phase.explicit])
PROFILES = {"ci": profiles.hypothesis_settings("ci"), "dev": profiles.hypothesis_settings("dev"),
            "explicit-only": EXPLICIT_ONLY}


def _strategy(spec: str) -> Any:
    module, attr = spec.split(":")
    return getattr(importlib.import_module(module), attr)()


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("detection", DETECTIONS, ids=lambda d: d.id)
def test_documented_bug_fails_its_check_in_every_profile(detection: Detection, profile: str) -> None:
    """The check, run as the plugin runs it (the profile's hypothesis settings), fails the
    one-bug strategy under ``ci``, ``dev`` and with hypothesis's explicit phase only (no
    random draw at all); a check that draws at random fails it on a fixed example."""
    subject = Subject(_strategy(detection.strategy), CORPUS, settings={"hypothesis": PROFILES[profile]})
    case = next(c for c in CORPUS.cases if c.id == detection.case) if detection.case else None
    check = CHECKS[detection.check]
    assert check.applies(subject, case)
    with pytest.raises(Failure) as failed:
        check.run(subject, case)
    streams = detection.check in ("ROUNDTRIP-002", "SPLIT-003", "NOISE-002") or (
        detection.check == "NAME-002" and not subject.is_text)
    if streams:  # a stream's recipe names the fixed example it came from (a rendered text has none)
        assert "fixed example" in failed.value.detail, failed.value.detail


@pytest.fixture
def run_check(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Run the plugin in-process on one strategy and check; the node ids that failed. The
    bundled corpus is loaded (and validated) once for every run, not once a run."""
    monkeypatch.syspath_prepend(str(ROOT))
    bundled = plugin.load_corpus
    monkeypatch.setattr(plugin, "load_corpus", lambda dirs=(): CORPUS if not dirs else bundled(dirs))

    def run(d: Detection, profile: str) -> tuple[set[str], str]:
        args = ["-p", "no:cacheprovider", "-p", "no:randomly", "-q", "--mcs-only", f"--mcs-strategy={d.strategy}",
                f"--mcs-profile={profile}", f"--mcs-check={d.check}", "--mcs-timeout=60"]
        args += [f"--mcs-case={d.case}"] if d.case else []
        result = pytester.runpytest_inprocess(*args)
        reports = result.reprec.getreports("pytest_runtest_logreport")
        return {r.nodeid for r in reports if r.failed}, result.stdout.str()

    return run


TRIMMING = [d for d in DETECTIONS if d.klass == "spaced-strings"]


@pytest.mark.parametrize("profile", ["ci", "dev"])
@pytest.mark.parametrize("detection", TRIMMING, ids=lambda d: d.id)
def test_a_copy_of_each_reference_that_trims_strings_fails_under_the_plugin(detection: Detection, profile: str,
                                                                            run_check) -> None:
    """The issue's case end to end: ``--mcs-profile=ci`` and ``dev`` fail a string-trimming copy
    of every reference strategy (ROUNDTRIP-002; ROUNDTRIP-001 for the text codec)."""
    failed, output = run_check(detection, profile)
    assert failed == {f"mcs-conformance::{detection.check}[{_strategy(detection.strategy).name}]"}, output[-3000:]
    assert "fixed example 'spaced'" in output or detection.check == "ROUNDTRIP-001", output[-3000:]


def test_the_trimming_copies_cover_every_reference_strategy() -> None:
    names = {_strategy(d.strategy).name for d in TRIMMING}
    assert names == {"openai-chat", "openai-responses", "anthropic-messages", "text-json"}


def test_every_class_of_the_examples_has_a_detection() -> None:
    """Each class the fixed examples are named for is shown to fail a one-bug strategy."""
    shown = {d.klass for d in DETECTIONS if d.check in RANDOM_CHECKS}
    assert sorted(shown ^ (set(ex.CLASSES) | set(ex.RECHUNK_CLASSES))) == []
    # the other rows are of checks that draw nothing: no profile changes what they run
    assert not any(CHECKS[d.check].hypothesis for d in DETECTIONS if d.check not in RANDOM_CHECKS)
    # every hypothesis check but the two whose inputs are no calls or streams (arbitrary JSON
    # shapes, message orders: recog.py and chain.py draw them) runs the fixed examples
    assert {c for c, chk in CHECKS.items() if chk.hypothesis} - {"RECOG-001", "CHAIN-002"} == RANDOM_CHECKS


# -------------------------------------------------------------------------- the examples hold their classes

NATIVE = sorted(f for f, d in CORPUS.descriptors.items() if d.call_channel is not None)
RENDER = TextStrategy().render
WS = " \t\n\r\u00a0\u3000"


def _strings(value: Any) -> list[str]:
    """Every string of a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _values(value: Any) -> list[Any]:
    """Every value nested in a JSON value (the value itself first)."""
    if isinstance(value, dict):
        return [value, *(x for v in value.values() for x in _values(v))]
    if isinstance(value, list):
        return [value, *(x for v in value for x in _values(v))]
    return [value]


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(k for v in value.values() for k in _keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


def _holds(klass: str, calls: list[ToolCall], delimiters: list[str]) -> bool:
    """Do ``calls`` hold the input of ``klass`` (for a format with these delimiters)?"""
    args = [c.arguments for c in calls]
    strings = [s for a in args for s in _strings(a)]
    nested = [v for a in args for v in _values(a)[1:]]
    if klass == "spaced-strings":
        spaced = [s for s in strings if s.strip() and s[0] in WS and s[-1] in WS]
        return set(" \t\n") <= {s[0] for s in spaced} | {s[-1] for s in spaced}
    if klass == "wire-delimiters":
        return all(any(d in s and d != s for s in strings) and d in strings for d in delimiters if d)
    if klass == "non-bmp":
        return (any(ord(ch) > 0xFFFF for s in strings for ch in s) and any(ord(ch) > 0xFFFF for c in calls
                                                                           for ch in c.name))
    if klass == "empty-strings":
        return "" in strings and "" in [k for a in args for k in _keys(a)]
    if klass == "empty-arguments":
        return any(c.arguments == {} for c in calls)
    if klass == "nested-empty":
        return {} in nested and [] in nested and any(v in ({}, []) for a in args for x in _values(a)[1:]
                                                      if isinstance(x, (dict, list)) for v in _values(x)[1:])
    if klass == "null-values":
        return None in nested
    if klass == "name-spelling":
        return any("." in c.name or "-" in c.name for c in calls) and any(not c.name.isascii() for c in calls)
    if klass == "re-keyed-calls":
        names = [c.name for c in calls]
        return len(names) > len(set(names)) and len({json.dumps(c.arguments) for c in calls}) == len(calls)
    raise AssertionError(f"no predicate for {klass}")


# the classes of the calls themselves (the others are of how they are written, cut or carried)
CALL_CLASSES = [k for k in ex.CLASSES if k not in ("leading-text", "partial-arguments", "every-prefix")]


@pytest.mark.parametrize("klass", CALL_CLASSES)
@pytest.mark.parametrize("fmt", NATIVE)
def test_native_examples_hold_each_class(fmt: str, klass: str) -> None:
    descriptor = CORPUS.descriptors[fmt]
    made = ex.native_examples(descriptor)
    delimiters = native_delimiters(descriptor)
    assert any(_holds(klass, s.calls, delimiters) for s in made), (fmt, klass)
    named = [e for e in ex.CALLS if klass in e.covers]
    assert named and all(_holds(klass, e.build(delimiters), delimiters) for e in named), (klass, named)


@pytest.mark.parametrize("fmt", NATIVE)
def test_native_examples_are_written_whole_and_cut_at_every_character(fmt: str) -> None:
    """partial-arguments, leading-text: each example's arguments arrive whole in one delta and a
    character a delta, with \\u escapes among them; ids where the wire carries them, leading
    text with white space at its ends where it has a text part."""
    descriptor = CORPUS.descriptors[fmt]
    made = ex.native_examples(descriptor)
    assert len(made) == 2 * len(ex.CALLS)
    # a wire that sends a call whole ($ARGUMENTS, Gemini) has no argument text to cut
    whole_calls = "$ARGUMENTS" in json.dumps(descriptor.call_channel)
    for whole, cut in zip(made[::2], made[1::2]):
        assert whole.calls == cut.calls
        pieces = [t for chunk in cut.chunks for _, t in delta_sites(chunk, descriptor)]
        assert (pieces and max(map(len, pieces)) == 1) or (whole_calls and all(len(t) <= 1 for t in pieces)), fmt
        assert len(cut.chunks) > len(whole.chunks) or (whole_calls and not any(pieces))
        for call in whole.calls:
            if call.arguments and not whole_calls:
                assert any(json.dumps(call.arguments) in t or json.dumps(call.arguments, separators=(",", ":"),
                                                                          ensure_ascii=False) in t
                           for chunk in whole.chunks for _, t in delta_sites(chunk, descriptor)), (fmt, call.name)
    raw = "".join(t for s in made for chunk in s.chunks for _, t in delta_sites(chunk, descriptor))
    assert whole_calls or "\\ud83d\\ude00" in raw.lower()
    assert all(s.ids == template_ids(descriptor) for s in made)
    assert all((c.id is not None) == s.ids for s in made for c in s.calls)
    if "text" in descriptor.call_channel:
        texts = [s.text for s in made if s.text]
        assert any(t != t.strip() and t[0] in WS and t[-1] in WS for t in texts)
        assert any("data: " in t and "\n\n" in t for t in texts)
    else:
        assert all(s.text is None for s in made)


@pytest.mark.parametrize("klass", CALL_CLASSES)
def test_rendered_examples_hold_each_class(klass: str) -> None:
    delimiters = render_delimiters(RENDER)
    assert any(_holds(klass, calls, delimiters) for calls in ex.rendered_examples(RENDER)), klass
    assert all(c.id is None for calls in ex.rendered_examples(RENDER) for c in calls)


def test_text_carriage_examples_carry_each_example_whole_and_a_character_a_piece() -> None:
    wires = sorted(f for f, d in CORPUS.descriptors.items() if d.text_channel is not None)
    made = ex.text_carriage_examples(RENDER, wires)
    assert len(made) == 2 * len(ex.CALLS) * len(wires)
    for calls, fmt, pieces in made:
        assert fmt in wires and "".join(pieces) == RENDER(calls)
        assert len(pieces) in (1, len(RENDER(calls)))
    assert all(any(c.id for c in calls) for calls, _, _ in made)


def _stream_cases(fmt: str, with_empty: bool = False) -> list:
    d = CORPUS.descriptors[fmt]
    return [c for c in CORPUS.cases if c.format == fmt and c.chunks
            and (not with_empty or any(empty_allowed(ch, d, p) for ch in c.chunks for p, _ in delta_sites(ch, d)))]


@pytest.mark.parametrize("fmt", sorted(CORPUS.descriptors))
def test_rechunk_examples_shift_the_cuts_and_add_empty_pieces(fmt: str) -> None:
    """shifted-cuts, empty-pieces: the text of the stream is kept, the boundaries move."""
    descriptor = CORPUS.descriptors[fmt]
    case = max(_stream_cases(fmt), key=lambda c: len(c.chunks))
    made = ex.rechunk_examples(case.chunks, descriptor)
    names = [d.recipe[0] for d in made]
    assert "fixed example 'shifted-cuts'" in names, (fmt, names)

    def text(chunks):
        return "".join(t for ch in chunks for _, t in delta_sites(ch, descriptor))

    for d in made:
        assert text(d) == text(case.chunks) and list(d) != list(case.chunks)
    if any(empty_allowed(ch, descriptor, p) for ch in case.chunks for p, _ in delta_sites(ch, descriptor)):
        empty = next(d for d in made if d.recipe[0] == "fixed example 'empty-pieces'")
        assert any(t == "" for ch in empty for _, t in delta_sites(ch, descriptor))


@pytest.mark.parametrize("fmt", sorted(f for f, d in CORPUS.descriptors.items() if d.noise))
def test_noise_examples_insert_every_item_at_once(fmt: str) -> None:
    """noise-burst: every noise item of the levels asked for, early and late, in one stream each."""
    descriptor = CORPUS.descriptors[fmt]
    case, done = next((c, i) for c in _stream_cases(fmt) for i, ch in enumerate(c.chunks) if descriptor.is_done_chunk(ch))
    levels = ("must", "should")
    items = [i["chunk"] for i in descriptor.noise if i.get("level", "must") in levels]
    made = ex.noise_examples(case.chunks, descriptor, done, levels)
    assert len(made) == 2
    for d in made:
        assert len(d) == len(case.chunks) + len(items)
        assert all(d.count(item) >= case.chunks.count(item) + items.count(item) for item in items)
        assert [c for c in d if c not in items] == [c for c in case.chunks if c not in items]
    assert made[1][len(case.chunks):] == items
    assert ex.noise_examples(case.chunks, descriptor, done, ()) == []
    # a stream without its completion signal (a cut one) gets no end-of-stream sentinel
    ends = [i["chunk"] for i in descriptor.noise if i.get("position") == "end" and i.get("level", "must") in levels]
    for d in ex.noise_examples(case.chunks, descriptor, None, levels):
        assert len(d) == len(case.chunks) + len(items) - len(ends)


@pytest.mark.parametrize("fmt", sorted(ORACLE_MODULES))
def test_the_official_sdk_reads_back_every_native_example(fmt: str) -> None:
    """The fixed streams are ones the provider could send for exactly these calls (ROUNDTRIP-002
    is must): the official SDK's accumulator reads each back equal, written whole and cut at
    every character."""
    module = oracle_module(fmt)
    for drawn in ex.native_examples(CORPUS.descriptors[fmt]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            message = module.final_message(list(drawn.chunks))
        assert same(module.calls(message), calls_view(drawn.calls)), drawn.chunks.recipe
        assert module.content_text(message) == (drawn.text or ""), drawn.chunks.recipe
