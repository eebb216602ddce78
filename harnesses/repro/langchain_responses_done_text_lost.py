# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_responses_done_text_lost.py
"""``ChatOpenAI(use_responses_api=True).stream()`` keeps only the text of
``response.output_text.delta`` events: text a message's ``output_text.done``,
``content_part.done``, ``output_item.done`` or the ``response.completed`` output carries beyond
the deltas never reaches the summed ``AIMessageChunk``.

The events are the shape of OpenAI's recorded openai-phase-1 stream (gpt-5.3-codex, in
vercel/ai's fixtures), whose deltas hold a part of the text its ``output_text.done`` events
carry: here the deltas hold ``Got it`` and every done event the whole sentence. The openai
SDK's ``ResponseStreamState`` on the same bytes and LangChain's own ``invoke`` over the
completed response give the whole sentence.

    pip install langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
    python langchain_responses_done_text_lost.py

Exits 1 while the summed stream's text lacks what only the done events carry.
"""

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.responses import ResponseStreamState

TEXT = "Got it. I will check the weather in Paris now."
RESPONSE = {"id": "resp_mcs_done_text", "object": "response", "created_at": 1772062745, "model": "gpt-5.3-codex"}
ITEM = {"id": "msg_mcs_1", "type": "message", "role": "assistant"}
PART = {"type": "output_text", "annotations": [], "logprobs": []}
DONE_ITEM = {**ITEM, "status": "completed", "content": [{**PART, "text": TEXT}]}
COMPLETED = {**RESPONSE, "status": "completed", "output": [DONE_ITEM]}

EVENTS = [
    {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    {"type": "response.output_item.added", "output_index": 0, "item": {**ITEM, "status": "in_progress", "content": []}},
    {"type": "response.content_part.added", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": ""}},
    {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": "Got"},
    {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": " it"},
    {"type": "response.output_text.done", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "text": TEXT},
    {"type": "response.content_part.done", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": TEXT}},
    {"type": "response.output_item.done", "output_index": 0, "item": DONE_ITEM},
    {"type": "response.completed", "response": COMPLETED},
]
for number, event in enumerate(EVENTS):
    event["sequence_number"] = number
STREAM = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in EVENTS).encode()


def http(body: bytes, kind: str) -> httpx2.Client:
    """An httpx2 client whose transport answers every request with ``body``: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": kind}, content=body)))


def sdk_text() -> str:
    """The openai SDK on the same bytes: responses.create(stream=True) folded by ResponseStreamState."""
    state = ResponseStreamState(input_tools=openai.omit, text_format=openai.omit)
    client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(STREAM, "text/event-stream"))
    final = None
    for event in client.responses.create(model="gpt-5.3-codex", input="hi", stream=True):
        for out in state.handle_event(event):
            if out.type == "response.completed":
                final = out.response
    return final.output_text


def langchain(stream: bool) -> str:
    """ChatOpenAI(use_responses_api=True): stream() summed with + as LangChain's docs show, or invoke()
    over the completed response."""
    body, kind = (STREAM, "text/event-stream") if stream else (json.dumps(COMPLETED).encode(), "application/json")
    llm = ChatOpenAI(model="gpt-5.3-codex", api_key="placeholder", max_retries=0, use_responses_api=True,
                     http_client=http(body, kind))
    if not stream:
        return llm.invoke("hi").text
    full = None
    for piece in llm.stream("hi"):
        full = piece if full is None else full + piece
    return full.text


sdk, streamed, invoked = sdk_text(), langchain(True), langchain(False)
print(f"{'openai SDK output_text':<28} {sdk!r}")
print(f"{'LangChain invoke text':<28} {invoked!r}")
print(f"{'LangChain stream text':<28} {streamed!r}")
print("the summed stream keeps the done text:", streamed == sdk)
raise SystemExit(0 if streamed == sdk else 1)
