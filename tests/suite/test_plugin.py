"""The pytest plugin's own behaviour, run in scratch projects (pytester) against real strategies.

The scratch project holds a module of small broken strategies (each a TextStrategy with one
defect) and an author corpus with one text stream case carrying two calls, so that a check
really fails and the plugin's handling of that failure can be observed from the outside.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import mcs_conformance
import mcs_conformance.suite.invariants  # noqa: F401  (imported once here, so in-process runs start warm)

from tests.helpers.projects import _TEXT_PARTS, CASE_ID, TWO_CALLS, subprocess_env  # noqa: F401  (test_report, test_cli)
from tests.helpers.limits import HANG

STRATEGIES = '''
import time

from mcs_conformance.strategies import TextStrategy



class DropLast(TextStrategy):
    """extract() loses the last call."""

    def extract(self, message):
        return super().extract(message)[:-1]


class DropSingles(TextStrategy):
    """accumulate() ignores one-character chunks: right on the recorded chunking only."""

    def accumulate(self, acc, chunk):
        if isinstance(chunk, str) and len(chunk) == 1:
            return ""
        return super().accumulate(acc, chunk)


class Raises(TextStrategy):
    def accumulate(self, acc, chunk):
        raise RuntimeError("accumulate exploded")


class WrongType(TextStrategy):
    """extract() returns a tuple."""

    def extract(self, message):
        return tuple(super().extract(message))


class Sleepy(TextStrategy):
    def extract(self, message):
        time.sleep(3)
        return super().extract(message)


class Hangs(TextStrategy):
    """accumulate() never returns, and catches every Exception on the way."""

    def accumulate(self, acc, chunk):
        while True:
            try:
                time.sleep(0.05)
            except Exception:
                pass


class MutatesChunks(TextStrategy):
    """accumulate() works on its own copy of a chunk, then writes into the caller's list."""

    seen = []

    def accumulate(self, acc, chunk):
        self.seen.append(chunk)
        return super().accumulate(acc, chunk)


class NotAStrategy:
    name = "text-json"

    def extract(self, message):
        return []


class BadFlag(TextStrategy):
    leaks_into_text = "no"


class NeedsArgs(TextStrategy):
    def __init__(self, codec):
        super().__init__(codec)


def factory():
    return DropLast()


def failing_factory():
    raise RuntimeError("factory says no")


