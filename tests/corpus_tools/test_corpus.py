"""The bundled corpus: every case is valid, the manifest matches the files, the official SDK
accumulators agree with every native stream's expected message, and the reference
implementation agrees with every case. Also the ``corpus`` CLI and readable load errors.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mcs_conformance.reference.buffer import LLMStreamBuffer
from mcs_conformance.cli import main as cli
from mcs_conformance.corpus_tools.corpus import Case, CorpusError, bundled_corpus_dir, content_hash, load_corpus
from mcs_conformance.reference.errors import MCSError
from mcs_conformance.reference.extraction import extract_calls
from mcs_conformance.suite.invariants.base import native_view
from mcs_conformance.corpus_tools.oracles import ORACLE_MODULES, OracleUnavailable, oracle_module
from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.corpus_tools.schemas import errors as schema_errors
from mcs_conformance.reference.chain import ExtractionChain
from mcs_conformance.reference.strategies.text_formats import TEXT_FORMATS as _TEXT_FORMATS
from mcs_conformance.strategies import (
    BedrockStrategy,
    CohereStrategy,
    GeminiStrategy,
    OllamaStrategy,
    default_backup,
    default_chain,
)
from tests.helpers import realdata

ROOT = Path(__file__).resolve().parents[2]
CORPUS = load_corpus()
CASE_IDS = [c.id for c in CORPUS.cases]
STREAMS = [c.id for c in CORPUS.cases if c.is_stream]
# The Copilot recording rotates its ids, which the SDK accumulator refuses on purpose; its
# truth is the recording's own response.completed (see the case's description).
COPILOT = "openai-responses/github-copilot-id-rotation-1"
ORACLE_STREAMS = [c.id for c in CORPUS.cases if c.is_stream and c.format in ORACLE_MODULES and c.raises is None]
RUN_MANIFEST = "run `python scripts/update_manifest.py` after changing the corpus"

# Cases whose expected message the official SDK accumulator does not build, because the SDK
# has the very bug the case is about (or folds the shape differently on purpose, as the
# strategy's docstring says). For these the test asserts that the SDK really differs, so an
# entry cannot outlive the difference (a crash of the SDK counts as differing).
SDK_DIFFERS = {
    "openai-chat/syn-same-index-new-ids": "the SDK keys fragments by index only: two calls sent at index 0 merge "
                                          "into one get_weatherget_time call",
    "openai-chat/syn-calls-without-index": "the SDK needs an index on every tool-call fragment (it raises)",
    "openai-chat/syn-no-index-continuations": "the SDK needs an index on every tool-call fragment (it raises)",
    "openai-chat/syn-no-index-late-id": "the SDK needs an index on every tool-call fragment (it raises)",
    "openai-chat/syn-index-per-fragment-same-id": "the SDK keys fragments by index only: one call whose fragments "
                                                  "are numbered becomes three, with the arguments torn apart",
    "openai-chat/syn-first-call-at-index-1": "the SDK uses the index as a list position: a first call at index 1 "
                                             "makes it raise",
    "openai-chat/syn-name-on-every-fragment": "the SDK concatenates a name repeated on every fragment",
    "openai-chat/syn-id-on-every-fragment": "the SDK concatenates an id repeated on every fragment",
    "openai-chat/syn-role-on-every-delta": "the SDK concatenates a role repeated on every delta "
                                           "(assistantassistant...)",
    "openai-chat/syn-tool-calls-null-and-empty": "the SDK's final completion turns tool_calls: [] into null",
    "openai-chat/syn-function-null-fields": "the SDK assigns type: null over the call's type and asserts that "
                                            "function is not null (it raises)",
    "openai-chat/syn-function-null-before-id": "the SDK asserts that every fragment of a function call carries a "
                                               "function object (it raises)",
    "openai-chat/syn-name-pieces-then-whole": "the SDK concatenates the repeated name (get_weatherget_weather)",
    "anthropic-messages/syn-surrogate-halves-in-separate-deltas": "the SDK encodes each partial_json piece as "
                                                                  "UTF-8 on its own: a lone surrogate half raises",
    "anthropic-messages/syn-input-json-nan": "the SDK's jiter parse accepts NaN and keeps the input as an object",
    "anthropic-messages/syn-input-json-array": "the SDK keeps a tool input that is a JSON array as that array",
    "anthropic-messages/syn-usage-missing": "the SDK reads message_delta's usage unconditionally (it raises "
                                            "without one)",
    "anthropic-messages/syn-usage-and-container-at-the-end": "the SDK adds message_delta's usage to the "
                                                             "message_start usage it assumes (it raises without one)",
    "openai-chat/syn-index-as-text-or-float": "the SDK uses the index as a list position: a text or float index "
                                              "makes it raise",
    "anthropic-messages/syn-message-start-without-content": "the SDK appends to the content list it assumes (it "
                                                            "raises without one)",
    "anthropic-messages/syn-message-delta-without-delta": "the SDK reads message_delta's delta.stop_reason "
                                                          "unconditionally (it raises without one)",
    "anthropic-messages/syn-fallback-without-target": "the SDK reads the fallback block's to.model (it raises on "
                                                      "to: null)",
    "anthropic-messages/syn-empty-signature-delta-without-signature": "the SDK assigns the empty signature delta "
                                                                      "(\"signature\": \"\"); an empty delta "
                                                                      "leaves the block as it is",
    "anthropic-messages/syn-stream-cut-in-pretty-input-bad-value": "the SDK's partial parse of the open input "
                                                                   "raises on JSON that cannot be completed",
    "anthropic-messages/syn-stream-cut-in-input-leading-zero": "the SDK's partial parse of the open input raises "
                                                               "on JSON that cannot be completed",
    "anthropic-messages/syn-stream-cut-in-non-json-input": "the SDK's partial parse of the open input raises on "
                                                           "text that is no JSON",
    "anthropic-messages/syn-stream-cut-in-python-list-input": "the SDK's partial parse of the open input raises "
                                                              "on JSON that cannot be completed",
    "openai-responses/syn-item-events-by-item-id-only": "the SDK keys item events by output_index only: without one "
                                                        "it raises",
    "openai-responses/syn-item-done-by-item-id-new-item-id": "the SDK keys output_item.done by output_index only: "
                                                             "an index pointing nowhere adds the done item beside "
                                                             "the streamed one",
    "openai-responses/syn-item-added-without-output-index": "the SDK refuses the rotating response id and needs "
                                                            "output_index on output_item.added (it raises)",
    "openai-responses/syn-completed-without-created": "the SDK needs response.created first (it raises)",
    "openai-responses/syn-completed-without-created-output-null": "the SDK needs response.created first (it raises)",
    "openai-responses/syn-lifecycle-in-progress-first": "the SDK needs response.created first (it raises)",
    "openai-responses/syn-lifecycle-two-turns": "the SDK refuses a second response id (it raises)",
    "openai-responses/syn-lifecycle-in-progress-mid-stream-cut": "the SDK's snapshot keeps response.created's "
                                                                 "top-level fields and builds no reasoning summary "
                                                                 "from deltas",
    "openai-responses/syn-item-call-added-without-status-cut": "the SDK leaves a call item without status as sent; "
                                                               "the strategy marks it in_progress until its "
                                                               "output_item.done",
    "openai-responses/syn-completed-twice-second-without-output": "the SDK finds a repeated completion's output "
                                                                  "unfinished when it has none (it raises)",
    "openai-responses/syn-annotation-cut-part-without-lists": "the SDK's live snapshot applies no "
                                                              "output_text.annotation.added (annotations appear "
                                                              "only in the done item)",
    "openai-responses/syn-text-logprobs-cut": "the SDK's live snapshot applies no logprobs of output_text.delta",
    "openai-responses/syn-arguments-done-only-cut": "the SDK ignores function_call_arguments.done: its live call "
                                                    "keeps the added item's empty arguments",
    "openai-responses/syn-part-content-index-gap": "the SDK uses content_index as a list position: a first part at "
                                                   "content_index 1 makes it raise",
    "openai-chat/mistral-tool-call": "Mistral sends the call without index: the SDK needs one on every fragment (it "
                                     "raises)",
    "openai-chat/perplexity-text": "Perplexity repeats role on every delta: the SDK concatenates it "
                                   "(assistantassistant...)",
}

# Messages the SDK's own models read differently from the case (calls or content text): shapes
# its models do not type (malformed entries, content parts), that it does not check (role,
# Ollama's object arguments: it reads calls where no reference strategy claims the message),
# or JSON it accepts (NaN). Checked like SDK_DIFFERS: the SDK must really differ.
SDK_MODELS_DIFFER = {
    "openai-chat/msg-langchain-ai-message-not-claimed": "the SDK model ignores the LangChain keys and reads a call "
                                                        "without a function (reading it raises)",
    "openai-chat/msg-malformed-entry-not-object": "the SDK model takes a string entry for a call (reading it raises)",
    "openai-chat/msg-malformed-entry-without-function": "the SDK model has no function to read (reading it raises)",
    "openai-chat/msg-malformed-entry-without-name": "the SDK model reads a missing name as None and keeps the "
                                                    "arguments of a call without a name",
    "openai-chat/msg-arguments-absent-or-null": "the SDK model types arguments as a required string: a missing "
                                                "or null one is unusable",
    "openai-chat/msg-arguments-nan": "Python's json, which reads the SDK's argument strings, accepts NaN and "
                                     "Infinity",
    "openai-chat/msg-tool-calls-not-a-list": "the SDK model iterates the object's keys as calls (reading them raises)",
    "openai-chat/msg-ollama-shaped-not-claimed": "the SDK model reads the Ollama call (with unusable object "
                                                 "arguments) where no reference strategy claims the message",
    "openai-chat/msg-user-role-with-tool-calls-not-claimed": "the SDK model ignores the role and reads the user "
                                                             "message's call",
    "openai-chat/nonstream-mistral-reasoning": "the SDK model's content is a string: it returns Mistral's thinking "
                                               "and text parts as a list",
    "openai-chat/msg-content-parts-with-call": "the SDK model's content is a string: it returns the parts list, "
                                               "not their text",
    "openai-chat/msg-content-parts-with-refusal-part": "the SDK model's content is a string: it returns the parts "
                                                       "list, not their text",
    "openai-chat/msg-call-id-empty": "the SDK model keeps the empty id as \"\"; an empty id is no id",
    "openai-chat/syn-call-id-empty-throughout": "the SDK model keeps the empty ids as \"\"; an empty id is no id",
    "openai-chat/msg-tool-calls-beside-choices-not-claimed": "the SDK model ignores the envelope's choices and reads "
                                                             "its call",
    "openai-chat/msg-tool-calls-beside-object-not-claimed": "the SDK model ignores the envelope's object and reads "
                                                            "its call",
    "anthropic-messages/msg-tool-use-without-name": "the SDK model reads a missing name as None and keeps the "
                                                    "call's input",
    "anthropic-messages/msg-non-object-block-before-tool-use": "the SDK model cannot read a content entry that is "
                                                               "no block (reading it raises)",
    "openai-responses/msg-call-items-broken-every-way": "the SDK models read a missing name or call_id as None, "
                                                        "parse NaN, and keep object arguments",
    "openai-chat/msg-tool-calls-beside-delta-not-claimed": "the SDK model ignores the envelope's delta and reads "
                                                           "its call",
    "openai-responses/msg-call-items-non-string-name-and-call-id": "the SDK model cannot read a null output entry "
                                                                   "(it raises)",
    "anthropic-messages/msg-tool-use-id-and-name-numbers": "the SDK model reads the name 7 and the id 12345 as "
                                                           "they are",
    "anthropic-messages/msg-tool-use-id-number": "the SDK model reads the id 12345 as it is and the call as "
                                                 "executable; a call whose result cannot be sent back is never run",
    "anthropic-messages/msg-duplicate-tool-use-id": "the SDK model reads both blocks as calls; a second call with "
                                                    "the first's id cannot be answered apart from it",
    "openai-responses/syn-arguments-done-only-cut": "the SDK model parses the unfinished call's arguments; the "
                                                    "case's call, its item still in progress, is an error call "
                                                    "without them",
}


# -- what the reference implementation makes of a case ----------------------------------------
def view(calls: list[ToolCall] | list[dict] | tuple) -> list[dict[str, Any]]:
    """Calls as comparable dicts (name, arguments, id, whether they carry an error)."""
    out = []
    for c in calls:
        if isinstance(c, ToolCall):
            out.append({"name": c.name, "arguments": c.arguments, "id": c.id, "error": c.error is not None})
        else:
            out.append({"name": c["name"], "arguments": c["arguments"], "id": c.get("id"), "error": bool(c.get("error"))})
    return out


TEXT_FORMATS = {s.name: s for s in _TEXT_FORMATS}
# Native wires outside ADR-0001's default chain: a driver for one puts its strategy among the natives.
OTHER_NATIVES = {s.name: s for s in (CohereStrategy, GeminiStrategy, OllamaStrategy, BedrockStrategy)}


def reference_chain(case: Case) -> Any:
    """The default chain; for a case of an open model's text format, the chain of a text-mode
    driver for that format: the natives, then the format's reference strategy as the text one."""
    chain = default_chain()
    native = OTHER_NATIVES.get(case.format)
    if native is not None:
        return ExtractionChain([s for s in chain if s.name != "text-json"] + [native(), default_backup(chain)])
    text_format = TEXT_FORMATS.get(case.format)
    if text_format is None:
        return chain
    strategy = text_format()
    request = case.data.get("request")
    if request is not None:
        strategy = strategy.with_request(request)
    return ExtractionChain([s for s in chain if s.name != "text-json"] + [strategy])


