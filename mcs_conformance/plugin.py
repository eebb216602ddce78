"""The pytest plugin: ``pytest --mcs-strategy=pkg.module:Attr`` runs the conformance suite.

Without ``--mcs-strategy`` the plugin adds nothing to a run. With it, every invariant that
applies to the strategy becomes one test item per case, named ``ID[case-id]``.
"""

from __future__ import annotations

import os
import signal
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest

from . import __version__
from .corpus import CorpusError, load_corpus
from .expectations import ExpectationError, load_expectations
from .failures import CheckTimeout, describe_failure, write_counterexample
from .loader import StrategyPathError, load_strategy
from .report import Summary

PROFILES = ("ci", "dev", "thorough")
SUITE = "mcs-conformance"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcs-conformance", "MCS streaming tool-call extraction conformance")
    group.addoption("--mcs-strategy", metavar="MODULE:ATTR", help="Strategy under test: a class, zero-argument factory or instance.")
    group.addoption("--mcs-corpus", metavar="DIR", action="append", default=[], help="Add your own cases and descriptors (repeatable).")
    group.addoption("--mcs-corpus-version", metavar="VERSION", help="Fail unless the bundled corpus has this version.")
    group.addoption("--mcs-case", metavar="ID", action="append", default=[], help="Run only this case id (repeatable).")
    group.addoption("--mcs-check", metavar="ID", action="append", default=[], help="Run only this invariant id (repeatable).")
    group.addoption("--mcs-profile", choices=PROFILES, help="Hypothesis profile: ci (derandomized; default when CI is set), dev, thorough.")
    group.addoption("--mcs-expect-fail", metavar="FILE", help="Expected failures (TOML or JSON); also read from [tool.mcs-conformance].")
    group.addoption("--mcs-report", metavar="PATH", help="Write the summary as JSON at PATH and as Markdown beside it.")
    group.addoption("--mcs-timeout", metavar="SECONDS", type=float, default=120.0, help="Time limit per check (default 120).")
    group.addoption("--mcs-only", action="store_true", help="Run the conformance items only, not the project's own tests.")


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("mcs_strategy", None)
    if not spec:
        return
    conformance = Conformance(config, spec)
    config.pluginmanager.register(conformance, "mcs-conformance-session")
    config.pluginmanager.register(_Deselect(conformance), "mcs-conformance-deselect")


class Conformance:
    """Everything the plugin holds for one run: strategy, corpus, expectations, summary."""

    def __init__(self, config: pytest.Config, spec: str) -> None:
        from .invariants import CHECKS, Subject
        from .profiles import hypothesis_settings

        self.config, self.spec = config, spec
        try:
            self.strategy = load_strategy(spec)
        except StrategyPathError as exc:
            raise pytest.UsageError(f"--mcs-strategy {spec}: {exc}") from None
        try:
            self.corpus = load_corpus(config.getoption("mcs_corpus"))
        except CorpusError as exc:
            raise pytest.UsageError(f"--mcs-corpus: {exc}") from None
        pin = config.getoption("mcs_corpus_version")
        if pin and pin != self.corpus.version:
            raise pytest.UsageError(f"--mcs-corpus-version {pin}: the installed corpus is {self.corpus.version}")
        ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
        profile = config.getoption("mcs_profile") or ("ci" if ci else "dev")
        self.profile = profile
        self.subject = Subject(self.strategy, self.corpus, spec, settings={"hypothesis": hypothesis_settings(profile)})
        try:
            self.expected = load_expectations(config.getoption("mcs_expect_fail"), Path(config.rootpath) / "pyproject.toml")
        except ExpectationError as exc:
            raise pytest.UsageError(str(exc)) from None
        for (cid, case), e in self.expected.items():
            if cid not in CHECKS:
                raise pytest.UsageError(f"{e.source}: expected failure names {cid!r}, which is no invariant id")
        for flag, known in (("mcs_case", {c.id for c in self.corpus.cases}), ("mcs_check", set(CHECKS))):
            for value in config.getoption(flag):
                if value not in known:
                    raise pytest.UsageError(f"--{flag.replace('_', '-')} {value}: no such {'case' if flag == 'mcs_case' else 'invariant'}")
        self.summary = Summary(
            {
                "package_version": __version__,
                "corpus_version": self.corpus.version,
                "corpus_hash": self.corpus.content_hash,
                "strategy": self.subject.name,
                "spec": spec,
                "profile": profile,
            }
        )
        self.checks = CHECKS
        self.planned = self.plan()
        keys = {(c.id, label) for c, label, _ in self.planned}
        for key, e in self.expected.items():
            if key not in keys:
                raise pytest.UsageError(
                    f"{e.source}: expected failure {key[0]}[{key[1]}] matches no check that runs for strategy {self.subject.name!r}"
                )
        # node ids of suite items given as arguments select those items; pytest cannot resolve them
        self.selected = {a for a in config.args if a.startswith(SUITE + "::")}
        if self.selected:
            config.args[:] = [a for a in config.args if not a.startswith(SUITE + "::")]

    # -- collection -------------------------------------------------------------------
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        """With --mcs-only the project's own test files are not even imported."""
        return True if config.getoption("mcs_only") else None

    def plan(self) -> list[tuple[Any, str, Any]]:
        """(check, label, case) for every applicable check: label is the case id or strategy name."""
        out = []
        for check in self.checks.values():
            if check.scope == "strategy":
                if check.applies(self.subject, None):
                    out.append((check, self.subject.name, None))
                continue
            for case in self.corpus.cases:
                try:
                    applies = check.applies(self.subject, case)
                except Exception:
                    applies = True  # let the item run and report what breaks
                if applies:
                    out.append((check, case.id, case))
        return out

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        """The suite joins the session's own collection, so pytest counts and caches its items."""
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            base = Path(self.config.rootpath)
            tests = base / "tests" if (base / "tests").is_dir() else base
            suite = SuiteCollector.from_parent(collector, name=SUITE, path=tests / SUITE / self.subject.name / "golden",
                                               nodeid=SUITE)
            suite.conformance = self
            report.result.append(suite)
        return report

    def chosen(self, item: "ConformanceItem") -> bool:
        """Is the item selected by --mcs-case, --mcs-check and node-id arguments?"""
        cases, ids = set(self.config.getoption("mcs_case")), set(self.config.getoption("mcs_check"))
        named = bool(ids) and item.check.id in ids
        return (
            (not cases or item.label in cases or (item.case is None and named))
            and (not ids or named)
            and (not self.selected or item.nodeid in self.selected)
        )

    # -- reporting ----------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.nodeid.startswith(SUITE + "::"):
            return
        name = report.nodeid.split("::", 1)[1]
        check_id, _, rest = name.partition("[")
        label = rest[:-1]
        if report.when == "call" or (report.when == "setup" and not report.passed):
            if hasattr(report, "wasxfail"):
                outcome = "xfailed"
            elif report.passed:
                outcome = "passed"
            elif report.failed:
                outcome = "failed"
            else:
                return
            text = report.longreprtext if report.failed else ""
            self.summary.add(check_id, label, outcome, text)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return [
            f"mcs-conformance {__version__}: strategy {self.subject.name} ({self.spec}), corpus {self.corpus.version} "
            f"({len(self.corpus.cases)} cases, {self.corpus.content_hash[:19]}), hypothesis profile {self.profile}"
        ]

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or not self.summary.results:
            return
        terminalreporter.section("mcs-conformance summary")
        for line in self.summary.lines():
            terminalreporter.write_line(line)
        path = config.getoption("mcs_report")
        if path:
            for written in self.summary.write(path):
                terminalreporter.write_line(f"report written: {written}")


