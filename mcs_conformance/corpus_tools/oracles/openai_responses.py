"""Oracle for openai-responses: the openai SDK's ``ResponseStreamState`` run offline.

``final_message(payloads)`` feeds the events to ``ResponseStreamState(input_tools=omit,
text_format=omit)`` and returns the ``response`` of the ``response.completed`` (or
``response.incomplete``) event it yields, as ``to_dict()`` (wire keys only, unset keys absent).

Keys the SDK adds that never were on the wire, and that are removed here:

* ``output[].parsed_arguments`` on ``function_call`` items (``ParsedResponseFunctionToolCall``);
* ``output[].content[].parsed`` on ``output_text`` parts (``ParsedResponseOutputText``);
* ``output_parsed`` at the top level, should a version dump it.

Without a completion event (a stream cut short, or one ending in ``error`` /
``response.failed``), the SDK's current snapshot is returned: the ``response.created``
object with the output items as the SDK holds them (an item's ``output_item.done`` form when
it arrived, else the item built from its deltas), the same view the SDK itself attaches to a
``response.failed`` event. The SDK rejects some streams on purpose: a lifecycle event whose
response id differs from ``response.created``'s (GitHub Copilot rotates it), or a done item
whose id differs from the added one; those raise ``ValueError`` naming the event.
"""

from __future__ import annotations

from typing import Any

from ...reference.wire import to_wire
from . import OracleUnavailable

__all__ = ["final_message"]

_FINAL = ("response.completed", "response.incomplete")


def final_message(payloads: list) -> Any:
    """The response object the openai SDK assembles from ``payloads``, in wire form."""
    try:
        from openai import omit
        from openai._models import construct_type
        from openai.lib.streaming.responses import ResponseStreamState
        from openai.types.responses import ResponseStreamEvent
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise OracleUnavailable(
            f"the openai-responses oracle needs the openai SDK ({exc}): pip install openai"
        ) from None

    state = ResponseStreamState(input_tools=omit, text_format=omit)
    final = None
    for n, payload in enumerate(payloads):
        payload = to_wire(payload)
        if isinstance(payload, str):
            continue  # "[DONE]"
        event = construct_type(type_=ResponseStreamEvent, value=payload)
        try:
            emitted = state.handle_event(event)
        except (RuntimeError, AssertionError, AttributeError, IndexError, KeyError, TypeError) as exc:
            kind = payload.get("type") if isinstance(payload, dict) else type(payload).__name__
            raise ValueError(
                f"openai ResponseStreamState rejected event {n} ({kind}): {type(exc).__name__}: {exc}"
            ) from exc
        for out in emitted:
            if getattr(out, "type", None) in _FINAL:
                final = out.response
    if final is not None:
        return _strip(final.to_dict(mode="json"))
    return _strip(_snapshot(state))


def _snapshot(state: Any) -> dict:
    """The SDK's in-progress response, with finished items in their done form."""
    snapshot = getattr(state, "_ResponseStreamState__current_snapshot", None)
    if snapshot is None:
        raise ValueError("the stream has no response.created event, so the openai SDK holds no response")
    # the snapshot's output list holds parsed item types pydantic does not expect there;
    # it is rebuilt from the items below, so its serialization warnings are moot
    message = snapshot.to_dict(mode="json", warnings=False)
    items = dict(getattr(state, "_output_items", {}))
    items.update(getattr(state, "_completed_output", {}))
    if items:
        message["output"] = [items[i].to_dict(mode="json") for i in sorted(items)]
    return message


def _strip(message: dict) -> dict:
    message.pop("output_parsed", None)
    for item in message.get("output") or []:
        if not isinstance(item, dict):
            continue
        item.pop("parsed_arguments", None)
        for part in item.get("content") or []:
            if isinstance(part, dict):
                part.pop("parsed", None)
    return message


def _model(message: dict) -> Any:
    try:
        from openai._models import construct_type
        from openai.types.responses import Response
    except ImportError as exc:  # pragma: no cover - exercised without the SDK
        raise OracleUnavailable(f"the openai-responses oracle needs the openai SDK: pip install openai ({exc})") from None
    return construct_type(type_=Response, value=message)


def calls(message: dict) -> list[dict]:
    """function_call and custom_tool_call items as the SDK's Response model reads them.

    A call whose item status is not "completed" is marked as an error (cut short).
    """
    import json

    out = []
    for item in _model(message).output or []:
        if item.type == "function_call":
            raw, bad = item.arguments, False
            try:
                args = json.loads(raw) if raw.strip() else {}
            except ValueError:
                args, bad = {}, True
            if not isinstance(args, dict):
                args, bad = {}, True
        elif item.type == "custom_tool_call":
            args, bad = {"input": item.input}, False
        else:
            continue
        status = getattr(item, "status", None) or "completed"
        out.append({"name": item.name, "arguments": args, "id": item.call_id, "error": bad or status != "completed"})
    return out


def content_text(message: dict) -> str:
    """The SDK's own ``Response.output_text``: every output_text part, joined."""
    return _model(message).output_text
