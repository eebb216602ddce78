"""The conformance items: the collector that holds them, one item per (check, case), the test
function that replays the verdict its setup reached, and the deselection by --mcs-case and
--mcs-check.
"""

from __future__ import annotations

from typing import Any

import pytest

from .failures import Budget, describe_failure


class SuiteCollector(pytest.Collector):
    """The conformance items, one per applicable (check, case); its path only places snapshots."""

    conformance: Any  # the run's plugin.Conformance

    def collect(self) -> list[Any]:
        items: list[Any] = []
        shared: Any = None  # every item runs _replay under this collector: one fixture closure for all
        for c, label, case in self.conformance.planned:
            item = ConformanceItem.from_parent(self, name=f"{c.id}[{label}]", callobj=_replay, check=c, label=label,
                                               case=case, fixtureinfo=shared)
            shared = getattr(item, "_fixtureinfo", None)
            items.append(item)
        return items


class ConformanceItem(pytest.Function):
    """One invariant on one case (or on the strategy), with a failure report made for authors."""

    def __init__(self, *, check: Any, label: str, case: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check, self.label, self.case = check, label, case
        self.verdict: Any = None  # a judging.Verdict once set up
        if hasattr(self, "_id"):
            # pytest >= 9.2 keeps a structured id; the label in brackets is its params, as
            # in the id pytest parses back from --lf's cache and from command-line node ids
            try:
                from _pytest.nodeid import NodeId

                self._id = NodeId.parse(f"{self.parent.nodeid}::{self.name}")
            except ImportError:
                pass

    @property
    def conformance(self) -> Any:
        return self.parent.conformance

    def setup(self) -> None:
        super().setup()
        self.verdict = self.conformance.judge(self)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.check.id}[{self.label}]: {self.check.title}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from .invariants import Failure

        if isinstance(excinfo.value, Failure):
            budget = Budget(full=self.config.getoption("verbose") >= 2)
            text = describe_failure(self.conformance, self.check, self.label, self.case, excinfo.value, budget)
            return _printable(text)
        return super().repr_failure(excinfo)

    def _prunetraceback(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        return None


def _printable(text: str) -> str:
    """``text`` with lone UTF-16 surrogates (an argument cut inside a pair) written as
    escapes: a report must survive UTF-8, which xdist's transport and files require."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _replay(request: pytest.FixtureRequest) -> None:
    """The item's test function: replays the verdict its setup reached."""
    item: ConformanceItem = request.node
    v = item.verdict
    assert v is not None
    props: dict[str, Any] = {"outcome": v.outcome, "level": v.level}
    if v.outcome == "differs":
        props["text"] = _printable(f"differs from the reference's choice ({v.level}): {v.failure.summary}")
    elif v.outcome in ("no-snapshot", "skipped"):
        props["text"] = v.note
    cause = getattr(v.failure, "cause", None)
    if cause is not None and v.outcome == "failed":  # a time-out or a peer that failed: the summary names the first
        props["cause"], props["problem"] = cause, _printable(v.failure.summary[:500])
    item.user_properties.append(("mcs-conformance", props))
    if v.outcome == "failed":
        raise v.failure
    if v.outcome == "xfailed":
        pytest.xfail(v.note)
    if v.outcome in ("no-snapshot", "skipped"):
        pytest.skip(v.note)
    if v.outcome == "stale-xfail":
        pytest.fail(v.note, pytrace=False)


class _Deselect:
    """Drops the items --mcs-case/--mcs-check leave out, after every plugin (syrupy) has seen them all."""

    def __init__(self, conformance: Any) -> None:
        self.conformance = conformance

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
        conf = self.conformance
        drop = [i for i in items if isinstance(i, ConformanceItem) and not conf.chosen(i)]
        if drop:
            dropped = set(map(id, drop))
            items[:] = [i for i in items if id(i) not in dropped]
            config.hook.pytest_deselected(items=drop)