class SuiteCollector(pytest.Collector):
    """The conformance items, one per applicable (check, case); its path only places snapshots."""

    conformance: Conformance

    def collect(self) -> list[Any]:
        conf = self.conformance
        return [
            ConformanceItem.from_parent(self, name=f"{c.id}[{label}]", callobj=_runner(conf, c, label, case),
                                        check=c, label=label, case=case)
            for c, label, case in conf.planned
        ]


class ConformanceItem(pytest.Function):
    """One invariant on one case (or on the strategy), with a failure report made for authors."""

    def __init__(self, *, check: Any, label: str, case: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check, self.label, self.case = check, label, case
        if hasattr(self, "_id"):
            # pytest >= 9.2 keeps a structured id; the label in brackets is its params, as
            # in the id pytest parses back from --lf's cache and from command-line node ids
            try:
                from _pytest.nodeid import NodeId

                self._id = NodeId.parse(f"{self.parent.nodeid}::{self.name}")
            except ImportError:
                pass

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.check.id}[{self.label}]: {self.check.title}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from .invariants import Failure

        if isinstance(excinfo.value, Failure):
            return describe_failure(self.parent.conformance, self.check, self.label, self.case, excinfo.value)
        return super().repr_failure(excinfo)

    def _prunetraceback(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        return None


def _runner(conf: Conformance, check: Any, label: str, case: Any) -> Any:
    def mcs_check(request: pytest.FixtureRequest) -> None:
        expected = conf.expected.get((check.id, label))
        try:
            _run_guarded(conf, check, case, request)
        except BaseException as exc:
            from .invariants import Failure

            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            failure = exc if isinstance(exc, Failure) else _as_failure(exc)
            if expected is not None:
                pytest.xfail(f"{expected.reason} (declared in {expected.source})")
            write_counterexample(conf, check, case, failure)
            raise failure from (None if failure is exc else exc)
        if expected is not None:
            pytest.fail(
                f"{check.id}[{label}] is declared as an expected failure in {expected.source} but now passes: "
                "remove the entry", pytrace=False,
            )

    mcs_check.__name__ = f"mcs_{check.id.replace('-', '_').lower()}"
    return mcs_check


def _run_guarded(conf: Conformance, check: Any, case: Any, request: pytest.FixtureRequest) -> None:
    if check.family == "GOLDEN":
        from .snapshots import golden_snapshot

        conf.subject.settings["snapshot"] = golden_snapshot(request)
    limit = float(request.config.getoption("mcs_timeout") or 0)
    use_alarm = limit > 0 and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if use_alarm:
        def on_alarm(signum: int, frame: Any) -> None:
            raise CheckTimeout(f"the check did not finish within {limit:g} s (--mcs-timeout)")

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        check.run(conf.subject, case)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _as_failure(exc: BaseException) -> Any:
    from .invariants import Failure

    if isinstance(exc, CheckTimeout):
        return Failure(str(exc))
    tb = traceback.extract_tb(exc.__traceback__)
    where = "".join(traceback.format_list(tb[-3:])) if tb else ""
    return Failure(f"the strategy raised {type(exc).__name__}: {exc}", detail=f"most recent calls:\n{where}".rstrip())


class _Deselect:
    """Drops the items --mcs-case/--mcs-check leave out, after every plugin (syrupy) has seen them all."""

    def __init__(self, conformance: Conformance) -> None:
        self.conformance = conformance

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
        conf = self.conformance
        drop = [i for i in items if isinstance(i, ConformanceItem) and not conf.chosen(i)]
        if drop:
            dropped = set(map(id, drop))
            items[:] = [i for i in items if id(i) not in dropped]
            config.hook.pytest_deselected(items=drop)
