"""The zoo of the further native formats: every one-bug copy of a format's reference strategy
(tests/zoo/formats/<format>.py) is failed by a bundled case of its format, at a level that fails
the default gate, and the reference passes that same item.

Each entry runs one check on one case directly on a subject (no pytest run per entry), as
tests/zoo/test_text_formats.py does for the text formats.
"""

from __future__ import annotations

import pytest

from .formats import ZOOS
from .verdicts import verdict

ENTRIES = [(fmt, bug) for fmt, zoo in sorted(ZOOS.items()) for bug in sorted(zoo.BUGS)]


@pytest.mark.parametrize("fmt", sorted(ZOOS))
def test_every_bug_has_a_kill_and_a_docstring(fmt: str) -> None:
    zoo = ZOOS[fmt]
    assert set(zoo.BUGS) == set(zoo.KILLS), f"{fmt}: BUGS and KILLS name other bugs"
    for bug, cls in zoo.BUGS.items():
        assert (cls.__doc__ or "").strip(), f"{fmt}/{bug}: say which bug class or hazard the copy shows"
        assert issubclass(cls, zoo.BASE), f"{fmt}/{bug} is not a copy of {zoo.BASE.__name__}"


@pytest.mark.parametrize("fmt,bug", ENTRIES)
def test_the_bundled_cases_kill_the_bug(fmt: str, bug: str) -> None:
    zoo = ZOOS[fmt]
    check, slug = zoo.KILLS[bug]
    case_id = f"{fmt}/{slug}" if slug else None
    assert verdict(zoo.BASE(), check, case_id) in (None, "reference"), "the reference must pass the item"
    assert verdict(zoo.BUGS[bug](), check, case_id) in ("must", "should")
