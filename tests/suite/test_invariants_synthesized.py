"""ROUNDTRIP-002 and NAME-002: what they accept, what they refuse, and when they apply.

The zoo (tests/zoo) proves that each fails a realistic broken strategy and passes the
reference; these tests pin the rule of forming_name growth and the failures' wording.
"""

from __future__ import annotations

import copy

import pytest

from mcs_conformance.corpus_tools.corpus import Descriptor, load_corpus
from mcs_conformance.suite.invariants import CHECKS, Failure
from mcs_conformance.suite.invariants.base import Subject
from mcs_conformance.suite.invariants.synthesized import growth_problem
from mcs_conformance.suite.profiles import hypothesis_settings
from mcs_conformance.strategies import OpenAIChatStrategy, TextStrategy

CORPUS = load_corpus()


def _subject(strategy: object, corpus=CORPUS) -> Subject:
    return Subject(strategy, corpus, settings={"hypothesis": hypothesis_settings("ci")})


def _readings(*names: str | None) -> list[tuple[str, str | None]]:
    return [(f"after chunk {i}", n) for i, n in enumerate(names)]


@pytest.mark.parametrize(("names", "final", "problem"), [
    ((None, "", "get", "get_weather"), "get_weather", None),
    ((None, None), None, None),
    ((None, "get_weather", "get_weather"), "get_weather", None),
    (("get", "got"), "get_weather", (1, "went from 'get' to 'got' after chunk 1: it must only grow")),
    (("get", None), "get_weather", (1, "went from 'get' to None after chunk 1: it must only grow")),
    (("set",), "get_weather", (0, "'set' after chunk 0 is not a prefix of the first call's name 'get_weather'")),
    (("get",), "get_weather", (1, "at the end of the stream is 'get', not the first call's name 'get_weather'")),
    (("f",), None, (0, "is 'f' after chunk 0 on a stream with no named call")),
])
def test_forming_name_only_grows_as_a_prefix_and_ends_at_the_name(names, final, problem) -> None:
    got = growth_problem(_readings(*names), final)
    if problem is None:
        assert got is None
    else:
        assert got is not None and got[0] == problem[0] and problem[1] in got[1]


class _NeverDone(OpenAIChatStrategy):
    def is_done(self, chunk: object) -> bool:
        return False


class _ShoutedName(TextStrategy):
    def forming_name(self, message: object) -> str | None:
        name = super().forming_name(message)
        return name.upper() if name else name


def test_roundtrip_002_says_when_the_completion_signal_never_came() -> None:
    with pytest.raises(Failure, match="is_done never fired"):
        CHECKS["ROUNDTRIP-002"].run(_subject(_NeverDone()), None)


def test_name_002_reads_a_rendered_text_at_every_character() -> None:
    with pytest.raises(Failure, match="on a rendered text: forming_name .* at character"):
        CHECKS["NAME-002"].run(_subject(_ShoutedName()), None)


def test_they_apply_to_native_wires_with_a_call_channel_and_to_renderers() -> None:
    roundtrip, name = CHECKS["ROUNDTRIP-002"], CHECKS["NAME-002"]
    native, text = _subject(OpenAIChatStrategy()), _subject(TextStrategy())
    assert roundtrip.applies(native, None) and name.applies(native, None)
    assert not roundtrip.applies(text, None) and name.applies(text, None)
    stripped = copy.copy(CORPUS)
    data = copy.deepcopy(CORPUS.descriptors["openai-chat"].data)
    del data["call_channel"]
    object.__setattr__(stripped, "descriptors", {**CORPUS.descriptors, "openai-chat": Descriptor("openai-chat", data, "t")})
    without = _subject(OpenAIChatStrategy(), stripped)
    assert not roundtrip.applies(without, None) and not name.applies(without, None)
