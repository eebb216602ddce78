# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_responses_malformed_events_read.py
"""``ChatOpenAI(use_responses_api=True).stream()`` reads Responses events that address
nothing the response holds without an error, where the openai SDK's stream state refuses them.

Two streams: a text delta for a content part no ``content_part.added`` announced, and a
function call's arguments delta for an output index where no item was added (the shapes of
the suite's cases openai-responses/syn-malformed-text-delta-part-missing and
syn-malformed-arguments-delta-for-no-item). langchain-openai converts each event on its own
and checks neither that its item nor its part exists; the openai SDK's ``ResponseStreamState``
raises on both. No provider is known to send these events.

    pip install langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
    python langchain_responses_malformed_events_read.py

Exits 1 while LangChain reads a stream the SDK refuses.
"""

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.responses import ResponseStreamState

RESPONSE = {"id": "resp_mcs_bad", "object": "response", "created_at": 1741290958, "model": "gpt-4.1-2025-04-14"}
MESSAGE = {"id": "msg_mcs_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
PART = {"type": "output_text", "annotations": [], "logprobs": []}
DONE_MESSAGE = {**MESSAGE, "status": "completed", "content": [{**PART, "text": "Hello"}]}
START = [
    {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    {"type": "response.output_item.added", "output_index": 0, "item": MESSAGE},
]
END = [
    {"type": "response.output_item.done", "output_index": 0, "item": DONE_MESSAGE},
    {"type": "response.completed", "response": {**RESPONSE, "status": "completed", "output": [DONE_MESSAGE]}},
]
STREAMS = {
    # a text delta for content index 0, whose part no content_part.added announced
    "text delta for a part never added": START + [
        {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": "Hello"},
    ] + END,
    # a function call's arguments delta for output index 1, where no item was added
    "arguments delta for no item": START + [
        {"type": "response.content_part.added", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": ""}},
        {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": "Hello"},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_mcs_none", "output_index": 1, "delta": "{\"city\": \"Paris\"}"},
        {"type": "response.content_part.done", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": "Hello"}},
    ] + END,
}


def body(events: list) -> bytes:
    """The events as the API's server-sent events, numbered."""
    numbered = [{**e, "sequence_number": n} for n, e in enumerate(events)]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in numbered).encode()


def http(data: bytes) -> httpx2.Client:
    """An httpx2 client whose transport answers every request with ``data``: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=data)))


def sdk(data: bytes) -> str:
    """The openai SDK: responses.create(stream=True) folded by ResponseStreamState."""
    state = ResponseStreamState(input_tools=openai.omit, text_format=openai.omit)
    client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(data))
    try:
        for event in client.responses.create(model="gpt-4.1", input="hi", stream=True):
            state.handle_event(event)
    except Exception as exc:  # noqa: BLE001 - the SDK's refusal is the answer shown
        return f"raises {type(exc).__name__}: {exc}"
    return "reads it"


def langchain(data: bytes) -> str:
    """ChatOpenAI(use_responses_api=True).stream() summed with + as LangChain's docs show."""
    llm = ChatOpenAI(model="gpt-4.1", api_key="placeholder", max_retries=0, use_responses_api=True, http_client=http(data))
    try:
        full = None
        for piece in llm.stream("hi"):
            full = piece if full is None else full + piece
    except Exception as exc:  # noqa: BLE001
        return f"raises {type(exc).__name__}: {exc}"
    return f"reads it: text {full.text!r}, tool_calls {full.tool_calls}, tool_call_chunks {full.tool_call_chunks}"


read = 0
for name, events in STREAMS.items():
    data = body(events)
    refused, answer = sdk(data), langchain(data)
    print(f"{name}:\n  openai SDK: {refused}\n  LangChain:  {answer}")
    read += refused.startswith("raises") and answer.startswith("reads")
print(f"streams LangChain reads that the SDK refuses: {read} of {len(STREAMS)}")
raise SystemExit(1 if read else 0)
