"""Bedrock ConverseStream events: their names, how a chunk is split into (name, payload),
and the errors that name a malformed event."""

from __future__ import annotations

from typing import Any

from ...errors import MalformedChunk
from ...wire import describe

NAME = "bedrock"

# The members of the ConverseStreamOutput union that carry the turn.
EVENTS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
)
# The exception members of the union: the stream reports an error and ends.
ERRORS = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)
# metadata fields copied to the top of the ConverseResponse (they replace, never add).
METADATA_FIELDS = ("usage", "metrics", "trace", "performanceConfig", "serviceTier")
# stop reasons of a turn the model did not finish: the output was cut.
CUT_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})
# stop reasons by which the service says the model's output, or its tool use, is malformed.
MALFORMED_REASONS = frozenset({"malformed_tool_use", "malformed_model_output"})


def bad(problem: str, event: object) -> MalformedChunk:
    """The error for a malformed event, naming the problem and the event."""
    return MalformedChunk(f"{NAME}: {problem}: {describe(event)}")


def split(chunk: object) -> tuple[str, Any]:
    """The event name and payload of a chunk: an object with exactly one key."""
    if not isinstance(chunk, dict):
        raise bad("an event must be a JSON object keyed by its event name", chunk)
    if len(chunk) != 1:
        known = [k for k in chunk if k in EVENTS or k in ERRORS]
        if known or not chunk:
            raise bad("an event must have exactly one key, its event name", chunk)
        return "", chunk  # an unknown event with several keys: noise
    ((name, payload),) = chunk.items()
    if (name in EVENTS or name in ERRORS) and not isinstance(payload, dict):
        raise bad(f"{name} payload is not an object", chunk)
    return name, payload


def block_index(name: str, payload: dict, chunk: object) -> int:
    """The event's ``contentBlockIndex``: a non-negative integer."""
    index = payload.get("contentBlockIndex")
    if type(index) is not int or index < 0:
        raise bad(f"{name} has no non-negative integer contentBlockIndex", chunk)
    return index


def text_field(name: str, holder: object, key: str, chunk: object) -> str:
    """``holder[key]`` when it is a string, else the error naming the event."""
    value = holder.get(key) if isinstance(holder, dict) else None
    if not isinstance(value, str):
        raise bad(f"{name} carries no string {key!r}", chunk)
    return value
