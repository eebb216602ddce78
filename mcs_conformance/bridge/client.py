"""The suite's side of the bridge: start a peer and stand for it as an ExtractionStrategy.

:class:`Peer` is one child process speaking protocol 1 over its stdin and stdout. Every
call waits for the reply with a clock and a memory watch of its own, so a peer that exits,
is killed by a signal, grows past its memory limit, hangs or writes something that is no
reply ends the call with a :class:`PeerFailure` (a ``BaseException``: neither a check's
``except Exception``, nor hypothesis, nor the buffer's MalformedChunk wrapping catches it)
that says what happened. The peer is then killed (its whole process group, and every
process that carries its mark, :data:`MARK`, in its environment: a descendant that left
the group with ``setsid`` too), and the next call starts a new one.

:func:`bridged` returns the strategy object: its members are the peer's, a stream's
message is fetched when it is read (``Accumulator.defer``), and :meth:`BridgedStrategy.cpu_time`
and :meth:`~BridgedStrategy.floor` let COST subtract the bridge's own cost.
"""

from __future__ import annotations

import collections
import ctypes
import itertools
import os
import select
import uuid
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..reference.accumulator import Accumulator
from ..reference.protocol import ToolCall, ToolCallRecord
from .messages import (MEMBERS, OPTIONAL_MEMBERS, PROTOCOL, STRING_FORMS, call_from_wire, call_to_wire, decode, encode,
                       error_from_wire, mark_strings, needs_marks, record_to_wire, unmark_strings)

__all__ = ["BridgedStrategy", "Peer", "PeerFailure", "PeerStartError", "bridged", "close_all"]

POLL = 0.02  # seconds between looks at a peer's memory and clock while a call is outstanding
MAX_LINE = 64 << 20  # bytes: a reply longer than this is a peer that never ends its line
CRASHES_TO_TRIP = 3  # a member whose calls ended the peer this often is not called again
MARK = "MCS_BRIDGE_PEER"  # set in a peer's environment to a token of its own: its descendants inherit it
_STREAM = "mcs_bridge_stream"
_LIVE: "weakref.WeakSet[Peer]" = weakref.WeakSet()


