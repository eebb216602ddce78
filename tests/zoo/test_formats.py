"""The zoo of the further native formats: every one-bug copy of a format's reference strategy
(tests/zoo/formats/<format>.py) is failed by a bundled case of its format, at a level that fails
the default gate, and the reference passes that same item.

Each entry runs one check on one case directly on a subject (no pytest run per entry), as
tests/zoo/test_text_formats.py does for the text formats.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.suite.invariants import CHECKS, Failure, Subject
from mcs_conformance.suite.profiles import hypothesis_settings

from .formats import ZOOS

CORPUS = load_corpus()
ENTRIES = [(fmt, bug) for fmt, zoo in sorted(ZOOS.items()) for bug in sorted(zoo.BUGS)]


def verdict(strategy: Any, check: str, case_id: str | None) -> str | None:
    """The level of the rule ``check`` finds broken on the case (None: it holds)."""
    case = CORPUS.case(case_id).fresh() if case_id else None
    subject = Subject(strategy, CORPUS, settings={"hypothesis": hypothesis_settings("ci"), "shrink_budget": 3})
    spec = CHECKS[check]
    assert spec.applies(subject, case), f"{check} does not apply to {case_id} for {strategy.name}"
    try:
        spec.run(subject, case)
    except Failure as failure:
        return failure.level or spec.level
    return None


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
