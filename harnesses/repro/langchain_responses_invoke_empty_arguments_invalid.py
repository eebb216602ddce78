# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_responses_invoke_empty_arguments_invalid.py
"""``ChatOpenAI(use_responses_api=True).invoke()`` lists a function call whose ``arguments``
are the empty string (a tool without parameters) among ``invalid_tool_calls``.

``_construct_lc_result_from_responses_api`` runs ``json.loads("")``, which raises. The same
answer on the Chat Completions path (``ChatOpenAI().invoke()``) comes back as the executable
call with ``{}`` (langchain-core's ``parse_tool_call``: "Handle None or empty string arguments
for parameter-less tools"), and so does the Responses path's own ``stream()`` of the same call.

    pip install langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
    python langchain_responses_invoke_empty_arguments_invalid.py

Exits 1 while the Responses path's invoke reads the empty arguments as an invalid call.
"""

import json

import httpx2
from langchain_openai import ChatOpenAI

CALL = {"id": "fc_mcs_empty", "type": "function_call", "status": "completed", "arguments": "",
        "call_id": "call_mcs_empty", "name": "get_time"}
RESPONSE = {"id": "resp_mcs_empty", "object": "response", "created_at": 1741290958, "model": "gpt-4.1-2025-04-14"}
COMPLETED = {**RESPONSE, "status": "completed", "output": [CALL]}
CHAT = {"id": "chatcmpl-mcs", "object": "chat.completion", "created": 0, "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_mcs_empty", "type": "function", "function": {"name": "get_time", "arguments": ""}}]}}]}
EVENTS = [
    {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    {"type": "response.output_item.added", "output_index": 0, "item": {**CALL, "status": "in_progress"}},
    {"type": "response.function_call_arguments.done", "item_id": "fc_mcs_empty", "output_index": 0, "arguments": ""},
    {"type": "response.output_item.done", "output_index": 0, "item": CALL},
    {"type": "response.completed", "response": COMPLETED},
]
for number, event in enumerate(EVENTS):
    event["sequence_number"] = number
STREAM = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in EVENTS).encode()


def llm(body: bytes, kind: str, responses: bool) -> ChatOpenAI:
    """ChatOpenAI whose transport answers every request with ``body``: nothing is sent."""
    client = httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": kind}, content=body)))
    return ChatOpenAI(model="gpt-4.1", api_key="placeholder", max_retries=0, use_responses_api=responses,
                      http_client=client)


def calls(message) -> dict:
    return {"tool_calls": [(c["name"], c["args"]) for c in message.tool_calls],
            "invalid_tool_calls": [(c["name"], c["args"], c.get("error")) for c in message.invalid_tool_calls]}


responses_invoke = llm(json.dumps(COMPLETED).encode(), "application/json", True).invoke("what time is it?")
chat_invoke = llm(json.dumps(CHAT).encode(), "application/json", False).invoke("what time is it?")
full = None
for piece in llm(STREAM, "text/event-stream", True).stream("what time is it?"):
    full = piece if full is None else full + piece
print(f"{'Chat Completions invoke':<28} {calls(chat_invoke)}")
print(f"{'Responses stream (summed)':<28} {calls(full)}")
print(f"{'Responses invoke':<28} {calls(responses_invoke)}")
invalid = not responses_invoke.tool_calls and bool(responses_invoke.invalid_tool_calls)
print("Responses invoke reads empty arguments as an invalid call:", invalid)
raise SystemExit(1 if invalid else 0)
