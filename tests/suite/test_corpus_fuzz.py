"""Every stream case, re-chunked by its format descriptor (each delta split at every
character, neighbours merged, noise inserted), gives the reference implementation the
same message, calls, content text, done flag and error as the stream as recorded.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance.corpus_tools.corpus import Case
from mcs_conformance.suite.generators import char_split, merged, noise_places, with_noise
from tests.corpus_tools.test_corpus import CORPUS, reference_outcome

STREAMS = [c.id for c in CORPUS.cases if c.is_stream]
NOISY = [i for i in STREAMS if CORPUS.descriptors[CORPUS.case(i).format].noise]
COMPARED = ("message", "calls", "content_text", "done", "error")


def outcome(case: Case, chunks: list[Any]) -> dict[str, Any]:
    """The parts of the reference outcome that no re-chunking may change."""
    got = reference_outcome(case, chunks)
    return {k: got.get(k) for k in COMPARED}


def done_index(case: Case) -> int | None:
    descriptor = CORPUS.descriptors[case.format]
    return next((i for i, c in enumerate(case.chunks) if descriptor.is_done_chunk(c)), None)


def test_every_stream_case_has_a_descriptor_and_the_fuzzers_have_work() -> None:
    assert len(STREAMS) >= 40
    assert NOISY and set(NOISY) < set(STREAMS)
    # a case that raises (a malformed chunk, a provider error) may stop before any text
    wellformed = [i for i in STREAMS if CORPUS.case(i).raises is None]
    split = [i for i in wellformed
             if len(char_split(CORPUS.case(i).chunks, CORPUS.descriptors[CORPUS.case(i).format])) > len(CORPUS.case(i).chunks)]
    # nearly every stream has a delta longer than one character; a few deliver their text only
    # whole (a refusal, a completion or done event without deltas before it)
    assert len(split) >= 0.9 * len(wellformed), sorted(set(wellformed) - set(split))


@pytest.mark.parametrize("case_id", STREAMS)
def test_character_split_changes_nothing(case_id: str) -> None:
    case = CORPUS.case(case_id)
    chunks = char_split(case.chunks, CORPUS.descriptors[case.format])
    assert outcome(case, chunks) == outcome(case, case.chunks)


@pytest.mark.parametrize("case_id", STREAMS)
def test_merging_neighbours_changes_nothing(case_id: str) -> None:
    case = CORPUS.case(case_id)
    descriptor = CORPUS.descriptors[case.format]
    chunks = merged(case.chunks, descriptor)
    assert outcome(case, chunks) == outcome(case, case.chunks)
    # splitting everything and merging it back is the same stream again
    assert outcome(case, merged(char_split(case.chunks, descriptor), descriptor)) == outcome(case, case.chunks)


@pytest.mark.parametrize("case_id", NOISY)
def test_each_noise_item_inserted_changes_nothing(case_id: str) -> None:
    case = CORPUS.case(case_id)
    descriptor = CORPUS.descriptors[case.format]
    want = outcome(case, case.chunks)
    n, done = len(case.chunks), done_index(case)
    for item in descriptor.noise:
        for at in noise_places(item, n, done):
            chunks = case.chunks[:at] + [item["chunk"]] + case.chunks[at:]
            assert outcome(case, chunks) == want, f"noise {item['description']!r} at {at}"


@pytest.mark.parametrize("case_id", NOISY)
@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_noise_changes_nothing(case_id: str, data: st.DataObject) -> None:
    case = CORPUS.case(case_id)
    chunks = data.draw(with_noise(case.chunks, CORPUS.descriptors[case.format], done_index(case)))
    assert outcome(case, chunks) == outcome(case, case.chunks)