instance = DropLast()
'''

REFERENCE = "mcs_conformance.strategies:TextStrategy"
USAGE_ERROR = int(pytest.ExitCode.USAGE_ERROR)
PYTEST_BIN = Path(sys.executable).parent / "pytest"


# -- helpers shared with test_report.py ---------------------------------------------------

def make_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Write the broken strategies module and the author corpus (corpus/) into the project."""
    pytester.makepyfile(brokenstrats=STRATEGIES)
    case = pytester.path / "corpus" / "cases" / "text-json" / "two-calls.json"
    case.parent.mkdir(parents=True)
    case.write_text(json.dumps(TWO_CALLS, indent=2), encoding="utf-8")
    pytester.syspathinsert()
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run pytest in-process in the project, with every item's outcome listed (-rA)."""
    return pytester.runpytest("-p", "no:cacheprovider", "-rA", *args)


def run_sub(pytester: pytest.Pytester, *args: str, timeout: float = 120) -> pytest.RunResult:
    """Run pytest in a subprocess in the project (killed after `timeout` seconds)."""
    with pytest.MonkeyPatch.context() as mp:
        for key, value in subprocess_env(pytester.path).items():
            mp.setenv(key, value)
        mp.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", *args, timeout=timeout)


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """nodeid -> PASSED / FAILED / XFAIL / ERROR, read from the -rA short summary."""
    out = {}
    for line in result.outlines:
        m = re.match(r"(PASSED|FAILED|XFAIL|XPASS|ERROR) (\S+)", line)
        if m:
            out[m.group(2)] = m.group(1)
    return out


def summary_rows(result: pytest.RunResult) -> dict[str, tuple[int, int, int, int]]:
    """family -> (passed, failed, differs, xfailed), read from the plugin's terminal summary."""
    text = result.stdout.str()
    assert "mcs-conformance summary" in text, text
    section = text.split("mcs-conformance summary", 1)[1]
    rows = {}
    for line in section.splitlines():
        m = re.fullmatch(r"([A-Z]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", line.strip())
        if m:
            rows[m.group(1)] = tuple(int(m.group(i)) for i in range(2, 6))
    return rows


def item(check_id: str, label: str = CASE_ID) -> str:
    return f"mcs-conformance::{check_id}[{label}]"


# -- without --mcs-strategy ----------------------------------------------------------------

def test_without_strategy_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    # fixture names a conformance suite might be tempted to use: the project's own must win
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def strategy():
            return "mine"

        @pytest.fixture
        def case():
            return "my case"

        @pytest.fixture
        def snapshot():
            return "my snapshot"
        """
    )
    pytester.makepyfile(
        test_own="""
        def test_own(strategy, case, snapshot):
            assert (strategy, case, snapshot) == ("mine", "my case", "my snapshot")
        """
    )
    result = run(pytester)
    assert result.ret == 0
    assert outcomes(result) == {"test_own.py::test_own": "PASSED"}
    result.assert_outcomes(passed=1)
    mentions = [line for line in result.outlines + result.errlines
                if "mcs" in line.lower() and not line.startswith("plugins:")]
    assert mentions == []


def test_with_strategy_the_projects_own_tests_still_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-check=STRUCT-001")
    assert result.ret == 0
    assert outcomes(result) == {"test_own.py::test_own": "PASSED", item("STRUCT-001", "text-json"): "PASSED"}


def test_mcs_only_drops_the_projects_own_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own="def test_own():\n    assert False\n")
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-check=STRUCT-001", "--mcs-only")
    assert result.ret == 0
    assert outcomes(result) == {item("STRUCT-001", "text-json"): "PASSED"}


# -- --mcs-strategy -------------------------------------------------------------------------

def test_an_object_that_is_no_strategy_is_one_usage_error_naming_what_it_lacks(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--mcs-strategy=brokenstrats:NotAStrategy", "--mcs-only")
    assert result.ret == USAGE_ERROR
    err = result.stderr.str()
    assert "NotAStrategy is not an ExtractionStrategy: it lacks 7 of the protocol's 9 members" in err
    for declared in ("leaks_into_text: bool", "recognizes(shape) -> bool", "accumulate(acc, chunk) -> str",
                     "is_done(chunk) -> bool", "content_text(message) -> str", "forming_name(message) -> str | None",
                     "result_messages(message, records) -> list[dict]"):
        assert declared in err, declared
    assert "extract(message)" not in err and "Traceback" not in err + result.stdout.str()
    assert "collected" not in result.stdout.str()  # nothing ran


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("brokenstrats", "is not of the form 'package.module:Attr'"),
        ("brokenstrats:", "is not of the form 'package.module:Attr'"),
        ("no_such_module_here:Strategy", "cannot import module 'no_such_module_here'"),
        ("brokenstrats:NoSuchThing", "has no attribute 'NoSuchThing'"),
        ("brokenstrats:failing_factory", "RuntimeError: factory says no"),
        ("brokenstrats:NeedsArgs", "must be callable with no arguments"),
    ],
)
def test_strategy_path_errors_are_usage_errors(pytester: pytest.Pytester, spec: str, reason: str) -> None:
    make_project(pytester)
    result = run(pytester, f"--mcs-strategy={spec}", "--mcs-only")
    assert result.ret == USAGE_ERROR
    err = result.stderr.str()
    assert f"--mcs-strategy {spec}" in err
    assert reason in err
    assert "Traceback" not in err + result.stdout.str()


@pytest.mark.parametrize("attr", ["DropLast", "factory", "instance"])
def test_class_factory_and_instance_forms(pytester: pytest.Pytester, attr: str) -> None:
    # all three give a DropLast, so the same check fails the same way
    make_project(pytester)
    result = run(pytester, f"--mcs-strategy=brokenstrats:{attr}", "--mcs-only", "--mcs-corpus=corpus",
                 f"--mcs-case={CASE_ID}", "--mcs-check=EXTRACT-001", "--mcs-check=RECOG-003")
    assert outcomes(result) == {item("EXTRACT-001"): "FAILED", item("RECOG-003"): "PASSED"}
    assert f"(brokenstrats:{attr})" in result.stdout.str()


# -- selection and ids -----------------------------------------------------------------------

def test_case_and_check_select_items(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-corpus=corpus",
                 "--mcs-check=RECOG-003", "--mcs-check=STRUCT-002",
                 f"--mcs-case={CASE_ID}", "--mcs-case=openai-chat/openai-text")
    assert result.ret == 0
    assert outcomes(result) == {
        item(check, case): "PASSED"
        for check in ("RECOG-003", "STRUCT-002")
        for case in (CASE_ID, "openai-chat/openai-text")
    }


def test_check_alone_runs_it_on_every_case_it_applies_to(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-corpus=corpus", "--mcs-check=STRUCT-002")
    got = outcomes(result)
    assert item("STRUCT-002") in got and item("STRUCT-002", "openai-chat/openai-text") in got
    assert all(nodeid.startswith("mcs-conformance::STRUCT-002[") for nodeid in got)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--mcs-case=openai-chat/no-such-case", "--mcs-case openai-chat/no-such-case: no such case"),
        ("--mcs-check=SPLIT-999", "--mcs-check SPLIT-999: no such invariant"),
    ],
)
def test_unknown_case_or_check_is_a_usage_error(pytester: pytest.Pytester, option: str, message: str) -> None:
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", option)
    assert result.ret == USAGE_ERROR
    assert message in result.stderr.str()


def test_item_ids_read_id_and_case(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-corpus=corpus",
                 f"--mcs-case={CASE_ID}", "--mcs-check=STRUCT-001", "--mcs-check=SPLIT-002", "--mcs-check=EXTRACT-001")
    # a strategy-wide check is labelled with the strategy's name; named by --mcs-check, it runs too
    assert outcomes(result) == {item("SPLIT-002"): "PASSED", item("EXTRACT-001"): "PASSED",
                                item("STRUCT-001", "text-json"): "PASSED"}
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-corpus=corpus", f"--mcs-case={CASE_ID}",
                 "--mcs-check=SPLIT-002")
    assert outcomes(result) == {item("SPLIT-002"): "PASSED"}  # --mcs-case alone leaves strategy-wide checks out
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001")
    assert outcomes(result) == {item("STRUCT-001", "text-json"): "PASSED"}


def test_collect_only_lists_every_item_in_id_form(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-corpus=corpus", "--collect-only", "-q")
    ids = [line for line in result.outlines if line.startswith("mcs-conformance::")]
    assert item("EXTRACT-001") in ids and item("STRUCT-001", "text-json") in ids
    pattern = re.compile(r"mcs-conformance::[A-Z]+-\d{3}\[([a-z0-9-]+|[a-z0-9-]+/[a-z0-9._-]+)\]")
    assert ids and all(pattern.fullmatch(i) for i in ids)
    assert len(ids) == len(set(ids))


def test_collection_counts_the_conformance_items(pytester: pytest.Pytester) -> None:
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001")
    line = next(x for x in result.outlines if x.startswith("collected "))
    assert "-" not in line.split("/")[-1], line  # "collected 0 items / 199 deselected / -199 selected"
    assert not line.startswith("collected 0 items"), line
    listing = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--collect-only", "-q")
    assert "no tests collected" not in listing.stdout.str()


def test_last_failed_reruns_only_the_failures(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    args = ("-rA", "--mcs-strategy=brokenstrats:DropLast", "--mcs-only", "--mcs-corpus=corpus", f"--mcs-case={CASE_ID}",
            "--mcs-check=EXTRACT-001", "--mcs-check=RECOG-003")
    first = pytester.runpytest(*args)  # with the cache plugin, which --lf needs
    assert outcomes(first) == {item("EXTRACT-001"): "FAILED", item("RECOG-003"): "PASSED"}
    again = pytester.runpytest(*args, "--lf")
    assert outcomes(again) == {item("EXTRACT-001"): "FAILED"}


# -- expected failures ---------------------------------------------------------------------

DROPLAST = ("--mcs-strategy=brokenstrats:DropLast", "--mcs-only", "--mcs-corpus=corpus", f"--mcs-case={CASE_ID}",
            "--mcs-check=EXTRACT-001", "--mcs-check=RECOG-003")


def toml_entry(id: str, case: str, reason: str) -> str:
    """One expect-fail entry as a TOML inline table."""
    return f'{{ id = "{id}", case = "{case}", reason = "{reason}" }}'


def _xfail_reason(result: pytest.RunResult, nodeid: str) -> str:
    line = next(x for x in result.outlines if x.startswith(f"XFAIL {nodeid}"))
    return line.split(" - ", 1)[1]


@pytest.mark.parametrize("where", ["toml", "json", "pyproject"])
def test_declared_failure_becomes_xfailed_with_its_reason(pytester: pytest.Pytester, where: str) -> None:
    make_project(pytester)
    entry = {"id": "EXTRACT-001", "case": CASE_ID, "reason": "loses the last call, issue 7"}
    args: list[str] = []
    if where == "toml":
        pytester.makefile(".toml", expected=f"expect-fail = [{toml_entry(**entry)}]\n")
        args.append("--mcs-expect-fail=expected.toml")
    elif where == "json":
        pytester.makefile(".json", expected=json.dumps({"expect-fail": [entry]}))
        args.append("--mcs-expect-fail=expected.json")
    else:
        pytester.makefile(".toml", pyproject=f"[tool.mcs-conformance]\nexpect-fail = [\n  {toml_entry(**entry)},\n]\n")
    result = run(pytester, *DROPLAST, *args)
    assert result.ret == 0
    assert outcomes(result) == {item("EXTRACT-001"): "XFAIL", item("RECOG-003"): "PASSED"}
    reason = _xfail_reason(result, item("EXTRACT-001"))
    assert "loses the last call, issue 7" in reason
    assert ("pyproject.toml" if where == "pyproject" else f"expected.{where}") in reason
    result.assert_outcomes(passed=1, xfailed=1)


def test_strategy_wide_check_can_be_declared_with_the_strategy_name(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    entry = toml_entry("STRUCT-001", "text-json", "flag is a str for now")
    pytester.makefile(".toml", pyproject=f"[tool.mcs-conformance]\nexpect-fail = [{entry}]\n")
    result = run(pytester, "--mcs-strategy=brokenstrats:BadFlag", "--mcs-only", "--mcs-check=STRUCT-001")
    assert result.ret == 0
    assert outcomes(result) == {item("STRUCT-001", "text-json"): "XFAIL"}


def test_declared_failure_that_passes_fails_and_says_remove_it(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makefile(".toml", expected=f"expect-fail = [{toml_entry('EXTRACT-001', CASE_ID, 'was broken')}]\n")
    result = run(pytester, f"--mcs-strategy={REFERENCE}", *DROPLAST[1:], "--mcs-expect-fail=expected.toml")
    assert result.ret == 1
    assert outcomes(result) == {item("EXTRACT-001"): "FAILED", item("RECOG-003"): "PASSED"}
    text = result.stdout.str()
    assert "now passes" in text and "remove the entry" in text and "expected.toml" in text


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (f'{{ id = "EXTRACT-001", case = "{CASE_ID}" }}', "needs a non-empty string 'reason'"),
        (f'{{ id = "EXTRACT-001", case = "{CASE_ID}", reason = "  " }}', "needs a non-empty string 'reason'"),
        (f'{{ id = "EXTRACT-001", case = "{CASE_ID}", reason = "x", until = "2027" }}', "unknown keys ['until']"),
        (f'{{ id = "EXTRACT-999", case = "{CASE_ID}", reason = "x" }}', "'EXTRACT-999', which is no invariant id"),
        ('{ id = "EXTRACT-001", case = "openai-chat/no-such-case", reason = "x" }', "matches no check that runs"),
        # SPLIT checks apply to the strategy's own format only: never to an openai-chat case
        ('{ id = "SPLIT-001", case = "openai-chat/openai-text", reason = "x" }', "matches no check that runs"),
    ],
)
def test_bad_declarations_are_usage_errors(pytester: pytest.Pytester, entry: str, message: str) -> None:
    make_project(pytester)
    pytester.makefile(".toml", expected=f"expect-fail = [{entry}]\n")
    result = run(pytester, *DROPLAST, "--mcs-expect-fail=expected.toml")
    assert result.ret == USAGE_ERROR
    err = result.stderr.str()
    assert message in err and "expected.toml" in err
    assert "Traceback" not in err


def test_duplicate_declarations_are_an_error(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    line = toml_entry("EXTRACT-001", CASE_ID, "one")
    pytester.makefile(".toml", pyproject=f"[tool.mcs-conformance]\nexpect-fail = [{line}]\n",
                      expected=f"expect-fail = [{line}]\n")
    result = run(pytester, *DROPLAST, "--mcs-expect-fail=expected.toml")
    assert result.ret == USAGE_ERROR
    assert "EXTRACT-001[text-json/two-calls] is declared twice" in result.stderr.str()


def test_missing_expectations_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, *DROPLAST, "--mcs-expect-fail=nowhere.toml")
    assert result.ret == USAGE_ERROR
    assert "nowhere.toml: no such file" in result.stderr.str()


def test_unmatched_declaration_is_a_usage_error_under_xdist(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makefile(".toml", expected=f"expect-fail = [{toml_entry('EXTRACT-001', 'openai-chat/no-such-case', 'x')}]\n")
    result = run_sub(pytester, *DROPLAST, "--mcs-expect-fail=expected.toml", "-n", "2")
    assert "matches no check that runs" in result.stdout.str() + result.stderr.str()
    assert result.ret == USAGE_ERROR


# -- failure reports and reproduction --------------------------------------------------------

def _reproduce_line(result: pytest.RunResult, check_id: str) -> str:
    lines = {x.strip() for x in result.outlines if x.strip().startswith("reproduce: ") and f"--mcs-check={check_id}" in x}
    # under CI pytest repeats the whole failure message in the short summary: one command, maybe twice
    assert len(lines) == 1, result.stdout.str()
    return lines.pop()[len("reproduce: "):]


def _run_command(pytester: pytest.Pytester, command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a printed command as a user pastes it: through a shell, in the folder the run was
    started from; the environment is the test's own, without PYTHONPATH (the command must
    say what it needs)."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("PYTEST_")}
    return subprocess.run(["bash", "-c", command], cwd=pytester.path, env=env or base,
                          capture_output=True, text=True, timeout=HANG)


def test_failure_report_names_check_case_diff_and_a_working_command(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, *DROPLAST)
    assert result.ret == 1
    assert outcomes(result) == {item("EXTRACT-001"): "FAILED", item("RECOG-003"): "PASSED"}
    text = result.stdout.str()
    assert f"EXTRACT-001 failed on case {CASE_ID}" in text
    assert "diff (- expected, + actual):" in text
    # the dropped call shows on the expected side of the diff
    assert any(x.startswith("-") and "get_time" in x for x in result.outlines)
    assert not any(x.startswith("+") and "get_time" in x for x in result.outlines)
    assert "Traceback" not in text
    command = _reproduce_line(result, "EXTRACT-001")
    argv = shlex.split(command)
    assert argv[argv.index("-m") + 1] == "pytest"
    assert "--mcs-strategy=brokenstrats:DropLast" in argv and f"--mcs-case={CASE_ID}" in argv
    again = _run_command(pytester, command)
    assert again.returncode == 1, again.stdout + again.stderr
    assert f"FAILED {item('EXTRACT-001')}" in again.stdout
    assert re.search(r"\b1 failed\b", again.stdout.splitlines()[-1]) and "passed" not in again.stdout.splitlines()[-1]


def test_strategy_that_raises_in_accumulate_fails_that_check_only(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--mcs-strategy=brokenstrats:Raises", "--mcs-only", "--mcs-corpus=corpus",
                 f"--mcs-case={CASE_ID}", "--mcs-check=DISPLAY-001", "--mcs-check=RECOG-003", "--mcs-check=STRUCT-002")
    assert result.ret == 1
    assert outcomes(result) == {item("DISPLAY-001"): "FAILED", item("RECOG-003"): "PASSED", item("STRUCT-002"): "PASSED"}
    text = result.stdout.str()
    assert "DISPLAY-001 failed on case text-json/two-calls" in text
    assert "RuntimeError: accumulate exploded" in text


def test_strategy_returning_a_wrong_type_fails_that_check_only(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--mcs-strategy=brokenstrats:WrongType", "--mcs-only", "--mcs-corpus=corpus",
                 f"--mcs-case={CASE_ID}", "--mcs-check=STRUCT-002", "--mcs-check=DISPLAY-001")
    assert result.ret == 1
    assert outcomes(result) == {item("STRUCT-002"): "FAILED", item("DISPLAY-001"): "PASSED"}
    assert "extract returned tuple, not list" in result.stdout.str()


SLEEPY = ("--mcs-strategy=brokenstrats:Sleepy", "--mcs-only", "--mcs-corpus=corpus", f"--mcs-case={CASE_ID}",
          "--mcs-check=EXTRACT-001", "--mcs-check=RECOG-003", "--mcs-timeout=1")


def test_hanging_strategy_is_stopped_by_the_timeout(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, *SLEEPY)
    assert result.ret == 1
    assert outcomes(result) == {item("EXTRACT-001"): "FAILED", item("RECOG-003"): "PASSED"}
    # the outcome is the proof: had the limit not fired, the 3 s sleep would end and EXTRACT-001 pass
    assert "the check did not finish within 1 s (--mcs-timeout)" in result.stdout.str()


def test_reproduce_command_keeps_the_timeout(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, *SLEEPY)
    again = _run_command(pytester, _reproduce_line(result, "EXTRACT-001"))
    assert again.returncode == 1 and f"FAILED {item('EXTRACT-001')}" in again.stdout, again.stdout


SLOW_PLANNING = '''
import time
from mcs_conformance.strategies import TextStrategy


