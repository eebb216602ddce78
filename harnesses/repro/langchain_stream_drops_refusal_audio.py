# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_stream_drops_refusal_audio.py
"""LangChain's streaming path drops ``refusal`` and ``audio``; its own stream=false path keeps them.

``ChatOpenAI.stream()`` summed with ``+`` (as LangChain's docs aggregate a stream) over a
refusal answer and over an audio answer (the shapes of the suite's cases
openai-chat/refusal and openai-chat/syn-audio-output), printed next to the openai SDK's
accumulated message on the same bytes and next to ``ChatOpenAI.invoke()`` over a stream=false
response holding that same message. langchain-openai's ``_convert_delta_to_message_chunk``
reads only ``content``, ``function_call`` and ``tool_calls`` from a delta, while
``_convert_dict_to_message`` (invoke) keeps ``audio`` and ``refusal`` in ``additional_kwargs``.

Exits 1 while the summed stream lacks a field that invoke keeps.
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


REFUSAL = [
    chunk({"role": "assistant", "content": None, "refusal": ""}),
    chunk({"refusal": "I'm sorry, I can't"}),
    chunk({"refusal": " assist with that request."}),
    chunk({}, "stop"),
    "[DONE]",
]
AUDIO = [
    chunk({"role": "assistant", "content": None, "refusal": None, "audio": {"id": "audio_mcs_1", "transcript": "Sunny"}}),
    chunk({"audio": {"transcript": " in Paris"}}),
    chunk({"audio": {"data": "UklGRiQAAABXQVZF"}}),
    chunk({"audio": {"transcript": ", 24 degrees."}}),
    chunk({"audio": {"data": "Zm10IBAAAAABAAEA"}}),
    chunk({"audio": {"expires_at": 1760003600}}),
    chunk({}, "stop"),
    "[DONE]",
]

lost = []
for field, chunks in (("refusal", REFUSAL), ("audio", AUDIO)):
    sdk = sdk_message(chunks)
    streamed = langchain_stream(chunks).additional_kwargs.get(field)
    invoked = langchain_invoke(sdk, "stop").additional_kwargs.get(field)
    print(field)
    show("  openai SDK (stream)", sdk.get(field))
    show("  LangChain invoke (stream=false)", invoked)
    show("  LangChain stream + sum", streamed)
    if invoked is not None and streamed != invoked:
        lost.append(field)
print("fields the stream loses that invoke keeps:", lost)
raise SystemExit(1 if lost else 0)
