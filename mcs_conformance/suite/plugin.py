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

import functools
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from .. import __version__
from ..corpus_tools.corpus import CorpusError, bundled_corpus_dir, load_corpus
from .collection import ConformanceItem, SuiteCollector, _Deselect, _printable, _replay  # noqa: F401
from .expectations import ExpectationError, load_expectations
from .judging import SuiteFault, Verdict, _ran_strategy_code, _strategy_failure, judge  # noqa: F401
from .loader import StrategyPathError, load_strategy, not_a_strategy
from .report import Summary
from .reporting import SUITE, Reporting
from .settings import GATES, SettingsError, load_settings
from ..bridge.client import PeerFailure
from .time_limits import Breaker, CheckTimeout, Guarded, StrategyTripped, budget_seconds, deadline

PROFILES = ("ci", "dev", "thorough")
DEFAULT_GATE = "should"


PLANNING_LIMIT = 120.0  # seconds: the least time planning the run gets, whatever --mcs-timeout says

def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcs-conformance", "MCS streaming tool-call extraction conformance")
    group.addoption("--mcs-strategy", metavar="MODULE:ATTR", help="Strategy under test: a class, zero-argument factory or instance; or exec:COMMAND, a bridge peer in any language (docs/bridge.md).")
    group.addoption("--mcs-corpus", metavar="DIR", action="append", default=[], help="Add your own cases and descriptors (repeatable; also 'corpus' in [tool.mcs-conformance]).")
    group.addoption("--mcs-format", metavar="FORMAT", help="The format whose cases are the strategy's own, when its name is no format's (also 'format'; default: its name, else the bundled format whose streams it recognizes).")
    group.addoption("--mcs-corpus-version", metavar="VERSION", help="Fail unless the bundled corpus has this version.")
    group.addoption("--mcs-case", metavar="ID", action="append", default=[], help="Run only this case id (repeatable).")
    group.addoption("--mcs-check", metavar="ID", action="append", default=[], help="Run only this invariant id (repeatable).")
    group.addoption("--mcs-profile", choices=PROFILES, help="Hypothesis profile: ci (derandomized; default when CI is set), dev, thorough.")
    group.addoption("--mcs-gate", choices=GATES, help="Lowest rule level whose breaks fail the run: must, should (default) or reference.")
    group.addoption("--mcs-expect-fail", metavar="FILE", help="Expected failures (TOML or JSON); also read from [tool.mcs-conformance].")
    group.addoption("--mcs-report", metavar="PATH", help="Write the summary as JSON at PATH and as Markdown beside it.")
    group.addoption("--mcs-timeout", metavar="SECONDS", type=float, default=120.0, help="Time limit per check (default 120; 0: none).")
    group.addoption("--mcs-shrink-budget", metavar="SECONDS", type=budget_seconds, help="Time a failing hypothesis check may spend shrinking its example (default 3, thorough profile 30; 0: no limit).")
    group.addoption("--mcs-snapshot-dir", metavar="DIR", help="Folder of this strategy's golden snapshots (default: tests/mcs-conformance/<name>@<module.attr>; a peer's: <name>@peer.<its implementation name>).")
    group.addoption("--mcs-only", action="store_true", help="Run the conformance items only, not the project's own tests.")
    group.addoption("--mcs-chain", metavar="MODULE:ATTR", action="append", default=[], help="The chain your driver ships, one strategy per option, in order (also 'chain' in [tool.mcs-conformance]; default: the reference chain).")
    group.addoption("--mcs-isolate", action="store_true", default=None, help="Run a MODULE:ATTR strategy in a child process through the bridge (also 'isolate'; docs/bridge.md).")
    group.addoption("--mcs-memory-limit", metavar="MIB", type=_mebibytes, help="Kill a bridged strategy's process past this resident memory (default 2048; 0: none).")
    group.addoption("--mcs-backup", metavar="MODULE:ATTR", help="The backup text strategy leaked calls fall through to (also 'backup'; default: the chain's last text strategy).")


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("mcs_strategy", None)
    if not spec:
        return
    conformance = Conformance(config, spec)
    config.pluginmanager.register(conformance, "mcs-conformance-session")
    config.pluginmanager.register(_Deselect(conformance), "mcs-conformance-deselect")