def reference_outcome(case: Case, chunks: list[Any] | None = None) -> dict[str, Any]:
    """Feed the stream (or take the message) through the reference chain and extract as a driver does."""
    chain = reference_chain(case)
    out: dict[str, Any] = {}
    message = case.message
    if case.is_stream:
        buf = LLMStreamBuffer(reference_chain(case))
        try:
            for chunk in case.chunks if chunks is None else chunks:
                buf.feed(chunk)
        except MCSError as exc:
            return {"error": type(exc).__name__, "payload": getattr(exc, "payload", None)}
        message = buf.as_dict()
        out.update(message=message, done=buf.done, display=buf.display_text)
    backup = next(s for s in chain if s.name == case.format) if case.format in TEXT_FORMATS else default_backup(chain)
    ex = extract_calls(message, chain, backup)
    own = next(s for s in chain if s.name == case.format)
    if case.expect.get("via_backup") and ex.resolved is not None:
        own = ex.resolved  # a leak case of a text format: the text is the claiming native message's
    out.update(
        calls=view(ex.calls),
        content_text=own.content_text(message),
        claimed_by=ex.resolved.name if ex.resolved else None,
        extracted_by=ex.strategy.name if ex.strategy else None,
        via_backup=ex.via_backup,
    )
    return out


def by_id(case_id: str) -> Case:
    return CORPUS.case(case_id)