class SlowRecognizes(TextStrategy):
    """recognizes() takes 5 ms a call: planning, which asks it of every shape, takes seconds."""

    def recognizes(self, shape):
        time.sleep(0.005)
        return super().recognizes(shape)


class HangsInRecognizes(TextStrategy):
    """recognizes() never returns: planning the run cannot end."""

    def recognizes(self, shape):
        while True:
            time.sleep(0.05)
'''


def test_planning_is_not_held_to_a_small_check_limit(pytester: pytest.Pytester) -> None:
    """Planning asks recognizes of every corpus shape; with 5 ms a call it takes longer than the
    checks' 1 s limit on any machine, and still plans: its own limit is PLANNING_LIMIT."""
    make_project(pytester)
    pytester.makepyfile(slowplan=SLOW_PLANNING)
    result = run(pytester, "--mcs-strategy=slowplan:SlowRecognizes", "--mcs-only", "--mcs-corpus=corpus",
                 f"--mcs-case={CASE_ID}", "--mcs-check=EXTRACT-001", "--mcs-timeout=1")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert outcomes(result) == {item("EXTRACT-001"): "PASSED"}


def test_a_strategy_that_hangs_while_the_run_is_planned_is_a_usage_error(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcs_conformance.suite import plugin

    make_project(pytester)
    pytester.makepyfile(slowplan=SLOW_PLANNING)
    monkeypatch.setattr(plugin, "PLANNING_LIMIT", 2.0)
    result = run(pytester, "--mcs-strategy=slowplan:HangsInRecognizes", "--mcs-only", "--mcs-corpus=corpus",
                 "--mcs-timeout=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "planning the run timed out" in result.stderr.str() and "recognizes" in result.stderr.str()


# -- counterexamples -------------------------------------------------------------------------

def test_rechunking_failure_writes_a_valid_counterexample_case(pytester: pytest.Pytester) -> None:
    from mcs_conformance.corpus_tools.schemas import errors

    make_project(pytester)
    result = run(pytester, "--mcs-strategy=brokenstrats:DropSingles", "--mcs-only", "--mcs-corpus=corpus",
                 "--mcs-profile=ci",
                 f"--mcs-case={CASE_ID}", "--mcs-check=SPLIT-001", "--mcs-check=SPLIT-002", "--mcs-check=SPLIT-003")
    assert result.ret == 1
    # merging never makes a one-character chunk: SPLIT-002 holds for this defect
    assert outcomes(result) == {item("SPLIT-001"): "FAILED", item("SPLIT-002"): "PASSED", item("SPLIT-003"): "FAILED"}
    text = result.stdout.str()
    assert "chunks (" in text
    folder = pytester.path / ".mcs-conformance" / "counterexamples"
    files = sorted(folder.rglob("*.json"))
    assert [f.name for f in files] == ["counterexample-split-001-two-calls.json", "counterexample-split-003-two-calls.json"]
    for f in files:
        assert f"counterexample case written to {f}" in text
        data = json.loads(f.read_text(encoding="utf-8"))
        assert errors("case.schema.json", data) == []
        assert f.parent.name == data["format"] == "text-json"
        assert data["expect"] == TWO_CALLS["expect"]
        assert "".join(data["chunks"]) == "".join(_TEXT_PARTS)
        assert any(len(c) == 1 for c in data["chunks"]) and data["chunks"] != _TEXT_PARTS

    # the folder is an author corpus: the reference passes on it, the broken strategy fails
    ids = [json.loads(f.read_text(encoding="utf-8"))["id"] for f in files]
    selection = ["--mcs-only", "--mcs-corpus=.mcs-conformance/counterexamples", *(f"--mcs-case={i}" for i in ids),
                 "--mcs-check=DISPLAY-001", "--mcs-check=PARITY-001", "--mcs-check=EXTRACT-001"]
    good = run(pytester, f"--mcs-strategy={REFERENCE}", *selection)
    assert good.ret == 0
    assert set(outcomes(good).values()) == {"PASSED"} and len(outcomes(good)) == 6
    bad = run(pytester, "--mcs-strategy=brokenstrats:DropSingles", *selection)
    assert {nodeid for nodeid, o in outcomes(bad).items() if o == "FAILED"} == {item("DISPLAY-001", i) for i in ids} | {
        item("PARITY-001", i) for i in ids
    }


@pytest.mark.parametrize("check_id,broken", [("SPLICE-001", "ChatContentMeansNoCalls"), ("PREFIX-003", "ChatDoneOnCutFinish")])
def test_a_failure_on_a_derived_stream_prints_its_recipe_and_writes_a_case(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, check_id: str, broken: str) -> None:
    from mcs_conformance.corpus_tools.schemas import errors

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    case_id = "openai-chat/tool-call-non-strict"
    result = run(pytester, f"--mcs-strategy=tests.zoo.broken:{broken}", "--mcs-only", f"--mcs-check={check_id}",
                 f"--mcs-case={case_id}")
    assert outcomes(result) == {item(check_id, case_id): "FAILED"}
    text = result.stdout.str()
    assert "how the stream was made:" in text
    assert ("splice: head and body of " + case_id) in text if check_id == "SPLICE-001" else "cut after chunk" in text
    files = sorted((pytester.path / ".mcs-conformance" / "counterexamples").rglob("*.json"))
    assert len(files) == 1 and f"counterexample case written to {files[0]}" in text
    data = json.loads(files[0].read_text(encoding="utf-8"))
    assert errors("case.schema.json", data) == [] and data["provenance"]["why"].startswith(f"derived by {check_id}")
    # the file is an author corpus: the reference passes on it, the broken strategy does not
    selection = ["--mcs-only", "--mcs-corpus=.mcs-conformance/counterexamples", f"--mcs-case={data['id']}", "-k", "not GOLDEN"]
    good = run(pytester, "--mcs-strategy=mcs_conformance.strategies:OpenAIChatStrategy", *selection)
    assert good.ret == 0 and "FAILED" not in set(outcomes(good).values()), good.stdout.str()[-3000:]
    bad = run(pytester, f"--mcs-strategy=tests.zoo.broken:{broken}", *selection)
    assert "FAILED" in set(outcomes(bad).values())


def test_a_failure_on_a_synthesized_stream_writes_a_case_that_reproduces_it(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """ROUNDTRIP-002 makes its stream from nothing: the failing stream is saved as a case of the
    format, expecting the written calls, which fails the strategy again and passes the reference."""
    from mcs_conformance.corpus_tools.schemas import errors

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    broken = "--mcs-strategy=tests.zoo.broken:AnthropicTrimsStringArguments"
    result = run(pytester, broken, "--mcs-only", "--mcs-check=ROUNDTRIP-002")
    assert outcomes(result) == {item("ROUNDTRIP-002", "anthropic-messages"): "FAILED"}
    text = result.stdout.str()
    files = sorted((pytester.path / ".mcs-conformance" / "counterexamples" / "anthropic-messages").glob("*.json"))
    assert len(files) == 1 and f"counterexample case written to {files[0]}" in text, text[-3000:]
    data = json.loads(files[0].read_text(encoding="utf-8"))
    assert errors("case.schema.json", data) == [] and data["provenance"]["why"].startswith("derived by ROUNDTRIP-002")
    selection = ["--mcs-only", "--mcs-corpus=.mcs-conformance/counterexamples", f"--mcs-case={data['id']}",
                 "--mcs-check=EXTRACT-001", "--mcs-check=CHAIN-001"]
    good = run(pytester, "--mcs-strategy=mcs_conformance.strategies:AnthropicMessagesStrategy", *selection)
    assert good.ret == 0 and set(outcomes(good).values()) == {"PASSED"}, good.stdout.str()[-3000:]
    bad = run(pytester, broken, *selection)
    assert set(outcomes(bad).values()) == {"FAILED"}, bad.stdout.str()[-3000:]


# -- profiles and corpus pin -----------------------------------------------------------------

def _header(result: pytest.RunResult) -> str:
    return next(x for x in result.outlines if x.startswith("mcs-conformance ") and "hypothesis profile" in x)


@pytest.mark.parametrize("profile", ["ci", "dev", "thorough"])
def test_profile_option_is_accepted_and_shown(pytester: pytest.Pytester, profile: str) -> None:
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001", f"--mcs-profile={profile}")
    assert result.ret == 0
    assert _header(result).endswith(f"hypothesis profile {profile}, gate should")


def test_invalid_profile_is_rejected(pytester: pytest.Pytester) -> None:
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-profile=fast")
    assert result.ret == USAGE_ERROR
    assert "invalid choice: 'fast'" in result.stderr.str()


@pytest.mark.parametrize(
    ("ci", "option", "profile"), [(None, None, "dev"), ("true", None, "ci"), ("true", "thorough", "thorough")]
)
def test_ci_environment_makes_ci_the_default_profile(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None, option: str | None, profile: str
) -> None:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    args = [f"--mcs-profile={option}"] if option else []
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001", *args)
    assert result.ret == 0
    assert _header(result).endswith(f"hypothesis profile {profile}, gate should")


def test_corpus_version_pin(pytester: pytest.Pytester) -> None:
    manifest = Path(mcs_conformance.__file__).parent / "corpus" / "manifest.json"
    version = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    args = (f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-check=STRUCT-001")
    ok = run(pytester, *args, f"--mcs-corpus-version={version}")
    assert ok.ret == 0
    bad = run(pytester, *args, "--mcs-corpus-version=1999.1.0")
    assert bad.ret == USAGE_ERROR
    assert f"the installed corpus is {version}" in bad.stderr.str()


def test_invalid_author_corpus_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    path = pytester.path / "corpus" / "cases" / "text-json" / "two-calls.json"
    path.write_text(json.dumps({**TWO_CALLS, "tags": "parallel"}), encoding="utf-8")
    result = run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", "--mcs-corpus=corpus")
    assert result.ret == USAGE_ERROR
    assert "two-calls.json" in result.stderr.str() and "Traceback" not in result.stderr.str()


# -- golden snapshots ------------------------------------------------------------------------

GOLDEN = ("--mcs-only", "--mcs-corpus=corpus", "--mcs-check=GOLDEN-001",
          f"--mcs-case={CASE_ID}", "--mcs-case=openai-chat/openai-text")


def _golden_folder(root: Path, name: str, spec: str) -> Path:
    return root / "tests" / "mcs-conformance" / f"{name}@{spec.replace(':', '.')}" / "__snapshots__" / "golden"


@pytest.mark.parametrize("tests_dir", [True, False])
def test_golden_snapshots_first_run_says_how_to_create_them_then_passes(pytester: pytest.Pytester, tests_dir: bool) -> None:
    make_project(pytester)
    if tests_dir:
        pytester.mkdir("tests")
    chat = "mcs_conformance.strategies:OpenAIChatStrategy"
    golden = {"text-json": _golden_folder(pytester.path, "text-json", REFERENCE),
              "openai-chat": _golden_folder(pytester.path, "openai-chat", chat)}

    first = run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN)
    assert first.ret == 1
    assert first.parseoutcomes()["skipped"] == 2 and not {"passed", "failed", "error"} & set(first.parseoutcomes())
    text = first.stdout.str()
    assert text.count("do not exist yet") == 1, text
    assert "2 golden snapshot(s) of strategy text-json do not exist yet" in text
    assert "Traceback" not in text
    command = next(x.strip() for x in first.outlines if x.strip().endswith("--snapshot-update"))
    made = _run_command(pytester, command)
    assert made.returncode == 0, made.stdout[-3000:]
    files = sorted(golden["text-json"].iterdir())
    # the command keeps the run's selection: it creates the two snapshots the run missed, no others
    assert [f.name for f in files] == ["GOLDEN-001[openai-chat%2Fopenai-text].json", "GOLDEN-001[text-json%2Ftwo-calls].json"]
    mine = golden["text-json"] / "GOLDEN-001[text-json%2Ftwo-calls].json"
    snapshot = json.loads(mine.read_text(encoding="utf-8"))
    assert [c["name"] for c in snapshot["calls"]] == ["get_weather", "get_time"]
    before = {f.name: f.read_text(encoding="utf-8") for f in files}

    again = run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN)
    assert again.ret == 0
    assert set(outcomes(again).values()) == {"PASSED"} and len(outcomes(again)) == 2

    other = run(pytester, f"--mcs-strategy={chat}", *GOLDEN, "--snapshot-update")
    assert other.ret == 0
    assert len(list(golden["openai-chat"].iterdir())) >= 1
    assert {f.name: f.read_text(encoding="utf-8") for f in golden["text-json"].iterdir()} == before
    assert run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN).ret == 0


def test_two_strategies_of_the_same_name_keep_their_own_snapshots(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    for spec in (REFERENCE, "brokenstrats:DropLast"):
        assert run(pytester, f"--mcs-strategy={spec}", *GOLDEN, "--snapshot-update").ret == 0
    for spec in (REFERENCE, "brokenstrats:DropLast"):
        assert run(pytester, f"--mcs-strategy={spec}", *GOLDEN).ret == 0
    mine = _golden_folder(pytester.path, "text-json", "brokenstrats:DropLast")
    reference = _golden_folder(pytester.path, "text-json", REFERENCE)
    assert {f.name for f in mine.iterdir()} == {f.name for f in reference.iterdir()}
    two = next(f for f in mine.iterdir() if "two-calls" in f.name)
    calls = json.loads(two.read_text(encoding="utf-8"))["calls"]
    assert [c["name"] for c in calls] == ["get_weather"]  # DropLast's own outputs, not the reference's


def test_snapshot_dir_option_and_table_choose_the_folder(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    assert run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN, "--mcs-snapshot-dir=golden/mine",
               "--snapshot-update").ret == 0
    assert len(list((pytester.path / "golden" / "mine" / "__snapshots__" / "golden").iterdir())) == 2
    pytester.makepyprojecttoml('[tool.mcs-conformance]\nsnapshot-dir = "golden/mine"\n')
    assert run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN).ret == 0


def test_golden_snapshot_change_is_shown_as_a_diff(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    args = ("--mcs-only", "--mcs-corpus=corpus", "--mcs-check=GOLDEN-001", f"--mcs-case={CASE_ID}")
    assert run(pytester, f"--mcs-strategy={REFERENCE}", *args, "--snapshot-update").ret == 0
    # the strategy changed (here: another one told to use the reviewed snapshots)
    folder = _golden_folder(pytester.path, "text-json", REFERENCE).parent.parent
    result = run(pytester, "--mcs-strategy=brokenstrats:DropLast", *args, f"--mcs-snapshot-dir={folder}",
                 "--mcs-report=report.json")
    assert outcomes(result) == {item("GOLDEN-001"): "FAILED"}
    text = result.stdout.str()
    assert "the outputs differ from the reviewed snapshot" in text and "--snapshot-update" in text
    # the snapshot holds get_time, the broken strategy's outputs do not: a removed line
    assert any(x.startswith("-") and "get_time" in x for x in result.outlines), text
    message = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))["results"][0]["message"]
    assert "\x1b[" not in text + message


def test_project_snapshots_and_golden_snapshots_leave_each_other_alone(pytester: pytest.Pytester) -> None:
    pytester.mkdir("tests")
    own = pytester.path / "tests" / "test_own.py"
    own.write_text('def test_own(snapshot):\n    assert {"a": 1} == snapshot\n', encoding="utf-8")
    assert run(pytester, "--snapshot-update").ret == 0
    ambr = pytester.path / "tests" / "__snapshots__" / "test_own.ambr"
    assert ambr.is_file()
    golden = ("--mcs-check=GOLDEN-001", "--mcs-case=openai-chat/openai-text", "--snapshot-update")
    assert run(pytester, f"--mcs-strategy={REFERENCE}", "--mcs-only", *golden).ret == 0
    folder = _golden_folder(pytester.path, "text-json", REFERENCE)
    assert len(list(folder.iterdir())) == 1 and ambr.is_file()
    assert run(pytester, "--snapshot-update").ret == 0  # the project's own run, no strategy
    assert len(list(folder.iterdir())) == 1 and ambr.is_file()
    both = run(pytester, f"--mcs-strategy={REFERENCE}", *golden)
    assert outcomes(both) == {"tests/test_own.py::test_own": "PASSED", item("GOLDEN-001", "openai-chat/openai-text"): "PASSED"}
    assert len(list(folder.iterdir())) == 1 and ambr.is_file()


# -- a hanging strategy, the suite's own faults, bounded output -------------------------------

def test_a_hanging_strategy_times_out_once_and_every_other_item_is_reported_at_once(pytester: pytest.Pytester) -> None:
    """accumulate never returns (and swallows every Exception): the first item that calls it
    times out, naming the method; the next LEASHED_HANGS that call it time out too (the limit
    of 2 s leaves no room for a shorter leash), and every later item that would call it fails
    at once with a pointer to the first time-out; the items that do not call it still pass.
    Every collected item gets a verdict."""
    from mcs_conformance.suite.time_limits import LEASHED_HANGS

    make_project(pytester)
    # on a loaded machine many checks run out of their 2 s (allowed below), so the run may take
    # minutes; the bound is the run's, not each item's
    result = run_sub(pytester, "--mcs-strategy=brokenstrats:Hangs", "--mcs-only", "--mcs-corpus=corpus",
                     "--mcs-timeout=2", "--mcs-profile=ci", "-n", "2", "--mcs-report=report.json", timeout=900)
    tail = "\n".join(result.outlines[-40:])
    assert result.ret == 1, tail
    collected = int(re.search(r"collected (\d+) items|(\d+) items", result.stdout.str()).group(0).split()[-2])
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert len(report["results"]) == collected > 500, tail
    messages = [r["message"] for r in report["results"] if r["outcome"] == "failed"]
    timed_out = [m for m in messages if "did not finish within 2 s" in m]
    hung = [m for m in timed_out if "one call of the strategy's accumulate was still running" in m]
    per_worker = collections.Counter(re.match(r"\[(gw\d+)\]", m).group(1) for m in hung)
    # per worker process: the first time-out, then LEASHED_HANGS on the leash
    assert hung and all(n <= LEASHED_HANGS + 1 for n in per_worker.values()), (per_worker, tail)
    tripped = [m for m in messages if "accumulate is not called again: it timed out in" in m]
    assert len(tripped) > 50, (len(tripped), messages[:5])
    # every other failure is a check that ran out of time on a loaded machine; a method that
    # answers may still be blamed there when one of its calls was kept off the CPU for half
    # the 2 s limit, but accumulate is never blamed beyond its leash
    others = [m for m in messages if m not in tripped + hung]
    assert all("did not finish" in m and "accumulate was still running" not in m for m in others), others[:3]
    assert any(r["outcome"] == "passed" for r in report["results"])  # RECOG, EXTRACT... never feed


SUITE_BUG = '''
from mcs_conformance.suite.invariants.base import check


