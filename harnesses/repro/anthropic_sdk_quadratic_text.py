"""The anthropic SDK's stream accumulator costs more per text delta the longer the text:
``accumulate_event`` grows a text block with ``content.text += event.delta.text`` on the
snapshot's model attribute, and a string held by an object is copied whole on every ``+=``
(CPython appends in place only to a string nothing else refers to), so a long answer costs
quadratic time.

A synthetic stream (one text block, every delta 98 characters) is fed at N/8 and N deltas to
``anthropic.lib.streaming._beta_messages.accumulate_event`` (the accumulator behind
``client.beta.messages.stream(...).get_final_message()``). For 8 times the deltas, linear work
costs about 8 times as much, quadratic work about 64 times; the suite's COST checks allow 24.

    python harnesses/repro/anthropic_sdk_quadratic_text.py [N]     (default N = 16000; seconds)

Exits 1 while the accumulator's cost grows more than 24 times.
"""

import sys
import time

from anthropic.lib.streaming._beta_messages import accumulate_event
from anthropic.types.beta import BetaRawMessageStreamEvent
from pydantic import TypeAdapter

PIECE = "chunk of text " * 7
EVENTS = TypeAdapter(BetaRawMessageStreamEvent)


def stream(n: int) -> list:
    head = [{"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                  "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
                                                  "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}]
    body = [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": PIECE}}] * n
    return [EVENTS.validate_python(e) for e in head + body]


def cost(n: int) -> float:
    events, best = stream(n), float("inf")
    for _ in range(2):
        start, snapshot, bufs = time.process_time(), None, {}
        for event in events:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs, request_headers={})
        best = min(best, time.process_time() - start)
        assert snapshot.content[0].text == PIECE * n
    return best


n = int(sys.argv[1]) if len(sys.argv) > 1 else 16000
small, large = cost(n // 8), cost(n)
growth = large / small
print(f"anthropic accumulate_event: {n // 8} text deltas {small * 1e3:.1f} ms, {n} deltas {large * 1e3:.1f} ms: "
      f"{growth:.1f}x for 8x the deltas (linear ~8x, quadratic ~64x; the suite allows 24x)")
sys.exit(1 if growth > 24 else 0)
