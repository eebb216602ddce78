"""Oracle for anthropic-messages: the anthropic SDK's beta stream accumulator, run offline.

``anthropic.lib.streaming._beta_messages.accumulate_event`` is the accumulator behind
``client.beta.messages.stream(...).get_final_message()``. The beta one is used because
the plain one turns block types it does not know (``compaction``, ``fallback``,
``mcp_tool_use``) into text blocks. The snapshot is dumped with ``to_dict()`` (only the
fields that were set), in JSON mode.

Keys the SDK adds that never were on the wire, removed here: ``stop_reason``,
``stop_sequence`` and ``stop_details`` at the top of the message. Every ``message_delta``
assigns all three, ``None`` when the delta lacks them, so a stream that never sent
``stop_details`` (most do not) would gain ``"stop_details": null``. Such a key is
dropped when it is null and appeared neither in ``message_start.message`` nor in any
``message_delta.delta``. Nothing else differs (checked against every recorded stream
in the repository's recordings/: anthropic-sdk-python sse files and cassettes, vercel-ai anthropic).
"""

from __future__ import annotations

from typing import Any

from . import OracleUnavailable

__all__ = ["final_message"]

_ASSIGNED_BY_MESSAGE_DELTA = ("stop_reason", "stop_sequence", "stop_details")


def final_message(payloads: list) -> Any:
    """The ``Message`` the SDK assembles from these wire payloads, in wire form."""
    try:
        import httpx2
        from anthropic.lib.streaming._beta_messages import accumulate_event
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise OracleUnavailable(
            f"the anthropic-messages oracle needs the anthropic SDK ({exc}): pip install anthropic"
        ) from exc

    events = [p for p in payloads if not (isinstance(p, str) and p == "[DONE]")]
    snapshot, json_bufs, headers = None, {}, httpx2.Headers()
    for event in events:
        snapshot = accumulate_event(
            event=event, current_snapshot=snapshot, json_bufs=json_bufs, request_headers=headers
        )
    if snapshot is None:
        return None
    message = snapshot.to_dict(mode="json")
    on_wire: set[str] = set()
    for event in events:
        if not isinstance(event, dict):
            continue
        source = event.get("message") if event.get("type") == "message_start" else None
        source = event.get("delta") if event.get("type") == "message_delta" else source
        if isinstance(source, dict):
            on_wire.update(source)
    for key in _ASSIGNED_BY_MESSAGE_DELTA:
        if key not in on_wire and key in message and message[key] is None:
            del message[key]
    return message


def _model(message: dict) -> Any:
    try:
        from anthropic._models import construct_type
        from anthropic.types.beta import BetaMessage
    except ImportError as exc:  # pragma: no cover - exercised without the SDK
        raise OracleUnavailable(f"the anthropic-messages oracle needs the anthropic SDK: pip install anthropic ({exc})") from None
    return construct_type(type_=BetaMessage, value=message)


def calls(message: dict) -> list[dict]:
    """The tool_use blocks as the SDK's BetaMessage model reads them, in corpus form.

    A call is marked as an error when its input is not an object, when the message has no
    stop_reason, or when it is the last block of a message cut by max_tokens.
    """
    model = _model(message)
    blocks = list(model.content or [])
    out = []
    for i, block in enumerate(blocks):
        if block.type != "tool_use":
            continue
        ok = isinstance(block.input, dict)
        truncated = model.stop_reason is None or (model.stop_reason == "max_tokens" and i == len(blocks) - 1)
        out.append({"name": block.name, "arguments": block.input if ok else {}, "id": block.id, "error": not ok or truncated})
    return out


def content_text(message: dict) -> str:
    """The text blocks' text, joined in order."""
    return "".join(b.text for b in _model(message).content or [] if b.type == "text")
