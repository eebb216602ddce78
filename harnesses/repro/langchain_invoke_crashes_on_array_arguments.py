# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_invoke_crashes_on_array_arguments.py
"""``ChatOpenAI.invoke()`` raises for a whole answer when one call's arguments are JSON but no object.

A stream=false answer with two calls (the suite's case openai-chat/msg-native-unparsable-arguments):
one whose arguments are cut (``{"city": "Par``), one whose arguments are the JSON array
``["Paris"]``. The openai SDK reads the message (its arguments are strings). langchain-openai's
``_convert_dict_to_message`` lists the cut call as invalid but passes the array on as a call's
``args``, and building the ``AIMessage`` raises a pydantic ``ValidationError``: the caller gets
no message at all instead of an invalid call.

Exits 1 while invoke raises.
"""

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.chat import ChatCompletionStreamState


def chunk(delta: dict, finish=None) -> dict:
    return {"id": "chatcmpl-mcs", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def http(body: bytes, kind: str) -> httpx2.Client:
    """An httpx2 client whose transport answers every request with ``body``: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": kind}, content=body)))


def sse(chunks: list) -> bytes:
    return "".join(f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks).encode()


def langchain_stream(chunks: list):
    """ChatOpenAI.stream() over the chunks, summed with + as LangChain's docs show."""
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0,
                     http_client=http(sse(chunks), "text/event-stream"))
    full = None
    for piece in llm.stream("hi"):
        full = piece if full is None else full + piece
    return full


def sdk_message(chunks: list) -> dict:
    """The openai SDK on the same bytes: client.chat.completions.create(stream=True) folded by
    its ChatCompletionStreamState."""
    client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(sse(chunks), "text/event-stream"))
    state = ChatCompletionStreamState()
    for c in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True):
        state.handle_chunk(c)
    return state.current_completion_snapshot.choices[0].message.model_dump(exclude_none=True)


def show(label: str, value) -> None:
    print(f"{label:<34} {json.dumps(value, ensure_ascii=False, default=str)}")


def langchain_invoke(message: dict, finish: str):
    """ChatOpenAI.invoke() over a stream=false response that carries ``message``."""
    body = json.dumps({"id": "chatcmpl-mcs", "object": "chat.completion", "created": 0, "model": "gpt-4o",
                       "choices": [{"index": 0, "message": message, "finish_reason": finish}]}).encode()
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0, http_client=http(body, "application/json"))
    return llm.invoke("hi")


MESSAGE = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_mcs_cut", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Par"}},
    {"id": "call_mcs_array", "type": "function", "function": {"name": "get_weather", "arguments": "[\"Paris\"]"}}]}
BODY = json.dumps({"id": "chatcmpl-mcs", "object": "chat.completion", "created": 0, "model": "gpt-4o",
                   "choices": [{"index": 0, "message": MESSAGE, "finish_reason": "tool_calls"}]}).encode()

client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(BODY, "application/json"))
sdk = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
show("openai SDK tool calls", [[c.function.name, c.function.arguments] for c in sdk.choices[0].message.tool_calls])
try:
    answer = langchain_invoke(MESSAGE, "tool_calls")
except Exception as exc:
    show("LangChain invoke raises", f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    raise SystemExit(1)
show("LangChain invoke tool_calls", answer.tool_calls)
show("LangChain invoke invalid_tool_calls", answer.invalid_tool_calls)
raise SystemExit(0)