# -- the bundled corpus is valid ---------------------------------------------------------------
def test_every_bundled_case_validates_and_is_named_after_its_file() -> None:
    assert len(CORPUS.cases) >= 40
    for case in CORPUS.cases:
        assert schema_errors("case.schema.json", case.data) == [], case.id
        path = Path(case.source)
        assert path.parent.name == case.format and case.id == f"{case.format}/{path.stem}", case.source
        if case.is_stream:
            assert case.format in CORPUS.descriptors, case.id


def test_hand_written_cases_say_why() -> None:
    hand = [c for c in CORPUS.cases if c.id.split("/", 1)[1].startswith(("msg-", "syn-"))]
    assert len(hand) >= 30
    for case in hand:
        prov = case.provenance
        assert prov["kind"] in ("synthetic", "recorded"), case.id
        if prov["kind"] == "synthetic":
            assert len(prov["why"]) >= 10, case.id
        else:
            assert re.fullmatch(r"[0-9a-f]{40}", prov["commit"]), case.id
        assert case.id.split("/", 1)[1].startswith("syn-") == case.is_stream, case.id


def test_the_corpus_covers_the_routing_shapes() -> None:
    """The shapes the extraction axis must get right each have at least one case."""
    def some(pred) -> list[str]:
        return [c.id for c in CORPUS.cases if pred(c)]

    guards = some(lambda c: "guard" in c.tags and not c.is_stream)
    assert {c for c in guards if by_id(c).message.get("tool_calls") is None}, "a tool_calls: null guard"
    assert {c for c in guards if by_id(c).message.get("tool_calls") == []}, "a tool_calls: [] guard"
    for fmt in ("anthropic-messages", "openai-responses"):
        leaks = some(lambda c, f=fmt: c.format == f and c.expect.get("via_backup") and c.expect["calls"])
        assert any(by_id(i).is_stream for i in leaks) and any(not by_id(i).is_stream for i in leaks), fmt
    direct = some(lambda c: c.format == "openai-chat" and c.expect.get("claimed_by") == "text-json" and c.expect["calls"])
    assert any(by_id(i).is_stream for i in direct) and any(not by_id(i).is_stream for i in direct)
    assert some(lambda c: c.format == "text-json" and c.is_stream and c.expect["calls"])
    assert some(lambda c: any(call.get("error") for call in c.expect["calls"]) and not c.is_stream)
    for fmt in ("anthropic-messages", "openai-responses"):
        assert some(lambda c, f=fmt: c.format == f and c.raises == "StreamError" and c.expect["error"].get("payload"))


