"""pydantic-ai's streamed ``ModelResponse`` keeps neither a streamed ``audio`` answer nor the
provider fields the openai SDK keeps (``x_*`` extras of the message).

Cases openai-chat/syn-audio-output (an audio answer: the SDK holds ``audio`` with its
transcript) and openai-chat/syn-extras-of-every-json-type (provider fields of every JSON
type). pydantic-ai's ``OpenAIChatModel`` streaming gives no part and no
``provider_details`` entry for either.

    python harnesses/repro/pydantic_ai_drops_fields.py    (pip install -r harnesses/pydantic_ai/requirements.txt)

Exits 1 while a field the SDK holds is nowhere in pydantic-ai's response.
"""

import asyncio
import json

import httpx2
import openai
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from _replay import case_chunks, sdk_message, show, transport


async def run(chunks):
    client = openai.AsyncOpenAI(api_key="placeholder", http_client=httpx2.AsyncClient(transport=transport(chunks)))
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    async with model.request_stream([ModelRequest(parts=[UserPromptPart("hi")])], None,
                                    ModelRequestParameters()) as streamed:
        async for _event in streamed:
            pass
        return streamed.get()


missing = False
for case_id, field in (("openai-chat/syn-audio-output", "audio"), ("openai-chat/syn-extras-of-every-json-type", "x_note")):
    chunks = case_chunks(case_id)
    response = asyncio.run(run(chunks))
    sdk = sdk_message(chunks).get(field)
    text = json.dumps([repr(p) for p in response.parts] + [response.provider_details], default=str)
    print(case_id)
    show(f"  openai SDK {field}", sdk)
    show("  pydantic-ai parts", [type(p).__name__ for p in response.parts])
    show("  pydantic-ai provider_details", response.provider_details)
    value = sdk.get("transcript") if isinstance(sdk, dict) else sdk
    missing |= str(value) not in text
raise SystemExit(1 if missing else 0)
