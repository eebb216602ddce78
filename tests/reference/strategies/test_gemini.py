"""The reference Gemini strategy (mcs_conformance/reference/strategies/gemini/): the folding of
GenerateContentResponse payloads into the stream=false body, Vertex AI's streamed arguments,
the reading of calls (ids, finish reasons, cut arguments), the replay, and refusals that name
the payload."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings

from mcs_conformance import LLMStreamBuffer, MalformedChunk, StreamError, ToolCall, ToolCallRecord
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.strategies import GeminiStrategy, default_chain
from mcs_conformance.suite.generators import json_values

CORPUS = load_corpus()
ENV = {"modelVersion": "gemini-2.5-flash", "responseId": "r1"}


def payload(*parts: dict, **candidate) -> dict:
    return {"candidates": [{"content": {"parts": list(parts), "role": "model"}, "index": 0, **candidate}], **ENV}


def fold(*chunks: object) -> tuple[LLMStreamBuffer, GeminiStrategy]:
    strategy = GeminiStrategy()
    buf = LLMStreamBuffer([strategy])
    for chunk in chunks:
        buf.feed(copy.deepcopy(chunk))
    return buf, strategy


def streamed(*items: dict, more: bool = True) -> dict:
    fc: dict = {"partialArgs": list(items)}
    if more:
        fc["willContinue"] = True
    return payload({"functionCall": fc})


def test_text_parts_join_and_a_signature_closes_the_part() -> None:
    buf, s = fold(payload({"text": "Hel"}), payload({"text": "lo", "thoughtSignature": "sig"}),
                  payload({"text": " again"}), payload({"text": ""}, finishReason="STOP"))
    parts = buf.as_dict()["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "Hello", "thoughtSignature": "sig"}, {"text": " again"}]
    assert buf.done and s.content_text(buf.as_dict()) == "Hello again" and buf.display_text == "Hello again"


def test_thought_text_stays_out_of_the_answer() -> None:
    buf, s = fold(payload({"text": "plan", "thought": True}), payload({"text": "answer"}),
                  payload({"text": ""}, finishReason="STOP"))
    assert buf.as_dict()["candidates"][0]["content"]["parts"] == [{"text": "plan", "thought": True}, {"text": "answer"}]
    assert s.content_text(buf.as_dict()) == "answer"


def test_a_whole_call_keeps_its_id_and_one_without_gets_none() -> None:
    buf, s = fold(payload({"functionCall": {"id": "c1", "name": "f", "args": {"a": 1}}},
                          {"functionCall": {"name": "f", "args": {"a": 2}}}),
                  payload({"text": ""}, finishReason="STOP"))
    calls = s.extract(buf.as_dict())
    assert [(c.name, c.arguments, c.id, c.error) for c in calls] == [("f", {"a": 1}, "c1", None), ("f", {"a": 2}, None, None)]


def test_streamed_arguments_fold_into_args_by_json_path() -> None:
    buf, s = fold(payload({"functionCall": {"name": "cook", "willContinue": True}, "thoughtSignature": "s"}),
                  streamed({"jsonPath": "$.recipe.items[0].name", "stringValue": "Egg", "willContinue": True}),
                  streamed({"jsonPath": "$.recipe.items[0].name", "stringValue": "s"}),
                  streamed({"jsonPath": "$.recipe.items[1]['odd key']", "numberValue": 2.5}),
                  streamed({"jsonPath": "$.recipe.ok", "boolValue": True}),
                  streamed({"jsonPath": "$.recipe.none", "nullValue": None}, more=False),
                  payload({"text": ""}, finishReason="STOP"))
    part = buf.as_dict()["candidates"][0]["content"]["parts"][0]
    assert part == {"functionCall": {"name": "cook", "args": {"recipe": {"items": [{"name": "Eggs"}, {"odd key": 2.5}],
                                                                          "ok": True, "none": None}}},
                    "thoughtSignature": "s"}
    assert s.extract(buf.as_dict())[0].error is None


def test_a_value_cut_mid_string_or_a_call_left_open_is_never_run() -> None:
    opened = payload({"functionCall": {"name": "f", "willContinue": True}})
    cut = streamed({"jsonPath": "$.city", "stringValue": "Par", "willContinue": True})
    finish = payload({"text": ""}, finishReason="STOP")
    for chunks in ([opened, cut, finish], [opened, cut, streamed(more=False)], [opened, finish],
                   [opened, cut, payload({"functionCall": {"name": "g", "args": {}}}), finish]):
        buf, s = fold(*chunks)
        assert "never ended" in (s.extract(buf.as_dict())[0].error or ""), chunks
    buf, s = fold(opened, streamed({"jsonPath": "$.city", "stringValue": "Paris"}),
                  payload({"functionCall": {"name": "g", "args": {}}}), finish)
    assert [c.executable for c in s.extract(buf.as_dict())] == [True, True]  # a name ends the open call


@pytest.mark.parametrize("reason,runs", [("STOP", True), ("MAX_TOKENS", False), ("SAFETY", False), (None, False)])
def test_only_a_stop_finish_makes_calls_executable(reason: str | None, runs: bool) -> None:
    finish = payload({"text": ""}, **({"finishReason": reason} if reason else {}))
    buf, s = fold(payload({"functionCall": {"name": "f", "args": {}}}), finish)
    assert [c.executable for c in s.extract(buf.as_dict())] == [runs]
    assert buf.done is (reason is not None)


def test_envelope_keys_take_the_last_value() -> None:
    first = {**payload({"text": "a"}), "usageMetadata": {"totalTokenCount": 3}}
    last = {**payload({"text": "b"}, finishReason="STOP"), "usageMetadata": {"totalTokenCount": 9}}
    buf, _ = fold(first, last)
    assert buf.as_dict()["usageMetadata"] == {"totalTokenCount": 9} and buf.as_dict()["responseId"] == "r1"


def test_an_error_payload_raises_stream_error_with_it() -> None:
    error = {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}
    with pytest.raises(StreamError) as info:
        fold(payload({"text": "a"}), error)
    assert info.value.payload == error and "RESOURCE_EXHAUSTED" in str(info.value)


@pytest.mark.parametrize("bad,names", [
    ("not an object", "payload must be a JSON object"),
    ({"candidates": {"content": {}}}, "candidates is not a list"),
    (payload({"text": 42}), "parts[0].text is not a string"),
    ({"candidates": [{"content": {"parts": {"text": "a"}}}]}, "content.parts is not a list"),
    (payload({"functionCall": "f"}), "functionCall is not an object"),
    (streamed({"jsonPath": "$.a", "stringValue": "x"}), "continues no streamed call"),
    (payload({"functionCall": {"name": "f", "partialArgs": [{"jsonPath": "a"}]}}), "jsonPath 'a'"),
    (payload({"functionCall": {"name": "f", "partialArgs": [{"jsonPath": "$.a", "numberValue": "1"}]}}),
     "numberValue is not a number"),
])
def test_a_malformed_payload_is_refused_naming_it(bad: object, names: str) -> None:
    with pytest.raises(MalformedChunk) as info:
        fold(payload({"text": "a"}), bad)
    assert names in str(info.value) and str(info.value).startswith("gemini: ")


@settings(max_examples=150, derandomize=True, deadline=None)
@given(junk=json_values())
def test_junk_after_a_payload_raises_only_documented_errors(junk: object) -> None:
    buf = LLMStreamBuffer([GeminiStrategy()])
    buf.feed(payload({"functionCall": {"name": "f", "willContinue": True}}))
    try:
        buf.feed(junk)
    except (MalformedChunk, StreamError):
        pass
    buf.as_dict()


def test_recognition_claims_gemini_shapes_and_no_others() -> None:
    s = GeminiStrategy()
    assert s.recognizes(payload({"text": "a"})) and s.recognizes({"error": {"code": 500, "status": "INTERNAL"}})
    assert s.recognizes({"role": "model", "parts": [{"text": "a"}]})
    for other in ({"type": "message_start", "message": {}}, {"object": "chat.completion.chunk", "choices": []},
                  {"error": {"message": "x", "type": "server_error"}}, {"role": "assistant", "content": "a"}, "text"):
        assert not s.recognizes(other), other
    # the default chain's strategies leave Gemini payloads alone
    assert not any(x.recognizes(payload({"text": "a"})) for x in default_chain() if x.name != "text-json")


def test_the_replay_keeps_signatures_and_pairs_results_by_id_or_by_name_and_arguments() -> None:
    buf, s = fold(payload({"text": "Let me see.", "thoughtSignature": "t"},
                          {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "u"},
                          {"functionCall": {"id": "c2", "name": "g", "args": {}}}),
                  payload({"text": ""}, finishReason="STOP"))
    message = buf.as_dict()
    f, g = s.extract(message)
    history = s.result_messages(message, [ToolCallRecord(g, "late", is_error=True), ToolCallRecord(f, "ok")])
    assert history == [
        {"role": "model", "parts": [{"text": "Let me see.", "thoughtSignature": "t"},
                                    {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "u"},
                                    {"functionCall": {"name": "g", "args": {}, "id": "c2"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "ok"}}},
                                   {"functionResponse": {"name": "g", "response": {"error": "late"}, "id": "c2"}}]}]
    assert [c.name for c in s.extract(history[0])] == ["f", "g"]  # the replayed turn reads back
    with pytest.raises(ValueError, match="answers no functionCall"):
        s.result_messages(message, [ToolCallRecord(ToolCall("h", {}), "x")])
    with pytest.raises(ValueError):
        s.result_messages(message, [ToolCallRecord(f, "1"), ToolCallRecord(f, "2")])


@pytest.mark.parametrize("case", [c for c in CORPUS.cases if c.format == "gemini" and c.is_stream and c.raises is None],
                         ids=lambda c: c.id)
def test_every_bundled_stream_folds_as_its_case_says_fed_one_piece_at_a_time(case) -> None:
    buf, s = fold(*case.chunks)
    assert buf.as_dict() == case.expect["message"] and buf.done is case.expect["done"]
    assert s.content_text(buf.as_dict()) == case.expect["content_text"]