# -- corrupt case files ----------------------------------------------------------------------
GOOD = json.loads((bundled_corpus_dir() / "cases" / "text-json" / "msg-bare-call.json").read_text(encoding="utf-8"))


def write_case(root: Path, name: str, data: Any, fmt: str = "text-json") -> Path:
    path = root / "cases" / fmt / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def load_error(root: Path) -> str:
    with pytest.raises(CorpusError) as info:
        load_corpus([root], bundled=False)
    return str(info.value)


def test_good_case_loads_alone(tmp_path: Path) -> None:
    write_case(tmp_path, "ok.json", GOOD)
    corpus = load_corpus([tmp_path], bundled=False)
    assert [c.id for c in corpus.cases] == [GOOD["id"]]


def test_a_file_edited_after_a_load_is_validated_again(tmp_path: Path) -> None:
    """A file found valid is not checked twice in a process, but only while its text is the same."""
    path = write_case(tmp_path, "ok.json", GOOD)
    assert [c.id for c in load_corpus([tmp_path], bundled=False).cases] == [GOOD["id"]]
    data = copy.deepcopy(GOOD)
    del data["provenance"]
    path.write_text(json.dumps(data), encoding="utf-8")
    message = load_error(tmp_path)
    assert str(path) in message and "'provenance' is a required property" in message


