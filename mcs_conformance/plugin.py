"""The pytest plugin: ``pytest --mcs-strategy=pkg.module:Attr`` runs the conformance suite.

Without ``--mcs-strategy`` the plugin adds nothing to a run. With it, every invariant that
applies to the strategy becomes one test item per case, named ``ID[case-id]``.

Each item is judged while it is set up, and the verdict is replayed when it runs:

- a rule at or above the gate (``--mcs-gate``, default ``should``) that breaks fails it;
- a rule below the gate that breaks ("differs from the reference's choice") passes it and
  is listed in the summary;
- a golden snapshot that does not exist yet skips it, and the run ends non-zero with one
  message saying how to create them;
- an exception the suite's own code raised, not the strategy's, is a pytest *error* that
  says it is a bug in mcs-conformance.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from . import __version__
from .corpus import CorpusError, load_corpus
from .expectations import ExpectationError, load_expectations
from .failures import Budget, describe_failure, reproduce, write_counterexample
from .guard import Breaker, CheckTimeout, Guarded, StrategyTripped, deadline, raised_by_strategy
from .loader import StrategyPathError, load_strategy, not_a_strategy
from .report import Summary
from .settings import GATES, SettingsError, load_settings

PROFILES = ("ci", "dev", "thorough")
SUITE = "mcs-conformance"
DEFAULT_GATE = "should"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcs-conformance", "MCS streaming tool-call extraction conformance")
    group.addoption("--mcs-strategy", metavar="MODULE:ATTR", help="Strategy under test: a class, zero-argument factory or instance.")
    group.addoption("--mcs-corpus", metavar="DIR", action="append", default=[], help="Add your own cases and descriptors (repeatable; also 'corpus' in [tool.mcs-conformance]).")
    group.addoption("--mcs-corpus-version", metavar="VERSION", help="Fail unless the bundled corpus has this version.")
    group.addoption("--mcs-case", metavar="ID", action="append", default=[], help="Run only this case id (repeatable).")
    group.addoption("--mcs-check", metavar="ID", action="append", default=[], help="Run only this invariant id (repeatable).")
    group.addoption("--mcs-profile", choices=PROFILES, help="Hypothesis profile: ci (derandomized; default when CI is set), dev, thorough.")
    group.addoption("--mcs-gate", choices=GATES, help="Lowest rule level whose breaks fail the run: must, should (default) or reference.")
    group.addoption("--mcs-expect-fail", metavar="FILE", help="Expected failures (TOML or JSON); also read from [tool.mcs-conformance].")
    group.addoption("--mcs-report", metavar="PATH", help="Write the summary as JSON at PATH and as Markdown beside it.")
    group.addoption("--mcs-timeout", metavar="SECONDS", type=float, default=120.0, help="Time limit per check (default 120; 0: none).")
    group.addoption("--mcs-snapshot-dir", metavar="DIR", help="Folder of this strategy's golden snapshots (default: tests/mcs-conformance/<name>@<module.attr>).")
    group.addoption("--mcs-only", action="store_true", help="Run the conformance items only, not the project's own tests.")


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("mcs_strategy", None)
    if not spec:
        return
    conformance = Conformance(config, spec)
    config.pluginmanager.register(conformance, "mcs-conformance-session")
    config.pluginmanager.register(_Deselect(conformance), "mcs-conformance-deselect")


class SuiteFault(Exception):
    """The suite's own code raised: a bug in mcs-conformance, never the strategy's fault."""


@dataclass
class Verdict:
    """What a check concluded about the strategy on one case."""

    outcome: str  # passed | failed | differs | no-snapshot | xfailed | stale-xfail
    level: str | None = None
    failure: Any = None
    note: str = ""


class Conformance:
    """Everything the plugin holds for one run: strategy, corpus, expectations, summary."""

    def __init__(self, config: pytest.Config, spec: str) -> None:
        from .invariants import CHECKS, Subject
        from .profiles import hypothesis_settings

        self.config, self.spec = config, spec
        root = Path(config.rootpath)
        try:
            self.settings = load_settings(root / "pyproject.toml")
        except SettingsError as exc:
            raise pytest.UsageError(str(exc)) from None
        try:
            strategy = load_strategy(spec)
        except StrategyPathError as exc:
            raise pytest.UsageError(f"--mcs-strategy {spec}: {exc}") from None
        problem = not_a_strategy(strategy)
        if problem:
            raise pytest.UsageError(f"--mcs-strategy {spec}: {problem}")
        self.breaker = Breaker()
        self.timeout = float(config.getoption("mcs_timeout") or 0)
        corpus_dirs = [*config.getoption("mcs_corpus"), *self.settings.corpus]
        try:
            self.corpus = load_corpus(corpus_dirs)
        except CorpusError as exc:
            raise pytest.UsageError(f"--mcs-corpus: {exc}") from None
        pin = config.getoption("mcs_corpus_version")
        if pin and pin != self.corpus.version:
            raise pytest.UsageError(f"--mcs-corpus-version {pin}: the installed corpus is {self.corpus.version}")
        ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
        self.profile = config.getoption("mcs_profile") or ("ci" if ci else "dev")
        self.gate = config.getoption("mcs_gate") or self.settings.gate or DEFAULT_GATE
        self.subject = Subject(Guarded(strategy, self.breaker), self.corpus, spec,
                               settings={"hypothesis": hypothesis_settings(self.profile)})
        self.snapshot_dir = self._snapshot_dir(root)
        try:
            self.expected = load_expectations(config.getoption("mcs_expect_fail"), root / "pyproject.toml")
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
                "profile": self.profile,
                "gate": self.gate,
            }
        )
        self.checks = CHECKS
        try:
            with deadline(self.timeout, self.breaker):
                self.planned = self.plan()
        except CheckTimeout as exc:
            raise pytest.UsageError(f"--mcs-strategy {spec}: planning the run timed out: {exc}") from None
        except StrategyTripped as exc:
            raise pytest.UsageError(f"--mcs-strategy {spec}: planning the run: {exc}") from None
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

    def _snapshot_dir(self, root: Path) -> Path:
        """Where this strategy's golden snapshots live: the option, the table, or a folder per
        strategy under tests/mcs-conformance keyed by name and import path, so two strategies
        of the same name in one repository keep apart."""
        given = self.config.getoption("mcs_snapshot_dir")
        if given:
            return Path(given).resolve()
        if self.settings.snapshot_dir is not None:
            return self.settings.snapshot_dir.resolve()
        key = re.sub(r"[^A-Za-z0-9_.@-]+", "-", f"{self.subject.name}@{self.spec.replace(':', '.')}")
        return root / "tests" / SUITE / key

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
            suite = SuiteCollector.from_parent(collector, name=SUITE, path=self.snapshot_dir / "golden", nodeid=SUITE)
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

    # -- judging ------------------------------------------------------------------------
    def judge(self, item: "ConformanceItem") -> Verdict:
        """Run the item's check on a fresh copy of its case and conclude; raise SuiteFault
        when the suite's own code broke."""
        from .invariants import LEVELS, Failure
        from .invariants.base import NoSnapshot

        check, label = item.check, item.label
        case = item.case.fresh() if item.case is not None else None
        self.breaker.where = f"{check.id}[{label}]"
        if check.family == "GOLDEN":
            from .snapshots import golden_snapshot

            self.subject.settings["snapshot"] = golden_snapshot(item._request)
        failure: Any = None
        try:
            with deadline(self.timeout, self.breaker):
                check.run(self.subject, case)
        except NoSnapshot as exc:
            return Verdict("no-snapshot", note=str(exc))
        except (KeyboardInterrupt, SystemExit):
            raise
        except Failure as exc:
            failure = exc
        except CheckTimeout as exc:
            failure = Failure(str(exc))
        except StrategyTripped as exc:
            failure = Failure(f"not run: {exc} (fix that first: after a time-out the suite does not call the "
                              "method again, so a hanging strategy's run ends in minutes)")
        except BaseException as exc:  # noqa: BLE001 -- sorted below: the strategy's, or the suite's own
            failure = _strategy_failure(exc, self.subject.strategy)
            if failure is None:
                raise SuiteFault(
                    f"{check.id}[{label}]: the suite's own code raised {type(exc).__name__}: {exc}. This is a bug "
                    "in mcs-conformance, not in the strategy under test: please report it with this traceback."
                ) from exc
        expected = self.expected.get((check.id, label))
        if failure is None:
            if expected is not None:
                return Verdict("stale-xfail", note=f"{check.id}[{label}] is declared as an expected failure in "
                                                   f"{expected.source} but now passes: remove the entry")
            return Verdict("passed", level=check.level)
        level = failure.level or check.level
        if expected is not None:
            return Verdict("xfailed", level, failure, f"{expected.reason} (declared in {expected.source})")
        if LEVELS.index(level) > LEVELS.index(self.gate):
            return Verdict("differs", level, failure)
        write_counterexample(self, check, case, failure)
        return Verdict("failed", level, failure)

    # -- reporting ----------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.nodeid.startswith(SUITE + "::"):
            return
        name = report.nodeid.split("::", 1)[1]
        check_id, _, rest = name.partition("[")
        label = rest[:-1]
        props = dict(report.user_properties).get("mcs-conformance") or {}
        if report.when == "setup" and report.failed:
            self.summary.add(check_id, label, "error", report.longreprtext, self.checks[check_id].level)
        elif report.when == "setup" and report.skipped and hasattr(report, "wasxfail"):
            self.summary.add(check_id, label, "xfailed", "", props.get("level"))
        elif report.when == "call":
            outcome = props.get("outcome") or ("passed" if report.passed else "failed")
            if outcome == "stale-xfail":
                outcome = "failed"
            text = props.get("text", "") or (report.longreprtext if report.failed else "")
            self.summary.add(check_id, label, outcome, text, props.get("level") or self.checks[check_id].level)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return [
            f"mcs-conformance {__version__}: strategy {self.subject.name} ({self.spec}), corpus {self.corpus.version} "
            f"({len(self.corpus.cases)} cases, {self.corpus.content_hash[:19]}), hypothesis profile {self.profile}, "
            f"gate {self.gate}"
        ]

    def _updating_snapshots(self) -> bool:
        option = self.config.option
        return bool(getattr(option, "update_snapshots", False) or getattr(option, "update_new_snapshots_only", False))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """A run with golden snapshots still to create is not green (syrupy fails them too)."""
        if hasattr(self.config, "workerinput"):
            return
        if self.summary.count("no-snapshot") and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or not self.summary.results:
            return
        terminalreporter.section("mcs-conformance summary")
        verbose = config.getoption("verbose") > 0
        for line in self.summary.lines(verbose=verbose):
            terminalreporter.write_line(line)
        missing = self.summary.count("no-snapshot")
        if missing:
            terminalreporter.write_line("")
            terminalreporter.write_line(self._first_run_message(missing), red=True, bold=True)
        path = config.getoption("mcs_report")
        if path:
            for written in self.summary.write(path):
                terminalreporter.write_line(f"report written: {written}")

    def _first_run_message(self, missing: int) -> str:
        folder = self.snapshot_dir / "__snapshots__" / "golden"
        try:
            shown = folder.relative_to(Path.cwd())
        except ValueError:
            shown = folder
        command = reproduce(self, "GOLDEN-001", self.subject.name, None).replace("--mcs-check=GOLDEN-001",
                                                                                "--mcs-check=GOLDEN-001 --mcs-check=GOLDEN-002")
        return (f"{missing} golden snapshot(s) of strategy {self.subject.name} do not exist yet (in {shown}/).\n"
                f"Create them, review them and commit the folder:\n  {command} --snapshot-update")


