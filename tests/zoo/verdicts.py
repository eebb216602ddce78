"""One check on one bundled case, run directly on a subject (no pytest run per entry): the
zoos of the text formats and of the further native formats judge their one-bug copies this way."""

from __future__ import annotations

from typing import Any

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.suite.invariants import CHECKS, Failure, Subject
from mcs_conformance.suite.profiles import hypothesis_settings

CORPUS = load_corpus()


def verdict(strategy: Any, check: str, case_id: str | None) -> str | None:
    """The level of the rule ``check`` finds broken on the case (None: it holds)."""
    case = CORPUS.case(case_id).fresh() if case_id else None
    request = case.data.get("request") if case is not None else None
    if request is not None:
        strategy = strategy.with_request(request)
    subject = Subject(strategy, CORPUS, settings={"hypothesis": hypothesis_settings("ci"), "shrink_budget": 3})
    spec = CHECKS[check]
    assert spec.applies(subject, case), f"{check} does not apply to {case_id} for {strategy.name}"
    try:
        spec.run(subject, case)
    except Failure as failure:
        return failure.level or spec.level
    return None