def test_invalid_json_names_the_file_and_the_place(tmp_path: Path) -> None:
    path = write_case(tmp_path, "broken.json", '{"id": "text-json/broken",\n  "format": }')
    message = load_error(tmp_path)
    assert str(path) in message and "not valid JSON" in message and "line 2, column" in message


def test_missing_provenance_names_the_file_and_the_json_path(tmp_path: Path) -> None:
    data = copy.deepcopy(GOOD)
    del data["provenance"]
    path = write_case(tmp_path, "no-provenance.json", data)
    message = load_error(tmp_path)
    assert str(path) in message and "at $:" in message and "'provenance' is a required property" in message


def test_bad_nested_field_names_its_json_path(tmp_path: Path) -> None:
    data = copy.deepcopy(GOOD)
    data["expect"]["calls"][0]["arguments"] = "{}"
    path = write_case(tmp_path, "bad-arguments.json", data)
    message = load_error(tmp_path)
    assert str(path) in message and "at $.expect.calls[0].arguments" in message


def test_wrong_id_prefix_names_the_file_and_the_json_path(tmp_path: Path) -> None:
    path = write_case(tmp_path, "prefix.json", {**GOOD, "id": "openai-chat/msg-bare-call"})
    message = load_error(tmp_path)
    assert str(path) in message and "at $.id" in message and "'text-json'" in message


