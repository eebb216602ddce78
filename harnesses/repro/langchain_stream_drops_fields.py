"""LangChain's streaming path drops message fields the openai SDK keeps: ``refusal``,
``audio``, and provider fields such as ``reasoning_content``.

Cases openai-chat/refusal (a recorded gpt-4o refusal), openai-chat/syn-audio-output (an
audio answer) and openai-chat/syn-reasoning-details-extras (a reasoning provider's
``reasoning_content``). For each, ``ChatOpenAI.stream()`` summed with ``+`` is printed next
to the openai SDK's accumulator on the same chunks. langchain-openai's
``_convert_delta_to_message_chunk`` reads only ``content``, ``function_call`` and
``tool_calls`` from a delta; its non-streaming ``_convert_dict_to_message`` keeps
``refusal`` and ``audio`` in ``additional_kwargs``, so the two paths disagree.

    python harnesses/repro/langchain_stream_drops_fields.py      (pip install -r harnesses/langchain/requirements.txt)

Exits 1 while any of these fields differs from the SDK's.
"""

import httpx2
from langchain_openai import ChatOpenAI

from _replay import case_chunks, sdk_message, show, transport

differs = False
for case_id, field in (("openai-chat/refusal", "refusal"), ("openai-chat/syn-audio-output", "audio"),
                       ("openai-chat/syn-reasoning-details-extras", "reasoning_content")):
    chunks = case_chunks(case_id)
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
    full = None
    for piece in llm.stream("hi"):
        full = piece if full is None else full + piece
    ours, sdk = full.additional_kwargs.get(field), sdk_message(chunks).get(field)
    print(case_id)
    show(f"  LangChain {field}", ours)
    show(f"  openai SDK {field}", sdk)
    differs |= ours != sdk
raise SystemExit(1 if differs else 0)