@check("ZZZ-001", "a check with a bug of its own", why="to see how the plugin reports the suite's own faults",
       scope="strategy")
def broken_check(subject, case):
    return {}["no such key"]


@check("ZZZ-002", "a check whose strategy call raises", why="the strategy's exception is the strategy's fault",
       scope="strategy")
def strategy_raises(subject, case):
    subject.strategy.extract({"no": "message"})
    subject.strategy.accumulate(None, None)
'''


def test_an_exception_of_the_suite_itself_is_an_error_that_says_so(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makepyfile(suitebug=SUITE_BUG)
    result = run(pytester, "-p", "suitebug", f"--mcs-strategy={REFERENCE}", "--mcs-only",
                 "--mcs-check=ZZZ-001", "--mcs-check=ZZZ-002", "--mcs-report=report.json")
    try:
        assert result.ret == 1
        assert outcomes(result) == {item("ZZZ-001", "text-json"): "ERROR", item("ZZZ-002", "text-json"): "FAILED"}
        text = result.stdout.str()
        assert "the suite's own code raised KeyError: 'no such key'. This is a bug in mcs-conformance" in text
        assert "the strategy's extract raised ValueError" in text
        report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
        assert {r["id"]: r["outcome"] for r in report["results"]} == {"ZZZ-001": "error", "ZZZ-002": "failed"}
    finally:
        from mcs_conformance.suite.invariants import CHECKS

        CHECKS.pop("ZZZ-001", None)
        CHECKS.pop("ZZZ-002", None)


LONG = "0123456789abcdef" * 400  # 6,400 characters, as a signature or an encrypted blob


def _long_case(pytester: pytest.Pytester) -> None:
    case = dict(TWO_CALLS, id="text-json/long-argument", chunks=[*_TEXT_PARTS[:3], _TEXT_PARTS[3].replace("CET", LONG)])
    case["expect"] = dict(TWO_CALLS["expect"], message="".join(case["chunks"]), content_text="".join(case["chunks"]),
                          calls=[TWO_CALLS["expect"]["calls"][0], {"name": "get_time", "arguments": {"tz": LONG}, "id": None}])
    path = pytester.path / "corpus" / "cases" / "text-json" / "long-argument.json"
    path.write_text(json.dumps(case), encoding="utf-8")


def test_failure_reports_cut_long_strings_and_fit_a_screen_unless_asked(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    _long_case(pytester)
    args = ("--mcs-strategy=brokenstrats:DropLast", "--mcs-only", "--mcs-corpus=corpus",
            "--mcs-case=text-json/long-argument", "--mcs-check=EXTRACT-001", "--mcs-check=PARITY-001")
    short = run(pytester, *args)
    text = short.stdout.str()
    assert short.ret == 1 and LONG not in text
    assert "6,400 chars" in text or "6,4" in text, text[-3000:]
    report = text.split("EXTRACT-001 failed on case", 1)[1].split("reproduce:", 1)[0]
    assert len(report.splitlines()) <= 60 and max(map(len, report.splitlines())) <= 260
    full = run(pytester, *args, "-vv")
    assert full.ret == 1 and LONG in full.stdout.str()


def test_strings_that_differ_inside_are_cut_around_the_difference() -> None:
    from mcs_conformance.suite.failures import diff

    a, b = "x" * 3000 + "A" + "y" * 3000, "x" * 3000 + "B" + "y" * 3000
    shown = diff({"sig": a}, {"sig": b})
    assert '"A' in shown.replace("xA", '"A') or "A" in shown and "B" in shown
    assert "6,001 chars" in shown and len(shown) < 1000


def test_a_chunk_mutating_strategy_fails_pure_001_and_spoils_no_other_check(pytester: pytest.Pytester) -> None:
    """Every check gets its own copy of the case: a strategy that mutates a chunk is failed by
    PURE-001, and the checks after it see the chunks as recorded."""
    pytester.makepyfile(mutator='''
