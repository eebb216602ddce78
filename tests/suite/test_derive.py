"""derive.py: which chunks are head, body and completion; cut points and cut completions;
splices that shift positions, rename ids, renumber counters and join snapshot lists; and the
merge of neighbours whose last-value-wins keys differ (generators.join)."""

from __future__ import annotations

from mcs_conformance.corpus_tools.corpus import Descriptor, load_corpus
from mcs_conformance.suite.derive import (
    cut_completions,
    cut_points,
    parts,
    splice,
    splice_pairs,
    spliced_calls,
    with_calls,
    with_cut_completion,
)
from mcs_conformance.suite.generators import join, merged

CORPUS = load_corpus()


def _descriptor(**extra) -> Descriptor:
    data = {
        "format": "toy", "description": "toy", "chunk_kind": "object",
        "deltas": [{"path": ["delta"], "description": "text"}],
        "routing": [{"at": [], "keys": ["type", "index", "seq"]}], "terminal": [], "noise": [],
        "done": {"type": "object", "required": ["type"], "properties": {"type": {"const": "stop"}}},
        "roles": {"head": {"properties": {"type": {"const": "start"}}, "required": ["type"]},
                  "completion": {"properties": {"type": {"enum": ["end", "stop"]}}, "required": ["type"]}},
        "cut": [{"description": "cut", "set": [{"path": ["reason"], "value": "length"}]}],
        "splice": {"shift": [["index"]], "unique": [["id"]], "renumber": [["seq"]], "concat": [["all"]],
                   "same": [["turn"]]},
        **extra,
    }
    return Descriptor("toy", data, "test")


def _stream(turn: str, ids: list[str]) -> list[dict]:
    body = []
    for i, call_id in enumerate(ids):
        body += [{"type": "open", "index": i, "id": call_id, "seq": 0, "turn": turn},
                 {"type": "text", "index": i, "delta": f"{call_id}-text", "seq": 0}]
    return [{"type": "start", "turn": turn, "seq": 0}, *body,
            {"type": "end", "reason": "stop", "all": list(ids), "turn": turn, "seq": 0}, {"type": "stop", "seq": 0}]


def test_parts_find_head_body_and_completion() -> None:
    chunks = _stream("t1", ["a", "b"])
    assert parts(chunks, _descriptor()) == (1, 5)
    assert parts(chunks, _descriptor(roles={})) == (0, len(chunks))  # no roles: all body


def test_cut_points_are_every_chunk_before_the_completion_or_a_bounded_spread() -> None:
    d = _descriptor()
    assert cut_points(_stream("t", ["a", "b"]), d) == [0, 1, 2, 3, 4]
    long = _stream("t", [f"c{i}" for i in range(40)])
    points = cut_points(long, d, limit=10)
    assert 10 <= len(points) <= 11 and points[-1] == parts(long, d)[1] - 1 and points == sorted(set(points))


def test_a_cut_completion_sets_existing_values_in_completion_chunks_only() -> None:
    chunks = _stream("t", ["a"])
    (description, completion), = cut_completions(chunks, _descriptor())
    assert description == "cut" and completion[0]["reason"] == "length" and completion[1] == {"type": "stop", "seq": 0}
    assert chunks[-2]["reason"] == "stop"  # the source is untouched
    made = with_cut_completion(chunks, 1, description, completion)
    assert [c["type"] for c in made] == ["start", "open", "end", "stop"]
    assert made.recipe == ["cut after chunk 1 of 5", "closed with the cut completion: cut"]
    # nothing to set: no cut completion at all
    assert cut_completions(chunks, _descriptor(cut=[{"description": "x", "set": [{"path": ["nope"], "value": 1}]}])) == []


def test_splice_shifts_renames_renumbers_and_concatenates() -> None:
    d = _descriptor()
    made = splice(_stream("t1", ["a", "b"]), _stream("t2", ["a", "c"]), d)
    chunks = made.chunks
    assert [c["type"] for c in chunks] == ["start", "open", "text", "open", "text", "open", "text", "open", "text",
                                           "end", "stop"]
    assert [c["index"] for c in chunks if c["type"] == "open"] == [0, 1, 2, 3]
    assert [c["id"] for c in chunks if c["type"] == "open"] == ["a", "b", "a_2", "c"]
    assert made.renamed == {"a": "a_2"}
    assert [c["seq"] for c in chunks] == list(range(len(chunks)))
    assert chunks[-2]["all"] == ["a", "b", "a", "c"]  # the first's entries, then the second's (not an id pattern)
    assert {c["turn"] for c in chunks if "turn" in c} == {"t1"}
    assert any("shifted by 2" in r for r in chunks.recipe) and any("renamed" in r for r in chunks.recipe)


def test_a_string_wire_splice_is_the_two_texts() -> None:
    d = CORPUS.descriptors["text-json"]
    made = splice(["a", "b"], ["c"], d)
    assert list(made.chunks) == ["a", "b", "c"] and made.renamed == {}


def test_splice_pairs_are_few_deterministic_and_of_the_format() -> None:
    for fmt in ("openai-chat", "anthropic-messages", "openai-responses"):
        d = CORPUS.descriptors[fmt]
        for case in [c for c in CORPUS.cases if c.format == fmt and with_calls(c, d, fmt)]:
            pairs = splice_pairs(case, CORPUS.cases, d, fmt)
            assert 1 <= len(pairs) <= 3 and pairs == splice_pairs(case, list(reversed(CORPUS.cases)), d, fmt)
            assert all(a.format == b.format == fmt and case in (a, b) for a, b in pairs)
            assert all(c.provenance["source"] != "mcs-conformance" for pair in pairs for c in pair)


def test_spliced_calls_rename_the_second_cases_ids() -> None:
    case = CORPUS.case("openai-chat/tool-call-non-strict")
    want = spliced_calls(case, case, {case.expect["calls"][0]["id"]: "x_2"})
    assert [c["id"] for c in want] == [case.expect["calls"][0]["id"], "x_2"]


def test_a_last_value_wins_key_lets_neighbours_merge_and_takes_the_second_value() -> None:
    a = {"type": "text", "index": 0, "seq": 3, "delta": "ab", "pad": "xx"}
    b = {"type": "text", "index": 0, "seq": 4, "delta": "cd", "pad": "yyy"}
    plain = _descriptor()
    assert join(a, b, plain)[0] is None
    lvw = _descriptor(last_value_wins=[{"at": [], "keys": ["seq", "pad"]}])
    together, why = join(a, b, lvw)
    assert why == "" and together == {"type": "text", "index": 0, "seq": 4, "delta": "abcd", "pad": "yyy"}
    assert len(merged([a, b], lvw)) == 1


def test_the_bundled_responses_descriptor_now_merges_neighbouring_deltas() -> None:
    d = CORPUS.descriptors["openai-responses"]
    case = CORPUS.case("openai-responses/azure-tool-call-1")
    assert len(merged(case.chunks, d)) < len(case.chunks)
