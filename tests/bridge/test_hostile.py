"""Hostile strategies through the bridge (docs/bridge.md, "What happens when a peer fails"):
the suite runs in a subprocess on a strategy that exits, raises SystemExit, segfaults,
allocates gigabytes, floods stderr, prints to stdout, hangs, or (a peer written by hand)
breaks the protocol, each on one marked chunk or message only. Every run must end, exit 1
(failures, not a crash or a usage error), report every selected item (the summary line's
count against a collection of the same selection), fail exactly the items the misbehaviour
reached with a text that names the cause, and leave no process behind: each run's
environment carries a token of its own, and no process holding it may be alive after it.

The selection (DISPLAY-001 and EXTRACT-001 on three text-json cases) keeps each run to
seconds; the marker is in only one of them (tests/bridge/peers/__init__.py)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mcs_conformance.bridge.client import CRASHES_TO_TRIP
from mcs_conformance.suite.invariants import CHECKS
from tests.helpers.limits import HANG
from tests.helpers.projects import subprocess_env

ROOT = Path(__file__).resolve().parents[2]
RAW = Path(__file__).resolve().parent / "peers" / "raw.py"
PEERS = "tests.bridge.peers"
REFERENCE = "mcs_conformance.strategies:TextStrategy"
MARKED = "text-json/syn-hermes-tag-split"  # the one case whose chunk and message hold the marker
CASES = (MARKED, "text-json/syn-no-call", "text-json/syn-str-chunks-two-calls")
SELECT = ("--mcs-check=DISPLAY-001", "--mcs-check=EXTRACT-001", *(f"--mcs-case={c}" for c in CASES))
TOKEN = "MCS_HOSTILE_TOKEN"
RUN_LIMIT = HANG  # seconds: a guard against a run that never ends; every run here ends in seconds


def item(check: str, case: str = MARKED) -> str:
    return f"mcs-conformance::{check}[{case}]"


def isolated(attr: str, *options: str) -> tuple[str, ...]:
    return (f"--mcs-strategy={PEERS}.{attr}", "--mcs-isolate", *options)


def raw(mode: str) -> tuple[str, ...]:
    """The hand-written peer as exec:COMMAND, the run's token on its command line."""
    return (f"--mcs-strategy=exec:{shlex.join([sys.executable, str(RAW), mode, '@TOKEN@'])}",)


@dataclass
class Run:
    code: int
    out: str
    seconds: float
    max_rss_mib: float
    counts: dict[str, int]
    failed: set[str]
    errors: set[str]
    texts: dict[str, str]
    leftovers: list[str] = field(default_factory=list)

    def reported(self) -> int:
        return sum(self.counts.get(k, 0) for k in ("passed", "failed", "error", "errors"))

    def tail(self) -> str:
        return self.out[-3000:]


def _env(token: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in subprocess_env(ROOT).items() if not k.startswith("PYTEST_")}
    env.update({TOKEN: token, "COLUMNS": "200", **(extra or {})})
    return env


