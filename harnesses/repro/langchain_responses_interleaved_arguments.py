# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_responses_interleaved_arguments.py
"""``ChatOpenAI(use_responses_api=True).stream()`` tears apart the arguments of two function
calls whose Responses events interleave.

Two ``function_call`` items open at once (``output_index`` 0 and 1), their
``response.function_call_arguments.delta`` events alternating, each routed by its
``item_id`` and ``output_index``. langchain-openai's ``_convert_responses_chunk_to_generation_chunk``
gives a chunk a new content ``index`` whenever the ``output_index`` differs from the last
event's (``_advance``), so each delta becomes a call of its own: the summed ``AIMessageChunk``
holds the two named calls with no arguments and four nameless fragments. The openai SDK's
``ResponseStreamState`` on the same bytes returns both calls whole. The events are written
here (the stream the suite's case openai-responses/syn-parallel-function-calls-interleaved holds).

    pip install langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
    python langchain_responses_interleaved_arguments.py

Exits 1 while LangChain's calls differ from the SDK's.
"""

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.responses import ResponseStreamState

ITEMS = [
    {"id": "fc_mcs_1", "type": "function_call", "call_id": "call_mcs_paris", "name": "get_weather"},
    {"id": "fc_mcs_2", "type": "function_call", "call_id": "call_mcs_tokyo", "name": "get_weather"},
]
DELTAS = [(0, '{"city": '), (1, '{"city": "To'), (0, '"Paris"}'), (1, 'kyo"}')]
WHOLE = ['{"city": "Paris"}', '{"city": "Tokyo"}']
RESPONSE = {"id": "resp_mcs_parallel", "object": "response", "created_at": 1760000000, "model": "gpt-4.1-2025-04-14"}


def done_item(n: int) -> dict:
    return {**ITEMS[n], "status": "completed", "arguments": WHOLE[n]}


EVENTS = [
    {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    {"type": "response.in_progress", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    *[{"type": "response.output_item.added", "output_index": n, "item": {**ITEMS[n], "status": "in_progress", "arguments": ""}}
      for n in (0, 1)],
    *[{"type": "response.function_call_arguments.delta", "item_id": ITEMS[n]["id"], "output_index": n, "delta": d}
      for n, d in DELTAS],
    *[{"type": "response.function_call_arguments.done", "item_id": ITEMS[n]["id"], "output_index": n, "arguments": WHOLE[n]}
      for n in (1, 0)],
    *[{"type": "response.output_item.done", "output_index": n, "item": done_item(n)} for n in (1, 0)],
    {"type": "response.completed", "response": {**RESPONSE, "status": "completed", "output": [done_item(0), done_item(1)]}},
]
for number, event in enumerate(EVENTS):
    event["sequence_number"] = number
BODY = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in EVENTS).encode()


def http() -> httpx2.Client:
    """An httpx2 client whose transport answers every request with the events: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=BODY)))


state = ResponseStreamState(input_tools=openai.omit, text_format=openai.omit)
final = None
client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http())
for event in client.responses.create(model="gpt-4.1", input="hi", stream=True):
    for out in state.handle_event(event):
        if out.type == "response.completed":
            final = out.response
sdk = [(i.name, json.loads(i.arguments), i.call_id) for i in final.output if i.type == "function_call"]

llm = ChatOpenAI(model="gpt-4.1", api_key="placeholder", max_retries=0, use_responses_api=True, http_client=http())
full = None
for piece in llm.stream("hi"):
    full = piece if full is None else full + piece
langchain = [(c["name"], c["args"], c["id"]) for c in full.tool_calls]
invalid = [(c["name"], c["args"], c["id"]) for c in full.invalid_tool_calls]

print(f"{'openai SDK calls':<34} {sdk}")
print(f"{'LangChain tool_calls':<34} {langchain}")
print(f"{'LangChain invalid_tool_calls':<34} {invalid}")
torn = langchain != sdk
if torn:
    print("LangChain tears the interleaved calls apart")
raise SystemExit(1 if torn else 0)
