"""How the generators cut, merge and add noise, format-free: routing keys per node of a
delta's path, pieces that keep the order of everything in the chunk, terminal keys on the
last piece, fill values, empty pieces only where a delta allows them, merges that lose,
double and move nothing, and the level of a noisy stream. The descriptors here are the
worked example of docs/descriptors.md (Gemini) and small ones written for one rule each;
tests/suite/test_generators_oracle.py checks the bundled formats against their official SDKs.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from mcs_conformance.corpus_tools.corpus import Descriptor
from mcs_conformance.suite.generators import (
    Derived,
    carry_text,
    char_split,
    delta_sites,
    join,
    merged,
    noise_places,
    noise_slots,
    rechunked,
    split_chunk,
    weakest,
    with_noise,
)
from mcs_conformance.suite.json_patterns import doc_order, find as find_paths, matches
from mcs_conformance.corpus_tools.schemas import errors as schema_errors

DOC = Path(__file__).resolve().parents[2] / "docs" / "descriptors.md"


def worked_example(name: str) -> str:
    """A block of docs/descriptors.md's worked example, by the name in its marker comment."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- worked-example: {re.escape(name)} -->\n```\w*\n(.*?)```", text, re.S)
    assert found, f"docs/descriptors.md has no worked-example block {name!r}"
    return found.group(1)


GEMINI_DATA = json.loads(worked_example("descriptors/gemini.json"))
GEMINI = Descriptor("gemini", GEMINI_DATA, "docs/descriptors.md")
GEMINI_CASE = json.loads(worked_example("cases/gemini/text-then-call.json"))


def descriptor(**fields: Any) -> Descriptor:
    data = {"format": "toy", "description": "a toy wire for one rule", "chunk_kind": "object", "deltas": [],
            "routing": [], "terminal": [], "noise": [], "done": False, **fields}
    assert schema_errors("descriptor", data) == [], schema_errors("descriptor", data)
    return Descriptor("toy", data, "test")


def parts_of(chunks: list[dict]) -> list[dict]:
    """A positional wire's message: every chunk's parts appended in order, neighbouring text
    parts of the same kind (answer or thought) joined, as a Gemini client does."""
    out: list[dict] = []
    for chunk in chunks:
        for part in chunk["candidates"][0]["content"]["parts"]:
            if out and "text" in part and "text" in out[-1] and part.get("thought") == out[-1].get("thought"):
                out[-1] = {**out[-1], "text": out[-1]["text"] + part["text"]}
            else:
                out.append(dict(part))
    return out


# -- the worked example ------------------------------------------------------------------------------

def test_the_worked_example_descriptor_and_case_are_valid() -> None:
    assert schema_errors("descriptor", GEMINI_DATA) == []
    assert schema_errors("case", GEMINI_CASE) == []


def test_a_split_keeps_a_call_part_after_the_text_it_followed() -> None:
    chunk = GEMINI_CASE["chunks"][1]
    (path, text), = delta_sites(chunk, GEMINI)
    pieces = split_chunk(chunk, GEMINI, path, [4, 8])
    assert [p["candidates"][0]["content"]["parts"] for p in pieces] == [
        [{"text": " the"}], [{"text": " wea"}],
        [{"text": "ther."}, {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
    ]
    for piece in pieces:  # routing at every level, on every piece
        assert {k: piece[k] for k in ("usageMetadata", "modelVersion", "responseId")} == \
               {k: chunk[k] for k in ("usageMetadata", "modelVersion", "responseId")}
        assert piece["candidates"][0]["index"] == 0 and piece["candidates"][0]["content"]["role"] == "model"


def test_finish_reason_ends_the_candidate_on_the_last_piece_only() -> None:
    chunk = copy.deepcopy(GEMINI_CASE["chunks"][2])
    chunk["candidates"][0]["content"]["parts"][0]["text"] = "Done."
    pieces = split_chunk(chunk, GEMINI, delta_sites(chunk, GEMINI)[0][0], [2])
    assert ["finishReason" in p["candidates"][0] for p in pieces] == [False, True]
    assert [GEMINI.is_done_chunk(p) for p in pieces] == [False, True]


_PART = st.one_of(
    st.builds(lambda t: {"text": t}, st.text(max_size=6)),
    st.builds(lambda t: {"text": t, "thought": True}, st.text(min_size=1, max_size=6)),
    st.just({"functionCall": {"name": "f", "args": {"a": 1}}}),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(_PART, min_size=1, max_size=5), data=st.data())
def test_any_split_of_a_chunk_of_parts_keeps_the_order_of_its_parts(parts: list[dict], data: st.DataObject) -> None:
    chunk = {"candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
             "modelVersion": "m", "responseId": "r"}
    sites = delta_sites(chunk, GEMINI)
    if not sites:
        return
    path, text = data.draw(st.sampled_from(sites))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=4)))
    pieces = split_chunk(chunk, GEMINI, path, cuts)
    assert len(pieces) == len(cuts) + 1
    # the parts come in the same order, and a thought part's pieces are all thought text
    assert parts_of(pieces) == parts_of([chunk])
    assert ["finishReason" in p["candidates"][0] for p in pieces] == [False] * len(cuts) + [True]
    assert parts_of(char_split([chunk], GEMINI)) == parts_of([chunk])