def test_duplicate_id_names_both_files(tmp_path: Path) -> None:
    first = write_case(tmp_path, "a.json", GOOD)
    second = write_case(tmp_path, "b.json", GOOD)
    message = load_error(tmp_path)
    assert str(first) in message and str(second) in message and GOOD["id"] in message


def test_stream_of_a_format_without_descriptor_names_the_missing_descriptor(tmp_path: Path) -> None:
    data = {**GOOD, "id": "my-wire/one", "format": "my-wire", "chunks": ["a"], "expect": {**GOOD["expect"], "message": "a"}}
    del data["message"]
    path = write_case(tmp_path, "one.json", data, fmt="my-wire")
    message = load_error(tmp_path)
    assert str(path) in message and "'my-wire'" in message and "descriptors/my-wire.json" in message


# -- the manifest ------------------------------------------------------------------------------
def _update_manifest_module() -> Any:
    spec = importlib.util.spec_from_file_location("update_manifest", ROOT / "scripts" / "update_manifest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_manifest_matches_the_files() -> None:
    manifest = json.loads((bundled_corpus_dir() / "manifest.json").read_text(encoding="utf-8"))
    count = manifest.get("cases")
    assert count == len(CORPUS.cases), f"the manifest counts {count} cases, the corpus has {len(CORPUS.cases)}: {RUN_MANIFEST}"
    assert manifest.get("hash") == content_hash([bundled_corpus_dir()]), f"the corpus files changed since the manifest was written: {RUN_MANIFEST}"
    kinds = Counter(c.provenance["kind"] for c in CORPUS.cases)
    assert manifest.get("by_kind") == dict(kinds), RUN_MANIFEST
    assert manifest["version"] == CORPUS.version


def test_update_manifest_computes_what_is_on_disk() -> None:
    manifest = json.loads((bundled_corpus_dir() / "manifest.json").read_text(encoding="utf-8"))
    assert _update_manifest_module().manifest(manifest["version"]) == manifest, RUN_MANIFEST


def test_changelog_has_an_entry_for_the_manifest_version() -> None:
    changelog = (bundled_corpus_dir() / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(CORPUS.version)}\b", changelog, re.MULTILINE)


# -- the official SDK accumulators agree with the expected messages -----------------------------
SDK_MODEL_CASES = [c.id for c in CORPUS.cases if c.format in ORACLE_MODULES and c.raises is None]


def _sdk(read: Any) -> Any:
    """What the SDK makes of something, or the error it raises (which differs from any case)."""
    try:
        return read()
    except OracleUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 -- a crash is one way of differing
        return exc


def test_sdk_difference_lists_name_cases_the_tests_run() -> None:
    assert sorted(set(SDK_DIFFERS) - set(ORACLE_STREAMS)) == []
    assert sorted(set(SDK_MODELS_DIFFER) - set(SDK_MODEL_CASES)) == []


@pytest.mark.parametrize("case_id", ORACLE_STREAMS)
def test_sdk_accumulator_agrees_with_expected_message(case_id: str) -> None:
    case = by_id(case_id)
    if case_id == COPILOT:
        completed = [c for c in case.chunks if isinstance(c, dict) and c.get("type") == "response.completed"]
        assert len(completed) == 1 and case.expect["message"] == completed[0]["response"]
        return
    if case_id in SDK_DIFFERS:
        got = _sdk(lambda: oracle_module(case.format).final_message(case.chunks))
        assert got != case.expect["message"], f"the SDK now builds the expected message: drop {case_id} from SDK_DIFFERS"
        return
    assert oracle_module(case.format).final_message(case.chunks) == native_view(case.expect["message"])


def _sdk_reading(case: Case) -> tuple[Any, Any]:
    """(content text, calls) as the SDK's models read the case's (expected) message."""
    oracle = oracle_module(case.format)
    message = case.final_message

    # the calls as the message reads: that its stream never finished is the buffer's done,
    # which the extraction axis applies (extract_calls(..., done=buf.done))
    return _sdk(lambda: oracle.content_text(message)), _sdk(lambda: view(oracle.calls(message)))


@pytest.mark.parametrize("case_id", SDK_MODEL_CASES)
def test_sdk_models_agree_with_expected_calls_and_text(case_id: str) -> None:
    """The SDK's own models read the expected message's calls and text as the case says
    (calls only when the native strategy extracts them: a leak's calls are in the text)."""
    case = by_id(case_id)
    calls = view(case.expect["calls"]) if case.expect.get("extracted_by") == case.format else []
    expected = (case.expect["content_text"], calls)
    got = _sdk_reading(case)
    if case_id in SDK_MODELS_DIFFER:
        assert got != expected, f"the SDK now reads the case as expected: drop {case_id} from SDK_MODELS_DIFFER"
        return
    assert not isinstance(got[0], Exception) and not isinstance(got[1], Exception), got
    assert got == expected


# -- the reference implementation agrees with every case -----------------------------------------
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_reference_implementation_agrees(case_id: str) -> None:
    case = by_id(case_id)
    got = reference_outcome(case)
    expect = case.expect
    if case.raises is not None:
        assert got.get("error") == case.raises, got
        if expect["error"].get("payload") is not None:
            assert got["payload"] == expect["error"]["payload"]
        return
    assert "error" not in got, got
    if case.is_stream:
        assert native_view(got["message"]) == native_view(expect["message"])  # PARITY (mcs_* annotations aside)
        assert got["done"] is expect["done"]
        assert got["display"] == expect["content_text"]
    assert got["calls"] == view(expect["calls"])
    assert got["content_text"] == expect["content_text"]
    assert (got["claimed_by"], got["extracted_by"], got["via_backup"]) == (
        expect.get("claimed_by"), expect.get("extracted_by"), bool(expect.get("via_backup"))
    )


# -- the corpus CLI ------------------------------------------------------------------------------
def test_corpus_list_shows_enough_cases_and_real_captures(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["corpus", "list"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"^[a-z0-9-]+/\S+\s", line)]
    kinds = Counter(row[1] for row in rows)
    assert len(rows) == len(CORPUS.cases) >= 40
    # real captures (recorded, or sanitized: a recording with its ids replaced) carry every native
    # wire, at least ten streams each. Hand-made cases pin what no recording shows (malformed
    # chunks, codec syntax, bug-class triggers), each with its why (the case schema requires it),
    # so their number is not bounded by the recordings'.
    real_streams = Counter(case.format for case in CORPUS.cases
                           if case.is_stream and case.provenance["kind"] in ("recorded", "sanitized"))
    assert all(real_streams[fmt] >= 10 for fmt in ("openai-chat", "openai-responses", "anthropic-messages")), \
        real_streams
    assert kinds["recorded"] >= 90
    summary = re.search(r"^(\d+) cases \((.*)\); corpus (\S+) (sha256:\w+)$", out, re.MULTILINE)
    assert summary and int(summary.group(1)) == len(rows) and summary.group(3) == CORPUS.version
    assert f"{kinds['recorded']} recorded" in summary.group(2)


def test_corpus_validate_bundled(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["corpus", "validate"]) == 0
    assert f"ok: {len(CORPUS.cases)} cases" in capsys.readouterr().out


def test_corpus_validate_corrupt_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = copy.deepcopy(GOOD)
    data["tags"] = "text-call"
    path = write_case(tmp_path, "bad-tags.json", data)
    assert cli(["corpus", "validate", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and str(path) in captured.err and "at $.tags" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_corpus_import_reproduces_the_recorded_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recorded = by_id("openai-chat/tool-calls-parallel-2")
    capture = realdata.path("openai-python/chat_stream/tool_calls_parallel_2__f82268f2fefd.sse")
    prov = recorded.provenance
    out = tmp_path / "case.json"
    argv = ["corpus", "import", "--format", "openai-chat", str(capture), "--id", recorded.id,
            "--description", recorded.description, "--source", prov["source"], "--license", prov["license"],
            "--commit", prov["commit"], "-o", str(out)]
    if "model" in prov:
        argv += ["--model", prov["model"]]
    for tag in recorded.tags:
        argv += ["--tag", tag]
    assert cli(argv) == 0
    assert "review expect" in capsys.readouterr().out
    imported = json.loads(out.read_text(encoding="utf-8"))
    assert schema_errors("case.schema.json", imported) == []
    assert imported["expect"] == recorded.expect
    assert imported["chunks"] == recorded.chunks
    # the facts a reader checks by eye in the capture: two calls, their names and ids
    text = capture.read_text(encoding="utf-8")
    for call in imported["expect"]["calls"]:
        assert f'"name":"{call["name"]}"' in text.replace(" ", "") and call["id"] in text
    assert len(imported["expect"]["calls"]) == 2


# -- where the SDK answers otherwise, the case says so ---------------------------------------
_SAYS_SO = ("accept", "levels")
# recorded cases whose expectation is the provider's own answer where the SDK has none
_PROVIDER_OVER_SDK = {"openai-responses/github-copilot-id-rotation-1": "the expected message is the recording's own "
                      "response.completed: the provider's answer, which the SDK cannot fold (rotating ids)"}


@pytest.mark.parametrize("case_id", sorted(set(SDK_DIFFERS) | set(SDK_MODELS_DIFFER)))
def test_a_case_the_sdk_answers_otherwise_says_where_the_sources_differ(case_id: str) -> None:
    """Where the official SDK gives another answer (or none), the case names the level of its
    own answer or lists the SDK's beside it (docs/spec.md, "How a case says where the sources
    differ"): a strategy that follows the SDK is never failed by the reference's taste alone."""
    case = by_id(case_id)
    assert any(key in case.expect for key in _SAYS_SO), f"{case_id}: add expect.accept or expect.levels"


def _read_as_error_by_the_sdk_stream(chunk: Any) -> bool:
    """openai 3.57.0 ``openai._streaming.Stream`` raises APIError on a payload with a truthy
    ``error``; anthropic 2.15.0 ``anthropic._streaming.Stream`` on an ``error`` event."""
    return isinstance(chunk, dict) and (bool(chunk.get("error")) or chunk.get("type") == "error")


RAISING_STREAMS = [c.id for c in CORPUS.cases if c.is_stream and c.format in ORACLE_MODULES and c.raises]


@pytest.mark.parametrize("case_id", RAISING_STREAMS)
def test_a_refusal_the_sdk_does_not_share_has_its_level(case_id: str) -> None:
    """A stream the case expects to be refused, but whose chunks the SDK's accumulator folds
    without complaint, says the level of that refusal (reference where refusing is only the
    reference's choice, should where a hazard makes it a safety rule)."""
    case = by_id(case_id)
    got = _sdk(lambda: oracle_module(case.format).final_message(case.chunks))
    if isinstance(got, Exception) or case_id in _PROVIDER_OVER_SDK:
        return
    if case.raises == "StreamError" and any(_read_as_error_by_the_sdk_stream(c) for c in case.chunks):
        return  # the SDK's stream reader raises before its accumulator sees the event
    assert "error" in case.expect.get("levels", {}), f"{case_id}: the SDK accepts this stream; give expect.levels.error"


MESSAGE_STREAMS = [c.id for c in CORPUS.cases if c.is_stream and c.format in ORACLE_MODULES and not c.raises]


@pytest.mark.parametrize("case_id", MESSAGE_STREAMS)
def test_a_stream_the_sdk_refuses_accepts_the_refusal(case_id: str) -> None:
    """Where the reference recovers a message from a stream the official SDK raises on, the
    SDK's error is an accepted answer (docs/spec.md, "Settled"): the case lists a refusal
    (``expect.accept`` with ``error``; the buffer reports the SDK's exception as MalformedChunk)."""
    case = by_id(case_id)
    got = _sdk(lambda: oracle_module(case.format).final_message(case.chunks))
    if not isinstance(got, Exception):
        return
    refusals = [a for a in case.expect.get("accept", ()) if "error" in a]
    assert refusals, f"{case_id}: the SDK raises {type(got).__name__} on this stream; accept the refusal in expect.accept"