class Conformance(Reporting):
    """Everything the plugin holds for one run: strategy, corpus, expectations, summary."""

    def __init__(self, config: pytest.Config, spec: str) -> None:
        from .invariants import CHECKS, Subject
        from .profiles import hypothesis_settings, shrink_budget

        self.config, self.spec = config, spec
        root = Path(config.rootpath)
        try:
            self.settings = load_settings(root / "pyproject.toml")
        except SettingsError as exc:
            raise pytest.UsageError(str(exc)) from None
        self.breaker = Breaker()
        self.timeout = float(config.getoption("mcs_timeout") or 0)
        isolate = config.getoption("mcs_isolate")
        self.isolate = bool(self.settings.isolate if isolate is None else isolate)
        memory = config.getoption("mcs_memory_limit")
        self.memory_limit = float(memory if memory is not None else self.settings.memory_limit)
        strategy = self._loaded("--mcs-strategy", spec)
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
        self._lint()
        guarded = Guarded(strategy, self.breaker)
        self.subject = Subject(guarded, self.corpus, spec, chain_factory=self._chain_factory(guarded),
                               backup_factory=self._backup_factory(),
                               settings={"hypothesis": hypothesis_settings(self.profile),
                                         "shrink_budget": shrink_budget(self.profile) if config.getoption("mcs_shrink_budget") is None
                                         else config.getoption("mcs_shrink_budget")})
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
                **({"peer": {**strategy.implementation, "command": strategy.peer.label}}
                   if getattr(strategy, "peer", None) is not None and hasattr(strategy, "implementation") else {}),
            }
        )
        self.checks = CHECKS
        try:
            # planning is the suite's own pass over the corpus (the strategy's recognizes on every
            # shape, its format found), not a check: bounded only to stop a strategy that hangs in
            # it, never tighter than PLANNING_LIMIT, so a small --mcs-timeout on a busy machine
            # does not turn into a usage error
            with deadline(max(self.timeout, PLANNING_LIMIT) if self.timeout else 0, self.breaker):
                self._choose_format()
                self.subject.claimed_first = self._claimed_first()
                self.planned = self.plan()
                self.summary.header["formats"] = self._formats_run()
                self.summary.header["unrun"] = self._unrun()
                self.summary.header["descriptor_warnings"] = self.descriptor_warnings
        except CheckTimeout as exc:
            raise pytest.UsageError(f"--mcs-strategy {spec}: planning the run timed out: {exc}") from None
        except StrategyTripped as exc:
            raise pytest.UsageError(f"--mcs-strategy {spec}: planning the run: {exc}") from None
        except PeerFailure as exc:
            raise pytest.UsageError(f"--mcs-strategy {spec}: planning the run: {exc}"
                                    + (f"\n{exc.detail}" if exc.detail else "")) from None
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
        # golden snapshots stored under their file names of before are renamed, once, before any worker starts
        from .snapshots import rename_legacy_snapshots

        self.renamed_snapshots = [] if hasattr(config, "workerinput") else rename_legacy_snapshots(
            self.snapshot_dir / "__snapshots__" / "golden",
            [f"{c.id}[{label}]" for c, label, _ in self.planned if c.id.startswith("GOLDEN-")])

    def _choose_format(self) -> None:
        """The format whose cases are the strategy's own (:mod:`.formats`); when it is not the
        strategy's name, the run reads that format's cases under the strategy's name."""
        from .formats import FormatError, adopt, choose_format

        declared = self.config.getoption("mcs_format") or self.settings.format
        try:
            self.format = choose_format(self.subject.strategy, self.corpus, declared, is_text=self.subject.is_text)
        except FormatError as exc:
            option = "--mcs-format" if self.config.getoption("mcs_format") else f"{self.settings.source} format:"
            raise pytest.UsageError(f"{option} {declared}: {exc}") from None
        self.corpus = self.subject.corpus = adopt(self.corpus, self.format)
        self.subject.stands_for = self.format.adopted

    def _formats_run(self) -> dict[str, Any]:
        """For the summary: the strategy's own format, how it was found, and the bundled format
        of each bundled case (an adopted format's cases keep their ids, whose prefix is the
        format's own name); the summary counts the items that ran per format."""
        self.summary.bundled_cases = {case.id: case.id.split("/", 1)[0] for case in self.corpus.cases
                                      if _bundled(case.source)}
        return {"own": self.format.format, "how": self.format.how, "note": self.format.note}

    def _unrun(self) -> list[dict[str, str]]:
        """The checks (of those --mcs-check selects) that collected no item for the strategy,
        each with what kind of case or descriptor field would give it one: nothing goes unrun
        without the summary saying so."""
        planned = {c.id for c, _, _ in self.planned}
        chosen = set(self.config.getoption("mcs_check"))
        return [{"id": c.id, "needs": c.needs} for c in sorted(self.checks.values(), key=lambda c: c.id)
                if c.id not in planned and (not chosen or c.id in chosen)]

    def _lint(self) -> None:
        """Descriptor mistakes in the author's corpus, before any check runs. A path into the
        history that the history schema rules out, or a stream the descriptor cannot route, is a
        usage error: the checks that read through it would report it as the strategy's failure.
        A path that selects nothing in any case (a misspelled key, or a field no case has yet)
        is a warning the summary repeats; it can blame no strategy, since the run leaves out the
        one kind of such field a check compares with the strategy's output (a ``history.replay``
        rule whose message path selects nothing)."""
        from ..corpus_tools.lint import lint_descriptor

        findings = []
        for fmt, d in sorted(self.corpus.descriptors.items()):
            if not _bundled(d.source):  # the bundled descriptors lint clean (tests/corpus_tools/test_lint.py)
                schema = self.corpus.history_schemas.get(fmt) or _bundled_history(fmt)
                findings.extend(lint_descriptor(d, self.corpus.for_format(fmt), schema))
        errors = [f for f in findings if f.severity != "warning"]
        if errors:
            raise pytest.UsageError(
                f"--mcs-corpus: {len(errors)} descriptor mistake(s), reported before the checks run (the checks "
                "that read through these fields would blame the strategy for them):\n"
                + "\n".join(f"  {f}" for f in errors)
                + "\n  (mcs-conformance corpus validate DIR --with-bundled lists them; docs/descriptors.md)")
        self.descriptor_warnings = [str(f) for f in findings if f.severity == "warning"]
        dropped = {(f.format, f.field) for f in findings if f.severity == "warning" and f.field.startswith("history.replay[")}
        for fmt in {fmt for fmt, _ in dropped}:
            d = self.corpus.descriptors[fmt]
            history = dict(d.data["history"])
            history["replay"] = [r for i, r in enumerate(history["replay"])
                                 if (fmt, f"history.replay[{i}].message") not in dropped]
            self.corpus.descriptors[fmt] = replace(d, data={**d.data, "history": history})

    def _loaded(self, option: str, spec: str) -> Any:
        """The strategy at ``spec``, or a usage error naming the option and what is wrong. The
        strategy under test runs as a bridge peer when it is ``exec:COMMAND`` or the run
        isolates it."""
        bridged = spec.startswith("exec:") or (self.isolate and option == "--mcs-strategy")
        if bridged and option != "--mcs-strategy":
            raise pytest.UsageError(f"{option} {spec}: only the strategy under test (--mcs-strategy) runs as a "
                                    "command; the chain's other members are loaded in-process")
        try:
            obj = self._peer(spec) if bridged else load_strategy(spec)
        except StrategyPathError as exc:
            raise pytest.UsageError(f"{option} {spec}: {exc}") from None
        problem = not_a_strategy(obj)
        if problem:
            raise pytest.UsageError(f"{option} {spec}: {problem}")
        return obj

    def _peer(self, spec: str) -> Any:
        """The bridged strategy for ``exec:COMMAND``, or for a ``MODULE:ATTR`` run isolated."""
        import shlex
        import sys

        from ..bridge.client import Peer, PeerStartError, bridged

        root = str(self.config.rootpath)
        env = dict(os.environ)
        env["MCS_BRIDGE_JS"] = (Path(__file__).resolve().parents[1] / "bridge" / "server.mjs").as_uri()
        if spec.startswith("exec:"):
            try:
                argv = shlex.split(spec[len("exec:"):])
            except ValueError as exc:
                raise StrategyPathError(f"the command cannot be split into words: {exc}") from None
            if not argv:
                raise StrategyPathError("exec: names no command (exec:COMMAND, e.g. exec:'node my_strategy.mjs')")
        else:
            argv = [sys.executable, "-m", "mcs_conformance.bridge.server", spec]
            env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # what this run imports from
        peer = Peer(argv, cwd=root, env=env, timeout=self.timeout, memory_mib=self.memory_limit,
                    label=spec[len("exec:"):] if spec.startswith("exec:") else f"python -m mcs_conformance.bridge.server {spec}")
        peer.where = lambda: self.breaker.where
        try:
            return bridged(peer)
        except PeerStartError as exc:
            raise StrategyPathError(str(exc)) from None

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        from ..bridge.client import close_all

        close_all()

    def _chain_factory(self, subject: Any) -> Any:
        """The author's declared chain (``--mcs-chain``, else ``chain`` in the table) as a
        factory of fresh strategy lists, or None for the default chain. The strategy under
        test stands where its spec is named; every other entry is loaded and checked now."""
        given = list(self.config.getoption("mcs_chain") or ())
        specs = given or list(self.settings.chain)
        if not specs:
            return None
        option = "--mcs-chain" if given else f"{self.settings.source} chain:"
        names: dict[str, str] = {}
        for spec in specs:
            name = str(getattr(subject if spec == self.spec else self._loaded(option, spec), "name", "?"))
            if name in names:
                raise pytest.UsageError(f"{option} {spec}: its strategy is named {name!r}, as {names[name]}'s is; "
                                        "a chain holds each name once")
            names[name] = spec

        def chain() -> list[Any]:
            return [subject if spec == self.spec else load_strategy(spec) for spec in specs]

        return chain

    def _backup_factory(self) -> Any:
        """The declared backup text strategy (``--mcs-backup``, else ``backup``), or None."""
        given = self.config.getoption("mcs_backup")
        spec = given or self.settings.backup
        if not spec:
            return None
        option = "--mcs-backup" if given else f"{self.settings.source} backup:"
        from .invariants.base import is_text_strategy

        backup = self._loaded(option, spec)
        if not is_text_strategy(backup):
            raise pytest.UsageError(f"{option} {spec}: {getattr(backup, 'name', spec)!r} is not a text strategy "
                                    "(recognizes('') is not True), and a leaked call falls through to a text strategy")
        return lambda: load_strategy(spec)

    def _claimed_first(self) -> dict[str, str]:
        """Without a declared chain: the author's own cases (``--mcs-corpus``/``corpus``, not
        bundled ones) that give their message to the strategy while a reference strategy of the
        default chain claims it first, as case id -> that strategy's name. Their chain-level
        items (CHAIN_LEVEL) are skipped, and the run says once how to declare the chain."""
        s = self.subject
        if s.declared:
            return {}
        out: dict[str, str] = {}
        for case in self.corpus.cases:
            message = case.final_message
            if _bundled(case.source) or message is None or case.expect.get("claimed_by") != s.name:
                continue
            try:
                if s.passed_over(message):
                    continue
                claimant = s.chain().resolve(message)
            except (Exception, PeerFailure):  # noqa: BLE001 -- RECOG reports a recognizes that raises (or crashes)
                continue
            if claimant is not None and claimant.name != s.name:
                out[case.id] = claimant.name
        return out

    def _snapshot_dir(self, root: Path) -> Path:
        """Where this strategy's golden snapshots live: the option, the table, or a folder per
        strategy under tests/mcs-conformance keyed by name and import path, so two strategies
        of the same name in one repository keep apart. A peer (``exec:COMMAND``) is keyed by
        the names its handshake gives, ``<name>@peer.<implementation name>``, never by the
        command, so a moved binary, a wrapper or another checkout keeps its snapshots; a folder
        named after the command (as before) is renamed to it once (:func:`_adopt_command_folder`)."""
        given = self.config.getoption("mcs_snapshot_dir")
        if given:
            return Path(given).resolve()
        if self.settings.snapshot_dir is not None:
            return self.settings.snapshot_dir.resolve()
        base = root / "tests" / SUITE
        if not self.spec.startswith("exec:"):
            return base / _folder_key(f"{self.subject.name}@{self.spec.replace(':', '.')}")
        implementation = getattr(self.subject.strategy, "implementation", None) or {}
        own = implementation.get("name") if isinstance(implementation.get("name"), str) else ""
        folder = base / _folder_key(f"{self.subject.name}@peer" + (f".{own}" if own else ""))
        if not hasattr(self.config, "workerinput"):  # once, before any worker starts
            self.adopted_snapshots = _adopt_command_folder(base, self.subject.name, folder)
        return folder

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
                except (Exception, PeerFailure):
                    applies = True  # let the item run and report what breaks (a peer that dies: its items say so)
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

    def judge(self, item: "ConformanceItem") -> Verdict:
        """Run the item's check on a fresh copy of its case and conclude (:func:`.judging.judge`)."""
        return judge(self, item)


