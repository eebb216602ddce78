"""LangChain runs the second of two calls sent at the same ``index`` with empty arguments when
that call's arguments arrive in a fragment of their own.

Case openai-chat/syn-same-index-new-ids (compatible servers that send every call at index 0
with a new id): ``get_weather({"city": "Paris"})`` then ``get_time({"zone": "CET"})``, each
call whole in one fragment. Stream B is the same stream with the second call cut where the
wire allows it: its id and name in one fragment, its arguments in the next (``index`` 0, no
id, as every continuation fragment comes). The openai SDK's accumulator gives the same
message for both streams (it concatenates every fragment of one index). LangChain's summed
``AIMessageChunk`` reads stream A as two calls with their arguments, and stream B as
``get_time`` with ``{}``: an executable call with arguments the model never sent.

    python harnesses/repro/langchain_same_index_continuation.py

Exits 1 while LangChain's calls for stream B differ from its calls for stream A.
"""

import copy

import httpx2
from langchain_openai import ChatOpenAI

from _replay import case_chunks, sdk_message, show, transport


def langchain(chunks: list) -> list:
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
    full = None
    for piece in llm.stream("weather and time?"):
        full = piece if full is None else full + piece
    return [{"name": t["name"], "args": t["args"], "id": t["id"]} for t in full.tool_calls]


a = case_chunks("openai-chat/syn-same-index-new-ids")
at = next(i for i, c in enumerate(a) if isinstance(c, dict) and "get_time" in str(c))
head, rest = copy.deepcopy(a[at]), copy.deepcopy(a[at])
arguments = head["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
head["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = ""
rest["choices"][0]["delta"]["tool_calls"] = [{"index": 0, "function": {"arguments": arguments}}]
b = a[:at] + [head, rest] + a[at + 1:]
show("openai SDK, stream A", sdk_message(a)["tool_calls"])
show("openai SDK, stream B", sdk_message(b)["tool_calls"])
got_a, got_b = langchain(a), langchain(b)
show("LangChain, stream A", got_a)
show("LangChain, stream B", got_b)
print("LangChain's calls depend on where the second call's fragment was cut:", got_a != got_b)
raise SystemExit(1 if got_a != got_b else 0)
