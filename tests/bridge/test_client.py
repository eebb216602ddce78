"""The suite's side of the bridge (mcs_conformance/bridge/client.py) against a peer written
by hand (tests/bridge/peers/scripted.py, run with this interpreter): the handshake's
problems are usage errors that say what is wrong, errors come back as data of their own
type, the strategy has exactly the members the handshake lists, a collected stream is
dropped, a stream's message is fetched only when it is read, a crashed peer is restarted
and a member that keeps crashing it is not called again, and the COST measures count the
peer's CPU time."""

from __future__ import annotations

import gc
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mcs_conformance.bridge.client import CRASHES_TO_TRIP, Peer, PeerFailure, PeerStartError, bridged
from mcs_conformance.bridge.messages import PeerError
from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.buffer import LLMStreamBuffer
from mcs_conformance.reference.errors import MalformedChunk, StreamError
from mcs_conformance.reference.protocol import ToolCall

SCRIPTED = Path(__file__).resolve().parent / "peers" / "scripted.py"
LAST_LINE = "scripted: the last line before exiting"


class Scripted:
    """Start scripted peers in one test and read what they were asked."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.peers: list[Peer] = []
        self.log = tmp / "requests.jsonl"

    def peer(self, mode: str = "ok", *extra: str, timeout: float = 30.0) -> Peer:
        peer = Peer([sys.executable, str(SCRIPTED), mode, str(self.log), *extra], timeout=timeout, label=f"scripted {mode}")
        self.peers.append(peer)
        return peer

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def counts(self) -> Counter[str]:
        return Counter(r["cmd"] for r in self.requests())


@pytest.fixture
def scripted(tmp_path: Path):
    s = Scripted(tmp_path)
    yield s
    for peer in s.peers:
        peer.kill()


# -- the handshake ------------------------------------------------------------------------

def test_a_peer_of_another_protocol_version_is_refused_naming_both_versions(scripted: Scripted) -> None:
    peer = scripted.peer("v2")
    with pytest.raises(PeerStartError) as info:
        peer.start()
    text = str(info.value)
    assert "it speaks bridge protocol 2" in text and "speaks protocol 1" in text, text
    assert "scripted v2" in text  # the peer's label says which command it was
    assert not peer.alive()


def test_a_handshake_without_a_name_is_refused(scripted: Scripted) -> None:
    peer = scripted.peer("noname")
    with pytest.raises(PeerStartError, match="its handshake has no name"):
        peer.start()
    assert not peer.alive()


def test_a_handshake_that_is_not_json_is_refused(scripted: Scripted) -> None:
    peer = scripted.peer("notjson")
    with pytest.raises(PeerStartError) as info:
        peer.start()
    text = str(info.value)
    assert "did not answer the handshake" in text and "not JSON" in text, text
    assert "hello, suite" in text  # the line it wrote instead
    assert not peer.alive()


def test_a_peer_that_exits_before_answering_shows_its_code_and_stderr(scripted: Scripted) -> None:
    peer = scripted.peer("dies")
    with pytest.raises(PeerStartError) as info:
        peer.start()
    text = str(info.value)
    assert "exited with code 7" in text, text
    assert "scripted: cannot load the model weights" in text, text


def test_a_command_that_cannot_be_started_is_a_start_error(tmp_path: Path) -> None:
    peer = Peer([str(tmp_path / "no-such-peer")], label="no-such-peer")
    with pytest.raises(PeerStartError, match="cannot start 'no-such-peer'"):
        peer.start()


# -- errors are data ------------------------------------------------------------------------

@pytest.mark.parametrize("chunk,kind,text", [
    ("malformed", MalformedChunk, "cannot fold 'malformed'"),
    ("value", ValueError, "not a chunk of this format"),
    ("bug", PeerError, "KeyError: 'choices'"),
    ({"error": {"type": "overloaded_error"}}, StreamError, "the provider reported an error"),
], ids=["MalformedChunk", "ValueError", "Error", "StreamError"])
def test_an_error_the_strategy_raised_comes_back_as_its_type_and_the_peer_goes_on(
        scripted: Scripted, chunk: object, kind: type, text: str) -> None:
    peer = scripted.peer()
    strategy = bridged(peer)
    pid = peer.pid
    with pytest.raises(kind) as info:
        strategy.accumulate(Accumulator(), chunk)
    assert type(info.value) is kind and str(info.value) == text
    if kind is StreamError:
        assert info.value.payload == chunk  # the provider's error event, as the peer sent it
    if kind is PeerError:
        assert info.value.name == "KeyError"
    # an error answered as data restarts nothing
    acc = Accumulator()
    assert strategy.accumulate(acc, "still here") == "still here"
    assert peer.pid == pid and peer.generation == 1 and acc.message == "still here"


# -- members, drop, the lazy message ----------------------------------------------------------

def test_a_member_missing_from_the_handshake_is_missing_on_the_strategy(scripted: Scripted) -> None:
    few = bridged(scripted.peer("few"))
    full = bridged(scripted.peer("ok"))
    for strategy in (few, full):
        for member in ("recognizes", "accumulate", "is_done", "extract", "content_text", "result_messages"):
            assert callable(getattr(strategy, member)), member
    assert not hasattr(few, "forming_name") and not hasattr(few, "render")
    assert callable(full.forming_name) and callable(full.render)
    assert full.render([ToolCall(name="a", arguments={}), ToolCall(name="b", arguments={"x": 1})]) == "a;b"
    assert few.extract("hi") == [ToolCall(name="f", arguments={"text": "hi"}, id="c1")]


def test_the_stream_of_a_collected_accumulator_is_dropped_with_the_next_request(scripted: Scripted) -> None:
    strategy = bridged(scripted.peer())
    kept, gone = Accumulator(), Accumulator()
    strategy.accumulate(kept, "a")
    strategy.accumulate(gone, "b")
    numbers = [r["stream"] for r in scripted.requests() if r["cmd"] == "accumulate"]
    assert len(set(numbers)) == 2
    assert not any("drop" in r for r in scripted.requests())
    del gone
    gc.collect()
    assert strategy.recognizes("x") is True
    last = scripted.requests()[-1]
    assert last["cmd"] == "recognizes" and last["drop"] == [numbers[1]]
    strategy.accumulate(kept, "c")  # the kept stream lives on, and the drop is sent once
    assert "drop" not in scripted.requests()[-1]
    assert kept.message == "ac"


def test_feeding_chunks_never_fetches_the_message_until_the_buffer_is_read(scripted: Scripted) -> None:
    buffer = LLMStreamBuffer([bridged(scripted.peer())])
    chunks = ["The ", "weather ", "in ", "Paris ", "is ", "fine", "."]
    for chunk in chunks:
        buffer.feed(chunk)
    counts = scripted.counts()
    assert counts["accumulate"] == len(chunks) and counts["as_dict"] == 0, counts
    assert buffer.as_dict() == "".join(chunks)
    assert buffer.as_dict() == "".join(chunks)  # read twice, fetched once
    assert scripted.counts()["as_dict"] == 1
    assert buffer.done is True  # is_done of "." was asked and answered
    buffer.feed(" More.")
    assert scripted.counts()["as_dict"] == 1
    assert buffer.as_dict() == "".join(chunks) + " More."
    assert scripted.counts()["as_dict"] == 2


# -- crashes: restart and the circuit breaker -------------------------------------------------

def test_a_crashed_peer_fails_the_call_and_the_next_call_starts_a_new_one(scripted: Scripted) -> None:
    peer = scripted.peer()
    strategy = bridged(peer)
    old = Accumulator()
    strategy.accumulate(old, "before ")
    first = peer.pid
    with pytest.raises(PeerFailure) as info:
        strategy.accumulate(old, "crash")
    failure = info.value
    assert failure.cause == "exit" and failure.member == "accumulate"
    assert "exited with code 3 while serving accumulate" in str(failure)
    assert "scripted: crashing on purpose" in failure.detail
    assert not peer.alive() and peer.generation == 1
    assert strategy.recognizes("x") is True  # the next call works, in a new process
    assert peer.generation == 2 and peer.pid != first
    fresh = Accumulator()
    assert strategy.accumulate(fresh, "after") == "after" and fresh.message == "after"
    with pytest.raises(PeerFailure, match="lost when the peer was restarted"):
        strategy.accumulate(old, "more")  # the old stream lived in the process that died
    assert peer.crashes["accumulate"] == 1 and not peer.tripped


def test_a_member_that_ended_the_peer_too_often_is_not_called_again(scripted: Scripted) -> None:
    peer = scripted.peer()
    strategy = bridged(peer)
    for n in range(CRASHES_TO_TRIP):
        with pytest.raises(PeerFailure) as info:
            strategy.accumulate(Accumulator(), "crash")
        assert info.value.cause == "exit", n
    assert peer.generation == CRASHES_TO_TRIP
    sent = scripted.counts()["accumulate"]
    with pytest.raises(PeerFailure) as info:
        strategy.accumulate(Accumulator(), "harmless")
    assert info.value.cause == "tripped" and info.value.member == "accumulate"
    assert f"accumulate is not called again: it ended the peer {CRASHES_TO_TRIP} times" in str(info.value)
    assert "exited with code 3" in str(info.value)  # the last crash, as the pointer
    assert scripted.counts()["accumulate"] == sent  # nothing was sent
    assert strategy.recognizes("x") is True  # the other members are still called
    assert strategy.extract("m") == [ToolCall(name="f", arguments={"text": "m"}, id="c1")]


def test_a_restart_whose_handshake_fails_is_a_peer_failure(scripted: Scripted) -> None:
    peer = scripted.peer("once", str(scripted.tmp / "flag"))
    strategy = bridged(peer)
    with pytest.raises(PeerFailure):
        strategy.accumulate(Accumulator(), "crash")
    with pytest.raises(PeerFailure) as info:
        strategy.recognizes("x")  # the restart: the second process exits with code 9 before answering
    text = f"{info.value}\n{info.value.detail}"
    assert info.value.cause == "start" and "exited with code 9" in text and "port is still taken" in text, text


# -- stderr --------------------------------------------------------------------------------------

def test_the_failure_of_a_peer_that_flooded_stderr_ends_with_its_last_line(scripted: Scripted) -> None:
    strategy = bridged(scripted.peer())
    with pytest.raises(PeerFailure) as info:
        strategy.accumulate(Accumulator(), "flood:1000000")
    assert "exited with code 4" in str(info.value)
    last = info.value.detail.rstrip().splitlines()[-1].strip()
    assert last == LAST_LINE, f"the failure's last stderr line is {last[:60]!r}..."


def test_carrying_a_megabyte_of_stderr_costs_little(scripted: Scripted) -> None:
    strategy = bridged(scripted.peer())
    started = time.process_time()  # this process, its stderr reader thread included
    assert strategy.accumulate(Accumulator(), "noise:1000000") == ""  # answered once its stderr is read
    spent = time.process_time() - started
    assert spent < 0.3, f"reading 1 MB of the peer's stderr took {spent:.2f} s of CPU"


# -- COST's measures -------------------------------------------------------------------------------

def test_cpu_time_counts_the_peer_and_the_floor_grows_with_the_chunks(scripted: Scripted) -> None:
    strategy = bridged(scripted.peer())
    assert strategy.cpu_time() > 0
    mine, before = time.thread_time(), strategy.cpu_time()
    strategy.accumulate(Accumulator(), "spin")  # 0.3 s of CPU in the peer
    assert strategy.cpu_time() - before >= 0.25 > time.thread_time() - mine
    small = strategy.floor(["x" * 100] * 20)
    large = strategy.floor(["x" * 100] * 2000)
    assert small > 0 and large > 0
    assert large > small * 5, (small, large)
    assert {"ping"} == {r["cmd"] for r in scripted.requests()[-2020:]}  # the floor is measured with ping alone
