"""``ChatOpenAI.invoke`` raises on a stream=false answer whose tool-call arguments are JSON
but no object (``["Paris"]``), instead of listing the call in ``invalid_tool_calls`` as it
does for arguments that are no JSON.

Case openai-chat/msg-native-unparsable-arguments: one call with cut-off arguments, one with
``arguments: "[\\"Paris\\"]"``. The openai SDK reads the message; langchain-openai's
``_convert_dict_to_message`` gets a list from ``parse_tool_call`` and the ``AIMessage`` it
builds fails pydantic validation, so ``invoke`` raises on the whole answer (the cut-off
call, which alone becomes an invalid call, is lost with it).

    python harnesses/repro/langchain_invoke_crashes_on_array_arguments.py

Exits 1 while LangChain raises on the answer.
"""

import json

import httpx2
from langchain_openai import ChatOpenAI
from openai._models import construct_type
from openai.types.chat import ChatCompletion

from _replay import CASES, show

crashed = False
for case_id in ("openai-chat/msg-native-unparsable-arguments",):
    message = json.loads((CASES / f"{case_id}.json").read_text(encoding="utf-8"))["message"]
    completion = {"id": "chatcmpl-x", "object": "chat.completion", "created": 0, "model": "gpt-4o",
                  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]}
    sdk = construct_type(type_=ChatCompletion, value=completion).choices[0].message
    print(case_id)
    show("  openai SDK tool calls", [(tc.function.name, tc.function.arguments) for tc in sdk.tool_calls])
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0, http_client=httpx2.Client(
        transport=httpx2.MockTransport(lambda request: httpx2.Response(200, json=completion))))
    try:
        answer = llm.invoke("what time is it?")
        show("  LangChain tool_calls", answer.tool_calls)
        show("  LangChain invalid_tool_calls", answer.invalid_tool_calls)
    except Exception as exc:  # noqa: BLE001 -- the finding is that it raises
        crashed = True
        show("  LangChain invoke raises", f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
raise SystemExit(1 if crashed else 0)
