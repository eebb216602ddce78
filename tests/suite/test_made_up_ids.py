"""made_up_ids: which ids count as made up by the client, and how comparisons treat them."""

from __future__ import annotations

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.suite.made_up_ids import made_up_ids, masked, settled

CORPUS = load_corpus()
EMPTY = CORPUS.case("openai-chat/syn-call-id-empty-throughout")
CLASH = CORPUS.case("openai-chat/msg-made-up-id-clash")
REAL = CORPUS.case("openai-chat/tool-calls-parallel-2")


def _calls(case, *ids):
    return [{**c, "id": i} for c, i in zip(case.expect["calls"], ids)]


def test_an_id_for_a_call_the_case_has_without_one_is_made_up() -> None:
    assert made_up_ids(EMPTY, _calls(EMPTY, "call_a", "call_b")) == {"call_a": 0, "call_b": 1}


def test_an_id_of_a_call_the_case_does_not_have_is_made_up() -> None:
    assert made_up_ids(EMPTY, _calls(EMPTY, None, None) + [{"name": "x", "id": "call_c"}]) == {"call_c": 2}


def test_a_real_id_corrupted_or_replaced_is_never_made_up() -> None:
    real = [c["id"] for c in REAL.expect["calls"]]
    assert real and all(real)
    assert made_up_ids(REAL, _calls(REAL, real[0] + real[0], "call_new")) == {}


def test_an_id_the_input_holds_or_two_calls_share_is_never_made_up() -> None:
    assert made_up_ids(CLASH, _calls(CLASH, "call_mcs_1", "call_mcs_1")) == {}
    assert made_up_ids(EMPTY, _calls(EMPTY, "call_x", "call_x")) == {}


def test_settled_puts_the_case_s_no_id_back_and_leaves_the_rest() -> None:
    ids = {"call_a": 0}
    want = {"tool_calls": [{"id": "", "function": {"name": "f"}}]}
    got = {"tool_calls": [{"id": "call_a", "function": {"name": "g"}}]}
    assert settled(got, want, ids) == {"tool_calls": [{"id": "", "function": {"name": "g"}}]}
    assert settled({"id": "call_a"}, {}, ids) == {}  # a key the case's message does not have
    assert settled({"id": "call_a"}, {"id": "call_real"}, ids) == {"id": "call_a"}  # the case has an id there


def test_masked_writes_each_made_up_id_as_its_call_s_placeholder() -> None:
    one = masked({"calls": [{"id": "call_a"}], "message": {"x": ["call_a", "call_b"]}}, {"call_a": 0})
    other = masked({"calls": [{"id": "call_z"}], "message": {"x": ["call_z", "call_b"]}}, {"call_z": 0})
    assert one == other == {"calls": [{"id": "<id made up for call 0>"}],
                            "message": {"x": ["<id made up for call 0>", "call_b"]}}
