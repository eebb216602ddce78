"""litellm keeps only the last piece of a function name streamed in several fragments.

Case openai-chat/syn-name-split-across-fragments: the name arrives as ``"get_"`` then
``"weather"``. The openai SDK's accumulator concatenates them (``get_weather``), as the
Chat Completions stream format does for every string field; ``litellm.stream_chunk_builder``
over the chunks of ``litellm.completion(..., stream=True)`` returns a call named ``weather``.

    python harnesses/repro/litellm_name_split_keeps_tail.py    (pip install -r harnesses/litellm/requirements.txt)

Exits 1 while the names differ.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx2  # noqa: E402
import litellm  # noqa: E402
import openai  # noqa: E402

from _replay import case_chunks, sdk_message, show, transport  # noqa: E402

litellm.suppress_debug_info = True
chunks = case_chunks("openai-chat/syn-name-split-across-fragments")
client = openai.OpenAI(api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
stream = litellm.completion(model="openai/gpt-4o", messages=[{"role": "user", "content": "weather?"}],
                            stream=True, client=client)
message = litellm.stream_chunk_builder(list(stream)).choices[0].message
ours = [tc.function.name for tc in message.tool_calls or []]
sdk = [tc["function"]["name"] for tc in sdk_message(chunks)["tool_calls"]]
show("litellm names", ours)
show("openai SDK names", sdk)
raise SystemExit(0 if ours == sdk else 1)
