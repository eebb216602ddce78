"""pydantic-ai's ``ToolCallPart.args_as_dict()`` raises ``TypeError`` on arguments that hold a
lone UTF-16 surrogate (an emoji cut in half by a server), even with
``raise_if_invalid=False``, which is meant to never raise.

Case openai-chat/msg-arguments-lone-surrogate. ``json.loads`` (how the openai SDK's docs
read arguments) parses them and keeps the lone surrogate; ``pydantic_core.from_json``
refuses a ``str`` it cannot encode as UTF-8 with ``TypeError``, which ``args_as_dict``
does not catch (it catches ``ValueError`` and ``AssertionError``).

    python harnesses/repro/pydantic_ai_lone_surrogate_crash.py    (pip install -r harnesses/pydantic_ai/requirements.txt)

Exits 1 while ``args_as_dict`` raises where ``json.loads`` reads the arguments.
"""

import json

from pydantic_ai.messages import ToolCallPart

from _replay import CASES, show

message = json.loads((CASES / "openai-chat/msg-arguments-lone-surrogate.json").read_text(encoding="utf-8"))["message"]
crashed = False
for call in message["tool_calls"]:
    raw = call["function"]["arguments"]
    show("json.loads", json.loads(raw))
    part = ToolCallPart(tool_name=call["function"]["name"], args=raw, tool_call_id=call["id"])
    try:
        show("args_as_dict()", part.args_as_dict())
    except Exception as exc:  # noqa: BLE001 -- the finding is that it raises
        crashed = True
        show("args_as_dict() raises", f"{type(exc).__name__}: {exc}")
raise SystemExit(1 if crashed else 0)
