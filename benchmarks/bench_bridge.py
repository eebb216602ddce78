"""Bridge benchmark: what running a strategy in a peer process costs, against in-process.

Two measurements, each against a baseline taken in the same run of this script:

1. **Per call.** One protocol call through the bridge (``ping`` empty and with a 250-byte
   chunk, ``is_done``, feeding a 250-chunk stream chunk by chunk, and ``extract`` of its
   message) against the same member called in-process, in microseconds per call, with the
   ratio. The Python peer always; the JavaScript peer (examples/ollama-js, through
   scripts/node22.sh) when a node >= 22 is at hand (``ping`` only: its strategy differs).
2. **A whole ci run.** ``pytest --mcs-only --mcs-profile=ci`` on a reference strategy
   in-process, then with ``--mcs-isolate``: wall and CPU seconds (this process's children,
   peers included) and the ratio (goal: at most 3x). The floor is the part no peer can save:
   the number of requests the bridged run made (counted from its transcript) times the
   round trip of an empty ``ping``.

    python benchmarks/bench_bridge.py                       # per call, and the ci run of openai-chat and text-json
    python benchmarks/bench_bridge.py --strategies all -n 2 # the four reference strategies
    python benchmarks/bench_bridge.py --calls-only
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcs_conformance import Accumulator  # noqa: E402
from mcs_conformance.bridge.client import Peer, bridged  # noqa: E402
from mcs_conformance.strategies import OpenAIChatStrategy  # noqa: E402

STRATEGIES = {"openai-chat": "OpenAIChatStrategy", "openai-responses": "OpenAIResponsesStrategy",
              "anthropic-messages": "AnthropicMessagesStrategy", "text-json": "TextStrategy"}
GOAL = 3.0
CHUNK = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": {"content": "chunk of text " * 7}, "finish_reason": None}]}


def per_call(fn: Callable[[], Any], n: int) -> float:
    """Microseconds per call of ``fn``, best of three batches of ``n``."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - start)
    return best / n * 1e6


def stream() -> list[dict]:
    calls = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]
    out = [{**CHUNK, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": calls}}]}]
    out += [{**CHUNK, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1, '}}]}}]}
            for _ in range(248)]
    out.append({**CHUNK, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return out


def feed(strategy: Any, chunks: list[dict]) -> Any:
    acc = Accumulator()
    for c in chunks:
        strategy.accumulate(acc, c)
        strategy.is_done(c)
    return acc.message


def calls_table(n: int) -> list[tuple[str, float, float]]:
    here = OpenAIChatStrategy()
    peer = Peer([sys.executable, "-m", "mcs_conformance.bridge.server", "mcs_conformance.strategies:OpenAIChatStrategy"])
    there = bridged(peer)
    chunks = stream()
    message = feed(here, chunks)
    rows = [
        ("ping (empty) vs a Python call", per_call(lambda: None, n), per_call(lambda: peer.call("ping"), n)),
        ("ping (a 250-byte chunk) vs is_done", per_call(lambda: here.is_done(CHUNK), n),
         per_call(lambda: peer.call("ping", payload=CHUNK), n)),
        ("is_done", per_call(lambda: here.is_done(CHUNK), n), per_call(lambda: there.is_done(CHUNK), n)),
        ("feeding, per chunk (accumulate + is_done), message read once",
         per_call(lambda: feed(here, chunks), max(1, n // 250)) / len(chunks),
         per_call(lambda: feed(there, chunks), max(1, n // 250)) / len(chunks)),
        ("extract of the fed message", per_call(lambda: here.extract(message), n // 4),
         per_call(lambda: there.extract(message), n // 4)),
    ]
    peer.close()
    node = _node()
    if node:
        js = Peer([node, str(ROOT / "examples" / "ollama-js" / "ollama_strategy.mjs")],
                  env={**os.environ, "MCS_BRIDGE_JS": (ROOT / "mcs_conformance" / "bridge" / "server.mjs").as_uri()})
        js.start()
        rows.append(("ping (a 250-byte chunk), JavaScript peer", per_call(lambda: here.is_done(CHUNK), n),
                     per_call(lambda: js.call("ping", payload=CHUNK), n)))
        js.close()
    return rows


def _node() -> str | None:
    try:
        done = subprocess.run(["bash", str(ROOT / "scripts" / "node22.sh")], cwd=ROOT, capture_output=True, text=True,
                              timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else ""
    return path if path and (examples := ROOT / "examples" / "ollama-js" / "ollama_strategy.mjs").exists() else None


def ci_run(spec: str, isolate: bool, workers: int, transcript: Path | None) -> tuple[float, float, str]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--mcs-only", "--mcs-profile=ci",
           f"--mcs-strategy={spec}"]
    if workers > 1:
        cmd += ["-n", str(workers)]
    if isolate:
        cmd.append("--mcs-isolate")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop("MCS_BRIDGE_TRANSCRIPT", None)
    if transcript is not None:
        env["MCS_BRIDGE_TRANSCRIPT"] = str(transcript)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    return wall, cpu, last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", default="openai-chat,text-json", help="comma-separated formats, or all")
    parser.add_argument("-n", type=int, default=1, help="pytest-xdist workers per run (default 1)")
    parser.add_argument("--calls", type=int, default=4000, help="calls per batch in the per-call table")
    parser.add_argument("--calls-only", action="store_true")
    args = parser.parse_args()
    print(f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}")
    print("\n| call | in-process (us) | bridged (us) | ratio |\n|---|---:|---:|---:|")
    ping = None
    for label, a, b in calls_table(args.calls):
        ping = b if ping is None else ping
        print(f"| {label} | {a:.2f} | {b:.1f} | {b / max(a, 1e-3):.0f}x |")
    if args.calls_only:
        return 0
    formats = list(STRATEGIES) if args.strategies == "all" else args.strategies.split(",")
    print("\n| strategy | in-process wall / CPU (s) | bridged wall / CPU (s) | wall ratio | requests | floor (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for fmt in formats:
        spec = f"mcs_conformance.strategies:{STRATEGIES[fmt]}"
        with tempfile.TemporaryDirectory() as tmp:
            transcript = Path(tmp) / "t.jsonl"
            w0, c0, s0 = ci_run(spec, False, args.n, None)
            w1, c1, s1 = ci_run(spec, True, args.n, transcript)
            requests = sum(1 for line in transcript.open("rb") if line.startswith(b"> ")) if transcript.exists() else 0
        floor = requests * (ping or 0) / 1e6 / max(args.n, 1)
        worst = max(worst, w1 / w0)
        print(f"| {fmt} | {w0:.1f} / {c0:.1f} | {w1:.1f} / {c1:.1f} | {w1 / w0:.2f}x | {requests} | {floor:.1f} |")
        if s0.split(" in ")[0] != s1.split(" in ")[0]:
            print(f"    the two runs' outcomes differ: {s0!r} vs {s1!r}")
    print(f"\nworst wall ratio {worst:.2f}x (goal <= {GOAL:g}x); floor: requests x the empty ping's round trip, "
          "spread over the workers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
