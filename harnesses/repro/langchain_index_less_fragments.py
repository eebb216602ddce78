"""LangChain splits tool-call fragments without ``index`` into separate calls, one of them an
executable call with empty arguments.

Case openai-chat/syn-no-index-continuations (OpenAI-compatible servers that send
continuation fragments without ``index``): two calls, ``get_weather({"city": "Paris"})`` and
``get_time({"zone": "CET"})``. The openai SDK's accumulator refuses the stream (a
``TypeError``: it cannot place a fragment without index). LangChain's summed
``AIMessageChunk`` keeps every fragment as its own tool call chunk: ``tool_calls`` holds
``get_weather`` and ``get_time`` with ``{}`` arguments (executable, wrong) and nameless
pieces; the arguments sit in ``invalid_tool_calls``.

    python harnesses/repro/langchain_index_less_fragments.py

Exits 1 while LangChain returns an executable call whose arguments differ from the model's.
"""

import httpx2
from langchain_openai import ChatOpenAI

from _replay import case_chunks, sdk_message, show, transport

chunks = case_chunks("openai-chat/syn-no-index-continuations")
llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
full = None
for piece in llm.stream("weather and time?"):
    full = piece if full is None else full + piece
try:
    sdk = sdk_message(chunks)
except Exception as exc:  # the SDK refuses the stream
    sdk = f"raises {type(exc).__name__}: {exc}"
show("openai SDK", sdk)
show("LangChain tool_calls", [{"name": t["name"], "args": t["args"]} for t in full.tool_calls])
show("LangChain invalid_tool_calls", [{"name": t["name"], "args": t["args"]} for t in full.invalid_tool_calls])
wrong = [t for t in full.tool_calls if t["name"] and t["args"] == {}]
print("executable calls with arguments the model never sent:", len(wrong))
raise SystemExit(1 if wrong else 0)
