"""LangChain turns arguments cut off by ``max_tokens`` into a complete, executable tool call.

Case openai-chat/syn-tool-call-cut-by-length: the stream ends with ``finish_reason:
"length"`` after the arguments ``{"city": "Par``. The openai SDK's accumulator holds exactly
that text (and its ``get_final_completion`` raises ``LengthFinishReasonError``); LangChain's
own non-streaming path (``ChatOpenAI.invoke`` on the same message as a ``stream=false``
answer) puts the call in ``invalid_tool_calls``. The streamed, summed ``AIMessageChunk``
instead lists ``{"city": "Par"}`` in ``tool_calls``, ready to run (langchain-core parses
tool-call chunks with ``parse_partial_json``, which closes the string and the object).

    python harnesses/repro/langchain_truncated_args_healed.py

Exits 1 while the streamed call is executable and the stream=false one is not.
"""

import json

import httpx2
from langchain_openai import ChatOpenAI

from _replay import case_chunks, sdk_message, show, transport

chunks = case_chunks("openai-chat/syn-tool-call-cut-by-length")
llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
full = None
for piece in llm.stream("weather?"):
    full = piece if full is None else full + piece

sdk = sdk_message(chunks)
completion = {"id": "chatcmpl-x", "object": "chat.completion", "created": 0, "model": "gpt-4o",
              "choices": [{"index": 0, "finish_reason": "length", "message": {
                  "role": "assistant", "content": None,
                  "tool_calls": [{k: v for k, v in tc.items() if k in ("id", "type", "function")}
                                 for tc in sdk["tool_calls"]]}}]}


def answer(request):
    return httpx2.Response(200, json=completion)


invoked = ChatOpenAI(model="gpt-4o", api_key="placeholder",
                     http_client=httpx2.Client(transport=httpx2.MockTransport(answer))).invoke("weather?")
show("SDK arguments (raw)", [tc["function"]["arguments"] for tc in sdk["tool_calls"]])
show("LangChain stream tool_calls", full.tool_calls)
show("LangChain stream invalid", full.invalid_tool_calls)
show("LangChain invoke tool_calls", invoked.tool_calls)
show("LangChain invoke invalid", [{"name": t["name"], "args": t["args"]} for t in invoked.invalid_tool_calls])
healed = bool(full.tool_calls) and not invoked.tool_calls
print("streamed call executable although its arguments are cut off:", healed)
raise SystemExit(1 if healed else 0)
