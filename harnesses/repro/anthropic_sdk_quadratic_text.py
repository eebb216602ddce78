# requires: anthropic==2.15.0 httpx2==2.17.0
# run: python anthropic_sdk_quadratic_text.py
"""The anthropic SDK's message stream costs more per text delta the longer the text: its
accumulator (``accumulate_event`` in anthropic/lib/streaming/_beta_messages.py and
_messages.py) grows a text block with ``content.text += event.delta.text`` on the
snapshot's model attribute, and a string held by an object is copied whole on every ``+=``
(CPython appends in place only to a string nothing else refers to), so a long answer
costs quadratic time.

One text block streamed as N deltas of 980 characters, served as the SSE bytes the
Messages API sends through an ``httpx2.MockTransport`` (nothing is sent anywhere), read by
``client.beta.messages.stream(...)`` and ``client.messages.stream(...)`` with
``get_final_message()``, at N/8 and N deltas. For 8 times the deltas, linear work costs
about 8 times as much, quadratic work about 64 times; the mcs-conformance suite's COST
checks allow 24. (At shorter texts the SDK's per-event overhead hides the copying: 16,000
deltas of 98 characters cost about 9 to 13 times 2,000.)

    python anthropic_sdk_quadratic_text.py [N]     (default N = 16000; under a minute)

Exits 1 while the beta stream's cost grows more than 24 times (the ratio of two runs in
one process, never an absolute time).
"""

import json
import sys
import time

import httpx2
from anthropic import Anthropic

PIECE = "chunk of text " * 70  # 980 characters a delta
LIMIT = 24.0

HEAD = [
    {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                          "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
                                          "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
]
DELTA = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": PIECE}}
TAIL = [
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
     "usage": {"output_tokens": 1}},
    {"type": "message_stop"},
]


def body(n: int) -> bytes:
    """The SSE body of a stream with n text deltas: each event named after its type."""
    events = HEAD + [DELTA] * n + TAIL
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode("utf-8")


def client(data: bytes) -> Anthropic:
    return Anthropic(api_key="placeholder", max_retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=data))))


def cost(n: int, beta: bool) -> float:
    """The best of two reads of the whole stream (process time), the final text checked."""
    messages = client(body(n))
    api = messages.beta.messages if beta else messages.messages
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        with api.stream(model="claude-sonnet-4-5", max_tokens=1024, messages=[{"role": "user", "content": "hi"}]) as s:
            final = s.get_final_message()
        best = min(best, time.process_time() - start)
        assert final.content[0].text == PIECE * n, "the SDK's final text is not the deltas joined"
    return best


n = int(sys.argv[1]) if len(sys.argv) > 1 else 16000
growth = {}
for beta, label in ((True, "client.beta.messages.stream"), (False, "client.messages.stream")):
    cost(n // 8, beta)  # warm up
    small, large = cost(n // 8, beta), cost(n, beta)
    growth[beta] = large / small
    print(f"{label:<28} {n // 8} text deltas {small * 1e3:8.1f} ms, {n} deltas {large * 1e3:8.1f} ms: "
          f"{growth[beta]:.1f}x for 8x the deltas")
print(f"{'expected (linear)':<28} about 8x; quadratic about 64x; the suite allows {LIMIT:.0f}x")
if growth[True] > LIMIT:
    print(f"quadratic: the beta stream's cost grew {growth[True]:.1f}x, more than {LIMIT:.0f}x for 8x the text deltas")
sys.exit(1 if growth[True] > LIMIT else 0)