def _strategy_failure(exc: BaseException, strategy: Any) -> Any:
    """The failure an exception out of a check stands for, when the strategy caused it (it
    raised it, code of its own ran when it was raised, such as a ``finish`` callback the
    accumulator calls when the message is read, or the buffer or hypothesis reported what
    it did); None when the suite's own code raised it."""
    import traceback

    from hypothesis.errors import HypothesisException

    from .errors import MCSError
    from .invariants import Failure

    method = raised_by_strategy(exc)
    own_code = method is None and _ran_strategy_code(exc, strategy)
    if method is None and not own_code and not isinstance(exc, (MCSError, HypothesisException, BaseExceptionGroup)):
        return None
    tb = traceback.extract_tb(exc.__traceback__)
    where = "".join(traceback.format_list(tb[-3:])) if tb else ""
    who = f"the strategy's {method}" if method else ("the strategy's code" if own_code else "the strategy")
    return Failure(f"{who} raised {type(exc).__name__}: {exc}", detail=f"most recent calls:\n{where}".rstrip())


def _ran_strategy_code(exc: BaseException, strategy: Any) -> bool:
    """Does the traceback of ``exc`` (or of an exception it came from) pass through a module
    that defines the strategy's class or one of its bases?"""
    import inspect
    import sys
    import traceback

    inner = getattr(strategy, "__dict__", {}).get("_mcs_inner", strategy)
    files = set()
    for cls in inspect.getmro(type(inner)):
        module = sys.modules.get(cls.__module__)
        if cls is not object and getattr(module, "__file__", None):
            files.add(os.path.realpath(module.__file__))
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if any(os.path.realpath(frame.filename) in files for frame in traceback.extract_tb(exc.__traceback__)):
            return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


