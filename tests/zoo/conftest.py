"""Fixtures of the zoo: a pytester runner for the conformance suite.

The zoo runs on the bundled corpus only: the hand-written trigger cases of the bug classes
it needs (BUG-CLASSES rows 1-6, 8, 21, 24 and 25) are bundled cases since corpus
2026.12.1, where ``tests/corpus_tools/test_corpus.py`` checks their expectations like every other
case's (against the official SDK where it folds them right).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# ``pytester`` comes from tests/conftest.py (``pytest_plugins`` may only be declared in a
# top-level conftest: declaring it here breaks ``pytest tests``).

ROOT = Path(__file__).resolve().parents[2]

# -------------------------------------------------------------------------- running the suite


@pytest.fixture(scope="session", autouse=True)
def _import_once() -> None:
    """Import what an in-process run imports lazily, once, before any run.

    pytester removes the modules an in-process run imported when the run ends; without
    this, every run would import (and assertion-rewrite) the invariants, the strategies and
    hypothesis's engine again.
    """
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import mcs_conformance.suite.failures  # noqa: F401
    import mcs_conformance.suite.invariants  # noqa: F401
    import mcs_conformance.suite.snapshots  # noqa: F401
    import mcs_conformance.strategies  # noqa: F401
    from mcs_conformance.suite.profiles import hypothesis_settings

    settings(hypothesis_settings("ci"))(given(st.lists(st.integers()))(lambda xs: None))()



@dataclass
class SuiteRun:
    """What one run of the conformance suite reported."""

    outcomes: dict[str, int]
    failed: dict[str, str]  # nodeid -> failure report text
    passed: list[str]
    output: str

    def failed_ids(self) -> set[str]:
        """The invariant ids of the failed items."""
        return {nodeid.split("::", 1)[1].split("[", 1)[0] for nodeid in self.failed}


def _in_fresh_thread(run: Callable[[], Any]) -> Any:
    """Call ``run`` on a new thread and return its result (or raise its error).

    An in-process run nested inside an xdist worker sits deep in the call stack; on
    CPython 3.11 a hot loop that keeps crossing a 16 KiB frame-stack chunk boundary maps and
    unmaps that chunk on every call, which made feeding several times slower there (and the
    COST ratios meaningless). A fresh thread starts with an empty frame stack.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = run()
        except BaseException as exc:  # noqa: BLE001 -- re-raised on the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="mcs-zoo-run")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


@pytest.fixture
def run_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Run the plugin in-process on a strategy, restricted to checks and cases."""
    monkeypatch.syspath_prepend(str(ROOT))

    def run(spec: str, checks: list[str], cases: list[str] = (), *extra: str) -> SuiteRun:
        args = ["-p", "no:cacheprovider", f"--mcs-strategy={spec}", "--mcs-only", "--mcs-profile=ci", "-q",
                "-p", "no:randomly", "--mcs-timeout=60"]
        args += [f"--mcs-check={c}" for c in checks] + [f"--mcs-case={c}" for c in cases]
        result = _in_fresh_thread(lambda: pytester.runpytest_inprocess(*args, *extra))
        reports = result.reprec.getreports("pytest_runtest_logreport")
        failed = {r.nodeid: r.longreprtext for r in reports if r.failed}
        passed = [r.nodeid for r in reports if r.passed and r.when == "call"]
        return SuiteRun(result.parseoutcomes(), failed, passed, result.stdout.str())

    return run