def _command(args: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--mcs-only", "-q", "-rfE", *args]


def _processes_with(token: str) -> list[tuple[int, str]]:
    """Live processes (not zombies) whose environment or command line holds the token."""
    needle, found = f"{TOKEN}={token}".encode(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and (needle in environ or token.encode() in cmdline):
            found.append((int(entry), cmdline.replace(b"\0", b" ").decode("utf-8", "replace").strip()))
    return found


def _leftovers(token: str, wait: float = 3.0) -> list[str]:
    """The processes of a run still alive ``wait`` seconds after it ended; they are then killed
    (each by its pid: the test started them) so one failing test leaves nothing either."""
    deadline = time.monotonic() + wait
    while (found := _processes_with(token)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid, _ in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return [f"{pid}: {cmd}" for pid, cmd in found]


def _wait(proc: subprocess.Popen[bytes], limit: float) -> tuple[int, float] | None:
    """Reap ``proc`` within ``limit`` seconds: (exit code, max resident MiB), or None."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_maxrss / 1024
        time.sleep(0.05)
    return None


_HEADER = re.compile(r"^_+ ([A-Z]+-\d+\[[^\]\s]*\])")


def _parse(out: str) -> tuple[dict[str, int], set[str], set[str], dict[str, str]]:
    """The summary line's counts, the FAILED and ERROR node ids, and each failure's text."""
    lines = out.splitlines()
    summary = next((line for line in reversed(lines) if re.search(r"\d+ \w+.* in [\d.]+s", line)), "")
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|errors?|deselected|skipped)", summary)}
    failed = set(re.findall(r"^FAILED (mcs-conformance::\S+)", out, re.M))
    errors = set(re.findall(r"^ERROR (mcs-conformance::\S+)", out, re.M))
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        head = _HEADER.match(line)
        if head:
            current = blocks.setdefault(f"mcs-conformance::{head.group(1)}", [])
        elif line.startswith("="):
            current = None
        elif current is not None:
            current.append(line)
    return counts, failed, errors, {node: "\n".join(block) for node, block in blocks.items()}


def run_suite(tmp: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """The suite on ``args`` in a subprocess, in ``tmp``; every process it left is listed."""
    token = uuid.uuid4().hex
    args = tuple(a.replace("@TOKEN@", token) for a in args)
    log = tmp / f"run-{token[:8]}.txt"
    started = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(_command(args), cwd=tmp, env=_env(token, env), stdout=out, stderr=subprocess.STDOUT)
        ended = _wait(proc, RUN_LIMIT)
    if ended is None:
        proc.kill()
        proc.wait()
        left = _leftovers(token)
        pytest.fail(f"the run did not end within {RUN_LIMIT:g} s; left: {left}\n{log.read_text(errors='replace')[-3000:]}")
    code, rss = ended
    text = log.read_text(encoding="utf-8", errors="replace")
    counts, failed, errors, texts = _parse(text)
    return Run(code, text, time.monotonic() - started, rss, counts, failed, errors, texts, _leftovers(token))


@pytest.fixture(scope="session")
def selected(tmp_path_factory: pytest.TempPathFactory):
    """The node ids a selection collects for the reference text strategy, in-process (the
    hostile strategies are subclasses of it, of the same name and members)."""
    where, cache = tmp_path_factory.mktemp("collect"), {}

    def collect(*args: str) -> list[str]:
        if args not in cache:
            done = subprocess.run([*_command((f"--mcs-strategy={REFERENCE}", *args)), "--collect-only"], cwd=where,
                                  env=_env("collect"), capture_output=True, text=True, timeout=RUN_LIMIT)
            ids = [line.strip() for line in done.stdout.splitlines() if line.startswith("mcs-conformance::")]
            assert done.returncode == 0 and ids, done.stdout[-2000:] + done.stderr[-2000:]
            cache[args] = ids
        return cache[args]

    return collect


def assert_every_item_reported(run: Run, ids: list[str], failing: set[str]) -> None:
    assert run.code == (1 if failing or run.errors else 0), f"exit code {run.code}\n{run.tail()}"
    assert run.reported() == len(ids), f"{run.counts} for {len(ids)} selected\n{run.tail()}"
    assert run.failed == failing, f"failed {sorted(run.failed)}, expected {sorted(failing)}\n{run.tail()}"
    assert failing <= set(ids) and len(ids) - len(failing) >= 1  # others ran beside it, and passed
    assert not run.leftovers, f"processes left running after the run: {run.leftovers}"


# -- one misbehaviour, one item failed with its cause -------------------------------------------

HOSTILE = {
    # name: (the strategy's options, {failing item: [what its text must say]})
    "os._exit(3)": (isolated("exit_code:ExitsOnMarker"), {
        item("DISPLAY-001"): [r"the strategy's process: the peer exited with code 3 while serving accumulate",
                              r"its last lines on stderr:\s+exit_code: leaving with code 3"]}),
    "SystemExit(5)": (isolated("system_exit:SystemExitOnMarker"), {
        item("EXTRACT-001"): [r"the peer exited with code 5 while serving extract"]}),
    "segfault": (isolated("segfault:SegfaultOnMarker"), {
        item("DISPLAY-001"): [r"the peer was killed by signal SIGSEGV while serving accumulate"]}),
    "gigabytes": (isolated("memory:AllocatesOnMarker", "--mcs-memory-limit=300", "--mcs-timeout=60"), {
        item("EXTRACT-001"): [r"the peer used (\d+) MiB serving extract, over the limit of 300 MiB "
                              r"\(--mcs-memory-limit\); it was killed"]}),
    "stderr flood": (isolated("stderr_flood:FloodsStderr"), {
        item("DISPLAY-001"): [r"the peer exited with code 4 while serving accumulate", r"its last lines on stderr:"]}),
    "hang": (isolated("hang:HangsOnMarker", "--mcs-timeout=3"), {
        # the other cases' extract answers on the leash: they pass, whichever worker ran them first
        item("EXTRACT-001"): [r"(did not answer extract within 3 s \(--mcs-timeout\)|did not finish within 3 s "
                              r"\(--mcs-timeout\): one call of the strategy's extract was still running)"]}),
    "wrong id": (raw("wrong-id"), {
        item("DISPLAY-001"): [r"the peer broke the protocol serving accumulate: it answered request (\d+) "
                              r"with the id (\d+); it was killed"]}),
    "invalid JSON": (raw("bad-json"), {
        item("DISPLAY-001"): [r"the peer broke the protocol serving accumulate: it wrote a line that is not JSON"]}),
    "a line that is no reply": (raw("not-reply"), {
        item("DISPLAY-001"): [r"the peer broke the protocol serving accumulate: it wrote a line that is no reply",
                              r'the line: \{"log": "accumulating a chunk with the marker"\}']}),
    "an endless line": (raw("endless-line") + ("--mcs-timeout=3",), {
        item("DISPLAY-001"): [r"the peer broke the protocol serving accumulate: it wrote a line of more than \d+ MiB "
                              r"without an end; it was killed"]}),
    "an extra line": (raw("extra-line"), {  # charged to the reply it followed, not to the next request
        item("DISPLAY-001"): [r"the peer broke the protocol after its reply to request \d+ \(accumulate, in "
                              r"DISPLAY-001\[text-json/syn-hermes-tag-split\]\): it wrote a line that nothing asked for",
                              r'the line: \{"id": \d+, "ok": ".*zoo'],
    }),
    "a truncated line, then exit 0": (raw("truncated-exit"), {
        item("DISPLAY-001"): [r"the peer exited with code 0 while serving accumulate after writing part of a line",
                              r'its last output, a line it never ended: \{"id": \d+, "ok']}),
    # what the peer started in a session of its own goes with it (docs/bridge.md)
    "a setsid child": (isolated("setsid_child:StartsSessionOnMarker"), {}),
    "a setsid child, then exit": (isolated("setsid_child:StartsSessionThenExits"), {
        item("DISPLAY-001"): [r"the peer exited with code 3 while serving accumulate"]}),
}

@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_strategy_fails_the_items_it_reached_and_every_item_is_reported(
        name: str, tmp_path: Path, selected) -> None:
    options, failing = HOSTILE[name]
    ids = selected(*SELECT)
    run = run_suite(tmp_path, *options, *SELECT)
    assert_every_item_reported(run, ids, set(failing))
    for node, patterns in failing.items():
        text = run.texts.get(node, "")
        for pattern in patterns:
            assert re.search(pattern, text), f"{node} does not say /{pattern}/:\n{text[:3000]}"
        # the cause is the peer's, not the check's: its rationale is not printed as why it matters
        why = re.search(r"why it matters: (.*)", text).group(1)
        assert why != CHECKS[node.split("::")[1].split("[")[0]].why, f"{node}: {why}"
        assert re.search(r"the strategy's process|does not return|what protocol 1 does not allow", why), f"{node}: {why}"
    if failing:  # the summary names the first failure
        assert re.search(r"failed on a time limit or the strategy's process rather than on an answer; the first was "
                         r"[A-Z]+-\d+\[", run.out), run.tail()
    if name == "wrong id":
        asked, answered = re.search(r"answered request (\d+) with the id (\d+)", run.texts[item("DISPLAY-001")]).groups()
        assert int(answered) == int(asked) + 1
    if name == "gigabytes":
        used = int(re.search(r"used (\d+) MiB", run.texts[item("EXTRACT-001")]).group(1))
        assert 300 <= used < 2048  # stopped on the way to 3 GiB (shown rounded: 300.4 MiB reads "300")
    if name == "stderr flood":
        assert len(run.out) < 100_000  # 150 KB a chunk went to stderr: only its last lines are shown
    if name == "an endless line":
        assert run.max_rss_mib < 1024, f"the run's largest process reached {run.max_rss_mib:.0f} MiB"


def test_a_strategy_printing_to_stdout_cannot_corrupt_the_protocol(tmp_path: Path, selected) -> None:
    ids = selected(*SELECT)
    run = run_suite(tmp_path, *isolated("stdout_garbage:PrintsGarbage"), *SELECT)
    assert_every_item_reported(run, ids, set())
    assert run.counts.get("passed") == len(ids)
    assert "garbage from" not in run.out  # what it printed went to the peer's stderr, not the protocol or the run


def test_a_strategy_that_crashes_every_time_is_not_called_again_after_three_crashes(tmp_path: Path, selected) -> None:
    display = ("--mcs-check=DISPLAY-001",)
    ids = selected(*display)
    assert len(ids) > CRASHES_TO_TRIP
    run = run_suite(tmp_path, *isolated("exit_code:ExitsEveryTime"), *display)
    assert run.code == 1 and run.reported() == len(ids) and run.failed == set(ids), run.tail()
    assert not run.leftovers, run.leftovers
    texts = [run.texts[i] for i in ids]
    crashed = [t for t in texts if "the peer exited with code 3 while serving accumulate" in t and "not called" not in t]
    tripped = [t for t in texts if f"accumulate is not called again: it ended the peer {CRASHES_TO_TRIP} times" in t]
    assert len(crashed) == CRASHES_TO_TRIP and len(tripped) == len(ids) - CRASHES_TO_TRIP, run.tail()
    assert all("the suite does not call it again" in t for t in tripped)


# -- the suite's own fault, through the bridge ----------------------------------------------------

def test_the_suites_own_fault_is_still_the_suites(tmp_path: Path, selected) -> None:
    """A check of the suite's (tests/bridge/peers/suite_bug.py) calls the bridged strategy,
    which answers, then raises KeyError itself: an error naming the suite, not a failure of
    the strategy's."""
    args = ("-p", f"{PEERS}.suite_bug", "--mcs-check=ZZZ-901", "--mcs-check=DISPLAY-001", f"--mcs-case={CASES[1]}")
    ids = selected(*args)
    assert set(ids) == {"mcs-conformance::ZZZ-901[text-json]", item("DISPLAY-001", CASES[1])}
    run = run_suite(tmp_path, f"--mcs-strategy={REFERENCE}", "--mcs-isolate", *args)
    assert run.code == 1 and run.reported() == len(ids), run.tail()
    assert run.errors == {"mcs-conformance::ZZZ-901[text-json]"} and not run.failed, run.tail()
    assert "the suite's own code raised KeyError: 'no such key'. This is a bug in mcs-conformance" in run.out
    assert "the strategy's" not in run.out.split("short test summary info")[-1]
    assert not run.leftovers, run.leftovers


# -- a restart that fails ----------------------------------------------------------------------------

def test_a_strategy_that_cannot_be_restarted_fails_every_later_item_with_that_cause(tmp_path: Path, selected) -> None:
    ids = selected(*SELECT)
    run = run_suite(tmp_path, *isolated("no_restart:ExitsAndCannotRestart"), *SELECT,
                    env={"MCS_HOSTILE_FLAG": str(tmp_path / "flag")})
    assert run.code == 1 and run.reported() == len(ids) and not run.leftovers, run.tail()
    assert item("DISPLAY-001") in run.failed
    later = [i for i in run.failed if i != item("DISPLAY-001")]
    assert later, run.tail()
    for node in later:
        text = run.texts[node]
        assert "the strategy's process" in text and "exited with code 9" in text, f"{node}:\n{text[:2000]}"
        assert "UnrecognizedStream" not in text and "PeerStartError" not in text, f"{node}:\n{text[:2000]}"


# -- the pytest process dies --------------------------------------------------------------------------

def _kill_pytest_while_the_peer_hangs(tmp: Path, strategy: tuple[str, ...]) -> list[str]:
    """Start the suite on a peer that hangs, SIGKILL pytest once the peer is asleep in its
    extract, and list the processes of the run still alive 3 s later."""
    token, asleep = uuid.uuid4().hex, tmp / "asleep"
    args = (*strategy, "--mcs-timeout=60", "--mcs-check=EXTRACT-001", f"--mcs-case={MARKED}")
    with open(tmp / "run.txt", "wb") as out:
        proc = subprocess.Popen(_command(args), cwd=tmp, env=_env(token, {"MCS_HOSTILE_ASLEEP": str(asleep)}),
                                stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not asleep.exists():
        assert proc.poll() is None and time.monotonic() < deadline, (tmp / "run.txt").read_text(errors="replace")
        time.sleep(0.05)
    proc.kill()
    assert _wait(proc, 30) is not None
    return _leftovers(token)


def test_the_peer_dies_with_the_pytest_process(tmp_path: Path) -> None:
    assert _kill_pytest_while_the_peer_hangs(tmp_path, isolated("hang:HangsOnMarker")) == []


def test_a_peer_behind_a_wrapper_dies_with_the_pytest_process(tmp_path: Path) -> None:
    inner = shlex.join([sys.executable, "-m", "mcs_conformance.bridge.server", f"{PEERS}.hang:HangsOnMarker"])
    wrapped = (f"--mcs-strategy=exec:sh -c {shlex.quote(inner + '; :')}",)
    assert _kill_pytest_while_the_peer_hangs(tmp_path, wrapped) == []


# -- a strategy that raises: the failure says what was expected, and the rule ----------------------

def test_a_strategy_that_raises_is_shown_the_expected_answer_and_the_rule(tmp_path: Path) -> None:
    case = "openai-chat/msg-tool-calls-not-a-list"
    for options in (isolated("raises:RaisesOnToolCallsObject"), (f"--mcs-strategy={PEERS}.raises:RaisesOnToolCallsObject",)):
        run = run_suite(tmp_path, *options, "--mcs-check=EXTRACT-001", f"--mcs-case={case}")
        text = run.texts.get(item("EXTRACT-001", case), "")
        assert run.code == 1 and text, run.tail()
        assert "the strategy's extract raised" in text and "TypeError" in text, text
        assert "the case expects (tool_calls holding a single object instead of a list" in text, text
        assert re.search(r'calls: \[\{"name": "", "arguments": \{\}, "id": null, "error": true\}\]', text), text
        assert "level should: a call without a usable name, id or arguments carries error" in text, text
        assert "the rule: EXTRACT-001 (must): " in text and "docs/spec.md: C1, C2, C3, C4" in text, text
        assert re.search(r"level: +should", text), text  # the calls part's level, as a wrong answer would report
        if "--mcs-isolate" in options:
            assert "in the strategy's process: its peer answered the error as data" in text, text
            assert "client.py" not in text, text  # none of the bridge's own frames


def test_a_child_that_left_the_peers_group_dies_with_the_pytest_process(tmp_path: Path) -> None:
    assert _kill_pytest_while_the_peer_hangs(tmp_path, isolated("setsid_child:StartsSessionThenHangs")) == []