class SuiteCollector(pytest.Collector):
    """The conformance items, one per applicable (check, case); its path only places snapshots."""

    conformance: Conformance

    def collect(self) -> list[Any]:
        conf = self.conformance
        return [
            ConformanceItem.from_parent(self, name=f"{c.id}[{label}]", callobj=_replay, check=c, label=label, case=case)
            for c, label, case in conf.planned
        ]


class ConformanceItem(pytest.Function):
    """One invariant on one case (or on the strategy), with a failure report made for authors."""

    def __init__(self, *, check: Any, label: str, case: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check, self.label, self.case = check, label, case
        self.verdict: Verdict | None = None
        if hasattr(self, "_id"):
            # pytest >= 9.2 keeps a structured id; the label in brackets is its params, as
            # in the id pytest parses back from --lf's cache and from command-line node ids
            try:
                from _pytest.nodeid import NodeId

                self._id = NodeId.parse(f"{self.parent.nodeid}::{self.name}")
            except ImportError:
                pass

    @property
    def conformance(self) -> Conformance:
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
    elif v.outcome == "no-snapshot":
        props["text"] = v.note
    item.user_properties.append(("mcs-conformance", props))
    if v.outcome == "failed":
        raise v.failure
    if v.outcome == "xfailed":
        pytest.xfail(v.note)
    if v.outcome == "no-snapshot":
        pytest.skip(v.note)
    if v.outcome == "stale-xfail":
        pytest.fail(v.note, pytrace=False)


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
