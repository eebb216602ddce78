"""The openai SDK's own stream accumulator as the oracle for an OpenAI Chat stream.

``final_message(payloads)`` feeds every chunk to ``ChatCompletionStreamState`` (as the
SDK's ``ChatCompletionChunk`` models) and returns ``choices[0].message`` of the final
completion in wire form. The SDK adds keys that were never on the wire; they are removed:

* ``parsed`` on the message and ``function.parsed_arguments`` on every tool call;
* ``index`` on every tool call (the wire's key for the fragments, not part of a message);
* every ``None``-valued message key that no choice-0 delta carried (the SDK fills in
  ``annotations``, ``audio``, ``function_call``, ``tool_calls`` and ``refusal`` as nulls),
  and likewise every ``None``-valued tool-call key no fragment carried (``type`` when a
  server never sends it).

``"[DONE]"`` and other non-dict payloads are skipped; the state-level accumulator copes
with Azure's leading chunk (``object: ""``, ``choices: []``). A final ``finish_reason`` of
``length`` or ``content_filter`` makes the SDK refuse to build the final completion; the
accumulated snapshot it carries in that error is used instead (it is the same message).
"""

from __future__ import annotations

from typing import Any

from . import OracleUnavailable

__all__ = ["final_message"]


def final_message(payloads: list[Any]) -> dict:
    """The assistant message (choice 0) the openai SDK accumulates from ``payloads``."""
    try:
        import openai
        from openai._models import construct_type
        from openai.lib.streaming.chat import ChatCompletionStreamState
        from openai.types.chat import ChatCompletionChunk
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise OracleUnavailable(
            f"the openai-chat oracle needs the openai SDK ({exc}): pip install openai"
        ) from None

    state = ChatCompletionStreamState()
    wire_keys: set[str] = set()
    call_keys: set[str] = set()
    fed = 0
    for payload in payloads:
        if not isinstance(payload, dict):
            continue
        for choice in payload.get("choices") or ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0 and isinstance(choice.get("delta"), dict):
                wire_keys.update(choice["delta"])
                for fragment in choice["delta"].get("tool_calls") or ():
                    if isinstance(fragment, dict):
                        call_keys.update(fragment)
        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=payload))
        fed += 1
    if not fed:
        raise ValueError("openai-chat oracle: no chunk to accumulate (only non-dict payloads)")

    try:
        completion = state.get_final_completion()
    except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
        completion = exc.completion
    choices = completion.to_dict().get("choices") or []
    choice = next((c for c in choices if c.get("index") == 0), None)
    if choice is None:
        raise ValueError("openai-chat oracle: the stream has no choice with index 0")

    message = choice["message"]
    message.pop("parsed", None)
    for call in message.get("tool_calls") or ():
        for key in [k for k, v in call.items() if v is None and k not in call_keys]:
            del call[key]
        call.pop("index", None)
        function = call.get("function")
        if isinstance(function, dict):
            function.pop("parsed_arguments", None)
    return {k: v for k, v in message.items() if v is not None or k in wire_keys}


def _parsed(arguments: Any) -> tuple[dict, bool]:
    import json

    if not isinstance(arguments, str):
        return {}, True
    if not arguments.strip():
        return {}, False
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}, True
    return (value, False) if isinstance(value, dict) else ({}, True)


def calls(message: dict) -> list[dict]:
    """The calls as the SDK's ChatCompletionMessage model reads them, in corpus form."""
    try:
        from openai._models import construct_type
        from openai.types.chat import ChatCompletionMessage
    except ImportError as exc:  # pragma: no cover - exercised without the SDK
        raise OracleUnavailable(f"the openai-chat oracle needs the openai SDK: pip install openai ({exc})") from None
    model = construct_type(type_=ChatCompletionMessage, value=message)
    out = []
    for tc in model.tool_calls or []:
        arguments, bad = _parsed(tc.function.arguments)
        out.append({"name": tc.function.name, "arguments": arguments, "id": tc.id, "error": bad or not tc.function.name})
    return out


def content_text(message: dict) -> str:
    """The message content as the SDK model reads it ("" when null)."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionMessage

    return construct_type(type_=ChatCompletionMessage, value=message).content or ""