class PeerFailure(BaseException):
    """A call through the bridge did not end in a reply: ``cause`` is one of ``exit``,
    ``signal``, ``memory``, ``time``, ``protocol``, ``start`` or ``tripped``."""

    def __init__(self, message: str, *, cause: str, member: str | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.cause, self.member, self.detail = cause, member, detail


class PeerStartError(Exception):
    """The peer could not be started or its handshake is unusable (a usage error):
    ``reason`` says what happened without the command, ``detail`` holds its stderr."""

    def __init__(self, message: str, reason: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.reason, self.detail = reason or message, detail


class Peer:
    """One child process serving the protocol, restarted when it fails."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                 timeout: float = 120.0, memory_mib: float = 2048.0, label: str | None = None) -> None:
        self.argv, self.cwd, self.env = list(argv), cwd, env
        self.timeout, self.memory_mib = timeout, memory_mib
        self.label = label or " ".join(self.argv)
        self.hello: dict[str, Any] | None = None
        self.marked = False  # strings cross in the wtf8-marked form (the handshake's string_form)
        self.generation = 0  # counts the processes started; a stream belongs to one
        self.tripped: dict[str, str] = {}
        self.crashes: collections.Counter[str] = collections.Counter()
        self.where: Callable[[], str] = lambda: ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._buf = bytearray()
        self._ids = itertools.count(1)
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._drops: list[int] = []
        self._watcher: subprocess.Popen[bytes] | None = None
        self._group = 0
        self._lifeline = -1
        self._scanned = 0  # how much of _buf holds no newline
        self._reader = threading.Thread()
        self._token = ""  # this process's MARK value
        self._last: tuple[int, str, str] | None = None  # (id, member, item) of the last reply read
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        self._tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        where = os.environ.get("MCS_BRIDGE_TRANSCRIPT")  # every line both ways, for checking a peer
        self._transcript = open(where, "ab") if where else None
        _LIVE.add(self)

    # -- the process ---------------------------------------------------------------------
    def start(self) -> dict[str, Any]:
        """Start the process and shake hands; PeerStartError says why it cannot be used."""
        try:
            self._spawn()
        except OSError as exc:
            raise PeerStartError(f"cannot start {self.label!r}: {exc}", f"it cannot be started: {exc}") from None
        try:
            hello = self._exchange({"cmd": "start", "protocol": PROTOCOL, "string_forms": list(STRING_FORMS)},
                                   "start")["ok"]
        except PeerFailure as exc:
            raise PeerStartError(f"{self.label!r} did not answer the handshake: {exc}"
                                 + (f"\n{exc.detail}" if exc.detail else ""), str(exc), exc.detail) from None
        except Exception as exc:  # noqa: BLE001 -- an error answered to start
            self.kill()
            raise PeerStartError(f"{self.label!r} answered the handshake with an error: {exc}",
                                 f"it answered the handshake with an error: {exc}") from None
        problem = _hello_problem(hello)
        if problem:
            self.kill()
            raise PeerStartError(f"{self.label!r}: {problem}", problem)
        self.marked = hello.get("string_form") == "wtf8-marked"
        if self.hello is None:
            self.hello = hello
        elif hello["name"] != self.hello["name"]:
            self.kill()
            raise PeerFailure(f"the restarted peer is named {hello['name']!r}, not {self.hello['name']!r}",
                              cause="start")
        return hello

    def restart(self, member: str) -> None:
        """Start the peer again for a call of ``member``; a peer that cannot be started or
        shakes hands otherwise now is that call's PeerFailure (and counts as its crash)."""
        if self.hello is None:
            self.start()
            return
        try:
            self.start()
        except PeerStartError as exc:
            self._crashed(member, f"could not be served by a restarted peer {CRASHES_TO_TRIP} times", exc)
            raise PeerFailure(f"{exc.reason}, when it was started again for {member}", cause="start",
                              member=member, detail=exc.detail) from None

    def _spawn(self) -> None:
        self._buf.clear()
        self._scanned = 0
        self._stderr.clear()
        self._last = None
        self._token = uuid.uuid4().hex
        watcher, group = self._watch_group()
        env = {**(os.environ if self.env is None else self.env), MARK: self._token}
        self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      cwd=self.cwd, env=env, bufsize=0, preexec_fn=_die_with_parent,
                                      **({"process_group": group} if watcher else {"start_new_session": True}))
        self._watcher, self._group = watcher, group if watcher else self._proc.pid
        self.generation += 1
        self._drops.clear()
        os.set_blocking(self._proc.stdin.fileno(), False)
        self._reader = threading.Thread(target=_drain, args=(self._proc.stderr.fileno(), self._stderr), daemon=True)
        self._reader.start()

    def _watch_group(self) -> tuple[subprocess.Popen[bytes] | None, int]:
        """A process group for the peer, led by a shell that waits on a pipe only this process
        can write to: when this process dies, however, the pipe closes and the shell kills the
        processes that carry the peer's mark (its descendants, those that left the group with
        ``setsid`` included), then the group, so a peer started through a wrapper (``sh -c``,
        ``npx``) leaves nothing behind."""
        marked = f"grep -lzxF {MARK}={self._token} /proc/[0-9]*/environ 2>/dev/null"
        try:
            read_end, self._lifeline = os.pipe()
            os.set_inheritable(self._lifeline, False)
            script = (f"read _ <&{read_end}; for f in $({marked}); do p=${{f#/proc/}}; kill -KILL ${{p%/environ}}; "
                      "done; kill -KILL 0")
            watcher = subprocess.Popen(["sh", "-c", script], pass_fds=(read_end,),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       process_group=0)  # a group of its own in this session, which the peer joins
            os.close(read_end)
            return watcher, watcher.pid
        except OSError:
            return None, 0

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def kill(self) -> None:
        """Kill the peer's whole process group (its watcher too) and every process that carries
        its mark (a descendant that left the group), and reap them."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(self._group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _kill_marked(self._token)
        _reap(proc)
        if self._watcher is not None:
            _reap(self._watcher)
            os.close(self._lifeline)
            self._watcher = None
        self._reader.join(timeout=1.0)

    def close(self) -> None:
        """End the peer: close its stdin (it exits), kill what is left after one second."""
        proc = self._proc
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=1.0)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    # -- calls ----------------------------------------------------------------------------
    def drop(self, stream: int) -> None:
        """The stream will not be read again: tell the peer with the next request."""
        self._drops.append(stream)

    def call(self, member: str, **args: Any) -> Any:
        """Send one request and return the reply's ``ok`` value; raise the error it carries,
        or PeerFailure when no reply came."""
        return self.exchange(member, **args)["ok"]

    def exchange(self, member: str, **args: Any) -> dict[str, Any]:
        """As :meth:`call`, returning the whole reply (``ok`` and what rides with it)."""
        self.refuse_tripped(member)
        if not self.alive():
            self.restart(member)
        request = {"cmd": member, **args}
        if self._drops:
            request["drop"], self._drops = self._drops, []
        return self._exchange(request, member)

    def refuse_tripped(self, member: str) -> None:
        """PeerFailure (``tripped``) when ``member`` is no longer called (the breaker)."""
        first = self.tripped.get(member)
        if first is not None:
            raise PeerFailure(f"{member} is not called again: it {first}", cause="tripped", member=member)

    def _crashed(self, member: str, what: str, exc: BaseException) -> None:
        """Count a call of ``member`` that ended (or could not start) the peer; trip the member
        at the CRASHES_TO_TRIP-th, ``what`` saying why."""
        self.crashes[member] += 1
        if self.crashes[member] >= CRASHES_TO_TRIP:
            self.tripped.setdefault(member, f"{what} (last in {self._where()}: {exc})")

    def _where(self) -> str:
        return self.where() or "an earlier check"

    def _exchange(self, request: dict[str, Any], member: str) -> Any:
        proc = self._proc
        assert proc is not None
        self._unasked(proc, member)
        request["id"] = rid = next(self._ids)
        try:
            data = encode(request)
            if self.marked and needs_marks(data):
                data = encode(mark_strings(request))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the bridge carries JSON values only: {member}'s arguments are not JSON ({exc})") from None
        if self._transcript is not None:
            self._transcript.write(b"> " + data)
            self._transcript.flush()
        started = time.monotonic()
        try:
            reply = self._roundtrip(proc, data, rid, member, started)
        except PeerFailure as exc:
            if exc.cause in ("exit", "signal", "memory"):
                self._crashed(member, f"ended the peer {CRASHES_TO_TRIP} times", exc)
            raise  # a time-out is the suite's to weigh (its time limits put the member on a leash)
        except BaseException:
            # interrupted (the check's own time limit, ^C): the peer's state is unknown
            self.kill()
            raise
        if "error" in reply:
            raise _from_peer(error_from_wire(reply["error"]))
        return reply

    def _roundtrip(self, proc: subprocess.Popen[bytes], data: bytes, rid: int, member: str, started: float) -> dict:
        out_fd, in_fd = proc.stdout.fileno(), proc.stdin.fileno()
        view = memoryview(data)
        checked = started
        while True:
            # write what is left of the request, then read until a line is complete
            if view:
                try:
                    view = view[os.write(in_fd, view):]
                except BlockingIOError:
                    pass
                except (BrokenPipeError, OSError):
                    view = memoryview(b"")  # the peer is gone: its exit is read below
                    self._fail_ended(proc, member)
            if not view:
                end = self._buf.find(b"\n", self._scanned)
                self._scanned = len(self._buf) if end < 0 else 0
                if end < 0 and len(self._buf) > MAX_LINE:
                    self.kill()
                    raise PeerFailure(f"the peer broke the protocol serving {member}: it wrote a line of more than "
                                      f"{MAX_LINE >> 20} MiB without an end; it was killed", cause="protocol", member=member)
                if end >= 0:
                    line = bytes(self._buf[:end])
                    del self._buf[: end + 1]
                    if self._transcript is not None:
                        self._transcript.write(b"< " + line + b"\n")
                        self._transcript.flush()
                    reply = self._reply(line, rid, member)
                    self._last = (rid, member, self._where())
                    if self._buf:  # written with the reply: it follows this reply, which it is charged to
                        self._unasked(proc, member, waited=False)
                    return reply
            now = time.monotonic()
            if now - checked >= POLL:
                checked = now
                self._watch(proc, member, now - started)
            ready = select.select([out_fd], [in_fd] if view else [], [], POLL)
            if ready[0]:
                chunk = os.read(out_fd, 1 << 16)
                if not chunk:
                    self._fail_ended(proc, member)
                self._buf += chunk

    def _watch(self, proc: subprocess.Popen[bytes], member: str, elapsed: float) -> None:
        if elapsed > self.timeout > 0:
            self.kill()
            raise PeerFailure(f"the peer did not answer {member} within {self.timeout:g} s (--mcs-timeout); "
                              "it was killed", cause="time", member=member, detail=self.stderr_tail())
        if self.memory_mib > 0:
            used = self.rss_mib(proc.pid)
            if used is not None and used > self.memory_mib:
                self.kill()
                raise PeerFailure(f"the peer used {used:.0f} MiB serving {member}, over the limit of "
                                  f"{self.memory_mib:g} MiB (--mcs-memory-limit); it was killed",
                                  cause="memory", member=member, detail=self.stderr_tail())
        if proc.poll() is not None:
            self._fail_ended(proc, member)

    def _unasked(self, proc: subprocess.Popen[bytes], member: str, waited: bool = True) -> None:
        """Fail when the peer wrote something after its last reply that no request asked for
        (looked for before each request, and right after a reply): the failure names the
        reply it followed, the request, its member and the item that made it."""
        if not self._buf:
            if not waited or not select.select([proc.stdout.fileno()], [], [], 0)[0]:
                return
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return  # the peer closed its stdout: the next read reports how it ended
            self._buf += chunk
        shown = _shown(bytes(self._buf).partition(b"\n")[0])
        after = (f"after its reply to request {self._last[0]} ({self._last[1]}, in {self._last[2]})"
                 if self._last else "before any request")
        self.kill()
        raise PeerFailure(f"the peer broke the protocol {after}: it wrote a line that nothing asked for; it was killed",
                          cause="protocol", member=self._last[1] if self._last else member,
                          detail=f"the line: {shown}\n{self.stderr_tail()}".rstrip())

    def _fail_ended(self, proc: subprocess.Popen[bytes], member: str) -> None:
        self._drain_stdout(proc)
        code = _reap(proc)
        partial = f"its last output, a line it never ended: {_shown(bytes(self._buf))}\n" if self._buf else ""
        self.kill()  # joins the stderr reader, which has then read the last lines
        if code is None:
            how, cause = "closed its stdout", "exit"
        elif code < 0:
            try:
                how = f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
            cause = "signal"
        else:
            how, cause = f"exited with code {code}", "exit"
        raise PeerFailure(f"the peer {how} while serving {member}" + (" after writing part of a line" if partial else ""),
                          cause=cause, member=member, detail=(partial + self.stderr_tail()).rstrip())

    def _drain_stdout(self, proc: subprocess.Popen[bytes]) -> None:
        """Read what the peer wrote to stdout before it ended (up to the line limit)."""
        try:
            fd = proc.stdout.fileno()
            while len(self._buf) <= MAX_LINE and select.select([fd], [], [], 0)[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                self._buf += chunk
        except (OSError, ValueError):
            pass

    def _reply(self, line: bytes, rid: int, member: str) -> dict[str, Any]:
        def broken(what: str) -> PeerFailure:
            self.kill()
            return PeerFailure(f"the peer broke the protocol serving {member}: {what}; it was killed",
                               cause="protocol", member=member,
                               detail=f"the line: {_shown(line)}\n{self.stderr_tail()}".rstrip())

        try:
            reply = decode(line)
            if self.marked and b"\\u0000wtf8:" in line:
                reply = unmark_strings(reply)
        except ValueError as exc:
            raise broken(f"it wrote a line that is not JSON ({exc})") from None
        if not isinstance(reply, dict) or ("ok" in reply) == ("error" in reply):
            raise broken("it wrote a line that is no reply (an object with 'id' and one of 'ok' or 'error')")
        if reply.get("id") != rid:
            if self._last is not None and reply.get("id") == self._last[0]:
                raise broken(f"it answered request {rid} with the id {reply.get('id')!r}, that of its reply before "
                             f"({self._last[1]}, in {self._last[2]}): a second reply to it, written late")
            raise broken(f"it answered request {rid} with the id {reply.get('id')!r}")
        if "error" in reply:
            try:
                error_from_wire(reply["error"])
            except ValueError as exc:
                raise broken(f"its error is malformed: {exc}") from None
        return reply

    # -- measuring -------------------------------------------------------------------------
    def rss_mib(self, pid: int) -> float | None:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                return int(f.read().split()[1]) * self._page / 2**20
        except (OSError, IndexError, ValueError):
            return None

    def cpu_seconds(self) -> float:
        """The peer's CPU time so far (user + system), 0 where /proc cannot tell."""
        if self._proc is None:
            return 0.0
        try:
            with open(f"/proc/{self._proc.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / self._tick
        except (OSError, IndexError, ValueError):
            return 0.0

    def stderr_tail(self) -> str:
        lines = list(self._stderr)
        return ("its last lines on stderr:\n" + "\n".join(f"    {x}" for x in lines)) if lines else ""


class BridgedStrategy:
    """A strategy whose members run in a peer. Built by :func:`bridged`, with only the
    members the peer's handshake lists."""

    def __init__(self, peer: Peer) -> None:
        hello = peer.hello or {}
        self.peer = peer
        self.name: str = hello.get("name", "?")
        self.leaks_into_text: bool = hello.get("leaks_into_text", False)
        self.implementation: dict[str, Any] = hello.get("implementation", {})
        self._streams = itertools.count(1)
        self._done: tuple[object, Any] | None = None  # (chunk, the is_done answer its accumulate reply carried)

    def __repr__(self) -> str:
        return f"BridgedStrategy({self.name!r}, peer={self.peer.label!r})"

    # -- the members, installed by bridged() from the handshake ---------------------------
    def _recognizes(self, shape: object) -> bool:
        return self.peer.call("recognizes", shape=shape)

    def _accumulate(self, acc: Accumulator, chunk: object) -> str:
        peer = self.peer
        held = acc.state.get(_STREAM)
        if held is None:
            peer.refuse_tripped("accumulate")  # before a new stream starts a process
            if not peer.alive():
                peer.restart("accumulate")
            held = acc.state[_STREAM] = (peer.generation, next(self._streams))
            weakref.finalize(acc, _dropped, weakref.ref(peer), held)
        elif held[0] != peer.generation:
            raise PeerFailure("this stream was lost when the peer was restarted", cause="exit", member="accumulate")
        reply = peer.exchange("accumulate", stream=held[1], chunk=chunk, and_is_done=True)
        acc.defer(lambda: self._message(held))
        self._done = (chunk, reply.get("is_done"))  # the buffer asks is_done of this chunk next
        return reply["ok"]

    def _message(self, held: tuple[int, int]) -> Any:
        if held[0] != self.peer.generation:
            raise PeerFailure("this stream was lost when the peer was restarted", cause="exit", member="as_dict")
        return self.peer.call("as_dict", stream=held[1])

    def _is_done(self, chunk: object) -> bool:
        held, self._done = self._done, None
        if held is not None and held[0] is chunk and isinstance(held[1], dict):
            if "error" in held[1]:
                raise _from_peer(error_from_wire(held[1]["error"]))
            if "ok" in held[1]:
                return held[1]["ok"]
        return self.peer.call("is_done", chunk=chunk)

    def _extract(self, message: object) -> list[ToolCall]:
        reply = self.peer.call("extract", message=message)
        if not isinstance(reply, list):
            raise ValueError(f"extract answered {type(reply).__name__}, not a list of tool calls")
        out = []
        for i, value in enumerate(reply):
            try:
                out.append(call_from_wire(value))
            except ValueError as exc:
                raise ValueError(f"extract answered item {i} that is no tool call: {exc}") from None
        return out

    def _content_text(self, message: object) -> str:
        return self.peer.call("content_text", message=message)

    def _forming_name(self, message: object) -> str | None:
        return self.peer.call("forming_name", message=message)

    def _result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        sent = [record_to_wire(r) if isinstance(r, ToolCallRecord) else r for r in records] \
            if isinstance(records, (list, tuple)) else records  # what is no record reaches the strategy as it is
        return self.peer.call("result_messages", message=message, records=sent)

    def _render(self, calls: Sequence[ToolCall]) -> str:
        sent = [call_to_wire(c) if isinstance(c, ToolCall) else c for c in calls] \
            if isinstance(calls, (list, tuple)) else calls
        return self.peer.call("render", calls=sent)

    # -- the bridge's own cost, for COST ----------------------------------------------------
    @property
    def measures_itself(self) -> bool:
        """Does the peer report its strategy's own CPU time (``cpu_time``)?"""
        return "cpu_time" in (self.peer.hello or {}).get("members", ())

    @property
    def clock_resolution(self) -> float:
        """The smallest CPU time :meth:`cpu_time` tells apart from none: a microsecond from the
        peer's own measure, three clock ticks of ``/proc/<pid>/stat`` otherwise."""
        return 1e-6 if self.measures_itself else 3.0 / self.peer._tick

    def cpu_time(self) -> float:
        """CPU seconds for COST: the strategy's own code as the peer measures it (``cpu_time``),
        else this process and the peer together (the bridge's part is then ``floor``)."""
        if self.measures_itself:
            return float(self.peer.call("cpu_time"))
        return time.process_time() + self.peer.cpu_seconds()

    def floor(self, chunks: Sequence[Any]) -> float:
        """CPU seconds the bridge itself spends carrying ``chunks`` as the buffer feeds them
        (one request a chunk: ``accumulate`` carries ``is_done``'s answer), measured with ``ping``;
        0 when the peer measures its strategy itself."""
        if self.measures_itself:
            return 0.0
        start = self.cpu_time()
        for chunk in chunks:
            self.peer.call("ping", payload=chunk)
        return self.cpu_time() - start


def bridged(peer: Peer) -> BridgedStrategy:
    """Start ``peer`` (if needed) and return the strategy standing for it, with exactly the
    members its handshake lists (STRUCT and the loader see what the peer has)."""
    hello = peer.hello or peer.start()
    members = set(hello.get("members", ()))
    cls = type("BridgedStrategy", (BridgedStrategy,), {
        m: getattr(BridgedStrategy, "_" + m) for m in (*MEMBERS, *OPTIONAL_MEMBERS) if m in members})
    cls.__module__ = __name__
    cls.__doc__ = BridgedStrategy.__doc__
    strategy = cls(peer)
    return strategy


def close_all() -> None:
    """Close every peer still running (at the end of a run)."""
    for peer in list(_LIVE):
        peer.close()


def _hello_problem(hello: Any) -> str | None:
    if not isinstance(hello, dict):
        return f"its handshake is {type(hello).__name__}, not an object"
    if hello.get("protocol") != PROTOCOL:
        return (f"it speaks bridge protocol {hello.get('protocol')!r}; this mcs-conformance speaks "
                f"protocol {PROTOCOL} (docs/bridge.md)")
    if not isinstance(hello.get("name"), str) or not hello["name"]:
        return "its handshake has no name (a non-empty string)"
    if not isinstance(hello.get("leaks_into_text"), bool):
        return "its handshake's leaks_into_text is not true or false"
    members = hello.get("members")
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        return "its handshake's members is not a list of member names"
    if not isinstance(hello.get("implementation", {}), dict):
        return "its handshake's implementation is not an object"
    if hello.get("string_form", "json") not in STRING_FORMS:
        return f"its handshake's string_form is {hello.get('string_form')!r}, not one of {', '.join(STRING_FORMS)}"
    return None


def _from_peer(exc: Exception) -> Exception:
    """Mark an error the peer answered as data (the suite's failure report says so)."""
    exc.from_peer = True  # type: ignore[attr-defined]
    return exc


def _shown(line: bytes) -> str:
    return line[:200].decode("utf-8", "replace") + (f"... ({len(line):,} bytes)" if len(line) > 200 else "")


def _kill_marked(token: str) -> None:
    """SIGKILL every process whose environment carries ``MARK=token`` (a peer's descendants,
    those that left its process group included), looking again while new ones appear."""
    if not token or not os.path.isdir("/proc"):
        return
    needle = f"{MARK}={token}".encode() + b"\0"
    for _ in range(5):  # a process that forks while it is being killed leaves a child to find next time
        found = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    marked = needle in f.read() + b"\0"
                if marked:
                    os.kill(int(entry), signal.SIGKILL)
                    found += 1
            except (OSError, ValueError):
                continue
        if not found:
            return


def _dropped(peer_ref: "weakref.ref[Peer]", held: tuple[int, int]) -> None:
    peer = peer_ref()
    if peer is not None and peer.generation == held[0]:
        peer.drop(held[1])


def _drain(fd: int, into: "collections.deque[str]") -> None:
    """Keep the last lines the peer writes to stderr (each cut at 500 characters), reading
    in blocks: a peer that floods stderr costs one system call per 64 KiB."""
    rest = b""
    try:
        while True:
            block = os.read(fd, 1 << 16)
            if not block:
                break
            lines = (rest + block).split(b"\n")
            rest = lines.pop()[-4096:]
            into.extend(line[:2000].decode("utf-8", "replace")[:500] for line in lines[-into.maxlen:])
    except (OSError, ValueError):
        pass
    if rest:
        into.append(rest.decode("utf-8", "replace")[:500])


def _reap(proc: subprocess.Popen[bytes]) -> int | None:
    try:
        return proc.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        return proc.poll()


try:  # looked up here: the child calls it between fork and exec, where loading a library is unsafe
    _PRCTL: Any = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent() -> None:
    """In the child, before exec: on Linux, be killed when the process that started us dies."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
