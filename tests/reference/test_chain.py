import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcs_conformance import ExtractionChain
from tests.helpers.toy_strategies import BangText, ListWire


def test_resolve_first_match_and_promote():
    native, text = ListWire(), BangText()
    chain = ExtractionChain([native, text])
    assert chain.resolve("hello") is text
    assert chain.strategies == (text, native)
    assert chain.resolve({"toy": "x"}) is native
    assert chain.strategies[0] is native
    assert chain.resolve(42) is None


def test_duplicate_names_rejected():
    with pytest.raises(ValueError, match="share the name 'toy-text'"):
        ExtractionChain([BangText(), BangText()])


def test_recognizes_that_raises_claims_nothing():
    class Raising(BangText):
        name = "raising"

        def recognizes(self, shape):
            raise RuntimeError("boom")

    chain = ExtractionChain([Raising(), BangText()])
    assert chain.resolve("x").name == "toy-text"


@given(st.lists(st.one_of(st.text(max_size=5), st.builds(lambda t: {"toy": t}, st.text(max_size=3)), st.integers())))
def test_promotion_never_changes_a_result(shapes):
    promoting = ExtractionChain([ListWire(), BangText()])
    for shape in shapes:
        fixed = ExtractionChain([ListWire(), BangText()])  # fresh each time: no promotion history
        got, want = promoting.resolve(shape), fixed.resolve(shape)
        assert (got and got.name) == (want and want.name)
