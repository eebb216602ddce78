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
under realpayloads/: anthropic-sdk-python sse files and cassettes, vercel-ai anthropic).
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
