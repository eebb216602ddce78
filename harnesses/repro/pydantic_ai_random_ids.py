"""pydantic-ai gives a call streamed with ``"id": ""`` a random id, so the same stream gives a
different message on every run.

Case openai-chat/syn-call-id-empty-throughout. The openai SDK's accumulator keeps ``id: ""``
(the same on every run); pydantic-ai's ``OpenAIChatModel`` streaming returns
``ToolCallPart.tool_call_id == "pyd_ai_<uuid4>"``, a new one each time
(``tool_call_id or _generate_tool_call_id()``; pydantic/pydantic-ai#6390 was closed as
intended: an id is needed to answer the call. The difference reported here is that it is
random: replaying a recorded stream, or retrying, never gives the same history).

    python harnesses/repro/pydantic_ai_random_ids.py    (pip install -r harnesses/pydantic_ai/requirements.txt)

Exits 1 while two runs over the same chunks give different ids.
"""

import asyncio

import httpx2
import openai
from pydantic_ai.messages import ModelRequest, ToolCallPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from _replay import case_chunks, sdk_message, show, transport

chunks = case_chunks("openai-chat/syn-call-id-empty-throughout")


async def run() -> list[str]:
    client = openai.AsyncOpenAI(api_key="placeholder", http_client=httpx2.AsyncClient(transport=transport(chunks)))
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    request = [ModelRequest(parts=[UserPromptPart("weather and time?")])]
    async with model.request_stream(request, None, ModelRequestParameters()) as streamed:
        async for _event in streamed:
            pass
        response = streamed.get()
    return [p.tool_call_id for p in response.parts if isinstance(p, ToolCallPart)]


first, second = asyncio.run(run()), asyncio.run(run())
show("pydantic-ai ids, run 1", first)
show("pydantic-ai ids, run 2", second)
show("openai SDK ids", [tc["id"] for tc in sdk_message(chunks)["tool_calls"]])
raise SystemExit(0 if first == second else 1)
