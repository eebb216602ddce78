"""pydantic-ai's ``ToolCallPart.args_as_dict()`` raises ``TypeError`` on arguments that hold a
lone UTF-16 surrogate (an emoji cut in half by a server), even with the default
``raise_if_invalid=False``, documented to handle malformed JSON "gracefully by returning
{'INVALID_JSON': '<raw args>'}".

A ``stream=false`` Chat Completions answer with one call whose arguments hold a lone high
surrogate (the body, JSON with ``ensure_ascii``, carries it as the escape ``\\ud83d``
inside the ``arguments`` string, so the decoded arguments text holds the character itself:
``{"text": "see you <U+D83D>", "to": "ana"}``). The openai SDK reads the body;
``json.loads`` of the call's arguments (how the openai docs read them) gives a dict.
pydantic-ai's ``model_request`` returns the ``ToolCallPart``, and its ``args_as_dict()``
raises: ``pydantic_core.from_json`` refuses a ``str`` it cannot encode as UTF-8 with
``TypeError``, which ``args_as_dict`` does not catch (it catches ``ValueError`` and ``AssertionError``).

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_lone_surrogate_crash.py

Exits 1 while ``args_as_dict`` raises where ``json.loads`` reads the arguments (0 once fixed).
"""
# requires: pydantic-ai-slim==2.68.0, openai==3.57.0

import asyncio
import json

import httpx2
import openai
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

MESSAGE = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_mcs_surrogate", "type": "function",
     "function": {"name": "send_message", "arguments": "{\"text\": \"see you \ud83d\", \"to\": \"ana\"}"}}]}
BODY = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "gpt-4o",
                   "choices": [{"index": 0, "message": MESSAGE, "logprobs": None, "finish_reason": "tool_calls"}]}).encode()


def client() -> openai.AsyncOpenAI:
    async def handler(request):
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=BODY)

    return openai.AsyncOpenAI(api_key="placeholder", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))


async def main():
    completion = await client().chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    raw = completion.choices[0].message.tool_calls[0].function.arguments
    print(f"openai SDK + json.loads: {json.loads(raw)!r}")
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client()))
    response = await model_request(model, [ModelRequest.user_text_prompt("hi")])
    part = next(p for p in response.parts if isinstance(p, ToolCallPart))
    try:
        print(f"pydantic-ai args_as_dict(): {part.args_as_dict()!r}")
        return 0
    except Exception as exc:  # noqa: BLE001 -- the finding is that it raises
        print(f"pydantic-ai args_as_dict() raises {type(exc).__name__}: {exc}")
        return 1


raise SystemExit(asyncio.run(main()))
