# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_responses_truncated_args_healed.py
"""On the Responses API too, LangChain's summed stream returns a call whose arguments were
cut off as a complete, executable call.

``ChatOpenAI(use_responses_api=True).stream()`` summed with ``+`` over a Responses stream
that ends while a ``function_call``'s arguments stream (``{"location":"San``: no
``response.function_call_arguments.done``, no ``response.output_item.done``, no
``response.completed``) lists ``weather({"location": "San"})`` among its executable
``tool_calls``: langchain-core closes the cut JSON with ``parse_partial_json``, as on the
Chat Completions path (harnesses/repro/langchain_truncated_args_healed.py). The openai SDK's
``ResponseStreamState`` keeps the item ``in_progress`` with the raw text; LangChain's own
stream=false path (``invoke`` over a response holding that item) lists the call in
``invalid_tool_calls``. The events are the first 7 of a recorded Azure OpenAI stream
(vercel/ai, packages/azure fixture azure-tool-call-1, 2026-02-11, gpt-5.1), the response
object shortened to the fields LangChain reads.

    pip install langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
    python langchain_responses_truncated_args_healed.py

Exits 1 while the streamed call is executable and invoke's is not.
"""

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.responses import ResponseStreamState

RESPONSE = {"id": "resp_04041325ab8ae30400698c519fb7fc81979972618138fc336d", "object": "response",
            "created_at": 1770803615, "model": "gpt-5.1", "output": [], "status": "in_progress"}
ITEM = {"id": "fc_04041325ab8ae30400698c51c5468c8197a395f18875a5339f", "type": "function_call", "status": "in_progress",
        "arguments": "", "call_id": "call_H5DxLSFnsGhiROnUiDHmgyc8", "name": "weather"}
EVENTS = [
    {"type": "response.created", "sequence_number": 0, "response": RESPONSE},
    {"type": "response.in_progress", "sequence_number": 1, "response": RESPONSE},
    {"type": "response.output_item.added", "sequence_number": 2, "output_index": 0, "item": ITEM},
    *[{"type": "response.function_call_arguments.delta", "sequence_number": 3 + n, "item_id": ITEM["id"],
       "output_index": 0, "delta": delta} for n, delta in enumerate(['{"', "location", '":"', "San"])],
]
CUT = '{"location":"San'


def http(body: bytes, kind: str) -> httpx2.Client:
    """An httpx2 client whose transport answers every request with ``body``: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": kind}, content=body)))


STREAM = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in EVENTS).encode()

state = ResponseStreamState(input_tools=openai.omit, text_format=openai.omit)
client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(STREAM, "text/event-stream"))
for event in client.responses.create(model="gpt-5.1", input="hi", stream=True):
    state.handle_event(event)
sdk_item = state._output_items[0] if hasattr(state, "_output_items") else None

llm = ChatOpenAI(model="gpt-5.1", api_key="placeholder", max_retries=0, use_responses_api=True,
                 http_client=http(STREAM, "text/event-stream"))
full = None
for piece in llm.stream("hi"):
    full = piece if full is None else full + piece

body = json.dumps({**RESPONSE, "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
                   "output": [{**ITEM, "arguments": CUT}]}).encode()
invoked = ChatOpenAI(model="gpt-5.1", api_key="placeholder", max_retries=0, use_responses_api=True,
                     http_client=http(body, "application/json")).invoke("hi")

streamed_ok = any(c["name"] == "weather" for c in full.tool_calls)
invoked_ok = any(c["name"] == "weather" for c in invoked.tool_calls)
if sdk_item is not None:
    print(f"{'openai SDK item':<34} status={sdk_item.status!r} arguments={sdk_item.arguments!r}")
print(f"{'LangChain stream tool_calls':<34} {[(c['name'], c['args']) for c in full.tool_calls]}")
print(f"{'LangChain invoke tool_calls':<34} {[(c['name'], c['args']) for c in invoked.tool_calls]}")
print(f"{'LangChain invoke invalid_tool_calls':<34} {[(c['name'], c['args']) for c in invoked.invalid_tool_calls]}")
print(f"streamed call executable although its arguments are cut off: {streamed_ok}")
raise SystemExit(1 if streamed_ok and not invoked_ok else 0)
