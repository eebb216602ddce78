import pytest

from mcs_conformance import LLMStreamBuffer, MalformedChunk, UnrecognizedStream
from tests.helpers.toy_strategies import BangText, ListWire


def test_feed_accumulates_and_tracks_display():
    buf = LLMStreamBuffer([ListWire(), BangText()])
    assert buf.as_dict() is None
    assert buf.feed({"toy": "he"}) == "he"
    assert buf.feed({"toy": "llo", "end": True}) == "llo"
    assert buf.done
    assert buf.as_dict() == {"toy": "hello", "calls": []}
    assert buf.display_text == "hello"
    buf.reset()
    assert buf.as_dict() is None and buf.display_text == "" and not buf.done
    buf.feed("text wire")
    assert buf.as_dict() == "text wire"


def test_unrecognized_first_chunk_names_its_shape():
    buf = LLMStreamBuffer([ListWire()])
    with pytest.raises(UnrecognizedStream, match=r"toy-native.*dict with keys \['object'\].*object='mystery'"):
        buf.feed({"object": "mystery"})


def test_strategy_crash_becomes_malformed_chunk():
    buf = LLMStreamBuffer([ListWire()])
    buf.feed({"toy": "a"})
    with pytest.raises(MalformedChunk, match=r"toy-native: chunk 1 cannot be accumulated \(KeyError"):
        buf.feed({"unexpected": 1})


def test_non_str_delta_is_reported():
    class BadDelta(ListWire):
        def accumulate(self, acc, chunk):
            super().accumulate(acc, chunk)
            return None

    buf = LLMStreamBuffer([BadDelta()])
    with pytest.raises(MalformedChunk, match="returned NoneType, not str"):
        buf.feed({"toy": "a"})


def test_sdk_objects_are_read_wire_faithfully():
    pydantic = pytest.importorskip("pydantic")

    class Chunk(pydantic.BaseModel):
        toy: str
        extra: str | None = None

    buf = LLMStreamBuffer([ListWire()])
    buf.feed(Chunk(toy="x"))  # `extra` unset: not on the wire
    assert buf.as_dict() == {"toy": "x", "calls": []}
