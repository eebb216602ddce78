"""What a conformance run reports: each item's outcome into the summary, the header line, the
terminal summary, the run's exit status while golden snapshots are missing.

:class:`Reporting` is a part of the plugin's session object (:class:`.plugin.Conformance`):
its methods are pytest hooks that read the run's strategy, corpus and summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .. import __version__
from .failures import snapshot_update_command

SUITE = "mcs-conformance"


class Reporting:
    """The reporting hooks of a conformance run (mixed into :class:`.plugin.Conformance`)."""

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
            if outcome == "skipped":
                return  # not run: the one line of chain advice says why (chain_advice)
            if outcome == "stale-xfail":
                outcome = "failed"
            text = props.get("text", "") or (report.longreprtext if report.failed else "")
            self.summary.add(check_id, label, outcome, text, props.get("level") or self.checks[check_id].level)
            if props.get("cause"):
                interrupted = self.__dict__.setdefault("interrupted", [])
                interrupted.append((name, props["cause"], props.get("problem", "")))

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return [
            f"mcs-conformance {__version__}: strategy {self.subject.name} ({self.spec}), corpus {self.corpus.version} "
            f"({len(self.corpus.cases)} cases, {self.corpus.content_hash[:19]}), hypothesis profile {self.profile}, "
            f"gate {self.gate}"
        ] + [f"mcs-conformance: descriptor warning: {w}" for w in getattr(self, "descriptor_warnings", [])] \
          + ([f"mcs-conformance: through the bridge, peer {self.summary.header['peer']['command']} (pid "
              f"{self.subject.strategy.peer.pid}, docs/bridge.md)"] if "peer" in self.summary.header else [])

    def _updating_snapshots(self) -> bool:
        option = self.config.option
        return bool(getattr(option, "update_snapshots", False) or getattr(option, "update_new_snapshots_only", False))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """A run with golden snapshots still to create is not green (syrupy fails them too)."""
        if hasattr(self.config, "workerinput"):
            return
        if self.summary.count("no-snapshot") and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def chain_advice(self) -> str | None:
        """One line for a run without a declared chain in which a reference strategy claims
        the author's own cases first: who claims what, and the option to use; None otherwise."""
        claimed = self.subject.claimed_first
        if not claimed:
            return None
        first = sorted(claimed)[0]
        others = sorted(set(claimed.values()) - {claimed[first]})
        more = f" (and {len(claimed) - 1} more of your cases{', also ' + ', '.join(others) if others else ''})" \
            if len(claimed) > 1 else ""
        return (f"mcs-conformance: {claimed[first]}, a reference strategy of the default chain, claims the message of "
                f"your case {first}{more} before {self.subject.name}; their CHAIN, HISTORY and GOLDEN items were skipped. "
                f"Declare the chain your driver ships: --mcs-chain MODULE:ATTR (repeatable, in order) or chain = "
                f"[...] in [tool.mcs-conformance] (docs/authoring.md)")

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if hasattr(config, "workerinput"):
            return
        advice = self.chain_advice()
        if advice:
            terminalreporter.write_line(advice, yellow=True, bold=True)
        found, adopted = getattr(self, "adopted_snapshots", ([], None))
        if adopted is not None:
            terminalreporter.write_line(
                f"mcs-conformance: the golden snapshots' folder {adopted.name}, named after the peer's command, was "
                f"renamed to {self.snapshot_dir.name}, named after its handshake, content unchanged: commit the "
                f"rename (docs/ci.md, Migrating)", yellow=True, bold=True)
        elif len(found) > 1:
            terminalreporter.write_line(
                f"mcs-conformance: {len(found)} snapshot folders named after a peer's command "
                f"({', '.join(p.name for p in found)}): none was renamed to {self.snapshot_dir.name}, the folder "
                f"named after the peer's handshake; rename the one this run should use (docs/ci.md, Migrating)",
                yellow=True, bold=True)
        renamed = getattr(self, "renamed_snapshots", [])
        if renamed:
            terminalreporter.write_line(
                f"mcs-conformance: {len(renamed)} golden snapshot(s) renamed from their old file names (the case id "
                f"without its '/') to the current ones ('/' written %2F, e.g. {renamed[0][1]}), content unchanged: "
                f"commit the renames in {self._golden_shown()}/ (docs/ci.md, Migrating)", yellow=True, bold=True)
        if not self.summary.results:
            return
        interrupted = self.__dict__.get("interrupted", [])
        firsts = [i for i in interrupted if i[1] != "tripped"]
        if firsts:
            name, _, problem = firsts[0]
            later = len(interrupted) - 1
            terminalreporter.write_line(
                f"mcs-conformance: {len(interrupted)} item(s) failed on a time limit or the strategy's process rather "
                f"than on an answer; the first was {name}: {problem}"
                + (f" (fix it first: {later} more followed)" if later else ""), red=True, bold=True)
        strategy = self.subject.strategy
        if callable(getattr(strategy, "floor", None)) and not getattr(strategy, "measures_itself", True) \
                and any(key.startswith("COST-") for key in self.summary.results):
            terminalreporter.write_line(
                "mcs-conformance: the peer does not answer cpu_time, so COST timed its process and this one together "
                "and subtracted the bridge's own cost, measured with ping: about twice the time a peer that answers "
                "cpu_time takes, and noisier on a busy machine (docs/bridge.md, COST through the bridge)", yellow=True)
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

    def _golden_shown(self) -> Path:
        """This strategy's golden folder, relative to the working directory where it lies below it."""
        folder = self.snapshot_dir / "__snapshots__" / "golden"
        try:
            return folder.relative_to(Path.cwd())
        except ValueError:
            return folder

    def _first_run_message(self, missing: int) -> str:
        shown = self._golden_shown()
        return (f"{missing} golden snapshot(s) of strategy {self.subject.name} do not exist yet (in {shown}/).\n"
                f"Create them, review them and commit the folder:\n  {snapshot_update_command(self)}")
