"""The JavaScript bridge server (mcs_conformance/bridge/server.mjs), spoken to line by line
from Python as the suite speaks to it: the handshake, every member, errors as data, streams
and ``drop``, ``ping``, stdout kept for the protocol alone, the exit at end of input, and
every reply valid against the protocol's schemas (docs/bridge.md). The node comes from
scripts/node22.sh (node >= 22 on PATH, or the pinned npm package installed once)."""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
from pathlib import Path
from typing import Any

import pytest

import mcs_conformance

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(mcs_conformance.__file__).resolve().parent / "bridge" / "server.mjs"
SCHEMAS = Path(mcs_conformance.__file__).resolve().parent / "schemas" / "bridge"
TIMEOUT = 30.0

# A strategy with every member, named in both styles, that fails on demand.
PROBE = r"""
const { serve, BridgeError } = await import(process.env.MCS_BRIDGE_JS);

class Probe {
  name = "probe";
  leaksIntoText = true;
  implementation = { name: "probe-impl", version: "2.1" };

  recognizes(shape) { return shape !== null && typeof shape === "object" && shape.probe === true; }

  accumulate(acc, chunk) {
    if (chunk === "malformed") throw new BridgeError("MalformedChunk", "cannot fold 'malformed'");
    if (chunk !== null && typeof chunk === "object" && "error" in chunk) {
      throw new BridgeError("StreamError", "the provider reported an error", chunk);
    }
    if (chunk === "bug") throw new TypeError("a bug of the strategy's own");
    if (chunk === "custom") { class OwnError extends Error {} throw new OwnError("its own class"); }
    if (chunk === "throw-string") throw "just a string";
    if (chunk === "throw-object") throw { code: 7 };
    if (chunk === "throw-undefined") throw undefined;
    if (chunk === "bad-type") throw new BridgeError("Nonsense", "x");
    if (chunk === "cyclic-payload") { const p = {}; p.p = p; throw new BridgeError("StreamError", "payload is no JSON", p); }
    if (chunk === "busy") { const end = process.cpuUsage().user + 80000; while (process.cpuUsage().user < end); }
    if (chunk === "log") {
      console.log("log line"); console.info("info line"); console.debug("debug line");
      console.warn("warn line"); console.table([1]); process.stdout.write("raw write\n");
    }
    acc.state.n = (acc.state.n ?? 0) + 1;
    acc.root ??= { text: "", pieces: [] };
    const text = typeof chunk === "string" ? chunk : String(chunk.text ?? "");
    acc.root.text += text;
    acc.root.pieces.push(chunk);
    acc.root.seen = acc.state.n;
    return text;
  }

  is_done(chunk) {
    if (chunk === "undecidable") throw new BridgeError("MalformedChunk", "is_done cannot tell");
    return chunk === ".";
  }

  extract(message) {
    if (message === "circular") { const a = {}; a.self = a; return [a]; }
    return [{ name: "f", arguments: message?.args ?? {}, id: "c1" }, { name: "g", error: "cut short" }];
  }

  contentText(message) {
    if (message === null || typeof message !== "object") throw new BridgeError("ValueError", "not a message: " + typeof message);
    return message.text;
  }

  forming_name(message) { return message?.name ?? null; }

  resultMessages(message, records) {
    return records.map((r) => ({ role: "tool", content: r.result, call_id: r.call.id, name: r.call.name, is_error: r.is_error }));
  }

  async render(calls) { return calls.map((c) => `${c.name}(${JSON.stringify(c.arguments ?? {})})`).join(";"); }
}

serve(new Probe());
"""

# The fewest members, snake_case fields, no implementation object.
MINIMAL = r"""
const { serve } = await import(process.env.MCS_BRIDGE_JS);
serve({
  name: "mini",
  leaks_into_text: false,
  recognizes() { return false; },
  accumulate(acc, chunk) { acc.root = chunk; return ""; },
  isDone() { return false; },
  extract() { return []; },
});
"""

# No is_done at all.
UNDONE = r"""
const { serve } = await import(process.env.MCS_BRIDGE_JS);
serve({ name: "undone", leaksIntoText: false, accumulate(acc, chunk) { acc.root = chunk; return ""; } });
"""

NAMELESS = r"""
const { serve } = await import(process.env.MCS_BRIDGE_JS);
serve({ leaksIntoText: "yes", recognizes() { return false; } });
"""


@pytest.fixture(scope="module")
def node() -> str:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "node22.sh")], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"no node >= 22 could be obtained (scripts/node22.sh): {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