VERTEX = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {
    "partialArgs": [{"jsonPath": "$.recipe.ingredients[0].amount", "stringValue": "16 oz"}], "willContinue": True}}]}}],
    "usageMetadata": {"trafficType": "ON_DEMAND"}, "modelVersion": "gemini-3.1-pro-preview", "responseId": "tjXVaYaxFISTq8YP_MWiyAo"}


def test_will_continue_is_true_on_every_piece_but_the_last_which_keeps_its_own() -> None:
    (path, _), = delta_sites(VERTEX, GEMINI)
    pieces = split_chunk(VERTEX, GEMINI, path, [2, 3])
    args = [p["candidates"][0]["content"]["parts"][0]["functionCall"] for p in pieces]
    assert [a["partialArgs"][0].get("willContinue") for a in args] == [True, True, None]
    assert [a["willContinue"] for a in args] == [True, True, True]
    assert [a["partialArgs"][0]["jsonPath"] for a in args] == ["$.recipe.ingredients[0].amount"] * 3
    assert "".join(a["partialArgs"][0]["stringValue"] for a in args) == "16 oz"
    # merged back: the pieces say they go on, so they join, and the join takes the last one's end
    assert merged(pieces, GEMINI) == [VERTEX]
    ended = copy.deepcopy(VERTEX)
    ended["candidates"][0]["content"]["parts"][0]["functionCall"]["partialArgs"][0]["stringValue"] = "more"
    together, why = join(VERTEX, ended, GEMINI)
    assert together is None and "ends something" in why  # the first ended its value: nothing may follow


# -- routing per node ------------------------------------------------------------------------------------

FRAGMENT = {"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [
    {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"c\": 1}"}}]},
    "finish_reason": None}]}
ARGS = ["choices", "*", "delta", "tool_calls", "*", "function", "arguments"]


