"""litellm drops streamed tool calls whose ``id`` is the empty string.

Case openai-chat/syn-call-id-empty-throughout (OpenAI-compatible servers that send
``"id": ""``): two complete calls, ``get_weather`` and ``get_time``. The openai SDK's
accumulator keeps both (with ``id: ""``); ``litellm.stream_chunk_builder`` returns
``tool_calls: []``, so the calls the model made vanish without an error.

    python harnesses/repro/litellm_empty_id_dropped.py

Exits 1 while litellm returns fewer calls than the SDK.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx2  # noqa: E402
import litellm  # noqa: E402
import openai  # noqa: E402

from _replay import case_chunks, sdk_message, show, transport  # noqa: E402

litellm.suppress_debug_info = True
chunks = case_chunks("openai-chat/syn-call-id-empty-throughout")
client = openai.OpenAI(api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
stream = litellm.completion(model="openai/gpt-4o", messages=[{"role": "user", "content": "weather and time?"}],
                            stream=True, client=client)
message = litellm.stream_chunk_builder(list(stream)).choices[0].message
ours = [(tc.function.name, tc.function.arguments) for tc in message.tool_calls or []]
sdk = [(tc["function"]["name"], tc["function"]["arguments"]) for tc in sdk_message(chunks)["tool_calls"]]
show("litellm calls", ours)
show("openai SDK calls", sdk)
raise SystemExit(0 if len(ours) == len(sdk) else 1)
