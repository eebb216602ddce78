"""The marks the suite puts on a strategy's exceptions: the first stays, and they are found on
an exception raised from or during the marked one."""

from __future__ import annotations

import pytest

from mcs_conformance.suite.exception_marks import mark, marked


def test_the_first_mark_stays() -> None:
    exc = ValueError("x")
    mark(exc, "_m", "accumulate")
    mark(exc, "_m", "extract")
    assert marked(exc, "_m") == "accumulate"
    assert marked(exc, "_other") is None and marked(None, "_m") is None


@pytest.mark.parametrize("how", ["cause", "context"])
def test_a_mark_is_found_on_the_exception_raised_from_it(how: str) -> None:
    inner = KeyError("k")
    mark(inner, "_m", "text-json/case")
    try:
        try:
            raise inner
        except KeyError as e:
            if how == "cause":
                raise RuntimeError("outer") from e
            raise RuntimeError("outer")
    except RuntimeError as outer:
        assert marked(outer, "_m") == "text-json/case"


def test_an_exception_that_refuses_attributes_stays_unmarked() -> None:
    class Sealed(Exception):
        __slots__ = ()

        def __setattr__(self, name: str, value: object) -> None:
            raise AttributeError(name)

    exc = Sealed()
    mark(exc, "_m", "x")
    assert marked(exc, "_m") is None