class Peer:
    """The JS server running one strategy file, spoken to one JSON line at a time."""

    def __init__(self, node: str, script: Path) -> None:
        env = {**os.environ, "MCS_BRIDGE_JS": SERVER.as_uri()}
        self.proc = subprocess.Popen([node, str(script)], cwd=script.parent, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._buf = b""
        self._next = 0
        self.exchanges: list[tuple[dict, dict]] = []

    def line(self) -> bytes:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            ready, _, _ = select.select([fd], [], [], TIMEOUT)
            assert ready, f"no reply within {TIMEOUT} s"
            data = os.read(fd, 1 << 16)
            assert data, f"the server closed stdout; stderr: {self.proc.stderr.read().decode()[-2000:]}"
            self._buf += data
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def send(self, text: str) -> None:
        self.proc.stdin.write(text.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def ask(self, cmd: str, **args: Any) -> dict:
        request = {"id": self._next, "cmd": cmd, **args}
        self._next += 1
        self.send(json.dumps(request))
        reply = json.loads(self.line())
        assert reply.get("id") == request["id"], (request, reply)
        self.exchanges.append((request, reply))
        return reply

    def ok(self, cmd: str, **args: Any) -> Any:
        reply = self.ask(cmd, **args)
        assert set(reply) == {"id", "ok"}, reply
        return reply["ok"]

    def error(self, cmd: str, **args: Any) -> dict:
        reply = self.ask(cmd, **args)
        assert set(reply) == {"id", "error"}, reply
        return reply["error"]

    def finish(self) -> tuple[int, bytes, str]:
        """Close stdin; the exit code, what else came on stdout, and stderr."""
        out, err = self.proc.communicate(timeout=TIMEOUT)
        return self.proc.returncode, self._buf + out, err.decode("utf-8", "replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture
def spawn(node: str, tmp_path: Path):
    peers: list[Peer] = []

    def start(source: str) -> Peer:
        script = tmp_path / f"strategy{len(peers)}.mjs"
        script.write_text(source, encoding="utf-8")
        peer = Peer(node, script)
        peers.append(peer)
        return peer

    yield start
    for peer in peers:
        peer.kill()


# -- the handshake ----------------------------------------------------------------------------
def test_handshake_names_the_strategy_its_members_and_its_implementation(spawn) -> None:
    hello = spawn(PROBE).ok("start", protocol=1)
    assert hello == {
        "protocol": 1,
        "name": "probe",
        "leaks_into_text": True,
        "implementation": {"name": "probe-impl", "version": "2.1", "language": "javascript"},
        "members": ["recognizes", "accumulate", "is_done", "extract", "content_text", "forming_name",
                    "result_messages", "render", "cpu_time"],
    }


def test_handshake_defaults_and_members_from_the_methods_the_object_has(spawn) -> None:
    hello = spawn(MINIMAL).ok("start", protocol=1)
    assert hello["members"] == ["recognizes", "accumulate", "is_done", "extract", "cpu_time"]
    assert hello["leaks_into_text"] is False
    assert hello["implementation"] == {"name": "mini", "version": "0", "language": "javascript"}


def test_handshake_answers_its_own_version_to_another_one(spawn) -> None:
    assert spawn(MINIMAL).ok("start", protocol=2)["protocol"] == 1


def test_handshake_of_a_strategy_without_name_is_an_error_naming_it(spawn) -> None:
    error = spawn(NAMELESS).error("start", protocol=1)
    assert error["type"] == "Error" and error["name"] == "TypeError"
    assert "name must be a non-empty string" in error["message"]


# -- each member --------------------------------------------------------------------------------
def test_each_member_answers_through_its_camel_or_snake_name(spawn) -> None:
    p = spawn(PROBE)
    p.ok("start", protocol=1)
    assert p.ok("recognizes", shape={"probe": True}) is True
    assert p.ok("recognizes", shape="text") is False
    assert p.ok("as_dict", stream=1) is None  # before the stream's first chunk
    assert p.ok("accumulate", stream=1, chunk={"text": "Hé"}) == "Hé"
    assert p.ok("accumulate", stream=1, chunk="llo 😀") == "llo 😀"
    assert p.ok("as_dict", stream=1) == {"text": "Héllo 😀", "pieces": [{"text": "Hé"}, "llo 😀"], "seen": 2}
    assert p.ok("is_done", chunk=".") is True and p.ok("is_done", chunk="x") is False
    assert p.ok("extract", message={"args": {"x": [1, None]}}) == [
        {"name": "f", "arguments": {"x": [1, None]}, "id": "c1"}, {"name": "g", "error": "cut short"}]
    assert p.ok("content_text", message={"text": "shown"}) == "shown"
    assert p.ok("forming_name", message={"name": "get_"}) == "get_"
    assert p.ok("forming_name", message={}) is None
    call = {"name": "f", "arguments": {}, "id": "c1", "raw_arguments": None, "error": None}
    assert p.ok("result_messages", message={}, records=[{"call": call, "result": "22", "is_error": False}]) == [
        {"role": "tool", "content": "22", "call_id": "c1", "name": "f", "is_error": False}]
    assert p.ok("render", calls=[call, {"name": "g", "arguments": {"a": 1}}]) == 'f({});g({"a":1})'  # a promise, awaited


def test_streams_are_apart_and_start_at_their_first_accumulate(spawn) -> None:
    p = spawn(PROBE)
    p.ok("accumulate", stream=7, chunk="a")
    p.ok("accumulate", stream=8, chunk="b")
    p.ok("accumulate", stream=7, chunk="c")
    assert p.ok("as_dict", stream=7)["text"] == "ac"
    assert p.ok("as_dict", stream=8) == {"text": "b", "pieces": ["b"], "seen": 1}
    assert p.ok("as_dict", stream=9) is None


def test_drop_forgets_the_streams_before_the_request_is_served(spawn) -> None:
    p = spawn(PROBE)
    p.ok("accumulate", stream=5, chunk="a")
    p.ok("accumulate", stream=6, chunk="b")
    assert p.ok("as_dict", stream=5, drop=[5]) is None
    assert p.ok("accumulate", stream=5, chunk="z", drop=[]) == "z"
    assert p.ok("as_dict", stream=5) == {"text": "z", "pieces": ["z"], "seen": 1}  # a fresh {root, state}
    assert p.ok("ping", drop=[6, 99]) is None
    assert p.ok("as_dict", stream=6) is None


def test_accumulate_with_and_is_done_carries_is_dones_answer(spawn) -> None:
    p = spawn(PROBE)
    assert p.ask("accumulate", stream=1, chunk=".", and_is_done=True) == {"id": 0, "ok": ".", "is_done": {"ok": True}}
    assert p.ask("accumulate", stream=1, chunk="x", and_is_done=True) == {"id": 1, "ok": "x", "is_done": {"ok": False}}
    assert p.ask("accumulate", stream=1, chunk="undecidable", and_is_done=True) == {"id": 2, "ok": "undecidable", "is_done": {
        "error": {"type": "MalformedChunk", "name": "BridgeError", "message": "is_done cannot tell"}}}
    failed = p.ask("accumulate", stream=1, chunk="malformed", and_is_done=True)  # no is_done after a failed accumulate
    assert set(failed) == {"id", "error"}
    assert p.ask("accumulate", stream=1, chunk=".") == {"id": 4, "ok": "."}  # without the flag, no is_done
    assert p.ask("accumulate", stream=1, chunk=".", and_is_done=False) == {"id": 5, "ok": "."}
    q = spawn(UNDONE)
    assert q.ok("start", protocol=1)["members"] == ["accumulate", "cpu_time"]
    assert q.ask("accumulate", stream=1, chunk="a", and_is_done=True) == {"id": 1, "ok": ""}  # no is_done member


def test_cpu_time_counts_the_strategys_code_and_not_the_pipe(spawn) -> None:
    p = spawn(PROBE)
    first = p.ok("cpu_time")
    assert isinstance(first, (int, float)) and 0 <= first < 0.05
    big = {"model": "m", "message": {"content": "x" * 100_000}, "done": False}
    for _ in range(50):
        p.ok("ping", payload=big)
    after_pings = p.ok("cpu_time")
    assert after_pings == first  # carrying chunks is the bridge's cost, not the strategy's
    p.ok("accumulate", stream=1, chunk="busy")  # 80 ms of the strategy's own CPU
    busy = p.ok("cpu_time")
    assert 0.075 <= busy - after_pings < 2.0
    p.ok("is_done", chunk="x")
    assert p.ok("cpu_time") >= busy


def test_ping_answers_null_whatever_its_payload(spawn) -> None:
    p = spawn(MINIMAL)
    assert p.ok("ping") is None
    assert p.ok("ping", payload={"model": "m", "message": {"content": "x" * 5000}, "done": False}) is None


def test_non_finite_numbers_cross_as_pythons_json_writes_them(spawn) -> None:
    p = spawn(MINIMAL)
    p.send('{"id": 0, "cmd": "accumulate", "stream": 1, "chunk": {"a": NaN, "b": [Infinity, -Infinity], "s": "NaN"}}')
    assert json.loads(p.line()) == {"id": 0, "ok": ""}
    p.send('{"id": 1, "cmd": "as_dict", "stream": 1}')
    line = p.line()
    assert b"NaN" in line and b"-Infinity" in line
    message = json.loads(line)["ok"]
    assert math.isnan(message["a"]) and message["b"] == [math.inf, -math.inf] and message["s"] == "NaN"


def test_integers_past_2_to_the_53_keep_every_digit(spawn) -> None:
    p = spawn(MINIMAL)
    chunk = {"big": 9007199329292493, "neg": -123456789012345678901234567890, "safe": 9007199254740991,
             "float": 1.2345678901234567e30, "whole": 5.059354110044745e16, "one": 1.5, "digits": "12345678901234567890"}
    assert p.ok("accumulate", stream=1, chunk=chunk) == ""
    assert p.ok("as_dict", stream=1) == chunk
    back = p.ok("as_dict", stream=1)
    assert type(back["big"]) is int and type(back["float"]) is float and type(back["whole"]) is float


# -- errors are data ------------------------------------------------------------------------------
def test_each_protocol_error_type_is_answered_with_its_class_name(spawn) -> None:
    p = spawn(PROBE)
    assert p.error("accumulate", stream=1, chunk="malformed") == {
        "type": "MalformedChunk", "name": "BridgeError", "message": "cannot fold 'malformed'"}
    event = {"error": {"message": "overloaded", "type": "server_error"}}
    assert p.error("accumulate", stream=1, chunk=event) == {
        "type": "StreamError", "name": "BridgeError", "message": "the provider reported an error", "payload": event}
    assert p.error("content_text", message=None) == {"type": "ValueError", "name": "BridgeError",
                                                      "message": "not a message: object"}
    assert p.error("accumulate", stream=1, chunk="bug") == {
        "type": "Error", "name": "TypeError", "message": "a bug of the strategy's own"}
    assert p.error("accumulate", stream=1, chunk="custom") == {"type": "Error", "name": "OwnError", "message": "its own class"}
    assert p.ok("accumulate", stream=1, chunk="after") == "after"  # serving goes on


def test_a_thrown_value_that_is_no_error_is_an_error_of_the_strategy(spawn) -> None:
    p = spawn(PROBE)
    assert p.error("accumulate", stream=1, chunk="throw-string") == {
        "type": "Error", "name": "string", "message": "a non-Error value was thrown: just a string"}
    assert p.error("accumulate", stream=1, chunk="throw-object") == {
        "type": "Error", "name": "Object", "message": 'a non-Error value was thrown: {"code":7}'}
    assert p.error("accumulate", stream=1, chunk="throw-undefined")["name"] == "undefined"
    assert p.ok("ping") is None


def test_a_bridge_error_of_no_protocol_type_or_an_unwritable_answer_is_reported(spawn) -> None:
    p = spawn(PROBE)
    bad = p.error("accumulate", stream=1, chunk="bad-type")
    assert bad["type"] == "Error" and bad["name"] == "TypeError" and "MalformedChunk, StreamError" in bad["message"]
    cyclic = p.error("accumulate", stream=1, chunk="cyclic-payload")
    assert cyclic["type"] == "Error" and cyclic["name"] == "TypeError" and "circular" in cyclic["message"].lower()
    circular = p.error("extract", message="circular")
    assert circular["type"] == "Error" and "circular" in circular["message"].lower()
    assert p.ok("ping") is None


def test_a_missing_member_or_an_unknown_command_is_an_error_not_a_crash(spawn) -> None:
    p = spawn(MINIMAL)
    missing = p.error("content_text", message={})
    assert missing["type"] == "Error" and "no member content_text (nor contentText)" in missing["message"]
    unknown = p.error("explode")
    assert unknown["type"] == "Error" and '"explode"' in unknown["message"]
    assert p.error("constructor")["type"] == "Error"  # no command from the object's prototype
    assert p.ok("ping") is None


# -- stdout, stderr and the end of input ----------------------------------------------------------
def test_console_output_goes_to_stderr_and_stdout_holds_the_replies_alone(spawn) -> None:
    p = spawn(PROBE)
    assert p.ok("accumulate", stream=1, chunk="log") == "log"
    assert p.ok("ping") is None
    rc, rest, err = p.finish()
    assert rc == 0
    assert rest == b"", rest
    for text in ("log line", "info line", "debug line", "warn line", "raw write"):
        assert text in err, err


def test_the_server_exits_0_when_stdin_ends(spawn) -> None:
    p = spawn(MINIMAL)
    p.ok("start", protocol=1)
    assert p.finish()[:2] == (0, b"")


def test_the_server_exits_0_on_empty_input(spawn) -> None:
    assert spawn(MINIMAL).finish() == (0, b"", "")


def test_a_line_it_cannot_read_is_answered_with_a_value_error_when_its_id_can_be_read(spawn) -> None:
    p = spawn(MINIMAL)
    p.send('{"id": 3, "cmd": "render", "calls": [{"name": "f", "arguments": {"x": NaN]}]}')
    reply = json.loads(p.line())
    assert reply["id"] == 3 and reply["error"]["type"] == "ValueError" and reply["error"]["name"] == "SyntaxError"
    p.send('{"id": 4, "cmd": "ping"}')
    assert json.loads(p.line()) == {"id": 4, "ok": None}


def test_a_line_that_is_no_request_ends_the_server_with_the_reason(spawn) -> None:
    p = spawn(MINIMAL)
    p.send("{not json")
    rc, out, err = p.finish()
    assert (rc, out) == (2, b"") and "not JSON" in err
    q = spawn(MINIMAL)
    q.send('{"cmd": "ping"}')
    rc, out, err = q.finish()
    assert (rc, out) == (2, b"") and "integer id" in err


# -- the schemas ----------------------------------------------------------------------------------
def _validators():
    """Validators of a request, a reply, and a reply's ok value for one command."""
    names = ("common", "request", "reply")
    paths = [SCHEMAS / f"{n}.schema.json" for n in names]
    if not all(p.exists() for p in paths):
        pytest.skip(f"the bridge's schemas are not in {SCHEMAS} yet")
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = {n: json.loads(p.read_text(encoding="utf-8")) for n, p in zip(names, paths)}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    request = Draft202012Validator(schemas["request"], registry=registry)
    reply = Draft202012Validator(schemas["reply"], registry=registry)

    def ok(cmd: str) -> Draft202012Validator:
        return Draft202012Validator({"$ref": f"{schemas['reply']['$id']}#/$defs/ok-{cmd}"}, registry=registry)

    return request, reply, ok


def test_every_request_and_reply_of_a_session_is_valid_against_the_schemas(spawn) -> None:
    request_schema, reply_schema, ok_schema = _validators()
    p = spawn(PROBE)
    p.ok("start", protocol=1)
    call = {"name": "f", "arguments": {"x": 1}, "id": "c1", "raw_arguments": None, "error": None}
    p.ok("recognizes", shape={"probe": True})
    p.ok("accumulate", stream=1, chunk="a")
    p.ask("accumulate", stream=1, chunk=".", and_is_done=True)
    p.ask("accumulate", stream=1, chunk="undecidable", and_is_done=True)
    p.ok("cpu_time")
    p.ok("as_dict", stream=1)
    p.ok("as_dict", stream=2)
    p.ok("is_done", chunk=".")
    p.ok("extract", message={"args": {"x": 1}})
    p.ok("content_text", message={"text": "t"})
    p.ok("forming_name", message={})
    p.ok("forming_name", message={"name": "f"})
    p.ok("result_messages", message={}, records=[{"call": call, "result": "r", "is_error": True}])
    p.ok("render", calls=[call])
    p.ok("ping", payload=[1, 2], drop=[1])
    for chunk in ("malformed", {"error": "x"}, "bug", "throw-string", "throw-undefined", "cyclic-payload"):
        p.error("accumulate", stream=3, chunk=chunk)
    p.error("content_text", message=None)
    assert len(p.exchanges) == 23
    for request, reply in p.exchanges:
        problems = [e.message for e in request_schema.iter_errors(request)]
        assert not problems, (request, problems)
        problems = [e.message for e in reply_schema.iter_errors(reply)]
        assert not problems, (request, reply, problems)
        if "ok" in reply:
            problems = [e.message for e in ok_schema(request["cmd"]).iter_errors(reply["ok"])]
            assert not problems, (request, reply, problems)
    # the check can fail: a reply of the wrong type is caught
    assert list(ok_schema("accumulate").iter_errors(None)) and list(reply_schema.iter_errors({"id": 1}))
