"""litellm merges tool calls streamed without ``index`` into one call: the last call's name
and id, every call's arguments concatenated, so both calls are lost without an error.

Case openai-chat/syn-no-index-late-id (OpenAI-compatible servers that send tool-call
fragments without ``index``): ``get_weather({"city": "Rome"})`` then
``get_time({"zone": "CET"})``. The openai SDK's accumulator refuses such a stream with an
error (it cannot place a fragment without index); ``litellm.stream_chunk_builder`` over the
chunks of ``litellm.completion(..., stream=True)`` returns one call named ``get_time`` whose
arguments are ``{"city": "Rome"}{"zone": "CET"}``.

    python harnesses/repro/litellm_index_less_merged.py    (pip install -r harnesses/litellm/requirements.txt)

Exits 1 while litellm returns a single merged call for the two.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx2  # noqa: E402
import litellm  # noqa: E402
import openai  # noqa: E402

from _replay import case_chunks, sdk_message, show, transport  # noqa: E402

litellm.suppress_debug_info = True
chunks = case_chunks("openai-chat/syn-no-index-late-id")
client = openai.OpenAI(api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
stream = litellm.completion(model="openai/gpt-4o", messages=[{"role": "user", "content": "weather and time?"}],
                            stream=True, client=client)
message = litellm.stream_chunk_builder(list(stream)).choices[0].message
ours = [(tc.id, tc.function.name, tc.function.arguments) for tc in message.tool_calls or []]
try:
    sdk = sdk_message(chunks)["tool_calls"]
except Exception as exc:  # noqa: BLE001 -- the SDK refuses the stream
    sdk = f"raises {type(exc).__name__}: {exc}"
show("litellm calls", ours)
show("openai SDK", sdk)
raise SystemExit(1 if len(ours) == 1 else 0)