def _folder_key(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@-]+", "-", text)


def _adopt_command_folder(base: Path, name: str, folder: Path) -> tuple[list[Path], Path | None]:
    """Rename the snapshot folder an earlier release named after a peer's command line
    (``<name>@exec.<command>``) to ``folder``, when ``folder`` does not exist yet and exactly
    one such folder does; returns (the old folders found, the one renamed or None)."""
    if folder.exists() or not base.is_dir():
        return [], None
    old = sorted(p for p in base.glob(f"{_folder_key(name + '@exec.')}*") if p.is_dir())
    if len(old) != 1:
        return old, None
    try:
        old[0].rename(folder)
    except OSError:
        return old, None
    return old, old[0]


def _mebibytes(text: str) -> float:
    """``--mcs-memory-limit``'s value: MiB, 0 (no limit) or more."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of MiB, 0 (no limit) or more")
    return value


def _bundled(source: str) -> bool:
    """Is the file at ``source`` part of the bundled corpus (not an author's folder)?"""
    return os.path.realpath(source).startswith(_bundled_root())


@functools.lru_cache(maxsize=1)
def _bundled_root() -> str:
    return os.path.realpath(bundled_corpus_dir()) + os.sep


def _bundled_history(fmt: str) -> Any:
    """The bundled request-side history schema of ``fmt``, or None."""
    from ..corpus_tools.lint import _bundled_history as bundled

    return bundled(fmt)
