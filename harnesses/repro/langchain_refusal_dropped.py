"""LangChain drops a streamed refusal: ``ChatOpenAI.stream()`` summed with ``+`` has no refusal.

Case openai-chat/refusal (a recorded gpt-4o refusal). The openai SDK's accumulator holds
``refusal: "I'm sorry, ..."``; LangChain's summed ``AIMessageChunk`` has empty content and
no ``refusal`` anywhere (langchain-openai's ``_convert_delta_to_message_chunk`` never reads
the delta's ``refusal``; its non-streaming path keeps it in ``additional_kwargs``).

    python harnesses/repro/langchain_refusal_dropped.py      (pip install -r harnesses/langchain/requirements.txt)

Exits 1 while LangChain's result differs from the SDK's.
"""

import httpx2
from langchain_openai import ChatOpenAI

from _replay import case_chunks, sdk_message, show, transport

chunks = case_chunks("openai-chat/refusal")
llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
full = None
for piece in llm.stream("say something you must refuse"):
    full = piece if full is None else full + piece

langchain_refusal = full.additional_kwargs.get("refusal")
sdk_refusal = sdk_message(chunks).get("refusal")
show("LangChain content", full.content)
show("LangChain refusal", langchain_refusal)
show("openai SDK refusal", sdk_refusal)
raise SystemExit(0 if langchain_refusal == sdk_refusal else 1)