def test_routing_keys_apply_at_their_node_only() -> None:
    d = descriptor(deltas=[{"path": ARGS}],
                   routing=[{"at": [], "keys": ["id", "model"]}, {"at": ["choices", "*"], "keys": ["index"]},
                            {"at": ["choices", "*", "delta", "tool_calls", "*"], "keys": ["index"]}],
                   terminal=[{"at": ["choices", "*"], "keys": ["finish_reason"]}])
    first, *rest = split_chunk(FRAGMENT, d, delta_sites(FRAGMENT, d)[0][0], [2, 4])
    assert first["choices"][0]["delta"]["tool_calls"][0] == {
        "index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\""}}
    for piece in rest:
        assert piece["id"] == "chatcmpl-1" and piece["model"] == "m"
        assert piece["choices"][0]["delta"]["tool_calls"][0] == {"index": 0, "function": {"arguments": piece["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]}}
    assert ["finish_reason" in p["choices"][0] for p in [first, *rest]] == [False, False, True]


def test_the_flat_form_routes_a_key_at_every_node() -> None:
    d = descriptor(deltas=[{"path": ARGS}], routing=["id", "index"], terminal=["finish_reason"])
    pieces = split_chunk(FRAGMENT, d, delta_sites(FRAGMENT, d)[0][0], [3])
    assert [p["choices"][0]["delta"]["tool_calls"][0].get("id") for p in pieces] == ["call_1", "call_1"]
    assert [p.get("id") for p in pieces] == ["chatcmpl-1", "chatcmpl-1"]


def test_keys_after_the_delta_go_with_the_last_piece() -> None:
    d = descriptor(deltas=[{"path": ["delta"]}], routing=[{"at": [], "keys": ["type"]}])
    chunk = {"type": "t", "before": 1, "delta": "abc", "after": [1, 2]}
    assert split_chunk(chunk, d, ("delta",), [1, 2]) == [
        {"type": "t", "before": 1, "delta": "a"}, {"type": "t", "delta": "b"}, {"type": "t", "delta": "c", "after": [1, 2]}]


def test_a_fill_value_takes_the_place_of_a_key_on_the_other_pieces() -> None:
    d = descriptor(deltas=[{"path": ["delta"]}], routing=[{"at": [], "keys": ["type"]}],
                   fill=[{"at": [], "set": {"logprobs": []}}])
    chunk = {"type": "t", "delta": "abc", "logprobs": [{"token": "abc"}]}
    assert split_chunk(chunk, d, ("delta",), [1, 2]) == [
        {"type": "t", "delta": "a", "logprobs": []}, {"type": "t", "delta": "b", "logprobs": []},
        {"type": "t", "delta": "c", "logprobs": [{"token": "abc"}]}]
    # a piece holding only the fill value merges back
    assert merged(split_chunk(chunk, d, ("delta",), [1, 2]), d) == [
        {"type": "t", "delta": "abc", "logprobs": [{"token": "abc"}]}]


def test_every_delta_of_a_chunk_is_cut_at_every_character() -> None:
    d = descriptor(deltas=[{"path": ["choices", "*", "delta", "content"]}, {"path": ARGS}],
                   routing=[{"at": ["choices", "*"], "keys": ["index"]},
                            {"at": ["choices", "*", "delta", "tool_calls", "*"], "keys": ["index"]}])
    chunk = {"choices": [{"index": 0, "delta": {"content": "Hi!", "tool_calls": [
        {"index": 0, "function": {"name": "f", "arguments": "{}"}}, {"index": 1, "function": {"name": "g", "arguments": "[]"}}]}}]}
    out = char_split([chunk], d)
    assert isinstance(out, Derived) and len(out) == 3 + 2 + 2 - 2
    assert all(len(t) <= 1 for c in out for _, t in delta_sites(c, d))
    contents = [c["choices"][0]["delta"].get("content") for c in out]
    assert "".join(x for x in contents if x) == "Hi!"
    calls = [f for c in out for f in c["choices"][0]["delta"].get("tool_calls", [])]
    assert [(f["index"], f["function"].get("name"), f["function"]["arguments"]) for f in calls] == [
        (0, "f", "{"), (0, None, "}"), (1, "g", "["), (1, None, "]")]


# -- merging -----------------------------------------------------------------------------------------------

ANTHROPIC_LIKE = descriptor(
    deltas=[{"path": ["delta", "text"], "empty": True}],
    routing=[{"at": [], "keys": ["type", "index"]}, {"at": ["delta"], "keys": ["type"]}],
)


def _delta(text: str, index: int = 0, **extra: Any) -> dict:
    return {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}, **extra}


@settings(max_examples=100, deadline=None)
@given(text=st.text(min_size=1, max_size=20), data=st.data())
def test_merging_undoes_a_split_when_nothing_follows_the_delta(text: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=5)))
    pieces = split_chunk(_delta(text), ANTHROPIC_LIKE, ("delta", "text"), cuts)
    assert merged(pieces, ANTHROPIC_LIKE) == [_delta(text)]


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        (_delta("a"), _delta("b", index=1), "routing key $.index differs (0, then 1)"),
        (_delta("a"), {"type": "ping"}, "the second holds no delta"),
        (_delta("a"), _delta("b", note="x"), "the second holds $.note ('x'), which a merge would drop or double"),
        (_delta("a", after=1), _delta("b"), "the first holds $.after after its delta"),
        ({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "a"}}, _delta("b"),
         "routing key $.index is only on the second"),
    ],
)
def test_join_says_why_two_chunks_stay_apart(a: dict, b: dict, why: str) -> None:
    together, reason = join(a, b, ANTHROPIC_LIKE)
    assert together is None and reason.startswith(why), reason


def test_a_null_both_hold_is_no_obstacle_but_a_repeated_value_is() -> None:
    assert join(_delta("a", extra=None), _delta("b", extra=None), ANTHROPIC_LIKE)[0] == _delta("ab", extra=None)
    # an accumulator that concatenates every string would see "x" twice before a merge, once after
    assert join(_delta("a", role="x"), _delta("b", role="x"), ANTHROPIC_LIKE)[0] is None


def test_a_terminal_value_of_the_second_chunk_is_taken_and_one_of_the_first_stops_the_merge() -> None:
    d = descriptor(deltas=[{"path": ["choices", "*", "delta", "content"]}],
                   routing=[{"at": [], "keys": ["id"]}, {"at": ["choices", "*"], "keys": ["index"]}],
                   terminal=[{"at": ["choices", "*"], "keys": ["finish_reason"]}])

    def chunk(text: str, finish: str | None) -> dict:
        return {"id": "c", "choices": [{"index": 0, "delta": {"content": text}, "logprobs": None, "finish_reason": finish}]}

    assert join(chunk("a", None), chunk("b", "stop"), d)[0] == chunk("ab", "stop")
    together, why = join(chunk("a", "stop"), chunk("b", None), d)
    assert together is None and why == "the first ends something: $.choices[0].finish_reason is 'stop'"


