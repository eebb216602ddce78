"""pydantic-ai reports a stream cut off before any finish reason as a finished answer
(``finish_reason: "stop"``), so the complete-looking first call of a cut stream is a tool
call the agent runs.

Case openai-chat/syn-stream-cut-mid-second-call: a recorded two-call stream cut inside the
second call's arguments, with no ``finish_reason`` and no ``[DONE]``. The openai SDK's
accumulator leaves ``finish_reason`` null; pydantic-ai's ``OpenAIChatModel`` streaming
returns a ``ModelResponse`` with ``finish_reason == "stop"`` and the first call's
``ToolCallPart`` whose arguments parse. (pydantic-ai does this on purpose for servers that
never send a finish reason; a model profile with
``openai_chat_streaming_requires_finish_reason`` makes it raise instead, and litellm's
stream raises "Stream ended before a finish_reason was received" for the same chunks.)

    python harnesses/repro/pydantic_ai_cut_stream_runs_call.py    (pip install -r harnesses/pydantic_ai/requirements.txt)

Exits 1 while pydantic-ai reports a finish the stream never sent.
"""

import asyncio

import httpx2
import openai
from pydantic_ai.messages import ModelRequest, ToolCallPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from _replay import case_chunks, sdk_finish, show, transport

chunks = [c for c in case_chunks("openai-chat/syn-stream-cut-mid-second-call") if c != "[DONE]"]


async def run():
    client = openai.AsyncOpenAI(api_key="placeholder", http_client=httpx2.AsyncClient(transport=transport(chunks)))
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    request = [ModelRequest(parts=[UserPromptPart("weather and stock?")])]
    async with model.request_stream(request, None, ModelRequestParameters()) as streamed:
        async for _event in streamed:
            pass
        return streamed.get()


response = asyncio.run(run())
calls = [(p.tool_name, p.args_as_dict()) for p in response.parts if isinstance(p, ToolCallPart)]
show("pydantic-ai finish_reason", response.finish_reason)
show("pydantic-ai calls", calls)
show("openai SDK finish_reason", sdk_finish(chunks))
raise SystemExit(1 if response.finish_reason is not None else 0)
