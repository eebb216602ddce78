# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_n_choices_mixed.py
"""``ChatOpenAI(n=3).stream()`` is not refused, and mixes the three choices into one message.

langchain-openai refuses ``n > 1`` with ``streaming=True`` ("n must be 1 when streaming.",
``ChatOpenAI.validate_environment``), but ``ChatOpenAI(n=3).stream()`` sends ``n=3`` with
``stream=True`` and reads ``choices[0]`` of every chunk whatever its ``index``, so the
summed ``AIMessageChunk`` (summed with ``+``, as LangChain's docs aggregate a stream) holds
the three choices' fragments interleaved. The chunks are a recorded ``n=3`` stream
(openai/openai-python, test_parse_pydantic_model_multiple_choices, 2024-09-26, gpt-4o),
inlined as (choice index, content, finish_reason); the openai SDK's
``ChatCompletionStreamState`` on the same bytes keeps the three choices apart.

    pip install langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
    python langchain_n_choices_mixed.py

Exits 1 while the streamed message is not the SDK's choice 0 (and the stream is not refused).
"""

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.chat import ChatCompletionStreamState

RECORDED = [
    (0, '', None), (0, '{"', None), (1, '', None), (1, '{"', None), (2, '', None), (2, '{"', None),
    (0, 'city', None), (1, 'city', None), (2, 'city', None), (0, '":"', None), (1, '":"', None), (2, '":"', None),
    (0, 'San', None), (1, 'San', None), (2, 'San', None), (0, ' Francisco', None), (1, ' Francisco', None),
    (2, ' Francisco', None), (0, '","', None), (1, '","', None), (2, '","', None), (0, 'temperature', None),
    (0, '":', None), (1, 'temperature', None), (1, '":', None), (2, 'temperature', None), (2, '":', None),
    (0, '65', None), (0, ',"', None), (1, '61', None), (1, ',"', None), (2, '59', None), (2, ',"', None),
    (0, 'units', None), (1, 'units', None), (2, 'units', None), (0, '":"', None), (1, '":"', None),
    (2, '":"', None), (0, 'f', None), (1, 'f', None), (2, 'f', None), (0, '"}', None), (1, '"}', None),
    (2, '"}', None), (0, None, 'stop'), (1, None, 'stop'), (2, None, 'stop'),
]
SEEN: set = set()


def chunk(index: int, content, finish) -> dict:
    delta = {} if content is None else {"content": content}
    if content == "" and index not in SEEN:  # each choice's first delta carries the role, as recorded
        SEEN.add(index)
        delta = {"role": "assistant", "content": "", "refusal": None}
    return {"id": "chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq", "object": "chat.completion.chunk", "created": 1727346170,
            "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_b40fb1c6fb",
            "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}]}


CHUNKS = [chunk(*entry) for entry in RECORDED]
CHUNKS.append({"id": "chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq", "object": "chat.completion.chunk",
               "created": 1727346170, "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_b40fb1c6fb",
               "choices": [], "usage": {"prompt_tokens": 79, "completion_tokens": 42, "total_tokens": 121,
                                        "completion_tokens_details": {"reasoning_tokens": 0}}})
BODY = "".join(f"data: {json.dumps(c)}\n\n" for c in CHUNKS).encode() + b"data: [DONE]\n\n"


def http() -> httpx2.Client:
    """An httpx2 client whose transport answers every request with the recorded body: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=BODY)))


state = ChatCompletionStreamState()
client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http())
for c in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], n=3, stream=True):
    state.handle_chunk(c)
sdk = {choice.index: choice.message.content for choice in state.current_completion_snapshot.choices}

try:
    ChatOpenAI(model="gpt-4o", api_key="placeholder", n=3, streaming=True)
    refused_flag = "not refused"
except ValueError as exc:
    refused_flag = "ValueError: " + next((line.strip() for line in str(exc).splitlines() if "n must" in line), str(exc))

llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0, n=3, http_client=http())
full = None
try:
    for piece in llm.stream("hi"):
        full = piece if full is None else full + piece
    streamed = full.content if full is not None else None
except Exception as exc:  # noqa: BLE001 -- a refusal is the fixed behaviour
    streamed = f"refused: {type(exc).__name__}: {exc}"

for index in sorted(sdk):
    print(f"openai SDK choice {index}                  {sdk[index]!r}")
print(f"ChatOpenAI(n=3, streaming=True)         {refused_flag}")
print(f"ChatOpenAI(n=3).stream() summed content {streamed!r}")
mixed = isinstance(streamed, str) and not streamed.startswith("refused") and streamed != sdk.get(0)
if mixed:
    print("LangChain's streamed message mixes the choices")
raise SystemExit(1 if mixed else 0)