# -- random re-chunking: empty pieces only where allowed -------------------------------------------------------

STREAM = [_delta("Hello"), _delta(" world"), {"type": "content_block_stop", "index": 0}]


def test_rechunking_makes_empty_pieces_where_the_delta_allows_them() -> None:
    def has_empty(chunks: Derived) -> bool:
        return any(t == "" for c in chunks for _, t in delta_sites(c, ANTHROPIC_LIKE))

    found = find(rechunked(STREAM, ANTHROPIC_LIKE), has_empty, settings=settings(database=None, max_examples=2000))
    assert any("split at" in step for step in found.recipe)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rechunking_never_makes_an_empty_piece_where_the_delta_does_not_allow_it(data: st.DataObject) -> None:
    d = descriptor(deltas=[{"path": ["delta", "text"]}], routing=ANTHROPIC_LIKE.data["routing"])
    chunks = data.draw(rechunked(STREAM, d))
    texts = [t for c in chunks for _, t in delta_sites(c, d)]
    assert "" not in texts and "".join(texts) == "Hello world"


# -- noise ---------------------------------------------------------------------------------------------------

NOISY = descriptor(
    deltas=[{"path": ["delta", "text"]}], routing=["type", "index"],
    noise=[{"description": "ping", "position": "after-first", "chunk": {"type": "ping"}},
           {"description": "another choice", "position": "anywhere", "chunk": {"type": "other"},
            "level": "reference", "why": "a client that asked for one choice never receives it"}],
    done={"type": "object", "required": ["type"], "properties": {"type": {"const": "content_block_stop"}}},
)


def test_noise_of_the_binding_levels_only_is_at_must_level() -> None:
    @settings(max_examples=50, deadline=None)
    @given(st.data())
    def run(data: st.DataObject) -> None:
        chunks = data.draw(with_noise(STREAM, NOISY, 2, levels=("must", "should")))
        assert chunks.level == "must" and {"type": "other"} not in chunks
        assert [c for c in chunks if c != {"type": "ping"}] == STREAM
        assert chunks.index({"type": "ping"}) >= 1 if {"type": "ping"} in chunks else True

    run()


def test_a_stream_with_a_reference_noise_item_is_at_reference_level() -> None:
    found = find(with_noise(STREAM, NOISY, 2), lambda c: {"type": "other"} in c, settings=settings(database=None))
    assert found.level == "reference" and any("another choice" in step for step in found.recipe)
    assert weakest(["must", "should"]) == "should" and weakest([]) == "must"


def test_noise_slots_follow_the_position() -> None:
    item = {"position": "after-done"}
    assert noise_slots(item, 5, 2) == range(3, 6)
    assert noise_slots(item, 5, None) == range(5, 6)
    assert noise_slots({"position": "anywhere"}, 5, 2) == range(0, 6)
    assert noise_slots({"position": "after-first"}, 0, None) == range(0, 1)
    # the end-of-stream sentinel: after the last chunk, never in a stream that was cut
    assert noise_slots({"position": "end"}, 5, 2) == range(5, 6)
    assert not noise_slots({"position": "end"}, 5, None)
    assert noise_places({"position": "end"}, 5, 2) == [5]
    assert noise_places({"position": "end"}, 5, None) == []
    assert noise_places(item, 5, 2) == [3, 4, 5]


# -- text channel, paths ---------------------------------------------------------------------------------------

def test_carry_text_fills_text_and_fulltext() -> None:
    d = descriptor(text_channel={"start": [{"s": "$TEXT"}], "delta": {"t": "$TEXT"}, "end": [{"all": "$FULLTEXT"}]})
    assert carry_text(["ab", "", "c"], d) == [{"s": ""}, {"t": "ab"}, {"t": ""}, {"t": "c"}, {"all": "abc"}]


def test_path_patterns_resolve_negative_indexes_and_tell_document_order() -> None:
    tree = {"b": [{"x": 1}, {"x": 2}], "a": {"y": "z"}}
    assert list(find_paths(tree, ["b", -1, "x"])) == [(("b", 1, "x"), 2)]
    assert matches(tree, ["b", "*"], ("b", 1)) and not matches(tree, ["b", "*"], ("b",))
    assert matches(tree, [{"where": {"x": {"in": [2, 3]}}}], ()) is False
    assert sorted([("a", "y"), ("b", 1), ("b", 0)], key=lambda p: doc_order(tree, p)) == [("b", 0), ("b", 1), ("a", "y")]
