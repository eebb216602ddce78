"""The generators keep the official SDK's answer: for every format with an SDK oracle and every
bundled stream case that oracle accumulates, the SDK's message on a generated stream (every
delta split at every character, neighbours merged, random re-chunkings with empty pieces,
noise of the must and should levels, text carried in the text channel) equals its message on
the source stream. A noise item that cannot keep it is marked ``reference`` in its
descriptor, and the test proves that the SDK really differs on it somewhere.
"""

from __future__ import annotations

import os
import warnings
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.suite.generators import (
    carry_text,
    char_split,
    merged,
    noise_level,
    noise_places,
    noise_slots,
    rechunked,
    with_noise,
)
from mcs_conformance.corpus_tools.oracles import ORACLE_MODULES, OracleUnavailable, oracle_for, oracle_module

# the SDKs' pydantic models warn when they serialize the odd values some cases hold on purpose
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CORPUS = load_corpus()
# hypothesis examples per case and random generator; MCS_GENERATOR_EXAMPLES=200 for a thorough run
EXAMPLES = int(os.environ.get("MCS_GENERATOR_EXAMPLES", "6"))
SETTINGS = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def sdk(fmt: str, chunks: list[Any]) -> tuple[str, Any]:
    """The SDK's message for a stream, or the kind of error it raises (a crash is an answer too)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "message", oracle_for(fmt)(chunks)
    except OracleUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001
        return "raises", type(exc).__name__


@lru_cache(maxsize=None)
def source(case_id: str) -> tuple[str, Any]:
    case = CORPUS.case(case_id)
    return sdk(case.format, case.chunks)


ACCEPTED = [c.id for c in CORPUS.cases
            if c.is_stream and c.format in ORACLE_MODULES and source(c.id)[0] == "message"]
NOISY = [i for i in ACCEPTED if any(noise_level(n) != "reference" for n in CORPUS.descriptors[CORPUS.case(i).format].noise)]


def _case(case_id: str) -> tuple[Any, Any]:
    case = CORPUS.case(case_id)
    return case, CORPUS.descriptors[case.format]


def _done(case: Any, descriptor: Any) -> int | None:
    return next((i for i, c in enumerate(case.chunks) if descriptor.is_done_chunk(c)), None)


def test_the_sdks_accept_most_bundled_streams() -> None:
    for fmt in ORACLE_MODULES:
        assert sum(CORPUS.case(i).format == fmt for i in ACCEPTED) >= 40, fmt


@pytest.mark.parametrize("case_id", ACCEPTED)
def test_character_split_keeps_the_sdk_message(case_id: str) -> None:
    case, d = _case(case_id)
    assert sdk(case.format, char_split(case.chunks, d)) == source(case_id)


@pytest.mark.parametrize("case_id", ACCEPTED)
def test_merging_keeps_the_sdk_message(case_id: str) -> None:
    case, d = _case(case_id)
    assert sdk(case.format, merged(case.chunks, d)) == source(case_id)
    assert sdk(case.format, merged(char_split(case.chunks, d), d)) == source(case_id)


@pytest.mark.parametrize("case_id", ACCEPTED)
@SETTINGS
@given(data=st.data())
def test_random_rechunking_keeps_the_sdk_message(case_id: str, data: st.DataObject) -> None:
    case, d = _case(case_id)
    chunks = data.draw(rechunked(case.chunks, d))
    assert sdk(case.format, chunks) == source(case_id), chunks.recipe


@pytest.mark.parametrize("case_id", NOISY)
def test_each_binding_noise_item_keeps_the_sdk_message(case_id: str) -> None:
    case, d = _case(case_id)
    n = len(case.chunks)
    for item in d.noise:
        if noise_level(item) == "reference":
            continue
        for at in noise_places(item, n, _done(case, d)):
            chunks = case.chunks[:at] + [item["chunk"]] + case.chunks[at:]
            assert sdk(case.format, chunks) == source(case_id), f"{item['description']!r} at {at}"


@pytest.mark.parametrize("case_id", NOISY)
@SETTINGS
@given(data=st.data())
def test_random_binding_noise_keeps_the_sdk_message(case_id: str, data: st.DataObject) -> None:
    case, d = _case(case_id)
    chunks = data.draw(with_noise(case.chunks, d, _done(case, d), levels=("must", "should")))
    assert chunks.level in ("must", "should")
    assert sdk(case.format, chunks) == source(case_id), chunks.recipe


REFERENCE_NOISE = [(fmt, item["description"]) for fmt in ORACLE_MODULES
                   for item in CORPUS.descriptors[fmt].noise if noise_level(item) == "reference"]


@pytest.mark.parametrize(("fmt", "description"), REFERENCE_NOISE)
def test_a_reference_noise_item_is_one_the_sdk_does_not_ignore(fmt: str, description: str) -> None:
    """A noise item is marked ``reference`` only while the SDK's message changes with it on
    some bundled stream at some place it may go (else the mark must go)."""
    descriptor = CORPUS.descriptors[fmt]
    item = next(i for i in descriptor.noise if i["description"] == description)
    assert item.get("why"), "a reference noise item says why"
    for case_id in (i for i in ACCEPTED if CORPUS.case(i).format == fmt):
        case = CORPUS.case(case_id)
        for at in noise_slots(item, len(case.chunks), _done(case, descriptor)):
            if sdk(fmt, case.chunks[:at] + [item["chunk"]] + case.chunks[at:]) != source(case_id):
                return
    pytest.fail(f"the SDK ignores {description!r} wherever it may go: it is no reference-level item")


@pytest.mark.parametrize("fmt", sorted(ORACLE_MODULES))
@SETTINGS
@given(pieces=st.lists(st.text(max_size=12), min_size=1, max_size=6))
def test_text_carried_in_pieces_gives_the_sdk_the_whole_text(fmt: str, pieces: list[str]) -> None:
    descriptor = CORPUS.descriptors[fmt]
    text = "".join(pieces)
    kind, message = sdk(fmt, carry_text(pieces, descriptor))
    assert (kind, message) == sdk(fmt, carry_text([text], descriptor))
    assert kind == "message" and oracle_module(fmt).content_text(message) == text
