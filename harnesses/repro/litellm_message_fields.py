"""litellm's rebuilt message differs from the openai SDK's in its fields: ``content`` is
``""`` where the SDK has ``null``, a call cut before its first argument gets ``"{}"`` (a
complete call without arguments, to the reader) where the SDK keeps ``""``, and provider
fields such as ``reasoning_details`` are lost.

Cases openai-chat/refusal (a recorded gpt-4o refusal: no content at all),
openai-chat/syn-tool-call-cut-by-content-filter (a call cut by the content filter before
any argument) and openai-chat/syn-reasoning-details-extras (``reasoning_details``).
``litellm.stream_chunk_builder`` over the chunks of ``litellm.completion(..., stream=True)``
is printed next to the openai SDK's accumulator on the same chunks.

    python harnesses/repro/litellm_message_fields.py    (pip install -r harnesses/litellm/requirements.txt)

Exits 1 while any of these fields differs from the SDK's.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx2  # noqa: E402
import litellm  # noqa: E402
import openai  # noqa: E402

from _replay import case_chunks, sdk_message, show, transport  # noqa: E402

litellm.suppress_debug_info = True
differs = False
for case_id, field in (("openai-chat/refusal", "content"), ("openai-chat/syn-tool-call-cut-by-content-filter", "tool_calls"),
                       ("openai-chat/syn-reasoning-details-extras", "reasoning_details")):
    chunks = case_chunks(case_id)
    client = openai.OpenAI(api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
    stream = litellm.completion(model="openai/gpt-4o", messages=[{"role": "user", "content": "hi"}],
                                stream=True, client=client)
    message = litellm.stream_chunk_builder(list(stream)).choices[0].message.model_dump()
    ours, sdk = message.get(field), sdk_message(chunks).get(field)
    if field == "tool_calls":  # compare what a reader sees: the arguments text
        ours = [tc["function"]["arguments"] for tc in ours or []]
        sdk = [tc["function"]["arguments"] for tc in sdk or []]
    print(case_id)
    show(f"  litellm {field}", ours)
    show(f"  openai SDK {field}", sdk)
    differs |= ours != sdk
raise SystemExit(1 if differs else 0)
