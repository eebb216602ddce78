# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_audio_builder_raises.py
"""``litellm.stream_chunk_builder`` raises on a streamed audio answer.

An audio answer (``modalities: ["text", "audio"]``): ``delta.audio`` carries the id and the
first transcript piece, later deltas carry more transcript, base64 data and ``expires_at``.
The openai SDK's ``client.chat.completions.stream`` joins them into ``message.audio``.
Over the chunks of ``litellm.completion(..., stream=True)`` (the first audio delta a dict,
the later ones the SDK's ``ChoiceDeltaAudio`` objects), ``stream_chunk_builder`` raises
``APIError: Error building chunks for logging/streaming usage calculation`` (the cause:
``'ChoiceDeltaAudio' object has no attribute 'items'``), so the whole answer is lost.

Exits 1 while the builder raises (0 once it returns the audio).
"""

import json
import logging
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's bundled model list: no fetch at import

import httpx2  # noqa: E402  (the HTTP library of the openai SDK)
import litellm  # noqa: E402
import openai  # noqa: E402

litellm.suppress_debug_info = True
logging.getLogger("LiteLLM").disabled = True  # litellm's own log of what it swallows or raises
MESSAGES = [{"role": "user", "content": "hi"}]


def client(chunks):
    """An openai client whose every request is answered with ``chunks`` as the SSE body."""
    body = "".join(f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks).encode()

    def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return openai.OpenAI(api_key="placeholder", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def litellm_message(chunks):
    """litellm's documented path: completion(stream=True), collect the chunks, stream_chunk_builder."""
    stream = litellm.completion(model="openai/gpt-4o", messages=MESSAGES, stream=True, client=client(chunks))
    collected = [chunk for chunk in stream]
    return litellm.stream_chunk_builder(collected, messages=MESSAGES).choices[0].message.model_dump()


def sdk_message(chunks):
    """The openai SDK's client.chat.completions.stream(...) over the same bytes."""
    with client(chunks).chat.completions.stream(model="gpt-4o", messages=MESSAGES) as stream:
        for _event in stream:
            pass
        return stream.current_completion_snapshot.choices[0].message.to_dict()


def show(label, value):
    print(f"{label:<36} {json.dumps(value, ensure_ascii=False, default=str)}")


AUDIO = [  # corpus case openai-chat/syn-audio-output
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'refusal': None, 'audio': {'id': 'audio_mcs_1', 'transcript': 'Sunny'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'transcript': ' in Paris'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'data': 'UklGRiQAAABXQVZF'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'transcript': ', 24 degrees.'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'data': 'Zm10IBAAAAABAAEA'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'expires_at': 1760003600}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'stop'}]},
    '[DONE]',
]

show("openai SDK audio", sdk_message(AUDIO).get("audio"))
try:
    show("litellm audio", litellm_message(AUDIO).get("audio"))
except Exception as exc:  # noqa: BLE001 -- what the builder raises is the finding
    cause = exc.__cause__ or exc.__context__
    print(f"litellm.stream_chunk_builder raises {type(exc).__name__}: {exc}")
    print(f"  caused by {type(cause).__name__}: {cause}")
    raise SystemExit(1)
raise SystemExit(0)