from mcs_conformance.strategies import OpenAIChatStrategy


class Mutator(OpenAIChatStrategy):
    def accumulate(self, acc, chunk):
        out = super().accumulate(acc, chunk)
        if isinstance(chunk, dict):
            for choice in chunk.get("choices") or []:
                choice.pop("logprobs", None)
                choice["index"] = False if choice.get("index") == 0 else choice.get("index")
        return out
''')
    pytester.syspathinsert()
    result = run(pytester, "--mcs-strategy=mutator:Mutator", "--mcs-only", "--mcs-case=openai-chat/tool-call-non-strict",
                 "--mcs-check=PURE-001", "--mcs-check=PARITY-001", "--mcs-check=EXTRACT-001", "--mcs-check=DISPLAY-001",
                 "-p", "no:randomly")
    got = outcomes(result)
    assert got[item("PURE-001", "openai-chat/tool-call-non-strict")] == "FAILED"
    assert {k: v for k, v in got.items() if "PURE-001" not in k} == {
        item(c, "openai-chat/tool-call-non-strict"): "PASSED" for c in ("PARITY-001", "EXTRACT-001", "DISPLAY-001")}
    assert "feeding chunk 0 mutated it" in result.stdout.str()


def test_reproduce_line_works_from_the_shell_without_the_runs_environment(pytester: pytest.Pytester) -> None:
    """The run had the strategy on a PYTHONPATH given for that command only, an explicit
    --rootdir and a relative author corpus: the printed line, pasted into a shell in the same
    folder without that PYTHONPATH, reruns the same failing item."""
    make_project(pytester)
    lib = pytester.path / "lib"
    lib.mkdir()
    (pytester.path / "brokenstrats.py").rename(lib / "brokenstrats.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(lib)
    first = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--rootdir={pytester.path}",
                            *DROPLAST], cwd=pytester.path, env=env, capture_output=True, text=True, timeout=HANG)
    assert first.returncode == 1, first.stdout[-3000:]
    line = next(x.strip()[len("reproduce: "):] for x in first.stdout.splitlines()
                if x.strip().startswith("reproduce: ") and "EXTRACT-001" in x)
    assert line.startswith(f"PYTHONPATH={lib}") and f"--rootdir={pytester.path}" in line and "--mcs-corpus=corpus" in line
    again = _run_command(pytester, line)
    assert again.returncode == 1, again.stdout[-3000:] + again.stderr[-2000:]
    assert f"FAILED {item('EXTRACT-001')}" in again.stdout


def test_corpus_and_gate_can_live_in_the_pyproject_table(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makepyprojecttoml('[tool.mcs-conformance]\ncorpus = ["corpus"]\ngate = "must"\n')
    result = run(pytester, "--mcs-strategy=brokenstrats:DropLast", "--mcs-only", f"--mcs-case={CASE_ID}",
                 "--mcs-check=EXTRACT-001")
    assert outcomes(result) == {item("EXTRACT-001"): "FAILED"}
    assert "gate must" in result.stdout.str()
    pytester.makepyprojecttoml('[tool.mcs-conformance]\ncorpus = "corpus"\ngate = "strict"\n')
    bad = run(pytester, "--mcs-strategy=brokenstrats:DropLast", "--mcs-only")
    assert bad.ret == USAGE_ERROR and "gate must be one of must, should, reference" in bad.stderr.str()


FINISH_RAISES = '''
from mcs_conformance.strategies import TextStrategy


class FinishRaises(TextStrategy):
    """Grows the text with a finish callback that raises when the message is read."""

    def accumulate(self, acc, chunk):
        if acc.root is None:
            acc.root = {"text": ""}
        acc.append(acc.root, "text", chunk, self._finish)
        return chunk

    @staticmethod
    def _finish(text):
        raise KeyError("the finish callback broke")
'''


def test_an_exception_of_the_strategys_own_callback_is_the_strategys(pytester: pytest.Pytester) -> None:
    """A finish callback runs when the message is read, outside every strategy method: its
    exception is still the strategy's failure, not a bug of the suite."""
    make_project(pytester)
    pytester.makepyfile(finishraises=FINISH_RAISES)
    result = run(pytester, "--mcs-strategy=finishraises:FinishRaises", "--mcs-only", "--mcs-corpus=corpus",
                 f"--mcs-case={CASE_ID}", "--mcs-check=DISPLAY-001")
    assert outcomes(result) == {item("DISPLAY-001"): "FAILED"}
    text = result.stdout.str()
    assert "the strategy's code raised KeyError" in text and "bug in mcs-conformance" not in text
