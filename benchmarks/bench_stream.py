"""Speed benchmark of the reference LLMStreamBuffer, the SDK accumulators and a bare floor.

Two parts, in one run:

1. Recorded streams. For each native wire format, every recorded stream case of the
   bundled corpus (those the buffer and the SDK both accept whole) is fed, in a loop, through
   ``LLMStreamBuffer([reference strategy])``, through the official SDK accumulator
   (openai ``ChatCompletionStreamState`` / ``ResponseStreamState``, anthropic's beta
   ``accumulate_event``) and through a bare floor (the delta strings of every chunk,
   found beforehand, appended to a list and joined once). The SDK is timed twice: on
   SDK event models built beforehand (the accumulator alone) and building the model of
   every chunk inside the loop (what a client of the SDK pays per chunk).
2. Scaling. Synthetic streams of N chunks per format, built from a recorded one-call
   case of that format: the call's argument deltas are replaced by N pieces of about 10
   bytes (about 1 MB of arguments at N = 100k). Feeding alone is timed at each N; then
   feeding with an ``as_dict()`` peek after every chunk, against its floor: copying the
   message once per chunk (the growing string extended by one piece, which makes a new
   string of the full length, and ``copy_tree`` of the message holding it).

Timing is timeit-style: the best of several repeats, the garbage collector off during
the timed runs, CPU time of the process (``time.process_time``). Per-chunk costs are in
microseconds.

    python benchmarks/bench_stream.py            # the full run (a few minutes)
    python benchmarks/bench_stream.py --quick    # small sizes, seconds (the smoke test)
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcs_conformance import LLMStreamBuffer
from mcs_conformance.reference.accumulator import copy_tree
from mcs_conformance.corpus_tools.corpus import Case, Corpus, Descriptor, load_corpus
from mcs_conformance.suite.generators import delta_sites
from mcs_conformance.suite.json_patterns import Path as JPath
from mcs_conformance.suite.json_patterns import get, put
from mcs_conformance.strategies import (
    AnthropicMessagesStrategy,
    OpenAIChatStrategy,
    OpenAIResponsesStrategy,
)

STRATEGIES = {s.name: s for s in (OpenAIChatStrategy, OpenAIResponsesStrategy, AnthropicMessagesStrategy)}
FORMATS = list(STRATEGIES)

# the speed targets
SDK_RATIO = 0.10  # buffer/sdk per chunk: at least 10x cheaper
FLOOR_RATIO = 3.0  # buffer/floor per chunk
FLAT_RATIO = 1.5  # per-chunk cost at the largest N / at the smallest N, feeding alone
PEEK_RATIO = 2.0  # feed + peek per chunk / one copy of the message per chunk

HEADERS = {
    "recorded": "== Recorded streams",
    "feeding": "== Scaling: feeding alone",
    "peek": "== Scaling: feeding with an as_dict() peek after every chunk",
    "targets": "== Targets",
}


# ------------------------------------------------------------------------------ timing
def best_of(run: Callable[[], Any], repeat: int, min_time: float) -> float:
    """Seconds per call of ``run``: the best of ``repeat`` timings, each of enough calls to
    last ``min_time`` (timeit's autorange), with the garbage collector off."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        number = 1
        while True:
            took = _clock(run, number)
            if took >= min_time or number >= 1 << 20:
                break
            number *= 2 if took * 4 >= min_time else 10
        best = took / number
        for _ in range(repeat - 1):
            best = min(best, _clock(run, number) / number)
        return best
    finally:
        if enabled:
            gc.enable()


def _clock(run: Callable[[], Any], number: int) -> float:
    """CPU seconds of ``number`` calls: the process's own time, which other load on the
    machine disturbs less than the wall clock (the code timed is single-threaded)."""
    start = time.process_time()
    for _ in range(number):
        run()
    return time.process_time() - start


# ------------------------------------------------------------------------------ SDK accumulators
@dataclass
class SdkAccumulator:
    """One SDK's stream accumulator: ``model(payload)`` builds the SDK event model of a wire
    payload (None for transport sentinels), ``run(models)`` accumulates a whole stream."""

    label: str
    model: Callable[[Any], Any]
    run: Callable[[list[Any]], Any]


def sdk_accumulator(fmt: str) -> SdkAccumulator:
    """The official SDK accumulator of a wire format, run offline."""
    if fmt == "openai-chat":
        import openai
        from openai._models import construct_type
        from openai.lib.streaming.chat import ChatCompletionStreamState
        from openai.types.chat import ChatCompletionChunk

        def run_chat(models: list[Any]) -> Any:
            state = ChatCompletionStreamState()
            for m in models:
                state.handle_chunk(m)
            try:
                return state.get_final_completion()
            except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
                return exc.completion

        return SdkAccumulator(
            f"openai {openai.__version__} ChatCompletionStreamState.handle_chunk",
            lambda p: construct_type(type_=ChatCompletionChunk, value=p) if isinstance(p, dict) else None,
            run_chat,
        )
    if fmt == "openai-responses":
        import openai
        from openai import omit
        from openai._models import construct_type
        from openai.lib.streaming.responses import ResponseStreamState
        from openai.types.responses import ResponseStreamEvent

        def run_responses(models: list[Any]) -> Any:
            state = ResponseStreamState(input_tools=omit, text_format=omit)
            out = None
            for m in models:
                out = state.handle_event(m)
            return out

        return SdkAccumulator(
            f"openai {openai.__version__} ResponseStreamState.handle_event",
            lambda p: construct_type(type_=ResponseStreamEvent, value=p) if isinstance(p, dict) else None,
            run_responses,
        )
    if fmt == "anthropic-messages":
        import anthropic
        import httpx2
        from anthropic._models import construct_type
        from anthropic.lib.streaming._beta_messages import accumulate_event
        from anthropic.types.beta import BetaRawMessageStreamEvent

        headers = httpx2.Headers()

        def run_anthropic(models: list[Any]) -> Any:
            snapshot, bufs = None, {}
            for m in models:
                snapshot = accumulate_event(
                    event=m, current_snapshot=snapshot, json_bufs=bufs, request_headers=headers
                )
            return snapshot

        return SdkAccumulator(
            f"anthropic {anthropic.__version__} beta accumulate_event",
            lambda p: construct_type(type_=BetaRawMessageStreamEvent, value=p) if isinstance(p, dict) else None,
            run_anthropic,
        )
    raise ValueError(f"no SDK accumulator for format {fmt!r}")


# ------------------------------------------------------------------------------ recorded streams
@dataclass
class RecordedRow:
    """Per-chunk costs (seconds) of one format's recorded streams."""

    fmt: str
    cases: int
    chunks: int
    buffer: float = 0.0
    sdk: float = 0.0
    sdk_with_models: float = 0.0
    floor: float = 0.0
    floor_reading: float = 0.0
    excluded: list[str] = field(default_factory=list)
    sdk_label: str = ""


def feed_all(fmt: str, streams: Sequence[Sequence[Any]]) -> None:
    """Each stream through a fresh buffer, then one read of the message."""
    strategy = STRATEGIES[fmt]()
    for chunks in streams:
        buf = LLMStreamBuffer([strategy])
        feed = buf.feed
        for chunk in chunks:
            feed(chunk)
        buf.as_dict()


def is_recorded(case: Case) -> bool:
    """A stream captured from a provider (possibly sanitized), not one made by hand."""
    return case.provenance.get("kind") != "synthetic"


def _accepted(fmt: str, case: Case, sdk: SdkAccumulator) -> str | None:
    """Why a case cannot be timed on both sides (None: it can)."""
    if case.raises:
        return f"the stream ends in {case.raises}"
    try:
        feed_all(fmt, [case.chunks])
    except Exception as exc:  # noqa: BLE001 -- reported, not hidden
        return f"the buffer rejects it: {type(exc).__name__}: {str(exc)[:80]}"
    try:
        sdk.run([m for m in map(sdk.model, case.chunks) if m is not None])
    except Exception as exc:  # noqa: BLE001
        return f"the SDK rejects it: {type(exc).__name__}: {str(exc)[:80]}"
    return None


def bench_recorded(corpus: Corpus, fmt: str, repeat: int, min_time: float) -> RecordedRow:
    """Per-chunk cost of the buffer, the SDK (with and without models) and the floors."""
    sdk = sdk_accumulator(fmt)
    descriptor = corpus.descriptors[fmt]
    streams, excluded, synthetic = [], [], 0
    for case in corpus.for_format(fmt):
        if not case.is_stream:
            continue
        if not is_recorded(case):
            synthetic += 1
            continue
        why = _accepted(fmt, case, sdk)
        if why is None:
            streams.append(case.chunks)
        else:
            excluded.append(f"{case.id} ({why})")
    if synthetic:
        excluded.append(f"{synthetic} synthetic stream case(s) (only recorded streams are timed here)")
    chunks = sum(len(s) for s in streams)
    row = RecordedRow(fmt, len(streams), chunks, excluded=excluded, sdk_label=sdk.label)
    payload_streams = [[c for c in s if isinstance(c, dict)] for s in streams]
    model_streams = [[m for m in map(sdk.model, s) if m is not None] for s in payload_streams]
    sites = [[[text for _, text in delta_sites(c, descriptor)] for c in s] for s in streams]

    def sdk_with_models() -> None:
        for s in payload_streams:
            sdk.run([sdk.model(p) for p in s])

    def sdk_alone() -> None:
        for models in model_streams:
            sdk.run(models)

    row.buffer = best_of(lambda: feed_all(fmt, streams), repeat, min_time) / chunks
    row.sdk = best_of(sdk_alone, repeat, min_time) / chunks
    row.sdk_with_models = best_of(sdk_with_models, repeat, min_time) / chunks
    row.floor = best_of(lambda: bare_floor(sites), repeat, min_time) / chunks
    row.floor_reading = best_of(lambda: reading_floor(streams, descriptor), repeat, min_time) / chunks
    return row


def bare_floor(sites: list[list[list[str]]]) -> None:
    """The floor: every chunk's delta strings (found beforehand) appended, joined once."""
    for stream in sites:
        pieces: list[str] = []
        append = pieces.append
        for texts in stream:
            for text in texts:
                append(text)
        "".join(pieces)


def reading_floor(streams: list[list[Any]], descriptor: Descriptor) -> None:
    """The floor plus finding the deltas in each chunk (the descriptor-driven, format-free way)."""
    for stream in streams:
        pieces: list[str] = []
        append = pieces.append
        for chunk in stream:
            for _, text in delta_sites(chunk, descriptor):
                append(text)
        "".join(pieces)


# ------------------------------------------------------------------------------ synthetic streams
@dataclass
class Template:
    """A recorded one-call case cut around the run of chunks that carry the call's arguments."""

    case_id: str
    prefix: list[Any]
    first: Any  # the run's first chunk (it may carry the call's id and name)
    middle: Any  # a chunk inside the run: a pure argument delta
    path: JPath  # where the argument text sits in ``first`` and ``middle``
    suffix: list[Any]
    original: str  # the argument text of the recorded case


def find_template(corpus: Corpus, fmt: str) -> Template:
    """The first stream case of ``fmt`` (recorded ones first) with one call whose argument
    deltas form a run.

    Format-free: the run is the longest stretch of chunks that each hold one delta on the
    same path and whose joined text parses to the case's expected arguments.
    """
    descriptor = corpus.descriptors[fmt]
    for case in sorted(corpus.for_format(fmt), key=lambda c: not is_recorded(c)):
        calls = case.expect.get("calls") or []
        if not case.is_stream or case.raises or len(calls) != 1 or not calls[0].get("arguments"):
            continue
        sites = [delta_sites(c, descriptor) for c in case.chunks]
        best: tuple[int, int] | None = None
        for i in range(len(sites)):
            if len(sites[i]) != 1:
                continue
            j = i
            while j + 1 < len(sites) and len(sites[j + 1]) == 1 and sites[j + 1][0][0] == sites[i][0][0]:
                j += 1
                text = "".join(s[0][1] for s in sites[i : j + 1])
                if _parses_to(text, calls[0]["arguments"]) and (best is None or j - i > best[1] - best[0]):
                    best = (i, j)
        if best is None or best[1] - best[0] < 2:
            continue
        i, j = best
        return Template(
            case_id=case.id,
            prefix=case.chunks[:i],
            first=case.chunks[i],
            middle=case.chunks[i + 1],
            path=sites[i][0][0],
            suffix=case.chunks[j + 1 :],
            original="".join(s[0][1] for s in sites[i : j + 1]),
        )
    raise ValueError(f"no stream case of {fmt} has a single call with a run of argument deltas")


def _parses_to(text: str, arguments: Any) -> bool:
    try:
        return json.loads(text) == arguments
    except ValueError:
        return False


def argument_pieces(count: int, size: int = 10) -> list[str]:
    """``count`` pieces of ``size`` characters that join to one JSON object."""
    head, tail = '{"data": "', '"}'
    body = count * size - len(head) - len(tail)
    filler = ("0123456789abcdefghijklmnopqrstuvwxyz" * (body // 36 + 1))[:body]
    text = head + filler + tail
    return [text[k : k + size] for k in range(0, len(text), size)]


def _replaced(tree: Any, old: str, new: str) -> Any:
    """A copy of ``tree`` with every string equal to ``old`` replaced by ``new``."""
    if isinstance(tree, dict):
        return {k: _replaced(v, old, new) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_replaced(v, old, new) for v in tree]
    return new if tree == old else tree


def _with_text(chunk: Any, path: JPath, text: str) -> Any:
    out = copy_tree(chunk)
    put(out, path, text)
    return out


def synthetic_stream(template: Template, total: int) -> tuple[list[Any], list[str]]:
    """A stream of ``total`` chunks; and the argument piece each chunk adds ("" for others)."""
    count = max(2, total - len(template.prefix) - len(template.suffix))
    pieces = argument_pieces(count)
    text = "".join(pieces)
    chunks = list(template.prefix)
    chunks.append(_with_text(template.first, template.path, pieces[0]))
    chunks.extend(_with_text(template.middle, template.path, p) for p in pieces[1:])
    chunks.extend(_replaced(c, template.original, text) for c in template.suffix)
    added = [""] * len(template.prefix) + pieces + [""] * len(template.suffix)
    return chunks, added


def _locate(tree: Any, text: str, parsed: Any, here: JPath = ()) -> JPath | None:
    """The path of the argument text (or of its parsed object) in a message."""
    if tree == text or (isinstance(tree, dict) and tree == parsed):
        return here
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for k, v in items:
        found = _locate(v, text, parsed, here + (k,))
        if found is not None:
            return found
    return None


# ------------------------------------------------------------------------------ scaling
@dataclass
class ScaleRow:
    """Per-chunk costs (seconds) of one synthetic stream size; None where not timed."""

    fmt: str
    n: int
    feed: float | None = None
    peek: float | None = None
    peek_floor: float | None = None
    args_bytes: int = 0


def check_stream(fmt: str, chunks: list[Any], added: list[str]) -> Any:
    """Feed the synthetic stream once: its call must carry exactly the argument text.

    Returns the message as read right after the last argument piece: the message a peek
    copies while the arguments grow (the floor copies one of the same shape).
    """
    strategy = STRATEGIES[fmt]()
    buf = LLMStreamBuffer([strategy])
    last = max(i for i, piece in enumerate(added) if piece)
    grown = None
    for i, chunk in enumerate(chunks):
        buf.feed(chunk)
        if i == last:
            grown = copy_tree(buf.as_dict())
    calls = strategy.extract(buf.as_dict())
    if len(calls) != 1 or calls[0].error or calls[0].arguments != json.loads("".join(added)):
        raise AssertionError(f"{fmt}: the synthetic stream does not reassemble to its call: {calls[:1]}")
    return grown


def feed_only(fmt: str, chunks: list[Any]) -> None:
    """One stream through a fresh buffer, then one read of the message."""
    buf = LLMStreamBuffer([STRATEGIES[fmt]()])
    feed = buf.feed
    for chunk in chunks:
        feed(chunk)
    buf.as_dict()


def feed_and_peek(fmt: str, chunks: list[Any]) -> None:
    """One stream through a fresh buffer, reading the message after every chunk."""
    buf = LLMStreamBuffer([STRATEGIES[fmt]()])
    feed, peek = buf.feed, buf.as_dict
    for chunk in chunks:
        feed(chunk)
        peek()


def copy_floor(message: dict, path: JPath, added: list[str]) -> None:
    """One copy of the message per chunk: the growing string extended by the chunk's piece
    (a new string of the full length, since the last copy still holds the old one) and the
    message's containers copied around it."""
    work = copy_tree(message)
    container, key = get(work, path[:-1]), path[-1]
    text, snapshot = "", None
    for piece in added:
        text = text + piece
        container[key] = text
        snapshot = copy_tree(work)
    del snapshot


def bench_scaling(
    corpus: Corpus,
    fmt: str,
    sizes: list[int],
    peek_sizes: list[int],
    repeat: int,
    peek_repeat: int,
    min_time: float,
    log: Callable[[str], None],
) -> tuple[Template, list[ScaleRow]]:
    """Per-chunk cost of feeding alone, and of feeding with a peek per chunk and its floor."""
    template = find_template(corpus, fmt)
    rows = []
    for n in sorted(set(sizes) | set(peek_sizes)):
        chunks, added = synthetic_stream(template, n)
        text = "".join(added)
        message = check_stream(fmt, chunks, added)
        row = ScaleRow(fmt, len(chunks), args_bytes=len(text))
        if n in sizes:
            row.feed = best_of(lambda: feed_only(fmt, chunks), repeat, min_time) / len(chunks)
        if n in peek_sizes:
            path = _locate(message, text, json.loads(text))
            if path is None:
                raise AssertionError(f"{fmt}: the argument text is nowhere in the message")
            times = repeat if n < 50_000 else peek_repeat  # the largest sizes take seconds per run
            row.peek = best_of(lambda: feed_and_peek(fmt, chunks), times, min_time) / len(chunks)
            row.peek_floor = best_of(lambda: copy_floor(message, path, added), times, min_time) / len(chunks)
        log(f"   ... {fmt} N={len(chunks)} done")
        rows.append(row)
        del chunks, added
    return template, rows


# ------------------------------------------------------------------------------ report
def us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.3f}"


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or not b else f"{a / b:.3f}"


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def verdict(ok: bool) -> str:
    return "[MET]    " if ok else "[NOT MET]"


def target_lines(recorded: list[RecordedRow], scaling: dict[str, list[ScaleRow]], quick: bool) -> list[str]:
    """One MET / NOT MET line per target and format, with the figures behind it."""
    lines = [HEADERS["targets"] + (" (quick run: sizes too small to judge the targets)" if quick else "")]
    for row in recorded:
        r, rm = row.buffer / row.sdk, row.buffer / row.sdk_with_models
        lines.append(
            f"{verdict(r <= SDK_RATIO)} {row.fmt}: >= 10x cheaper per chunk than the SDK accumulator alone "
            f"(its event models built beforehand): buffer/sdk = {r:.3f} (target <= {SDK_RATIO:.2f})"
        )
        lines.append(
            f"{verdict(rm <= SDK_RATIO)} {row.fmt}: >= 10x cheaper per chunk than the SDK as its client pays "
            f"(event models built per chunk): buffer/sdk+model = {rm:.3f} (target <= {SDK_RATIO:.2f})"
        )
    for row in recorded:
        r = row.buffer / row.floor
        lines.append(
            f"{verdict(r <= FLOOR_RATIO)} {row.fmt}: within 3x of the bare floor: buffer/floor = {r:.1f} "
            f"(target <= {FLOOR_RATIO:.0f}; against the floor that also finds the deltas in the loop: "
            f"{row.buffer / row.floor_reading:.2f})"
        )
    for fmt, rows in scaling.items():
        fed = [r for r in rows if r.feed is not None]
        lo, hi = fed[0], fed[-1]
        r = hi.feed / lo.feed
        lines.append(
            f"{verdict(r <= FLAT_RATIO)} {fmt}: feeding alone flat from {size_label(lo.n)} to {size_label(hi.n)} "
            f"chunks: {us(lo.feed)} -> {us(hi.feed)} us per chunk, ratio {r:.2f} (target <= {FLAT_RATIO})"
        )
    for fmt, rows in scaling.items():
        peeked = [r for r in rows if r.peek is not None]
        top = peeked[-1]
        r = top.peek / top.peek_floor
        each = ", ".join(
            f"{size_label(p.n)}: {p.peek / p.peek_floor:.2f}{' (over)' if p.peek / p.peek_floor > PEEK_RATIO else ''}"
            for p in peeked
        )
        lines.append(
            f"{verdict(r <= PEEK_RATIO)} {fmt}: feeding with a peek per chunk within 2x of one message copy "
            f"per chunk: peek/floor = {r:.2f} at {size_label(top.n)} chunks, the largest N (target <= "
            f"{PEEK_RATIO:.0f}; by size {each})"
        )
    return lines


def print_recorded(recorded: list[RecordedRow]) -> None:
    print(HEADERS["recorded"] + " (every recorded stream case of the corpus, per format, fed in a loop;")
    print("each stream into a fresh buffer / SDK state, the message read once at the end)")
    print(f"{'format':<20}{'cases':>6}{'chunks':>7}{'buffer':>9}{'sdk':>9}{'sdk+model':>10}"
          f"{'floor':>8}{'floor+find':>11}{'buf/sdk':>9}{'buf/sdk+m':>10}{'buf/floor':>10}")
    for row in recorded:
        print(f"{row.fmt:<20}{row.cases:>6}{row.chunks:>7}{us(row.buffer):>9}{us(row.sdk):>9}"
              f"{us(row.sdk_with_models):>10}{us(row.floor):>8}{us(row.floor_reading):>11}"
              f"{ratio(row.buffer, row.sdk):>9}{ratio(row.buffer, row.sdk_with_models):>10}"
              f"{ratio(row.buffer, row.floor):>10}")
    print("  buffer: LLMStreamBuffer([reference strategy]) fed wire dicts; sdk: the SDK accumulator on its")
    print("  event models built beforehand; sdk+model: building each chunk's model in the loop too (what an")
    print("  SDK client pays); floor: each chunk's delta strings, found beforehand, appended to a list and")
    print("  joined once; floor+find: finding them in each chunk (descriptor paths) inside the loop as well.")
    for row in recorded:
        print(f"  {row.fmt}: {row.sdk_label}")
        for why in row.excluded:
            print(f"    excluded {why}")
    print()


def print_scaling(scaling: dict[str, list[ScaleRow]], templates: dict[str, str], sizes: list[int]) -> None:
    print(HEADERS["feeding"] + " (synthetic: one call's arguments grow ~10 bytes per chunk;")
    print("per-chunk cost at each N, the message read once at the end)")
    print(f"{'format':<20}{'template case':<58}" + "".join(f"{size_label(n):>9}" for n in sizes)
          + f"{'max/min':>9}{'args at max':>13}")
    for fmt, rows in scaling.items():
        fed = [r for r in rows if r.feed is not None]
        print(f"{fmt:<20}{templates[fmt]:<58}" + "".join(f"{us(r.feed):>9}" for r in fed)
              + f"{ratio(fed[-1].feed, fed[0].feed):>9}{fed[-1].args_bytes:>13,}")
    print()
    print(HEADERS["peek"] + "; the floor copies the message")
    print("once per chunk: its growing string extended by the piece (a new string of the full length), then")
    print("copy_tree of the message holding it. Every peek copies the arguments so far: the total is quadratic")
    print("by nature, so the largest N takes a while.")
    print(f"{'format':<20}{'N':>8}{'args bytes':>12}{'feed+peek':>11}{'floor':>10}{'peek/floor':>12}")
    for fmt, rows in scaling.items():
        for r in rows:
            if r.peek is not None:
                print(f"{fmt:<20}{size_label(r.n):>8}{r.args_bytes:>12,}{us(r.peek):>11}{us(r.peek_floor):>10}"
                      f"{ratio(r.peek, r.peek_floor):>12}")
    print()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats (seconds)")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=FORMATS)
    parser.add_argument("--sizes", type=int, nargs="+", help="scaling sizes, feeding alone")
    parser.add_argument("--peek-sizes", type=int, nargs="+", help="scaling sizes with a peek per chunk")
    parser.add_argument("--repeat", type=int, help="best of this many timings")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is not met")
    args = parser.parse_args(argv)

    quick = args.quick
    sizes = sorted(args.sizes or ([100, 1000] if quick else [1000, 10_000, 100_000]))
    peek_sizes = sorted(args.peek_sizes or ([100, 1000] if quick else [1000, 10_000, 100_000]))
    repeat = args.repeat or (2 if quick else 7)
    min_time = 0.01 if quick else 0.2

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    import anthropic
    import openai

    corpus = load_corpus()
    print(
        f"mcs-conformance stream benchmark: python {platform.python_version()}, openai {openai.__version__}, "
        f"anthropic {anthropic.__version__}, {platform.machine()}, corpus {corpus.version}"
    )
    print(f"timing: best of {repeat} (peek runs of 50k chunks or more: best of {max(1, min(repeat, 3))}), "
          "process CPU time, garbage collector off while timed; costs in microseconds per chunk")
    print()

    recorded = []
    for fmt in args.formats:
        log(f"recorded streams: {fmt}")
        recorded.append(bench_recorded(corpus, fmt, repeat, min_time))
    print_recorded(recorded)

    scaling: dict[str, list[ScaleRow]] = {}
    templates: dict[str, str] = {}
    for fmt in args.formats:
        log(f"scaling: {fmt}")
        template, rows = bench_scaling(
            corpus, fmt, sizes, peek_sizes, repeat, max(1, min(repeat, 3)), min_time, log
        )
        scaling[fmt], templates[fmt] = rows, template.case_id
    print_scaling(scaling, templates, sizes)

    lines = target_lines(recorded, scaling, quick)
    print("\n".join(lines))
    if args.strict and not quick and any("NOT MET" in line for line in lines):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
